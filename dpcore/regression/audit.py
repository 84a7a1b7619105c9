"""Black-box audit scenarios of the statistics' Laplace mechanism."""

from __future__ import annotations

import numpy as np

from dpcore.audit import AuditScenario
from dpcore.regression.linalg import DEFAULT_SPLIT, METHOD, triu_pack
from dpcore.regression.mechanism import stat_noise
from dpcore.regression.posterior import posterior_fixed
from dpcore.regression.statistic import sufficient_stats


def audit_scenarios(epsilon: float):
    """Worst-case neighbours for each statistic release and for the whole fit (d = 1, n = 20).

    Every scenario claims ``epsilon``: a statistic's scenario audits that
    statistic's Laplace release when its share ``p_i ε_total`` equals
    ``epsilon`` (i.e. a release with total ``epsilon / p_i``); the whole-fit
    scenario audits a release with total ``epsilon``. With one feature the
    summary (the released value itself) carries the full privacy loss, so a
    halved noise scale doubles the loss and is caught. Bounds ``Bx = 0.5``,
    ``By = 1``; the other 19 records are zeros.

    * ``nxy``: A holds one record at the clipping corner ``(x, y) = (+Bx, +By)``,
      B replaces it by ``(+Bx, −By)`` (the response flipped) — ``nxy`` moves by
      exactly its sensitivity ``2BxBy``. Bug: noise halved.
    * ``nyy``: A holds a response at the bound ``+By``, B replaces it by 0 —
      ``nyy`` moves by exactly ``By²``. Bug: noise halved.
    * ``nxx``: A holds a feature 5× beyond ``Bx``, B replaces it by 0 (``nxx``
      is sign-blind, so no pair reaches its ``2Bx²`` bound at d = 1 and a halved
      scale would go unseen). Bug: clipping skipped (the record then moves
      ``nxx`` by ``25 Bx²``).
    * whole fit: A holds ``(5Bx, 5By)``, B ``(5Bx, −5By)``; summary is the
      posterior mean coefficient (λ = λ0 = 1) from all three noisy
      statistics. Bug: clipping skipped.
    """
    bx, by, n = 0.5, 1.0, 20
    p = DEFAULT_SPLIT
    eps = float(epsilon)

    def records(x0: float, y0: float) -> tuple[np.ndarray, np.ndarray]:
        X, y = np.zeros((n, 1)), np.zeros(n)
        X[0, 0], y[0] = x0, y0
        return X, y

    pairs = {
        "nxy": (records(bx, by), records(bx, -by)),
        "nyy": (records(0.0, by), records(0.0, 0.0)),
        "nxx": (records(5 * bx, 0.0), records(0.0, 0.0)),
        "fit": (records(5 * bx, 5 * by), records(5 * bx, -5 * by)),
    }
    total = {"nxx": eps / p[0], "nxy": eps / p[1], "nyy": eps / p[2], "fit": eps}

    def make(kind: str, bug: str):
        noise = stat_noise(1, bx, by, total[kind], p)
        exact = {w: sufficient_stats(*pairs[kind][i], bx, by) for i, w in enumerate("AB")}
        raw = {w: sufficient_stats(*pairs[kind][i]) for i, w in enumerate("AB")}

        def sampler(which: str, planted_bug: bool, rng: np.random.Generator, draws: int) -> np.ndarray:
            nz = noise.with_scale_factor(0.5) if (planted_bug and bug == "halve") else noise
            s = raw[which] if (planted_bug and bug == "noclip") else exact[which]
            if kind == "nxy":
                return nz.xy.sample(s.nxy, rng=rng, draws=draws)[:, 0]
            if kind == "nyy":
                return nz.yy.sample(np.asarray(s.nyy, dtype=float), rng=rng, draws=draws)
            if kind == "nxx":
                return nz.xx.sample(triu_pack(s.nxx), rng=rng, draws=draws)[:, 0]
            return posterior_fixed(nz.sample(s, rng=rng, draws=draws)).coef[:, 0]

        return sampler

    rest = "; 19 zero records in both (Bx = 0.5, By = 1, d = 1)"
    return [
        AuditScenario(METHOD, "nxy release (its share of ε)", "A: one record at the clipping corner (x = +Bx, "
                      "y = +By); B: the same record with its response flipped (y = −By)" + rest,
                      "the released nxy", eps, 0.0, make("nxy", "halve"), "noise scale halved"),
        AuditScenario(METHOD, "nyy release (its share of ε)", "A: one response at the bound +By; B: that response "
                      "replaced by 0" + rest, "the released nyy", eps, 0.0, make("nyy", "halve"),
                      "noise scale halved"),
        AuditScenario(METHOD, "nxx release (its share of ε)", "A: one feature 5× beyond the bound Bx; B: that record "
                      "replaced by zeros" + rest, "the released nxx", eps, 0.0, make("nxx", "noclip"),
                      "clipping skipped"),
        AuditScenario(METHOD, "whole fit (total ε)", "A: one record (5Bx, 5By) beyond both bounds; B: the same "
                      "record with its response flipped" + rest, "posterior mean coefficient (λ = λ0 = 1)", eps, 0.0,
                      make("fit", "noclip"), "clipping skipped"),
    ]
