"""Ledger: the releases of the data sets this person may see (all sessions), with caps, histories and reports.

A custodian sees and caps their own data sets; a reviewer reads those granted to them; a visitor sees no ledger.
Nothing here depends on another custodian's data (issue: cross-visitor leaks).
"""

import pandas as pd
import streamlit as st

from dpcore.access import CUSTODIAN, VISITOR
from dpcore.ledger.records import NOBODY, SPEND_EXPLAINED
from dpcore.ledger.figures import person_spend_figure
from dpcore.ledger import history_report
from dpcore.reporting.release import spreadsheet_safe
from dpcore.reporting.report import html_report, internal_notes_html
from ui import (
    audits,
    explain,
    get_ledger,
    literal,
    page_header,
    release_notes,
    releases,
    session_id,
    show_errors,
)
from ui.identity import current_person, how_to_become
from ui.chart import chart
from dpcore.provenance import SETTINGS_CHOSEN_EXPLAINED
from ui.state import opened_datasets, readable_scopes

ledger = get_ledger()
person = current_person()
page_header("Ledger & report", "The releases of your data sets — from any session, tab or server process — what "
            "they cost, the caps, and printable reports.")
st.caption("A budget belongs to a person: each release is charged to every person it reads, named by the person "
           "column you chose (or, without one, by the whole uploaded row), whatever file, columns, units or "
           "sub-cohort it comes in. Budgets are per custodian. A custodian who invents identifiers, edits values or "
           "transforms a file outside the app without an id column can still spend twice: the ledger protects people "
           "against honest reuse.")
explain(
    f"""
Each release spends privacy budget on **every person it reads**. A person is named by the person column of an upload
(a patient id, a COSMIC id), or, without one, by the **whole uploaded row** (every column; numbers as numbers; any
column or row order, text case or spacing). Every key a row has — its id under any person column, its content — is
linked to the others for good, so choosing another person column or none, other responses, features, groups, units or
sub-cohorts inside the app never makes new people, and a re-export of most of a file's rows (without its ids, in
another case) meets the same budget. An unrelated cohort shares nothing unless it shares identifiers, or most of its
whole rows. Identical rows without an id column are refused unless declared different people. An online-FDR stream
charges the cohort its p-values came from. Bundled sets name their persons by a documented rule (R's row order;
GDSC's COSMIC ids).

A person's spend is the composition of every release that read them. Each release records the privacy events its
mechanism ran, and the cap is checked on the person's **tight ε at the cap's δ** (privacy-loss distributions from
Google's dp-accounting, RDP as a check, never above **basic composition** — the sum of ε and of δ — which is shown
beside it). {SPEND_EXPLAINED} Ten regressions with Gaussian noise at ε = 1 cost a person about ε = 1.4 at
δ = 10⁻³, not 10. The cap
is **per person**: a release is refused, on every page and in every session, if it would take
any person it reads past it; the refusal says how many and by how much, never which. The charge is recorded before
the released values are shown. The ledger is kept in the server's database ({literal(ledger.location)}): reloading,
opening another tab or restarting the server gives no budget back. It holds costs, public parameters, the released
DP values and keyed digests of person identifiers (never the identifiers, never the data).

What it cannot do: a custodian who invents identifiers, edits values, or transforms a file outside the app (days →
months) without a person column makes new people and can spend twice. The ledger protects people against honest
reuse by their custodian; budgets are per custodian, and it never tells anyone whether their data matches another
custodian's.
"""
)
session = session_id()
scopes = readable_scopes(person)
is_custodian = person.role == CUSTODIAN
tables = st.container()  # filled after the cap form below, so a cap set in this run shows at once

if person.role == VISITOR:
    st.info("The ledger is shown to data custodians and the reviewers they grant it to: to see it, "
            f"{how_to_become('a custodian or reviewer')}.",
            icon=":material/lock:")
elif is_custodian:
    st.header("Budget cap")
    # the data sets opened in this session, the latest first (a cap can precede the first release), then the
    # others with a release or a cap
    names = dict(reversed(opened_datasets(person.scope).items()))
    for ds in ledger.datasets(scopes=(person.scope,)):
        names.setdefault(ds, ledger.name_of(ds))
    if names:
        fp = st.selectbox("Data set", list(names), format_func=lambda ds: f"{names[ds]} · key {ds[:8]}",
                          key="cap_dataset")
        label = names[fp]
        ceiling, existing = ledger.ceiling(fp), ledger.budget(fp)
        if ceiling is not None:
            st.caption(f"The server's configuration caps this data set at ε = {ceiling.epsilon:g}, "
                       f"δ = {ceiling.delta:g} (its own cap, or the default for new data sets). A cap can be lowered "
                       "here, not raised above that; see docs/privacy-model.md, \"The privacy ledger\".")
        cols = st.columns(2)
        spent_eps, spent_delta = ledger.spent(fp)  # defaults above what is spent (a cap below it cannot be set)
        cap_eps = cols[0].number_input("Total ε cap", min_value=0.01,
                                       max_value=ceiling.epsilon if ceiling else 100.0,
                                       value=existing.epsilon if existing else min(100.0, max(5.0, 2 * spent_eps)),
                                       key="cap_eps")
        cap_delta = cols[1].number_input("Total δ cap", min_value=0.0, max_value=ceiling.delta if ceiling else 0.01,
                                         format="%.2e",
                                         value=existing.delta if existing else max(1e-5, 2 * spent_delta),
                                         key="cap_delta")
        if st.button("Set cap"):
            with show_errors("Cap not set"):
                ledger.set_budget(fp, cap_eps, cap_delta, label=label, scope=person.scope, actor=person.id)
                st.success(f"Cap for {literal(label)}: ε = {cap_eps:g}, δ = {cap_delta:g}.")
    else:
        st.caption("Open a method page and pick a data set to set its cap.")

def _person_spend_section(scopes: tuple[str, ...]) -> None:
    """How many persons have spent how much, against the cap: a reviewer sees at a glance that nobody is over."""
    spend = ledger.person_spend(scopes=scopes)
    st.header("Spend per person")
    if not spend:
        st.caption("No person has been read by a release yet.")
        return
    cap = ledger.ceiling("")
    people = sum(s.persons for s in spend)
    basic = max(spend, key=lambda s: (s.epsilon, s.delta))
    tight = ledger.tight_spend(spend, cap)
    checked = spend if tight is None else tight
    rule = "basic composition" if tight is None else f"tight accounting at δ = {cap.delta:g}"
    chart(person_spend_figure(checked, cap.epsilon if cap else None, rule=rule), key="ledger_person_spend")
    most = max(checked, key=lambda s: s.epsilon)
    over = sum(s.persons for s in checked if cap and s.epsilon > cap.epsilon + 1e-12)
    st.markdown(f"**{people:,}** persons read by releases. The most-charged has spent **ε = {most.epsilon:.4g}** by "
                f"{rule} over {most.releases} release{'s' if most.releases != 1 else ''}"
                + ("" if tight is None else f"; by basic composition the most is ε = {basic.epsilon:g}, "
                   f"δ = {basic.delta:g}")
                + (f". The deployment's per-person cap: ε = {cap.epsilon:g}, δ = {cap.delta:g}; "
                   + ("nobody is over it" if not over else f"{over:,} over it: caps lowered after their releases")
                   if cap else "") + ".")
    st.dataframe(pd.DataFrame([{"persons": s.persons, "releases": s.releases, "ε (as checked)": c.epsilon,
                                "ε (basic)": s.epsilon, "δ (basic)": s.delta} for s, c in zip(spend, checked)]),
                 hide_index=True, column_config={c: st.column_config.NumberColumn(c, format="%.4g")
                                                 for c in ("ε (as checked)", "ε (basic)", "δ (basic)")})
    st.caption("Counts only: the ledger never shows which person has spent what. A data set's own cap may be lower "
               "than the deployment's; it binds the releases made on that data set.")


_EXACT = {"ε": st.column_config.NumberColumn("ε", format="%g"), "δ": st.column_config.NumberColumn("δ", format="%g")}
records = ledger.records(scopes=scopes) if scopes else []
with tables:
    if records:
        ids = {r.id: r for r in records}
        table = pd.DataFrame(
            [
                {"file read": r.read_from(ledger.name_of(r.dataset)), "data set": ledger.name_of(r.dataset),
                 "method": r.method, "ε": r.epsilon, "δ": r.delta,
                 "relation": r.relation, "time (UTC)": r.time, "page": r.page,
                 "persons read": ("nobody (simulated data)" if r.persons == NOBODY else
                                  r.persons or "(before per-person budgets)"),
                 "charged through": ledger.name_of(ids[r.via].dataset) if r.via in ids else "",
                 "this session": "✓" if r.session == session else "", "by": r.actor, "status": r.status,
                 "settings chosen": r.settings_choice().label,
                 "parameters": "; ".join(f"{k}={v}" for k, v in r.params.items())}
                for r in records
            ]
        )
        if not any(r.via for r in records):  # schema 2's charges through shared records, if this ledger has any
            table = table.drop(columns="charged through")
        st.header("Releases (all sessions)")
        st.dataframe(spreadsheet_safe(table), hide_index=True, width="stretch", column_config=_EXACT)
        st.caption(SETTINGS_CHOSEN_EXPLAINED)
        _person_spend_section(scopes)
        st.header("Totals per data set")
        totals = pd.DataFrame(ledger.summary(session=session, scopes=scopes))
        for cap in ("ε cap", "δ cap"):  # a missing cap reads "no cap", not "None"
            totals[cap] = [f"{v:g}" if v is not None and pd.notna(v) else "no cap" for v in totals[cap]]
        totals["ε spent (tight)"] = [f"{v:.4g}" if v is not None and pd.notna(v) else "not used"
                                     for v in totals["ε spent (tight)"]]
        st.dataframe(spreadsheet_safe(totals), hide_index=True, width="stretch",  # %g: δ = 2.5e-4 must not read 0.0003
                     column_config={c: st.column_config.NumberColumn(c, format="%g") for c in ("ε spent", "δ spent")})
        st.caption("Per data set: the releases made on it, the persons they read, and the most-charged of those "
                   "persons (what they spent on every data set that read them): ε and δ spent by basic composition, "
                   "and ε spent (tight), the tight ε at the cap's δ that the cap is checked on (\"not used\" where the "
                   "cap has no δ, there is no cap, or the deployment uses basic composition).")
    elif person.role != VISITOR:
        st.info("No release yet on your data sets. Previews are free; the Release button on each page is charged "
                "here." if is_custodian else "No release yet on the data sets granted to you.")

if records:
    st.header("A data set's whole history")
    released = {ds: ledger.name_of(ds) for ds in dict.fromkeys(r.dataset for r in records)}
    chosen = st.selectbox("Data set", list(released), format_func=lambda ds: f"{released[ds]} · key {ds[:8]}",
                          key="history_dataset")

    def dataset_history() -> str:  # built on click only: every stored release of the data set
        spend, cap = ledger.person_spend(scopes, chosen), ledger.budget(chosen)
        return history_report(released[chosen], ledger.records(chosen, scopes=scopes, with_values=True),
                              ledger.cap_changes(chosen), spend, cap, ledger.tight_spend(spend, cap))

    st.download_button("Download its history report (HTML)", dataset_history, "ledger-history.html",
                       mime="text/html", on_click="ignore")
    st.caption("Every charge on this data set from every session, who made it, who set its caps, and the DP values "
               "each release exported.")

if is_custodian and person.id != "local":
    st.header("Reviewers")
    st.caption("A reviewer you name here reads the ledger and history reports of your data sets; they cannot release "
               "or change caps. Use the id shown in their sidebar.")
    reviewer = st.text_input("Reviewer's id", key="grant_reviewer", max_chars=320)
    if st.button("Grant read access", disabled=not reviewer.strip()):
        ledger.grant_review(person.scope, reviewer.strip(), actor=person.id)
        st.success("Granted: they see your data sets' ledger after their next page load.")

kept_audits = ledger.audit_records()
if kept_audits:
    st.header("Audits kept in the ledger")
    st.caption("Every audit run on this deployment (synthetic worst-case neighbours, no data), newest first.")
    # minutes, not raw ISO timestamps; the audit's name gets the room (it names the method and the pair)
    st.dataframe(pd.DataFrame([{"time (UTC)": pd.Timestamp(a["time"]).strftime("%Y-%m-%d %H:%M"),
                                "audit": a["subject"],
                                "claimed ε": a["summary"].get("claimed_epsilon"),
                                "empirical ε lower bound": a["summary"].get("epsilon_lower"),
                                "runs": a["summary"].get("n_runs"), "planted bug": a["summary"].get("planted_bug"),
                                "refuted": a["summary"].get("violation")} for a in reversed(kept_audits)]),
                 hide_index=True, width="stretch",
                 column_config={"audit": st.column_config.TextColumn("audit", width="large"),
                                "claimed ε": st.column_config.NumberColumn("claimed ε", format="%g"),
                                "empirical ε lower bound": st.column_config.NumberColumn(
                                    "empirical ε lower bound", format="%.3f"),
                                "runs": st.column_config.NumberColumn("runs", format="localized")})

st.header("Session report")
bundles = releases()
notes, audit_results = list(release_notes()), list(audits())
if bundles or audit_results:

    def session_report() -> str:  # built on click only: several MB with Plotly inlined
        return html_report(bundles, title="Session privacy report", audits=audit_results)

    st.download_button("Download the session report (HTML, printable to PDF)", session_report, "session-report.html",
                       mime="text/html", on_click="ignore")
    st.caption(f"{len(bundles)} release(s) and {len(audit_results)} audit(s); the report contains DP values, "
               "public parameters and audits on synthetic pairs only.")
    if notes and st.toggle("Custodian's internal notes (not private)", key="internal_session",
                           help="Utility estimated on the private data without noise: a separate file for the "
                                "custodian's own review, never to be shared with the report."):
        st.download_button("Download internal notes (HTML, not private)", lambda: internal_notes_html(notes),
                           "session-internal-notes-not-private.html", mime="text/html", on_click="ignore")
else:
    st.caption("The report becomes available after the first release or audit of this session.")
