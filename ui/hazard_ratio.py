"""The survival page's hazard-ratio section: each group's hazard ratio against a reference, released privately.

Thin: controls, :class:`dpcore.survival.DPCoxPHFitter` calls and figures. The section is its own fragment, so its ε
and settings rerun it alone; its release is charged to the same persons as the curves (the ledger composes both).
On an upload it also stratifies by a column and adjusts for declared binary or categorical columns, as a trial
reports its hazard ratio (levels typed by the user, never read off the rows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import streamlit as st

import ui
from dpcore.notebooks import HazardRatioConfig
from dpcore.survival import figures as sf
from dpcore.survival.cox import (METHOD, RARE_EVENTS, WITHIN_REACH, CutPoints, DPCoxPHFitter, cut_at,
                                 default_intervals, group_frame, lifelines_reference, significance_frontier)
from dpcore.survival.hazard_ratio import ESTIMAND
from dpcore.core.validation import InputError, distinct_columns
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
NONE = "(none)"
#: How an adjusting column is declared; a continuous one is cut at public points (the fitter's ``cut_at``).
CODINGS = {"binary": "binary (0, 1)", "categorical": "categorical (declared levels)",
           "continuous": "continuous, cut at public points"}
MAX_ADJUST = 3
CONTINUOUS_HELP = ("A continuous column (age, a lab value) is cut at public points, as the protocol or clinical "
                   "convention fixes them (age 40 and 65), never read off the file: each interval gets its own "
                   "hazard ratio against the lowest. Measured on three cohorts (docs/cox.md): four such covariates in "
                   "a 1,151-person trial keep a strong treatment effect significant in every release at ε = 2.")


@dataclass(frozen=True)
class Declared:
    """The fit's public design beyond the groups: ``strata`` (column, levels) or None; ``covariates`` (column,
    ``(0, 1)`` or the levels, reference first, or a continuous column's :class:`CutPoints`; those last)."""

    strata: tuple[str, tuple[str, ...]] | None = None
    covariates: tuple[tuple[str, tuple], ...] = ()

    def columns(self) -> list[str]:
        """The upload's columns the fit reads besides time, event and group."""
        return [name for name, _ in self.covariates] + ([self.strata[0]] if self.strata else [])

    def cells(self) -> int:
        """Strata × covariate cells, for the public default of the intervals."""
        return len(self.strata[1] if self.strata else (0,)) * math.prod(
            len(b.points) + 1 if isinstance(b, CutPoints) else len(b) for _, b in self.covariates)


@st.fragment
def hazard_ratio_section(src, *, horizon: float, records, upload_columns: dict | None = None) -> None:
    """Hazard ratios of the page's declared groups (``src``: the page's data source), preview and release.

    ``upload_columns``: how an upload's columns map to the roles (the survival notebook's fields), for this
    section's notebook and its strata and covariates (read from ``src.frame``, the upload held in this session);
    without it an upload's section fits the groups alone and offers no notebook (bundled data need none).
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
    adjustable = not src.bundled and upload_columns is not None and src.frame is not None
    declared = _declare(src.frame) if adjustable else Declared()
    if declared is None:
        return
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
        suggested = default_intervals(epsilon, share, n=len(src.time), cells=len(groups) * declared.cells())
        ui.follow_default("hr_k", suggested)
        intervals = int(ui.url_select_slider(
            "Public intervals", key="hr_k", options=INTERVAL_OPTIONS, value=suggested,
            help=f"{INTERVALS_HELP} The public rule (from n, ε, the number of groups and cells and the declared "
                 f"share, never the event times) gives {suggested} here."))
    levels = (reference, *(g for g in groups if g != reference))
    names = (upload_columns["time_col"], upload_columns["event_col"], src.group_label) if adjustable else \
        ("T", "E", "group")  # an upload's own names: its columns are named in the coefficients and the errors
    fitter = None
    with ui.show_errors("Cannot fit the hazard ratio"):
        distinct_columns(*names, *declared.columns())
        df = group_frame(src.time, src.event, src.group,
                         src.frame[declared.columns()] if declared.columns() else None, names=names)
        spec = {"bounds": {names[2]: levels, **dict(declared.covariates)}, "horizon": float(horizon),
                "intervals": intervals, "strata": None if declared.strata is None else dict([declared.strata])}
        fitter = DPCoxPHFitter(epsilon=epsilon, **spec).fit(  # None unless it fits (a refused row stops here)
            df, names[0], names[1], rng=np.random.default_rng(int(ui.held("sv_seed", 0))))
    if fitter is None:
        return
    private = fitter.summary
    setting = (src.content, names, levels, declared, float(horizon), intervals)  # all the ε-independent work reads
    nonprivate = ui.session_memo("hr_reference", setting, lambda: lifelines_reference(df, names[0], names[1], fitter))
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
               "rows cut at the horizon, with the same covariates and strata (non-private, Efron ties, never "
               "exported). Events of any type count; people with a missing covariate or stratum are left out of "
               "both fits (complete cases), and n counts everyone.")
    table = pd.concat({"private": private[["exp(coef)", "exp(coef) lower 95%", "exp(coef) upper 95%", "p",
                                           "se sampling", "se privacy"]],
                       "lifelines (non-private)": nonprivate[["exp(coef)", "exp(coef) lower 95%",
                                                               "exp(coef) upper 95%", "p"]]}, axis=1)
    st.dataframe(table.round(3))

    check = None if declared.covariates else fitter.proportional_hazards_check(rng=np.random.default_rng(1))
    if check is None:
        st.caption("The per-interval check of proportional hazards reads the groups alone: it is shown without "
                   "covariates (strata are kept).")
    if check is not None and intervals >= 2 and not check.trend.empty:
        ui.chart(sf.per_interval_figure(check.per_interval, time_label=f"time ({src.time_unit})",
                                        title="Proportional hazards? The ratio in each interval"), key="hr_ph")
        trend = check.trend.iloc[0]
        st.caption(f"Trend of the log hazard ratio over time (weighted least squares over the intervals, from the "
                   f"same released counts): z = {trend['z']:.2f}, p = {trend['p']:.2g}. A small p says the hazards "
                   "are not proportional: one ratio then averages a ratio that changes.")

    many = fitter.simulate(df, names[0], names[1], draws=UTILITY_DRAWS, rng=np.random.default_rng(7), redraws=REDRAWS)
    diff = np.abs(many.coef[:, 0] - nonprivate.iloc[0]["coef"])
    st.markdown(f"**Over {UTILITY_DRAWS} preview releases at ε = {epsilon:g}:** median |Δ log HR| of "
                f"{ui.literal(first)} against lifelines "
                f"{np.median(diff):.3f} ({np.median(diff) / nonprivate.iloc[0]['se(coef)']:.2f} of its standard "
                f"error); significant at 5 % in {np.mean(many.p_value[:, 0] < 0.05):.0%} of releases (lifelines: "
                f"p = {nonprivate.iloc[0]['p']:.2g}).")
    grouped = ui.session_memo("hr_grouped", setting, lambda: fitter.grouped_reference(df, names[0], names[1]))
    bias = float(grouped[0] - nonprivate.iloc[0]["coef"])
    st.markdown(f"**Where the curve levels off:** the grouped model on the exact counts, with no noise, gives log HR "
                f"{grouped[0]:.3f} against lifelines' {nonprivate.iloc[0]['coef']:.3f}: a grouping bias of "
                f"{bias:+.3f} ({abs(bias) / nonprivate.iloc[0]['se(coef)']:.2f} standard errors), which no budget "
                f"removes. As ε grows the private estimate approaches the grouped model; more public intervals "
                f"shrink the bias and add noise.")
    curve, shares = ui.session_memo("hr_curve", setting, lambda: _utility_curve(df, names, spec,
                                                                                 float(nonprivate.iloc[0]["coef"])))
    ui.chart(sf.hazard_ratio_utility_figure(curve, chosen=epsilon,
                                            title="Hazard ratio: privacy–utility trade-off"), key="hr_curve")
    frontier = significance_frontier(shares)
    reach = frontier.map(lambda e: f"not within ε ≤ {max(CURVE_EPSILONS):g}" if np.isnan(e) else f"{e:g}")
    st.dataframe(pd.DataFrame({frontier.name: reach, "lifelines' p (non-private)":
                               nonprivate["p"].reindex(frontier.index).map("{:.2g}".format)}), key="hr_frontier")
    st.caption(f"The frontier: for each effect, the smallest ε of {', '.join(f'{e:g}' for e in CURVE_EPSILONS)} from "
               f"which it stays significant in at least {WITHIN_REACH:.0%} of {CURVE_DRAWS} preview releases (with the "
               "honest interval). Effects near the significance line need far more people or ε than strong ones.")
    ui.teaching("1. The hazard ratio compares how fast events happen in one group against the reference, at every "
                "time (Cox's model assumes the ratio stays the same). 2. The release noises one table: per group "
                "and public interval, the events and the censorings. 3. The ratio is fitted to that table; its "
                "interval adds the sampling error and the known noise, so a significant result survives both.")
    ui.explain(f"**Estimand.** {ESTIMAND}\n\n**What is released.** {fitter.notes()[0]}\n\n**Budget.** This is a "
               "release of its own, charged to the same persons as the curves above: the ledger adds both (and the "
               "tight accounting composes them), so split the budget between them.",
               title="What the hazard ratio estimates, and what it costs")
    config = _notebook_config(src, upload_columns, levels=levels, horizon=float(horizon), intervals=intervals,
                              epsilon=epsilon, seed=int(ui.held("sv_seed", 0)),
                              strata=declared.strata, covariates=declared.covariates)
    if config is not None:
        code_downloads(config)
    ui.release_panel(
        key="hazard_ratio", dataset_label=src.label, fingerprint=src.fp, persons=src.persons, records=records,
        method=METHOD, epsilon=epsilon, params=fitter.public_params(),
        make_bundle=lambda: _released(DPCoxPHFitter(epsilon=epsilon, **spec).fit(df, names[0], names[1]), src,
                                      group_name, config))


def _declare(frame: pd.DataFrame) -> Declared | None:
    """An upload's strata and adjusting columns with their levels as the user types them (public, like the group
    labels: never read off the file); None, with a note, while a chosen column's levels are still to be declared."""
    columns = list(frame.columns)
    left, right = st.columns(2)
    with left:
        stratum = ui.url_selectbox(
            "Stratify by (optional)", key="hr_strata", options=[NONE, *columns],
            help="Each stratum gets its own baseline hazard (lifelines' strata=), as a trial stratified by site or "
                 "by a prognostic factor reports it; one hazard ratio is shared by all strata.")
    with right:
        adjust = ui.url_multiselect(
            f"Adjust for (optional, up to {MAX_ADJUST})", key="hr_adjust", options=columns,
            max_selections=MAX_ADJUST,
            help="Declared binary (0, 1) or categorical columns, each with its own hazard ratio beside the groups'. "
                 + CONTINUOUS_HELP)
    missing, strata, covariates = [], None, []
    if stratum != NONE:
        strata = (stratum, _typed(f"Strata in {ui.literal(repr(stratum))} (public: as the design fixes them, "
                                  "comma-separated)", f"hr_strata_levels:{stratum}", "e.g. site A, site B"))
        missing += [stratum] if not strata[1] else []
    for column in adjust:
        coding_col, levels_col = st.columns([1, 2])
        coding = coding_col.selectbox(f"{ui.literal(repr(column))} is", options=list(CODINGS), key=f"hr_coding:{column}",
                                      format_func=CODINGS.get, help=CONTINUOUS_HELP)
        with levels_col:
            if coding == "binary":
                st.caption(f"{ui.literal(repr(column))}: 0 or 1 (values outside are clipped into the bounds).")
                covariates.append((column, (0, 1)))
            elif coding == "categorical":
                levels = _typed(f"Levels of {ui.literal(repr(column))} (public, the reference first, comma-separated)",
                                f"hr_levels:{column}", "e.g. I, II, III")
                covariates.append((column, levels))
                missing += [column] if len(levels) < 2 else []
            else:
                typed = _typed(f"Public cut points of {ui.literal(repr(column))} (increasing, comma-separated)",
                               f"hr_cuts:{column}", "e.g. 40, 65")
                cuts = None
                if typed:
                    with ui.show_errors(f"Cannot cut {column!r} there"):
                        if not all(_is_number(v) for v in typed):
                            raise InputError(f"The cut points of {column!r} must be numbers; got {', '.join(typed)}.")
                        cuts = cut_at(*(float(v) for v in typed))
                if cuts is None:
                    missing.append(column)
                else:
                    covariates.append((column, cuts))
    if missing:
        st.info(ui.literal(f"Declare the levels (or cut points) of {', '.join(map(repr, missing))} (as the "
                           "study design fixes them) "
                           "to stratify or adjust by them."), icon=":material/info:")
        return None
    said = [f"strata {strata[0]!r}: {', '.join(strata[1])}"] if strata else []
    covariates.sort(key=lambda item: isinstance(item[1], CutPoints))  # cut ones last, as the notebook declares them
    said += [f"{name!r}: " + ("cut at " + ", ".join(f"{p:g}" for p in b.points) if isinstance(b, CutPoints) else
                              "binary (0, 1)" if b == (0, 1) else ", ".join(map(str, b))) for name, b in covariates]
    if said:
        st.caption(ui.literal("Declared: " + "; ".join(said)))
    return Declared(strata, tuple(covariates))


def _typed(label: str, key: str, placeholder: str) -> tuple[str, ...]:
    """Comma-separated labels as typed (stripped, in order, without repeats)."""
    text = st.text_input(label, key=key, placeholder=placeholder)
    return tuple(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _notebook_config(src, upload_columns: dict | None, **settings) -> HazardRatioConfig | None:
    """The section's public settings as a notebook configuration: the bundled set's name (the page's data-set
    choice), or the upload's column mapping; None for an upload whose mapping the page did not pass."""
    if src.bundled:
        return HazardRatioConfig(dataset=ui.held("sv_data"), **settings,
                                 utility_draws=UTILITY_DRAWS, redraws=REDRAWS)
    if upload_columns is None:
        return None
    return HazardRatioConfig(dataset=None, **settings, utility_draws=UTILITY_DRAWS, redraws=REDRAWS,
                             **upload_columns)


def _utility_curve(df: pd.DataFrame, names, spec: dict, reference: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """|Δ log HR| of the primary coefficient against lifelines and the share significant over previews at each ε,
    and every coefficient's share significant (ε by coefficient, for the frontier); independent of the ε chosen, so
    kept while only ε moves."""
    rows, shares = [], {}
    for eps in CURVE_EPSILONS:
        at = DPCoxPHFitter(epsilon=eps, **spec)
        fit = at.simulate(df, names[0], names[1], draws=CURVE_DRAWS, rng=np.random.default_rng(11), redraws=REDRAWS)
        d = np.abs(fit.coef[:, 0] - reference)
        rows.append({"epsilon": eps, "median_abs_diff": np.median(d), "q90_abs_diff": np.quantile(d, 0.9),
                     "share_significant": np.mean(fit.p_value[:, 0] < 0.05)})
        shares[eps] = np.mean(fit.p_value < 0.05, axis=0)
    return pd.DataFrame(rows), pd.DataFrame.from_dict(shares, orient="index", columns=list(at.design.names()))


def _released(fitter: DPCoxPHFitter, src, group_name: str, config: HazardRatioConfig | None):
    """The release's bundle with its forest plot drawn from the released table alone (exports draw it), and the
    script of its configuration where there is one."""
    bundle = fitter.release_bundle(dataset=src.label, fingerprint=src.fp)
    private = bundle.tables["hazard_ratios"].set_index("covariate")
    figure = sf.forest_figure(private, epsilon=fitter.epsilon, title=f"Hazard ratio ({group_name}), released")
    bundle = replace(bundle, figures={"hazard_ratio_forest": figure})
    return bundle if config is None else release_with_script(bundle, config)

