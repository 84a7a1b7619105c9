"""AppTest: uploads shaped like common survival tables open on a sensible mapping, grid and horizon.

The tables are the project's own small synthetic copies (``tests/core/test_columns.py``), never the real files.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from dpcore import survival as sv

from tests.support.page_views import DETAILS, captured_downloads, chart_spec
from tests.support.column_cases import SURVIVAL, TABLES
from tests.support.pages import SURVIVAL_PAGE, ok, survival_upload
from tests.support.uploads import FakeUpload


def _csv(name: str) -> bytes:
    return TABLES[name].to_csv(index=False).encode()


@pytest.mark.parametrize("name", ["rossi", "gbsg2", "lung", "larynx"])
def test_upload_maps_columns_by_name_and_says_so(name):
    at = survival_upload(_csv(name))
    ok(at)  # lung's 'inst', gbsg2's 'horTh', larynx's 'age' are no longer read as time or event
    time, event, group, unit = SURVIVAL[name]
    assert at.selectbox(key="sv_tcol").value == time and at.selectbox(key="sv_ecol").value == event
    assert at.selectbox(key="sv_gcol").value == (group or "(none)")
    assert at.selectbox(key="sv_tunit").value == (unit or "days")
    guessed = next(c.value for c in at.caption if c.value.startswith("Columns guessed"))
    assert f"time = '{time}'" in guessed and f"event = '{event}'" in guessed
    if group:  # a guessed group waits for its declared labels; meanwhile everyone is pooled
        assert any("declare its labels" in i.value for i in at.info)
    assert any(m.value.startswith("**Median survival") for m in at.markdown)  # the answer line


def _rule(horizon: float, n: int, epsilon: float = 1.0) -> tuple[str, int]:
    width, unit = sv.default_bin_width(horizon, "days", n=n, epsilon=epsilon, n_groups=1)
    return unit, width


def test_upload_grid_follows_a_public_rule_from_the_horizon_n_and_epsilon():
    """Waltons-like: times in days ending near day 75. The grid never comes from the data; the horizon starts at a
    unit-based value the page flags, the grid follows the public rule (horizon, n, ε, groups) and says why, and a
    width the user sets stays."""
    n = len(TABLES["waltons"])
    at = survival_upload(_csv("waltons"))
    ok(at)
    assert at.number_input(key="sv_hor").value == 365
    assert (at.selectbox(key="sv_unit").value, at.number_input(key="sv_width").value) == _rule(365, n)
    at.session_state["explain What this page shows"] = True  # the grid's rule is told in the page's explanations
    at.run()
    assert any(f"n = {n}, ε = 1" in m.value and "balances the binning error" in m.value for m in at.markdown)
    assert any("not read from your file" in i.value for i in at.info)
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(_csv("waltons"), "waltons.csv")):
        at.number_input(key="sv_hor").set_value(75.0).run()
        ok(at)
        assert (at.selectbox(key="sv_unit").value, at.number_input(key="sv_width").value) == _rule(75, n)
        assert not any("not read from your file" in i.value for i in at.info)
        at.select_slider(key="eps").set_value(5.0).run()  # a larger ε: finer bins (the page reruns on its grid)
        ok(at)
        assert (at.selectbox(key="sv_unit").value, at.number_input(key="sv_width").value) == _rule(75, n, 5.0)
        at.number_input(key="sv_width").set_value(5).run()  # the user's own width stays when H moves
        at.number_input(key="sv_hor").set_value(80.0).run()
        ok(at)
        assert at.number_input(key="sv_width").value == 5
        assert any("in bins of 5 " in e.label for e in at.expander)  # the folded settings' label says it


def test_years_like_times_read_as_days_are_flagged_before_a_release():
    at = survival_upload(b"time,event\n0.1,1\n2.5,0\n10.7,1\n4.2,1\n")
    ok(at)
    assert any("They look like years" in w.value for w in at.warning)


def test_headline_shows_noisy_numbers_at_risk_and_not_reached_median():
    rng = np.random.default_rng(4)
    n = 200
    rows = ["time,event"] + [f"{rng.uniform(1, 365):.4f},{int(rng.random() < 0.1)}" for _ in range(n)]
    at = survival_upload("\n".join(rows).encode())
    ok(at)
    median = next(m.value for m in at.markdown if m.value.startswith("**Median survival"))
    assert "not reached" in median
    spec = chart_spec(at, "sv_headline")
    texts = [a["text"] for a in spec["layout"]["annotations"]]
    assert {"Number at risk", "noisy", "true", str(n)} <= set(texts)
    numbers = [int(t) for t in texts if t.isdigit()]
    assert numbers and min(numbers) >= 0


#: an upload of 60 people in two declared groups, no two rows alike (one person each)
TWO_ARMS = ("time,event,arm\n" + "\n".join(f"{i + 1},{(i // 2) % 2},{'AB'[i % 2]}" for i in range(60)) + "\n").encode()


def test_the_notebook_gets_the_declared_labels_without_their_spaces():
    """Declared as "A, B" (a space after the comma): the downloaded script names the groups 'A' and 'B', not ' B'."""
    with captured_downloads() as files:
        at = survival_upload(TWO_ARMS, group_labels="A, B")
    ok(at)
    script = next(make() for name, make in files.items() if name and name.endswith(".py"))
    assert "group_labels=['A', 'B']" in script and "' B'" not in script


def test_an_upload_gets_the_hazard_ratio_notebook_reading_its_own_columns():
    """The hazard-ratio section on an upload offers its notebook, which reads the user's CSV by the page's mapping."""
    at = AppTest.from_file(SURVIVAL_PAGE, default_timeout=120)
    at.session_state[DETAILS["survival"]] = True  # the details at ε, unfolded
    at.query_params.update({"sv_src": "upload", "hr_on": "true"})
    with captured_downloads() as files, mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(TWO_ARMS, "t.csv")):
        at.run()
        at.text_input(key="sv_glabels").set_value("A, B").run()
    ok(at)
    script = files["hazard-ratio-preview.py"]()
    assert "time_col='time'" in script and "event_col='event'" in script and "group_col='arm'" in script, script


def test_choosing_another_time_column_redraws_the_non_private_reference():
    """The same file, another column as the time: the reference (lifelines on the exact times, kept in the session
    while ε moves) is recomputed, not the previous column's."""
    rows = "\n".join(f"{i + 1},{3 * (i + 1)},{(i // 2) % 2 or i % 3 == 0:d}" for i in range(80))
    at = AppTest.from_file(SURVIVAL_PAGE, default_timeout=120)
    at.session_state[DETAILS["survival"]] = True  # the details at ε, unfolded
    at.query_params.update({"sv_src": "upload"})
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(f"t1,t2,event\n{rows}\n".encode(),
                                                                            "two.csv")):
        at.run()
        at.selectbox(key="sv_tcol").set_value("t1").run()
        first = next(m.value for m in at.markdown if m.value.startswith("**Median survival"))
        at.selectbox(key="sv_tcol").set_value("t2").run()
        second = next(m.value for m in at.markdown if m.value.startswith("**Median survival"))
    ok(at)
    assert first.split("non-private")[1] != second.split("non-private")[1], (first, second)


def test_choosing_another_time_column_refits_the_hazard_ratios_reference():
    """The hazard-ratio section's lifelines fit (kept in the session while ε moves) follows the time column chosen."""
    rows = "\n".join(f"{i + 1},{i + 1 if i % 2 else i // 4 + 1},{(i // 2) % 2},{'AB'[i % 2]}" for i in range(80))
    at = AppTest.from_file(SURVIVAL_PAGE, default_timeout=120)
    at.session_state[DETAILS["survival"]] = True  # the details at ε, unfolded
    at.query_params.update({"sv_src": "upload", "hr_on": "true"})
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(
            f"t1,t2,event,arm\n{rows}\n".encode(), "two.csv")):
        at.run()
        at.selectbox(key="sv_tcol").set_value("t1").run()
        at.text_input(key="sv_glabels").set_value("A, B").run()
        first = next(m.value for m in at.markdown if "(lifelines: p =" in m.value)
        at.selectbox(key="sv_tcol").set_value("t2").run()
        second = next(m.value for m in at.markdown if "(lifelines: p =" in m.value)
    ok(at)
    assert first.split("lifelines: p =")[1] != second.split("lifelines: p =")[1], (first, second)
