"""Privacy audit: run a method's release many times on worst-case neighbours and bound ε from below."""

import streamlit as st

from dpcore.core import distributed

from dpcore import registry
from dpcore.core.audit import max_detectable_epsilon
from dpcore.reporting.figures import audit_figure
from ui import audits, epsilon_slider, explain, get_ledger, live_fragment, page_header, show_errors, teaching, \
    url_select_slider, url_selectbox, url_toggle, view_switch
from ui.attacker import attacker_section
from ui.chart import chart

page_header(
    "Privacy audit",
    "An empirical lower bound on ε from many runs of a release on two neighbouring data sets — "
    "it can refute a privacy claim, never prove one.",
)

explain(
    """
For each method we build the **worst-case neighbouring data sets** its sensitivity proof names (for example, one
patient moved from the first to the last time bin). The release is run many times on both, each output is reduced
to one number, and we look for a threshold event that is much likelier under one data set than the other.
For an ε-DP mechanism, P(event | A) ≤ e^ε · P(event | B) + δ for *every* event, so one-sided Clopper–Pearson
bounds give, with 99 % confidence (union-bounded over all events tried),

    ε_lower = ln( (P_A,lower − δ) / P_B,upper ).

If ε_lower exceeds the claimed ε, the mechanism is **broken**. If not, the audit found no violation — which is
evidence, not proof: a cleverer pair or event might. Switch on the *planted bug* to see the audit catch a
broken mechanism (each scenario names its bug: noise scale halved, clipping skipped, …). With N runs no audit can
show more than about ε ≈ ln(N) − 2.4, so very large claims cannot be tested. When the server is configured with a
Dask cluster (`DPCORE_DASK_SCHEDULER`), runs of 10⁶–10⁸ per data set are offered: they are cut into chunks that
the cluster's workers run in parallel, with the same result as in this process for the same seed.
""",
    expanded=False,
)

RUNS = [10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000]
CLUSTER_RUNS = [2_000_000, 5_000_000, 10_000_000, 20_000_000, 50_000_000, 100_000_000]
AUDIT_TAB, ATTACKER_TAB = "Audit", "Attacker's view"
scheduler = distributed.configured_scheduler()

keys = list(registry.METHODS)
method = url_selectbox("Method", key="method", options=keys, format_func=registry.method_title)
if "audit_view" not in st.session_state and any(k.startswith("atk_") or k == "adelta" for k in st.query_params):
    st.session_state["audit_view"] = ATTACKER_TAB  # a link that configures the attacker's view opens it


def _audit(epsilon: float) -> None:
    """The audit of ``method`` at the claimed ``epsilon``: controls, the run, the last result."""
    if st.session_state.get("audit_cancel"):
        st.info("The audit was cancelled; the last completed result (if any) is shown below.",
                icon=":material/cancel:")
    scenario, planted = None, False
    with show_errors("Could not build the audit"):
        scenarios = registry.audit_scenarios(method, epsilon)
        violations = registry.known_violations(method, epsilon)
        scenarios += violations
        scenario_names = [s.name if s not in violations else f"Known violation — {s.name}" for s in scenarios]
        name = url_selectbox("Worst-case neighbours", key="scenario", options=scenario_names)
        scenario = scenarios[scenario_names.index(name)]
        st.markdown(f"**Neighbours.** {scenario.neighbours}  \n**Summary thresholded.** {scenario.summary}")
        if scenario in violations:
            st.warning("This pair breaks the method *as published*: expect the audit to refute the claim even without "
                       "a planted bug. The method's page does not release this variant.", icon=":material/warning:")
        runs = url_select_slider(
            "Runs per data set", key="runs", options=RUNS + (CLUSTER_RUNS if scheduler else []),
            value=100_000, format_func=lambda n: f"{n:,}",
            help="Runs of 2·10⁶ and more are offered when a Dask cluster is configured (DPCORE_DASK_SCHEDULER).",
        )
        planted = url_toggle(f"Plant a bug: {scenario.planted_bug_label}", key="bug")
        st.caption(f"Resolution: with {runs:,} runs per data set this audit can show at most ε ≈ "
                   f"{max_detectable_epsilon(runs, delta=scenario.delta):.1f} — a larger violation shows as that value. "
                   + (f"Runs on the Dask cluster at {scheduler}." if scheduler else "Runs in this server process."))
        teaching(
            "1. The same release is computed many times on neighbour A and on neighbour B, with fresh noise each time. "
            "2. Each output becomes one number (the summary above). 3. For many thresholds we compare how often each "
            "side lands above or below. 4. The best-separating event, with confidence bounds, gives ε_lower."
        )
        if st.button("Run audit", type="primary"):
            _run(scenario, runs, planted)
    _last_result(epsilon, scenario.name if scenario is not None else None, planted)


def _run(scenario, runs: int, planted: bool) -> None:
    running = st.empty()
    # pressing Cancel reruns the page, which stops this run at its next progress update (the chunks still
    # queued on a cluster are cancelled on the way out)
    running.button("Cancel audit", key="audit_cancel", icon=":material/cancel:")
    bar = st.progress(0.0, text="Running the release on both neighbours…")
    with distributed.executor(scheduler=scheduler) as ex:
        where = ex.where
        result, a, b = scenario.run(
            runs, planted_bug=planted, seed=0, executor=ex,
            progress=lambda f: bar.progress(f, text=f"{f:.0%} of {runs:,} runs per data set, {where}"),
        )
    bar.empty()
    running.empty()
    st.session_state["_audit_last"] = (method, scenario.name, planted, result, a, b)
    audits().append(result)
    # kept in the ledger's database beside the releases, so a reviewer can cite it later (synthetic pairs only)
    get_ledger().record_audit(f"{registry.method_title(method)}: {scenario.name}",
                              {**result.as_dict(), "method": method, "scenario": scenario.name,
                               "planted_bug": planted})


def _last_result(epsilon: float, name: str | None, planted: bool) -> None:
    """The last audit's result, and plainly whether it still answers the question on screen: an audit is run at
    one claimed ε (and method, pair and bug), so moving ε or changing those leaves it out of date, said first."""
    last = st.session_state.get("_audit_last")
    if last is None:
        return
    last_method, last_name, last_planted, result, a, b = last
    changed = [what for what, differs in (
        (f"the claimed ε is now {epsilon:g}, not {result.claimed_epsilon:g}", epsilon != result.claimed_epsilon),
        ("another method is chosen", last_method != method),
        ("another pair of neighbours is chosen", name is not None and last_name != name),
        ("the planted bug is switched " + ("on" if planted else "off"), last_planted != planted),
    ) if differs]
    st.subheader(f"Result — {registry.method_title(last_method)}: {last_name}" + (" (planted bug)" if last_planted else ""))
    if changed:
        st.warning(f"**Out of date:** this result is for claimed ε = {result.claimed_epsilon:g}; "
                   + "; ".join(changed) + ". Press **Run audit** to audit what is set now.", icon=":material/history:")
    row = st.container(horizontal=True)  # one block, not four columns: resent on every ε move
    row.metric("Claimed ε", f"{result.claimed_epsilon:g}")
    row.metric("Claimed δ", f"{result.delta:g}", help="Subtracted from the event probability under A "
               "(the δ of the worst-case scenario, the method's release δ or larger).")
    row.metric("Empirical ε lower bound", f"{result.epsilon_lower:.3f}")
    row.metric("Runs per data set", f"{result.n_runs:,}")
    if result.violation:
        st.error(f"**The data refute ε = {result.claimed_epsilon:g}** at {result.confidence:.0%} confidence. "
                 f"{result.describe()}", icon=":material/report:")
    else:
        st.success(result.describe(), icon=":material/check_circle:")
        if last_planted:
            st.warning("The planted bug was **not caught** at this setting: the audit can only refute, and a bug "
                       "that changes ε by little (small ε) or needs a larger ε than the runs can show (large ε) stays "
                       f"hidden. Try more runs or an ε between 0.5 and {max(1.0, result.resolution - 2):.0f}.",
                       icon=":material/warning:")
    figure = audit_figure(a, b, result)
    chart(figure, key="audit_fig")
    st.caption("The two distributions are the scalar summaries of the release on neighbours A and B. "
               + (f"The bound comes from the event “{result.event}”"
                  + (" (the dashed line)." if figure.layout.shapes else ".") if result.epsilon_lower > 0 else
                  "No event separated them (ε lower bound 0)."))


@live_fragment
def _at_epsilon() -> None:
    """Everything that depends on the claimed ε: moving it reruns only this, and only the open view."""
    epsilon = epsilon_slider("Claimed ε of the release", key="eps", default=1.0, min_value=0.1, max_value=10.0)
    st.caption("Only the open view is computed. Moving ε redraws the attacker's view; an audit's result is for the ε "
               "it was run at, and says so when ε has moved since.")
    audit_tab, attacker_tab = view_switch([AUDIT_TAB, ATTACKER_TAB], key="audit_view")
    with audit_tab:
        if audit_tab.open:
            _audit(epsilon)
    with attacker_tab:
        if attacker_tab.open:
            attacker_section(method, epsilon)


_at_epsilon()
