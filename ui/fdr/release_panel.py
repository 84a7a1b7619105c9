"""The FDR page's release panel: who is charged, what blocks a release, the bundle with its script."""

from __future__ import annotations

import math

import streamlit as st

import ui
from dpcore import fdr
from dpcore.fdr import page_text as text
from dpcore.fdr import session
from dpcore.ledger import Holding
from dpcore.notebooks.fdr import page_config
from ui.exports import release_with_script
from ui.fdr.views import summary as over_runs


def _charged(behind) -> dict:
    """The release panel's persons: an uploaded stream charges the cohort behind it (a data set's persons, or a
    declared cohort); a simulated stream reads nobody real and charges nobody (``simulated``)."""
    if isinstance(behind, Holding):
        return {"holding": behind, "ledger_label": ui.get_ledger().name_of(behind.key)}
    return {} if behind is None else {"persons": behind, "ledger_label": behind.source[:1].upper() + behind.source[1:]}


def release(page: session.Page, s: fdr.Settings, method: str, summary, *, button_at, records) -> None:
    """The release panel for ``method`` at the fragment's settings and ε (``summary``: the over-runs table if its view
    computed it; the custodian's note simulates it otherwise)."""
    if not math.isfinite(s.epsilon):
        return

    def utility_note() -> str:
        return session.utility_note(summary if summary is not None else over_runs(page, s), s, method, page)

    if s.rule == "code":
        st.caption(text.RELEASE_RULE)
    config = page_config(page, s, method)
    stream = page.p_runs[0] if page.simulated else page.p
    ui.release_panel(
        key="fdr", dataset_label=page.label, fingerprint=page.fingerprint, **_charged(page.cohort),
        simulated=page.simulated, records=records, method=f"{method} discovery list",
        epsilon=s.epsilon, delta=s.delta, params=session.release_params(page, s), utility_note=utility_note,
        blocked=" ".join(session.release_blockers(page, s, ui.literal)) or None, button_at=button_at,
        make_bundle=lambda: release_with_script(fdr.release(
            stream, alpha=s.alpha, epsilon=s.epsilon, delta=s.delta, sensitivity=page.sens, cutoff=s.cutoff,
            lam=s.lam_paprika, gamma=s.gamma, ai=method == "PAPRIKA AI", dataset=page.label,
            fingerprint=page.fingerprint, labels=page.labels), config),
    )
