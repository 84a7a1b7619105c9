"""dpcore.survival.session: the survival page's computation without Streamlit — named seed streams that the notebook
repeats, a preview that its seed reproduces, and the tables and sentences the page shows."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore import survival as sv
from dpcore.notebooks import SurvivalConfig, script
from dpcore.survival import session as ss


def _session(**changes) -> ss.Session:
    src = ss.bundled_source("gehan")
    settings = dict(horizon=36.0, grid_unit="weeks", width=4, compare=True, estimator="km", event_type=1,
                    band_rule=sv.DEFAULT_BAND, whole="continuous", resolution=None, aware=True,
                    kind="discrete_laplace", delta=0.0, risk_set=sv.DEFAULT_RISK_SET, seed=3)
    return ss.Session.build(src, ss.Settings(**{**settings, **changes}))


def test_streams_give_the_seeds_the_page_has_always_used_and_no_two_uses_share_one():
    assert {name: ss.stream(10, name) for name in ss.SEED_STREAMS} == {
        "preview": 10, "sweep": 11, "draws": 17, "utility": 21, "plan": 23, "differences": 27}
    assert len(set(ss.SEED_STREAMS.values())) == len(ss.SEED_STREAMS)
    with pytest.raises(KeyError):
        ss.stream(0, "no such use")


def test_the_notebook_draws_the_preview_and_the_sweep_from_the_pages_streams():
    config = SurvivalConfig(dataset="gehan", horizon=36.0, grid_unit="weeks", epsilon=1.0, seed=3)
    source = script(config)
    assert "rng = np.random.default_rng(SEED)\n" in source  # the preview: offset 0
    assert f"rng=np.random.default_rng(SEED + {ss.SEED_STREAMS['sweep']})" in source


def test_the_preview_is_the_seeded_draw_and_the_sweep_uses_its_own_stream():
    session = _session()
    preview = session.preview(1.0)
    noise = sv.noise_for(session.counts, 1.0, kind="discrete_laplace", delta=0.0)
    again = sv.noisy_counts(session.counts, noise, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(preview.noisy.events, again.events)
    np.testing.assert_array_equal(preview.noisy.censored, again.censored)
    assert preview.minimum == sv.min_at_risk(noise.std)
    epsilons = np.array([0.5, 2.0])
    curve = ss.sweep(session.src, epsilons, *session.settings.sweep_args(20))
    direct = sv.utility_curve(session.counts, epsilons, draws=20, rng=np.random.default_rng(3 + 1), estimator="km",
                              kind="discrete_laplace", delta=0.0, event_type=1, risk_set=sv.DEFAULT_RISK_SET,
                              noise_aware_logrank=True)
    np.testing.assert_array_equal(curve.sup_error, direct.sup_error)
    note = ss.utility_note(curve, 1.9, session.grid.grid_unit)
    assert note.startswith("Over 20 simulated releases at ε = 2 ") and "log-rank decision" in note


def test_moving_epsilon_back_shows_what_a_fresh_session_computes_and_keeps_few_results():
    """A result kept for a recent ε equals what a new session computes there, whatever was drawn in between
    (each preview hands out its own copy of the generator); the session keeps at most ``MEMO_SIZE`` results."""
    session = _session()
    first = session.km_read_at(1.0)
    session.km_read(session.preview(1.0))  # a view drawing from the preview's generator...
    session.km_read_at(2.0)
    again = session.km_read_at(1.0)  # ...does not change the preview a later view draws from
    assert again is first
    fresh = _session().km_read(_session().preview(1.0))
    np.testing.assert_array_equal(first.redraws, fresh.redraws)
    assert first.median == fresh.median
    one, two = session.preview(3.0), session.preview(3.0)
    np.testing.assert_array_equal(one.rng.random(4), two.rng.random(4))
    np.testing.assert_array_equal(one.noisy.events, two.noisy.events)
    for epsilon in np.linspace(0.1, 10, 3 * ss.Session.MEMO_SIZE):
        session.km_read_at(epsilon)
    assert len(session._memo) == ss.Session.MEMO_SIZE  # noqa: SLF001 - the bound is the point


def test_the_draws_measures_are_kept_per_epsilon_and_draws_and_equal_a_fresh_computation():
    """Moving the draws (or ε) back shows the measures already computed there: the same object, equal to what a
    new session computes, and different draws or ε are computed anew."""
    session = _session()
    first = session.utility(1.0, 20)
    session.utility(1.0, 50)
    session.utility(2.0, 20)
    assert session.utility(1.0, 20) is first
    fresh = _session().utility(1.0, 20)
    for name in ("sup_error", "integrated_error", "coverage", "released_coverage"):
        np.testing.assert_array_equal(getattr(first, name), getattr(fresh, name))
    assert session.utility(1.0, 50).sup_error.shape == (50,)
    assert not np.array_equal(session.utility(2.0, 20).sup_error, first.sup_error)


def test_years_are_read_in_the_grids_unit_inside_the_horizon_and_unreadable_parts_skipped():
    session = _session()  # weeks, horizon 36 weeks
    per_year = ss.UNIT_DAYS["years"] / ss.UNIT_DAYS["weeks"]
    assert session.years_to_times("0.5, soon, 1, -1, 0") == pytest.approx((0.5 * per_year,))


def test_tables_and_sentences_of_the_views():
    session = _session()
    preview = session.preview(2.0)
    reference = session.references()[0]
    read = session.km_read(preview)
    table = session.km_summary(read, reference, session.years_to_times("0.25, 0.5"), tau=20.0)
    assert list(table.index) == [f"survival at {t:g} weeks" for t in session.years_to_times("0.25, 0.5")] + [
        "restricted mean to 20 weeks"]
    lr = session.logrank(preview)
    sentence = lr.sentence()
    assert sentence.startswith("Log-rank χ² = ") and ("**agrees**" in sentence) == lr.agree
    assert "(private, noise-aware)" in sentence
    plain = _session(aware=False).logrank(preview)
    assert plain.chosen is plain.plain and "(private)" in plain.sentence()
    summary = ss.utility_summary(session.utility(2.0, 20))
    assert ss.largest_gap(summary).endswith(")") and "on average" in ss.largest_gap(summary)
    assert "of each group" in session.noised() and "pinned to the total n = 42" in session.noised()


def test_a_subset_keeps_the_rows_asked_for_and_the_release_parameters_name_the_noise_released():
    session = _session(kind="laplace")
    part = session.src.subset(np.arange(5))
    assert part.time.size == 5 and part.group.size == 5 and part.fp == session.src.fp
    params = session.release_params()
    assert params["noise_kind"] == "discrete_laplace"  # Laplace is for previews only
    assert params["sensitivity_l1"] == sv.sensitivity(2, statistic=session.counts.statistic)
