"""The attacker's view: what ε means for one patient, as a hypothesis test.

Scenario: the attacker knows every record but one and sees the release; they
must tell which of two values the last record has — data set ``A`` or its
neighbour ``B``. Any guessing rule is a test with a false-positive rate
``FPR = P_B(say A)`` and a true-positive rate ``TPR = P_A(say A)``; its curve
over all thresholds is the ROC. (ε, δ)-DP forbids every test from leaving the
*trade-off region* (:func:`tpr_bound`, :func:`tpr_floor`), which gives the
headline bound :func:`max_accuracy` on the attacker's chance of being right.

This module computes, for a neighbouring pair:

* the **exact** ROC of the optimal (Neyman–Pearson, likelihood-ratio) test
  when the mechanism's law is known in closed form — discrete Laplace on
  integer statistics (survival counts) and Laplace on one real coordinate —
  vectorised over an ε grid (:func:`exact_roc`);
* a **Monte-Carlo** ROC from many seeded releases: of the likelihood-ratio
  statistic for additive mechanisms (:func:`pair_scores`; survival counts,
  regression statistics), or of the audit's scalar summary thresholded
  (:func:`scenario_scores`; any :class:`dpcore.core.audit.AuditScenario`), with a
  simultaneous Clopper–Pearson band (:func:`empirical_roc`).

A pair's data types (:class:`dpcore.core.pairs.NeighbourPair`, :class:`dpcore.core.pairs.Block`) live in the
kernel, and each method builds its own pair from a data set by replacing one record
(:func:`dpcore.survival.survival_pair`, :func:`dpcore.regression.regression_pair`); PAPRIKA and KT with private
support have no closed-form density, so theirs are audit scenarios (:func:`dpcore.fdr.data_scenario`,
:func:`dpcore.sparse.data_scenario`) that :func:`attack_view` simulates. This module imports no method package
(``tests/architecture/test_architecture.py``).

Everything here is a preview: seeded NumPy noise, never charged or exported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from dpcore.core.audit import AuditScenario, clopper_pearson_lower, clopper_pearson_upper
from dpcore.core.pairs import NeighbourPair

# --------------------------------------------------------------------------
# What (ε, δ)-DP allows
# --------------------------------------------------------------------------


def max_accuracy(epsilon, delta=0.0) -> np.ndarray:
    """Largest chance of guessing right that (ε, δ)-DP leaves an attacker, with equal priors on A and B:
    ``(e^ε + δ) / (1 + e^ε)`` (vectorised over ε and δ).

    Proof. A guess is a test with false-positive rate α = P_B(say A) and miss
    rate β = 1 − TPR = P_A(say B); with prior ½ each it is right with
    probability ``1 − (α + β)/2``. DP applied to the events "say A" and
    "say B" gives ``1 − β ≤ e^ε α + δ`` and ``1 − α ≤ e^ε β + δ``; adding them,
    ``2 − (α + β) ≤ e^ε (α + β) + 2δ``, i.e. ``α + β ≥ 2(1 − δ)/(1 + e^ε)``, so
    the accuracy is at most ``1 − (1 − δ)/(1 + e^ε) = (e^ε + δ)/(1 + e^ε)``.
    It is attained: α = β = (1 − δ)/(1 + e^ε) satisfies both constraints with
    equality (randomised response achieves it for δ = 0), so the bound is
    tight. At ε = 1, δ = 0: e/(1 + e) ≈ 73 %.
    """
    eps = np.asarray(epsilon, dtype=float)
    return 1.0 - (1.0 - np.asarray(delta, dtype=float)) * special.expit(-eps)


def tpr_bound(fpr, epsilon, delta=0.0) -> np.ndarray:
    """Highest TPR any test may reach at false-positive rate ``fpr`` under (ε, δ)-DP (broadcasts).

    ``min(1, e^ε·FPR + δ, 1 − e^{−ε}(1 − δ − FPR))``. Proof: the event "say A"
    gives ``TPR ≤ e^ε FPR + δ``; the event "say B" (its complement) gives
    ``1 − FPR ≤ e^ε (1 − TPR) + δ``, which solved for TPR is the mirror line.
    Both constraints are tight for the randomised-response mechanism, so no
    smaller curve is valid for every (ε, δ)-DP mechanism.
    """
    a = np.asarray(fpr, dtype=float)
    eps = np.asarray(epsilon, dtype=float)
    return np.clip(np.minimum(np.exp(eps) * a + delta, 1.0 - np.exp(-eps) * (1.0 - delta - a)), 0.0, 1.0)


def tpr_floor(fpr, epsilon, delta=0.0) -> np.ndarray:
    """Lowest TPR allowed at ``fpr``: ``1 − tpr_bound(1 − fpr)``.

    Proof: DP holds with A and B swapped, i.e. for the test that answers the
    opposite; that test has (FPR, TPR) = (1 − FPR, 1 − TPR), which must lie
    under :func:`tpr_bound`.
    """
    return 1.0 - tpr_bound(1.0 - np.asarray(fpr, dtype=float), epsilon, delta)


def percent(p: float) -> str:
    """``0.731`` → ``"73 %"``; above 99 % one decimal, and "more than 99.9 %" rather than a rounded "100 %"."""
    if p >= 0.999 and p < 1.0:
        return "more than 99.9 %"
    return f"{100 * p:.1f} %" if 0.99 < p < 1.0 else f"{100 * p:.0f} %"


def bound_sentence(epsilon: float, delta: float = 0.0) -> str:
    """The headline in words: the :func:`max_accuracy` bound at (ε, δ) against a coin flip and no privacy."""
    cost = f"ε = {epsilon:g}" + (f" and δ = {delta:g}" if delta else "")
    return (f"At {cost} an attacker who knows everyone else {allowed(float(max_accuracy(epsilon, delta)))}, "
            "against 50 % by coin flip and 100 % without privacy.")


def allowed(bound: float) -> str:
    """The accuracy bound as a verb phrase: "guesses right at most 73 % of the time", or, when the bound no
    longer limits anyone, "may guess right more than 99.9 % of the time (this ε barely limits them)"."""
    if bound >= 0.999:
        return f"may guess right {percent(bound)} of the time (this ε barely limits them)"
    return f"guesses right at most {percent(bound)} of the time"


# --------------------------------------------------------------------------
# The attacker's statistic on a pair (pairs: dpcore.core.pairs)
# --------------------------------------------------------------------------


def log_likelihood_ratio(pair: NeighbourPair, releases: Sequence[np.ndarray]) -> np.ndarray:
    """``ln p_A(y)/p_B(y)`` of releases ``y`` (one array (R, m_i) per block): the optimal test's statistic.

    Both Laplace kinds have density ∝ ``exp(−|y − μ|/b)`` per coordinate, so
    the log ratio is ``Σ (|y − b_i| − |y − a_i|)/b`` summed over blocks.
    """
    total = 0.0
    for block, y in zip(pair.blocks, releases):
        total = total + ((np.abs(y - block.b) - np.abs(y - block.a)) / block.noise.scale).sum(axis=-1)
    return np.asarray(total, dtype=float)


def pair_scores(pair: NeighbourPair, draws: int, *, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Likelihood-ratio statistics of ``draws`` seeded releases on A and on B (vectorised, no loop over draws).

    The statistics are rounded to 1e-9: the ratio's atoms (e.g. "every changed coordinate on A's side")
    otherwise split by floating-point round-off that differs between ``a + Z`` and ``b + Z`` — the low-bit
    side channel of textbook float sampling (Mironov 2012) that the release path avoids by using OpenDP,
    and not a property of the mechanism the preview stands for.
    """
    rng = np.random.default_rng(seed)
    out = []
    for which in ("a", "b"):
        releases = [blk.noise.sample(getattr(blk, which), rng=rng, draws=draws) for blk in pair.blocks]
        out.append(np.round(log_likelihood_ratio(pair, releases), 9))
    return out[0], out[1]


def scenario_scores(scenario: AuditScenario, draws: int, *, seed: int = 0,
                    planted_bug: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The audit's scalar summaries of ``draws`` seeded releases on A and on B (the threshold events' test).

    Oriented so that A tends to score higher (both negated otherwise): a summary that is smaller under A
    gives the mirror image of the same ROC, and the region is symmetric under that mirror.
    """
    rng = np.random.default_rng(seed)
    a = np.asarray(scenario.sampler("A", planted_bug, rng, draws), dtype=float).reshape(draws)
    b = np.asarray(scenario.sampler("B", planted_bug, rng, draws), dtype=float).reshape(draws)
    return (a, b) if a.mean() >= b.mean() else (-a, -b)


# --------------------------------------------------------------------------
# ROC curves
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ROC:
    """An ROC curve (points sorted by FPR, from (0, 0) to (1, 1)); with a band when estimated.

    ``fpr``/``tpr`` have shape ``(..., P)`` (a leading axis for an ε grid).
    For a Monte-Carlo curve, ``fpr_band``/``tpr_band`` hold (lower, upper)
    Clopper–Pearson bounds that hold at all points simultaneously with
    probability ``confidence``.
    """

    fpr: np.ndarray
    tpr: np.ndarray
    exact: bool
    draws: int = 0
    confidence: float = 1.0
    fpr_band: tuple[np.ndarray, np.ndarray] | None = None
    tpr_band: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def accuracy(self) -> np.ndarray:
        """Best chance of guessing right with equal priors: ``max (1 + TPR − FPR)/2`` over the curve."""
        return ((1.0 + self.tpr - self.fpr) / 2.0).max(axis=-1)

    def outside_region(self, epsilon: float, delta: float = 0.0) -> bool:
        """True when the curve leaves the (ε, δ)-DP region even at the most favourable corner of its band.

        A point refutes the claim when ``TPR_lower > tpr_bound(FPR_upper)`` or
        ``TPR_upper < tpr_floor(FPR_lower)``; with the simultaneous band this
        happens for a correct mechanism with probability at most
        ``1 − confidence``. An exact curve is checked as it is (with 1e-12 slack), every row of an ε grid
        against the same (ε, δ).
        """
        f_lo, f_hi = self.fpr_band if self.fpr_band is not None else (self.fpr, self.fpr)
        t_lo, t_hi = self.tpr_band if self.tpr_band is not None else (self.tpr - 1e-12, self.tpr + 1e-12)
        return bool(np.any(t_lo > tpr_bound(f_hi, epsilon, delta)) or np.any(t_hi < tpr_floor(f_lo, epsilon, delta)))


def empirical_roc(scores_a, scores_b, *, confidence: float = 0.95, n_points: int = 64) -> ROC:
    """ROC of the threshold tests "say A when score ≥ t" from seeded releases, with a simultaneous band.

    Thresholds are every distinct score when there are few (discrete
    summaries), otherwise ``n_points`` quantiles of the pooled scores. Each
    point's TPR and FPR get two-sided Clopper–Pearson bounds; the failure
    probability ``1 − confidence`` is split over all ``4·P`` one-sided bounds
    (union bound), so the band holds at every point at once.
    """
    a = np.sort(np.asarray(scores_a, dtype=float).ravel())
    b = np.sort(np.asarray(scores_b, dtype=float).ravel())
    pooled = np.concatenate([a, b])
    distinct = np.unique(pooled)
    if distinct.size <= n_points:
        thresholds = distinct
    else:
        thresholds = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, n_points), method="nearest"))
    # counts of scores ≥ t, plus the trivial tests "never say A" (t = +∞) and "always say A"
    k_a = np.r_[0, a.size - np.searchsorted(a, thresholds[::-1], side="left"), a.size]
    k_b = np.r_[0, b.size - np.searchsorted(b, thresholds[::-1], side="left"), b.size]
    alpha = (1.0 - confidence) / (4 * k_a.size)
    band = [(clopper_pearson_lower(k, n, alpha), clopper_pearson_upper(k, n, alpha))
            for k, n in ((k_b, b.size), (k_a, a.size))]
    return ROC(k_b / b.size, k_a / a.size, exact=False, draws=int(a.size), confidence=confidence,
               fpr_band=band[0], tpr_band=band[1])


def _interp_rows(x_points: np.ndarray, y_points: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Row-wise linear interpolation: rows of increasing ``x_points`` (E, P) at the common ``x`` (F,)."""
    j = (x_points[:, :, None] <= x[None, None, :]).sum(axis=1) - 1  # (E, F): last point at or left of x
    j = np.clip(j, 0, x_points.shape[1] - 2)
    x0, x1 = np.take_along_axis(x_points, j, 1), np.take_along_axis(x_points, j + 1, 1)
    y0, y1 = np.take_along_axis(y_points, j, 1), np.take_along_axis(y_points, j + 1, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(x1 > x0, (x[None, :] - x0) / (x1 - x0), 1.0)
    return y0 + np.clip(w, 0.0, 1.0) * (y1 - y0)


def _discrete_laplace_loss_pmf(shifts: np.ndarray, q: np.ndarray) -> np.ndarray:
    """P_A(L = l) for l = −D..D (integer units of 1/b), ``D = Σ|shifts|``, one row per ``q = e^{−1/b}``.

    One coordinate with shift ``d = |a − b| ≥ 1`` and ``Y = a + Z`` has loss
    ``(|Y − b| − |Y − a|)`` (in units of 1/b) equal to ``+d`` when Z is on A's
    side or zero (``P = 1/(1+q)``), ``−d`` when ``Z ≤ −d`` (``P = q^d/(1+q)``)
    and ``2z + d`` for ``−d < z < 0`` (``P = (1−q)q^{|z|}/(1+q)``). Coordinates
    are independent, so the total loss's law is the convolution of theirs.
    """
    q = np.asarray(q, dtype=float)[:, None]
    pmf = np.ones((q.shape[0], 1))
    for d in (int(v) for v in shifts):
        one = np.zeros((q.shape[0], 2 * d + 1))
        one[:, 2 * d:] = 1.0 / (1.0 + q)
        one[:, :1] = q**d / (1.0 + q)
        z = np.arange(1, d)  # Z = −z lands between b and a: loss d − 2z, stored at index 2d − 2z
        one[:, 2 * d - 2 * z] = (1.0 - q) * q**z / (1.0 + q)
        out = np.zeros((q.shape[0], pmf.shape[1] + 2 * d))
        for j in range(2 * d + 1):  # exact convolution, vectorised over ε and the support (no FFT round-off)
            out[:, j:j + pmf.shape[1]] += pmf * one[:, j:j + 1]
        pmf = out
    return pmf


def exact_roc(pair: NeighbourPair, epsilons, fpr=None) -> ROC | None:
    """The optimal test's exact ROC at every total ε in ``epsilons`` (rows), on the FPR grid ``fpr``.

    * discrete Laplace blocks with integer shifts: the likelihood ratio takes
      finitely many values; with ``P_B(l) = e^{−l} P_A(l)`` for each value of
      the log ratio ``l`` (the privacy-loss identity), the Neyman–Pearson ROC
      is the broken line through the cumulative sums of ``(P_B, P_A)`` over
      ``l`` in decreasing order (randomised tests fill the segments);
    * one Laplace coordinate shifted by ``t = |a − b|/b``: the closed form
      ``TPR = e^t α`` (α ≤ e^{−t}/2), ``1 − e^{−t}/(4α)`` (α ≤ ½),
      ``1 − e^{−t}(1 − α)`` (α > ½), from thresholding Y.

    Returns ``None`` when no closed form applies (several continuous
    coordinates): use :func:`pair_scores` and :func:`empirical_roc` instead.
    """
    eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
    fpr = np.linspace(0.0, 1.0, 401) if fpr is None else np.asarray(fpr, dtype=float)
    if not pair.blocks:
        raise ValueError("the pair has no released statistic")
    kinds = {b.noise.kind for b in pair.blocks}
    # every Laplace scale is Δ/ε: at total ε' a block's unit-scale factor is (its scale)·ε_pair/ε'
    factor = pair.epsilon / eps
    if kinds == {"discrete_laplace"} and len(pair.blocks) == 1:
        blk = pair.blocks[0]
        shifts = np.abs(blk.a.astype(np.int64) - blk.b.astype(np.int64))
        shifts = shifts[shifts > 0]
        scale = blk.noise.scale * factor
        pmf_a = _discrete_laplace_loss_pmf(shifts, np.exp(-1.0 / scale))
        losses = np.arange(-shifts.sum(), shifts.sum() + 1)[::-1] / scale[:, None]  # decreasing ratio
        p_a = pmf_a[:, ::-1]
        p_b = p_a * np.exp(-losses)
        x = np.concatenate([np.zeros((eps.size, 1)), np.cumsum(p_b, axis=1)], axis=1)
        y = np.concatenate([np.zeros((eps.size, 1)), np.cumsum(p_a, axis=1)], axis=1)
        tpr = _interp_rows(np.minimum(x / x[:, -1:], 1.0), np.minimum(y / y[:, -1:], 1.0), fpr)
        return ROC(np.broadcast_to(fpr, tpr.shape), tpr, exact=True)
    moved = [(blk, np.flatnonzero(blk.a != blk.b)) for blk in pair.blocks]
    moved = [(blk, idx) for blk, idx in moved if idx.size]
    if kinds == {"laplace"} and len(moved) == 1 and moved[0][1].size == 1:
        blk, idx = moved[0]
        t = (abs(float(blk.a[idx[0]] - blk.b[idx[0]])) / (blk.noise.scale * factor))[:, None]
        alpha = fpr[None, :]
        with np.errstate(divide="ignore"):
            tpr = np.where(alpha <= np.exp(-t) / 2, np.exp(t) * alpha,
                           np.where(alpha <= 0.5, 1.0 - np.exp(-t) / (4 * np.maximum(alpha, 1e-300)),
                                    1.0 - np.exp(-t) * (1.0 - alpha)))
        return ROC(np.broadcast_to(fpr, tpr.shape), np.clip(tpr, 0.0, 1.0), exact=True)
    return None


# --------------------------------------------------------------------------
# The whole view, for a page or a report
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class AttackView:
    """One attacker's view: the pair in words, the non-private attack, the ROC(s) and the headline."""

    method: str
    name: str
    neighbours: str
    reveal: str
    epsilon: float
    delta: float
    empirical: ROC
    exact: ROC | None = None
    curves: dict = field(default_factory=dict)
    test: str = "likelihood-ratio test"

    @property
    def bound(self) -> float:
        return float(max_accuracy(self.epsilon, self.delta))

    def headline(self) -> str:
        """The bound in words at this view's (ε, δ)."""
        return bound_sentence(self.epsilon, self.delta)

    @property
    def subject(self) -> str:
        return f"{self.method}: {self.name} — attacker's view, an illustration on a neighbouring pair"

    def describe(self) -> str:
        """For the report's audit section: the pair, the bound and what the simulated attacker achieved."""
        return f"{self.neighbours} {self.headline()} {self.observed()}"

    def observed(self) -> str:
        """What the simulated attacker achieved, in words."""
        best = float(self.exact.accuracy[0]) if self.exact is not None else float(self.empirical.accuracy)
        source = ("exactly" if self.exact is not None else
                  f"over {self.empirical.draws:,} seeded releases per data set")
        return (f"On this pair the best attacker ({self.test}) is right {percent(best)} of the time ({source}); "
                f"(ε, δ)-DP allows {'up to ' if self.bound >= 0.999 else 'at most '}{percent(self.bound)}.")


def attack_view(source: NeighbourPair | AuditScenario, *, draws: int = 20_000, seed: int = 0,
                delta: float = 0.0) -> AttackView:
    """The attacker's view of a data pair (likelihood-ratio test, exact ROC where one exists) or of a
    registry scenario (the audit's summary thresholded), for the claim (ε, max(δ, the mechanism's δ)).
    Seeded: the same inputs give the same view."""
    if isinstance(source, NeighbourPair):
        a, b = pair_scores(source, draws, seed=seed)
        exact = exact_roc(source, [source.epsilon])
        return AttackView(source.method, source.name, source.neighbours, source.reveal, source.epsilon,
                          float(delta), empirical_roc(a, b), exact, source.curves)
    a, b = scenario_scores(source, draws, seed=seed)
    return AttackView(source.method, source.name, source.neighbours,
                      source.reveal or "Without noise the release is a fixed function of the data and differs "
                      "between A and B, so the attacker reads off which one it is: right 100 % of the time.",
                      source.claimed_epsilon, max(float(delta), source.delta), empirical_roc(a, b),
                      test=f"threshold on the audit's summary: {source.summary}")
