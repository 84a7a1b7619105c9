"""Self-contained HTML reports of releases, for stakeholder review, and the custodian's internal notes.

Two documents, never one: :func:`html_report` may leave the custodian's hands,
so it holds only what releases contain (DP tables, DP figures, public
parameters) and audits of the mechanisms on synthetic neighbouring pairs;
:func:`internal_notes_html` holds the custodian's utility notes, computed on
the private data without noise, in a separate file labelled "internal, not
private" that pages offer only when asked. Plain HTML with Plotly's
JavaScript inlined once (no network needed to open it; the browser's
Print → PDF gives the paper copy).

Which figures a release's report shows is decided here (:func:`dpcore.reporting.release_figures.figures_for`),
not by the release: releases return data. This module reads bundles by their attributes and does not
import :mod:`dpcore.reporting.release` (which imports it, for the ZIP); the ledger's history report, which
rebuilds bundles from stored JSON, is in :mod:`dpcore.ledger.history`.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Iterable, Sequence

from dpcore import __version__

from dpcore.reporting import alt_text
from dpcore.core.audit import AuditResult
from dpcore.provenance import CHANGED, SELECTED, SettingsChoice
from dpcore.reporting.release_figures import figures_for

_STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;
color:#1f2430;line-height:1.5}
h1{font-size:1.7em;margin-bottom:.2em}h2{border-bottom:2px solid #e3e6ee;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}td,th{border:1px solid #d5d9e2;padding:.25em .6em;
text-align:right}th{background:#f3f5f9}td:first-child,th:first-child{text-align:left}
.statement{background:#eef6ee;border-left:4px solid #2e7d32;padding:.7em 1em}
.custodian{background:#fff6e5;border-left:4px solid #e69500;padding:.7em 1em}
.internal{background:#fdecea;border:3px solid #c62828;padding:.7em 1em;font-weight:600}
.muted{color:#5b6272;font-size:.9em}code{background:#f3f5f9;padding:0 .25em}
@media print{.plotly-graph-div{page-break-inside:avoid}}
"""


@dataclass(frozen=True)
class CustodianNote:
    """Utility information computed on the private data without noise: internal, never in a shareable report."""

    title: str
    text: str


def _esc(value) -> str:
    return html.escape(str(value))


def _table_html(table, max_rows: int = 60) -> str:
    shown = table.head(max_rows)
    body = shown.to_html(index=False, float_format=lambda v: f"{v:.6g}", border=0, escape=True)
    more = f"<p class='muted'>… {len(table) - max_rows} more rows in this release's CSV (its ZIP download on the method page).</p>" if len(table) > max_rows else ""
    return body + more


def figure_html(fig, *, include_plotlyjs: bool) -> str:
    """A figure with its text alternative: its one-line summary as the caption a screen reader reads first, and
    its plotted numbers as tables in a collapsed box (:mod:`dpcore.reporting.alt_text`; from the figure alone, so a
    figure of released values has a text alternative of released values only)."""
    tables = "".join(f"<p><b>{_esc(name)}</b></p>" + _table_html(table, max_rows=len(table))
                     for name, table in alt_text.tables(fig).items())
    return (f"<figure><figcaption>{_esc(alt_text.summary(fig))}</figcaption>"
            + fig.to_html(full_html=False, include_plotlyjs=include_plotlyjs, config={"responsive": True})
            + f"<details><summary>Figure data</summary>{tables}</details></figure>")


def _params_html(params) -> str:
    rows = "".join(f"<tr><td>{_esc(k)}</td><td>{_esc(v)}</td></tr>" for k, v in params.items())
    return f"<table><tr><th>public parameter</th><th>value</th></tr>{rows}</table>"


def _inputs_heading(choice: SettingsChoice) -> str:
    """The parameters' heading: "public" only as far as the record of how they were chosen allows."""
    if choice.how == CHANGED:
        return f"Settings ({', '.join(choice.changed)} changed after previews of the private rows)"
    if choice.how == SELECTED:
        return "Public inputs (fixed without looking at the data, or chosen by the charged private selection above)"
    return "Public inputs (fixed without looking at the data)"


def _document(title: str, body: Iterable[str]) -> str:
    return "".join([
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{_esc(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_esc(title)}</h1>",
        *body,
        "</body></html>",
    ])


def html_report(bundles: Sequence, *, title: str | None = None, audits: Iterable[AuditResult] = (),
                preamble: str = "", release_figures: bool = True) -> str:
    """Render releases (``dpcore.reporting.release.ReleaseBundle``) as one printable, shareable HTML page.

    DP values and public parameters only. Audit results may be added: they are
    computed on synthetic worst-case neighbouring pairs, not on anyone's data.
    Utility notes on the private data go into :func:`internal_notes_html`.
    ``preamble`` is an HTML fragment (already escaped) shown under the title.
    ``release_figures=False`` leaves out the figures :func:`~dpcore.reporting.release_figures.figures_for` would
    draw from each release's tables (the ledger's history lists stored values only).
    """
    plotly_js_included = False
    parts = [f"<p class='muted'>Generated by dpcore {__version__}. Contains differentially private values and "
             "public parameters only.</p>", preamble]
    if len(bundles) > 1:
        totals: dict[str, list[float]] = {}
        for b in bundles:  # composition adds up per data set (releases on different people do not compose)
            eps_delta = totals.setdefault(b.dataset, [0.0, 0.0])
            eps_delta[0] += b.epsilon
            eps_delta[1] += b.delta
        parts.append(
            f"<p>{len(bundles)} releases. Total cost by basic composition, per data set: "
            + "; ".join(f"{_esc(name)}: <b>ε = {e:g}, δ = {d:g}</b>" for name, (e, d) in totals.items()) + ".</p>"
        )
    for bundle in bundles:
        parts.append(f"<h2>{_esc(bundle.method)} — {_esc(bundle.dataset)}</h2>")
        parts.append(
            f"<p><b>Cost:</b> ε = {bundle.epsilon:g}, δ = {bundle.delta:g}"
            + (
                " (parts: " + ", ".join(f"{_esc(k)} {v:g}" for k, v in bundle.parts.items()) + ")"
                if bundle.parts
                else ""
            )
            + f". <b>Released:</b> {_esc(bundle.created)}.</p>"
        )
        parts.append(f"<div class='statement'>{_esc(bundle.statement)}</div>")
        choice = bundle.settings_choice
        parts.append(f"<p class='settings-chosen'><b>How the settings were chosen:</b> {_esc(choice.sentence())} "
                     f"{_esc(choice.meaning())}</p>")
        parts.append("<h3>Mechanisms and sensitivities</h3><ul>")
        parts.extend(f"<li>{_esc(m)}</li>" for m in bundle.mechanisms)
        parts.append(f"</ul><h3>{_esc(_inputs_heading(choice))}</h3>" + _params_html(bundle.public_params))
        if bundle.derived_params:
            parts.append("<h3>Derived from this release's DP outputs (post-processing)</h3>"
                         + _params_html(bundle.derived_params))
        if bundle.notes:
            parts.append("<ul>" + "".join(f"<li>{_esc(n)}</li>" for n in bundle.notes) + "</ul>")
        for name, fig in (figures_for(bundle) if release_figures else bundle.figures).items():
            parts.append(f"<h3>{_esc(name)}</h3>")
            parts.append(figure_html(fig, include_plotlyjs=not plotly_js_included))
            plotly_js_included = True
        for name, table in bundle.tables.items():
            parts.append(f"<h3>Released table: {_esc(name)}</h3>" + _table_html(table))
    audits = list(audits)
    if audits:
        parts.append("<h2>Privacy audits of the mechanisms</h2>")
        parts.append("<p class='muted'>Empirical lower bounds on ε from many runs of a mechanism on synthetic "
                     "worst-case neighbouring data sets (not on the released data).</p>")
        for result in audits:
            heading = "Privacy audit" + (f" — {result.subject}" if result.subject else "")
            parts.append(f"<h3>{_esc(heading)}</h3><p>{_esc(result.describe())}</p>")
    return _document(title or "Differential privacy release report", parts)


def internal_notes_html(notes: Iterable[CustodianNote], *, title: str | None = None) -> str:
    """The custodian's utility notes as a separate HTML file, labelled internal and not private on every page."""
    banner = ("<p class='internal'>INTERNAL — NOT DIFFERENTIALLY PRIVATE. These estimates were computed on the "
              "private data without noise to judge utility. Keep them with the data custodian: they are not part "
              "of any release and must not be shared with the release or its report.</p>")
    parts = [banner]
    for note in notes:
        parts.append(f"<h2>{_esc(note.title)}</h2><p>{_esc(note.text)}</p>")
    parts.append(banner)
    return _document(title or "Custodian's internal notes (not private)", parts)
