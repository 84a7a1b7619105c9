"""The ledger's history of one data set as a report: every charge, and every release's stored DP values.

Above both :mod:`dpcore.release` (it rebuilds bundles from their stored JSON) and :mod:`dpcore.report`
(it renders them), so neither of those needs the other's direction.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from dpcore.ledger.records import Budget, ReleaseRecord, Spend
from dpcore.release import ReleaseBundle
from dpcore.report import _esc, html_report


def history_report(name: str, records: Sequence[ReleaseRecord],
                   cap_changes: Sequence[Mapping[str, Any]] = (), person_spend: Sequence[Spend] = (),
                   cap: Budget | None = None) -> str:
    """One data set's whole history from the ledger: every charge, who made it, who set its caps, and every
    release's stored DP values.

    ``records`` come from ``Ledger.records(key, with_values=True)``; charges whose drawing failed or was
    interrupted cost budget too and are listed, though they have no values. A charge that reached this data set
    through records it shares with another is marked so. ``cap_changes`` come from ``Ledger.cap_changes(key)``;
    ``person_spend`` (``Ledger.person_spend(dataset=key)``) is what the persons its releases read have spent, shown
    as a distribution against the per-person ``cap`` (counts only: never which person).
    """
    epsilon = math.fsum(r.epsilon for r in records)
    delta = math.fsum(r.delta for r in records)
    rows = "".join(
        f"<tr><td>{_esc(r.time)}</td><td>{_esc(r.method)}</td><td>{r.epsilon:g}</td><td>{r.delta:g}</td>"
        f"<td>{_esc(r.page)}</td><td>{_esc(r.actor)}</td><td>{_esc(r.status)}"
        f"{' (through shared records)' if r.via else ''}</td></tr>"
        for r in records
    )
    caps = "".join(f"<tr><td>{_esc(c['time'])}</td><td>{_esc(c['actor'])}</td><td>{c['epsilon']:g}</td>"
                   f"<td>{c['delta']:g}</td></tr>" for c in cap_changes)
    preamble = (
        f"<p>{len(records)} charge(s) recorded in the privacy ledger for {_esc(name)}; total by basic composition "
        f"<b>ε = {epsilon:g}, δ = {delta:g}</b>. A charge whose status is not “released” drew no values that left "
        "(its drawing failed or was interrupted) but its cost stays.</p>"
        "<table><tr><th>time (UTC)</th><th>method</th><th>ε</th><th>δ</th><th>page</th><th>by</th><th>status</th>"
        f"</tr>{rows}</table>"
    )
    if person_spend:
        preamble += _spend_table(person_spend, cap)
    if caps:
        preamble += ("<h3>Caps set</h3><table><tr><th>time (UTC)</th><th>by</th><th>ε cap</th><th>δ cap</th></tr>"
                     f"{caps}</table>")
    bundles = [ReleaseBundle.from_json(r.values) for r in records if r.values and not r.via]
    return html_report(bundles, title=f"Privacy ledger history: {name}", preamble=preamble, release_figures=False)


def _spend_table(spend: Sequence[Spend], cap: Budget | None) -> str:
    """How many persons have spent how much (rows of equal spend merged), the most-charged, and the cap."""
    totals: dict[tuple[float, float], int] = {}
    for s in spend:
        totals[(round(s.epsilon, 9), round(s.delta, 15))] = totals.get((round(s.epsilon, 9), round(s.delta, 15)), 0) \
            + s.persons
    rows = "".join(f"<tr><td>{e:g}</td><td>{d:g}</td><td>{n:,}</td></tr>" for (e, d), n in sorted(totals.items()))
    most = max(totals)
    over = sum(n for (e, d), n in totals.items() if cap and (e > cap.epsilon + 1e-12 or d > cap.delta + 1e-15))
    verdict = "" if cap is None else (f" Per-person cap: ε = {cap.epsilon:g}, δ = {cap.delta:g}; "
                                      + ("nobody is over it." if not over else f"{over:,} over it."))
    return (f"<h3>Spend per person</h3><p>{sum(totals.values()):,} persons read by releases on this data set; the "
            f"most-charged has spent <b>ε = {most[0]:g}, δ = {most[1]:g}</b> (on every data set that read them).{verdict} "
            "Counts only: the ledger never shows which person has spent what.</p>"
            "<table><tr><th>ε spent</th><th>δ spent</th><th>persons</th></tr>" + rows + "</table>")
