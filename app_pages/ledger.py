"""Ledger: every release of this session, per data set, with caps and the session report."""

import pandas as pd
import streamlit as st

from dpcore.report import html_report, internal_notes_html
from ui import audits, current_dataset, explain, get_ledger, literal, page_header, release_notes, releases, show_errors

page_header("Ledger & report", "Everything released in this browser session, what it cost, and a printable report.")
explain(
    """
Each release spends privacy budget on one data set (identified by a fingerprint of its contents, so the same data
under another name shares the budget). Costs add up by **basic sequential composition**: the total ε of a data set
is the sum of its releases' ε, and likewise δ. A cap refuses, on every page, any release that would take the total
past it. The ledger lives in this session only; closing the tab discards it.
"""
)

ledger = get_ledger()
tables = st.container()  # filled after the cap form below, so a cap set in this run shows at once

st.subheader("Budget cap")
choices = {ledger.name_of(ds): ds for ds in ledger.datasets()}
current = current_dataset()
if current is not None:
    choices.setdefault(current[0], current[1])
if choices:
    label = st.selectbox("Data set", list(choices), key="cap_dataset")
    fp = choices[label]
    existing = ledger.budget(fp)
    cols = st.columns(2)
    spent_eps, spent_delta = ledger.spent(fp)  # defaults above what is spent (a cap below it cannot be set)
    cap_eps = cols[0].number_input("Total ε cap", min_value=0.01, max_value=100.0,
                                   value=existing.epsilon if existing else min(100.0, max(5.0, 2 * spent_eps)),
                                   key="cap_eps")
    cap_delta = cols[1].number_input("Total δ cap", min_value=0.0, max_value=0.01, format="%.2e",
                                     value=existing.delta if existing else max(1e-5, 2 * spent_delta),
                                     key="cap_delta")
    if st.button("Set cap"):
        with show_errors("Cap not set"):
            ledger.set_budget(fp, cap_eps, cap_delta)
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
                 "relation": r.relation, "time (UTC)": r.time,
                 "parameters": "; ".join(f"{k}={v}" for k, v in r.params.items())}
                for r in records
            ]
        )
        st.subheader("Releases")
        st.dataframe(table, hide_index=True, width="stretch", column_config=_EXACT)
        st.subheader("Totals per data set")
        totals = pd.DataFrame(ledger.summary())
        for cap in ("ε cap", "δ cap"):  # a missing cap reads "no cap", not "None"
            totals[cap] = [f"{v:g}" if v is not None and pd.notna(v) else "no cap" for v in totals[cap]]
        st.dataframe(totals, hide_index=True, width="stretch",  # %g: δ = 2.5e-4 must not read 0.0003
                     column_config={c: st.column_config.NumberColumn(c, format="%g") for c in ("ε spent", "δ spent")})
    else:
        st.info("No release yet in this session. Previews are free; the Release button on each page is charged here.")

st.subheader("Session report")
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
    st.caption("The report becomes available after the first release or audit.")
