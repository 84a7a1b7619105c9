"""The attacker's view: a section of the audit page and a teaching panel on each method page.

All of it is a preview: seeded NumPy noise in this session, never charged or
exported — except that a view on one of the registry's synthetic
neighbouring pairs may be added to the session report, labelled as an
illustration. Uploaded data stay in memory for this run (no cache, no disk);
values read from data or a URL are shown through :func:`ui.layout.literal`.
"""

from __future__ import annotations

import streamlit as st

from dpcore import attack, registry
from dpcore import regression as R
from dpcore import survival as sv
from dpcore.attack_figures import bound_figure, nonprivate_figure, roc_figure
from dpcore.datasets import UNIT_DAYS, load_gdsc, load_survival, survival_names, survival_title
from ui.data import upload_csv
from ui.errors import show_errors
from ui.layout import literal, teaching, teaching_mode
from ui.state import audits
from ui.widgets import LINKED, set_control, url_number, url_radio, url_select_slider, url_selectbox

#: δ values the view offers (and reads from a link as ``?adelta=…``).
DELTAS = (0.0, 1e-8, 1e-6, 1e-5, 1e-4, 2.5e-4, 1e-3, 1e-2)
DATA_METHODS = ("survival", "regression")  # methods whose pairs can be built from a data set
GDSC_FEATURES = 3


def _delta_control(default: float) -> float:
    return float(url_select_slider("δ of the claim", key="adelta", options=DELTAS, value=default,
                                   format_func=lambda d: f"{d:g}",
                                   help="The (ε, δ) whose region is drawn and whose bound is quoted. A pair whose "
                                        "mechanism is calibrated with a larger δ uses that δ."))


def _upload(key: str, unit: str, hint: str):
    """``(frame, columns)`` of an uploaded CSV, in memory for this run only; ``None`` until one is usable."""
    table = upload_csv(key, label=f"Upload a CSV (one row per {unit})", hint=hint)
    return None if table is None else (table.frame, list(table.frame.columns))


def _survival_pair(epsilon: float) -> attack.NeighbourPair | None:
    kind = url_radio("Survival data", key="atk_src", options=["bundled", "upload"], horizontal=True,
                     format_func=lambda s: {"bundled": "bundled data set", "upload": "upload a CSV"}[s])
    if kind == "bundled":
        name = url_selectbox("Data set", key="atk_data", options=survival_names(), format_func=survival_title)
        d = load_survival(name)
        time, event, unit, horizon, grid_unit = d.time, d.event, d.time_unit, d.horizon, d.default_grid_unit
        labels = tuple(d.event_labels[k] for k in sorted(d.event_labels))
    else:
        upload = _upload("atk_sv_upload", "patient", "A time column and an event column (0 = censored, 1 = event).")
        if upload is None:
            return None
        frame, cols = upload
        c1, c2, c3 = st.columns(3)
        tcol = c1.selectbox("Time column", cols, key="atk_tcol")
        ecol = c2.selectbox("Event column (0 = censored, 1 = event)", cols, index=min(1, len(cols) - 1),
                            key="atk_ecol")
        unit = c3.selectbox("Time unit", list(UNIT_DAYS), key="atk_tunit")
        mapped = sv.survival_from_frame(frame, time_col=tcol, event_col=ecol, n_types=1)
        time, event, labels = mapped.time, mapped.event, mapped.event_labels
        horizon = float(st.number_input(f"Public horizon ({unit})", min_value=0.001, value=365.0 if unit == "days"
                                        else 12.0, key="atk_hor", help="Chosen without looking at the data."))
        grid_unit = unit
    grid = sv.make_grid(horizon, data_unit=unit, grid_unit=grid_unit, max_bins=2_000)
    c1, c2, c3 = st.columns(3)
    with c1:
        index = int(url_number("Patient the attacker does not know (row number)", key="atk_rec", min_value=1,
                               max_value=int(time.size), value=1, step=1)) - 1
    with c2:
        alt_time = float(st.number_input(f"Alternative time ({unit})", min_value=0.0, value=float(0.9 * horizon),
                                         key="atk_alt_t"))
    with c3:
        codes = list(range(len(labels) + 1))
        alt_event = st.selectbox("Alternative status", codes, key="atk_alt_e",
                                 format_func=lambda k: "censored" if k == 0 else f"event: {labels[k - 1]}")
    return attack.survival_pair(time, event, grid, epsilon=epsilon, index=index, alt_time=alt_time,
                                alt_event=int(alt_event), n_types=len(labels), event_labels=labels)


def _regression_pair(epsilon: float) -> attack.NeighbourPair | None:
    kind = url_radio("Regression data", key="atk_src", options=["bundled", "upload"], horizontal=True,
                     format_func=lambda s: {"bundled": f"bundled GDSC (first {GDSC_FEATURES} features)",
                                            "upload": "upload a CSV"}[s])
    if kind == "bundled":
        g = load_gdsc()
        drugs = list(g.ic50.notna().sum().sort_values(ascending=False).index[:20])
        drug = url_selectbox("Drug", key="atk_drug", options=drugs, format_func=g.drug_label)
        X, y = g.drug_data(drug, GDSC_FEATURES)
        x_bounds, y_bounds = (0.0, 1.0), tuple(g.response_range)
    else:
        upload = _upload("atk_rg_upload", "record", "One numeric response column and numeric feature columns.")
        if upload is None:
            return None
        frame, cols = upload
        c1, c2 = st.columns([1, 2])
        resp = c1.selectbox("Response column", cols, key="atk_ycol")
        feats = c2.multiselect("Feature columns", [c for c in cols if c != resp],
                               default=[c for c in cols if c != resp][:3], key="atk_xcols")
        c3, c4, c5, c6 = st.columns(4)
        y_bounds = (float(c3.number_input("Public response minimum", value=-10.0, key="atk_ylo")),
                    float(c4.number_input("Public response maximum", value=13.0, key="atk_yhi")))
        x_bounds = (float(c5.number_input("Public feature minimum", value=0.0, key="atk_xlo")),
                    float(c6.number_input("Public feature maximum", value=1.0, key="atk_xhi")))
        if not (y_bounds[1] > y_bounds[0] and x_bounds[1] > x_bounds[0]):
            raise ValueError("Each public maximum must be larger than its minimum.")
        X, y = R.regression_from_frame(frame, response=resp, features=feats)
    prep = R.prepare(X, y, x_bounds=x_bounds, y_bounds=y_bounds, x_centre="public", y_centre="public",
                     sigma_y="public")
    Xn, yn = prep.transform(X, y)
    c1, c2 = st.columns(2)
    with c1:
        index = int(url_number("Record the attacker does not know (row number)", key="atk_rec", min_value=1,
                               max_value=int(y.size), value=1, step=1)) - 1
    with c2:
        alt_y = float(st.number_input("Alternative response (same features)", value=float(y_bounds[0]),
                                      key="atk_alt_y"))
    st.caption(f"Records are centred at the public midpoints, scaled to unit length and clipped at Bx = σx = "
               f"{prep.sigma_x:.3g}, By = σy = {prep.sigma_y:.3g} (public: range / 6) before the statistics.")
    return attack.regression_pair(Xn, yn, epsilon=epsilon, index=index, alt_x=Xn[index],
                                  alt_y=alt_y - prep.y_centre, bx=prep.sigma_x, by=prep.sigma_y)


@st.cache_resource(show_spinner=False, max_entries=32)
def _scenarios(method: str, epsilon: float) -> list:
    """The registry's synthetic pairs (public inputs only; immutable, so one copy serves every session)."""
    return registry.audit_scenarios(method, epsilon)


def _show(view: attack.AttackView, *, key: str) -> None:
    st.markdown(f"#### {view.headline()}")
    st.markdown("**The scenario.** The attacker knows every record but one and sees the release; they must tell "
                "which of two values the last record has.  \n" + literal(view.neighbours))
    st.markdown("**Without privacy.** " + literal(view.reveal))
    if view.curves:
        st.plotly_chart(nonprivate_figure(view.curves), key=f"{key}_np")
    st.markdown("**With privacy.** " + literal(view.observed()))
    st.plotly_chart(roc_figure(view), key=f"{key}_roc")
    st.caption(
        "Each point is one guessing rule (a threshold on the attacker's statistic): how often it says “A” when the "
        "truth is B (x) and when it is A (y), with a simultaneous "
        f"{view.empirical.confidence:.0%} confidence band. (ε, δ)-DP keeps every rule inside the shaded region; "
        "the diagonal is a coin flip; without noise the attacker sits in the top-left corner."
        + (" The orange line is the same attacker computed exactly." if view.exact is not None else ""))
    teaching("1. The release is simulated many times on A and on B with fresh, seeded noise. 2. For each release the "
             "attacker computes the most informative statistic (the likelihood ratio, or the audit's summary). "
             "3. Every threshold on it is a guessing rule with one true-positive and one false-positive rate. "
             "4. ε bounds how far above the diagonal any rule can get: the best guess is right at most "
             "(e^ε + δ)/(1 + e^ε) of the time.")


@st.fragment
def attacker_section(method: str, epsilon: float) -> None:
    """The full attacker's view on the audit page, for ``method`` at ``epsilon`` (δ and the pair chosen here)."""
    st.subheader("What ε means for one patient: the attacker's view")
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
            with c2:
                delta = _delta_control(0.0)
            pair = _survival_pair(epsilon) if method == "survival" else _regression_pair(epsilon)
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
        st.plotly_chart(bound_figure(epsilon, delta), key=f"attack_bound_{method}")
        set_control("method", method)  # the audit page opens on this method even if it was visited before
        offered = min((d for d in DELTAS if d >= delta), default=DELTAS[-1])  # round δ up: a weaker, true claim
        params = {"method": method, "eps": f"{epsilon:g}", "adelta": f"{offered:g}", LINKED: "1"}
        st.page_link("app_pages/audit.py", label="See the attacker's view with this configuration",
                     icon=":material/visibility:", query_params=params)
