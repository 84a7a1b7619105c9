"""The plan-first steps for the private online FDR: declare the stream, explore on the proxy, lock, then read it.

Nothing here opens the uploaded p-values before their Release button is pressed: :func:`release_step` hands the file
to :func:`ui.plan_first.release_held_file`, which reads its bytes (:func:`dpcore.plan.read_private_fdr`) only in the
run that button starts. Every figure before that is drawn from :func:`dpcore.plan.simulate_fdr_proxy`, which reads
nobody; the figures are the FDR page's own (:mod:`dpcore.fdr.figures`).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import streamlit as st

from dpcore import fdr
from dpcore import plan as pl
from dpcore.fdr import figures as ff
from dpcore.fdr.session import SEED_STREAMS
from dpcore.ledger import Holding
from dpcore.plan.fdr import MAX_HYPOTHESES, MAX_RECORDS, MIN_RECORDS
from ui.chart import chart
from ui.cohort import cohort_behind_stream
from ui.errors import show_errors
from ui.exports import release_with_script
from ui.first_screen import FIGURE_HEIGHT, SEPARATOR, answer, first_screen
from ui.fragments import view_switch
from ui.layout import explain, literal, note
from ui.plan_first import lock_controls, release_held_file, unlock
from ui.release import records_read, release_panel
from ui.state import get_ledger, session_memo
from ui.widgets import epsilon_slider

FACTS, LOCKED, HELD = "_plan_fdr_facts", "_plan_fdr_locked", "plan_fdr"
VIEWS = ["One stream", "FDR and power over draws", "Trade-off over ε"]
ETA_FROM = {"binomial": "exact one-sided binomial test (records per test, θ)", "stated": "a value I state"}
GAMMAS = {"power": "γ_j ∝ j^−1.6 (code)", "constant": "1/k (paper)"}
#: the FDR page's grid of ε for the trade-off, and its options for δ, the cutoff and λ
SWEEP = (0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 20.0)
DELTAS, CUTOFFS, LAMBDAS = (1e-6, 1e-5, 1e-4, 2.5e-4, 1e-3), (5, 10, 20, 40, 80, 160), (0.05, 0.1, 0.2, 0.3, 0.4)


def declare_facts() -> pl.FdrFacts | None:
    """Step 1: the public facts, typed into a form (nothing is read from any file); the declared facts or None."""
    facts = st.session_state.get(FACTS)
    with st.expander("**1. Declare the public facts**" + (" (declared)" if facts else ""), expanded=facts is None):
        with st.form("plan_fdr_form", border=False):
            c1, c2, c3, c4 = st.columns(4)
            p_column = c1.text_input("p-value column", value="p", key="plan_fdr_p")
            label_column = c2.text_input("Hypothesis label column (optional)", value="", key="plan_fdr_label",
                                         help="Names the hypotheses in the released table (e.g. a gene); exported as "
                                              "uploaded, so the labels must not describe people.")
            hypotheses = c3.number_input("Hypotheses in the stream, or an upper bound", min_value=1,
                                         max_value=MAX_HYPOTHESES, value=800, step=1, key="plan_fdr_T")
            alpha = c4.select_slider("Target FDR α", options=[0.01, 0.02, 0.05, 0.1, 0.2], value=0.05,
                                     key="plan_fdr_alpha")
            d1, d2, d3, d4 = st.columns(4)
            eta_from = d1.radio("η from", list(ETA_FROM), format_func=ETA_FROM.get, key="plan_fdr_etahow")
            records = d2.number_input("Records per test n (one per person)", min_value=MIN_RECORDS,
                                      max_value=MAX_RECORDS, value=5000, step=1, key="plan_fdr_n",
                                      help="The binomial η rests on it; with a stated η it shapes the proxy only.")
            theta = d3.number_input("Design's alternative θ (success rate, null 0.5)", min_value=0.51,
                                    max_value=0.99, value=0.75, step=0.01, key="plan_fdr_theta",
                                    help="The effect size the study was planned for: it sets the floor μ of the "
                                         "binomial η. Never read off the p-values.")
            eta = d4.number_input("Stated η", min_value=1e-4, max_value=10.0, value=0.0831, format="%.4f",
                                  key="plan_fdr_eta")
            confirmed = st.checkbox("I state that one person moves every log p by at most this η",
                                    key="plan_fdr_eta_confirm", help="Only with a stated η: a release's guarantee "
                                    "rests on this statement, and its notes say so.")
            e1, e2, e3 = st.columns(3)
            signals = e1.number_input("Expected share of true signals (for the proxy)", min_value=0.0, max_value=1.0,
                                      value=0.05, step=0.01, key="plan_fdr_pi1",
                                      help="From the protocol or the literature, never the file.")
            signal_theta = e2.number_input("Their strength θ (for the proxy)", min_value=0.51, max_value=0.99,
                                           value=0.75, step=0.01, key="plan_fdr_signal")
            seed = e3.number_input("Proxy seed (public)", min_value=0, max_value=10_000, value=0, step=1,
                                   key="plan_fdr_seed")
            if st.form_submit_button("Declare these facts"):
                with show_errors("These facts cannot be used"):
                    stated = eta_from == "stated"
                    facts = pl.FdrFacts(p_column.strip(), int(hypotheses), eta_from, int(records), float(theta),
                                        float(eta) if stated else 0.0, stated and confirmed, float(alpha),
                                        label_column.strip(), float(signals), float(signal_theta), int(seed))
                    st.session_state[FACTS] = facts
                    unlock(HELD)
                    st.rerun()
    return facts


def _choose(facts: pl.FdrFacts) -> pl.FdrPlan:
    """Step 2's controls: the private method, ε, δ and PAPRIKA's settings (the FDR page's options)."""
    method = st.radio("Private method", list(fdr.PRIVATE_METHODS), horizontal=True, key="plan_fdr_method")
    epsilon = epsilon_slider("Privacy budget ε", key="eps", default=5.0, min_value=0.3, max_value=20.0)
    delta = st.select_slider("δ", options=DELTAS, value=2.5e-4, format_func=lambda d: f"{d:g}", key="plan_fdr_delta")
    cutoff = st.select_slider("Cutoff c (max discoveries)", options=CUTOFFS, value=40, key="plan_fdr_c")
    lam = st.select_slider("PAPRIKA λ (candidates: p < 2λ)", options=LAMBDAS, value=0.2, key="plan_fdr_lam")
    gamma = st.radio("γ sequence", list(GAMMAS), format_func=GAMMAS.get, horizontal=True, key="plan_fdr_gamma")
    floor_exp = None
    if facts.eta_from == "binomial":
        floor_exp = int(st.number_input("Smallest p-value counted: 10 to the minus", min_value=1, max_value=300,
                                        value=facts.design_floor_exp, step=1, key="plan_fdr_floor",
                                        help="The floor μ: p-values below it count as μ. It starts at the p-value of "
                                             "the design's median count under θ (the design's, never the data's)."))
    return pl.FdrPlan(facts, epsilon, delta, method, cutoff, lam, gamma, floor_exp)


def settings_words(plan: pl.FdrPlan) -> str:
    """The locked settings as one line a reader checks against the release."""
    sens = plan.sensitivity()
    return SEPARATOR.join([plan.method, f"ε = {plan.epsilon:g}", f"δ = {plan.delta:g}", f"α = {plan.facts.alpha:g}",
                           f"c = {plan.cutoff}", f"λ = {plan.lam:g}", GAMMAS[plan.gamma],
                           f"η = {sens.eta:.4g} ({sens.source}, floor μ = {sens.floor:g})", "proven shift"])


def facts_words(facts: pl.FdrFacts) -> str:
    """The declared facts the proxy is simulated from, in one line (names as typed)."""
    return literal(f"{facts.hypotheses:,} hypotheses, {facts.signals:.0%} true signals of strength θ = "
                   f"{facts.signal_theta:g}, {facts.records:,} records per test (exact binomial p-values), "
                   f"seed {facts.seed}, {facts.draws} simulated streams")


def explore_and_lock(facts: pl.FdrFacts) -> pl.FdrPlan | None:
    """Steps 2 and 3: the settings beside the proxy's figures, and the Lock button; the locked plan or None."""
    locked = st.session_state.get(LOCKED)
    st.markdown("**2. Explore the settings on the proxy** · **3. Lock them**")
    views = view_switch(VIEWS, key="plan_fdr_view")
    controls, figure = first_screen()
    with controls:
        plan = lock_controls("plan_fdr", lambda: _choose(facts), settings_words,
                             read="the p-values")
        note(f"Simulated stream: {facts_words(facts)}. Every figure is drawn from it, never from your file: "
             "“private” is a preview run of the private method on it, “non-private” SAFFRON's.")
    proxy = session_memo("plan_fdr_proxy", facts, lambda: pl.simulate_fdr_proxy(facts, facts.draws))
    with show_errors("Cannot draw the proxy"), figure:
        _proxy_figures(plan, proxy, views)
    st.markdown(_noise_words(plan))
    return locked


def _proxy_figures(plan: pl.FdrPlan, proxy: fdr.Streams, views) -> None:
    """The FDR page's views, drawn on the proxy: every number here is simulated from the declared facts."""
    s, seed = plan.settings(), plan.facts.seed
    p, truth = proxy.pvalues, proxy.truth
    one = fdr.run_method(plan.method, p[:1], s, rng=SEED_STREAMS.rng(seed, "one stream"), keep_threshold=True).squeeze()
    base = fdr.run_method("SAFFRON AI" if plan.method == "PAPRIKA AI" else "SAFFRON", p[:1], s).squeeze()
    fdp_p, pow_p = (float(v) for v in fdr.fdp_power(one.rejections, truth[0]))
    fdp_s, pow_s = (float(v) for v in fdr.fdp_power(base.rejections, truth[0]))
    found_p, found_s = int(one.rejections.sum()), int(base.rejections.sum())
    if np.isfinite(pow_p):
        answer("Real effects found in one proxy stream (power)", f"{pow_p:.0%} ({found_p} discoveries, {fdp_p:.0%} "
               f"false)", f"{pow_s:.0%} ({found_s}, {fdp_s:.0%} false)", verdict=f"{one.method} against {base.method}.")
    else:
        answer("Discoveries in one proxy stream (no true signals declared)", str(found_p), str(found_s))
    bound = s.alpha + s.delta * p.shape[1]
    stream, draws, trade_off = views
    if stream.open:
        chart(ff.stream_figure(one, p[0], truth=truth[0], nonprivate=base, cutoff=s.cutoff, height=FIGURE_HEIGHT),
              key="plan_fdr_stream")
    if draws.open:
        rng = SEED_STREAMS.rng(seed, "summary")
        summary = fdr.summary_table([fdr.run_method(m, p, s, rng=rng) for m in fdr.METHODS], truth)
        chart(ff.summary_figure(summary, alpha=s.alpha, bound=bound), key="plan_fdr_summary")
        st.caption(f"Mean over {p.shape[0]} simulated streams, each with its own noise; error bars ±2 SE.")
    if trade_off.open:
        at_one = dataclasses.replace(s, epsilon=1.0)  # the sweep sets ε itself: its memo does not follow ε
        curves = session_memo("plan_fdr_sweep", (plan.facts, at_one), lambda: [
            fdr.utility_curve(p, truth, SWEEP, settings=at_one, ai=ai, rng=SEED_STREAMS.rng(seed, "eps sweep"))
            for ai in (False, True)])
        chart(ff.utility_figure(curves, s.epsilon, alpha=s.alpha, bound=bound), key="plan_fdr_trade_off")


def _noise_words(plan: pl.FdrPlan) -> str:
    """The noise and the shift these settings put on a stream of the declared length, and the claim."""
    s, T = plan.settings(), plan.facts.hypotheses
    z_a, z_t = fdr.paprika_noise_scales(s.epsilon, s.eta, s.cutoff)
    shift = fdr.shift_value(s.epsilon, s.delta, s.eta, s.cutoff, T, fdr.STREAM)
    return (f"**Noise at these settings** (η = {s.eta:.4g}, for {T:,} hypotheses): threshold noise Laplace({z_a:.3g}), "
            f"per-test noise Laplace({z_t:.3g}) on log p, threshold lowered by A = {shift:.3g}. Claimed: "
            f"({s.epsilon:g}, {s.delta:g})-DP for the discovery list and FDR ≤ α + δT = {s.alpha + s.delta * T:.3g}.")


def _charged(behind) -> dict:
    """The release panel's persons: an earlier data set's (a :class:`Holding`) or a declared cohort's."""
    if isinstance(behind, Holding):
        return {"holding": behind, "ledger_label": get_ledger().name_of(behind.key)}
    return {"persons": behind, "ledger_label": behind.source[:1].upper() + behind.source[1:]}


def _release(plan: pl.FdrPlan, stream: pl.PrivateStream) -> None:
    """The release panel for the stream read at Release, charged to the cohort behind it (as on the FDR page)."""
    cohort = cohort_behind_stream("plan_fdr_cohort")
    release_panel(key="plan_fdr", dataset_label=stream.label, fingerprint=stream.fingerprint,
                  **({} if cohort is None else _charged(cohort)), records=records_read([stream.pvalues]),
                  method=plan.release_method, epsilon=plan.epsilon, delta=plan.delta,
                  params=plan.params(stream.hypotheses),
                  blocked=None if cohort is not None else "Name the cohort the p-values came from (above): its "
                                                          "people are charged.",
                  make_bundle=lambda: release_with_script(plan.release(stream), plan.config()), views=())


def release_step(plan: pl.FdrPlan) -> None:
    """Step 4: the held file is read at Release (:func:`ui.plan_first.release_held_file`) and released by
    :func:`ui.release_panel` with the locked settings."""
    release_held_file(HELD, lambda data, name: pl.read_private_fdr(data, name, plan.facts, floor=plan.floor),
                      lambda stream: _release(plan, stream))


def page() -> None:
    """The online-FDR path's four steps under the plan-first page's method choice."""
    explain(
        "1. Declare the public facts: the p-value column, the number of hypotheses (or a bound on it), the target "
        "FDR α and what η rests on: the exact one-sided binomial test with its records per test and the "
        "alternative θ it was planned for, or an η you state for your own test and vouch for (the release says its "
        "guarantee rests on that statement); and, for the proxy only, the expected share of true signals and their "
        "strength. 2. Explore: the FDR page's views are drawn on a **proxy**, streams of exact binomial p-values "
        "simulated from those facts and a public seed; nobody real is read and nothing is charged. 3. Lock the "
        "method, ε, δ and PAPRIKA's settings. 4. Upload the file: the uploader only holds it. Its bytes are read "
        "when you press Release, checked against the declared facts (a problem is named by column or row and "
        "charges nothing), and the release is charged to the cohort the p-values came from, with exactly the "
        "locked settings.\n\n"
        "**What the proxy cannot tell you.** How many discoveries your stream gets depends on its real effects; "
        "the proxy shows it for a stream like the declared one. To explore on the real p-values instead, use the "
        "Online FDR page: its releases say which settings changed after its previews.",
        title="The four steps for online FDR")
    facts = declare_facts()
    if facts is None:
        note("Declare the facts above to see the figures on a simulated stream.")
        return
    plan = explore_and_lock(facts)
    if plan is not None:
        release_step(plan)
