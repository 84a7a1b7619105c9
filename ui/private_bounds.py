"""Choose an upload's clipping ranges or bounds privately: the charged DP quantiles of :mod:`dpcore.private_choice.private_bounds`.

Typed ranges are public only when they come from domain knowledge; a custodian who does not know them would read
them off the file. These controls make the choice a release of its own, as :mod:`ui.private_choice` does for ε:
charged to every person the rows read name, in the same ledger and cap as any release, drawn by OpenDP and kept in
the session's releases. They set the page's inputs, and a release with those settings is recorded as "chosen by a
charged private selection" (:func:`ui.provenance.selected`): the regression page's ranges (:func:`private_ranges`, on
the settings :func:`range_settings` names) and the sparse page's bounds K and r (:func:`private_sparse_bounds`).
"""

from __future__ import annotations

import hashlib
import uuid
from functools import partial
from typing import Callable

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.private_choice import private_bounds as pb
from dpcore.access import CUSTODIAN
from dpcore.ledger import BudgetExceeded, Persons
from dpcore.provenance import SettingsChoice
from dpcore.regression.preparation import feature_bounds
from dpcore.reporting.release import ReleaseBundle
from ui import provenance
from ui.identity import current_person
from ui.layout import literal
from ui.release import _holding, records_read
from ui.state import get_ledger, releases, session_id
from ui.widgets import set_control

METHOD = "Private choice of clipping ranges"
#: what the choice may cost (public): each of the 2(d + 1) quantiles gets ε / 2(d + 1)
CHOICE_EPSILONS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0)


def range_settings(y_bounds, x_bounds, d: int) -> dict[str, list]:
    """The ranges as release settings (what provenance compares): the response's and every feature's."""
    lo, hi = feature_bounds(x_bounds, d)
    return {"response range": [float(y_bounds[0]), float(y_bounds[1])], "feature ranges": [lo.tolist(), hi.tolist()]}


def _chosen(key: str, fingerprint: str, response: str, features) -> dict | None:
    """This session's private choice for these columns of this file, if any."""
    kept = st.session_state.get(f"{key}_private_ranges")
    if kept and (kept["fingerprint"], kept["response"], kept["features"]) == (fingerprint, response, tuple(features)):
        return kept
    return None


def feature_table(key: str, fingerprint: str, response: str, features, *, table_key: str, lo: float,
                  hi: float) -> tuple[pd.DataFrame, str]:
    """The ranges table's rows and key: the private choice's ranges (a table of its own) while it was made for these
    columns and this default rule (``table_key``), else the default rule in every row."""
    kept = _chosen(key, fingerprint, response, features)
    if kept is None or kept["table_key"] != table_key:
        return pd.DataFrame({"feature": list(features), "lower": lo, "upper": hi}), table_key
    ranges = kept["ranges"]
    return (pd.DataFrame({"feature": list(features), "lower": list(ranges.lower[1:]), "upper": list(ranges.upper[1:])}),
            f"{table_key}_private_{kept['token']}")


def in_force(key: str, fingerprint: str, response: str, features, y_bounds, x_bounds) -> bool:
    """Whether the ranges in use are those the private choice set (none edited since)."""
    kept = _chosen(key, fingerprint, response, features)
    if kept is None:
        return False
    r = kept["ranges"]
    return (range_settings(y_bounds, x_bounds, len(features))
            == range_settings(r.lower[:1] + r.upper[:1], (r.lower[1:], r.upper[1:]), len(features)))


def private_ranges(key: str, *, X: np.ndarray, y: np.ndarray, response: str, features, fingerprint: str,
                   label: str, persons: Persons | None, table_key: str, response_keys: tuple[str, str],
                   outer: tuple[float, float, float, float]) -> None:
    """The control (custodians only): its cost, the declared outer ranges, the coverage and its button. ``outer``:
    the declared outer ranges' first values (response, then every feature); ``response_keys``: the page's
    response-range inputs, which the choice sets."""
    if current_person().role != CUSTODIAN:
        return
    with st.expander("Choose the ranges privately (charged)"):
        st.markdown("Declare a range no value can leave (domain knowledge: an assay's limits), and the page picks each "
                    "column's range inside it from the file by a private quantile: a release of its own, charged to "
                    "everyone the file names. A release with these ranges then says they were chosen by it.")
        cost, coverage = _cost_and_coverage(key, 2 * (len(features) + 1), "Coverage of each column",
                                            "The share of each column between its two bounds: the quantiles "
                                            "(1 − coverage)/2 and (1 + coverage)/2.")
        c4, c5, c6, c7 = st.columns(4)
        bounds = (float(c4.number_input("Response: declared minimum", key=f"{key}_pb_ylo", value=outer[0])),
                  float(c5.number_input("Response: declared maximum", key=f"{key}_pb_yhi", value=outer[1])),
                  float(c6.number_input("Features: declared minimum", key=f"{key}_pb_xlo", value=outer[2],
                                        help="Every feature's, unless edited in the table below.")),
                  float(c7.number_input("Features: declared maximum", key=f"{key}_pb_xhi", value=outer[3])))
        per_feature = _declared_table(key, features, bounds[2], bounds[3])
        st.caption(f"Candidates: {pb.GRID_POINTS} evenly spaced points of each declared range (public, never the "
                   "data); a value outside it counts at its end. The quantiles need many rows each: on 442 patients "
                   "and 11 columns (coverage 90 %) the ranges came out about 4 times the non-private quantiles' width "
                   "at ε = 5 and matched them at ε = 20 (bench/results/private_bounds.md). A tight declared range and "
                   "a smaller coverage help; a range known from the design is free.")
        declared = ((bounds[0], bounds[1]),) + per_feature
        kept = _chosen(key, fingerprint, response, features)
        _button(key, "Choose the ranges privately", fingerprint=fingerprint, label=label, persons=persons,
                records=records_read([y], exchangeable=X), cost=cost, coverage=coverage, outer=declared,
                columns=[response, *features], kept=kept["ranges"] if kept else None,
                choose=partial(pb.choose_ranges, np.column_stack([y, X]), declared, epsilon=cost, coverage=coverage,
                               names=(response, *features)),
                apply=partial(_set_ranges, key=key, fingerprint=fingerprint, response=response,
                              features=tuple(features), table_key=table_key, response_keys=response_keys))


def declared_key(key: str, features, lo: float, hi: float) -> str:
    """The declared outer ranges table's key: a new feature list or shared range starts a new table."""
    return f"{key}_pb_outer_" + hashlib.sha256(repr((list(features), float(lo), float(hi))).encode()).hexdigest()[:16]


def _declared_table(key: str, features, lo: float, hi: float) -> tuple[tuple[float, float], ...]:
    """Each feature's declared outer range: the shared one unless a row is edited (a feature on its own scale). A
    blank cell reads as NaN, which the choice refuses before it charges."""
    table = st.data_editor(pd.DataFrame({"feature": list(features), "declared minimum": lo, "declared maximum": hi}),
                           key=declared_key(key, features, lo, hi), disabled=["feature"], hide_index=True,
                           num_rows="fixed", width="stretch")
    bounds = (pd.to_numeric(table[c], errors="coerce").astype(float) for c in ("declared minimum", "declared maximum"))
    return tuple((float(a), float(b)) for a, b in zip(*bounds))


def private_sparse_bounds(key: str, *, X: np.ndarray, y: np.ndarray, response: bool, fingerprint: str, label: str,
                          persons: Persons | None, bound_keys: tuple[str, str], limits: tuple[float, float]) -> None:
    """The sparse page's control (custodians only): K (|x| ≤ K) and, when the model reads a response (``response``),
    r (|y| ≤ r), each one quantile of a per-row magnitude — two quantiles, not the 2(d + 1) of per-column ranges.
    ``bound_keys``: the page's K and r inputs, which the choice sets; ``limits``: their public (minimum, maximum),
    the lowest candidate and the largest declarable one."""
    if current_person().role != CUSTODIAN:
        return
    names = ("K", "r") if response else ("K",)
    with st.container(border=True):  # boxed, not folded: it sits in the page's folded settings, beside K and r
        st.markdown(f"**Choose {' and '.join(names)} privately (charged)**  \nDeclare a largest value no |x| (nor "
                    "|y|) can pass, and the page picks the bound inside it from the rows by a private quantile of each "
                    "row's largest |x| and of |y|: a release of its own, charged to everyone those rows name. A "
                    "release with these bounds then says they were chosen by it.")
        cost, coverage = _cost_and_coverage(key, len(names), "Coverage of the rows",
                                            "The share of rows whose largest |x| (and whose |y|) lies within its "
                                            "bound: the quantile at this level. The others are clipped.")
        cells = st.columns(len(names))
        highest = [float(cell.number_input(f"Declared maximum of {bound}", key=f"{key}_pb_{bound}max",
                                           min_value=limits[0], max_value=limits[1], value=limits[1]))
                   for cell, bound in zip(cells, names)]  # names: "K" and "r", this module's own
        st.caption(f"Candidates: {pb.GRID_POINTS} evenly spaced points from {limits[0]:g} to each declared maximum "
                   "(public, never the data); a larger value counts at the top. One quantile per bound, not two per "
                   "column: each gets d + 1 times the ε a per-column range would. On 353 rows (d = 50, coverage 90 %) "
                   "K and r came within 2 % of the non-private quantiles from ε = 1, and within 2 % at ε = 5 for "
                   "coverage 98 %; below, far too wide (bench/results/private_bounds.md).")
        declared = tuple((limits[0], h) for h in highest)
        values = pb.magnitudes(X, y if response else None)
        read = hashlib.sha256(values.tobytes()).hexdigest()  # the rows and columns read: a new choice of either
        kept = st.session_state.get(f"{key}_private_bounds")  # is no longer what the choice was made on
        kept = kept if kept and (kept["fingerprint"], kept["read"]) == (fingerprint, read) else None
        _button(key, f"Choose {' and '.join(names)} privately", fingerprint=fingerprint, label=label,
                persons=persons, records=records_read([y], exchangeable=X), cost=cost, coverage=coverage,
                outer=declared, columns=[f"{name}: {what}" for name, what in
                                         zip(names, ("each row's largest |x|", "|y|"))],
                kept=kept["bounds"] if kept else None,
                choose=partial(pb.choose_bounds, values, declared, epsilon=cost, coverage=coverage, names=names),
                apply=partial(_set_bounds, key=key, fingerprint=fingerprint, read=read, bound_keys=bound_keys))


def _cost_and_coverage(key: str, quantiles: int, title: str, explained: str) -> tuple[float, float]:
    """The choice's ε and coverage, and how its quantiles share ε."""
    c1, c2, c3 = st.columns(3)
    cost = float(c1.select_slider("ε the choice costs", options=CHOICE_EPSILONS, value=1.0, key=f"{key}_pb_eps",
                                  format_func=lambda e: f"{e:g}"))
    coverage = float(c2.select_slider(title, options=pb.COVERAGES, value=pb.DEFAULT_COVERAGE, key=f"{key}_pb_cov",
                                      format_func=lambda c: f"{c:.0%}", help=explained))
    c3.caption(f"{quantiles} quantiles share ε: ε = {cost / quantiles:.3g} each (basic composition; one row touches "
               "them all)." if quantiles > 1 else f"One quantile: ε = {cost:g}.")
    return cost, coverage


def _button(key: str, text: str, *, fingerprint: str, cost: float, coverage: float, outer, kept, **choice) -> None:
    """The choice's button with its own settings (its cost, coverage and declared ranges, apart from the release's),
    what went wrong last, and what the choice set."""
    params = {"coverage": coverage, "declared outer ranges": [list(b) for b in outer], "grid points": pb.GRID_POINTS}
    own = f"{fingerprint}#{METHOD}"
    settings = provenance.settings_of(method=METHOD, epsilon=cost, delta=0.0, parts=None, params=params)
    provenance.observe(own, settings)
    st.button(f"{text} (ε = {cost:g})", key=f"{key}_pb_choose", on_click=_choose, kwargs=dict(
        key=key, fingerprint=fingerprint, cost=cost, outer=outer, params=params,
        settings=provenance.choice(own, settings, private=True), **choice))
    problem = st.session_state.pop(f"{key}_pb_problem", "")
    if problem:
        st.error(problem, icon=":material/warning:")
    if kept is not None:
        st.success(f"Set above: {kept.summary()}.", icon=":material/check_circle:")


def _choose(*, key: str, fingerprint: str, label: str, persons, records, cost: float, outer, params: dict,
            columns: list, settings: SettingsChoice, choose: Callable, apply: Callable) -> None:
    """The button's callback (before the page's inputs are drawn, so it may set them): charge, choose, keep the choice
    as a release (with how its own settings were chosen), then ``apply`` it (set the inputs, say they were chosen)."""
    try:
        pb.candidate_grid(outer)
    except ValueError as err:
        st.session_state[f"{key}_pb_problem"] = f"Private choice not made: {literal(str(err))}."
        return
    person, ledger = current_person(), get_ledger()
    holding = _holding(ledger, persons, records, fingerprint, person.scope)
    try:
        record = ledger.charge(holding, METHOD, cost, params={**params, "columns": columns}, label=label, page=key,
                               session=session_id(), actor=person.id, settings=settings)
    except BudgetExceeded as err:
        st.session_state[f"{key}_pb_problem"] = f"Private choice refused: {literal(str(err))}"
        return
    try:
        chosen = choose()
    except Exception as err:  # noqa: BLE001 - the charge stays whatever went wrong; say so plainly
        ledger.record_failure(record)
        st.session_state[f"{key}_pb_problem"] = (f"The private choice failed after it was charged "
                                                 f"({literal(type(err).__name__)}); its cost stays.")
        return
    scale = pb.noise_scale(cost / chosen.quantiles)
    bundle = ReleaseBundle(
        method=METHOD, dataset=label, fingerprint=fingerprint, epsilon=cost, delta=0.0,
        mechanisms=((f"OpenDP's private quantile (exponential mechanism: report-noisy-max with exponential noise, "
                     f"permute-and-flip), scale 2Δ/ε_q = {scale:g} (Δ = 1), on each of {chosen.quantiles} "
                     "quantiles"),),
        public_params=chosen.public_params(), tables={"ranges": pd.DataFrame(chosen.table())},
        notes=(chosen.summary() + ".",), settings=settings.to_dict())
    ledger.record_values(record, bundle.to_json())
    releases().append(bundle)
    apply(chosen)


def _set_ranges(ranges: pb.PrivateRanges, *, key: str, fingerprint: str, response: str, features: tuple,
                table_key: str, response_keys: tuple[str, str]) -> None:
    """Keep the regression page's choice (its table shows the ranges), set the response inputs, and say the ranges
    were chosen by it."""
    st.session_state[f"{key}_private_ranges"] = {"fingerprint": fingerprint, "response": response,
                                                 "features": features, "table_key": table_key, "ranges": ranges,
                                                 "token": uuid.uuid4().hex[:12]}  # a fresh table per choice
    st.session_state[response_keys[0]], st.session_state[response_keys[1]] = ranges.lower[0], ranges.upper[0]
    chosen = range_settings((ranges.lower[0], ranges.upper[0]), (ranges.lower[1:], ranges.upper[1:]), len(features))
    for setting, value in chosen.items():
        provenance.selected(fingerprint, setting, value, ranges.summary())


def _set_bounds(bounds: pb.PrivateBounds, *, key: str, fingerprint: str, read: str,
                bound_keys: tuple[str, str]) -> None:
    """Keep the sparse page's choice, set its K (and r) inputs, and say they were chosen by it (the release's
    settings "K" and "r")."""
    st.session_state[f"{key}_private_bounds"] = {"fingerprint": fingerprint, "read": read, "bounds": bounds}
    for name, input_key, value in zip(bounds.names, bound_keys, bounds.bounds):
        set_control(input_key, value)
        provenance.selected(fingerprint, name, value, bounds.summary())
