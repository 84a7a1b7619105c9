"""Choose the survival grid privately: the charged selection of a bin width of :mod:`dpcore.private_choice.grid_selection`.

A width moved while watching previews of the private rows is recorded as changed after looking; the public rule is
free. This control is the third way, a release of its own as the private choice of ε is (:mod:`ui.private_choice`):
charged to every person the rows name, in the same ledger and cap, drawn by OpenDP and kept in the session's
releases. Its button's callback sets the grid controls before they are drawn, and a release on that grid is recorded
as "chosen by a charged private selection" (:func:`ui.provenance.applying` and :func:`ui.provenance.selected`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.private_choice import grid_selection as gs
from dpcore.private_choice import selection
from dpcore.access import CUSTODIAN
from dpcore.ledger import BudgetExceeded, Persons
from dpcore.provenance import SettingsChoice
from dpcore.reporting.release import ReleaseBundle
from dpcore.survival.grid import bin_width_text
from ui import provenance
from ui.identity import current_person
from ui.layout import literal
from ui.private_choice import CHOICE_EPSILONS
from ui.release import _holding, records_read
from ui.state import get_ledger, releases, session_id
from ui.widgets import set_control, url_toggle

METHOD = "Private choice of the survival grid"


def private_grid(key: str, *, time, event, group, setting: gs.ReleaseSetting, fingerprint: str, label: str,
                 persons: Persons | None, controls: tuple[str, str], grid_setting: str) -> None:
    """The control (custodians only): its cost, the candidates (:meth:`~dpcore.private_choice.grid_selection.ReleaseSetting
    .candidates`) and its button. ``controls``: the page's grid-unit and bin-width keys, which the choice sets;
    ``grid_setting``: the name the page's release records its grid under."""
    if current_person().role != CUSTODIAN or not url_toggle("Choose the grid privately (charged)",
                                                            key=f"{key}_grid_private"):
        return
    n = int(np.asarray(time).size)
    candidates = setting.candidates(n)
    blocks = selection.block_count(n)
    widths = ", ".join(bin_width_text(w, u) for w, u in candidates)
    if not blocks:
        st.caption(f"A private choice needs at least {selection.MIN_BLOCKS * selection.MIN_ROWS_PER_BLOCK} rows; "
                   f"these data have {n}.")
        return
    st.caption(f"The rows are cut into {blocks} blocks; each votes for the width among {widths} whose simulated "
               f"releases at ε = {setting.epsilon:g} miss its own curve least, and a noisy maximum of the votes picks "
               "one: a release of its own, charged to everyone it reads. A release on that grid says so.")
    cost = float(st.select_slider("ε the choice costs", options=CHOICE_EPSILONS, value=0.5, key=f"{key}_grid_eps",
                                  format_func=lambda e: f"{e:g}"))
    params = {"candidate widths": [bin_width_text(w, u) for w, u in candidates], "blocks": blocks,
              "release ε simulated": setting.epsilon, "votes_per_block_draws": gs.BLOCK_DRAWS,
              "partition_seed": 0, "simulation_seed": 0}
    own = f"{fingerprint}#{METHOD}"  # the choice's own settings, apart from the release's
    settings = provenance.settings_of(method=METHOD, epsilon=cost, delta=0.0, parts=None, params=params)
    provenance.observe(own, settings)
    st.button(f"Choose the grid privately (ε = {cost:g})", key=f"{key}_grid_choose", on_click=_choose, kwargs=dict(
        key=key, time=time, event=event, group=group, setting=setting, candidates=tuple(candidates),
        fingerprint=fingerprint, label=label, persons=persons, controls=controls, grid_setting=grid_setting,
        cost=cost, params=params, settings=provenance.choice(own, settings, private=True)))
    problem = st.session_state.pop(f"{key}_grid_problem", "")
    if problem:
        st.error(problem, icon=":material/warning:")
    kept = st.session_state.get(f"{key}_private_grid")
    if kept is not None and kept[0] == fingerprint:
        st.success(kept[1].summary(), icon=":material/check_circle:")


def _choose(*, key: str, time, event, group, setting: gs.ReleaseSetting, candidates, fingerprint: str, label: str,
            persons, controls: tuple[str, str], grid_setting: str, cost: float, params: dict,
            settings: SettingsChoice) -> None:
    """The button's callback (before the grid controls are drawn, so it may set them): charge, choose, keep the
    choice as a release, set the grid and say it was chosen by it."""
    person, ledger = current_person(), get_ledger()
    holding = _holding(ledger, persons, records_read([time, event]), fingerprint, person.scope)
    try:
        record = ledger.charge(holding, METHOD, cost, params=params, label=label, page=key, session=session_id(),
                               actor=person.id, settings=settings)
    except BudgetExceeded as err:
        st.session_state[f"{key}_grid_problem"] = f"Private choice refused: {literal(str(err))}"
        return
    try:
        judge = gs.block_judge(time, event, group, candidates, setting)
        result = gs.choose_grid(judge, int(np.asarray(time).size), candidates, epsilon=cost)
    except Exception as err:  # noqa: BLE001 - the charge stays whatever went wrong; say so plainly
        ledger.record_failure(record)
        st.session_state[f"{key}_grid_problem"] = (f"The private choice failed after it was charged "
                                                   f"({literal(type(err).__name__)}); its cost stays.")
        return
    bundle = ReleaseBundle(
        method=METHOD, dataset=label, fingerprint=fingerprint, epsilon=cost, delta=0.0,
        mechanisms=(f"report-noisy-max with exponential noise (permute-and-flip), scale 2Δ/ε = "
                    f"{selection.noise_scale(cost, gs.SENSITIVITY):g}, over vote counts of {result.blocks} disjoint "
                    f"blocks (Δ = {gs.SENSITIVITY})",),
        public_params=params, tables={"choice": pd.DataFrame({"chosen width": [result.width],
                                                              "unit": [result.unit]})},
        notes=(result.summary(),), settings=settings.to_dict())
    ledger.record_values(record, bundle.to_json())
    releases().append(bundle)
    st.session_state[f"{key}_private_grid"] = (fingerprint, result)
    set_control(controls[0], result.unit)
    set_control(controls[1], result.width)
    chosen = setting.grids([(result.width, result.unit)])[0]
    provenance.applying(fingerprint, result.summary())  # what changes on the next run, it chose
    provenance.selected(fingerprint, grid_setting, chosen.describe(), result.summary())  # even if it did not move
