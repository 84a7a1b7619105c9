"""The shared first-screen furniture: a settings group's folded label repeats the values chosen inside it."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _page() -> None:
    import streamlit as st

    import ui

    st.session_state["runs"] = st.session_state.get("runs", 0) + 1
    with ui.settings_group("demo_settings") as settings:
        noise = st.radio("Noise", ["discrete Laplace", "Gaussian"], key="noise")
        settings.shows(noise)
        seed = st.number_input("Preview seed", value=0, key="seed")
        settings.shows(f"seed {seed}")
    ui.answer("Median survival", "11.8 months (95 % CI 9.6–14.1)", "12.0 (10.6–13.4)")


def test_settings_label_lists_current_values_after_each_change():
    at = AppTest.from_function(_page, default_timeout=60).run()
    assert not at.exception
    assert at.expander[0].label == "Settings: discrete Laplace · seed 0"
    first_runs = at.session_state["runs"]
    at.radio(key="noise").set_value("Gaussian").run()
    assert at.expander[0].label == "Settings: Gaussian · seed 0"
    assert at.session_state["runs"] - first_runs == 2  # the change's run, and one rerun for the stale label
    at.number_input(key="seed").set_value(3).run()
    assert at.expander[0].label == "Settings: Gaussian · seed 3"
    settled = at.session_state["runs"]
    at.run()  # nothing changed: no second run for the label
    assert at.session_state["runs"] == settled + 1


def test_answer_line_names_private_and_nonprivate():
    at = AppTest.from_function(_page, default_timeout=60).run()
    text = at.markdown[0].value.replace("\\", "")  # the values are escaped: shown as typed
    assert "private **11.8 months" in text and "non-private 12.0" in text
