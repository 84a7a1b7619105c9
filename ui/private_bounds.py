"""Choose an upload's clipping ranges privately: the charged DP quantiles of :mod:`dpcore.private_bounds`.

Typed ranges are public only when they come from domain knowledge; a custodian who does not know them would read
them off the file. This control makes the choice a release of its own, as :mod:`ui.private_choice` does for ε: charged
to every person the file names, in the same ledger and cap as any release, drawn by OpenDP and kept in the session's
releases. It sets the page's range inputs, and a release with those ranges is recorded as "chosen by a charged private
selection" (:func:`ui.provenance.selected` on the settings :func:`range_settings` names).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import private_bounds as pb
from dpcore.access import CUSTODIAN
from dpcore.ledger import BudgetExceeded, Persons
from dpcore.provenance import SettingsChoice
from dpcore.regression.preparation import feature_bounds
from dpcore.release import ReleaseBundle
from ui import provenance
from ui.identity import current_person
from ui.layout import literal
from ui.release import _holding, records_read
from ui.state import get_ledger, releases, session_id

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
        c1, c2, c3 = st.columns(3)
        cost = float(c1.select_slider("ε the choice costs", options=CHOICE_EPSILONS, value=1.0, key=f"{key}_pb_eps",
                                      format_func=lambda e: f"{e:g}"))
        coverage = float(c2.select_slider("Coverage of each column", options=pb.COVERAGES, value=pb.DEFAULT_COVERAGE,
                                          key=f"{key}_pb_cov", format_func=lambda c: f"{c:.0%}",
                                          help="The share of each column between its two bounds: the quantiles "
                                               "(1 − coverage)/2 and (1 + coverage)/2."))
        c3.caption(f"{2 * (len(features) + 1)} quantiles share ε: ε = {cost / (2 * (len(features) + 1)):.3g} each "
                   "(basic composition; one row touches them all).")
        c4, c5, c6, c7 = st.columns(4)
        bounds = (float(c4.number_input("Response: declared minimum", key=f"{key}_pb_ylo", value=outer[0])),
                  float(c5.number_input("Response: declared maximum", key=f"{key}_pb_yhi", value=outer[1])),
                  float(c6.number_input("Features: declared minimum", key=f"{key}_pb_xlo", value=outer[2])),
                  float(c7.number_input("Features: declared maximum", key=f"{key}_pb_xhi", value=outer[3])))
        st.caption(f"Candidates: {pb.GRID_POINTS} evenly spaced points of each declared range (public, never the "
                   "data); a value outside it counts at its end. The quantiles need many rows each: on 442 patients "
                   "and 11 columns (coverage 90 %) the ranges came out about 4 times the non-private quantiles' width "
                   "at ε = 5 and matched them at ε = 20 (bench/results/private_bounds.md). A tight declared range and "
                   "a smaller coverage help; a range known from the design is free.")
        declared = ((bounds[0], bounds[1]),) + ((bounds[2], bounds[3]),) * len(features)
        params = {"coverage": coverage, "declared outer ranges": [list(b) for b in declared],
                  "grid points": pb.GRID_POINTS}
        # the choice's own settings (its cost, coverage and declared ranges), apart from the release's
        own = f"{fingerprint}#{METHOD}"
        settings = provenance.settings_of(method=METHOD, epsilon=cost, delta=0.0, parts=None, params=params)
        provenance.observe(own, settings)
        st.button(f"Choose the ranges privately (ε = {cost:g})", key=f"{key}_pb_choose", on_click=_choose, kwargs=dict(
            key=key, X=X, y=y, response=response, features=tuple(features), fingerprint=fingerprint, label=label,
            persons=persons, table_key=table_key, response_keys=response_keys, cost=cost, coverage=coverage,
            outer=declared, params=params, settings=provenance.choice(own, settings, private=True)))
        problem = st.session_state.pop(f"{key}_pb_problem", "")
        if problem:
            st.error(problem, icon=":material/warning:")
        kept = _chosen(key, fingerprint, response, features)
        if kept is not None:
            st.success(f"Set above: {kept['ranges'].summary()}.", icon=":material/check_circle:")


def _choose(*, key: str, X, y, response: str, features: tuple, fingerprint: str, label: str, persons, table_key: str,
            response_keys: tuple[str, str], cost: float, coverage: float, outer, params: dict,
            settings: SettingsChoice) -> None:
    """The button's callback (before the page's inputs are drawn, so it may set them): charge, choose, keep the choice
    as a release (with how its own settings were chosen), set the ranges and say they were chosen by it."""
    try:
        pb.candidate_grid(outer)
    except ValueError as err:
        st.session_state[f"{key}_pb_problem"] = f"Private choice not made: {literal(str(err))}."
        return
    person, ledger = current_person(), get_ledger()
    holding = _holding(ledger, persons, records_read([y], exchangeable=X), fingerprint, person.scope)
    try:
        record = ledger.charge(holding, METHOD, cost, params={**params, "columns": [response, *features]},
                               label=label, page=key, session=session_id(), actor=person.id, settings=settings)
    except BudgetExceeded as err:
        st.session_state[f"{key}_pb_problem"] = f"Private choice refused: {literal(str(err))}"
        return
    try:
        ranges = pb.choose_ranges(np.column_stack([y, X]), outer, epsilon=cost, coverage=coverage,
                                  names=(response, *features))
    except Exception as err:  # noqa: BLE001 - the charge stays whatever went wrong; say so plainly
        ledger.record_failure(record)
        st.session_state[f"{key}_pb_problem"] = (f"The private choice failed after it was charged "
                                                 f"({literal(type(err).__name__)}); its cost stays.")
        return
    scale = pb.noise_scale(pb.quantile_epsilon(cost, len(features) + 1))
    bundle = ReleaseBundle(
        method=METHOD, dataset=label, fingerprint=fingerprint, epsilon=cost, delta=0.0,
        mechanisms=((f"OpenDP's private quantile (exponential mechanism: report-noisy-max with exponential noise, "
                     f"permute-and-flip), scale 2Δ/ε_q = {scale:g} (Δ = 1), on each of {ranges.quantiles} quantiles"),),
        public_params=ranges.public_params(),
        tables={"ranges": pd.DataFrame({"column": list(ranges.names), "lower": list(ranges.lower),
                                        "upper": list(ranges.upper)})},
        notes=(ranges.summary() + ".",), settings=settings.to_dict())
    ledger.record_values(record, bundle.to_json())
    releases().append(bundle)
    token = hashlib.sha256(repr((ranges.lower, ranges.upper, bundle.created)).encode()).hexdigest()[:12]
    st.session_state[f"{key}_private_ranges"] = {"fingerprint": fingerprint, "response": response,
                                                 "features": tuple(features), "table_key": table_key,
                                                 "ranges": ranges, "token": token}
    st.session_state[response_keys[0]], st.session_state[response_keys[1]] = ranges.lower[0], ranges.upper[0]
    chosen = range_settings((ranges.lower[0], ranges.upper[0]), (ranges.lower[1:], ranges.upper[1:]), len(features))
    for setting, value in chosen.items():
        provenance.selected(fingerprint, setting, value, ranges.summary())
