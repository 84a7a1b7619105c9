"""Sparse-learning page: DP sparse linear / logistic regression — peeling + private fit (the default release),
knowledge transfer, DP-IGHT, DP Frank–Wolfe and two-stage.

Thin: controls (``ui.sparse``) → one preview (``dpcore.sparse.session``) → its figures → the release panel. Public
inputs (synthetic data, the bundled GDSC subset) are cached; uploads are never cached, written or logged. The ε
fragment stays in this file: ``ui.live_fragment`` releases the namespace of the function it wraps (the page's).
"""

from __future__ import annotations

import streamlit as st

import ui
from dpcore.core.datasets import GDSC_LEDGER_LABEL
from dpcore.sparse import page_text as text
from dpcore.sparse import session
from ui import sparse as sparse_ui
from ui.attacker import attacker_panel  # teaching mode: what ε means for one patient
from ui.exports import code_downloads, release_with_script  # notebook, script

# ---- the question (data set, drug, s) on top, expert settings folded ------------------------------------------
ui.page_header(text.TITLE, text.SUBTITLE)
setup = sparse_ui.controls()


# ---- the first screen: ε beside the private-vs-non-private coefficients, the answer and the Release button ------
@ui.live_fragment
def _live() -> None:
    """Everything that depends on ε, δ, the repeats or the preview seed: moving one of them reruns only this, and
    of its views only the open one is computed and drawn. The first screen: ε, the answer and the Release button
    beside the figure, so a move of ε redraws the figure where the reader is looking; what a release costs under it,
    then the details at this ε, folded (drawn only while open)."""
    controls, figure = ui.first_screen()
    with controls:
        live = sparse_ui.live_controls(setup)
    preview = None
    with figure, ui.show_errors("Could not fit"), st.spinner("Fitting…"):
        preview = sparse_ui.fits(setup, live.epsilon, live.delta, live.R, live.seed)
    if preview is None:
        return
    with live.answer_slot:
        sparse_ui.answer(setup, preview, live)
    with figure:
        sparse_ui.views(setup, preview, live)

    terms = session.release_terms(setup, live.epsilon, live.delta)
    config = sparse_ui.notebook_config(setup, live)
    ui.release_panel(  # the button beside the figure, what a release costs and reads under the first screen
        key="sparse", dataset_label=setup.label, fingerprint=setup.fingerprint,
        utility_note=session.utility_note(preview.metrics, setup.variant, live.epsilon, live.R),
        persons=setup.persons, records=setup.records,
        ledger_label=GDSC_LEDGER_LABEL if setup.source == "gdsc" else None, simulated=setup.source == "synthetic",
        method=terms.method, epsilon=live.epsilon, delta=live.delta, parts=terms.parts, params=terms.params,
        button_at=controls,
        make_bundle=lambda: release_with_script(session.release(setup, live.epsilon, live.delta), config),
    )
    attacker_panel("sparse", live.epsilon, live.delta)
    details = ui.details_at_epsilon("sp_details")
    if details.open:
        with details:
            sparse_ui.noised(setup, preview)
            code_downloads(config)
    if setup.public_key is not None:
        sparse_ui.prefetch(setup, live.epsilon, live.delta_choice, live.R, live.seed)


# ---- the first screen, then what the page shows and how it works (static: outside the live part) ---------------
_live()
ui.preview_notice(text.VIEWS_NOTICE)
ui.what_this_page_shows(text.what_this_page_shows(setup.n, setup.data_source))
ui.explain(text.KT_EXPLAINED, title=text.KT_TITLE)

# ---- what a release exports (static) ----------------------------------------------------------------------------
st.caption(text.RELEASABLE)
st.caption(text.exports(setup.params["m"]))
ui.explain(text.PEEL_EXPLAINED, title=text.PEEL_TITLE)
ui.explain(text.PRIVATE_SUPPORT_EXPLAINED, title=text.PRIVATE_SUPPORT_TITLE)
