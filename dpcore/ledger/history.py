"""The ledger's history of one data set as a report: every charge, and every release's stored DP values.

Above both :mod:`dpcore.release` (it rebuilds bundles from their stored JSON) and :mod:`dpcore.report`
(it renders them), so neither of those needs the other's direction.
"""

from __future__ import annotations

import math
from typing import Sequence

from dpcore.ledger.rules import ReleaseRecord
from dpcore.release import ReleaseBundle
from dpcore.report import _esc, html_report


def history_report(name: str, records: Sequence[ReleaseRecord]) -> str:
    """One data set's whole history from the ledger: every charge, and every release's stored DP values.

    ``records`` come from ``Ledger.records(key, with_values=True)``; charges whose drawing failed or was
    interrupted cost budget too and are listed, though they have no values.
    """
    epsilon = math.fsum(r.epsilon for r in records)
    delta = math.fsum(r.delta for r in records)
    rows = "".join(
        f"<tr><td>{_esc(r.time)}</td><td>{_esc(r.method)}</td><td>{r.epsilon:g}</td><td>{r.delta:g}</td>"
        f"<td>{_esc(r.page)}</td><td>{_esc(r.status)}</td></tr>"
        for r in records
    )
    preamble = (
        f"<p>{len(records)} charge(s) recorded in the privacy ledger for {_esc(name)}; total by basic composition "
        f"<b>ε = {epsilon:g}, δ = {delta:g}</b>. A charge whose status is not “released” drew no values that left "
        "(its drawing failed or was interrupted) but its cost stays.</p>"
        "<table><tr><th>time (UTC)</th><th>method</th><th>ε</th><th>δ</th><th>page</th><th>status</th></tr>"
        f"{rows}</table>"
    )
    bundles = [ReleaseBundle.from_json(r.values) for r in records if r.values]
    return html_report(bundles, title=f"Privacy ledger history: {name}", preamble=preamble, release_figures=False)
