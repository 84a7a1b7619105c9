"""Choose ε privately: the smallest-ε finder's charged variant (:mod:`dpcore.private_choice.selection`), under the non-private one.

The non-private finder reads the private rows without noise, so an ε read off it is recorded as chosen after
looking (:mod:`ui.provenance`). This section makes the choice a release of its own: charged to every person the rows
name, in the same ledger and cap as any release, drawn by OpenDP, and kept in the session's releases; releasing
with the ε it chose is then recorded as "chosen by a charged private selection".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.private_choice import selection
from dpcore.access import CUSTODIAN
from dpcore.ledger import BudgetExceeded, Persons, RecordsRead
from dpcore.provenance import FINDER, SettingsChoice
from dpcore.reporting.release import ReleaseBundle
from dpcore.core.utility import Simulator
from ui import provenance
from ui.identity import current_person
from ui.layout import literal, teaching
from ui.release import _holding
from ui.state import get_ledger, releases, session_id
from ui.widgets import forget_control

METHOD = "Private choice of ε"
#: what the choice itself may cost (public): small next to a release
CHOICE_EPSILONS = (0.05, 0.1, 0.2, 0.3, 0.5, 1.0)


@dataclass(frozen=True)
class RowsForChoice:
    """What a page gives the private choice: its simulator on any subset of its rows (by position), how many rows,
    and who they are (the data set's fingerprint, name, persons and earlier keys, to charge them)."""

    simulate_on: Callable[[np.ndarray], Simulator]
    n: int
    fingerprint: str
    label: str
    persons: Persons | None = None
    records: RecordsRead | None = None


def private_choice(rows: RowsForChoice, *, key: str, grid, threshold: float, kind: str, probability: float,
                   larger_is_better: bool) -> None:
    """The section: what a private choice costs, its button (custodians only) and its result."""
    if current_person().role != CUSTODIAN:
        return
    blocks = selection.block_count(rows.n)
    st.markdown("**Choose ε privately (charged).** The estimate above read these rows without noise: an ε read off "
                "it is recorded with the release as chosen after looking. A private choice splits the rows into "
                "blocks, lets each block vote on which ε meets the target, and picks by a noisy maximum: a release "
                "of its own, charged to everyone it reads, and the ε it picks is recorded as chosen by it.")
    teaching("Settings are public when they come from the study design or domain knowledge (ε, the horizon, the "
             "grid, clipping bounds, group labels), and may be tried on a proxy: a bundled data set of the same kind "
             "or simulated data, which read no private row. Moving them while watching previews of the private rows "
             "makes them depend on those rows: the release then says so, since its proved (ε, δ) assumes settings "
             "fixed in advance and the choice itself may leak (Papernot & Steinke 2022 measured how much for "
             "tuning). Choosing ε here instead is a release of its own: its cost is charged to the same people, and "
             "the release at the ε it chose says so.")
    if not blocks:
        st.caption(f"A private choice needs at least {selection.MIN_BLOCKS * selection.MIN_ROWS_PER_BLOCK} rows "
                   f"({selection.MIN_BLOCKS} blocks of {selection.MIN_ROWS_PER_BLOCK}); these data have {rows.n}.")
        return
    if blocks < selection.MAX_BLOCKS:
        st.caption(f"These {rows.n:,} rows make {blocks} blocks of about {rows.n // blocks}: measured on PBC (418 "
                   "people, 16 blocks), such a choice agreed with the non-private finder's step within one step only "
                   "about a fifth to a half of the time; from about 2,000 rows (40 blocks) at a cost of ε = 1 it "
                   "agreed within one step at least 95 % of the time (bench/results/selection.md).")
    state = f"{key}_private_choice"
    cols = st.columns([2, 1])
    cost = float(cols[0].select_slider("ε the choice costs", options=CHOICE_EPSILONS, value=0.5,
                                       key=f"{key}_choice_eps", format_func=lambda e: f"{e:g}"))
    params = {"candidates": [float(e) for e in grid], "blocks": blocks, "target": f"{kind}: metric "
              f"{'≥' if larger_is_better else '≤'} {threshold:g}" + (f" with probability ≥ {probability:g}"
                                                                    if kind == "probability" else ""),
              "votes_per_block_draws": selection.BLOCK_DRAWS, "partition_seed": 0, "simulation_seed": 0}
    # the choice's own settings (its target, its cost), apart from the release's: shown beside the finder's estimate
    own = f"{rows.fingerprint}#{METHOD}"
    settings = provenance.settings_of(method=METHOD, epsilon=cost, delta=0.0, parts=None, params=params)
    provenance.observe(own, settings, views=(FINDER,))
    if cols[1].button(f"Choose privately (ε = {cost:g})", key=f"{key}_choose"):
        problem = _choose(rows, key=key, grid=grid, cost=cost, params=params, judge=selection.block_judge(
            rows.simulate_on, grid, threshold=threshold, kind=kind, probability=probability,
            larger_is_better=larger_is_better), settings=provenance.choice(own, settings, private=True))
        if problem:
            st.error(problem, icon=":material/warning:")
    chosen = st.session_state.get(state)
    if chosen is None or chosen[0] != rows.fingerprint:
        return
    result = chosen[1]
    st.success(result.summary(), icon=":material/check_circle:")
    if result.epsilon is not None and st.button(f"Use ε = {result.epsilon:g}", key=f"{key}_use_choice"):
        provenance.applying(rows.fingerprint, result.summary())
        forget_control("eps")
        st.query_params["eps"] = f"{result.epsilon:g}"
        st.rerun()


def _choose(rows: RowsForChoice, *, key: str, grid, cost: float, params: dict, judge,
            settings: SettingsChoice) -> str:
    """Charge, choose, keep the choice as a release (with how its own settings were chosen); "" when done, else
    what went wrong."""
    person, ledger = current_person(), get_ledger()
    holding = _holding(ledger, rows.persons, rows.records, rows.fingerprint, person.scope)
    blocks = params["blocks"]
    try:
        record = ledger.charge(holding, METHOD, cost, params=params, label=rows.label, page=key,
                               session=session_id(), actor=person.id, settings=settings)
    except BudgetExceeded as err:
        return f"Private choice refused: {literal(str(err))}"
    try:
        result = selection.choose_epsilon(judge, rows.n, grid, epsilon=cost)
    except Exception as err:  # noqa: BLE001 - the charge stays whatever went wrong; say so plainly
        ledger.record_failure(record)
        return f"The private choice failed after it was charged ({literal(type(err).__name__)}); its cost stays."
    bundle = ReleaseBundle(
        method=METHOD, dataset=rows.label, fingerprint=rows.fingerprint, epsilon=cost, delta=0.0,
        mechanisms=(f"report-noisy-max with exponential noise (permute-and-flip), scale 2Δ/ε = "
                    f"{selection.noise_scale(cost):g}, over vote counts of {blocks} disjoint blocks (Δ = 2)",),
        public_params=params,
        tables={"choice": pd.DataFrame({"chosen ε": [result.epsilon if result.epsilon is not None else np.nan],
                                        "meets the target on the grid": [result.epsilon is not None]})},
        notes=(result.summary(),), settings=settings.to_dict())
    ledger.record_values(record, bundle.to_json())
    releases().append(bundle)
    st.session_state[f"{key}_private_choice"] = (rows.fingerprint, result)
    if result.epsilon is not None:
        provenance.selected(rows.fingerprint, "ε", result.epsilon, result.summary())
    return ""
