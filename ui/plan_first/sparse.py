"""The plan-first steps for sparse regression: declare, explore on the proxy, lock, then read the file at Release.

Nothing here opens the private file before its Release button is pressed: :func:`release_step` hands the file to
:func:`ui.plan_first.release_held_file`, which reads its bytes (:func:`dpcore.plan.sparse.read_private`) only in
the run that button starts. Every figure before that is drawn from :func:`dpcore.plan.sparse.simulate_proxy`, which
reads nobody.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import sparse as sp
from dpcore.plan import sparse as ps
from dpcore.sparse import figures as spf
from dpcore.sparse.session import AUTO_SWEEP_CELLS, DELTAS, RELEASES, SEED_STREAMS
from dpcore.core.validation import InputError
from ui.chart import chart
from ui.errors import show_errors
from ui.exports import release_with_script
from ui.first_screen import FIGURE_HEIGHT, SEPARATOR, first_screen
from ui.fragments import view_switch
from ui.layout import explain, literal, note
from ui.plan_first import lock_controls, release_held_file, unlock
from ui.release import records_read, release_panel
from ui.state import session_memo
from ui.widgets import DECIMAL_FORMAT, epsilon_slider

FACTS, LOCKED, SWEPT = "_plan_sp_facts", "_plan_sp_locked", "_plan_sp_sweep"
#: the sparse page's main views (fixed labels: they render as Markdown)
VIEWS = ["Coefficients", "Utility over the draws", "Privacy–utility over ε"]
#: simulated releases per view: the draws at the chosen ε, and per ε of the trade-off curves
DRAWS, SWEEP_DRAWS = 20, 10


def _names(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _threshold(text: str) -> float | None:
    try:
        return float(text) if text.strip() else None
    except ValueError:
        raise InputError(f"The threshold {text.strip()!r} is not a number.") from None


def declare_facts() -> ps.SparseFacts | None:
    """Step 1: the public facts, typed into a form (nothing is read from any file); the declared facts or None."""
    facts = st.session_state.get(FACTS)
    with st.expander("**1. Declare the public facts**" + (" (declared)" if facts else ""), expanded=facts is None):
        with st.form("plan_sp_facts_form", border=False):
            c1, c2, c3, c4 = st.columns(4)
            response = c1.text_input("Response column", value="y", key="plan_sp_response")
            features = c2.text_input("Feature columns (blank: every other column)", value="", key="plan_sp_features",
                                     placeholder="g1, g2, g3")
            d = c3.number_input("Number of features (when not named)", min_value=2, max_value=ps.MAX_FEATURES,
                                value=20, step=1, key="plan_sp_d")
            person = c4.text_input("Person id column (optional)", value="", key="plan_sp_person")
            d1, d2, d3 = st.columns(3)
            loss = d1.selectbox("Model", sp.LOSSES, key="plan_sp_loss",
                                format_func=lambda s: f"sparse {s} regression")
            threshold = d2.text_input("Public threshold for a continuous response (logistic; blank = 0/1 labels)",
                                      value="", key="plan_sp_threshold")
            n_max = d3.number_input("Number of people, or an upper bound", min_value=10, value=500, step=1,
                                    key="plan_sp_n")
            distinct = st.checkbox("Identical rows are different people", key="plan_sp_distinct",
                                   help="Without a person id column each whole row is a person; rows that repeat "
                                        "another are refused at release unless you declare this.")
            e1, e2, e3 = st.columns(3)
            K = e1.number_input("Feature bound K (|x| ≤ K)", min_value=0.1, max_value=100.0, value=1.0,
                                key="plan_sp_K")
            r = e2.number_input("Response bound r (|y| ≤ r)", min_value=0.1, max_value=100.0, value=5.0,
                                key="plan_sp_r")
            B = e3.number_input("ℓ1 radius B of the coefficients", min_value=0.1, max_value=1000.0, value=10.0,
                                key="plan_sp_B")
            f1, f2, f3, f4 = st.columns(4)
            s_star = f1.number_input("Features that matter s* (for the proxy)", min_value=1, value=5, step=1,
                                     key="plan_sp_sstar", help="From the protocol or the literature, never the file.")
            signal = f2.number_input("Their coefficient size (for the proxy)", min_value=0.001, value=1.0,
                                     format=DECIMAL_FORMAT, key="plan_sp_signal")
            noise = f3.number_input("Response noise σ (for the proxy)", min_value=0.0, value=0.5, format=DECIMAL_FORMAT,
                                    key="plan_sp_noise")
            seed = f4.number_input("Proxy seed (public)", min_value=0, max_value=10_000, value=0, step=1,
                                   key="plan_sp_seed")
            if st.form_submit_button("Declare these facts"):
                with show_errors("These facts cannot be used"):
                    named = _names(features)
                    facts = ps.SparseFacts(
                        response.strip(), int(n_max), named, 0 if named else int(d), loss, _threshold(threshold),
                        float(K), float(r), float(B), person.strip(), distinct, int(s_star), float(signal),
                        float(noise), int(seed))
                    st.session_state[FACTS] = facts
                    st.session_state.pop("plan_sp_s", None)  # its range follows the declared features
                    unlock("plan_sp")
                    st.rerun()
    return facts


def _choose(facts: ps.SparseFacts) -> ps.SparsePlan:
    """Step 2's controls: ε, δ, the features kept and what the release releases."""
    epsilon = epsilon_slider("Privacy budget ε", key="eps", default=2.0, min_value=0.1, max_value=20.0)
    s = int(st.number_input("Features kept s", min_value=1, max_value=min(100, facts.d),
                            value=min(int(facts.s_star), 100), step=1, key="plan_sp_s",
                            help="Sparsity: how many coefficients each model keeps (the rest are 0)."))
    choice = st.select_slider("δ", options=DELTAS, value=DELTAS[0], key="plan_sp_delta",
                              help="1/n² takes n as the declared number of people (or its bound).")
    variant = st.radio("What the Release button releases", list(RELEASES), format_func=RELEASES.get,
                       horizontal=True, key="plan_sp_variant")
    delta = 1.0 / facts.n_max**2 if choice == DELTAS[0] else float(choice)
    return ps.SparsePlan(facts, epsilon, delta, s, variant)


def settings_words(plan: ps.SparsePlan) -> str:
    """The locked settings as one line a reader checks against the release."""
    return SEPARATOR.join([f"ε = {plan.epsilon:g}", f"δ = {plan.delta:.3g}", f"s = {plan.sparsity}",
                           sp.METHOD_LABELS[plan.variant], f"{plan.facts.loss} model"])


def facts_words(facts: ps.SparseFacts) -> str:
    """The declared facts the proxy is simulated from, in one line (names as typed)."""
    return literal(f"{facts.n_max:,} people ({facts.n_train:,} rows released), {facts.d} features of which "
                   f"{facts.s_star} matter with coefficients ±{facts.signal:g}"
                   + (f", response noise σ = {facts.noise:g}" if facts.loss == "linear" else ", logistic labels")
                   + f", K = {facts.K:g}, seed {facts.seed}")


def explore_and_lock(facts: ps.SparseFacts) -> ps.SparsePlan | None:
    """Steps 2 and 3: the settings beside the proxy's figures, and the Lock button; the locked plan or None."""
    locked = st.session_state.get(LOCKED)
    st.markdown("**2. Explore the settings on the proxy** · **3. Lock them**")
    controls, figure = first_screen()
    with controls:
        plan = lock_controls("plan_sp", lambda: _choose(facts), settings_words)
        note(f"Simulated records: {facts_words(facts)}. Every figure is drawn from them, never from your file: "
             "“non-private” is the proxy's own fit, “private” simulated releases of it at this ε.")
    proxy = session_memo("plan_sp_proxy", facts, lambda: ps.simulate_proxy(facts))
    with show_errors("Cannot draw the proxy"), figure:
        _proxy_figures(plan, proxy)
    return locked


def _fits(plan: ps.SparsePlan, proxy: sp.SparseData) -> tuple[np.ndarray, np.ndarray, dict]:
    """The proxy's non-private fit, :data:`DRAWS` simulated releases at the plan's ε, and the metrics of both."""
    constants, s = plan.constants(), int(plan.sparsity)
    p = sp.SparseParams(**constants)
    Xc, yc = sp.prepare(proxy.X, proxy.y, proxy.loss, p)
    teacher = sp.teacher_fit(Xc, yc, sparsity=s, lam=0.0, loss=proxy.loss, p=p)
    fit = sp.BATCH[plan.variant](proxy.X, proxy.y, sparsity=s, epsilons=[plan.epsilon], delta=plan.delta,
                                 loss=proxy.loss, rng=SEED_STREAMS.rng(plan.facts.seed, "fits"), draws=DRAWS,
                                 **constants)
    intercept = fit.details.get("intercept")
    scored = dict(theta=proxy.theta, X_test=proxy.X_test, y_test=proxy.y_test, loss=proxy.loss, teacher=teacher)
    return teacher, fit.coef[0], {
        "nonprivate": sp.metrics(teacher[None], **scored),
        plan.variant: sp.metrics(fit.coef[0], intercept=None if intercept is None else intercept[0], **scored)}


def _proxy_figures(plan: ps.SparsePlan, proxy: sp.SparseData) -> None:
    """The sparse page's views, drawn on the proxy: every number here is simulated from the declared facts."""
    coefficients, draws, trade_off = view_switch(VIEWS, key="plan_sp_view")
    if coefficients.open or draws.open:
        teacher, coefs, metrics = session_memo("plan_sp_fits", plan, lambda: _fits(plan, proxy))
    if coefficients.open:
        chart(spf.release_stem_figure(teacher, coefs[0], variant=plan.variant, theta=proxy.theta,
                                     feature_names=proxy.feature_names, height=FIGURE_HEIGHT), key="plan_sp_stem")
        note("One simulated release of the proxy at this ε beside the proxy's non-private fit and its true "
             "coefficients: each stem is a feature one of them kept.")
    if draws.open:
        _draws_table(plan, metrics)
    if trade_off.open:
        _trade_off(plan, proxy)


def _draws_table(plan: ps.SparsePlan, metrics: dict) -> None:
    """Mean and 10–90 % range of each measure over the simulated releases (the non-private fit is one value)."""
    titles = {"l2_error": "‖θ − θ*‖₂", "f1": "support F1 vs θ*",
              "test_error": "test MSE" if plan.facts.loss == "linear" else "misclassification",
              "teacher_overlap": "overlap with the non-private fit (F1)"}
    rows = []
    for method, values in metrics.items():
        row = {"model": sp.METHOD_LABELS[method]}
        for key, title in titles.items():
            v = np.asarray(values[key], dtype=float)
            row[title] = f"{v.mean():.3g}  [{np.quantile(v, 0.1):.3g}, {np.quantile(v, 0.9):.3g}]"
        rows.append(row)
    st.markdown(f"**Utility over {DRAWS} simulated releases of the proxy at ε = {plan.epsilon:g}**")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    note("Mean and 10–90 % range over the draws; test errors on simulated held-out records.")


def _trade_off(plan: ps.SparsePlan, proxy: sp.SparseData) -> None:
    """The trade-off over the page's ε grid on the proxy (large proxies wait for the button, as on the page)."""
    key = (plan.facts, plan.sparsity, plan.delta, plan.variant)
    held = st.session_state.get(SWEPT)
    if held is None or held[0] != key:
        too_big = proxy.X.size * SWEEP_DRAWS > AUTO_SWEEP_CELLS
        if too_big and not st.button("Compute the curves", key="plan_sp_sweep_btn"):
            note(f"{len(ps.SWEEP)} values of ε × {SWEEP_DRAWS} draws on n·d = {proxy.X.size:,}: press to run.")
            return
        with st.spinner("Sweeping ε…"):
            held = (key, sp.utility_curve(proxy, sparsity=int(plan.sparsity), epsilons=ps.SWEEP, delta=plan.delta,
                                          methods=("nonprivate", plan.variant), repeats=SWEEP_DRAWS,
                                          rng=SEED_STREAMS.rng(plan.facts.seed, "sweep"), **plan.constants()))
        st.session_state[SWEPT] = held
    left, right = st.columns(2)
    for column, metric, title in ((left, "l2_error", "estimation error ‖θ − θ*‖₂"), (right, "f1", "support F1 vs θ*")):
        with column:
            chart(spf.utility_figure(held[1], metric, labels=sp.METHOD_LABELS, epsilon=plan.epsilon, y_title=title),
                  key=f"plan_sp_{metric}")
    note(f"Lines: mean over {SWEEP_DRAWS} simulated releases per ε; bands: 10–90 %. The dotted line is the "
         "non-private fit.")


def release_step(plan: ps.SparsePlan) -> None:
    """Step 4: the held file is read at Release (:func:`ui.plan_first.release_held_file`) and released by
    :func:`ui.release_panel` with the locked settings, under the sparse page's method name, parts and δ."""
    def release(cohort: ps.PrivateSparse) -> None:
        release_panel(
            key="plan_sparse", dataset_label=cohort.label, fingerprint=cohort.fingerprint, persons=cohort.persons,
            records=records_read([cohort.y], exchangeable=cohort.X), method=plan.method, epsilon=plan.epsilon,
            delta=plan.delta, parts=plan.parts(), params=plan.params(len(cohort.y)),
            make_bundle=lambda: release_with_script(plan.release(cohort),
                                                    plan.config(cohort.feature_names, repeats=DRAWS)),
            views=())

    release_held_file("plan_sp", lambda data, name: ps.read_private(data, name, plan.facts), release)


def page() -> None:
    """The sparse-regression path's four steps under the plan-first page's method choice."""
    explain(
        "1. Declare the public facts: the response and feature columns (named, or counted when every other column "
        "is a feature), the model, the number of people (or a bound on it) and the public bounds the release clips "
        "to (features to [−K, K], a linear response to [−r, r], coefficients to an ℓ1 ball of radius B); and, for "
        "the proxy only, how many features matter (s*), their coefficient size and the response noise, from the "
        "protocol or the literature. 2. Explore: the sparse page's views are drawn on a **proxy**, records "
        "simulated from those facts and a public seed (features N(0, 1) clipped to [−K, K], s* true coefficients); "
        "nobody real is read and nothing is charged. 3. Lock ε, δ, the features kept and the release. 4. Upload "
        "the file: the uploader only holds it. Its bytes are read when you press Release, checked against the "
        "declared facts (a problem is named by column or row and charges nothing), and the release (of the same "
        "80 % of the rows the sparse page and its script release, chosen by a public seed) is charged to the people "
        "in it like every other release, with exactly the locked settings.\n\n"
        "**What the proxy cannot tell you.** Whether the private model finds your data's features depends on how "
        "strongly they predict the response; the proxy shows it for features as strong as the declared ones. To "
        "explore on the real file instead, use the Sparse regression page: its releases say which settings changed "
        "after its previews.",
        title="The four steps for sparse regression")
    facts = declare_facts()
    if facts is None:
        note("Declare the facts above to see the figures on simulated records.")
        return
    plan = explore_and_lock(facts)
    if plan is not None:
        release_step(plan)
