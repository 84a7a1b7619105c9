"""The plan-first steps for survival curves: declare, explore on the proxy, lock, then read the file at Release.

Nothing here opens the private file before its Release button is pressed: :func:`release_step` hands the file to
:func:`ui.plan_first.release_held_file`, which reads its bytes (:func:`dpcore.plan.read_private`) only in the run
that button starts. Every figure before that is drawn from :func:`dpcore.plan.simulate_proxy`, which reads nobody.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from dpcore import plan as pl
from dpcore import survival as sv
from dpcore.survival.session import SEED_STREAMS
from dpcore.core.datasets import UNIT_DAYS
from dpcore.survival import figures as sf
from dpcore.core.validation import InputError
from ui.chart import chart
from ui.errors import show_errors
from ui.first_screen import SEPARATOR, first_screen
from ui.exports import release_with_script
from ui.fragments import view_switch
from ui.plan_first import lock_controls, release_held_file, unlock
from ui.layout import explain, literal, note
from ui.release import records_read, release_panel
from ui.state import session_memo
from ui.widgets import DECIMAL_FORMAT, EPSILON_STEPS, epsilon_slider

FACTS, LOCKED = "_plan_facts", "_plan_locked"
UNITS = list(UNIT_DAYS)
VIEWS = ["Private vs proxy", "Over R noise draws", "Groups and log-rank", "Trade-off over ε"]
ESTIMATORS = {"km": "Kaplan–Meier", "na": "Nelson–Aalen"}
#: simulated releases per view: the draws view, and per ε of the trade-off curve
DRAWS, SWEEP_DRAWS = 200, 100


def _numbers(text: str, what: str) -> tuple[float, ...]:
    try:
        return tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise InputError(f"{what}: write numbers separated by commas, e.g. '12, 18'.") from None


def declare_facts() -> pl.SurvivalFacts | None:
    """Step 1: the public facts, typed into a form (nothing is read from any file); the declared facts or None."""
    facts = st.session_state.get(FACTS)
    with st.expander("**1. Declare the public facts**" + (" (declared)" if facts else ""), expanded=facts is None):
        with st.form("plan_facts_form", border=False):
            c1, c2, c3, c4 = st.columns(4)
            time_column = c1.text_input("Time column", value="time", key="plan_time")
            event_column = c2.text_input("Event column (0 = censored, 1 = event)", value="event", key="plan_event")
            group_column = c3.text_input("Group column (optional)", value="", key="plan_group")
            person_column = c4.text_input("Person id column (optional)", value="", key="plan_person")
            d1, d2, d3, d4 = st.columns(4)
            labels = d1.text_input("Group labels (as the design fixes them)", value="", key="plan_labels",
                                   placeholder="control, treatment")
            n_max = d2.number_input("Number of people, or an upper bound", min_value=2, max_value=pl.MAX_PROXY_N,
                                    value=200, step=1, key="plan_n")
            unit = d3.selectbox("Time unit of the file", UNITS, index=UNITS.index("months"), key="plan_tunit")
            horizon = d4.number_input("Horizon: planned follow-up", min_value=0.001, value=60.0, format=DECIMAL_FORMAT,
                                      key="plan_horizon")
            e1, e2, e3 = st.columns(3)
            medians = e1.text_input("Expected median survival per group (for the proxy)", value="24",
                                    key="plan_medians", help="From the protocol or the literature, never the file.")
            censored = e2.number_input("Expected share censored (for the proxy)", min_value=0.0,
                                       max_value=pl.MAX_CENSORED, value=0.3, step=0.05, key="plan_censored")
            seed = e3.number_input("Proxy seed (public)", min_value=0, max_value=10_000, value=0, step=1,
                                   key="plan_seed")
            distinct = st.checkbox("Identical rows are different people", key="plan_distinct",
                                   help="Without a person id column each whole row is a person; rows that repeat "
                                        "another are refused at release unless you declare this.")
            if st.form_submit_button("Declare these facts"):
                with show_errors("These facts cannot be used"):
                    facts = pl.SurvivalFacts(
                        time_column.strip(), event_column.strip(), int(n_max), unit, float(horizon),
                        _numbers(medians, "Expected medians"), float(censored), group_column.strip(),
                        tuple(g.strip() for g in labels.split(",") if g.strip()), person_column.strip(), distinct,
                        int(seed))
                    st.session_state[FACTS] = facts
                    unlock("plan")
                    st.rerun()
    return facts


def _choose(facts: pl.SurvivalFacts) -> pl.SurvivalPlan:
    """Step 2's controls: ε, the estimator, groups and the grid (by default the public rule on the declared n)."""
    epsilon = epsilon_slider("Privacy budget ε", key="eps", default=1.0)
    estimator = st.radio("Estimator", list(ESTIMATORS), format_func=ESTIMATORS.get, horizontal=True,
                         key="plan_est")
    compare = bool(facts.group_column) and st.toggle(f"Compare by {literal(facts.group_column)}", value=True,
                                                     key="plan_cmp")
    groups = len(facts.groups) if compare else 1
    width, unit = sv.default_bin_width(facts.horizon, facts.time_unit, n=facts.n_max, epsilon=epsilon,
                                       n_groups=groups)
    if st.toggle("Set the grid myself", key="plan_own_grid",
                 help=f"By default the bins follow a public rule from the horizon, n, ε and the groups: "
                      f"{sv.GRID_RULE}."):
        g1, g2 = st.columns(2)
        unit = g1.selectbox("Grid unit", UNITS, index=UNITS.index(unit), key="plan_unit")
        width = int(g2.number_input(f"Bin width ({unit})", min_value=1, max_value=1000, value=width,
                                    key="plan_width"))
    return pl.SurvivalPlan(facts, epsilon, unit, width, estimator, compare)


def settings_words(plan: pl.SurvivalPlan) -> str:
    """The locked settings as one line a reader checks against the release."""
    return SEPARATOR.join([f"ε = {plan.epsilon:g}", ESTIMATORS[plan.estimator], plan.grid().describe(),
                           f"compared by {plan.facts.group_column}" if plan.compared else "groups pooled",
                           "discrete Laplace noise"])


def explore_and_lock(facts: pl.SurvivalFacts) -> pl.SurvivalPlan | None:
    """Steps 2 and 3: the settings beside the proxy's figures, and the Lock button; the locked plan or None."""
    locked = st.session_state.get(LOCKED)
    st.markdown("**2. Explore the settings on the proxy** · **3. Lock them**")
    controls, figure = first_screen()
    with controls:
        plan = lock_controls("plan", lambda: _choose(facts), settings_words)
        note(f"Simulated patients: {facts_words(facts)}. Every figure is drawn from them, never from your file: "
             "“non-private” is the proxy's own curve, “private” one preview release of it at this ε.")
    proxy = pl.simulate_proxy(facts)
    with show_errors("Cannot draw the proxy"), figure:
        _proxy_figures(plan, proxy)
    return locked


def _proxy_figures(plan: pl.SurvivalPlan, proxy: sv.MappedData) -> None:
    """The survival page's views, drawn on the proxy: every number here is simulated from the declared facts."""
    grid, counts = plan.grid(), plan.counts(proxy)
    noise = sv.noise_for(counts, plan.epsilon, kind="discrete_laplace", delta=0.0)
    rng = SEED_STREAMS.rng(plan.facts.seed, "preview")
    noisy = sv.noisy_counts(counts, noise, rng=rng)
    minimum = sv.min_at_risk(noise.std)
    label = f"time ({grid.grid_unit})"

    def curves(c: sv.Counts) -> sv.CurveSet:
        return sv.curve_for(sv.postprocess(c.collapse_types(), risk_set=plan.risk_set), plan.estimator)

    views = view_switch(VIEWS if plan.compared else [VIEWS[0], VIEWS[1], VIEWS[3]], key="plan_view")
    headline, draws, *rest = views
    if headline.open:
        private_table = sv.postprocess(noisy.collapse_types().pooled(), risk_set=plan.risk_set)
        exact_table = sv.postprocess(counts.collapse_types().pooled(), risk_set=plan.risk_set)
        band = sv.noise_band(noisy.collapse_types(), noise, draws=DRAWS, rng=rng, estimator=plan.estimator,
                             pool_groups=True, risk_set=plan.risk_set)
        chart(sf.headline_figure(sv.curve_for(private_table, plan.estimator),
                                 sv.curve_for(exact_table, plan.estimator), estimator=plan.estimator,
                                 noise_band=band, time_label=label, at_risk=private_table.at_risk[0],
                                 exact_at_risk=exact_table.at_risk[0], min_at_risk=minimum,
                                 title="proxy, all groups pooled" if plan.compared else "proxy"),
              key="plan_headline")
    if draws.open:
        many = sv.noisy_counts(counts, noise, rng=SEED_STREAMS.rng(plan.facts.seed, "draws"), draws=DRAWS)
        exact = curves(counts.pooled())
        chart(sf.draws_figure(exact.times, curves(many.pooled()).estimate[:, 0], exact.estimate[0],
                              estimator=plan.estimator, time_label=label), key="plan_draws")
    if plan.compared and rest[0].open:
        test = sv.logrank_test(sv.logrank_table(noisy.collapse_types(), noise.std, risk_set=plan.risk_set),
                               noise_var=noise.std**2, n_types=1)
        exact_test = sv.logrank_test(sv.postprocess(counts.collapse_types(), risk_set=plan.risk_set))
        chart(sf.groups_figure(curves(noisy), curves(counts), estimator=plan.estimator, time_label=label,
                               p_private=float(test.p_value), p_exact=float(exact_test.p_value),
                               at_risk=sv.postprocess(noisy.collapse_types(), risk_set=plan.risk_set).at_risk,
                               min_at_risk=minimum, group_column=plan.facts.group_column), key="plan_groups")
    if rest[-1].open:
        sweep = session_memo("plan_sweep", (plan.facts, plan.grid_unit, plan.width, plan.estimator, plan.compared),
                             lambda: sv.utility_curve(counts, np.array(EPSILON_STEPS), draws=SWEEP_DRAWS,
                                                      rng=SEED_STREAMS.rng(plan.facts.seed, "sweep"),
                                                      estimator=plan.estimator, kind="discrete_laplace",
                                                      risk_set=plan.risk_set, noise_aware_logrank=True))
        chart(sf.utility_figure(sweep, plan.epsilon, time_unit=grid.grid_unit), key="plan_trade_off")


def facts_words(facts: pl.SurvivalFacts) -> str:
    """The declared facts the proxy is simulated from, in one line (names as typed)."""
    groups = (f"groups {', '.join(facts.group_labels)} by {facts.group_column}, medians "
              + ", ".join(f"{m:g}" for m in facts.medians) if facts.group_column else f"median {facts.medians[0]:g}")
    return literal(f"{facts.n_max:,} people, {groups} {facts.time_unit}, {facts.censored:.0%} censored, "
                   f"follow-up {facts.horizon:g} {facts.time_unit}, seed {facts.seed}")


def release_step(plan: pl.SurvivalPlan) -> None:
    """Step 4: the held file is read at Release (:func:`ui.plan_first.release_held_file`) and released by
    :func:`ui.release_panel` with the locked settings."""
    release_held_file("plan", lambda data, name: pl.read_private(data, name, plan.facts), lambda cohort: release_panel(
        key="plan_survival", dataset_label=cohort.label, fingerprint=cohort.fingerprint, persons=cohort.persons,
        records=records_read([cohort.data.time, cohort.data.event]), method="DP survival analysis",
        epsilon=plan.epsilon, params=plan.params(),
        make_bundle=lambda: release_with_script(plan.release(cohort), plan.config()), views=()))


def page() -> None:
    """The survival path's four steps under the plan-first page's method choice."""
    explain(
        "1. Declare the public facts: the column names, the number of people (or a bound on "
        "it), the time unit, the planned follow-up (the horizon) and the groups as the design fixes them; and, for "
        "the proxy only, the expected median survival per group and share censored, from the protocol or the "
        "literature. 2. Explore: every figure of the survival page is drawn on a **proxy**, patients simulated from "
        "those facts and a public seed (exponential survival with the declared medians, exponential censoring at the "
        "declared share); nobody real is read and nothing is charged. 3. Lock ε, the estimator, the grid and the "
        "groups. 4. Upload the file: the uploader only holds it. Its bytes are read when you press Release, checked "
        "against the declared facts (a problem is named by column or row and charges nothing), and the release is "
        "charged to the people in it like every other release, with exactly the locked settings.\n\n"
        "**What the proxy cannot tell you.** How far the private curve lands from your patients' true curve depends "
        "on the real counts; the proxy shows it for patients like the declared ones. To explore on the real file "
        "instead, use the Survival curves page: its releases say which settings changed after its previews.",
        title="The four steps for survival curves")
    facts = declare_facts()
    if facts is None:
        note("Declare the facts above to see the figures on simulated patients.")
        return
    plan = explore_and_lock(facts)
    if plan is not None:
        release_step(plan)
