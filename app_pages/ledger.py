"""Ledger: every release of the deployment (all sessions), per data set, with caps, histories and reports."""

import pandas as pd
import streamlit as st

from dpcore.ledger import history_report
from dpcore.report import html_report, internal_notes_html
from ui import (
    audits,
    current_dataset,
    explain,
    get_ledger,
    literal,
    page_header,
    release_notes,
    releases,
    session_id,
    show_errors,
)

ledger = get_ledger()
page_header("Ledger & report", "Every release this deployment has made — from any session, tab or server process — "
            "what it cost, the caps, and printable reports.")
explain(
    f"""
Each release spends privacy budget on one data set (identified by a keyed hash of its contents, so the same data
under another name shares the budget). Costs add up by **basic sequential composition**: the total ε of a data set
is the sum of its releases' ε, and likewise δ. A cap refuses, on every page and in every session, any release that
would take the total past it; the charge is recorded before the released values are shown. The ledger is kept in
the server's database ({literal(ledger.location)}): reloading, opening another tab or restarting the server gives no
budget back. It holds costs, public parameters and the released DP values, never the data.
"""
)
session = session_id()
tables = st.container()  # filled after the cap form below, so a cap set in this run shows at once

st.subheader("Budget cap")
names = {ds: ledger.name_of(ds) for ds in ledger.datasets()}
current = current_dataset()
if current is not None:
    names.setdefault(ledger.dataset_key(current[1]), current[0])
if names:
    fp = st.selectbox("Data set", list(names), format_func=lambda ds: f"{names[ds]} · key {ds[:8]}", key="cap_dataset")
    label = names[fp]
    ceiling, existing = ledger.ceiling(fp), ledger.budget(fp)
    if ceiling is not None:
        st.caption(f"The server's configuration caps this data set at ε = {ceiling.epsilon:g}, δ = {ceiling.delta:g} "
                   "(its own cap, or the default for new data sets). A cap can be lowered here, not raised above "
                   "that; see the README, \"The privacy ledger\".")
    cols = st.columns(2)
    spent_eps, spent_delta = ledger.spent(fp)  # defaults above what is spent (a cap below it cannot be set)
    cap_eps = cols[0].number_input("Total ε cap", min_value=0.01, max_value=ceiling.epsilon if ceiling else 100.0,
                                   value=existing.epsilon if existing else min(100.0, max(5.0, 2 * spent_eps)),
                                   key="cap_eps")
    cap_delta = cols[1].number_input("Total δ cap", min_value=0.0, max_value=ceiling.delta if ceiling else 0.01,
                                     format="%.2e", value=existing.delta if existing else max(1e-5, 2 * spent_delta),
                                     key="cap_delta")
    if st.button("Set cap"):
        with show_errors("Cap not set"):
            ledger.set_budget(fp, cap_eps, cap_delta, label=label)
            st.success(f"Cap for {literal(label)}: ε = {cap_eps:g}, δ = {cap_delta:g}.")
else:
    st.caption("Open a method page and pick a data set to set its cap.")

_EXACT = {"ε": st.column_config.NumberColumn("ε", format="%g"), "δ": st.column_config.NumberColumn("δ", format="%g")}
with tables:
    records = ledger.records()
    if records:
        table = pd.DataFrame(
            [
                {"data set": ledger.name_of(r.dataset), "method": r.method, "ε": r.epsilon, "δ": r.delta,
                 "relation": r.relation, "time (UTC)": r.time, "page": r.page,
                 "this session": "✓" if r.session == session else "", "status": r.status,
                 "parameters": "; ".join(f"{k}={v}" for k, v in r.params.items())}
                for r in records
            ]
        )
        st.subheader("Releases (all sessions)")
        st.dataframe(table, hide_index=True, width="stretch", column_config=_EXACT)
        st.subheader("Totals per data set")
        totals = pd.DataFrame(ledger.summary(session=session))
        for cap in ("ε cap", "δ cap"):  # a missing cap reads "no cap", not "None"
            totals[cap] = [f"{v:g}" if v is not None and pd.notna(v) else "no cap" for v in totals[cap]]
        st.dataframe(totals, hide_index=True, width="stretch",  # %g: δ = 2.5e-4 must not read 0.0003
                     column_config={c: st.column_config.NumberColumn(c, format="%g") for c in ("ε spent", "δ spent")})
    else:
        st.info("No release yet in this deployment. Previews are free; the Release button on each page is charged "
                "here.")

st.subheader("A data set's whole history")
released = {ds: names[ds] for ds in dict.fromkeys(r.dataset for r in records)}
if released:
    chosen = st.selectbox("Data set", list(released), format_func=lambda ds: f"{released[ds]} · key {ds[:8]}",
                          key="history_dataset")

    def dataset_history() -> str:  # built on click only: every stored release of the data set
        return history_report(released[chosen], ledger.records(chosen, with_values=True))

    st.download_button("Download its history report (HTML)", dataset_history, "ledger-history.html",
                       mime="text/html", on_click="ignore")
    st.caption("Every charge on this data set from every session, and the DP values each release exported.")
else:
    st.caption("A data set's history report becomes available after its first release.")

st.subheader("Session report")
bundles = releases()
kept_audits = ledger.audit_records()
if kept_audits:
    st.subheader("Audits kept in the ledger")
    st.caption("Every audit run on this deployment (synthetic worst-case neighbours, no data), newest first.")
    st.dataframe(pd.DataFrame([{"time (UTC)": a["time"], "audit": a["subject"],
                                "claimed ε": a["summary"].get("claimed_epsilon"),
                                "empirical ε lower bound": a["summary"].get("epsilon_lower"),
                                "runs": a["summary"].get("n_runs"), "planted bug": a["summary"].get("planted_bug"),
                                "refuted": a["summary"].get("violation")} for a in reversed(kept_audits)]),
                 hide_index=True, width="stretch")

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
