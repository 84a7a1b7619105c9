"""The survival page's views at ε: the headline (private against non-private), the curves over many noise draws,
the groups with their log-rank test, and several releases on one budget.

Each view draws its answer beside ε (``place.answer``), its chart in the figure column (``place.figure``) and its
tables and notes under the first screen (``place.details``); only the open view is computed (``ui.view_switch``).
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import ui
from dpcore import survival as sv
from dpcore.survival import figures as sf
from dpcore.survival import page_text as text
from dpcore.survival import session as ss


@dataclass(frozen=True)
class Place:
    """Where a view draws: the answer line beside ε, the figure column, the details under the first screen (a
    ``ui.details_at_epsilon``: drawn into only while it is open)."""

    answer: object
    figure: object
    details: object


def references(session: ss.Session, grouped: bool = False) -> list:
    """lifelines on the exact times, pooled or per group (non-private: shown beside the private curves, never
    exported). It does not depend on ε, so a session computes it once per data set, grouping and grid."""
    return ui.session_memo("sv_reference_groups" if grouped else "sv_reference", session.reference_key(),
                           lambda: session.references(grouped))


def read_times(session: ss.Session) -> tuple[tuple[float, ...], float]:
    """The times (in the grid's unit) the summary table reads the curve at, and the restricted mean's horizon: public
    choices (``?sv_years=``, ``?sv_tau=``), never read off the data."""
    c1, c2 = st.columns(2)
    with c1:
        years = ui.url_text("Survival at (years, comma-separated)", key="sv_years", value=ss.DEFAULT_YEARS,
                            help=text.YEARS_HELP)
    with c2:
        tau = float(ui.url_number(f"Restricted mean up to ({session.grid.grid_unit})", key="sv_tau", min_value=0.001,
                                  max_value=session.end, value=session.end, help=text.TAU_HELP))
    return session.years_to_times(years), tau


def headline(session: ss.Session, p: ss.Preview, place: Place) -> None:
    """The headline view: the answer, the curves, and what was noised and what the intervals mean."""
    with place.answer:
        (_km_headline if session.settings.estimator == "km" else _other_headline)(session, p, place)
    if not place.details.open:
        return
    with place.details:
        ui.teaching(text.TEACHING[session.settings.risk_set])
        ui.explain(sv.MEASURED_FRONTIER, title="How accurate is the default? (measured)")
        ui.explain(text.intervals_explained(session.n_groups, session.counts.statistic, p.noise),
                   title="What was noised, and what the intervals mean")


def _km_headline(session: ss.Session, p: ss.Preview, place: Place) -> None:
    """The Kaplan–Meier answer: the median of the preview read between edges by the release's rule beside
    lifelines' on the exact times; the curve (drawn from ``survival_at`` on the table a release would export); what
    the grid and the noise cost, survival at chosen times and the restricted mean."""
    s, grid, G = session.settings, session.grid, session.n_groups
    ref = references(session)[0]  # non-private: shown here, never exported
    read = session.km_read_at(p.epsilon)  # each of these is kept for the session's last few ε (``remembered``)
    ui.answer("Median survival" + (", all groups pooled" if G > 1 else ""), read.median,
              sv.describe_read(ref.median, *ref.median_ci, grid.grid_unit))
    with place.figure:
        ui.live_chart(session.remembered(("km figure", p.epsilon), lambda: sf.read_figure(
            read.released, reference=(ref.times, ref.survival), reference_band=(ref.ci_lower, ref.ci_upper),
            binned=(grid.display, session.exact_pooled.estimate[0]), time_label=session.time_label,
            title="all groups pooled" if G > 1 else None, legend=False, at_risk=read.private_table.at_risk[0],
            exact_at_risk=session.exact_table.at_risk[0], min_at_risk=p.minimum, widen=sv.BAND_RULES[s.band_rule],
            resolution=session.read_resolution, height=ui.FIGURE_HEIGHT)), key="sv_headline")
    if not place.details.open:
        return
    binning, noise_cost = session.remembered(("km costs", p.epsilon), lambda: sv.costs(
        grid.display, read.private.estimate[0], session.exact_pooled.estimate[0], ref,
        resolution=session.read_resolution))
    with place.details:
        ui.note(text.km_note(p.minimum, "as the staircase of times declared recorded in whole " + s.whole
                             if s.resolution is not None else "between grid edges"))
        st.markdown(text.step_costs(binning, noise_cost))
        times, tau = read_times(session)
        st.table(session.remembered(("km summary", p.epsilon, times, tau),
                                    lambda: session.km_summary(read, ref, times, tau)))
        st.caption(text.KM_SUMMARY_CAPTION)
        ui.explain(sv.READ_FRONTIER, title="How well does the curve read between edges? (measured)")


def _other_headline(session: ss.Session, p: ss.Preview, place: Place) -> None:
    """The Nelson–Aalen or competing-risk answer: the curve's value at the horizon, private (with its noise-aware
    band) against non-private; the curves in the figure column."""
    private_table, private_pooled, band = session.other_read(p)
    ui.answer(*session.other_answer(private_pooled, band))
    with place.figure:
        ui.live_chart(sf.headline_figure(private_pooled, session.exact_pooled, estimator=session.settings.estimator,
                                         noise_band=band, time_label=session.time_label,
                                         title="all groups pooled" if session.n_groups > 1 else None, legend=False,
                                         at_risk=private_table.at_risk[0],
                                         exact_at_risk=session.exact_table.at_risk[0], min_at_risk=p.minimum,
                                         height=ui.FIGURE_HEIGHT),
                      key="sv_headline")
    if not place.details.open:
        return
    with place.details:
        ui.note(text.other_note(p.minimum))


def over_draws(session: ss.Session, p: ss.Preview, place: Place) -> None:
    """Utility over draws: the slider and the chart beside ε, the table under them."""
    with place.figure:
        draws = int(ui.url_select_slider("Noise draws for the utility panel", key="sv_R", options=ss.DRAW_OPTIONS,
                                         value=200, help=text.DRAWS_HELP, width=ui.CONTROL_WIDTH))
    draw_curves = session.draw_curves(p, draws)
    reference = None
    if session.settings.estimator == "km":  # lifelines on the exact times (non-private, never exported)
        ref = references(session)[0]
        reference = (ref.times, ref.survival)
    with place.figure:
        ui.live_chart(sf.draws_figure(session.exact_pooled.times, draw_curves, session.exact_pooled.estimate[0],
                                      estimator=session.settings.estimator, time_label=session.time_label,
                                      reference=reference, resolution=session.read_resolution),
                      key="sv_draws")
    util = session.utility(p.epsilon, draws)
    summary = ss.utility_summary(util)
    with place.answer:
        ui.answer(f"Largest gap to the non-private curve, {draws} draws", ss.largest_gap(summary))
    if not place.details.open:
        return
    with place.details:
        st.subheader(f"Utility over {draws} noise draws")
        st.table(summary[["measure", "mean [5 %, 95 %]"]].set_index("measure"))
        st.caption(text.utility_caption(session.grid.grid_unit, draws, util.exact_p_value))
        ui.teaching(text.DRAWS_TEACHING)


def groups(session: ss.Session, p: ss.Preview, place: Place) -> None:
    """Groups: the chart beside ε, the differences and the log-rank test under it."""
    src, s = session.src, session.settings
    lr = session.logrank(p)
    with place.figure:
        group_refs = [(r.times, r.survival) for r in references(session, grouped=True)] if s.estimator == "km" else None
        ui.chart(sf.groups_figure(session.curves(p.noisy), session.curves(session.counts), estimator=s.estimator,
                                  time_label=session.time_label, p_private=float(lr.chosen.p_value),
                                  p_exact=float(lr.exact.p_value), at_risk=lr.noisy_table.at_risk,
                                  min_at_risk=p.minimum, group_column=src.group_label, references=group_refs,
                                  resolution=session.read_resolution),
                 key="sv_groups")
    with place.answer:
        ui.answer("Log-rank p-value", f"{float(lr.chosen.p_value):.3g}" + (" (noise-aware)" if s.aware else ""),
                  f"{float(lr.exact.p_value):.3g}", verdict="The decision at α = 0.05 " + (
                      "agrees." if lr.agree else "differs in this draw."))
    if not place.details.open:
        return
    with place.details:
        st.subheader(f"Groups: {ui.literal(src.group_label or 'group')}")
        if s.estimator == "km":
            years = str(ui.kept_value("sv_years", ss.DEFAULT_YEARS))
            tau = float(ui.kept_value("sv_tau", session.end, between=(0.001, session.end)))
            st.table(session.differences(p, session.years_to_times(years), tau))
            st.caption(text.DIFFERENCES_CAPTION)
        st.markdown(lr.sentence())
        ui.teaching(text.LOGRANK_TEACHING)


def several_releases(session: ss.Session, epsilon: float) -> None:
    """Discrete Laplace or Gaussian when several releases share this ε: each noise's plan, measured on these counts
    (preview simulation, on demand: a toggle, off by default)."""
    if not ui.url_toggle("Several releases on one budget: discrete Laplace or Gaussian?", key="sv_plan", value=False,
                         help=text.PLAN_HELP):
        return
    total_delta = float(ui.url_selectbox("Total δ of the planned releases", key="sv_plan_delta",
                                         options=ss.DELTA_OPTIONS, index=1, format_func=lambda d: f"{d:g}"))
    st.table(session.plan_table(epsilon, total_delta))
    st.caption(text.plan_caption(epsilon, total_delta))
    ui.teaching(text.PLAN_TEACHING)
