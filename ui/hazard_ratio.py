"""The survival page's hazard-ratio section: each group's hazard ratio against a reference, released privately.

Thin: controls, :class:`dpcore.survival.DPCoxPHFitter` calls and figures. The section is its own fragment, so its ε
and settings rerun it alone; its release is charged to the same persons as the curves (the ledger composes both).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

import ui
from dpcore.notebooks import HazardRatioConfig
from dpcore.survival import figures as sf
from dpcore.survival.cox import (METHOD, RARE_EVENTS, DPCoxPHFitter, default_intervals, group_frame,
                                 lifelines_reference)
from dpcore.survival.hazard_ratio import ESTIMAND
from ui.exports import code_downloads, release_with_script  # notebook, script

#: Public interval counts offered (measured in bench/results/cox.md: one where events are rare, more where common).
INTERVAL_OPTIONS = (1, 2, 4, 8, 16, 32)
#: ε values of the privacy–utility curve, and the previews per point (each with its own honest interval).
CURVE_EPSILONS = (0.5, 1.0, 2.0, 5.0, 10.0)
#: Expected shares of people with an event a protocol states (public: never read off the rows); None: not declared.
EVENT_SHARES = (None, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9)
CURVE_DRAWS = 60
UTILITY_DRAWS = 100
REDRAWS = 50
INTERVALS_HELP = (
    "Public cut points: the horizon split into equal intervals, each with its own baseline hazard. More intervals "
    "bring the estimate closer to Cox's hazard ratio where events are common (lung, 72 % events: −0.32 with one, "
    "−0.49 with eight, Cox −0.53) but add noise: every interval is two more noisy counts per group. Measured: with "
    "few events (a 1,151-person trial, 8 %) one interval is best at ε = 1; with ≥ 40 % events choose 2–4, and "
    "with long follow-up and common events more (democracy durations, 81 % over 45 years: 16 at ε = 2).")


@st.fragment
def hazard_ratio_section(src, *, horizon: float, records, upload_columns: dict | None = None) -> None:
    """Hazard ratios of the page's declared groups (``src``: the page's data source), preview and release.

    ``upload_columns``: how an upload's columns map to the roles (the survival notebook's fields), for this
    section's notebook; without it an upload's section offers no notebook (bundled data need none).
    """
    st.header("Hazard ratio (Cox)")
    if src.group is None or not src.groups or len(src.groups) < 2:
        st.info("Choose a data set with declared groups to compare their hazards.", icon=":material/info:")
        return
    if not ui.url_toggle("Estimate each group's hazard ratio", key="hr_on", value=False,
                         help="A release of its own (its own ε), charged to the same persons as the curves. Off, "
                              "nothing of it is computed, so the page stays quick."):
        return
    groups = tuple(src.groups)
    c1, c2, c3, c4 = st.columns(4)
    with c1:
        epsilon = ui.epsilon_slider("Privacy budget ε of the hazard ratio", key="hr_eps", default=1.0)
    with c2:
        reference = ui.url_selectbox("Reference group", key="hr_ref", options=groups,
                                     format_func=lambda g: str(g))
    with c3:
        share = ui.url_selectbox(
            "Expected share with an event", key="hr_share", options=EVENT_SHARES,
            format_func=lambda s: "not declared" if s is None else f"{s:.0%}",
            help="As the trial's protocol or sample-size calculation states it, never read off the rows. It sets the "
                 "default number of intervals: one where events are rare (below "
                 f"{RARE_EVENTS:.0%}), more where they are common. Not declared, the rule assumes half.")
    with c4:
        suggested = default_intervals(epsilon, share, n=len(src.time), cells=len(groups))
        ui.follow_default("hr_k", suggested)
        intervals = int(ui.url_select_slider(
            "Public intervals", key="hr_k", options=INTERVAL_OPTIONS, value=suggested,
            help=f"{INTERVALS_HELP} The public rule (from n, ε, the number of groups and the declared share, never "
                 f"the event times) gives {suggested} here."))
    levels = (reference, *(g for g in groups if g != reference))
    df = group_frame(src.time, src.event, src.group)
    fitter = None
    with ui.show_errors("Cannot fit the hazard ratio"):
        fitter = DPCoxPHFitter(epsilon=epsilon, bounds={"group": levels}, horizon=horizon, intervals=intervals)
        fitter.fit(df, "T", "E", rng=np.random.default_rng(int(st.session_state.get("sv_seed", 0))))
    if fitter is None:
        return
    private = fitter.summary
    setting = (src.content, levels, float(horizon), intervals)  # what the ε-independent work depends on
    nonprivate = ui.session_memo("hr_reference", setting, lambda: lifelines_reference(df, "T", "E", fitter))
    group_name = src.group_label or "group"
    first = private.index[0]
    ui.answer(f"Hazard ratio, {first} (95 % CI)",
              f"{private.loc[first, 'exp(coef)']:.2f} ({private.loc[first, 'exp(coef) lower 95%']:.2f} to "
              f"{private.loc[first, 'exp(coef) upper 95%']:.2f}), p = {private.loc[first, 'p']:.2g}",
              f"{nonprivate.loc[first, 'exp(coef)']:.2f} ({nonprivate.loc[first, 'exp(coef) lower 95%']:.2f} to "
              f"{nonprivate.loc[first, 'exp(coef) upper 95%']:.2f}), p = {nonprivate.loc[first, 'p']:.2g}")
    ui.chart(sf.forest_figure(private, nonprivate, epsilon=epsilon,
                              title=f"Hazard ratio against {reference} ({group_name})"), key="hr_forest")
    st.caption("Preview of one release (seeded; nothing charged). Blue: the private hazard ratio with the interval a "
               "release reports (sampling and privacy noise together); grey: lifelines' CoxPHFitter on the same "
               "rows cut at the horizon (non-private, Efron ties, never exported). Events of any type count.")
    table = pd.concat({"private": private[["exp(coef)", "exp(coef) lower 95%", "exp(coef) upper 95%", "p",
                                           "se sampling", "se privacy"]],
                       "lifelines (non-private)": nonprivate[["exp(coef)", "exp(coef) lower 95%",
                                                               "exp(coef) upper 95%", "p"]]}, axis=1)
    st.dataframe(table.round(3))

    check = fitter.proportional_hazards_check(rng=np.random.default_rng(1))
    if intervals >= 2 and not check.trend.empty:
        ui.chart(sf.per_interval_figure(check.per_interval, time_label=f"time ({src.time_unit})",
                                        title="Proportional hazards? The ratio in each interval"), key="hr_ph")
        trend = check.trend.iloc[0]
        st.caption(f"Trend of the log hazard ratio over time (weighted least squares over the intervals, from the "
                   f"same released counts): z = {trend['z']:.2f}, p = {trend['p']:.2g}. A small p says the hazards "
                   "are not proportional: one ratio then averages a ratio that changes.")

    many = fitter.simulate(df, "T", "E", draws=UTILITY_DRAWS, rng=np.random.default_rng(7), redraws=REDRAWS)
    diff = np.abs(many.coef[:, 0] - nonprivate.iloc[0]["coef"])
    st.markdown(f"**Over {UTILITY_DRAWS} preview releases at ε = {epsilon:g}:** median |Δ log HR| against lifelines "
                f"{np.median(diff):.3f} ({np.median(diff) / nonprivate.iloc[0]['se(coef)']:.2f} of its standard "
                f"error); significant at 5 % in {np.mean(many.p_value[:, 0] < 0.05):.0%} of releases (lifelines: "
                f"p = {nonprivate.iloc[0]['p']:.2g}).")
    curve = ui.session_memo("hr_curve", setting, lambda: _utility_curve(df, levels, horizon, intervals,
                                                                         float(nonprivate.iloc[0]["coef"])))
    ui.chart(sf.hazard_ratio_utility_figure(curve, chosen=epsilon,
                                            title="Hazard ratio: privacy–utility trade-off"), key="hr_curve")
    ui.teaching("1. The hazard ratio compares how fast events happen in one group against the reference, at every "
                "time (Cox's model assumes the ratio stays the same). 2. The release noises one table: per group "
                "and public interval, the events and the censorings. 3. The ratio is fitted to that table; its "
                "interval adds the sampling error and the known noise, so a significant result survives both.")
    ui.explain(f"**Estimand.** {ESTIMAND}\n\n**What is released.** {fitter.notes()[0]}\n\n**Budget.** This is a "
               "release of its own, charged to the same persons as the curves above: the ledger adds both (and the "
               "tight accounting composes them), so split the budget between them.",
               title="What the hazard ratio estimates, and what it costs")
    config = _notebook_config(src, upload_columns, levels=levels, horizon=float(horizon), intervals=intervals,
                              epsilon=epsilon, seed=int(st.session_state.get("sv_seed", 0)))
    if config is not None:
        code_downloads(config)
    ui.release_panel(
        key="hazard_ratio", dataset_label=src.label, fingerprint=src.fp, persons=src.persons, records=records,
        method=METHOD, epsilon=epsilon, params=fitter.public_params(),
        make_bundle=lambda: _released(DPCoxPHFitter(epsilon=epsilon, bounds={"group": levels}, horizon=horizon,
                                                    intervals=intervals).fit(df, "T", "E"), src, group_name,
                                      config))


def _notebook_config(src, upload_columns: dict | None, **settings) -> HazardRatioConfig | None:
    """The section's public settings as a notebook configuration: the bundled set's name (the page's data-set
    choice), or the upload's column mapping; None for an upload whose mapping the page did not pass."""
    if src.bundled:
        return HazardRatioConfig(dataset=st.session_state.get("sv_data"), **settings,
                                 utility_draws=UTILITY_DRAWS, redraws=REDRAWS)
    if upload_columns is None:
        return None
    return HazardRatioConfig(dataset=None, **settings, utility_draws=UTILITY_DRAWS, redraws=REDRAWS,
                             **upload_columns)


def _utility_curve(df: pd.DataFrame, levels, horizon: float, intervals: int, reference: float) -> pd.DataFrame:
    """|Δ log HR| against lifelines and the share significant over previews at each ε (does not depend on the ε
    chosen: kept while only ε moves)."""
    rows = []
    for eps in CURVE_EPSILONS:
        at = DPCoxPHFitter(epsilon=eps, bounds={"group": levels}, horizon=horizon, intervals=intervals)
        fit = at.simulate(df, "T", "E", draws=CURVE_DRAWS, rng=np.random.default_rng(11), redraws=REDRAWS)
        d = np.abs(fit.coef[:, 0] - reference)
        rows.append({"epsilon": eps, "median_abs_diff": np.median(d), "q90_abs_diff": np.quantile(d, 0.9),
                     "share_significant": np.mean(fit.p_value[:, 0] < 0.05)})
    return pd.DataFrame(rows)


def _released(fitter: DPCoxPHFitter, src, group_name: str, config: HazardRatioConfig | None):
    """The release's bundle with its forest plot drawn from the released table alone (exports draw it), and the
    script of its configuration where there is one."""
    bundle = fitter.release_bundle(dataset=src.label, fingerprint=src.fp)
    private = bundle.tables["hazard_ratios"].set_index("covariate")
    figure = sf.forest_figure(private, epsilon=fitter.epsilon, title=f"Hazard ratio ({group_name}), released")
    bundle = replace(bundle, figures={"hazard_ratio_forest": figure})
    return bundle if config is None else release_with_script(bundle, config)

