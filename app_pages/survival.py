"""Survival page: DP Kaplan–Meier, Nelson–Aalen, competing-risk incidence and log-rank tests.

Thin: the controls (``ui.survival``), one call into the session (``dpcore.survival.session``), the figures and the
release panel. Bundled (public) inputs are cached; uploads are never cached, written or logged.
"""

from __future__ import annotations

import streamlit as st

import ui
import ui.survival as us
from dpcore.survival import page_text as text
from dpcore.survival import session as ss
from ui.hazard_ratio import hazard_ratio_section

ui.page_header("Survival curves with differential privacy", text.HEADER)

# ---- the question: the data, and whether to compare groups; then the folded expert settings ----------------------
q_source, q_data, q_compare = ui.question_row(1.4, 2.1, 1.0)
src, data_note = us.data_source(q_source, q_data)
ui.set_current_dataset(src.label, src.fp)
us.reset_for(src)  # a new data set (or time unit) brings its own public metadata: reset the grid controls to it
chosen = us.expert_settings(src, us.compare_toggle(src, q_compare))
settings = chosen.settings

# ---- one call into the session: the public grid and the counts on it ---------------------------------------------
session = None
with ui.show_errors("Cannot build the grid"):
    session = ss.Session.build(src, settings)
if session is None:
    st.stop()
if mismatch := session.declared_mismatch():
    st.warning(ui.literal(mismatch), icon=":material/warning:")  # outside the fold: the declaration is public
grid_note = session.grid_note(us.rule_inputs(src))
if not src.bundled and settings.horizon == ss.UPLOAD_HORIZON[src.time_unit]:
    st.info(text.upload_horizon_note(settings.horizon, src.time_unit), icon=":material/schedule:")
records = ui.records_read([src.time, src.event])  # the ledger's key for these people, outside the ε fragment


@ui.live_fragment
def _at_epsilon() -> None:
    """Everything that depends on ε: moving the ε slider reruns only this (the sweep over ε below it stays).

    The first screen: ε, the answer and the Release button beside the open view's figure, so a move redraws the
    figure where the reader looks; what a release costs under them, then the details at this ε, folded (drawn only
    while open). The views are a switch of which only the open one is computed and drawn: a move redraws one chart.
    """
    controls, figure = ui.first_screen()
    release_text = st.container()
    details = ui.details_at_epsilon("sv_details")
    with controls:
        epsilon = ui.epsilon_slider("Privacy budget ε", key="eps", default=1.0)
    if chosen.follows_rule(src):
        st.rerun(scope="app")  # the default grid depends on ε: rebuild the counts on it (the grid follows the rule)
    preview = session.preview(epsilon)  # the preview release every view shows
    with figure:
        views = ui.view_switch(text.VIEWS if session.n_groups > 1 else text.VIEWS[:2], key="sv_view")
    if details.open:
        with details:
            st.markdown(text.what_is_noised(session.noised(), preview.noise))
    place = us.Place(controls, figure, details)
    if views[0].open:  # the headline: its answer beside ε, the curves in the figure column
        us.headline(session, preview, place)
    if views[1].open:  # utility over draws: the slider and the chart beside ε, the table under them
        us.over_draws(session, preview, place)
    if session.n_groups > 1 and views[2].open:  # groups: the chart beside ε, the differences and the test under it
        us.groups(session, preview, place)
    if details.open:
        with details:
            us.several_releases(session, epsilon)
    with release_text:
        us.release(session, epsilon, records, button_at=controls, details=details)


@ui.live_fragment
def _trade_off() -> None:
    """The privacy–utility curve over ε (independent of the chosen ε: not redrawn when ε moves); its own control
    of the draws per ε reruns only this."""
    us.trade_off(session, records)


# The ε section (the first screen and the details at this ε) is drawn above the trade-off curve but runs after it:
# its release note reads the curve's draws.
at_epsilon, about = st.container(), st.container()
_trade_off()
with at_epsilon:
    _at_epsilon()
with about:  # independent of ε: outside its fragment, not redrawn when ε moves
    ui.note(f"Unit of privacy: one person (replace-one neighbours; n = {src.time.size} is public).")
    ui.what_this_page_shows(text.about(data_note, grid_note))
hazard_ratio_section(src, horizon=settings.horizon, records=records,
                     upload_columns=None if src.bundled else us.upload_columns())
