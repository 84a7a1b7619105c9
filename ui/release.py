"""The Release button: check the cap, draw with OpenDP, charge the ledger, offer the export."""

from __future__ import annotations

from typing import Any, Callable, Mapping

import pandas as pd
import streamlit as st

from dpcore.report import CustodianNote, html_report, internal_notes_html
from ui.errors import show_errors
from ui.layout import literal
from ui.state import get_ledger, release_notes, releases


def release_panel(
    *,
    key: str,
    dataset_label: str,
    fingerprint: str,
    method: str,
    epsilon: float,
    delta: float = 0.0,
    parts: Mapping[str, float] | None = None,
    params: Mapping[str, Any] | None = None,
    make_bundle: Callable[[], Any],
    relation: str = "replace-one",
    utility_note: str = "",
    blocked: str | None = None,
    ledger_label: str | None = None,
) -> None:
    """Draw the release section of a method page.

    ``make_bundle()`` must compute the release from OpenDP noise (it is
    called only after the ledger agrees the cost fits the cap) and return a
    ``dpcore.release.ReleaseBundle``. The charge is recorded only when the
    bundle exists, so a failed release costs nothing. Each press is a new
    release with a new charge; the last one stays on screen, frozen.

    ``utility_note`` (the preview's error at this ε, estimated on the
    custodian's data without noise) is kept as a custodian note: offered only
    on request, as a separate file labelled internal and not private; never
    in the report, ZIP or JSON that may leave the organisation.

    ``blocked`` (a reason) disables the button and says what to change, for
    settings whose guarantee does not hold; ``make_bundle`` refuses them too.
    ``ledger_label`` names the budget when it covers more than this analysis
    (all GDSC drugs share the same cell lines); default ``dataset_label``.
    """
    ledger = get_ledger()
    ledger_label = ledger_label or dataset_label
    ledger.label(fingerprint, ledger_label)
    st.subheader("Release")
    spent_eps, spent_delta = ledger.spent(fingerprint)
    cost = f"ε = {epsilon:g}" + (f", δ = {delta:g}" if delta else "")
    if parts:
        cost += " (" + ", ".join(f"{k}: {v:.4g}" for k, v in parts.items()) + ")"
    remaining = ledger.remaining(fingerprint)
    cap_text = (
        f" Remaining under the cap: ε = {remaining[0]:g}, δ = {remaining[1]:g}." if remaining is not None else
        " No cap is set for this data set (set one on the Ledger page)."
    )
    st.markdown(
        f"A release draws fresh noise from OpenDP's vetted samplers (seeded by the operating system), costs **{cost}**"
        f" on *{literal(ledger_label)}* and is recorded in this session's ledger. Already spent on this data set: "
        f"ε = {spent_eps:g}, δ = {spent_delta:g}.{cap_text}"
    )
    state_key = f"_release_last_{key}"
    if blocked:
        st.info(blocked, icon=":material/lock:")
    if st.button(f"Release with {cost}", key=f"release_button_{key}", type="primary", disabled=bool(blocked)):
        with show_errors("Release refused"):
            ledger.check(fingerprint, epsilon, delta)
            with st.spinner("Drawing OpenDP noise…"):
                bundle = make_bundle()
            ledger.charge(fingerprint, method, epsilon, delta, params=params, parts=parts, relation=relation)
            releases().append(bundle)
            note = None
            if utility_note:
                note = CustodianNote(f"Utility of {bundle.method} on {bundle.dataset} at ε = {bundle.epsilon:g} "
                                     "(estimated on the custodian's data)", utility_note)
                release_notes().append(note)
            st.session_state[state_key] = bundle
            st.session_state[f"{state_key}_note"] = note
    bundle = st.session_state.get(state_key)
    if bundle is None:
        return
    st.success(
        f"Released {bundle.method} at ε = {bundle.epsilon:g}, δ = {bundle.delta:g} ({bundle.created}). "
        "Only these DP values may leave the session.",
        icon=":material/check_circle:",
    )
    for name, table in bundle.tables.items():
        with st.expander(f"Released table: {name} ({len(table)} rows)"):
            st.dataframe(pd.DataFrame(table), hide_index=True)
    stem = bundle.file_stem()
    note = st.session_state.get(f"{state_key}_note")
    # Exports are built only when clicked (callables): a ZIP with its report is ~0.2 s and several MB, which
    # every later slider move would otherwise pay again while the release stays on screen.
    cols = st.columns(3)
    cols[0].download_button("Download ZIP (JSON + CSV + report)", bundle.to_zip, f"{stem}.zip",
                            mime="application/zip", key=f"dl_zip_{key}", on_click="ignore")
    cols[1].download_button("Download JSON", bundle.to_json, f"{stem}.json", mime="application/json",
                            key=f"dl_json_{key}", on_click="ignore")
    cols[2].download_button("Download report (HTML)", lambda: html_report([bundle]),
                            f"{stem}.html", mime="text/html", key=f"dl_html_{key}", on_click="ignore")
    if note is not None and st.toggle("Custodian's internal notes (not private)", key=f"internal_{key}",
                                      help="Utility estimated on the private data without noise: for the custodian's "
                                           "own review, never to be shared with the release."):
        st.download_button("Download internal notes (HTML, not private)", lambda: internal_notes_html([note]),
                           f"{stem}-internal-not-private.html", mime="text/html", key=f"dl_internal_{key}",
                           on_click="ignore")
