"""The attacker's view: a section of the audit page and a teaching panel on each method page.

All of it is a preview: seeded NumPy noise in this session, never charged or
exported — except that a view on one of the registry's synthetic
neighbouring pairs may be added to the session report, labelled as an
illustration. Uploaded data stay in memory for this run (no cache, no disk);
values read from data or a URL are shown through :func:`ui.layout.literal`.
"""

from __future__ import annotations

import streamlit as st

from dpcore.reporting import attack

from dpcore import registry
from dpcore.reporting.attack_figures import bound_figure, nonprivate_figure, roc_figure
from ui.attacker_pairs import data_pair
from ui.chart import chart
from ui.errors import show_errors
from ui.layout import literal, teaching, teaching_mode
from ui.state import audits
from ui.widgets import LINKED, follow_default, set_control, url_radio, url_select_slider, url_selectbox

#: δ values the view offers (and reads from a link as ``?adelta=…``).
DELTAS = (0.0, 1e-8, 1e-6, 1e-5, 1e-4, 2.5e-4, 1e-3, 1e-2)
DATA_METHODS = ("survival", "regression", "fdr", "sparse")  # methods whose pairs can be built from a data set


def _offered(delta: float) -> float:
    """The smallest offered δ at or above ``delta`` (rounding δ up gives a weaker, true claim)."""
    return min((d for d in DELTAS if d >= delta), default=DELTAS[-1])


def _delta_control(default: float) -> float:
    """δ of the claim, starting at the pair's own δ and following it to another pair (or to a data set's once it is
    uploaded) until the user moves it."""
    default = _offered(default)
    follow_default("adelta", default)
    return float(url_select_slider("δ of the claim", key="adelta", options=DELTAS, value=default,
                                   format_func=lambda d: f"{d:g}",
                                   help="The (ε, δ) whose region is drawn and whose bound is quoted. A pair whose "
                                        "mechanism is calibrated with a larger δ uses that δ."))


@st.cache_resource(show_spinner=False, max_entries=32)
def _scenarios(method: str, epsilon: float) -> list:
    """The registry's synthetic pairs (public inputs only; immutable, so one copy serves every session)."""
    return registry.audit_scenarios(method, epsilon)


def _show(view: attack.AttackView, *, key: str) -> None:
    st.markdown(f"### {view.headline()}")  # under the section's h2
    st.markdown("**The scenario.** The attacker knows every record but one and sees the release; they must tell "
                "which of two values the last record has.  \n" + literal(view.neighbours))
    st.markdown("**Without privacy.** " + literal(view.reveal))
    if view.curves:
        chart(nonprivate_figure(view.curves), key=f"{key}_np")
    st.markdown("**With privacy.** " + literal(view.observed()))
    chart(roc_figure(view), key=f"{key}_roc")
    st.caption(
        "Each point is one guessing rule (a threshold on the attacker's statistic): how often it says “A” when the "
        "truth is B (x) and when it is A (y), with a simultaneous "
        f"{view.empirical.confidence:.0%} confidence band. (ε, δ)-DP keeps every rule inside the shaded region; "
        "the diagonal is a coin flip; without noise the attacker sits in the top-left corner."
        + (" The thick orange line without markers is the same attacker computed exactly." if view.exact is not None
           else ""))
    teaching("1. The release is simulated many times on A and on B with fresh, seeded noise. 2. For each release the "
             "attacker computes the most informative statistic (the likelihood ratio, or the audit's summary). "
             "3. Every threshold on it is a guessing rule with one true-positive and one false-positive rate. "
             "4. ε bounds how far above the diagonal any rule can get: the best guess is right at most "
             "(e^ε + δ)/(1 + e^ε) of the time.")


@st.fragment
def attacker_section(method: str, epsilon: float) -> None:
    """The full attacker's view on the audit page, for ``method`` at ``epsilon`` (δ and the pair chosen here)."""
    st.header("What ε means for one patient: the attacker's view")  # a section of its page: h2 under the h1
    st.caption("Preview: simulated in this session with a seeded generator; nothing is charged or exported.")
    sources = ["registry"] + (["data"] if method in DATA_METHODS else [])
    source = url_radio("Neighbouring pair", key="atk_pair", options=sources, horizontal=True,
                       format_func=lambda s: {"registry": "a worst-case pair from the audit",
                                              "data": "built from a data set by replacing one record"}[s])
    c1, c2 = st.columns(2)
    with c1:
        draws = int(url_select_slider("Simulated releases per data set", key="atk_R",
                                      options=[5_000, 20_000, 100_000], value=20_000, format_func=lambda n: f"{n:,}"))
    with show_errors("Could not build the attacker's view"):
        if source == "registry":
            scenarios = _scenarios(method, epsilon)
            names = [s.name for s in scenarios]
            scenario = scenarios[names.index(url_selectbox("Pair", key="atk_scn", options=names))]
            with c2:
                delta = _delta_control(scenario.delta)
            view = attack.attack_view(scenario, draws=draws, delta=delta)
        else:
            pair, draws = data_pair(method, epsilon, draws)
            with c2:
                delta = _delta_control(getattr(pair, "delta", 0.0))
            if pair is None:
                return
            view = attack.attack_view(pair, draws=draws, delta=delta)
        _show(view, key="atk")
        if source == "registry" and st.button("Add this illustration to the session report"):
            audits().append(view)
            st.toast("Added to the session report's audit section, labelled as an illustration.")


def attacker_panel(method: str, epsilon: float, delta: float = 0.0) -> None:
    """Teaching mode: one sentence and a small figure with the bound at ``epsilon``, and a link to the full view."""
    if not teaching_mode():
        return
    with st.container(border=True):
        st.markdown("**What ε means for one patient.** " + attack.bound_sentence(epsilon, delta))
        chart(bound_figure(epsilon, delta), key=f"attack_bound_{method}")
        set_control("method", method)  # the audit page opens on this method even if it was visited before
        params = {"method": method, "eps": f"{epsilon:g}", "adelta": f"{_offered(delta):g}", LINKED: "1"}
        st.page_link("app_pages/audit.py", label="See the attacker's view with this configuration",
                     icon=":material/visibility:", query_params=params)
