"""The regression attacker's pair: prepared records and their neighbour with one record replaced.

A is the (prepared) records as they are; B replaces record ``index`` by another ``(x, y)`` (replace-one, ``n``
public). The release is the clipped sufficient statistics ``nxx, nxy, nyy``, each with Laplace noise of scale
its sensitivity over its share of ε (:func:`dpcore.regression.stat_noise`; proofs in
:mod:`dpcore.regression.statistic`).

Why it is the worst case it claims to be: each block's shift is at most its sensitivity, so the attacker's
privacy loss is at most ``Σ shift / scale ≤ ε`` and its ROC stays inside the ε-DP region, however the record is
chosen. A record at a corner of the clipping box (``|x_j| = Bx``) whose response flips from ``By`` to ``−By``
moves ``nxy`` by its whole sensitivity ``2 d Bx By`` and leaves ``nxx`` and ``nyy`` unchanged: for that block
the worst case exactly. Other pairs move less, and the view shows how much less the attacker then learns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from dpcore.core.pairs import Block, NeighbourPair
from dpcore.regression.linalg import triu_pack
from dpcore.regression.mechanism import stat_noise
from dpcore.regression.statistic import sufficient_stats


def regression_pair(X, y, *, epsilon: float, index: int, alt_x, alt_y: float, bx: float, by: float,
                    split: Sequence[float] | None = None) -> NeighbourPair:
    """A: the (prepared) records as they are; B: record ``index`` replaced by ``(alt_x, alt_y)``.

    The release is the clipped sufficient statistics ``nxx, nxy, nyy`` with
    Laplace noise (:func:`dpcore.regression.stat_noise`). Without noise the
    attacker subtracts the n − 1 known records' statistics and is left with
    ``x xᵀ``, ``x y`` and ``y²`` of the last (clipped) record: ``|y| = √(y²)``
    and ``x = (x y)/y`` recover the record up to a joint sign.
    """
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    if not 0 <= index < y.size:
        raise ValueError(f"record {index + 1} does not exist (the data set has {y.size})")
    X_b, y_b = X.copy(), y.copy()
    X_b[index], y_b[index] = np.asarray(alt_x, dtype=float), float(alt_y)
    noise = stat_noise(X.shape[1], bx, by, epsilon, *(() if split is None else (split,)))
    s_a, s_b = sufficient_stats(X, y, bx, by), sufficient_stats(X_b, y_b, bx, by)
    known = sufficient_stats(np.delete(X, index, axis=0), np.delete(y, index), bx, by)

    def recovered(s) -> str:
        r_yy, r_xy, r_xx = float(s.nyy - known.nyy), s.nxy - known.nxy, s.nxx - known.nxx
        y_abs = math.sqrt(max(r_yy, 0.0))
        x_hat = r_xy / y_abs if y_abs > 1e-12 else np.sqrt(np.clip(np.diag(r_xx), 0.0, None))
        return f"±(x = ({', '.join(f'{v:.3g}' for v in x_hat)}), y = {y_abs:.3g})"

    blocks = tuple(Block(nz, triu_pack(sa) if nz is noise.xx else sa, triu_pack(sb) if nz is noise.xx else sb)
                   for nz, sa, sb in ((noise.xx, s_a.nxx, s_b.nxx), (noise.xy, s_a.nxy, s_b.nxy),
                                      (noise.yy, np.atleast_1d(s_a.nyy), np.atleast_1d(s_b.nyy))))
    if all(np.array_equal(b.a, b.b) for b in blocks):
        reveal = ("After clipping, both values give the same statistics, so even without noise the release is "
                  "identical on A and B: the attacker cannot tell them apart.")
    else:
        reveal = (f"The attacker subtracts the statistics of the {y.size - 1} records they know and "
                  f"solves for the last one (clipped to ±{bx:.3g}, ±{by:.3g}, up to a joint sign): under A they "
                  f"recover {recovered(s_a)}, under B {recovered(s_b)} — right 100 % of the time.")
    fmt = lambda v: ", ".join(f"{float(t):.3g}" for t in np.atleast_1d(v))
    return NeighbourPair(
        "regression", f"record {index + 1} replaced",
        f"A: the records as they are (record {index + 1}: x = ({fmt(X[index])}), y = {y[index]:.3g}); "
        f"B: the same record with x = ({fmt(alt_x)}), y = {float(alt_y):.3g}.",
        blocks, reveal)
