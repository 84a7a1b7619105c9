"""The FDR page's controls, in page order: the stream (a simulation's design or an upload and its columns), the
sensitivity η, the streams every preview runs on, and PAPRIKA's settings.

Each fills the page's :class:`dpcore.fdr.session.Page`; the words are :mod:`dpcore.fdr.page_text`'s.
"""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

import ui
from dpcore import fdr
from dpcore.core import columns
from dpcore.core.validation import InputError
from dpcore.fdr import page_text as text
from dpcore.fdr import session
from dpcore.ledger import fingerprint
from ui.fdr import cached
from ui.widgets import forget_control, set_control


def _use(preset: dict) -> None:
    """Set the page's controls to a configuration (a button's callback: it runs before the controls are drawn)."""
    for key, value in {**session.SHARED, **preset}.items():
        set_control(key, value)
    forget_control("fdr_floor")  # the floor follows the design again


def presets() -> None:
    """The releasable configuration and the paper's, one click each."""
    row = st.container(horizontal=True)
    row.button(text.RELEASABLE_BUTTON, key="fdr_releasable", on_click=_use, args=(session.RELEASABLE,),
               icon=":material/lock:")
    row.button(text.PAPER_BUTTON, key="fdr_paper", on_click=_use, args=(session.PAPER,), icon=":material/article:")


def simulation(page: session.Page, records_slot, group) -> None:
    """A simulation's design: records per test (beside the data source), then T, π1, θ, runs and the seed."""
    src = page.source
    with records_slot:
        page.n_obs = int(ui.url_select_slider("Records per hypothesis n", key="fdr_n", options=session.RECORDS[src],
                                              value=session.RELEASABLE["fdr_n"] if src == "bernoulli" else 1000,
                                              format_func=lambda v: f"{v:,}"))
    c2, c3, c4, c5 = st.columns(4)
    with c2:
        page.T = int(ui.url_select_slider("Hypotheses in the stream", key="fdr_T", options=[200, 400, 800, 1600],
                                          value=800))
    with c3:
        page.pi1 = float(ui.url_select_slider("Share of non-nulls π1", key="fdr_pi1",
                                              options=[0.01, 0.02, 0.03, 0.04, 0.05, 0.1, 0.2], value=0.05))
    with c4:
        if src == "bernoulli":
            page.theta = float(ui.url_select_slider("Alternative θ (null 0.5)", key="fdr_theta",
                                                    options=[0.55, 0.6, 0.65, 0.7, 0.75, 0.8], value=0.75))
        else:
            page.theta = float(ui.url_select_slider("Alternative scale θ (null 1)", key="fdr_thexp",
                                                    options=[1.02, 1.05, 1.1, 1.2, 1.5, 1.8, 1.9, 2.0], value=1.8))
    with c5:
        page.runs = int(ui.url_select_slider("Runs (fresh data each)", key="fdr_R", options=[20, 50, 100, 200],
                                             value=100))
    page.seed = int(ui.url_number("Preview seed", key="fdr_seed", min_value=0, max_value=10_000, value=0, step=1,
                                  help=text.SEED_HELP))
    group.shows(f"T = {page.T}, π1 = {page.pi1:g}, θ = {page.theta:g}, {page.runs} runs")
    page.label = (f"Simulated {'Bernoulli' if src == 'bernoulli' else 'truncated-exponential'} stream "
                  f"(seed {page.seed})")
    page.fingerprint = fingerprint("fdr-sim", src, page.T, page.pi1, page.n_obs, page.theta, page.seed)
    st.caption(text.simulation_caption(src, page.runs))


def upload(page: session.Page, slot, group) -> None:
    """An upload (under the question): the file, its columns and the cohort behind it; then the noise draws and
    the seed. Stops the page until the file and its columns can be used."""
    with slot:
        ui.plan_first_link("fdr")  # a private file is about to be read: the path that fixes settings first
        table = ui.upload_csv("fdr_upload", label=text.UPLOAD_LABEL, hint=text.UPLOAD_HINT,
                              rows_are_persons=False)  # rows are hypotheses; the ledger charges the cohort behind
        if table is None:
            st.stop()
        frame, page.fingerprint, name = table
        cols = list(frame.columns)
        none = "(none)"
        pguess = columns.guess(frame, "p_value")  # by name, then type (numbers in [0, 1]); said below
        tguess = columns.guess(frame, "truth", exclude=[pguess.column], fallback=False)
        ui.reset_when_changed("_fdr_upload_columns", tuple(cols),
                              dict(fdr_pcol=cols[pguess.index_in(cols)], fdr_tcol=tguess.column or none,
                                   fdr_lcol=none))
        st.caption(ui.literal(columns.describe([pguess, tguess])))
        m1, m2, m3 = st.columns(3)
        with m1:
            pcol = ui.url_selectbox("Column of p-values", key="fdr_pcol", options=cols, index=pguess.index_in(cols))
        with m2:
            tcol = ui.url_selectbox("Truth column (optional, 0/1)", key="fdr_tcol", options=[none] + cols,
                                    index=tguess.index_in([none] + cols))
        with m3:
            lcol = ui.url_selectbox("Hypothesis label column (optional)", key="fdr_lcol", options=[none] + cols,
                                    index=0, help=text.LABEL_COLUMN_HELP)
        page.pcol, page.tcol = pcol, tcol
        truth_col = None if tcol == none else tcol
        with ui.show_errors("The uploaded file cannot be used"):
            page.p, page.truth = fdr.pvalues_from_frame(frame, pcol, truth_col)
            if lcol != none:
                page.labels = fdr.hypothesis_labels(frame, lcol, pcol, truth_col)
        if page.p is None or (lcol != none and page.labels is None):
            st.stop()
        page.T = page.p.size
        page.cohort = ui.cohort_behind_stream("fdr_cohort")  # the people charged: every one of them is in every test
    page.label = f"{name} (uploaded)"
    runs = int(ui.url_select_slider("Noise draws for the utility panel", key="fdr_Rup", options=[20, 50, 100],
                                    value=50))
    page.runs = session.upload_runs(runs, page.T)
    if page.runs != runs:
        st.caption(f"Long stream ({page.T:,} hypotheses): the panels below use {page.runs} noise draws.")
    page.seed = int(ui.url_number("Preview seed", key="fdr_seed", min_value=0, max_value=10_000, value=0, step=1))
    group.shows(f"{page.T:,} hypotheses, {page.runs} noise draws")


def sensitivity(page: session.Page, group) -> None:
    """Where η comes from (for an upload with the design it needs: records per test, a stated alternative)."""
    src = page.source
    st.markdown(text.ETA_HEADING)
    e1, e2, e3 = st.columns(3)
    with e1:
        page.eta_how = eta_how = ui.url_radio("η from", key="fdr_etahow", options=session.ETA_SOURCES[src],
                                              format_func=text.ETA_LABELS.get)
    with e2:
        if src == "upload" and eta_how != "stated":
            page.n_obs = int(ui.url_number("Records per hypothesis n", key="fdr_nup", min_value=10,
                                           max_value=100_000, value=1000, step=1))
        if src == "upload" and eta_how == "binomial":
            page.theta = float(ui.url_select_slider("Stated alternative θ (success rate, null 0.5)", key="fdr_thup",
                                                    options=session.UPLOAD_THETAS, value=0.75,
                                                    help=text.STATED_THETA_HELP))
    page.eta_confirmed = eta_how != "stated"
    with e3:
        if eta_how == "stated":
            sens = fdr.stated_sensitivity(float(ui.url_number("η", key="fdr_eta", min_value=1e-4, max_value=10.0,
                                                              value=0.0831, format="%.4f")))
            page.eta_confirmed = st.checkbox(text.ETA_STATEMENT, key="fdr_eta_confirm", help=text.ETA_STATEMENT_HELP)
        elif eta_how == "paper":
            sens = fdr.paper_sensitivity(page.n_obs)
        else:  # the floor follows the public design (n and θ: the simulation's, or an upload's stated ones) until
            design_exp = round(-math.log10(fdr.design_floor(page.n_obs, page.theta)))  # changed
            ui.follow_default("fdr_floor", design_exp)
            floor_exp = int(ui.url_number("Smallest p-value counted: 10 to the minus", key="fdr_floor", min_value=1,
                                          max_value=300, value=design_exp, step=1, help=text.FLOOR_HELP))
            sens = fdr.binomial_sensitivity(page.n_obs, 10.0 ** -floor_exp)
        st.caption(f"η used: {sens.eta:.4g}")
    page.sens = sens
    group.shows(f"η {text.ETA_LABELS[eta_how].split(' (')[0]}: {sens.eta:.3g}")
    st.caption(text.ETA_CAPTION)


def floor_notes(page: session.Page) -> None:
    """A preview-only η said; an upload's p-values below the floor counted, and off the binomial lattice refused."""
    sens = page.sens
    if sens.refusal:
        st.warning("Preview only. " + sens.refusal, icon=":material/warning:")
    if page.simulated:
        return
    below = np.flatnonzero(page.p < sens.floor)
    if below.size:
        st.info(text.below_floor(below.size, ui.literal(repr(page.pcol)), sens.floor, int((page.p == 0).sum()),
                                 below[0] + 2), icon=":material/info:")
    if sens.source == "binomial":
        try:
            fdr.binomial_pvalues(page.p, page.n_obs, sens.floor,
                                 row_name=lambda i: f"Column {page.pcol!r}, row {i + 2}")
        except InputError as err:
            page.lattice_problem = str(err)
            st.error(ui.literal(page.lattice_problem) + " Previews go on; a release needs a stated η.",
                     icon=":material/block:")


def streams(page: session.Page) -> None:
    """The (runs, T) streams every preview runs on: a simulation's (shared cache), or the upload repeated."""
    with ui.show_errors("Cannot simulate the streams"):
        if page.simulated:
            simulated = cached.sim_streams(*page.design())
            page.p_runs, page.truth_runs = simulated.pvalues, simulated.truth
        else:
            page.p_runs, page.truth_runs = session.stacked(page.p, page.truth, page.runs)
    if page.p_runs is None:
        st.stop()


def paprika(page: session.Page) -> tuple[fdr.Settings, str]:
    """PAPRIKA's settings (ε left at its default: the ε fragment sets it), and the private method shown and
    released."""
    k1, k2, k3 = st.columns([1.3, 1, 1])
    with k1:
        alpha = float(ui.url_select_slider("Target FDR α", key="fdr_alpha", options=session.ALPHAS, value=0.05))
        delta = float(ui.url_select_slider("δ", key="fdr_delta", options=[1e-6, 1e-5, 1e-4, 2.5e-4, 1e-3],
                                           value=2.5e-4, format_func=lambda d: f"{d:g}"))
    with k2:
        cutoff = int(ui.url_select_slider("Cutoff c (max discoveries)", key="fdr_c",
                                          options=[5, 10, 20, 40, 80, 160], value=40))
        shift = ui.url_select_slider("Shift of the threshold", key="fdr_s", options=session.SHIFTS,
                                     value=session.RELEASABLE["fdr_s"], format_func=fdr.shift_label,
                                     help=text.SHIFT_HELP)
        lam = float(ui.url_select_slider("PAPRIKA λ (candidates: p < 2λ)", key="fdr_lam",
                                         options=[0.05, 0.1, 0.2, 0.3, 0.4], value=0.2))
    with k3:
        gamma = ui.url_radio("γ sequence", key="fdr_gamma", options=["power", "constant"], horizontal=True,
                             format_func=lambda g: {"power": "γ_j ∝ j^−1.6 (code)", "constant": "1/k (paper)"}[g])
        rule = ui.url_radio("PAPRIKA threshold rule", key="fdr_rule", options=["paper", "code"], horizontal=True,
                            format_func=lambda r: {"paper": "paper (private)", "code": "authors' code (leaks)"}[r],
                            help=text.RULE_HELP)
        method = ui.url_radio("Private method (one stream and release)", key="fdr_method",
                              options=session.PRIVATE_METHODS, horizontal=True)
    sens = page.sens
    settings = fdr.Settings(alpha=alpha, delta=delta, eta=sens.eta, cutoff=cutoff, lam_paprika=lam, shift=shift,
                            gamma=gamma, rule=rule, floor=sens.floor)
    return settings, method
