"""URL-bound widgets: a value from a link is matched as a number and snapped into the page's range, with a note."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.widgets import EPSILON_STEPS, _option_from_text

FDR_PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "fdr.py")


@pytest.mark.parametrize(
    "raw, options, expected, noted",
    [
        ("4", [1.0, 2.0, 4.0], 4.0, False),  # ?s=4 finds 4.0
        ("4.0", [1.0, 2.0, 4.0], 4.0, False),
        ("survival", ["home", "survival"], "survival", False),
        ("0.1", [0.3, 0.5, 1.0], 0.3, True),  # below the page's range: nearest, said
        ("3", [1.0, 2.0, 5.0], 2.0, True),  # log scale: 3 is nearer 2 than 5 (ratio 1.5 vs 1.67)
        ("abc", [1.0, 2.0], 1.0, True),  # not a number: the default, said
        ("nan", [1.0, 2.0], 1.0, True),
        ("bogus", ["a", "b"], "a", True),
    ],
)
def test_option_from_link_text(raw, options, expected, noted):
    option, note = _option_from_text(raw, options, options[0])
    assert option == expected and type(option) is type(expected)
    assert (note is not None) == noted


def test_links_with_whole_numbers_and_out_of_range_epsilon_on_the_fdr_page():
    at = AppTest.from_file(FDR_PAGE, default_timeout=120)
    at.query_params["fdr_s"] = "4"
    at.query_params["eps"] = "0.1"  # the FDR page offers ε ≥ 0.3
    at.query_params["fdr_R"] = "20"
    at.run()
    assert not at.exception, at.exception
    assert at.select_slider(key="fdr_s").value == 4.0
    assert "Set the shift to" in at.info[-1].value  # s = 4 from the link is matched, and is not releasable
    assert at.select_slider(key="eps").value == 0.3
    assert any("nearest value offered here is 0.3" in c.value.replace("\\", "") for c in at.caption)
    assert min(EPSILON_STEPS) < 0.3


def _decimal_fields() -> None:
    import ui

    ui.url_number("Horizon", key="h", value=36.139630390143736, min_value=0.001)
    ui.url_number("Draws", key="n", value=10, min_value=1, max_value=100)
    ui.url_number("η", key="eta", value=0.0831, format="%.4f")


def test_decimal_number_fields_show_six_digits_whole_ones_their_own_and_a_given_format_wins():
    """sprintf-js's ``%g`` shows every digit of a float (36.139630390143736): decimal fields show six."""
    at = AppTest.from_function(_decimal_fields, default_timeout=30).run()
    assert not at.exception
    formats = {n.key: n.proto.format for n in at.number_input}
    assert formats == {"h": "%.6g", "n": "%d", "eta": "%.4f"}, formats


def _folded_control() -> None:
    import streamlit as st

    import ui

    if st.session_state.get("show", True):
        ui.url_text("Survival at (years)", key="years", value="1, 2, 5")
        ui.url_number("Restricted mean up to", key="tau", value=30.0, min_value=0.001, max_value=30.0)
    st.session_state["seen"] = (ui.kept_value("years", "1, 2, 5"), ui.kept_value("tau", 30.0, between=(0.001, 30.0)))


def test_a_control_keeps_its_value_while_it_is_not_drawn_and_a_link_is_read_without_drawing_it():
    at = AppTest.from_function(_folded_control, default_timeout=30).run()
    at.text_input(key="years").set_value("1").run()
    at.session_state["show"] = False
    at.run()
    at.run()  # a second run without the controls: Streamlit has dropped their widget state by now
    assert at.session_state["seen"] == ("1", 30.0) and at.query_params["years"] == "1"
    linked = AppTest.from_function(_folded_control, default_timeout=30)
    linked.session_state["show"] = False
    linked.query_params.update({"years": "2", "tau": "99"})  # never drawn: read from the link, clamped as drawn
    linked.run()
    assert linked.session_state["seen"] == ("2", 30.0)


def _settings_page() -> None:
    import streamlit as st

    import ui

    question, _ = st.columns(2)
    with ui.settings_group("grp") as group:
        a = ui.url_slider("A", key="a", min_value=0, max_value=10, value=3)
        group.shows(f"a {a}")
        with question:  # a control the group's code draws into the question row, outside the group
            b = ui.url_selectbox("B", key="b", options=["x", "y"])
        _, right = st.columns(2)
        with right:  # columns inside the group belong to it
            t = ui.url_toggle("T", key="t", value=False)
    st.session_state["seen"] = (a, b, t)


def test_a_folded_settings_group_draws_no_control_and_gives_their_values_and_stays_open_when_relabelled():
    at = AppTest.from_function(_settings_page, default_timeout=30).run()
    assert not at.exception and at.session_state["seen"] == (3, "x", False)
    assert not at.slider and not at.toggle and [s.key for s in at.selectbox] == ["b"]  # only the question's
    at.session_state["grp"] = True  # opened
    at.run()
    assert [s.key for s in at.slider] == ["a"] and [t.key for t in at.toggle] == ["t"]
    at.slider(key="a").set_value(7).run()  # a new label ("Settings: a 7") is a new expander to Streamlit
    assert [s.key for s in at.slider] == ["a"] and at.expander[0].label == "Settings: a 7"
    at.toggle(key="t").set_value(True).run()
    at.session_state["grp"] = False  # folded again: the values chosen stay, in the page and in the link
    at.run()
    at.run()  # Streamlit has dropped the widgets' state by now
    assert not at.slider and at.session_state["seen"] == (7, "x", True)
    assert at.query_params["a"] == "7" and at.query_params["t"] == "true"
    at.session_state["grp"] = True
    at.run()
    assert at.slider(key="a").value == 7 and at.toggle(key="t").value is True


def test_a_folded_settings_group_reads_a_link_and_says_what_it_changed_under_its_label():
    at = AppTest.from_function(_settings_page, default_timeout=30)
    at.query_params.update({"a": "99", "t": "maybe"})
    at.run()
    assert at.session_state["seen"] == (10, "x", False) and not at.slider
    notes = [c.value.replace("\\", "") for c in at.caption]
    assert any("nearest value allowed here is 10. (under Settings)" in n for n in notes), notes
    assert any("'maybe' is not true or false" in n for n in notes), notes


def _memo_page() -> None:
    import streamlit as st

    from ui.state import session_memo

    st.session_state.setdefault("computed", [])
    key = st.session_state["key"]
    session_memo("demo", key, lambda: st.session_state["computed"].append(key) or key * 10, keep=2)


def test_session_memo_keeps_the_last_few_keys_least_recently_used_first():
    at = AppTest.from_function(_memo_page, default_timeout=30)
    for key in (1, 2, 1, 3, 1, 2):
        at.session_state["key"] = key
        at.run()
    # 1 and 2 computed, 1 kept (used again), 3 pushed 2 out, 1 still kept, 2 computed again
    assert at.session_state["computed"] == [1, 2, 3, 2]
