"""The ledger's history of one data set as a report: every charge, and every release's stored DP values.

Above both :mod:`dpcore.reporting.release` (it rebuilds bundles from their stored JSON) and :mod:`dpcore.reporting.report`
(it renders them), so neither of those needs the other's direction.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from dpcore.ledger.records import Budget, ReleaseRecord, Spend
from dpcore.reporting.release import ReleaseBundle
from dpcore.reporting.report import _esc, html_report


def history_report(name: str, records: Sequence[ReleaseRecord],
                   cap_changes: Sequence[Mapping[str, Any]] = (), person_spend: Sequence[Spend] = (),
                   cap: Budget | None = None, tight_spend: Sequence[Spend] | None = None) -> str:
    """One data set's whole history from the ledger: every charge, who made it, who set its caps, and every
    release's stored DP values.

    ``records`` come from ``Ledger.records(key, with_values=True)``; charges whose drawing failed or was
    interrupted cost budget too and are listed, though they have no values. A charge that reached this data set
    through records it shares with another is marked so. ``cap_changes`` come from ``Ledger.cap_changes(key)``;
    ``person_spend`` (``Ledger.person_spend(dataset=key)``) is what the persons its releases read have spent, shown
    as a distribution against the per-person ``cap`` (counts only: never which person); ``tight_spend``
    (``Ledger.tight_spend(person_spend, cap)``) is the same rows with the tight ε at the cap's δ that the cap is checked
    on, shown beside basic composition (``None``: the cap is checked on basic composition).
    """
    epsilon = math.fsum(r.epsilon for r in records)
    delta = math.fsum(r.delta for r in records)
    rows = "".join(
        f"<tr><td>{_esc(r.time)}</td><td>{_esc(r.read_from(name))}</td><td>{_esc(r.method)}</td><td>{r.epsilon:g}</td>"
        f"<td>{r.delta:g}</td>"
        f"<td>{_esc(r.page)}</td><td>{_esc(r.actor)}</td><td>{_esc(r.status)}"
        f"{' (through shared records)' if r.via else ''}</td><td>{_esc(r.settings_choice().label)}</td></tr>"
        for r in records
    )
    caps = "".join(f"<tr><td>{_esc(c['time'])}</td><td>{_esc(c['actor'])}</td><td>{c['epsilon']:g}</td>"
                   f"<td>{c['delta']:g}</td></tr>" for c in cap_changes)
    preamble = (
        f"<p>{len(records)} charge(s) recorded in the privacy ledger for {_esc(name)}; total by basic composition "
        f"<b>ε = {epsilon:g}, δ = {delta:g}</b>. A charge whose status is not “released” drew no values that left "
        "(its drawing failed or was interrupted) but its cost stays.</p>"
        "<table><tr><th>time (UTC)</th><th>file read</th><th>method</th><th>ε</th><th>δ</th><th>page</th><th>by</th>"
        "<th>status</th><th>settings</th>"
        f"</tr>{rows}</table>"
    )
    if person_spend:
        preamble += _spend_table(person_spend, cap, tight_spend)
    if caps:
        preamble += ("<h3>Caps set</h3><table><tr><th>time (UTC)</th><th>by</th><th>ε cap</th><th>δ cap</th></tr>"
                     f"{caps}</table>")
    bundles = [ReleaseBundle.from_json(r.values) for r in records if r.values and not r.via]
    return html_report(bundles, title=f"Privacy ledger history: {name}", preamble=preamble, release_figures=False)


def _spend_table(spend: Sequence[Spend], cap: Budget | None, tight: Sequence[Spend] | None) -> str:
    """How many persons have spent how much (rows of equal spend merged), the most-charged, and the cap: by basic
    composition, with the tight ε the cap is checked on beside it where it applies (``tight``)."""
    totals: dict[tuple[float, float, float], int] = {}  # (basic ε, basic δ, tight ε) → persons
    for s, t in zip(spend, spend if tight is None else tight):
        key = (round(s.epsilon, 9), round(s.delta, 15), round(t.epsilon, 9))
        totals[key] = totals.get(key, 0) + s.persons
    basic = f"ε = {max(e for e, _, _ in totals):g}, δ = {max(d for _, d, _ in totals):g}"
    if tight is None:  # the cap is checked on the sums
        over = sum(n for (e, d, _), n in totals.items() if cap and (e > cap.epsilon + 1e-12 or d > cap.delta + 1e-15))
        most, head, cell = f"<b>{basic}</b>", "", ""
    else:  # on the tight ε at the cap's δ (the δ is inside it)
        over = sum(n for (_, _, t), n in totals.items() if t > cap.epsilon + 1e-12)
        most = (f"<b>ε = {max(t for _, _, t in totals):.4g}</b> by tight accounting at δ = {cap.delta:g} (by basic "
                f"composition {basic})")
        head, cell = f"<th>ε spent (tight, at δ = {cap.delta:g})</th>", "<td>{:.4g}</td>"
    rows = "".join(f"<tr>{cell.format(t)}<td>{e:g}</td><td>{d:g}</td><td>{n:,}</td></tr>"
                   for (e, d, t), n in sorted(totals.items()))
    verdict = "" if cap is None else (f" Per-person cap: ε = {cap.epsilon:g}, δ = {cap.delta:g}; "
                                      + ("nobody is over it." if not over else f"{over:,} over it."))
    return (f"<h3>Spend per person</h3><p>{sum(totals.values()):,} persons read by releases on this data set; the "
            f"most-charged has spent {most} (on every data set that read them).{verdict} "
            "Counts only: the ledger never shows which person has spent what.</p>"
            f"<table><tr>{head}<th>ε spent (basic)</th><th>δ spent (basic)</th><th>persons</th></tr>{rows}</table>")
