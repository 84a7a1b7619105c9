"""Which figures go with a release: the report layer's mapping from a release's method to its figure builders.

A method's ``release`` returns data only (a :class:`dpcore.reporting.release.ReleaseBundle`: tables, public
parameters, notes). The export layer (:mod:`dpcore.reporting.report`, and through it the ZIP of
:meth:`~dpcore.reporting.release.ReleaseBundle.to_zip`) asks :func:`figures_for` which figures to draw; each
builder reads only the bundle's released tables and public parameters, so a figure can never show
more than the release. Figures a caller built itself and passed in ``ReleaseBundle.figures`` come
after these.

This module depends only on the shared figure helpers (:mod:`dpcore.reporting.figures`), never on a method
package: the bundle module imports the report, so a method package here would be an import cycle.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.reporting.figures import (
    PALETTE,
    PRIVATE,
    TRUTH,
    add_numbers_at_risk,
    add_trace,
    annotate,
    band,
    base_layout,
    coefficient_figure,
    curve,
    new_spec,
    no_discoveries,
    plot_text,
    relayout,
    series_marks,
    split_reliable,
    to_figure,
    vline,
)

KM_TITLE = "survival probability S(t)"
#: what a released regression coefficient is per: one unit of the feature after the release's public preparation
REGRESSION_AXIS = "coefficient per unit of the feature (centred, divided by half its public range)"


def survival_release_figure(km_table: pd.DataFrame, grid_unit: str, at_risk: pd.DataFrame | None = None, *,
                            value: str = "survival", y_title: str = KM_TITLE, what: str = "Kaplan–Meier",
                            group_column: str | None = None, min_at_risk: float | None = None,
                            subtitle: str = "", curve_table: pd.DataFrame | None = None) -> go.Figure:
    """DP-only figure of a released curve table (Kaplan–Meier by default; Nelson–Aalen, incidence via ``value``):
    each group's curve with its released 95 % interval (noise and sampling), the (noisy) numbers at risk under
    it, as clinical papers print them. Where the table's ``reliable`` is False (the noisy number at risk fell
    below the release's public minimum) the curve is faded and dotted, with a note: the table keeps the values.
    Legends name the group column (``sex = 1: DP Kaplan–Meier``). With ``curve_table`` (the release's curve read
    between edges by its within-bin rule, ``dpcore.survival.survival_at``) the curve and band are drawn from it, as
    the page draws them, with dots at the released edge values; without, as steps between edges."""
    fig = new_spec()
    rows, faded_any = [], False
    for g, (name, part) in enumerate(km_table.groupby("group", sort=False)):
        label = plot_text(name if group_column is None or name == "all" else f"{group_column} = {name}")
        colour = PALETTE[g % len(PALETTE)]
        drawn, step = part, True
        if curve_table is not None:  # between edges by the release's rule; reliable where its bin's edge is
            drawn, step = _read_between_edges(curve_table[curve_table["group"] == name], part), False
        band(fig, drawn["time"], drawn["ci_lower"], drawn["ci_upper"],
             name=f"{label}: 95 % interval (noise + sampling)", colour=colour, alpha=0.18, step=step)
        reliable = drawn["reliable"].to_numpy(bool) if "reliable" in drawn else np.ones(len(drawn), bool)
        solid, faded = split_reliable(drawn[value], reliable)
        marks = series_marks(g, colour=colour)  # groups differ in marker shape, not in colour alone
        curve(fig, drawn["time"], solid, name=f"{label}: DP {what}", colour=colour, step=step, **marks)
        if curve_table is not None:
            add_trace(fig, dict(type="scatter", x=part["time"], y=part[value], mode="markers", showlegend=False,
                                name=f"{label}: released edge values",
                                marker=dict(size=5, color=colour, symbol=marks["marker"]["symbol"])))
        if not reliable.all():
            faded_any = True
            curve(fig, drawn["time"], faded, name=f"{label}: few at risk (noise-dominated)", colour=colour,
                  step=step, dash="dot", width=1.2, opacity=0.45)
        if at_risk is not None:
            mine = at_risk[at_risk["group"].astype(str) == str(part["group"].iloc[0])]
            rows.append((label, mine["at_risk"].to_numpy(), colour))
    title = f"Differentially private {what} (released)" + (f"<br>{subtitle}" if subtitle else "")  # its own line
    base_layout(fig, title=title, x_title=f"time ({grid_unit})",
                y_title=y_title)
    if faded_any:
        minimum = f" {min_at_risk:.3g}" if min_at_risk is not None else " the public minimum"
        annotate(fig, text=f"dotted: fewer than{minimum} people at risk (noisy count): noise, not signal",
                 xref="paper", yref="paper", x=1, y=0.02, showarrow=False, xanchor="right", yanchor="bottom",
                 font=dict(size=11), bgcolor="rgba(255,255,255,0.7)")
    bottom, left = 80, 80
    if rows and len(rows[0][1]):
        edges = np.r_[at_risk["time"].to_numpy()[: len(rows[0][1])], np.inf]
        bottom, left = add_numbers_at_risk(fig, edges, rows, heading="Number at risk (noisy, released)")
    if value != "cumulative_hazard":
        relayout(fig, yaxis=dict(range=[-0.02, 1.02]))
    relayout(fig, margin=dict(t=110 + (24 if subtitle else 0), b=bottom, l=left), legend=dict(y=1.04),
             height=460 + bottom)
    return to_figure(fig)


def _read_between_edges(curve: pd.DataFrame, edges: pd.DataFrame) -> pd.DataFrame:
    """The curve table with each point's reliability taken from the released edge at or before it."""
    if "reliable" not in edges:
        return curve
    marks = edges[["time", "reliable"]].sort_values("time")
    return pd.merge_asof(curve.sort_values("time"), marks, on="time", direction="backward")


def fdr_release_figure(rejected: np.ndarray, alpha_t: np.ndarray, *, title: str = "Released discoveries") -> go.Figure:
    """The released values only: the test level α_t over the stream (log scale) and the discoveries.

    For the release report; with the paper rule α_t is a function of earlier released decisions.
    """
    rejected = np.asarray(rejected, dtype=bool)
    alpha_t = np.asarray(alpha_t, dtype=float)
    t = np.arange(1, alpha_t.size + 1)
    fig = new_spec()
    add_trace(fig, dict(type="scatter", x=t, y=alpha_t, mode="lines", name="test level α_t",
                        line=dict(color=PRIVATE, width=2)))
    add_trace(fig, dict(type="scatter", x=t[rejected], y=alpha_t[rejected], mode="markers",
                        name=f"discoveries ({rejected.sum()})",
                        marker=dict(size=9, color=TRUTH, symbol="diamond", line=dict(width=1, color="white"))))
    if not rejected.any():
        no_discoveries(fig, rejected.size)
    base_layout(fig, title=title, x_title="hypothesis t (stream order)", y_title="α_t (log scale)", height=360)
    relayout(fig, yaxis=dict(type="log", dtick=1, exponentformat="power"))  # 10⁻⁴, not "100μ" and stray digits
    return to_figure(fig)


def _survival(bundle) -> dict[str, go.Figure]:
    """Every released curve: Kaplan–Meier per group (and pooled), Nelson–Aalen, cumulative incidence."""
    tables, params = bundle.tables, bundle.public_params
    common = dict(group_column=params.get("group_column"), min_at_risk=params.get("min_at_risk"))
    unit, at_risk = params["grid_unit"], tables.get("numbers_at_risk")
    lr = tables.get("logrank")
    subtitle = f"log-rank p = {float(lr['p_value'].iloc[0]):.3g} (noise-aware)" if lr is not None else ""
    figs = {"Kaplan–Meier (DP)": survival_release_figure(tables["kaplan_meier"], unit, at_risk, subtitle=subtitle,
                                                         curve_table=tables.get("kaplan_meier_curve"), **common)}
    if "kaplan_meier_pooled" in tables:
        figs["Kaplan–Meier, groups pooled (DP)"] = survival_release_figure(
            tables["kaplan_meier_pooled"], unit, what="Kaplan–Meier, all groups pooled", **common)
    figs["Nelson–Aalen (DP)"] = survival_release_figure(
        tables["nelson_aalen"], unit, value="cumulative_hazard", y_title="cumulative hazard H(t)",
        what="Nelson–Aalen", **common)
    if "cumulative_incidence" in tables:
        for ev, part in tables["cumulative_incidence"].groupby("event_type", sort=False):
            figs[f"Cumulative incidence, {plot_text(ev)} (DP)"] = survival_release_figure(
                part, unit, value="incidence", y_title="cumulative incidence F(t)",
                what=f"cumulative incidence of {plot_text(ev)}", **common)
    return figs


def _paprika(bundle) -> dict[str, go.Figure]:
    table = bundle.tables["rejections"]
    return {"Released discoveries and test levels": fdr_release_figure(
        table["rejected"].to_numpy().astype(bool), table["alpha_t"].to_numpy(),
        title=f"{bundle.method}: released discoveries and test levels α_t")}


#: the column of a regression release's coefficients table that holds each coefficient's spread, and what it is
_SPREADS = {"posterior_sd": "posterior SD", "noise_sd": "SD of the DP noise"}


def _regression(bundle) -> dict[str, go.Figure]:
    """The released coefficients with ±2 of their released standard deviations, one row per feature.

    A predicted-vs-observed plot would need the private records' responses (not in a release, and not DP), so the
    paper figure of a release is its coefficients: DP values and their post-processed spread only. The intercept
    (in the response's units, the others per prepared feature) stays in the table.
    """
    table = bundle.tables["coefficients"]
    sd_column = next(c for c in _SPREADS if c in table)
    rows = table[table["feature"] != "(intercept)"].iloc[::-1]  # the first feature on top
    names = [plot_text(n) for n in rows["feature"]]
    sd = rows[sd_column].to_numpy(dtype=float)
    fig = new_spec()
    add_trace(fig, dict(type="scatter", x=rows["coefficient"].to_numpy(dtype=float), y=names, mode="markers",
                        name=f"released coefficient ± 2 {_SPREADS[sd_column]}", marker=dict(color=PRIVATE, size=8),
                        error_x=dict(type="data", array=2 * sd, color=PRIVATE, thickness=1.5, width=4),
                        customdata=2 * sd, hovertemplate="%{y}: %{x:.3g} ± %{customdata:.3g}<extra></extra>"))
    vline(fig, 0.0, dict(color="#999", width=1))
    base_layout(fig, title=f"{bundle.method}: released coefficients", x_title=REGRESSION_AXIS,
                height=140 + 22 * len(names))
    relayout(fig, hovermode="closest", showlegend=True, yaxis=dict(type="category", automargin=True),
             legend=dict(y=1.02, yanchor="bottom"))
    return {"Released coefficients": to_figure(fig)}


def _sparse_peeling(bundle) -> dict[str, go.Figure]:
    """The peeled support and its released coefficients as stems over the public d features (no intercept)."""
    table = bundle.tables["coefficients"]
    table = table[table["index"] >= 0]
    d = int(bundle.public_params["d"])
    coef, names = np.zeros(d), [f"x{j + 1}" for j in range(d)]  # only the released support is drawn
    for j, name, value in zip(table["index"].astype(int), table["feature"], table["coefficient"].astype(float)):
        coef[j], names[j] = value, name
    return {"coefficients": coefficient_figure({"released (peeling + private fit)": coef}, feature_names=names,
                                               title="Released coefficients on the peeled support")}


def _sparse_private_support(bundle) -> dict[str, go.Figure]:
    votes, coefficients = bundle.tables["noisy_votes"], bundle.tables["coefficients"]
    coef = np.zeros(len(votes))
    coef[coefficients["index"].to_numpy(dtype=int)] = coefficients["coefficient"].to_numpy(dtype=float)
    return {"coefficients": coefficient_figure({"released student": coef}, feature_names=list(votes["feature"]),
                                               title="Released student coefficients")}


#: release method (``ReleaseBundle.method``) → the figures its report shows
BUILDERS: Mapping[str, Callable[[Any], dict[str, go.Figure]]] = {
    "DP survival analysis": _survival,
    "PAPRIKA": _paprika,
    "PAPRIKA AI": _paprika,
    "Sparse regression by knowledge transfer (private support)": _sparse_private_support,
    "Sparse regression: peeling + private fit": _sparse_peeling,
    "Robust private linear regression": _regression,
    "AdaSSP": _regression,
}


def figures_for(bundle) -> dict[str, go.Figure]:
    """The figures a report or ZIP of ``bundle`` shows: the method's release figures, then the caller's own."""
    builder = BUILDERS.get(bundle.method)
    return {**(builder(bundle) if builder else {}), **bundle.figures}
