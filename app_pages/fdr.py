"""Online FDR page: PAPRIKA and PAPRIKA AI (private) against SAFFRON, SAFFRON AI, LORD++ and alpha-investing.

Thin: controls → dpcore.fdr → dpcore.fdr.figures. Simulated streams are public and cached; uploaded
p-values are never cached, written or logged.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import streamlit as st

import ui
from dpcore.core import columns
from dpcore import fdr
from dpcore.fdr import figures as ff
from dpcore.ledger import Holding, fingerprint
from dpcore.core.validation import InputError
from ui.accuracy import accuracy_first
from ui.exports import code_downloads, release_with_script  # notebook, script
from dpcore.notebooks import FdrConfig
from ui.attacker import attacker_panel  # teaching mode: what ε means for one patient
from ui.widgets import forget_control, set_control

EPS_GRID = (0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 20.0)
PI1_GRID = (0.01, 0.02, 0.03, 0.04, 0.05)
#: Where η may come from, per data source: only the exact binomial η is proven for a test here (the Bernoulli
#: simulation's); the truncated-exponential z-test has none, so it is preview-only.
ETA_SOURCES = {"bernoulli": ["binomial", "paper"], "truncexp": ["paper"], "upload": ["stated", "paper", "binomial"]}
ETA_LABELS = {"stated": "a value I state", "paper": "sample size (paper: √(ln n / n), preview only)",
              "binomial": "exact one-sided binomial test"}
SHIFTS = (0.5, 1.0, 1.5, 2.0, fdr.THEOREM_4_SHIFT, fdr.STREAM)
PRIVATE_METHODS = ["PAPRIKA", "PAPRIKA AI"]
#: the views of the settings and ε (a view switch: only the open one is computed and drawn); fixed text, shown as Markdown
VIEWS = ["One stream", "All methods over runs", "FDR and power vs π1", "FDR and power vs ε", "Power frontier"]
#: Records per test of the simulations: the frontier's grid (Bernoulli); the truncated-exponential simulation draws
#: every record, so it stays at the paper's sizes
RECORDS = {"bernoulli": list(fdr.FRONTIER_RECORDS), "truncexp": [100, 200, 500, 1000, 2000]}
#: The page opens on a configuration whose release has power: with the paper's other settings, the power
#: frontier (view "Power frontier") finds 5,000 records per test the fewest reaching power 0.8 at ε ≤ 5 with the exact
#: η and the proven shift (tests/test_fdr_frontier.py checks it). The paper's settings are one click away.
RELEASABLE = {"fdr_n": 5000, "fdr_etahow": "binomial", "fdr_s": fdr.STREAM}
#: The paper's experiments: n = 1000, η = √(ln n / n) and shift s = 1 — previews only (neither may be released)
PAPER = {"fdr_n": 1000, "fdr_etahow": "paper", "fdr_s": 1.0}
#: What both configurations share: the paper's stream, target and PAPRIKA settings, ε = 5
SHARED = {"fdr_src": "bernoulli", "fdr_T": 800, "fdr_pi1": 0.05, "fdr_theta": 0.75, "fdr_alpha": 0.05,
          "fdr_delta": 2.5e-4, "fdr_c": 40, "fdr_lam": 0.2, "fdr_gamma": "power", "fdr_rule": "paper", "eps": 5.0}

#: An upload's stated alternative (success rate per record under the alternative; null 0.5) for the exact binomial
#: η: with the records per test it is the upload's public design, which sets the default floor μ (as
#: :func:`dpcore.fdr.design_floor` does for the simulation) and the power the page says the upload can reach.
#: Never read off the data (the constant μ = 10⁻⁶ left an upload of 5,000 records per test no rejection).
UPLOAD_THETAS = [0.55, 0.6, 0.65, 0.7, 0.75, 0.8]
#: The share of effects the power statement for an upload assumes (the paper's π1), stated beside it
UPLOAD_PI1 = 0.05

# ---------------------------------------------------------------- cached work on public (simulated) inputs

ALPHAS = [0.01, 0.02, 0.05, 0.1, 0.2]  # the target-FDR slider's options


@ui.public_cache("fdr streams", max_entries=32)
def sim_streams(kind: str, R: int, T: int, pi1: float, n: int, theta: float, seed: int) -> fdr.Streams:
    return fdr.page_streams(kind, R, T, pi1=pi1, n=n, theta=theta, seed=seed)


@st.cache_data(show_spinner=False, max_entries=32)
def sim_summary(kind, R, T, pi1, n, theta, seed, settings: fdr.Settings) -> pd.DataFrame:
    s = sim_streams(kind, R, T, pi1, n, theta, seed)
    rng = np.random.default_rng(seed + 1)
    return fdr.summary_table(list(fdr.run_all(s.pvalues, settings, rng=rng).values()), s.truth)


@st.cache_data(show_spinner=False, max_entries=32)
def sim_shift_cost(kind, R, T, pi1, n, theta, seed, settings: fdr.Settings) -> pd.DataFrame:
    s = sim_streams(kind, R, T, pi1, n, theta, seed)
    return fdr.shift_cost(s.pvalues, s.truth, settings, rng=np.random.default_rng(seed + 4))


@st.cache_data(show_spinner=False, max_entries=16)
def sim_pi1_sweep(kind, R, T, n, theta, seed, settings: fdr.Settings) -> pd.DataFrame:
    streams = {pi1: sim_streams(kind, R, T, pi1, n, theta, seed) for pi1 in PI1_GRID}
    return fdr.sweep(streams, fdr.METHODS, settings, rng=np.random.default_rng(seed + 2))


def _eps_sweep(p, truth, settings: fdr.Settings, seed: int) -> tuple[pd.DataFrame, list[fdr.UtilityCurve]]:
    rng = np.random.default_rng(seed + 3)
    curves = [fdr.utility_curve(p, truth, EPS_GRID, settings=settings, ai=ai, rng=rng) for ai in (False, True)]
    rows = []
    base = fdr.summary_table([fdr.run_method(m, p, settings) for m in fdr.METHODS[:4]], truth)
    for c in curves:
        for i, e in enumerate(c.epsilons):
            m = fdr.Metrics(c.fdp[i], c.power[i], c.n_rejections[i])
            rows.append(dict(x=e, method=c.method, FDR=m.fdr, FDR_se=m.fdr_se, power=m.mean_power,
                             power_se=m.power_se))
    for _, r in base.iterrows():  # non-private methods do not depend on ε: flat lines
        for e in EPS_GRID:
            rows.append(dict(x=e, method=r["method"], FDR=r["FDR"], FDR_se=r["FDR_se"], power=r["power"],
                             power_se=r["power_se"]))
    return pd.DataFrame(rows), curves


@st.cache_data(show_spinner=False, max_entries=16)
def sim_eps_sweep(kind, R, T, pi1, n, theta, seed, settings: fdr.Settings):
    s = sim_streams(kind, R, T, pi1, n, theta, seed)
    return _eps_sweep(s.pvalues, s.truth, settings, seed)


@ui.public_cache("fdr frontiers", max_entries=16)  # process-wide: a head start can fill it from its own thread
def sim_frontier(T, pi1, theta, alpha, delta, lam, gamma, ai, seed) -> pd.DataFrame:
    """The release path's power frontier at the page's simulation settings (public inputs only: shared)."""
    settings = fdr.Settings(alpha=alpha, delta=delta, lam_paprika=lam, gamma=gamma)
    return fdr.power_frontier(T=T, pi1=pi1, theta=theta, settings=settings, ai=ai, seed=seed)


@st.cache_data(show_spinner=False, max_entries=32)
def design_frontier(n: int, T: int, theta: float, settings: fdr.Settings, ai: bool, epsilons: tuple,
                    seed: int) -> pd.DataFrame:
    """The release path's power at an upload's public design: n records per test, the stated θ, the upload's number
    of hypotheses T (public: the release lists every decision), π1 = :data:`UPLOAD_PI1`, this page's α, δ, λ, γ and
    cutoff, over ``epsilons``. No uploaded value goes in. Long streams use fewer simulated streams (bounded work)."""
    runs = int(np.clip(200_000 // T, 4, fdr.FRONTIER_RUNS))
    return fdr.power_frontier(records=[n], cutoffs=[settings.cutoff], epsilons=epsilons, T=T, pi1=UPLOAD_PI1,
                              theta=theta, settings=settings, ai=ai, runs=runs, seed=seed)


def _eps_sweep_figure(table: pd.DataFrame, settings: fdr.Settings, T: int):
    return ff.sweep_figure(table, x_title="privacy budget ε (log scale)", alpha=settings.alpha,
                           bound=settings.alpha + settings.delta * T, log_x=True)


def _eps_sweep_and_figure(p, truth, settings: fdr.Settings, seed: int):
    table, curves = _eps_sweep(p, truth, settings, seed)
    return table, curves, _eps_sweep_figure(table, settings, p.shape[1])


@ui.public_cache("fdr sweep figures", max_entries=16)  # shared, not unpickled on every rerun
def sim_eps_sweep_figure(kind, R, T, pi1, n, theta, seed, settings: fdr.Settings):
    """The sweep over ε as a figure, built once per public configuration (not on every rerun)."""
    return _eps_sweep_figure(sim_eps_sweep(kind, R, T, pi1, n, theta, seed, settings)[0], settings, T)


def _labelled(rejections: np.ndarray, shown: int = 30) -> str:
    """The discoveries as "t = 12 (label)", the first ``shown`` of them, so a reader sees which hypotheses they are."""
    hits = np.flatnonzero(rejections)
    if not hits.size:
        return "none"
    text = ", ".join(f"t = {t + 1} ({upload_labels[t]})" for t in hits[:shown])
    return text + (f" and {hits.size - shown} more" if hits.size > shown else "")


def _mean_se(means, ses) -> list[str]:
    """"mean ± SE" cells; power without true effects is undefined (NaN) and says so."""
    return [f"{m:.3f} ± {e:.3f}" if np.isfinite(m) else "— (no true effects)" for m, e in zip(means, ses)]


# ---------------------------------------------------------------- page


ui.page_header("Online FDR control with differential privacy",
               "A stream of hypotheses, each called a discovery or not at once, keeping the share of false "
               "discoveries near a target: PAPRIKA does it with privacy, SAFFRON and its relatives without.")

# Links from before the view tabs carried the private method as ?fdr_view=…; that key now names the open view.
if st.query_params.get("fdr_view") in PRIVATE_METHODS:
    if "fdr_method" not in st.query_params:
        st.query_params["fdr_method"] = st.query_params["fdr_view"]
    del st.query_params["fdr_view"]


def _use(preset: dict) -> None:
    """Set the page's controls to a configuration (a button's callback: it runs before the controls are drawn)."""
    for key, value in {**SHARED, **preset}.items():
        set_control(key, value)
    forget_control("fdr_floor")  # the floor follows the design again


SOURCES = {"bernoulli": "Bernoulli simulation", "truncexp": "truncated-exponential simulation",
           "upload": "upload p-values (CSV)"}
# ---- the question: which stream (a data set, and for a simulation how many records each test reads) ---------------
q_data, q_records = ui.question_row(1.4, 1)
with q_data:
    src = ui.url_selectbox("Stream of p-values", key="fdr_src", options=list(SOURCES), format_func=SOURCES.get)
upload_slot = st.container()  # an upload's file and columns, under the question
upload_p = upload_truth = upload_labels = cohort = None
theta = None
with ui.settings_group("fdr_settings") as stream_settings:
    presets = st.container(horizontal=True)
    presets.button("Releasable configuration: n = 5,000 records per test, exact η, proven shift",
                   key="fdr_releasable", on_click=_use, args=(RELEASABLE,), icon=":material/lock:")
    presets.button("The paper's settings: n = 1,000, the paper's η and shift s = 1 (preview only)", key="fdr_paper",
                   on_click=_use, args=(PAPER,), icon=":material/article:")
    if src in ("bernoulli", "truncexp"):
        with q_records:
            n_obs = int(ui.url_select_slider("Records per hypothesis n", key="fdr_n", options=RECORDS[src],
                                             value=RELEASABLE["fdr_n"] if src == "bernoulli" else 1000,
                                             format_func=lambda v: f"{v:,}"))
        c2, c3, c4, c5 = st.columns(4)
        with c2:
            T = int(ui.url_select_slider("Hypotheses in the stream", key="fdr_T", options=[200, 400, 800, 1600],
                                         value=800))
        with c3:
            pi1 = float(ui.url_select_slider("Share of non-nulls π1", key="fdr_pi1",
                                             options=[0.01, 0.02, 0.03, 0.04, 0.05, 0.1, 0.2], value=0.05))
        with c4:
            if src == "bernoulli":
                theta = float(ui.url_select_slider("Alternative θ (null 0.5)", key="fdr_theta",
                                                   options=[0.55, 0.6, 0.65, 0.7, 0.75, 0.8], value=0.75))
            else:
                theta = float(ui.url_select_slider("Alternative scale θ (null 1)", key="fdr_thexp",
                                                   options=[1.02, 1.05, 1.1, 1.2, 1.5, 1.8, 1.9, 2.0], value=1.8))
        with c5:
            R = int(ui.url_select_slider("Runs (fresh data each)", key="fdr_R", options=[20, 50, 100, 200],
                                         value=100))
        seed = int(ui.url_number("Preview seed", key="fdr_seed", min_value=0, max_value=10_000, value=0, step=1,
                                 help="Seeds the simulation and the preview noise; a release is seeded by the OS."))
        stream_settings.shows(f"T = {T}, π1 = {pi1:g}, θ = {theta:g}, {R} runs")
        label = f"Simulated {'Bernoulli' if src == 'bernoulli' else 'truncated-exponential'} stream (seed {seed})"
        data_fp = fingerprint("fdr-sim", src, T, pi1, n_obs, theta, seed)
        st.caption(("Each hypothesis: n Bernoulli draws, θ = 0.5 under the null; p-value = exact one-sided binomial "
                    "tail P(Bin(n, ½) ≥ Σx)." if src == "bernoulli" else
                    "Each hypothesis: n draws of a truncated exponential on [0, 1] (null) or θ times it (alternative); "
                    "Z = (Σx − nμ0)/(√n σ0), p = 1 − Φ(Z).")
                   + f" Truth labels H_t ~ Bernoulli(π1). Fresh data for each of the {R} runs; the first run is the "
                     "'one stream' shown.")
    else:
        with upload_slot:
            ui.plan_first_link("fdr")  # a private file is about to be read: the path that fixes settings first
            table = ui.upload_csv("fdr_upload", label="Upload a CSV: one row per hypothesis, in stream order",
                                  hint="The file needs a column of p-values in [0, 1] in the order the hypotheses "
                                       "arrived; optionally a 0/1 column of known truth (1 = real effect), e.g. from a "
                                       "simulation study. Example: `p,truth` with rows like `0.0004,1`.",
                                  rows_are_persons=False)  # rows are hypotheses; the ledger charges the cohort behind
            if table is None:
                st.stop()
            frame, data_fp, name = table
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
                pcol = ui.url_selectbox("Column of p-values", key="fdr_pcol", options=cols,
                                        index=pguess.index_in(cols))
            with m2:
                tcol = ui.url_selectbox("Truth column (optional, 0/1)", key="fdr_tcol", options=[none] + cols,
                                        index=tguess.index_in([none] + cols))
            with m3:
                lcol = ui.url_selectbox("Hypothesis label column (optional)", key="fdr_lcol", options=[none] + cols,
                                        index=0,
                                        help="Names the hypotheses in the results and the released table (e.g. a "
                                             "gene or drug); the labels are exported as they are, so they must not "
                                             "describe people.")
            with ui.show_errors("The uploaded file cannot be used"):
                upload_p, upload_truth = fdr.pvalues_from_frame(frame, pcol, None if tcol == none else tcol)
                if lcol != none:
                    upload_labels = fdr.hypothesis_labels(frame, lcol, pcol, None if tcol == none else tcol)
            if upload_p is None or (lcol != none and upload_labels is None):
                st.stop()
            T = upload_p.size
            cohort = ui.cohort_behind_stream("fdr_cohort")  # the people charged: every one of them is in every test
        label = f"{name} (uploaded)"
        R = int(ui.url_select_slider("Noise draws for the utility panel", key="fdr_Rup", options=[20, 50, 100],
                                     value=50))
        if R * T > 250_000:  # keep memory and time per slider move bounded for long streams
            R = max(2, 250_000 // T)
            st.caption(f"Long stream ({T:,} hypotheses): the panels below use {R} noise draws.")
        seed = int(ui.url_number("Preview seed", key="fdr_seed", min_value=0, max_value=10_000, value=0, step=1))
        stream_settings.shows(f"{T:,} hypotheses, {R} noise draws")

    # ---- sensitivity η -------------------------------------------------------------------------------------
    st.markdown("**Sensitivity η of the p-values** (how much one person can change every log p).")
    e1, e2, e3 = st.columns(3)
    with e1:
        eta_how = ui.url_radio("η from", key="fdr_etahow", options=ETA_SOURCES[src], format_func=ETA_LABELS.get)
    with e2:
        if src == "upload" and eta_how != "stated":
            n_obs = int(ui.url_number("Records per hypothesis n", key="fdr_nup", min_value=10, max_value=100_000,
                                      value=1000, step=1))
        if src == "upload" and eta_how == "binomial":
            theta = float(ui.url_select_slider(
                "Stated alternative θ (success rate, null 0.5)", key="fdr_thup", options=UPLOAD_THETAS, value=0.75,
                help="Part of the upload's public design, stated before looking at the data: the effect size the "
                     "study was planned for. It sets the default floor μ and the power the page says a release can "
                     "reach; it is never read off the p-values."))
    eta_confirmed = eta_how != "stated"
    with e3:
        if eta_how == "stated":
            sens = fdr.stated_sensitivity(float(ui.url_number("η", key="fdr_eta", min_value=1e-4, max_value=10.0,
                                                              value=0.0831, format="%.4f")))
            eta_confirmed = st.checkbox("I state that one person moves every log p by at most this η",
                                        key="fdr_eta_confirm", help="A release's guarantee rests on this statement, "
                                        "and its notes say so. The link never sets this box.")
        elif eta_how == "paper":
            sens = fdr.paper_sensitivity(n_obs)
        else:  # the floor follows the public design (n and θ: the simulation's, or an upload's stated ones) until
            design_exp = round(-math.log10(fdr.design_floor(n_obs, theta)))  # changed
            ui.follow_default("fdr_floor", design_exp)
            floor_exp = int(ui.url_number("Smallest p-value counted: 10 to the minus", key="fdr_floor", min_value=1,
                                          max_value=300, value=design_exp, step=1,
                                          help="The floor μ: below it one record may move log p by more than η, so "
                                               "p-values are raised to μ. A lower μ lets strong effects count as "
                                               "stronger evidence but raises η. It starts at the p-value of the "
                                               "alternative's median count for n records per test (the design's, "
                                               "never the data's)."))
            sens = fdr.binomial_sensitivity(n_obs, 10.0 ** -floor_exp)
        st.caption(f"η used: {sens.eta:.4g}")
    stream_settings.shows(f"η {ETA_LABELS[eta_how].split(' (')[0]}: {sens.eta:.3g}")
    st.caption("η must be fixed from the design (test and sample size), never from the data. The exact binomial η "
               "is a proof for p-values above the floor μ, so p-values below μ are raised to μ (in the preview and "
               "the release); a stated η is your claim about your own test, and a release says that it rests on it.")
if sens.refusal:
    st.warning("Preview only. " + sens.refusal, icon=":material/warning:")
lattice_problem = None  # why an upload's p-values cannot carry the exact binomial η (the release is blocked)
if upload_p is not None:
    below = np.flatnonzero(upload_p < sens.floor)
    if below.size:
        zeros = int((upload_p == 0).sum())
        st.info(f"{below.size:,} p-value{'s' if below.size > 1 else ''} in column {ui.literal(repr(pcol))} "
                f"{'are' if below.size > 1 else 'is'} below the floor μ = {sens.floor:g}"
                + (f" ({zeros:,} of them equal to 0)" if zeros else "")
                + f" and count as μ (log p is taken of max(p, μ)); the first is in row {below[0] + 2}.",
                icon=":material/info:")
    if sens.source == "binomial":
        try:
            fdr.binomial_pvalues(upload_p, n_obs, sens.floor, row_name=lambda i: f"Column {pcol!r}, row {i + 2}")
        except InputError as err:
            lattice_problem = str(err)
            st.error(ui.literal(lattice_problem) + " Previews go on; a release needs a stated η.",
                     icon=":material/block:")

ui.set_current_dataset(label, data_fp)

# ---- the streams (independent of PAPRIKA's settings and of ε) ------------------------------
p_runs = truth_runs = None
with ui.show_errors("Cannot simulate the streams"):
    if upload_p is None:
        streams = sim_streams(src, R, T, pi1, n_obs, theta, seed)
        p_runs, truth_runs = streams.pvalues, streams.truth
    else:
        p_runs = np.broadcast_to(upload_p, (R, T)).copy()
        truth_runs = None if upload_truth is None else np.broadcast_to(upload_truth, (R, T)).copy()
if p_runs is None:
    st.stop()
records = None if upload_p is None else ui.records_read([upload_p])  # outside the ε fragment


def _controls() -> tuple[fdr.Settings, str]:
    """PAPRIKA's settings (ε left at its default: the inner fragment sets it), and the private method shown and
    released."""
    k1, k2, k3 = st.columns([1.3, 1, 1])
    with k1:
        alpha = float(ui.url_select_slider("Target FDR α", key="fdr_alpha", options=ALPHAS,
                                           value=0.05))
        delta = float(ui.url_select_slider("δ", key="fdr_delta", options=[1e-6, 1e-5, 1e-4, 2.5e-4, 1e-3],
                                           value=2.5e-4, format_func=lambda d: f"{d:g}"))
    with k2:
        cutoff = int(ui.url_select_slider("Cutoff c (max discoveries)", key="fdr_c",
                                          options=[5, 10, 20, 40, 80, 160], value=40))
        shift = ui.url_select_slider("Shift of the threshold", key="fdr_s", options=SHIFTS, value=RELEASABLE["fdr_s"],
                                     format_func=fdr.shift_label,
                                     help="The paper's A = s·ηc·ln(2/(3δ'))/ε (its experiments use s = 1, Theorem "
                                          "4 s = 4), or the shift proven for the whole stream, A = 4ηc/ε·ln(2k/(3δ)) "
                                          "+ η − ln 2, which covers all k hypotheses at once. Releases use the proven "
                                          "one.")
        lam = float(ui.url_select_slider("PAPRIKA λ (candidates: p < 2λ)", key="fdr_lam",
                                         options=[0.05, 0.1, 0.2, 0.3, 0.4], value=0.2))
    with k3:
        gamma = ui.url_radio("γ sequence", key="fdr_gamma", options=["power", "constant"], horizontal=True,
                             format_func=lambda g: {"power": "γ_j ∝ j^−1.6 (code)", "constant": "1/k (paper)"}[g])
        rule = ui.url_radio("PAPRIKA threshold rule", key="fdr_rule", options=["paper", "code"], horizontal=True,
                            format_func=lambda r: {"paper": "paper (private)", "code": "authors' code (leaks)"}[r],
                            help="The authors' code indexes γ by candidate counts, so the threshold depends on "
                                 "unreleased data: not private (see the audit page). Offered to reproduce their "
                                 "figures only; releases always use the paper rule.")
        method = ui.url_radio("Private method (one stream and release)", key="fdr_method", options=PRIVATE_METHODS,
                              horizontal=True)
    settings = fdr.Settings(alpha=alpha, delta=delta, eta=sens.eta, cutoff=cutoff, lam_paprika=lam, shift=shift,
                            gamma=gamma, rule=rule, floor=sens.floor)
    return settings, method


def _noise_text(s: fdr.Settings) -> str:
    """The noise scales, the shift and the claim at these settings, in one paragraph (what each means is in the
    explanation under the stream: text in the ε fragment is resent and redrawn on every move)."""
    bound = s.alpha + s.delta * T
    z_a, z_t = fdr.paprika_noise_scales(s.epsilon, s.eta, s.cutoff)
    A = fdr.shift_value(s.epsilon, s.delta, s.eta, s.cutoff, T, s.shift)
    return (f"**Noise at these settings:** threshold noise Z_α ~ Laplace({z_a:.3g}), redrawn after every discovery; "
            f"per-test noise Z_t ~ Laplace({z_t:.3g}) on log p; threshold lowered by A = {A:.3g} on the log p scale "
            f"(a p-value must be that many natural-log units below α_t to count). Claimed: ({s.epsilon:g}, "
            f"{s.delta:g})-DP for the discovery list and "
            + (f"FDR ≤ α + δT = {bound:.3g}." if bound < 1 else
               f"an FDR bound α + δT = {bound:.3g}, which is above 1 and so says nothing (lower δ or T)."))


def _shift_warning(s: fdr.Settings) -> None:
    """A warning when the shift chosen does not cover the whole stream: the δ of the guarantee does not hold."""
    if s.shift != fdr.STREAM:
        st.warning(f"Shift {fdr.shift_label(s.shift)}: the δ part of the guarantee does not hold. Theorem 4's s = 4 "
                   "keeps one p-value near the candidacy boundary 2λ from being rejected by noise except with "
                   "probability δ, but one person moves every p-value of the stream, so up to T such events each get δ "
                   "(measured: P = 0.07 = 280δ with 800 boundary p-values at ε = 1); with s < 4 even one gets more. "
                   "The shift proven for the stream covers them all (see what it costs in the view 'All methods over "
                   "runs').", icon=":material/warning:")


def _one_stream(s: fdr.Settings, method: str):
    """The private rule and its non-private counterpart on the first simulated (or the uploaded) stream: the first
    screen's answer and figure (one stream, cheap: computed whichever view is open)."""
    p1 = p_runs[:1]
    one = fdr.run_method(method, p1, s, rng=np.random.default_rng(seed + 5), keep_threshold=True).squeeze()
    base_one = fdr.run_method("SAFFRON AI" if method == "PAPRIKA AI" else "SAFFRON", p1, s).squeeze()
    return one, base_one


def _stream_answer(one, base_one) -> None:
    """The one line to take away: discoveries of the private and the non-private rule on this stream, and with
    known truth how many of the real effects each finds (power) and what share of its calls are false (FDP)."""
    found_p, found_s = int(one.rejections.sum()), int(base_one.rejections.sum())
    if truth_runs is None:
        ui.answer(f"Discoveries in this stream ({one.method} vs {base_one.method})", f"{found_p}", f"{found_s}")
        return
    fdp_p, pow_p = (float(v) for v in fdr.fdp_power(one.rejections, truth_runs[0]))
    fdp_s, pow_s = (float(v) for v in fdr.fdp_power(base_one.rejections, truth_runs[0]))
    if not np.isfinite(pow_p):
        ui.answer("Discoveries in this stream", f"{found_p} (false share {fdp_p:.2f})",
                  f"{found_s} (false share {fdp_s:.2f})", verdict="Power: — (no true effects)")
        return
    ui.answer("Real effects found (power)", f"{pow_p:.0%} ({found_p} discoveries, {fdp_p:.0%} false)",
              f"{pow_s:.0%} ({found_s}, {fdp_s:.0%} false)",
              verdict=f"{one.method} against {base_one.method} on this stream of {T:,} hypotheses.")


def _one_stream_view(s: fdr.Settings, one, base_one) -> None:
    with ui.show_errors("Cannot run the procedures"):
        st.header(f"One stream: {one.method} vs {base_one.method}")
        ui.live_chart(ff.stream_figure(one, p_runs[0], truth=None if truth_runs is None else truth_runs[0],
                                       nonprivate=base_one, cutoff=s.cutoff, height=ui.FIGURE_HEIGHT),
                      key="fdr_fig_stream")
        if upload_labels is not None:  # cell text from the file: shown literally
            st.caption(f"**{one.method} discoveries (preview), by hypothesis label:** "
                       + ui.literal(_labelled(one.rejections)))
        ui.teaching(
            "1. Each dot is a hypothesis the private rule tested (a candidate), in arrival order, drawn at height −ln p "
            "on a log axis: higher means a smaller p-value, stronger evidence. The others can never be rejected and "
            "are only counted (the shaded band at the bottom, below the candidacy boundary −ln 2λ, or −ln 2α_t for "
            "PAPRIKA AI), and after the c-th discovery (the dashed line) nothing is tested (the grey strip). "
            "2. The solid blue step line is the noisy threshold A − log α_t − Z_α: the rule's test level α_t as "
            "−log α_t (the dashed blue line), raised by the shift A, minus threshold noise that is redrawn after every "
            "discovery (that is why it jumps at each diamond). 3. A hypothesis is rejected when it is a candidate "
            "(p < 2λ, or 2α_t for PAPRIKA AI) and −ln p − Z_t lies above the line — Z_t is fresh noise for every "
            "test, so dots just above the line can be missed and dots just below can be hit. 4. The dotted line is "
            "what non-private SAFFRON would use, −log α_t: no shift, no noise."
        )
        ui.explain(
            "**SparseVector.** Checking 800 p-values against a threshold and revealing every yes/no answer would cost "
            "privacy 800 times. SparseVector adds noise to the threshold once and to each test, and can then reveal all "
            "the 'no' answers for free: only each 'yes' (discovery) uses up budget. That is why PAPRIKA needs a cutoff "
            f"c = {s.cutoff}: after c discoveries it must stop, and each noise scale grows with c.\n\n"
            "**Reading the noise line under the figure.** The shift A is in log p units: a p-value must be about "
            "e^A times smaller than α_t to be rejected on average, give or take the per-test noise Z_t, so null "
            "p-values near α_t still get through by chance.\n\n"
            "**Why log p.** One person changes a p-value by a *factor* (at most e^η), not by an amount — small p-values "
            "move little in absolute terms. On the log scale that factor is a shift of at most η, which Laplace noise "
            "of scale ∝ η/ε hides.\n\n"
            "**Why candidacy is not noised, and what δ pays for.** SAFFRON only tests *candidates* (p below λ) and its "
            "wealth depends on how many candidates it saw. Noising that too would cost budget at every step. PAPRIKA "
            "keeps the candidate check exact but uses 2λ and caps α_t at λ: a p-value near the candidate boundary is "
            "then at least twice the level, so it could only be rejected if the noise overcomes that gap *and* the "
            "shift A. Every test runs on the same people, so one person can move *all* the p-values at once, and "
            "many of them may sit at the boundary: the proven shift makes each such rejection a δ/k event, so that "
            "all k together stay within δ (Theorem 4's s = 4 makes each one a δ event, k of them up to kδ). The "
            "paper's threshold rule also lets wealth decay at every step (like LORD), so the thresholds depend only "
            "on the released discoveries.\n\n"
            f"**What η means here.** η = {s.eta:.4g}: replacing one person's record can multiply every p-value by at "
            f"most e^η = {math.exp(s.eta):.4f}. The paper takes η = √(ln n / n) ≈ 0.083 at n = 1000, but for the "
            "binomial test one record moves a small p-value by much more; the exact η is a proof only above a floor "
            "μ, so the guarantee is 'for p-values above μ' and smaller ones are raised to μ.",
            title="SparseVector, candidacy, δ and η in plain words",
        )


def _summary(s: fdr.Settings) -> pd.DataFrame | None:
    """FDR and power of the six methods over the runs (None without truth labels)."""
    if truth_runs is None:
        return None
    if upload_p is None:
        return sim_summary(src, R, T, pi1, n_obs, theta, seed, s)
    rng = np.random.default_rng(seed + 1)
    return fdr.summary_table([fdr.run_method(m, p_runs, s, rng=rng) for m in fdr.METHODS], truth_runs)


def _runs_view(s: fdr.Settings) -> pd.DataFrame | None:
    st.header(f"All six methods over {R} {'runs' if upload_p is None else 'noise draws'}")
    summary = None
    if truth_runs is None:
        st.info("Without known truth labels FDR and power cannot be computed; the panel shows the number of "
                "discoveries instead.")
        with ui.show_errors():
            rng = np.random.default_rng(seed + 1)
            counts = {m: fdr.run_method(m, p_runs, s, rng=rng).rejections.sum(axis=1) for m in fdr.METHODS}
            st.dataframe(pd.DataFrame({m: [v.mean(), np.quantile(v, 0.05), np.quantile(v, 0.95)]
                                       for m, v in counts.items()}, index=["mean", "5 %", "95 %"]).round(2))
        return None
    with ui.show_errors():
        summary = _summary(s)
        left, right = st.columns([1.3, 1.2])
        with left:
            ui.chart(ff.summary_figure(summary, alpha=s.alpha, bound=s.alpha + s.delta * T),
                            key="fdr_fig_summary")
        with right:
            shown = pd.DataFrame({
                "method": summary["method"],
                "FDR ± SE": _mean_se(summary["FDR"], summary["FDR_se"]),
                "power ± SE": _mean_se(summary["power"], summary["power_se"]),
                "mFDR": summary["mFDR"].round(3),
                "discoveries": summary["rejections"].round(1),
            })
            st.dataframe(shown, hide_index=True, width="stretch")
            st.caption("Error bars: ±2 standard errors over runs. mFDR = total false / total discoveries.")
        cost = (sim_shift_cost(src, R, T, pi1, n_obs, theta, seed, s) if upload_p is None else
                fdr.shift_cost(p_runs, truth_runs, s, rng=np.random.default_rng(seed + 4)))
        st.markdown(f"**What the proven shift costs** at ε = {s.epsilon:g}, η = {s.eta:.4g} (same streams and noise "
                    "model; only the shift changes; releases use the first rows):")
        st.dataframe(pd.DataFrame({
            "shift": cost["shift"], "A (log p)": cost["A"].round(2), "method": cost["method"],
            "power ± SE": _mean_se(cost["power"], cost["power_se"]), "FDR ± SE": _mean_se(cost["FDR"], cost["FDR_se"]),
        }), hide_index=True, width="stretch")
        if sens.source == "binomial":
            st.caption(f"With the exact η, p-values below μ = {sens.floor:g} count as μ, so even the strongest effect "
                       f"has log p = {math.log(sens.floor):.1f}; it is rejected only when that plus noise falls below "
                       "log α_t − A (α_t ≤ λ). A lower μ allows stronger evidence but raises η and so A.")
    ui.teaching("A single stream can be lucky or unlucky; the bars average the false discovery proportion "
                "(FDR) and the share of real effects found (power) over many streams.")
    return summary


def _pi1_view(s: fdr.Settings) -> None:
    st.header("FDR and power vs the share of non-nulls π1")
    if truth_runs is None or upload_p is not None:
        st.info("The sweep over π1 simulates fresh streams: choose one of the simulations as the data source.")
        return
    with ui.show_errors("Sweep failed"):  # streams are cached per π1; a setting change reruns only the rules
        with st.spinner("Simulating five values of π1…"):
            pi_table = sim_pi1_sweep(src, R, T, n_obs, theta, seed, s)
        ui.chart(ff.sweep_figure(pi_table, x_title="share of non-null hypotheses π1", alpha=s.alpha,
                                        bound=s.alpha + s.delta * T), key="fdr_fig_pi1")
        st.caption(f"ε = {s.epsilon:g} for PAPRIKA and PAPRIKA AI; fresh data per run and per π1.")
    ui.teaching("Reference (authors' code rule, ε = 5, s = 1): SAFFRON power 1.0 with FDR ≤ 0.05, PAPRIKA AI "
                "power 0.78–1.0 with FDR ≤ 0.025, PAPRIKA power 0.73–1.0 with FDR up to ≈ 0.11 at π1 = 0.05.")


def _eps_view(s: fdr.Settings) -> None:
    """The sweep over ε: independent of the chosen ε (its figure is not redrawn when ε moves)."""
    st.header("Privacy–utility: FDR and power vs ε")
    if truth_runs is None:
        st.info("Without known truth labels FDR and power cannot be computed.")
        return
    sweep_settings = dataclasses.replace(s, epsilon=1.0)  # the sweep sets ε itself
    with ui.show_errors("Sweep failed"):
        if upload_p is None:
            eps_table, curves = sim_eps_sweep(src, R, T, pi1, n_obs, theta, seed, sweep_settings)
            eps_figure = sim_eps_sweep_figure(src, R, T, pi1, n_obs, theta, seed, sweep_settings)
        else:  # per-session memo: once per upload and configuration, never in a cache shared by sessions
            eps_table, curves, eps_figure = ui.session_memo(
                "fdr_eps_sweep", (fingerprint(data_fp, upload_p, upload_truth), R, seed, sweep_settings),  # as mapped
                lambda: _eps_sweep_and_figure(p_runs, truth_runs, sweep_settings, seed))
        ui.chart(eps_figure, key="fdr_fig_eps")
        st.caption("Private methods: mean over runs with ±2 SE error bars at each ε; the non-private methods do not "
                   "depend on ε (flat). Read the ε chosen above off the horizontal axis.")
        if np.isfinite(curves[1].power).any():  # power is undefined when the truth labels have no true effect
            accuracy_first(key="fdr_acc", grid=curves[1].epsilons, draws=np.nan_to_num(curves[1].power),
                           metric_label="PAPRIKA AI power", default_threshold=0.8, larger_is_better=True,
                           basis=label)


def _frontier_cell(frontier: pd.DataFrame, s: fdr.Settings) -> pd.Series | None:
    """The frontier's row for the page's records per test, cutoff and ε (None when they are off its grid)."""
    at = np.flatnonzero((frontier["records"].to_numpy() == n_obs) & (frontier["cutoff"].to_numpy() == s.cutoff)
                        & np.isclose(frontier["epsilon"].to_numpy(), s.epsilon))  # NumPy: on every ε move
    return None if at.size == 0 else frontier.iloc[at[0]]


def _working_text(frontier: pd.DataFrame) -> str:
    """Where the release path first reaches the target power at ε ≤ the target ε, in words."""
    best = fdr.smallest_working(frontier)
    goal = f"power ≥ {fdr.TARGET_POWER:g} at ε ≤ {fdr.TARGET_EPSILON:g}"
    if best is None:
        return f"no configuration of the grid (up to {max(fdr.FRONTIER_RECORDS):,} records per test) reaches {goal}."
    return (f"the fewest records per test reaching {goal} is **{int(best['records']):,}** (c = {int(best['cutoff'])}, "
            f"ε = {best['epsilon']:g}: power {best['power']:.2f}, FDR {best['FDR']:.3f}).")


def _frontier_text(frontier: pd.DataFrame, s: fdr.Settings, method: str) -> str:
    """One paragraph: what the release path (exact η, proven shift) achieves at these settings, and where it works."""
    cell = _frontier_cell(frontier, s)
    here = ("" if cell is None else f"at n = {n_obs:,}, c = {s.cutoff}, ε = {s.epsilon:g} its power is "
            f"{cell['power']:.2f} ± {cell['power_se']:.2f} (FDR {cell['FDR']:.3f}); ")
    return (f"**Release path** ({method} with the exact η at the design floor and the proven shift, simulated): "
            + here + _working_text(frontier) + " See the view 'Power frontier'.")


def _design_power_text(s: fdr.Settings, method: str) -> str:
    """What a release of this upload can reach: the release path simulated on its public design (n, stated θ, T),
    at the chosen ε and over the frontier's ε grid, said before any release."""
    epsilons = tuple(sorted({*fdr.FRONTIER_EPSILONS, s.epsilon}))
    table = design_frontier(n_obs, T, theta, dataclasses.replace(s, epsilon=1.0), method == "PAPRIKA AI", epsilons,
                            seed)
    here = table.iloc[int(np.argmin(np.abs(table["epsilon"].to_numpy() - s.epsilon)))]
    design = fdr.design_floor(n_obs, theta)
    reach = table[table["power"] >= fdr.TARGET_POWER]
    first = (f"power ≥ {fdr.TARGET_POWER:g} is first reached at ε = {reach['epsilon'].min():g}" if len(reach) else
             f"no ε up to {max(epsilons):g} reaches power {fdr.TARGET_POWER:g} (the most is "
             f"{table['power'].max():.2f}): a release would find few or none of the effects; more records per test, "
             "a stronger alternative or a larger ε are needed")
    floor = ("" if math.isclose(sens.floor, design) else
             f" The floor set above (μ = {sens.floor:g}) is not the design's (μ = {design:g}) the simulation uses.")
    return (f"**What a release of this upload can reach** ({method}, the release path simulated on the upload's "
            f"public design only: n = {n_obs:,} records per test, the stated alternative θ = {theta:g}, T = {T:,} "
            f"hypotheses of which {UPLOAD_PI1:.0%} are effects, c = {s.cutoff}, the exact η at the design floor "
            f"μ = {design:g} and the proven shift; no uploaded value goes in): at ε = {s.epsilon:g} power "
            f"{here['power']:.2f} ± {here['power_se']:.2f} (FDR {here['FDR']:.3f}); {first}." + floor)


def _frontier_view(frontier: pd.DataFrame | None, s: fdr.Settings, method: str) -> None:
    st.header("Power frontier: where a release has power")
    if frontier is None:
        st.info("The frontier simulates the Bernoulli design (the exact binomial test, whose η is proven): choose "
                "the Bernoulli simulation as the data source.")
        return
    cutoff = s.cutoff if s.cutoff in fdr.FRONTIER_CUTOFFS else 40
    current = (n_obs, s.epsilon) if _frontier_cell(frontier, dataclasses.replace(s, cutoff=cutoff)) is not None else None
    ui.chart(ff.frontier_figure(frontier, cutoff=cutoff, target=fdr.TARGET_POWER, current=current),
                    key="fdr_fig_frontier")
    st.caption(f"{method} as released: η exact for the one-sided binomial test with n records per test above the "
               "floor μ = the p-value of the alternative's median count (hover a cell for μ, η and the shift A), the "
               f"shift proven for the stream, the paper's threshold rule; {fdr.FRONTIER_RUNS} simulated streams per "
               f"cell with T = {T}, π1 = {pi1:g}, θ = {theta:g} and this page's α, δ, λ and γ. Only public simulation settings "
               "go in, so the frontier is computed once and shared."
               + ("" if cutoff == s.cutoff else f" The cutoff c = {s.cutoff} is not on the frontier's grid: c = 40 "
                                                "is shown."))
    st.markdown("With the proven η and shift, " + _working_text(frontier) + " Fewer records per test need a larger "
                "ε: one record moves a binomial p-value by relatively more when n is small, and both the noise and "
                "the shift grow with η. " f"The largest FDR of any cell is {frontier['FDR'].max():.3f} (target α = {s.alpha:g}).")


def _notebook_config(s: fdr.Settings, method: str) -> FdrConfig:
    """The page's public settings for the notebook (an upload: its column choices, never its data)."""
    data = (dict(runs=R, T=T, pi1=pi1, theta=theta, n_obs=n_obs) if upload_p is None else
            dict(runs=R, p_col=pcol, truth_col=None if tcol == "(none)" else tcol))
    eta = dict(eta=s.eta) if eta_how == "stated" else dict(n_obs=n_obs, floor_exp=round(-math.log10(sens.floor)))
    return FdrConfig(source=src, epsilon=s.epsilon, seed=seed, method=method, alpha=s.alpha, delta=s.delta,
                     cutoff=s.cutoff, shift=s.shift, lam=s.lam_paprika, gamma=s.gamma, rule=s.rule, eta_from=eta_how,
                     sweep=EPS_GRID, **{**data, **eta})


def _charged(behind) -> dict:
    """The release panel's persons: an uploaded stream charges the cohort behind it (a data set's persons, or a
    declared cohort); a simulated stream reads nobody real and charges nobody (``simulated``)."""
    if isinstance(behind, Holding):
        return {"holding": behind, "ledger_label": ui.get_ledger().name_of(behind.key)}
    return {} if behind is None else {"persons": behind, "ledger_label": behind.source[:1].upper() + behind.source[1:]}


def _release(s: fdr.Settings, method: str, summary: pd.DataFrame | None, button_at) -> None:
    if not math.isfinite(s.epsilon):
        return
    def utility_note() -> str:
        """The custodian's note, from the over-runs summary (simulated now if its view was not open)."""
        table = summary if summary is not None else _summary(s)
        if table is None or method not in set(table["method"]):
            return ""
        row = table.set_index("method").loc[method]
        return (f"{method} at ε = {s.epsilon:g} over {R} {'simulated streams' if upload_p is None else 'noise draws'}"
                f": FDR {row['FDR']:.3f} ± {row['FDR_se']:.3f}, power {row['power']:.3f} ± {row['power_se']:.3f} "
                f"(mean ± SE; the preview's threshold rule and shift, see the page).")

    params = dict(alpha=s.alpha, eta=s.eta, eta_source=sens.source, cutoff=s.cutoff, lam=s.lam_paprika,
                  shift=fdr.STREAM, gamma=s.gamma, rule="paper", T=T, floor=sens.floor)
    blockers = [reason for reason, applies in (
        (f"Set the shift to '{fdr.shift_label(fdr.STREAM)}' to release: with {fdr.shift_label(s.shift)} the δ part of "
         "the guarantee does not hold (see the warning under the figure).", s.shift != fdr.STREAM),
        ("No η is proven for the truncated-exponential z-test here, so this simulation can be previewed but not "
         "released." if src == "truncexp" else sens.refusal, sens.refusal is not None),
        ("Tick the box under the stated η to release: the guarantee rests on your statement.", not eta_confirmed),
        (ui.literal(f"{lattice_problem} Choose 'a value I state' for η to release these p-values."),
         lattice_problem is not None),
    ) if applies]
    if s.rule == "code":
        st.caption("Releases always use the paper's threshold rule (the authors' code rule is not private).")
    config = _notebook_config(s, method)
    stream = p_runs[0] if upload_p is None else upload_p
    if upload_p is not None and cohort is None:
        blockers.append("Name the cohort the p-values came from (above) to release: its people are charged.")
    ui.release_panel(
        key="fdr", dataset_label=label, fingerprint=data_fp, **_charged(cohort), simulated=upload_p is None,
        records=records, method=f"{method} discovery list",
        epsilon=s.epsilon, delta=s.delta, params=params, utility_note=utility_note,
        blocked=" ".join(blockers) or None, button_at=button_at,
        make_bundle=lambda: release_with_script(fdr.release(
            stream, alpha=s.alpha, epsilon=s.epsilon, delta=s.delta, sensitivity=sens,
                                        cutoff=s.cutoff, lam=s.lam_paprika, gamma=s.gamma,
                                        ai=method == "PAPRIKA AI", dataset=label, fingerprint=data_fp,
                                        labels=upload_labels), config),
    )


#: The folded PAPRIKA settings' label lists these (key, default, how it reads), in this order
PAPRIKA_SHOWN = (("fdr_method", PRIVATE_METHODS[0], str), ("fdr_alpha", 0.05, lambda a: f"α = {a:g}"),
                 ("fdr_delta", 2.5e-4, lambda d: f"δ = {d:g}"), ("fdr_c", 40, lambda c: f"c = {c}"),
                 ("fdr_s", RELEASABLE["fdr_s"], lambda s: f"shift {fdr.shift_label(s)}"),
                 ("fdr_lam", 0.2, lambda lam: f"λ = {lam:g}"), ("fdr_rule", "paper", lambda r: f"{r} rule"))


def _paprika_summary(values: dict) -> str:
    return " · ".join(read(values.get(key, default)) for key, default, read in PAPRIKA_SHOWN)


@ui.live_fragment
def _at_settings() -> None:
    """Everything that depends on PAPRIKA's settings: moving one of their sliders reruns only this. The first
    screen (the ε fragment) comes first; the settings, folded under a label listing their values, below it."""
    first, below = st.container(), st.container()
    shown = _paprika_summary(st.session_state)
    with below, st.expander(f"PAPRIKA settings: {shown}", key="fdr_paprika_box"):
        settings, method = _controls()
    values = dict(fdr_method=method, fdr_alpha=settings.alpha, fdr_delta=settings.delta, fdr_c=settings.cutoff,
                  fdr_s=settings.shift, fdr_lam=settings.lam_paprika, fdr_rule=settings.rule)
    if _paprika_summary(values) != shown:  # a link's values on the session's first run: relabel once
        st.rerun(scope="app")
    with first:
        _at_epsilon(settings, method)


@ui.live_fragment
def _at_epsilon(settings: fdr.Settings, method: str) -> None:
    """Everything that depends on ε (nested in the settings' fragment: moving ε reruns only this, with the settings
    of the last run of the outer one): the first screen — ε, the answer and the Release button beside the figure —
    then the noise and power at this ε. The views are a switch of which only the open one is computed and drawn,
    so a move redraws one chart."""
    views = ui.view_switch(VIEWS, key="fdr_view")  # full width: five labels do not fit beside ε
    controls, figure = ui.first_screen()
    with controls:
        epsilon = ui.epsilon_slider("Privacy budget ε", key="eps", default=5.0, min_value=0.3, max_value=20.0)
        answer_slot = st.container()
    settings = dataclasses.replace(settings, epsilon=epsilon)
    paragraphs = [_noise_text(settings)]
    frontier = None
    if src == "bernoulli":
        with ui.show_errors("Cannot compute the power frontier"):
            rest = (settings.delta, settings.lam_paprika, settings.gamma, method == "PAPRIKA AI", seed)
            frontier = sim_frontier(T, pi1, theta, settings.alpha, *rest)
            # the frontier is the one view-independent computation an α step waits for (~0.4 s): start the
            # neighbouring α values' now, as ε's neighbours are on the other pages
            ui.head_start("fdr_alpha", [(0.3, lambda a=a: sim_frontier(T, pi1, theta, a, *rest))
                                        for a in ui.steps_around(ALPHAS, settings.alpha)])
            paragraphs.append(_frontier_text(frontier, settings, method))
    if src == "upload" and sens.source == "binomial":
        with ui.show_errors("Cannot compute the power this upload's design can reach"):
            paragraphs.append(_design_power_text(settings, method))
    elif src == "upload":
        paragraphs.append("**What a release of this upload can reach** is simulated from its public design: choose the "
                          "exact binomial η under Settings and state the records per test and the alternative (with "
                          f"{ETA_LABELS[sens.source]!r} there is no design to simulate).")
    one = base_one = None
    with answer_slot, ui.show_errors("Cannot run the procedures"):
        one, base_one = _one_stream(settings, method)
        _stream_answer(one, base_one)
    summary = None
    with figure:
        stream_tab, runs_tab, pi1_tab, eps_tab, frontier_tab = views
        with stream_tab:
            if stream_tab.open and one is not None:
                _one_stream_view(settings, one, base_one)
        with runs_tab:
            if runs_tab.open:
                summary = _runs_view(settings)
        with pi1_tab:
            if pi1_tab.open:
                _pi1_view(settings)
        with eps_tab:
            if eps_tab.open:
                _eps_view(settings)
        with frontier_tab:
            if frontier_tab.open:
                _frontier_view(frontier, settings, method)
    _shift_warning(settings)
    _release(settings, method, summary, button_at=controls)
    st.markdown("\n\n".join(paragraphs))  # one element: it is resent on every move of ε
    code_downloads(_notebook_config(settings, method))
    attacker_panel("fdr", settings.epsilon, settings.delta)


_at_settings()
ui.preview_notice("Of the views, only the open one is computed, and moving ε or a setting redraws only it.")
ui.explain(
    "Hypotheses arrive one at a time (e.g. one drug–gene association per week). For each one a rule must decide "
    "*at once* whether to call it a discovery, while keeping the **false discovery rate** (the expected share of "
    "false calls among all calls) near a target α. SAFFRON and its relatives do this with a *test level* α_t that "
    "grows after each discovery (they 'earn wealth') and decays otherwise.\n\n"
    "The p-values are computed from people's data, so the pattern of discoveries can leak information about them. "
    "**PAPRIKA** makes the discovery list differentially private with the *SparseVector* technique: it compares a "
    "noisy log p-value with a noisy, lowered threshold and only reveals yes/no answers. Only the answers 'yes' cost "
    "privacy, so the budget is split over at most **c** discoveries; after c discoveries the stream stops "
    "rejecting.\n\n"
    "**The figure** shows one stream: each dot a hypothesis the private rule tested, higher meaning stronger "
    "evidence; a dot above the private threshold (blue step line) is a discovery. The non-private rule's threshold "
    "is the dotted grey line. **The answer line** says how many of the real effects each rule finds (power) and "
    "what share of its discoveries are false.\n\n"
    "**Unit of privacy:** one person in the data behind the p-values. Replace-one neighbours move every p-value by "
    "at most a factor e^η (η is set under Settings, from the design, never from the data).",
    title="What this page shows", expanded=False,
)
