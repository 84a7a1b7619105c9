"""Drug-sensitivity page: robust private Bayesian linear regression (Honkela et al. 2018).

Thin: controls (ui.regression) → one call into dpcore.regression.session → figures → the release panel. Bundled
GDSC and synthetic data are public, so their sweeps are cached; uploads are never cached, written or logged (their
sweeps live in this session's state only).
"""

from __future__ import annotations

import streamlit as st

import ui
from dpcore.regression import page_text as T
from ui.regression import controls, cv, release, views

ui.page_header("Drug sensitivity: private linear regression", T.SUBTITLE)

q_source, q_drug = ui.question_row(2.0, 2.6)
with q_source:
    kind = ui.url_radio("Data source", key="rg_src", options=["gdsc", "synthetic", "upload"], horizontal=True,
                        format_func=lambda s: {"gdsc": "bundled GDSC", "synthetic": "synthetic",
                                               "upload": "upload a CSV"}[s])
drug = uploaded = None
if kind == "gdsc":
    with q_drug:
        drug = controls.drug()
elif kind == "upload":
    ui.plan_first_link("regression")  # where a custodian is about to read a private file: fix the settings first
    uploaded = controls.upload()  # its column choices, ranges and unit, full width under the question
    if uploaded is None:
        st.stop()

# ---- expert settings: one folded group, its label lists their values ----------------------------------------------
with ui.settings_group("rg_settings") as settings:
    src, data_note = controls.data(kind, settings, drug=drug, uploaded=uploaded)
    sizes = controls.sizes(src, settings)  # or why the page cannot go on (said above the first screen)
    s = controls.method(settings, *sizes) if isinstance(sizes, tuple) else None
if s is None:
    st.error(sizes)
    st.stop()

ui.set_current_dataset(src.label, src.fp)
records = ui.records_read([src.y], exchangeable=src.X) if src.kind == "upload" else None  # outside the ε fragment
data_note += T.records_note(len(src.y), src.X.shape[1], int(src.public.sum()), ui.literal(src.public_basis))


@ui.live_fragment
def _cv_view(*, epsilon: float) -> None:
    """ρ of the five models over the ε sweep and over private sizes: a fragment of its own inside the ε fragment, so
    that its controls (the repeats, the models shown) rerun only this view."""
    cv.cv_view(src, s, epsilon=epsilon)


@ui.live_fragment
def _target_view(*, epsilon: float) -> None:
    """Accuracy first on the CV's ε sweep; its controls rerun only this view."""
    cv.target_view(src, s, epsilon=epsilon)


@ui.live_fragment
def _at_epsilon() -> None:
    """Everything that depends on ε (the tuned thresholds, the preview, the views at ε, the release): moving the ε
    slider reruns only this. The first screen: ε, the answer and the Release button beside the open view's figure,
    so a move redraws the figure where the reader looks; what a release costs under them, then the details at this
    ε, folded (drawn only while open). The seven views' switch spans the page above them (beside ε it would be cut
    at laptop widths)."""
    v_fit, v_draws, v_coef, v_cv, v_target, v_heat, v_split = ui.view_switch(views.VIEWS, key="rg_view")
    controls_column, figure = ui.first_screen()
    with controls_column:
        epsilon = ui.epsilon_slider("Privacy budget ε (total)", key="eps", default=1.0)
    thresholds = views.thresholds(src, s, epsilon=epsilon, figure=figure)
    with ui.show_errors("Preview failed"):  # one seeded split, the preview releases on it (nothing charged)
        run = views.preview(src, s, epsilon=epsilon, thresholds=thresholds)
    with controls_column:
        views.answer(src, run)

    with figure:
        if v_fit.open:
            views.fit_view(src, s, run)
        if v_draws.open:
            views.draws_view(run)
        if v_coef.open:
            views.coefficients_view(src, s, run)
        if v_cv.open:
            _cv_view(epsilon=epsilon)
        if v_target.open:
            _target_view(epsilon=epsilon)
        if v_heat.open:
            views.heatmap_view(src, s, thresholds)
        if v_split.open:
            views.split_view(src, s, thresholds)

    config = release.release_panel(src, s, run, epsilon=epsilon, thresholds=thresholds, records=records,
                                   button_at=controls_column)
    details = ui.details_at_epsilon("rg_details")
    if details.open:
        with details:
            release.what_is_noised(src, s, run, epsilon=epsilon, thresholds=thresholds)
            if v_fit.open:
                views.fit_details(s, run, epsilon=epsilon)
            release.explained(src, s, run, config)


_at_epsilon()
# independent of ε: outside its fragment, not redrawn when ε moves
ui.note(f"Unit of privacy: {ui.literal(src.unit)} (replace-one neighbours; n is public).")
ui.what_this_page_shows(T.about(data_note))
