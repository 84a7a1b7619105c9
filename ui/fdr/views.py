"""The FDR page's ε fragment, drawn: the paragraphs under the first screen, the answer line and the five views of
which only the open one is computed and drawn (:data:`dpcore.fdr.page_text.VIEWS`).

The numbers come from :mod:`dpcore.fdr.session` (and its shared caches in :mod:`ui.fdr.cached`), the words from
:mod:`dpcore.fdr.page_text`.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import streamlit as st

import ui
from dpcore import fdr
from dpcore.fdr import figures as ff
from dpcore.fdr import page_text as text
from dpcore.fdr import session
from dpcore.ledger import fingerprint
from ui.accuracy import accuracy_first
from ui.fdr import cached


def paragraphs(page: session.Page, s: fdr.Settings, method: str) -> tuple[list[str], pd.DataFrame | None]:
    """The paragraphs under the first screen (the noise, then what a release reaches), and the power frontier of a
    Bernoulli simulation (its view draws it too)."""
    said = [session.noise_text(s, page.T)]
    frontier = None
    if page.source == "bernoulli":
        with ui.show_errors("Cannot compute the power frontier"):
            rest = (s.delta, s.lam_paprika, s.gamma, method == "PAPRIKA AI", page.seed)
            frontier = cached.sim_frontier(page.T, page.pi1, page.theta, s.alpha, *rest)
            # the frontier is the one view-independent computation an α step waits for (~0.4 s): start the
            # neighbouring α values' now, as ε's neighbours are on the other pages
            ui.head_start("fdr_alpha", [(0.3, lambda a=a: cached.sim_frontier(page.T, page.pi1, page.theta, a, *rest))
                                        for a in ui.steps_around(session.ALPHAS, s.alpha)])
            said.append(session.frontier_text(frontier, s, method, page.n_obs))
    if page.source == "upload" and page.sens.source == "binomial":
        with ui.show_errors("Cannot compute the power this upload's design can reach"):
            table = cached.design_frontier(page.n_obs, page.T, page.theta, dataclasses.replace(s, epsilon=1.0),
                                           method == "PAPRIKA AI", session.design_epsilons(s), page.seed)
            said.append(session.design_power_text(table, s, method, page))
    elif page.source == "upload":
        said.append(text.upload_needs_binomial(text.ETA_LABELS[page.sens.source]))
    return said, frontier


def stream_answer(page: session.Page, one, base_one) -> None:
    """The one line to take away (:func:`dpcore.fdr.session.answer`)."""
    said = session.answer(one, base_one, None if page.truth_runs is None else page.truth_runs[0], page.T)
    ui.answer(said.measure, said.private, said.nonprivate, verdict=said.verdict)


def shift_warning(s: fdr.Settings) -> None:
    """A warning when the shift chosen does not cover the whole stream: the δ of the guarantee does not hold."""
    if s.shift != fdr.STREAM:
        st.warning(text.shift_warning(fdr.shift_label(s.shift)), icon=":material/warning:")


def draw(views: list, page: session.Page, s: fdr.Settings, one, base_one,
         frontier: pd.DataFrame | None, method: str) -> pd.DataFrame | None:
    """The open view, drawn (the others are not computed); the summary over runs when that view computed it."""
    stream_tab, runs_tab, pi1_tab, eps_tab, frontier_tab = views
    summary = None
    with stream_tab:
        if stream_tab.open and one is not None:
            _one_stream(page, s, one, base_one)
    with runs_tab:
        if runs_tab.open:
            summary = _runs(page, s)
    with pi1_tab:
        if pi1_tab.open:
            _pi1(page, s)
    with eps_tab:
        if eps_tab.open:
            _eps(page, s)
    with frontier_tab:
        if frontier_tab.open:
            _frontier(page, frontier, s, method)
    return summary


def summary(page: session.Page, s: fdr.Settings) -> pd.DataFrame | None:
    """FDR and power of the six methods over the runs (None without truth labels)."""
    if page.truth_runs is None:
        return None
    if page.simulated:
        return cached.sim_summary(*page.design(), s)
    return session.summary(page.p_runs, page.truth_runs, s, page.seed)


def _one_stream(page: session.Page, s: fdr.Settings, one, base_one) -> None:
    with ui.show_errors("Cannot run the procedures"):
        st.header(f"One stream: {one.method} vs {base_one.method}")
        ui.live_chart(ff.stream_figure(one, page.p_runs[0], truth=None if page.truth_runs is None else
                                       page.truth_runs[0], nonprivate=base_one, cutoff=s.cutoff,
                                       height=ui.FIGURE_HEIGHT), key="fdr_fig_stream")
        if page.labels is not None:  # cell text from the file: shown literally
            st.caption(f"**{one.method} discoveries (preview), by hypothesis label:** "
                       + ui.literal(session.labelled(one.rejections, page.labels)))
        ui.teaching(text.STREAM_TEACHING)
        ui.explain(text.sparse_vector_explained(s.cutoff, s.eta), title=text.SPARSE_VECTOR_TITLE)


def _runs(page: session.Page, s: fdr.Settings) -> pd.DataFrame | None:
    st.header(f"All six methods over {page.runs} {'runs' if page.simulated else 'noise draws'}")
    table = None
    if page.truth_runs is None:
        st.info(text.NO_TRUTH_COUNTS)
        with ui.show_errors():
            st.dataframe(session.discovery_counts(page.p_runs, s, page.seed))
        return None
    with ui.show_errors():
        table = summary(page, s)
        left, right = st.columns([1.3, 1.2])
        with left:
            ui.chart(ff.summary_figure(table, alpha=s.alpha, bound=s.alpha + s.delta * page.T), key="fdr_fig_summary")
        with right:
            st.dataframe(session.summary_shown(table), hide_index=True, width="stretch")
            st.caption(text.ERROR_BARS)
        cost = (cached.sim_shift_cost(*page.design(), s) if page.simulated else
                session.shift_cost(page.p_runs, page.truth_runs, s, page.seed))
        st.markdown(f"**What the proven shift costs** at ε = {s.epsilon:g}, η = {s.eta:.4g} (same streams and noise "
                    "model; only the shift changes; releases use the first rows):")
        st.dataframe(session.shift_cost_shown(cost), hide_index=True, width="stretch")
        if page.sens.source == "binomial":
            st.caption(text.floor_caption(page.sens.floor))
    ui.teaching(text.RUNS_TEACHING)
    return table


def _pi1(page: session.Page, s: fdr.Settings) -> None:
    st.header("FDR and power vs the share of non-nulls π1")
    if page.truth_runs is None or not page.simulated:
        st.info(text.PI1_NEEDS_SIMULATION)
        return
    with ui.show_errors("Sweep failed"):  # streams are cached per π1; a setting change reruns only the rules
        with st.spinner("Simulating five values of π1…"):
            kind, runs, T, _, n, theta, seed = page.design()
            pi_table = cached.sim_pi1_sweep(kind, runs, T, n, theta, seed, s)
        ui.chart(ff.sweep_figure(pi_table, x_title="share of non-null hypotheses π1", alpha=s.alpha,
                                 bound=s.alpha + s.delta * page.T), key="fdr_fig_pi1")
        st.caption(f"ε = {s.epsilon:g} for PAPRIKA and PAPRIKA AI; fresh data per run and per π1.")
    ui.teaching(text.PI1_REFERENCE)


def _eps(page: session.Page, s: fdr.Settings) -> None:
    """The sweep over ε: independent of the chosen ε (its figure is not redrawn when ε moves)."""
    st.header("Privacy–utility: FDR and power vs ε")
    if page.truth_runs is None:
        st.info(text.NO_TRUTH)
        return
    sweep_settings = dataclasses.replace(s, epsilon=1.0)  # the sweep sets ε itself
    with ui.show_errors("Sweep failed"):
        if page.simulated:
            eps_table, curves = cached.sim_eps_sweep(*page.design(), sweep_settings)
            eps_figure = cached.sim_eps_sweep_figure(*page.design(), sweep_settings)
        else:  # per-session memo: once per upload and configuration, never in a cache shared by sessions
            def sweep():
                table, swept = session.eps_sweep(page.p_runs, page.truth_runs, sweep_settings, page.seed)
                return table, swept, cached.eps_sweep_figure(table, sweep_settings, page.p_runs.shape[1])

            eps_table, curves, eps_figure = ui.session_memo(
                "fdr_eps_sweep", (fingerprint(page.fingerprint, page.p, page.truth), page.runs, page.seed,
                                  sweep_settings), sweep)  # as mapped
        ui.chart(eps_figure, key="fdr_fig_eps")
        st.caption(text.EPS_CAPTION)
        if np.isfinite(curves[1].power).any():  # power is undefined when the truth labels have no true effect
            accuracy_first(key="fdr_acc", grid=curves[1].epsilons, draws=np.nan_to_num(curves[1].power),
                           metric_label="PAPRIKA AI power", default_threshold=0.8, larger_is_better=True,
                           basis=page.label)


def _frontier(page: session.Page, frontier: pd.DataFrame | None, s: fdr.Settings, method: str) -> None:
    st.header("Power frontier: where a release has power")
    if frontier is None:
        st.info(text.FRONTIER_NEEDS_BERNOULLI)
        return
    cutoff, current = session.frontier_shown(frontier, s, page.n_obs)
    ui.chart(ff.frontier_figure(frontier, cutoff=cutoff, target=fdr.TARGET_POWER, current=current),
             key="fdr_fig_frontier")
    st.caption(text.frontier_caption(method, fdr.FRONTIER_RUNS, page.T, page.pi1, page.theta, s.cutoff, cutoff))
    st.markdown(session.frontier_view_text(frontier, s.alpha))
