"""The survival page's question: which data (a bundled set or an upload mapped to its roles) and whether to compare
groups."""

from __future__ import annotations

import streamlit as st

import ui
from dpcore import survival as sv
from dpcore.core import columns
from dpcore.core.datasets import load_survival, survival_names, survival_title
from dpcore.survival import page_text as text
from dpcore.survival import session as ss

NONE = "(none)"


def data_source(q_source, q_data) -> tuple[ss.Source, str]:
    """The data source control and the data set (or the upload's column mapping); the source and the note on a
    bundled set's provenance. Stops the page until an upload can be used."""
    with q_source:
        kind = ui.url_radio("Data source", key="sv_src", options=["bundled", "upload"], horizontal=True,
                            format_func=lambda s: {"bundled": "bundled data", "upload": "upload a CSV"}[s])
    if kind == "bundled":
        with q_data:
            name = ui.url_selectbox("Data set", key="sv_data", options=survival_names(), format_func=survival_title)
        src = ss.bundled_source(name)
        return src, _data_note(src, load_survival(name).provenance)
    with q_source:  # where a custodian is about to read a private file: the path that fixes settings first
        ui.plan_first_link("survival")
    src = _upload()
    if src is None:
        st.stop()
    return src, ""


def _data_note(src: ss.Source, prov: dict) -> str:
    """A bundled set's source, licence and public metadata."""
    return (f"Source: {prov['source']} · licence: {prov['licence']} · {prov['rows']} people · public metadata: "
            f"time in {src.time_unit}, horizon {src.horizon:g} {src.time_unit}"
            + (f", groups by {ui.literal(src.group_label)}: {ui.literal(', '.join(src.groups))}"
               if src.groups else "")
            + (f", event types: {', '.join(src.event_labels)}" if len(src.event_labels) > 1 else "") + ". ")


def _upload() -> ss.Source | None:
    table = ui.upload_csv("sv_upload", label="Upload a CSV (one row per person)", hint=text.UPLOAD_HINT)
    if table is None:
        return None
    frame, fp, name = table
    persons = table.persons
    cols = list(frame.columns)
    guessed = columns.survival_roles(frame)
    tguess, eguess, gguess = guessed["time"], guessed["event"], guessed["group"]
    unit_guess = columns.time_unit(tguess.column) or "days"
    ui.reset_when_changed("_sv_upload_columns", tuple(cols),
                          dict(sv_tcol=cols[tguess.index_in(cols)],
                               sv_ecol=cols[eguess.index_in(cols, min(1, len(cols) - 1))],
                               sv_gcol=gguess.column or NONE, sv_glabels="", sv_tunit=unit_guess))
    if columns.describe(guessed.values()):
        st.caption(ui.literal(columns.describe(guessed.values())))
    m1, m2, m3 = st.columns(3)
    with m1:
        tcol = ui.url_selectbox("Time column", key="sv_tcol", options=cols, index=tguess.index_in(cols))
    with m2:
        ecol = ui.url_selectbox("Event column (0 = censored, 1..K)", key="sv_ecol", options=cols,
                                index=eguess.index_in(cols, min(1, len(cols) - 1)))
    with m3:
        gcol = ui.url_selectbox("Group column (optional)", key="sv_gcol", options=[NONE] + cols,
                                index=gguess.index_in([NONE] + cols))
    c1, c2 = st.columns(2)
    with c1:
        unit = ui.url_selectbox("Unit of the time column", key="sv_tunit", options=ss.UNITS,
                                index=ss.UNITS.index(unit_guess), help=text.TIME_UNIT_HELP)
    with c2:
        n_types = int(ui.url_number("Number of event types K (2+ = competing risks)", key="sv_k", min_value=1,
                                    max_value=5, value=1, step=1))
    labels = None
    if gcol != NONE:
        labels = st.text_input(
            f"Group labels in {ui.literal(repr(gcol))} (public: as fixed by the study design, comma-separated)",
            key="sv_glabels", placeholder="e.g. control, treatment", help=text.GROUP_LABELS_HELP)
        labels = [g.strip() for g in labels.split(",") if g.strip()]
        if not labels:
            st.info(ui.literal(text.groups_not_declared(gcol)), icon=":material/info:")
            gcol = NONE
    with ui.show_errors("The uploaded file cannot be used"):
        m = sv.survival_from_frame(frame, time_col=tcol, event_col=ecol, group_col=None if gcol == NONE else gcol,
                                   group_labels=labels, n_types=n_types)
        warning = sv.time_unit_warning(m.time, unit, columns.time_unit(tcol))
        if warning:
            st.warning(warning, icon=":material/warning:")
        return ss.upload_source(m, label=f"{name} (uploaded)", fp=fp, group_column=None if gcol == NONE else gcol,
                                unit=unit, persons=persons, frame=frame)
    return None


def upload_columns() -> dict:
    """How the upload's columns map to the roles, for the notebook (it reads the user's CSV from a path)."""
    get, gcol = ui.held, ui.held("sv_gcol", NONE)
    labels = tuple(g.strip() for g in get("sv_glabels", "").split(",") if g.strip())  # ' 1' is the label '1'
    grouped = gcol != NONE and bool(labels)  # without declared labels the page pools everyone
    return dict(time_col=get("sv_tcol"), event_col=get("sv_ecol"), group_col=gcol if grouped else None,
                group_labels=labels if grouped else None,
                n_types=int(get("sv_k", 1)), time_unit=get("sv_tunit", ss.UNITS[0]))


def compare_toggle(src: ss.Source, q_compare) -> bool:
    """The question's second half: one curve, or one per group and a log-rank test."""
    with q_compare:
        return bool(src.groups) and ui.url_toggle(
            f"Compare by {ui.literal(src.group_label or 'group')}", key="sv_cmp", value=True, help=text.COMPARE_HELP)
