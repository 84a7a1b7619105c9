"""Black-box audit scenarios of the statistics' Laplace mechanism and of AdaSSP's Gaussian mechanisms."""

from __future__ import annotations

import numpy as np

from dpcore.core.audit import AuditScenario, release_path
from dpcore.regression.adassp import ADASSP, ADASSP_SPLIT, adassp_noise, solve_adassp
from dpcore.regression.linalg import DEFAULT_SPLIT, METHOD, triu_pack
from dpcore.regression.mechanism import stat_noise
from dpcore.regression.posterior import posterior_fixed
from dpcore.regression.statistic import Stats, sufficient_stats


def _draw(noise, value, rng: np.random.Generator | None, draws: int) -> np.ndarray:
    """``draws`` noisy copies of ``value``: preview (NumPy, ``rng``) or, with ``rng`` None, one OpenDP release."""
    if rng is None:
        return noise.release(np.repeat(np.asarray(value, dtype=float)[None], draws, axis=0))
    return noise.sample(value, rng=rng, draws=draws)


def audit_scenarios(epsilon: float):
    """Robust private LR's scenarios (:func:`robust_scenarios`) and AdaSSP's (:func:`adassp_scenarios`)."""
    return robust_scenarios(epsilon) + adassp_scenarios(epsilon)


#: δ of the AdaSSP scenarios. Large on purpose: the calibration is the same function at every δ, and at δ = 1e-3
#: 10⁵ runs resolve a halved noise scale with a wide margin (measured ε_LB ≥ 1.56 × the claim with the bug,
#: ≤ 0.76 × without, ε ∈ {0.5, 1, 2}); at δ = 1e-5 the bug's bound sat at 0.92–1.14 × the claim.
AUDIT_DELTA = 1e-3


def adassp_scenarios(epsilon: float, delta: float = AUDIT_DELTA):
    """Worst-case neighbours for AdaSSP's releases (rows of norm ≤ 1, two coordinates, n = 20, By = 1).

    Each claims ``(epsilon, delta)`` for the release audited: the statistic scenarios audit one Gaussian
    release whose share ``p_i`` of a release with total ``(ε/p_i, δ/p_i)`` is ``(ε, δ)``; the whole fit a
    release with total ``(ε, δ)``.

    * ``Xᵀy``: A holds the row ``(1, 1)/√2`` with ``y = +By``, B the same row with ``y = −By``: ``Xᵀy`` moves
      by exactly its sensitivity ``2By``; summary its projection on that direction. Bug: noise halved.
    * ``λ_min``: A has ten rows ``e1`` and ten ``e2`` (``λ_min = 10``); B moves one ``e2`` row to ``e1``
      (``λ_min = 9``): a move of exactly the sensitivity 1. Bug: noise halved.
    * whole fit: A holds ``(1, 1)/√2`` with ``y = 50By``, B with ``y = −50By``; summary the first coefficient.
      Bug: the response not clipped.
    """
    eps, n, by = float(epsilon), 20, 1.0
    row = np.array([1.0, 1.0]) / np.sqrt(2.0)

    def rows(first: np.ndarray) -> np.ndarray:
        X = np.zeros((n, 2))
        X[0] = first
        return X

    lam_A = np.vstack([np.tile([1.0, 0.0], (10, 1)), np.tile([0.0, 1.0], (10, 1))])
    lam_B = np.vstack([np.tile([1.0, 0.0], (11, 1)), np.tile([0.0, 1.0], (9, 1))])

    def make(kind: str):
        share = {"lam": ADASSP_SPLIT[0], "xy": ADASSP_SPLIT[2], "fit": 1.0}[kind]  # the audited release gets (ε, δ)
        noise = adassp_noise(by, eps / share, delta / share)

        def sampler(which: str, planted_bug: bool, rng: np.random.Generator | None, draws: int) -> np.ndarray:
            sign = 1.0 if which == "A" else -1.0
            nz = noise.with_scale_factor(0.5) if (planted_bug and kind != "fit") else noise
            if kind == "xy":
                return _draw(nz.xy, row * sign * by, rng, draws) @ row
            if kind == "lam":
                X = lam_A if which == "A" else lam_B
                return _draw(nz.lam_min, np.linalg.eigvalsh(X.T @ X)[0], rng, draws)
            X, y = rows(row), np.zeros(n)
            y[0] = sign * 50.0 * by
            yc = y if planted_bug else np.clip(y, -by, by)
            xx, xy = X.T @ X, X.T @ yc
            i, j = np.triu_indices(2)
            n_xx = nz.xx.sample(xx[i, j], rng=rng, draws=draws)
            full = np.zeros((draws, 2, 2))
            full[:, i, j] = n_xx
            full[:, j, i] = n_xx
            fit = solve_adassp(full, nz.xy.sample(xy, rng=rng, draws=draws),
                               nz.lam_min.sample(np.linalg.eigvalsh(xx)[0], rng=rng, draws=draws), nz, delta)
            return fit.coef[:, 0]

        return sampler

    rest = f"; 19 zero rows in both (rows of norm ≤ 1, By = 1, δ = {delta:g} in total)"
    return [
        AuditScenario(ADASSP, "AdaSSP Xᵀy release (its share of ε, δ)", "A: the row (1, 1)/√2 with y = +By; B: the "
                      "same row with y = −By" + rest, "the released Xᵀy along (1, 1)", eps, delta,
                      make("xy"), "noise scale halved", release_sampler=release_path(make("xy"))),
        AuditScenario(ADASSP, "AdaSSP λ_min release (its share of ε, δ)", "A: ten rows e1 and ten e2; B: one e2 row "
                      "replaced by e1 (λ_min 10 → 9)", "the released λ_min(XᵀX)", eps, delta, make("lam"),
                      "noise scale halved", release_sampler=release_path(make("lam"))),
        AuditScenario(ADASSP, "AdaSSP whole fit (total ε, δ)", "A: the row (1, 1)/√2 with y = +50By (beyond the bound); "
                      "B: the same row with y = −50By" + rest, "first coefficient", eps, delta, make("fit"),
                      "response not clipped"),
    ]


def robust_scenarios(epsilon: float):
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

        def sampler(which: str, planted_bug: bool, rng: np.random.Generator | None, draws: int) -> np.ndarray:
            nz = noise.with_scale_factor(0.5) if (planted_bug and bug == "halve") else noise
            s = raw[which] if (planted_bug and bug == "noclip") else exact[which]
            if rng is None:  # the release path: StatNoise.release (OpenDP) on `draws` stacked copies
                stacked = Stats(*(np.repeat(np.asarray(v, dtype=float)[None], draws, axis=0)
                                  for v in (s.nxx, s.nxy, s.nyy)), s.n)
                released = nz.release(stacked)
                return {"nxy": released.nxy[:, 0], "nyy": released.nyy, "nxx": released.nxx[:, 0, 0]}[kind]
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
                      "the released nxy", eps, 0.0, make("nxy", "halve"), "noise scale halved",
                      release_sampler=release_path(make("nxy", "halve"))),
        AuditScenario(METHOD, "nyy release (its share of ε)", "A: one response at the bound +By; B: that response "
                      "replaced by 0" + rest, "the released nyy", eps, 0.0, make("nyy", "halve"),
                      "noise scale halved", release_sampler=release_path(make("nyy", "halve"))),
        AuditScenario(METHOD, "nxx release (its share of ε)", "A: one feature 5× beyond the bound Bx; B: that record "
                      "replaced by zeros" + rest, "the released nxx", eps, 0.0, make("nxx", "noclip"),
                      "clipping skipped", release_sampler=release_path(make("nxx", "noclip"))),
        AuditScenario(METHOD, "whole fit (total ε)", "A: one record (5Bx, 5By) beyond both bounds; B: the same "
                      "record with its response flipped" + rest, "posterior mean coefficient (λ = λ0 = 1)", eps, 0.0,
                      make("fit", "noclip"), "clipping skipped"),
    ]
