"""The plan-first steps for private linear regression: declare, explore on the proxy, lock, then read at Release.

Nothing here opens the private file before its Release button is pressed: :func:`release_step` hands the file to
:func:`ui.plan_first.release_held_file`, which reads its bytes (:func:`dpcore.plan.read_private_regression`) only in
the run that button starts. Every figure before that is drawn from :func:`dpcore.plan.simulate_regression_proxy`,
which reads nobody, with the regression page's own preview, cross-validation and figures.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from dpcore import plan as pl
from dpcore import regression as R
from dpcore.plan.regression import MAX_FEATURES, MAX_PROXY_N, MAX_R2, MIN_ROWS, MIN_TEST
from dpcore.regression import figures as rf
from dpcore.regression.session import SEED_STREAMS
from dpcore.regression.evaluation import monte_carlo_cv, preview_fit, tuned_omegas
from dpcore.core.validation import InputError
from ui.chart import chart
from ui.errors import show_errors
from ui.exports import release_with_script
from ui.first_screen import SEPARATOR, first_screen
from ui.fragments import view_switch
from ui.layout import explain, literal, note
from ui.plan_first import lock_controls, release_held_file, unlock
from ui.release import records_read, release_panel
from ui.state import session_memo
from ui.widgets import DECIMAL_FORMAT, epsilon_slider

FACTS, LOCKED, HELD = "_plan_rg_facts", "_plan_rg_locked", "plan_rg"
#: the regression page's main views, drawn on the proxy (fixed labels: rendered as Markdown)
VIEWS = ["Predicted vs observed", "Noise draws", "Coefficients", "Trade-off over ε"]
METHOD_LABELS = {R.ADASSP: "AdaSSP (default)", R.METHOD: "robust private LR (Honkela et al.)"}
CENTRES = {"dp": "DP (charged)", "public": "public"}
#: simulated releases per preview, and cross-validation repeats per ε of the trade-off curve
DRAWS, SWEEP_REPEATS = 200, 5
SWEEP = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)


def _numbers(text: str, what: str) -> tuple[float, ...]:
    try:
        return tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise InputError(f"{what}: write numbers separated by commas, e.g. '0, 0, 18'.") from None


def _per_feature(values: tuple[float, ...], features: tuple[str, ...], what: str) -> tuple[float, ...]:
    """One number for every feature, or one per feature in their order."""
    if len(values) == 1:
        return values * len(features)
    if len(values) != len(features):
        raise InputError(f"{what}: give one number for all features or one per feature ({len(features)}); got "
                         f"{len(values)}.")
    return values


def declare_facts() -> pl.RegressionFacts | None:
    """Step 1: the public facts, typed into a form (nothing is read from any file); the declared facts or None."""
    facts = st.session_state.get(FACTS)
    with st.expander("**1. Declare the public facts**" + (" (declared)" if facts else ""), expanded=facts is None):
        with st.form("plan_rg_facts_form", border=False):
            c1, c2, c3, c4 = st.columns([1, 2, 1, 1])
            response = c1.text_input("Response column", value="response", key="plan_rg_y")
            features = c2.text_input(f"Feature columns (comma-separated, at most {MAX_FEATURES})", value="x1, x2, x3",
                                     key="plan_rg_x")
            person_column = c3.text_input("Person id column (optional)", value="", key="plan_rg_person")
            unit = c4.text_input("Unit of privacy: what one row is", value="patient", key="plan_rg_unit",
                                 max_chars=60)
            d1, d2, d3, d4 = st.columns(4)
            ylo = d1.number_input("Public response minimum", value=-10.0, format=DECIMAL_FORMAT, key="plan_rg_ylo")
            yhi = d2.number_input("Public response maximum", value=13.0, format=DECIMAL_FORMAT, key="plan_rg_yhi")
            xlo = d3.text_input("Public feature minimum (one for all, or one per feature)", value="0",
                                key="plan_rg_xlo", help="From domain knowledge (an assay's range, clinical limits), "
                                                        "never the file: values outside are clipped.")
            xhi = d4.text_input("Public feature maximum (one for all, or one per feature)", value="1",
                                key="plan_rg_xhi")
            e1, e2, e3, e4 = st.columns(4)
            n_max = e1.number_input("Number of people, or an upper bound", min_value=MIN_ROWS, max_value=MAX_PROXY_N,
                                    value=500, step=1, key="plan_rg_n")
            n_test = e2.number_input("Rows held out (the script's check)", min_value=MIN_TEST, value=50, step=10,
                                     key="plan_rg_ntest", help="Drawn by the public seed, as the regression page's "
                                                               "test set: the release is made on the other rows.")
            r2 = e3.number_input("Expected R² (for the proxy)", min_value=0.0, max_value=MAX_R2, value=0.3,
                                 step=0.05, key="plan_rg_r2", help="From the literature or a pilot, never the file.")
            seed = e4.number_input("Seed (public)", min_value=0, max_value=10_000, value=0, step=1,
                                   key="plan_rg_seed")
            distinct = st.checkbox("Identical rows are different people", key="plan_rg_distinct",
                                   help="Without a person id column each whole row is a person; rows that repeat "
                                        "another are refused at release unless you declare this.")
            if st.form_submit_button("Declare these facts"):
                with show_errors("These facts cannot be used"):
                    names = tuple(f.strip() for f in features.split(","))
                    facts = pl.RegressionFacts(
                        response.strip(), names if features.strip() else (), int(n_max),
                        _per_feature(_numbers(xlo, "Feature minimum"), names, "Feature minimum"),
                        _per_feature(_numbers(xhi, "Feature maximum"), names, "Feature maximum"),
                        float(ylo), float(yhi), unit.strip(), float(r2), int(n_test), person_column.strip(),
                        distinct, int(seed))
                    st.session_state[FACTS] = facts
                    unlock(HELD)
                    st.rerun()
    return facts


def _choose(facts: pl.RegressionFacts) -> pl.RegressionPlan:
    """Step 2's controls: ε, the method and, for robust private LR, its priors, budget split and thresholds."""
    epsilon = epsilon_slider("Privacy budget ε (total)", key="eps", default=1.0)
    method = st.radio("Release method", list(METHOD_LABELS), format_func=METHOD_LABELS.get, horizontal=True,
                      key="plan_rg_method")
    c1, c2 = st.columns(2)
    y_centre = c1.radio("Response centre", list(CENTRES), format_func=CENTRES.get, horizontal=True,
                        key="plan_rg_yc")
    sigma_y = c2.radio("Response scale σy", list(CENTRES), format_func=CENTRES.get, horizontal=True,
                       key="plan_rg_sy")
    prep_share = (st.slider("Share of ε for the DP centre/scale", min_value=0.02, max_value=0.3,
                            value=R.DEFAULT_PREP_SHARE, step=0.01, key="plan_rg_pshare")
                  if "dp" in (y_centre, sigma_y) else R.DEFAULT_PREP_SHARE)
    if method != R.METHOD:
        return pl.RegressionPlan(facts, epsilon, method, y_centre, sigma_y, prep_share)
    priors = st.toggle("Gamma priors and a ridge (VB); off: the paper's model", value=True, key="plan_rg_priors")
    s1, s2 = st.columns(2)
    p1 = s1.slider("p1 → nxx", min_value=0.05, max_value=0.90, value=R.DEFAULT_SPLIT[0], step=0.05,
                   key="plan_rg_p1")
    p2 = s2.slider("p2 → nxy", min_value=0.05, max_value=0.95, value=R.DEFAULT_SPLIT[1], step=0.05,
                   key="plan_rg_p2")
    split = (p1, p2, round(1.0 - p1 - p2, 10))
    omegas = None
    if st.toggle("Set the clipping thresholds myself", key="plan_rg_manual",
                 help="By default (ωx, ωy) are tuned for free on synthetic data of the declared size."):
        w1, w2 = st.columns(2)
        omegas = (float(w1.select_slider("ωx", options=[float(v) for v in R.OMEGA_GRID], value=0.1,
                                         key="plan_rg_wx")),
                  float(w2.select_slider("ωy", options=[float(v) for v in R.OMEGA_GRID], value=0.5,
                                         key="plan_rg_wy")))
    return pl.RegressionPlan(facts, epsilon, method, y_centre, sigma_y, prep_share, split, priors, omegas)


def settings_words(plan: pl.RegressionPlan) -> str:
    """The locked settings as one line a reader checks against the release."""
    words = [f"ε = {plan.total_epsilon:g}" + (f", δ = {plan.delta:.2g}" if plan.delta else ""),
             METHOD_LABELS[plan.method].removesuffix(" (default)"),
             f"response centre {CENTRES[plan.y_centre]}, σy {CENTRES[plan.sigma_y]}"]
    if plan.robust:
        wx, wy = plan.thresholds()
        words += [f"split {plan.split[0]:.2f} : {plan.split[1]:.2f} : {plan.split[2]:.2f}",
                  f"ωx = {wx:g}, ωy = {wy:g}" + (" (manual)" if plan.omegas else " (tuned)"),
                  "Gamma priors + ridge" if plan.priors else "fixed precisions"]
    return SEPARATOR.join(words)


def _usable(facts: pl.RegressionFacts) -> pl.RegressionPlan | None:
    """The settings chosen, or None (with the reason shown) when they cannot be used together."""
    plan = None
    with show_errors("These settings cannot be used"):
        plan = _choose(facts)
    return plan


def explore_and_lock(facts: pl.RegressionFacts) -> pl.RegressionPlan | None:
    """Steps 2 and 3: the settings beside the proxy's figures, and the Lock button; the locked plan or None."""
    locked = st.session_state.get(LOCKED)
    st.markdown("**2. Explore the settings on the proxy** · **3. Lock them**")
    controls, figure = first_screen()
    with controls:
        plan = lock_controls("plan_rg", lambda: _usable(facts), settings_words)
        if plan is None:
            return None
        note(f"Simulated rows: {facts_words(facts)}. Every figure is drawn from them, never from your file: "
             "“non-private” is the proxy's own fit, “private” preview releases of it at this ε, scored on the "
             "proxy's held-out rows.")
    X, y = session_memo("plan_rg_proxy", facts, lambda: pl.simulate_regression_proxy(facts))
    with show_errors("Cannot draw the proxy"), figure:
        _proxy_figures(plan, X, y)
    return locked


def _proxy_figures(plan: pl.RegressionPlan, X: np.ndarray, y: np.ndarray) -> None:
    """The regression page's views, drawn on the proxy: every number here is simulated from the declared facts."""
    facts = plan.facts
    test, private = plan.rows(y.size)
    y_label = f"observed {facts.response_column}"  # a figure's axis title: plain text, not Markdown
    fit, draws, coefficients, trade_off = view_switch(VIEWS, key="plan_rg_view")
    if fit.open or draws.open or coefficients.open:
        pv = preview_fit(X, y, private=private, public=np.array([], dtype=int), test=test, x_bounds=facts.x_bounds,
                         y_bounds=facts.y_bounds, x_centre="public", y_centre=plan.y_centre, sigma_y=plan.sigma_y,
                         eps_prep=plan.eps_prep, eps_stat=plan.eps_stat, omegas=plan.thresholds(), split=plan.split,
                         priors=plan.priors, rng=SEED_STREAMS.rng(facts.seed, "preview"), draws=DRAWS,
                         method=plan.method, delta=plan.delta)
    if fit.open:
        chart(rf.predicted_vs_observed(y[test], pv.pred[0], pv.pred_nonprivate, rho_private=float(pv.rho[0]),
                                       rho_nonprivate=pv.rho_nonprivate, y_label=y_label, r2_private=float(pv.r2[0]),
                                       r2_nonprivate=pv.r2_nonprivate, rmse_private=float(pv.rmse[0]),
                                       rmse_nonprivate=pv.rmse_nonprivate), key="plan_rg_fit")
    if draws.open:
        chart(rf.rho_draws_histogram(pv.rho, pv.rho_nonprivate), key="plan_rg_draws")
        note(f"Held-out ρ over {pv.rho.size} preview releases on the proxy: median {np.median(pv.rho):.3f}; "
             f"non-private {pv.rho_nonprivate:.3f}.")
    if coefficients.open:
        lo, hi = np.quantile(pv.coef, [0.05, 0.95], axis=0)
        chart(rf.coefficient_bars(facts.feature_columns, pv.coef_nonprivate, pv.coef.mean(0), lo, hi),
              key="plan_rg_coef")
    if trade_off.open:
        key = (facts, plan.y_centre, plan.sigma_y, plan.prep_share, plan.split, plan.priors, plan.delta)
        sweep = session_memo("plan_rg_sweep", key, lambda: monte_carlo_cv(
            X, y, epsilons=SWEEP, sizes=(private.size,), repeats=SWEEP_REPEATS, n_test=test.size, n_nonprivate=0,
            x_bounds=facts.x_bounds, y_bounds=facts.y_bounds, x_centre="public", y_centre=plan.y_centre,
            sigma_y=plan.sigma_y, prep_share=plan.prep_share, split=plan.split, priors=plan.priors,
            omegas=lambda n, d, e, sp: tuned_omegas(int(n), int(d), float(e), tuple(sp), 5, 5),
            rng=SEED_STREAMS(facts.seed, "sweep"), adassp_delta=plan.delta or None))
        chart(rf.rho_vs_epsilon(sweep.epsilons, sweep.rho[:, 0], chosen=plan.epsilon), key="plan_rg_trade_off")
        note(f"Held-out Spearman ρ of every model over ε on the proxy ({SWEEP_REPEATS} random splits per ε, "
             "thresholds re-tuned per ε on synthetic data).")


def facts_words(facts: pl.RegressionFacts) -> str:
    """The declared facts the proxy is simulated from, in one line (names as typed)."""
    return literal(f"{facts.n_max:,} rows of {len(facts.feature_columns)} features uniform over their declared "
                   f"ranges, {facts.response_column} within [{facts.response_lower:g}, {facts.response_upper:g}] "
                   f"with R² {facts.r2:g}, {facts.n_test} held out, seed {facts.seed}")


def release_step(plan: pl.RegressionPlan) -> None:
    """Step 4: the held file is read at Release (:func:`ui.plan_first.release_held_file`) and released by
    :func:`ui.release_panel` with the locked settings."""
    release_held_file(HELD, lambda data, name: pl.read_private_regression(data, name, plan.facts),
                      lambda cohort: release_panel(
                          key="plan_regression", dataset_label=cohort.label, fingerprint=cohort.fingerprint,
                          persons=plan.persons(cohort), records=records_read([cohort.y], exchangeable=cohort.X),
                          method=plan.method, epsilon=plan.total_epsilon, delta=plan.delta, parts=plan.parts(),
                          params=plan.params(cohort),
                          make_bundle=lambda: release_with_script(plan.release(cohort), plan.config(cohort)),
                          views=()))


def page() -> None:
    """The regression path's four steps under the plan-first page's method choice."""
    explain(
        "1. Declare the public facts: the response and feature columns, the number of people (or a bound on it), "
        "the unit of privacy, and the public ranges of the response and of each feature (from domain knowledge: "
        "the release centres, scales and clips with them); and, for the proxy only, the expected R². 2. Explore: "
        "the regression page's views are drawn on a **proxy**, rows simulated from those facts and a public seed "
        "(features uniform over their ranges, a linear response with the declared R², clipped to its range); "
        "nobody real is read and nothing is charged. 3. Lock ε, the method (AdaSSP by default, or robust private "
        "LR with its split and thresholds) and the response centre and scale. 4. Upload the file: the uploader only "
        "holds it. Its bytes are read when you press Release, checked against the declared facts (a problem is "
        "named by column or row and charges nothing), and the release is made on its rows less the held-out ones, "
        "charged to the people in it, with exactly the locked settings.\n\n"
        "**What the proxy cannot tell you.** How well the private fit predicts your data depends on the real "
        "relation between features and response; the proxy shows it for data like the declared ones. To explore on "
        "the real file instead, use the Drug sensitivity page: its releases say which settings changed after its "
        "previews.",
        title="The four steps for private linear regression")
    facts = declare_facts()
    if facts is None:
        note("Declare the facts above to see the figures on simulated rows.")
        return
    plan = explore_and_lock(facts)
    if plan is not None:
        release_step(plan)
