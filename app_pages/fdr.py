"""Online FDR page: PAPRIKA and PAPRIKA AI (private) against SAFFRON, SAFFRON AI, LORD++ and alpha-investing.

Thin: controls (``ui.fdr.controls``) → the session (``dpcore.fdr.session``: the work, its seeds and sentences) →
figures and the release panel (``ui.fdr.views``, ``ui.fdr.release``); the prose is ``dpcore.fdr.page_text``'s.
Simulated streams are public and cached; uploaded p-values are never cached, written or logged.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

import ui
from dpcore.fdr import page_text as text
from dpcore.fdr import session
from dpcore.notebooks.fdr import page_config
from ui.attacker import attacker_panel  # teaching mode: what ε means for one patient
from ui.exports import code_downloads  # notebook, script
from ui.fdr import controls, release, views

ui.page_header(text.TITLE, text.LEAD)

# Links from before the view tabs carried the private method as ?fdr_view=…; that key now names the open view.
if st.query_params.get("fdr_view") in session.PRIVATE_METHODS:
    if "fdr_method" not in st.query_params:
        st.query_params["fdr_method"] = st.query_params["fdr_view"]
    del st.query_params["fdr_view"]

# ---- the question: which stream (a data set, and for a simulation how many records each test reads) ---------------
q_data, q_records = ui.question_row(1.4, 1)
with q_data:
    src = ui.url_selectbox("Stream of p-values", key="fdr_src", options=list(text.SOURCES),
                           format_func=text.SOURCES.get)
upload_slot = st.container()  # an upload's file and columns, under the question
page = session.Page(source=src)
with ui.settings_group("fdr_settings") as stream_settings:
    controls.presets()
    if page.simulated:
        controls.simulation(page, q_records, stream_settings)
    else:
        controls.upload(page, upload_slot, stream_settings)
    controls.sensitivity(page, stream_settings)  # ---- sensitivity η
controls.floor_notes(page)
ui.set_current_dataset(page.label, page.fingerprint)

# ---- the streams (independent of PAPRIKA's settings and of ε) ------------------------------
controls.streams(page)
records = None if page.simulated else ui.records_read([page.p])  # outside the ε fragment


@ui.live_fragment
def _at_settings() -> None:
    """Everything that depends on PAPRIKA's settings: moving one of their sliders reruns only this. The first
    screen (the ε fragment) comes first; the settings, folded under a label listing their values, below it."""
    first, below = st.container(), st.container()
    shown = session.paprika_summary(ui.held)
    # drawn while folded: a box that draws its controls only while open is named by its label too, so each move of
    # a slider in it (its value is in the label) would mount the whole box anew, 2–3× slower than the move itself
    with below, st.expander(f"PAPRIKA settings: {shown}", key="fdr_paprika_box"):
        settings, method = controls.paprika(page)
    if session.paprika_summary(session.settings_values(settings, method).get) != shown:  # a link's values on the
        st.rerun(scope="app")  # session's first run: relabel once
    with first:
        _at_epsilon(settings, method)


@ui.live_fragment
def _at_epsilon(settings, method: str) -> None:
    """Everything that depends on ε (nested in the settings' fragment: moving ε reruns only this, with the settings
    of the last run of the outer one): the first screen — ε, the answer and the Release button beside the figure —
    then what a release costs, and the noise and power at this ε folded under it (drawn only while open). The views
    are a switch of which only the open one is computed and drawn, so a move redraws one chart."""
    switch = ui.view_switch(text.VIEWS, key="fdr_view")  # full width: five labels do not fit beside ε
    first_controls, figure = ui.first_screen()
    with first_controls:
        epsilon = ui.epsilon_slider("Privacy budget ε", key="eps", default=5.0, min_value=0.3, max_value=20.0)
    settings = dataclasses.replace(settings, epsilon=epsilon)
    paragraphs, frontier = views.paragraphs(page, settings, method)
    one = base_one = None
    with first_controls, ui.show_errors("Cannot run the procedures"):
        one, base_one = session.one_stream(page.p_runs, settings, method, page.seed)
        views.stream_answer(page, one, base_one)
    with figure:
        summary = views.draw(switch, page, settings, one, base_one, frontier, method)
    views.shift_warning(settings)
    release(page, settings, method, summary, button_at=first_controls, records=records)
    attacker_panel("fdr", settings.epsilon, settings.delta)
    details = ui.details_at_epsilon("fdr_details")
    if details.open:
        with details:
            st.markdown("\n\n".join(paragraphs))  # one element: it is redrawn on every move of ε while open
            code_downloads(page_config(page, settings, method))


_at_settings()
ui.preview_notice(text.PREVIEW_NOTE)
ui.explain(text.WHAT_THIS_PAGE_SHOWS, title="What this page shows", expanded=False)
