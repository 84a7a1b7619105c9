"""The Sparse page's live part, drawn inside its ε fragment: ε and the preview's noise settings, the answer line,
the four views (only the open one is computed and drawn) and what the preview noised.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import ui
from dpcore.notebooks import SparseConfig
from dpcore.sparse import figures as spf
from dpcore.sparse import page_text as text
from dpcore.sparse import session
from dpcore.sparse.session import LABELS, SWEEP, Preview, Setup
from ui.accuracy import accuracy_first
from ui.layout import literal
from ui.sparse import cached

#: the views of the live part; only the open one is computed and drawn (fixed labels: they render as Markdown)
VIEWS = ["Coefficients", "Utility over the draws", "Convergence", "Privacy–utility over ε"]


@dataclass(frozen=True)
class Live:
    """The live controls' values; ``answer_slot``: where the answer line goes, under ε."""

    epsilon: float
    delta_choice: str
    delta: float
    R: int
    seed: int
    answer_slot: object


def live_controls(setup: Setup) -> Live:
    """ε, then a folded box of the preview's δ, repeats and seed (its label lists their values)."""
    epsilon = ui.epsilon_slider("Privacy budget ε", key="eps", default=2.0, min_value=0.1, max_value=20.0)
    answer_slot = st.container()
    with st.expander(_noise_label(), key="sp_noise_box"):  # drawn while folded (see app_pages/fdr.py's PAPRIKA box)
        delta_choice = ui.url_select_slider("δ", key="sp_delta", options=session.DELTAS, value="1/n²")
        R = int(ui.url_select_slider("Repeats (noise draws)", key="sp_R", options=session.REPEATS, value=10))
        seed = int(ui.url_number("Preview seed", key="sp_seed", min_value=0, max_value=10_000, value=0, step=1,
                                 help="Seeds the preview only; a release is seeded by the operating system."))
    return Live(epsilon, delta_choice, session.delta_value(delta_choice, setup.n), R, seed, answer_slot)


def _noise_label() -> str:
    """The folded preview settings' label, with their values (as the last run left them, or a link's)."""
    def value(key: str, default) -> str:
        return str(ui.held(key, st.query_params.get(key, default)))
    return literal(f"Preview noise: δ = {value('sp_delta', '1/n²')} · {value('sp_R', 10)} draws · "
                   f"seed {value('sp_seed', 0)}")


def answer(setup: Setup, result: Preview, live: Live) -> None:
    """The one line to take away: held-out error private vs non-private, and whether the private model keeps the
    non-private model's features, over the simulated releases."""
    line = session.answer(result, setup.variant, setup.loss, live.R)
    ui.answer(line.measure, line.private, line.nonprivate, verdict=line.verdict)


def views(setup: Setup, result: Preview, live: Live) -> None:
    """The view switch and the open view."""
    coef_tab, draws_tab, conv_tab, sweep_tab = ui.view_switch(VIEWS, key="sp_view")
    with coef_tab:
        if coef_tab.open:
            _coefficients(setup, result)
    with draws_tab:
        if draws_tab.open:
            _draws(setup, result, live)
    with conv_tab:
        if conv_tab.open:
            _convergence(setup, live)
    with sweep_tab:
        if sweep_tab.open:
            _sweep(setup, live)


def _kt_caveat(setup: Setup) -> None:
    """The caveat of the paper's knowledge transfer, beside results that show it (never about the release)."""
    if "kt" in setup.methods:
        st.warning(text.KT_CAVEAT, icon=":material/warning:")


def _coefficients(setup: Setup, result: Preview) -> None:
    """The first screen's figure: the released model's coefficients (one preview draw) against the non-private
    model's (and the true ones for synthetic data)."""
    data = setup.data
    ui.live_chart(spf.release_stem_figure(result.coefs["nonprivate"][0], result.coefs[setup.variant][0],
                                         variant=setup.variant, theta=data.theta,
                                         feature_names=data.feature_names or None, height=ui.FIGURE_HEIGHT),
                  key="sp_stem")  # real data: no θ* to show
    ui.teaching(text.STEMS_TEACHING)


def _draws(setup: Setup, result: Preview, live: Live) -> None:
    st.header(f"Utility over {live.R} noise draws at ε = {live.epsilon:g}")
    st.dataframe(session.draws_table(result.metrics, setup.methods, setup.loss), hide_index=True, width="stretch")
    st.caption(text.draws_caption(setup.data.theta is not None))
    _kt_caveat(setup)


def _convergence(setup: Setup, live: Live) -> None:
    paths = None
    with ui.show_errors("Could not fit"):
        paths = cached.paths(setup, live.epsilon, live.delta, live.seed)
    if paths is None:
        return
    ui.chart(spf.convergence_figure(paths), key="sp_conv")
    st.markdown(text.CONVERGENCE)
    ui.teaching(text.CONVERGENCE_TEACHING)


def _sweep(setup: Setup, live: Live) -> None:
    """The privacy–utility curves over the ε grid: independent of the chosen ε (a move of ε leaves them as drawn)."""
    sweep_key = ("sweep", setup.public_key, setup.s, live.delta, setup.methods, live.R, live.seed, setup.params_items)
    if setup.public_key is None:
        sweep_key = (setup.fingerprint, sweep_key)
    curve = None
    # automatic only while it takes about a second; larger sweeps wait for the button so that moving a control
    # never blocks for long
    if setup.sweep_runs_at_once(live.R):
        with st.spinner("Sweeping ε for every method…"):
            curve = cached.sweep(setup, live.delta, live.R, live.seed)
    elif st.session_state.get("_sp_sweep_key") == sweep_key:
        curve = st.session_state["_sp_sweep"]
    else:
        st.caption(f"{len(SWEEP)} values of ε × {live.R} draws × {len(setup.methods)} methods on "
                   f"n·d = {setup.n * setup.d:,}: press to run.")
        if st.button("Compute the curves", key="sp_sweep_btn"):
            bar = st.progress(0.0, text="Running every method over the ε grid…")
            with ui.show_errors("Sweep failed"):
                curve = cached.sweep(setup, live.delta, live.R, live.seed,
                                     progress=lambda f: bar.progress(f, text=f"{f:.0%} of the methods done"))
                st.session_state["_sp_sweep_key"] = sweep_key
                st.session_state["_sp_sweep"] = curve
            bar.empty()
    if curve is None:
        return
    axes = session.curve_axes(setup.data.theta is not None, setup.loss)
    left, right = st.columns(2)
    with left:
        ui.chart(spf.utility_figure(curve, axes.error, labels=LABELS, y_title=axes.error_title), key="sp_err")
    with right:
        ui.chart(spf.utility_figure(curve, axes.support, labels=LABELS, y_title=axes.support_title), key="sp_f1")
    _kt_caveat(setup)
    st.caption(text.sweep_caption(live.R))
    st.info(text.SWEEP_LIMITS, icon=":material/info:")
    headline = session.accuracy_headline(curve, axes.error)
    if headline is not None:
        method, threshold = headline
        accuracy_first(key="sp_acc", grid=curve.epsilons, draws=curve.values[method][axes.error],
                       metric_label=f"{axes.error_title} of {LABELS[method]}", default_threshold=threshold,
                       basis=setup.label)


def noised(setup: Setup, result: Preview) -> None:
    """What the previewed peeling and knowledge transfer noised, as one element (in the details at ε, while open)."""
    said = text.noised(result.noises, setup.params["intercept"], setup.params["m"])
    if said:
        st.markdown(said)


def notebook_config(setup: Setup, live: Live) -> SparseConfig:
    """The page's configuration as the notebook and the release's script reproduce it."""
    return SparseConfig(source=setup.source, loss=setup.loss, sparsity=setup.s, epsilon=live.epsilon,
                        delta=live.delta, seed=live.seed, repeats=live.R, methods=setup.fitted,
                        variant=setup.variant, params=setup.params, sweep=tuple(SWEEP), **setup.notebook_source())
