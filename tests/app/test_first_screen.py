"""The shared first-screen furniture: a settings group's folded label repeats the values chosen inside it; each
method page's details at ε are folded and sent only when opened."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.support.page_views import DETAILS
from tests.support.pages import PAGES
from ui.first_screen import DETAILS_LABEL


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


@pytest.mark.parametrize("page", sorted(DETAILS))
def test_each_method_pages_details_at_epsilon_are_folded_and_sent_only_when_opened(page):
    """On the defaults, the details at ε (what was noised, the downloads) are one folded box and nothing of them
    is sent; opened, they hold the notebook and script; the Release button stays on the first screen either way."""
    at = AppTest.from_file(str(PAGES / f"{page}.py"), default_timeout=240).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.label for e in at.expander if e.label.startswith("Details at this ε")] == [DETAILS_LABEL]
    assert not at.get("download_button")
    assert not any(m.value.startswith("**What is noised") or "Noise at these settings" in m.value for m in at.markdown)
    at.session_state[DETAILS[page]] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Download notebook (.ipynb)" in labels and "Download script (.py)" in labels
    assert any(m.value.startswith("**What is noised") or "Noise at these settings" in m.value for m in at.markdown)
    assert at.button(key=f"release_button_{page}")
