"""AppTest: the survival page's hazard-ratio section draws its preview, follows its own ε and offers a release."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "survival.py")


def _page(**params) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=240)
    at.query_params.update({"hr_on": "true", **params})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _answer(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Hazard ratio"))


def test_hazard_ratio_section_is_computed_only_when_asked_for():
    at = AppTest.from_file(PAGE, default_timeout=240)
    at.run()
    assert any(h.value == "Hazard ratio (Cox)" for h in at.header)
    assert not any(m.value.startswith("**Hazard ratio") for m in at.markdown)


def test_hazard_ratio_section_previews_a_release_against_lifelines():
    at = _page()
    assert any(h.value == "Hazard ratio (Cox)" for h in at.header)
    line = _answer(at)
    assert "private" in line and "non-private" in line and "p =" in line
    assert any("preview releases at ε = 1" in m.value for m in at.markdown)
    assert any(b.label.startswith("Release") for b in at.button)
    assert not any(box.key == "hr_strata" for box in at.selectbox)  # bundled sets have no other columns to declare


def test_hazard_ratio_section_follows_its_own_epsilon_and_intervals():
    narrow = _answer(_page(hr_eps="10", hr_k="2"))
    wide = _answer(_page(hr_eps="0.5", hr_k="2"))
    assert narrow != wide


def test_hazard_ratio_release_is_charged_to_the_persons_and_exported():
    at = _page(sv_data="ovarian")
    at.button(key="release_button_hazard_ratio").click().run()
    at.button(key="release_confirm_hazard_ratio").click().run()  # the confirmation dialog
    assert not at.exception, [e.value for e in at.exception]
    assert any("Released DP hazard ratios" in s.value for s in at.success)
    bundle = at.session_state["_release_last_hazard_ratio"]
    assert {"hazard_ratios", "released_histogram"} <= set(bundle.tables)
    assert bundle.public_params["sensitivity_l1"] == 2
    assert "hazard_ratio_forest" in bundle.figures
    assert bundle.to_zip()[:2] == b"PK"


def test_moving_the_hazard_ratio_epsilon_reuses_the_reference_and_the_curve():
    """ε-independent work (lifelines' fit, the privacy–utility curve) is kept while only ε moves."""
    from unittest import mock

    import ui.hazard_ratio as section

    with mock.patch.object(section, "lifelines_reference", wraps=section.lifelines_reference) as reference, \
            mock.patch.object(section, "_utility_curve", wraps=section._utility_curve) as curve:
        at = _page(hr_k="8")  # intervals of the user's own: the default would follow ε (the test below)
        before = _answer(at)
        at.select_slider(key="hr_eps").set_value(5.0).run()
        assert not at.exception, [e.value for e in at.exception]
        assert _answer(at) != before
        assert reference.call_count == 1 and curve.call_count == 1


def test_the_intervals_follow_the_declared_event_share_and_epsilon_until_chosen():
    """The default number of intervals is the public rule of n, ε, the groups and the declared expected share of
    people with an event (``default_intervals``): rare events declared give one interval; a choice of the user's
    own stays when ε moves."""
    from dpcore.core.datasets import load_survival
    from dpcore.survival.cox import default_intervals

    at = _page(sv_data="cancer")
    n = len(load_survival("cancer").time)  # 228 lung-cancer patients in two groups: 16 intervals at ε = 10, 90 %
    assert default_intervals(10.0, 0.9, n=n, cells=2) == 16
    assert at.select_slider(key="hr_k").value == default_intervals(1.0, None, n=n, cells=2)
    at.selectbox(key="hr_share").set_value(0.05).run()
    assert not at.exception and at.select_slider(key="hr_k").value == 1
    at.selectbox(key="hr_share").set_value(0.9)
    at.select_slider(key="hr_eps").set_value(10.0).run()
    assert at.select_slider(key="hr_k").value == default_intervals(10.0, 0.9, n=n, cells=2)
    at.select_slider(key="hr_k").set_value(8).run()
    at.select_slider(key="hr_eps").set_value(0.5).run()
    assert at.select_slider(key="hr_k").value == 8


def test_the_section_shows_the_frontier_of_every_effect():
    at = _page(sv_data="cancer")
    frontier = next(d for d in at.dataframe if str(d.value.columns[0]).startswith("smallest ε significant"))
    assert len(frontier.value) >= 1 and "lifelines' p (non-private)" in frontier.value.columns
    assert any("The frontier:" in c.value for c in at.caption)


def test_the_section_says_where_the_curve_levels_off():
    at = _page(sv_data="cancer")
    line = next(m.value for m in at.markdown if m.value.startswith("**Where the curve levels off"))
    assert "grouping bias" in line and "standard errors" in line
