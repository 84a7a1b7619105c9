"""Accuracy first (ui/accuracy.py, on every method page): the smallest ε meeting a target is compared with what the
data set may spend (13.8 on bundled Cancer, above the default cap of 10, was shown without a word)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _script(met_at: float):
    """A page with accuracy first open on a metric whose draws first meet 0.8 at ε = ``met_at``."""
    import numpy as np

    from ui.accuracy import accuracy_first

    grid = np.array([1.0, 5.0, 13.8, 20.0])
    draws = np.where(grid[:, None] >= met_at, 0.95, 0.2) + np.zeros((4, 50))
    accuracy_first(key="acc", grid=grid, draws=draws, metric_label="power", default_threshold=0.8,
                   larger_is_better=True, allow_probability=False, expanded=True)


def _run(met_at: float, cap: str | None, monkeypatch) -> AppTest:
    if cap is not None:
        monkeypatch.setenv("DPCORE_DEFAULT_EPSILON_CAP", cap)
    at = AppTest.from_function(_script, args=(met_at,), default_timeout=60).run()
    assert not at.exception, at.exception
    return at


def _cap_warnings(at) -> list[str]:
    return [w.value for w in at.warning if "cap" in w.value]


def test_a_smallest_epsilon_above_the_default_cap_is_said_plainly(monkeypatch):
    at = _run(13.8, None, monkeypatch)  # the deployment's default cap: ε = 10
    smallest = float(at.success[0].value.split("≈ ")[1].split(" ")[0])  # interpolated between 5 and 13.8
    assert smallest > 10
    warnings = _cap_warnings(at)
    assert len(warnings) == 1 and f"≈ {smallest:.3g}, is above this data set's cap: ε = 10" in warnings[0], warnings


def test_no_word_when_the_smallest_epsilon_fits_under_the_cap(monkeypatch):
    assert _cap_warnings(_run(5.0, None, monkeypatch)) == []
    assert _cap_warnings(_run(13.8, "20", monkeypatch)) == []  # a deployment with a higher cap
