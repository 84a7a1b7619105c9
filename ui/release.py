"""The Release button: confirm the cost, charge the ledger (atomically, against the cap), draw with OpenDP, export."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.access import CUSTODIAN
from dpcore.ledger import WHOLE_ROW, BudgetExceeded, Holding, Ledger, Persons, RecordsRead, fingerprint
from dpcore.ledger.records import spend_in_words
from dpcore.provenance import SettingsChoice
from dpcore.reporting.release import spreadsheet_safe
from dpcore.reporting.report import CustodianNote, html_report, internal_notes_html
from dpcore.core.validation import InputError
from ui.exports import figure_downloads
from ui.identity import current_person
from ui import provenance
from ui.layout import literal
from ui.state import get_ledger, release_notes, releases, session_id, session_memo, set_current_dataset, standing_of

_log = logging.getLogger(__name__)
#: session-state prefix of an open confirmation; each one is consumed by the one release it allows
_PENDING = "_release_pending_"
#: session-state prefix of a confirmation that was open on the last run: when it closes, focus returns to the button
_REFOCUS = "_release_refocus_"
#: Focus on the element whose key is the component's data (Streamlit marks each keyed element's container with
#: the class ``st-key-<key>``). A dialog that closes leaves the keyboard at the top of the page, 30 tab stops away
#: from where the user was; the button is redrawn by the same run, so the focus waits for it (up to a second).
_FOCUS_JS = """
export default function (component) {
  const selector = `.st-key-${CSS.escape(component.data)} button`;
  let tries = 0;
  const focus = () => {
    const button = document.querySelector(selector);
    if (button && !button.disabled) { button.focus(); return; }
    if (++tries < 20) setTimeout(focus, 50);
  };
  focus();
}
"""
_focus = st.components.v2.component("dpcore_focus", js=_FOCUS_JS)


def records_read(columns, *, exchangeable=None) -> RecordsRead:
    """``RecordsRead.of(columns, exchangeable=…)``: the key ledgers of schema version 2 gave this data set, so that
    their spend carries over to its persons; kept in this session while the data stay the same. Canonicalising
    every cell costs about 3 ms on a bundled survival set and grows with an upload's rows × columns; a page calls
    this outside its ε fragment, so moving ε never pays it (the content fingerprint that keys the memo is one
    SHA-256 pass)."""
    key = fingerprint("records-read", *columns, *([] if exchangeable is None else [np.asarray(exchangeable)]))
    return session_memo("records_read", key, lambda: RecordsRead.of(columns, exchangeable=exchangeable))


def release_panel(
    *,
    key: str,
    dataset_label: str,
    fingerprint: str,
    persons: Persons | None = None,
    records: RecordsRead | None = None,
    method: str,
    epsilon: float,
    delta: float = 0.0,
    parts: Mapping[str, float] | None = None,
    params: Mapping[str, Any] | None = None,
    make_bundle: Callable[[], Any],
    relation: str = "replace-one",
    utility_note: str | Callable[[], str] = "",
    blocked: str | None = None,
    ledger_label: str | None = None,
    holding: Holding | None = None,
    simulated: bool = False,
    button_at=None,
    views: tuple[str, ...] = provenance.PAGE_VIEWS,
) -> None:
    """Draw the release section of a method page.

    The button opens a confirmation showing the cost and what is left of the
    data set's cap (all sessions); confirming charges the deployment's ledger
    in one atomic check-and-charge, and only then calls ``make_bundle()``,
    which must compute the release from OpenDP noise and return a
    ``dpcore.reporting.release.ReleaseBundle``. Its exported JSON is stored with the
    charge before anything is shown. If drawing fails, the charge stays
    (noise drawn is budget spent). One confirmation is one release, however
    often it is clicked; the last release stays on screen, frozen.

    ``utility_note`` (the preview's error at this ε, estimated on the
    custodian's data without noise) is kept as a custodian note: offered only
    on request, as a separate file labelled internal and not private; never
    in the report, ZIP or JSON that may leave the organisation. It may be a
    function, called only when a release is made.

    ``blocked`` (a reason) disables the button and says what to change, for
    settings whose guarantee does not hold; ``make_bundle`` refuses them too.
    ``ledger_label`` names the budget when it covers more than this analysis
    (all GDSC drugs share the same cell lines); default ``dataset_label``.

    Budgets are per person (:mod:`dpcore.ledger.keys`): ``persons`` are the persons the release reads (a
    :meth:`~dpcore.ledger.Persons.subset` for a sub-cohort or a training split), each checked against the cap
    within the custodian's scope; without them the data set is one person (``fingerprint``). ``records`` and
    ``fingerprint`` are also the keys earlier ledgers gave the same data: their spend carries over. Only a
    custodian sees this panel's standing and releases; everything it shows comes from their own data sets.
    ``holding`` charges an earlier data set's persons instead (an FDR stream from that cohort). ``simulated``: the
    data are simulated or synthetic from a public seed, nobody real: the release is recorded and charges nobody.
    ``button_at``: the container that holds the Release button (the first screen's controls column, beside the
    figure); the rest of the panel is drawn where it is called. ``views``: what the page showed of the private rows
    before Release (the release's settings statement lists them; none on the plan-first page). The button names ε
    and δ only; the charged parts are in the text above it and in the confirmation.
    """
    person = current_person()
    if person.role != CUSTODIAN:
        st.markdown("## Release\n\nReleases are made by a data set's custodian, signed in as one; previews on this "
                    "page are free.")
        return
    ledger = get_ledger()
    ledger_label = ledger_label or dataset_label
    dataset = holding or (ledger.simulated_holding(fingerprint, person.scope) if simulated else
                          _holding(ledger, persons, records, fingerprint, person.scope))
    set_current_dataset(ledger_label, fingerprint, dataset.key, person.scope, holding=dataset)  # the cap form's too
    settings = provenance.settings_of(method=method, epsilon=epsilon, delta=delta, parts=parts, params=params)
    if not dataset.nobody:  # the settings in force while this page shows the private rows (ui.provenance)
        provenance.observe(fingerprint, settings, views=views)
    if persons is not None and persons.source == WHOLE_ROW and ledger.require_person_column:
        blocked = blocked or ("This deployment requires a person column before any release: choose the column "
                              "that names each person above (uploads without one cannot be released here).")
    short_cost = f"ε = {epsilon:g}" + (f", δ = {delta:g}" if delta else "")
    cost = short_cost + (" (" + ", ".join(f"{k}: {v:.4g}" for k, v in parts.items()) + ")" if parts else "")
    events = ledger.events_of(method, epsilon, delta, parts, params)
    standing, short = _standing(ledger, dataset, epsilon, delta, events, persons)
    st.markdown(  # the heading and its text in one element: the panel is redrawn on every ε move
        "## Release\n\n"  # a section of its page (h2 under the page's h1), as every page's sections are
        f"A release costs **{cost}** on *{literal(ledger_label)}*, is recorded in the privacy ledger (every "
        f"session's releases count) and draws fresh noise from OpenDP's vetted samplers. {standing}"
    )
    state_key = f"_release_last_{key}"
    blocked = blocked or short
    if blocked:
        st.info(blocked, icon=":material/lock:")
    if (button_at or st).button(f"Release with {short_cost}", key=f"release_button_{key}", type="primary",
                                disabled=bool(blocked), help=blocked or None):
        st.session_state[_PENDING + key] = True
    if st.session_state.get(_PENDING + key):
        st.session_state[_REFOCUS + key] = True
        chosen = provenance.choice(fingerprint, settings, private=not dataset.nobody)
        _confirm(key, cost, lambda: _release(
            key=key, ledger=ledger, dataset=dataset, ledger_label=ledger_label, cost=cost, method=method,
            epsilon=epsilon, delta=delta, parts=parts, params=params, relation=relation, make_bundle=make_bundle,
            utility_note=utility_note, state_key=state_key, actor=person.id, persons=persons,
            settings=chosen,
        ), ledger=ledger, dataset=dataset, ledger_label=ledger_label, epsilon=epsilon, delta=delta, events=events,
            persons=persons, settings=chosen)
    elif st.session_state.pop(_REFOCUS + key, False):  # the dialog just closed: back to the button that opened it
        _focus(data=f"release_button_{key}", key=f"release_focus_{key}")
    bundle = st.session_state.get(state_key)
    if bundle is None:
        return
    st.success(
        f"Released {bundle.method} at ε = {bundle.epsilon:g}, δ = {bundle.delta:g} ({bundle.created}). "
        "Only these DP values may leave the session.",
        icon=":material/check_circle:",
    )
    for name, table in bundle.tables.items():
        with st.expander(f"Released table: {literal(name)} ({len(table)} rows)"):
            st.dataframe(spreadsheet_safe(pd.DataFrame(table)), hide_index=True)  # its CSV button too
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
    figure_downloads(bundle)
    if note is not None and st.toggle("Custodian's internal notes (not private)", key=f"internal_{key}",
                                      help="Utility estimated on the private data without noise: for the custodian's "
                                           "own review, never to be shared with the release."):
        st.download_button("Download internal notes (HTML, not private)", lambda: internal_notes_html([note]),
                           f"{stem}-internal-not-private.html", mime="text/html", key=f"dl_internal_{key}",
                           on_click="ignore")


def _holding(ledger: Ledger, persons: Persons | None, records: RecordsRead | None, fingerprint_: str,
             scope: str) -> Holding:
    """``ledger.holding`` of the persons the release reads, kept in this session while they stay the same: the keyed
    digest of every person (about 0.75 µs each) is otherwise recomputed on every ε move. The memo's key is the data
    set's keyed key under this ledger's secret and scope plus the rows read, so another ledger, scope or split never
    gets these digests."""
    legacy = [f for f in (records.fingerprint if records is not None else "", fingerprint_) if f]
    if persons is None:
        return ledger.holding(fingerprint_, scope)
    rows = "all" if persons.rows is None else fingerprint(persons.rows)
    key = (ledger.dataset_key(persons.fingerprint, scope), rows, tuple(ledger.dataset_key(f, scope) for f in legacy))
    return session_memo("release_holding", key, lambda: ledger.holding(persons, scope, legacy_fingerprints=legacy))


def _standing(ledger: Ledger, dataset: Holding, epsilon: float, delta: float, events: str,
              persons: Persons | None = None) -> tuple[str, str]:
    """Who this release reads, what the most-charged of them has spent (every session and server process) and
    what is left under the per-person cap, and, when the release of (ε, δ) with ``events`` would take someone past
    it, why the button is disabled ("" otherwise): the ledger's own rule (:meth:`Ledger.refusal`). Counts only:
    never which persons."""
    if dataset.nobody:
        return (f"{SIMULATED_NOTE} It is recorded in the ledger for the trail; no cap applies.", "")
    standing = standing_of(ledger, dataset)
    cap = ledger.budget(dataset.key)
    most = ledger.most_charged(standing.groups, cap)
    most_eps = ledger.checked_epsilon(most)
    named = "" if persons is None else f" (persons named by {persons.source})"
    read = dataset.rows or standing.persons  # as declared: identical rows declared different people count apart
    text = f"It reads {read:,} {'person' if read == 1 else 'people'}{named}"
    if persons is not None and persons.identical_rows:
        text += (f", {persons.identical_rows:,} of whom repeat another row: declared different people, each group "
                 "is kept as one record, charged whenever any copy is read")
    if standing.seen:
        text += (f"; {standing.seen:,} of them were read by earlier releases, and the most-charged has spent "
                 f"{spend_in_words(most)}.")
        if persons is not None and persons.source == WHOLE_ROW and standing.seen < standing.persons:
            text += (f" ({standing.seen:,} of this upload's {standing.persons:,} rows were seen before: identical "
                     "whole rows are the same person.)")
    else:
        text += "; none of them was read by an earlier release."
    if cap is None:
        return text + " No cap is set for this data set.", ""
    text += f" Per-person cap ε = {cap.epsilon:g}, δ = {cap.delta:g}; left for everyone read: " \
            f"ε = {max(cap.epsilon - most_eps, 0.0):.3g}."
    problem = ledger.refusal(dataset, standing, epsilon, delta, events, "this data set")
    if problem:
        return text, (f"Not enough budget left for this release. {problem} Lower ε (or δ), or leave out the people "
                      "who have spent most (a sub-cohort of others), or raise the data set's cap on the Ledger page "
                      "if the configuration allows it.")
    return text, ""


#: what the panel and the release notes say of a release on simulated or synthetic data
SIMULATED_NOTE = ("These data are simulated from a public seed: the release reads no real person and charges nobody's "
                  "budget.")


def _with_ledger_note(bundle, ledger: Ledger, dataset: Holding, persons: int, named: Persons | None = None):
    """The bundle with the ledger's guarantee per person, and what the ledger cannot do, in its notes (and so in its
    JSON, ZIP and report)."""
    if dataset.nobody:
        return replace(bundle, notes=(*bundle.notes, f"Privacy ledger: {SIMULATED_NOTE}"))
    cap = ledger.budget(dataset.key)
    note = (f"Privacy ledger: this release was charged to each of the {persons:,} "
            f"{'person' if persons == 1 else 'people'} it read; no release on this custodian's data may take any "
            "person past " + (f"ε = {cap.epsilon:g}, δ = {cap.delta:g} " if cap else "the deployment's cap ")
            + "in total (" + ("the tight composition of every release that read them, by dp-accounting's privacy-loss "
                          "distributions at that δ, with basic composition as a bound" if ledger.tight_applies(cap)
                          else "basic composition over every release that read them")
            + "). The ledger protects people against "
            "honest reuse by their custodian: one who invents identifiers, edits values or transforms a file outside "
            "the app without a person column can spend twice.")
    if named is not None:
        note += " " + named.keying_note(exported=True)
    return replace(bundle, notes=(*bundle.notes, note))


def _dismiss() -> None:
    for name in [k for k in st.session_state if str(k).startswith(_PENDING)]:
        del st.session_state[name]


@st.dialog("Confirm the release", on_dismiss=_dismiss)
def _confirm(key: str, cost: str, release: Callable[[], str], *, ledger: Ledger, dataset: Holding, ledger_label: str,
             epsilon: float, delta: float, events: str, persons: Persons | None = None,
             settings: SettingsChoice | None = None) -> None:
    if not st.session_state.get(_PENDING + key):  # this confirmation was used (a repeated click): close it
        st.rerun()
    st.markdown(f"This release costs **{cost}** on *{literal(ledger_label)}*. "
                f"{_standing(ledger, dataset, epsilon, delta, events)[0]}")
    standing = ledger.standing(dataset)
    most = standing.most()
    cap = ledger.budget(dataset.key)
    text = (f"The most-charged person it reads, by basic composition: ε = {most[0]:g}, δ = {most[1]:g} before this "
            f"release, ε = {most[0] + epsilon:g}, δ = {most[1] + delta:g} after it.")
    if ledger.tight_applies(cap):
        before = max((ledger.tight_epsilon(g, cap.delta) for g in standing.groups), default=0.0)
        after = max((ledger.tight_epsilon(g, cap.delta, events) for g in standing.groups), default=0.0)
        text += (f" By the tight accountant at δ = {cap.delta:g} (the figure the cap is checked on): ε = {before:.4g} "
                 f"before, ε = {after:.4g} after.")
    st.markdown(text + (f" Per-person cap: ε = {cap.epsilon:g}, δ = {cap.delta:g}." if cap else "")
                + " The charge cannot be undone.")
    if persons is not None:
        st.markdown(literal(persons.keying_note()))
    if settings is not None:  # what the release notes will say of its settings, before it is charged
        st.markdown(literal(settings.statement()))
    cols = st.columns(2)
    if cols[0].button(f"Release and charge {cost}", key=f"release_confirm_{key}", type="primary"):
        with st.spinner("Charging the ledger and drawing OpenDP noise…"):
            problem = release()
        if not problem:
            st.rerun()
        st.error(problem, icon=":material/warning:")
    if cols[1].button("Cancel", key=f"release_cancel_{key}"):
        _dismiss()
        st.rerun()


def _release(*, key: str, ledger: Ledger, dataset: Holding, ledger_label: str, cost: str, method: str,
             epsilon: float, delta: float, parts: Mapping[str, float] | None, params: Mapping[str, Any] | None,
             relation: str, make_bundle: Callable[[], Any], utility_note: str | Callable[[], str], state_key: str,
             actor: str, persons: Persons | None = None, settings: SettingsChoice | None = None) -> str:
    """Use up the confirmation, charge, draw, store what was released; "" when done, else what went wrong.

    ``settings`` (how the release's settings were chosen) is kept with the charge and in the bundle's statement.

    Nothing here draws a Streamlit element: a click arriving meanwhile cannot interrupt the run between the
    charge and the stored release (Streamlit stops a run at its next element).
    """
    del st.session_state[_PENDING + key]
    if callable(utility_note):  # only for a release (it may cost a simulation the page did not show); before the
        utility_note = utility_note()  # charge, so that nothing after it can fail on its account
    try:
        record = ledger.charge(dataset, method, epsilon, delta, params=params, parts=parts, relation=relation,
                               label=ledger_label, page=key, session=session_id(), actor=actor, settings=settings)
    except BudgetExceeded as err:
        return f"Release refused: {literal(str(err))}"
    try:
        bundle = _with_ledger_note(make_bundle(), ledger, dataset, record.persons, persons)
        if settings is not None:
            bundle = replace(bundle, settings=settings.to_dict())
    except Exception as err:  # noqa: BLE001 - the charge stays whatever went wrong; say so plainly
        ledger.record_failure(record)
        _log.error("release failed after its charge: %s", type(err).__name__)
        detail = str(err) if isinstance(err, (InputError, ValueError)) else type(err).__name__
        return (f"The release failed after it was charged ({literal(detail)}). Its cost, {cost}, stays spent on "
                f"{literal(ledger_label)}: noise may already have been drawn.")
    ledger.record_values(record, bundle.to_json())  # before anything is shown or exported
    releases().append(bundle)
    note = None
    if utility_note:
        note = CustodianNote(f"Utility of {bundle.method} on {bundle.dataset} at ε = {bundle.epsilon:g} "
                             "(estimated on the custodian's data)", utility_note)
        release_notes().append(note)
    st.session_state[state_key] = bundle
    st.session_state[f"{state_key}_note"] = note
    return ""
