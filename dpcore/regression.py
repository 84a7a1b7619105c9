"""Robust private Bayesian linear regression (Honkela et al. 2018) for drug sensitivity.

The method follows the three stages of ``design.md``::

    records ──prepare (public / charged)──▶ clip at (Bx, By) ──▶ nxx, nxy, nyy  (sensitivities below)
            ──Laplace, budget split p1:p2:p3──▶ noisy statistics
            ──PSD repair + Bayesian posterior (fixed precisions or closed-form VB)──▶ coefficients

Everything after the noise is post-processing, so the same code run on the
exact statistics gives the non-private reference.

Data preparation (``prepare``) and what it costs:

* Each record ``x_i`` is centred with a *column centre* and scaled to unit
  L2 norm. The column centre is public (the midpoint of the public feature
  range — 0.5 for GDSC's binary features — or a user vector) or a DP mean
  charged to the budget. Row scaling uses only the record itself: free.
* ``y`` is centred with a public centre (midpoint of the documented response
  range, or a user value) or a DP mean of ``y`` clipped to the public range,
  charged. ``σy`` (for the clipping bound ``By = ωy σy``) is public (range/6,
  the six-sigma rule, or a user value) or a DP estimate from the mean
  absolute deviation, charged. ``σx = 1/√d`` is public after row scaling.

The paper took all of these from the private data without charge; dpcore
never does (``privacy.md``).

Sensitivities (replace-one, ``n`` public), with ``|x_ij| ≤ Bx`` and ``|y_i| ≤ By``
after clipping — proofs in :func:`sensitivities`:

* ``nxx`` (upper triangle incl. diagonal, ``d(d+1)/2`` values): ``Δ1 = d(d+1) Bx²``
* ``nxy`` (``d`` values): ``Δ1 = 2 d Bx By``
* ``nyy``: ``Δ1 = By²``
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
from scipy import stats

from dpcore.mechanisms import Noise, laplace_noise

METHOD = "Robust private linear regression"
DEFAULT_SPLIT = (0.35, 0.60, 0.05)
#: The paper's (ωx, ωy) grid {0.1, …, 2.0} and a tail up to 16 (no clipping in practice: |x_ij| ≤ 1 = √d σx after row
#: scaling, and responses rarely lie 16 σy from the centre), so that as ε grows the search can stop clipping.
OMEGA_GRID = np.concatenate([np.round(np.arange(1, 21) * 0.1, 10), [2.5, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0]])
MODELS = ("non-private LR", "robust private LR", "private LR (no projection)", "output perturbation", "functional mechanism")


# --------------------------------------------------------------------------
# Small numerical helpers
# --------------------------------------------------------------------------


def _split(split: Sequence[float]) -> tuple[float, float, float]:
    p = tuple(float(v) for v in split)
    if len(p) != 3 or min(p) <= 0 or abs(sum(p) - 1.0) > 1e-9:
        raise ValueError(f"the budget split must be three positive shares summing to 1, got {split!r}")
    return p  # type: ignore[return-value]


def spearman(pred: np.ndarray, y: np.ndarray, *, ties: bool = True) -> np.ndarray:
    """Spearman's ρ between ``pred`` and ``y`` along the last axis (broadcast over leading axes).

    ``ties=True`` uses average ranks (needed for binary features, where many
    predictions tie); ``ties=False`` uses a faster double arg-sort, exact for
    continuous data. A constant prediction gives ρ = 0 (no ranking skill).
    """
    pred = np.asarray(pred, dtype=float)
    y = np.broadcast_to(np.asarray(y, dtype=float), pred.shape)
    if ties:
        rp = stats.rankdata(pred, axis=-1)
        ry = stats.rankdata(y, axis=-1)
    else:
        rp = np.argsort(np.argsort(pred, axis=-1), axis=-1).astype(float)
        ry = np.argsort(np.argsort(y, axis=-1), axis=-1).astype(float)
    rp = rp - rp.mean(axis=-1, keepdims=True)
    ry = ry - ry.mean(axis=-1, keepdims=True)
    num = (rp * ry).sum(axis=-1)
    den = np.sqrt((rp * rp).sum(axis=-1) * (ry * ry).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return rho


def triu_pack(m: np.ndarray) -> np.ndarray:
    """Upper triangle incl. diagonal of (..., d, d) as (..., d(d+1)/2) — the released coordinates of ``nxx``."""
    d = m.shape[-1]
    i, j = np.triu_indices(d)
    return m[..., i, j]


def triu_unpack(v: np.ndarray, d: int) -> np.ndarray:
    """Inverse of :func:`triu_pack`: mirror the upper triangle into a symmetric (..., d, d)."""
    i, j = np.triu_indices(d)
    out = np.zeros(v.shape[:-1] + (d, d))
    out[..., i, j] = v
    out[..., j, i] = v
    return out


def psd_repair(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest PSD matrix in Frobenius norm: eigenvalues clipped at 0 (post-processing, free).

    Returns the eigenvalues (clipped) and eigenvectors so callers can solve in
    the eigenbasis; ``V diag(w) Vᵀ`` is the repaired matrix. Batched over
    leading axes.
    """
    w, v = np.linalg.eigh(m)
    return np.maximum(w, 0.0), v


# --------------------------------------------------------------------------
# Data preparation
# --------------------------------------------------------------------------


def normalise_rows(X: np.ndarray, centre: np.ndarray | float | None = None) -> np.ndarray:
    """Subtract a (public or DP) column centre, then scale every record to unit L2 norm.

    A record that is all zeros after centring stays zero. Row scaling depends
    on the record alone, so it is free under replace-one; afterwards
    ``|x_ij| ≤ 1`` (the public worst-case bound used by the no-projection
    baseline) and the typical coordinate size is ``σx = 1/√d``.
    """
    X = np.asarray(X, dtype=float)
    if centre is not None:
        X = X - np.asarray(centre, dtype=float)
    norm = np.linalg.norm(X, axis=-1, keepdims=True)
    return np.divide(X, norm, out=np.zeros_like(X), where=norm > 0)


@dataclass(frozen=True)
class Preparation:
    """The centring / scaling constants used, where each came from, and what they cost.

    ``sources`` maps ``x_centre``, ``y_centre``, ``sigma_y`` to ``"public"`` or
    ``"DP (charged)"``; ``parts`` lists the ε charged for each DP estimate.
    ``y_bound`` is the public worst case of ``|y − y_centre|`` (from the public
    response range), used by the no-projection baseline and output perturbation.
    """

    x_centre: np.ndarray
    y_centre: float
    sigma_x: float
    sigma_y: float
    y_bound: float
    sources: Mapping[str, str]
    parts: Mapping[str, float] = field(default_factory=dict)

    @property
    def epsilon(self) -> float:
        return float(math.fsum(self.parts.values()))

    def transform(self, X: np.ndarray, y: np.ndarray | None = None):
        """Apply the preparation to records (any set: private, public or test)."""
        Xn = normalise_rows(X, self.x_centre)
        if y is None:
            return Xn
        return Xn, np.asarray(y, dtype=float) - self.y_centre

    def describe(self) -> list[str]:
        return [
            f"feature centre: {self.sources['x_centre']}",
            f"response centre {self.y_centre:.3g}: {self.sources['y_centre']}",
            f"σy = {self.sigma_y:.3g}: {self.sources['sigma_y']}; σx = 1/√d = {self.sigma_x:.3g}: public",
        ]


def _dp_value(value, noise: Noise, rng: np.random.Generator | None, release: bool) -> np.ndarray:
    if release:
        return noise.release(np.asarray(value, dtype=float))
    if rng is None:
        raise ValueError("a preview DP estimate needs rng (or release=True for an OpenDP draw)")
    return noise.sample(np.asarray(value, dtype=float), rng=rng)


def dp_column_mean(X: np.ndarray, bounds: tuple[float, float], epsilon: float, *, rng=None, release=False) -> np.ndarray:
    """DP column means of ``X`` clipped to the public ``bounds``.

    Sensitivity: replacing one row moves each of the ``d`` clipped column
    means by at most ``(hi − lo)/n``, so the L1 change is ``≤ d (hi − lo)/n``.
    """
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    lo, hi = bounds
    noise = laplace_noise(d * (hi - lo) / n, epsilon)
    return _dp_value(np.clip(X, lo, hi).mean(axis=0), noise, rng, release)


def dp_mean(y: np.ndarray, bounds: tuple[float, float], epsilon: float, *, rng=None, release=False) -> float:
    """DP mean of ``y`` clipped to the public ``bounds``.

    Sensitivity: each clipped value lies in ``[lo, hi]``; replacing one moves
    the mean by at most ``(hi − lo)/n``.
    """
    y = np.asarray(y, dtype=float)
    lo, hi = bounds
    noise = laplace_noise((hi - lo) / y.size, epsilon)
    return float(np.clip(_dp_value(np.clip(y, lo, hi).mean(), noise, rng, release), lo, hi))


def dp_sigma(y: np.ndarray, centre: float, bounds: tuple[float, float], epsilon: float, *, rng=None,
             release=False) -> float:
    """DP standard deviation via the mean absolute deviation, ``σ ≈ √(π/2)·MAD`` (exact for a normal).

    Sensitivity: ``|clip(y) − c| ≤ M = max(hi − c, c − lo)`` with ``c`` already
    released (public), so replacing one record moves the mean by ``≤ M/n``.
    A floor of ``(hi − lo)/1000`` keeps the bound positive (post-processing).
    """
    y = np.asarray(y, dtype=float)
    lo, hi = bounds
    m = max(hi - centre, centre - lo)
    noise = laplace_noise(m / y.size, epsilon)
    mad = float(_dp_value(np.abs(np.clip(y, lo, hi) - centre).mean(), noise, rng, release))
    return max(math.sqrt(math.pi / 2) * mad, (hi - lo) / 1000.0)


def prepare(
    X: np.ndarray,
    y: np.ndarray,
    *,
    x_bounds: tuple[float, float],
    y_bounds: tuple[float, float],
    x_centre: str | float | np.ndarray = "public",
    y_centre: str | float = "dp",
    sigma_y: str | float = "dp",
    epsilon: float = 0.0,
    rng: np.random.Generator | None = None,
    release: bool = False,
) -> Preparation:
    """Choose centring and scale constants, public or DP-charged — never silently from private data.

    ``x_centre``: ``"public"`` (midpoint of ``x_bounds``), ``None`` (no column
    centring), a public vector/number, or ``"dp"``. ``y_centre``: ``"public"``
    (midpoint of ``y_bounds``), a number, or ``"dp"``. ``sigma_y``:
    ``"public"`` (``(hi − lo)/6``), a number, or ``"dp"``. The DP items share
    ``epsilon`` equally (sequential composition); it must be > 0 iff some
    item is ``"dp"``. ``rng`` draws a preview; ``release=True`` uses OpenDP.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    d = X.shape[1]
    dp_items = [k for k, v in (("x_centre", x_centre), ("y_centre", y_centre), ("sigma_y", sigma_y))
                if isinstance(v, str) and v == "dp"]
    if dp_items and not epsilon > 0:
        raise ValueError(f"{', '.join(dp_items)} are DP estimates: give them a positive budget (epsilon)")
    if not dp_items and epsilon:
        raise ValueError("no DP estimate requested, so the preparation budget must be 0")
    share = epsilon / len(dp_items) if dp_items else 0.0
    parts: dict[str, float] = {}
    sources: dict[str, str] = {}

    if isinstance(x_centre, str) and x_centre == "dp":
        xc = dp_column_mean(X, x_bounds, share, rng=rng, release=release)
        sources["x_centre"], parts["feature centre"] = "DP column means (charged)", share
    elif isinstance(x_centre, str) and x_centre == "public":
        xc = np.full(d, 0.5 * (x_bounds[0] + x_bounds[1]))
        sources["x_centre"] = f"public midpoint {xc[0]:g} of the feature range"
    elif x_centre is None:
        xc = np.zeros(d)
        sources["x_centre"] = "none (no column centring)"
    else:
        xc = np.broadcast_to(np.asarray(x_centre, dtype=float), (d,)).copy()
        sources["x_centre"] = "public (user value)"

    if isinstance(y_centre, str) and y_centre == "dp":
        yc = dp_mean(y, y_bounds, share, rng=rng, release=release)
        sources["y_centre"], parts["response centre"] = "DP mean (charged)", share
    elif isinstance(y_centre, str) and y_centre == "public":
        yc = 0.5 * (y_bounds[0] + y_bounds[1])
        sources["y_centre"] = "public midpoint of the response range"
    else:
        yc = float(y_centre)
        sources["y_centre"] = "public (user value)"

    if isinstance(sigma_y, str) and sigma_y == "dp":
        sy = dp_sigma(y, yc, y_bounds, share, rng=rng, release=release)
        sources["sigma_y"], parts["response scale"] = "DP mean absolute deviation (charged)", share
    elif isinstance(sigma_y, str) and sigma_y == "public":
        sy = (y_bounds[1] - y_bounds[0]) / 6.0
        sources["sigma_y"] = "public: response range / 6"
    else:
        sy = float(sigma_y)
        sources["sigma_y"] = "public (user value)"

    y_bound = max(y_bounds[1] - yc, yc - y_bounds[0])
    return Preparation(np.asarray(xc, dtype=float), float(yc), 1.0 / math.sqrt(d), float(sy), float(y_bound),
                       sources, parts)


# --------------------------------------------------------------------------
# Statistic: clipped sufficient statistics and their sensitivities
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Stats:
    """Sufficient statistics ``nxx`` (..., d, d), ``nxy`` (..., d), ``nyy`` (...) of ``n`` records."""

    nxx: np.ndarray
    nxy: np.ndarray
    nyy: np.ndarray
    n: int

    def __add__(self, other: "Stats") -> "Stats":
        return Stats(self.nxx + other.nxx, self.nxy + other.nxy, self.nyy + other.nyy, self.n + other.n)


def clip(X: np.ndarray, y: np.ndarray, bx: float, by: float) -> tuple[np.ndarray, np.ndarray]:
    """The projection step: ``x_ij ← clip(x_ij, −Bx, Bx)``, ``y_i ← clip(y_i, −By, By)`` (∞ = no clipping)."""
    return np.clip(X, -bx, bx), np.clip(y, -by, by)


def sufficient_stats(X: np.ndarray, y: np.ndarray, bx: float = math.inf, by: float = math.inf) -> Stats:
    """Clipped ``nxx = Σ x xᵀ``, ``nxy = Σ x y``, ``nyy = Σ y²`` (batched over leading axes)."""
    Xc, yc = clip(np.asarray(X, dtype=float), np.asarray(y, dtype=float), bx, by)
    nxx = np.swapaxes(Xc, -1, -2) @ Xc
    nxy = np.einsum("...ni,...n->...i", Xc, yc)
    return Stats(nxx, nxy, np.einsum("...n,...n->...", yc, yc), Xc.shape[-2])


def sensitivities(d: int, bx: float, by: float) -> tuple[float, float, float]:
    """L1 sensitivities of the released ``(nxx upper triangle, nxy, nyy)`` under replace-one.

    * ``nxx``: each released entry is ``Σ_i x_ij x_ik`` with ``|x_ij x_ik| ≤ Bx²``;
      replacing one record changes each of the ``d(d+1)/2`` entries by ``≤ 2Bx²``,
      so the L1 change is ``≤ d(d+1) Bx²`` (the diagonal could use ``Bx²``; we
      keep the paper's bound).
    * ``nxy``: each of the ``d`` entries ``Σ_i x_ij y_i`` has terms in
      ``[−BxBy, BxBy]``; one replacement moves it by ``≤ 2BxBy``: ``Δ1 = 2dBxBy``
      (attained by flipping the sign of ``y`` on a corner row).
    * ``nyy``: terms ``y_i² ∈ [0, By²]``, so one replacement moves it by ``≤ By²``.
    """
    return d * (d + 1) * bx * bx, 2.0 * d * bx * by, by * by


# --------------------------------------------------------------------------
# Mechanism: Laplace with a budget split
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class StatNoise:
    """The three calibrated Laplace mechanisms of one release."""

    xx: Noise
    xy: Noise
    yy: Noise
    d: int

    @property
    def epsilon(self) -> float:
        return self.xx.epsilon + self.xy.epsilon + self.yy.epsilon

    def with_scale_factor(self, factor: float) -> "StatNoise":
        return StatNoise(self.xx.with_scale_factor(factor), self.xy.with_scale_factor(factor),
                         self.yy.with_scale_factor(factor), self.d)

    def sample(self, s: Stats, *, rng: np.random.Generator, draws: int | None = None) -> Stats:
        """Preview: ``draws`` noisy copies of ``s`` (leading axis R), ``nxx`` noised on its upper triangle and mirrored."""
        xx = triu_unpack(self.xx.sample(triu_pack(s.nxx), rng=rng, draws=draws), self.d)
        return Stats(xx, self.xy.sample(s.nxy, rng=rng, draws=draws), self.yy.sample(s.nyy, rng=rng, draws=draws), s.n)

    def release(self, s: Stats) -> Stats:
        """One OpenDP draw of every statistic (the only noise allowed in exported values)."""
        xx = triu_unpack(self.xx.release(triu_pack(s.nxx)), self.d)
        return Stats(xx, self.xy.release(s.nxy), self.yy.release(np.asarray(s.nyy, dtype=float)), s.n)

    def describe(self) -> list[str]:
        return [f"nxx: {self.xx.describe()}", f"nxy: {self.xy.describe()}", f"nyy: {self.yy.describe()}"]


def stat_noise(d: int, bx: float, by: float, epsilon: float, split: Sequence[float] = DEFAULT_SPLIT) -> StatNoise:
    """Laplace mechanisms with budgets ``p_i ε`` and scales ``Δ_i/(p_i ε)`` (:func:`sensitivities`).

    By sequential composition the three releases together are ε-DP.
    """
    p1, p2, p3 = _split(split)
    s1, s2, s3 = sensitivities(d, bx, by)
    return StatNoise(laplace_noise(s1, p1 * epsilon), laplace_noise(s2, p2 * epsilon),
                     laplace_noise(s3, p3 * epsilon), d)


# --------------------------------------------------------------------------
# Post-processing: PSD repair and posterior
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Posterior:
    """Posterior mean ``coef`` (..., d) and the precisions used (E[λ], E[λ0]); ``sweeps`` for VB."""

    coef: np.ndarray
    lam: np.ndarray
    lam0: np.ndarray
    sweeps: int = 0


def _consistent(w: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Drop the components of ``nxy`` (in the eigenbasis of the repaired ``nxx``) along null directions.

    Exact statistics always have ``nxy = Xᵀy`` in the range of ``nxx = XᵀX``;
    noise breaks that, and a component of ``nxy`` where the repaired ``nxx`` has
    a zero eigenvalue is pure noise. Without this projection the VB fixed
    point diverges (``m`` grows along the null direction, ``E[λ0] → 0``, ``E[RSS]``
    hits its floor). Post-processing, so free. Used by VB (a departure from
    the spec, which only asks for the eigenvalue clipping); optional for the
    fixed-precision fit, where it costs accuracy on synthetic data because a
    clipped direction can still carry signal.
    """
    return np.where(w > 0, t, 0.0)


def posterior_fixed(s: Stats, lam: float = 1.0, lam0: float = 1.0, *, repair: bool = True,
                    project: bool = False) -> Posterior:
    """``μ* = (λ0 I + λ nxx)^{-1} λ nxy`` (batched); with ``repair`` ``nxx`` is first made PSD
    and (``project``) ``nxy`` projected onto its range (:func:`_consistent`)."""
    if repair:
        w, v = psd_repair(s.nxx)
        t = _consistent(w, np.einsum("...ji,...j->...i", v, s.nxy)) if project else \
            np.einsum("...ji,...j->...i", v, s.nxy)
        coef = np.einsum("...ij,...j->...i", v, lam * t / (lam0 + lam * w))
    else:
        d = s.nxx.shape[-1]
        coef = np.linalg.solve(lam0 * np.eye(d) + lam * s.nxx, (lam * s.nxy)[..., None])[..., 0]
    shape = coef.shape[:-1]
    return Posterior(coef, np.full(shape, float(lam)), np.full(shape, float(lam0)))


def posterior_vb(
    s: Stats,
    *,
    a: float = 2.0,
    b: float = 2.0,
    a0: float = 2.0,
    b0: float = 2.0,
    tol: float = 1e-8,
    max_sweeps: int = 200,
    rss_floor: float = 1e-6,
    rss_floor_frac: float = 0.0,
    lam0_floor: float = 0.0,
) -> Posterior:
    """Closed-form mean-field VB for ``λ ~ Γ(a, b)``, ``λ0 ~ Γ(a0, b0)`` (batched over leading axes).

    ``q(β) = N(m, S)``, ``S = (E[λ0] I + E[λ] nxx)^{-1}``, ``m = E[λ] S nxy``;
    ``q(λ) = Γ(a + n/2, b + E[RSS]/2)``, ``q(λ0) = Γ(a0 + d/2, b0 + (mᵀm + tr S)/2)``.
    ``nxx`` is PSD-repaired once, then every sweep is O(d) in its eigenbasis
    (``S`` is diagonal there), so thousands of noisy draws fit at once.
    ``E[RSS]`` is floored at ``rss_floor`` (noisy statistics can make it negative).
    """
    w, v = psd_repair(s.nxx)
    t = _consistent(w, np.einsum("...ji,...j->...i", v, s.nxy))  # nxy in the eigenbasis
    nyy = np.asarray(s.nyy, dtype=float)
    d = w.shape[-1]
    el = np.full(w.shape[:-1], a / b)
    el0 = np.full(w.shape[:-1], a0 / b0)
    sweeps = 0
    for sweeps in range(1, max_sweeps + 1):
        prec = el0[..., None] + el[..., None] * w
        mt = el[..., None] * t / prec
        rss = nyy - 2.0 * (mt * t).sum(-1) + (w / prec).sum(-1) + (w * mt * mt).sum(-1)
        rss = np.maximum(rss, np.maximum(rss_floor, rss_floor_frac * nyy))
        el_new = (a + 0.5 * s.n) / (b + 0.5 * rss)
        el0_new = np.maximum((a0 + 0.5 * d) / (b0 + 0.5 * ((mt * mt).sum(-1) + (1.0 / prec).sum(-1))), lam0_floor)
        change = max(np.max(np.abs(el_new - el) / el), np.max(np.abs(el0_new - el0) / el0))
        el, el0 = el_new, el0_new
        if change < tol:
            break
    prec = el0[..., None] + el[..., None] * w
    coef = np.einsum("...ij,...j->...i", v, el[..., None] * t / prec)
    return Posterior(coef, el, el0, sweeps)


def fit_stats(s: Stats, *, priors: bool = True) -> Posterior:
    """Posterior from (noisy or exact) statistics: VB with Gamma priors, or λ = λ0 = 1."""
    return posterior_vb(s) if priors else posterior_fixed(s)


# --------------------------------------------------------------------------
# One-call estimator
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RobustPrivateLR:
    """Result of :func:`robust_private_lr`: ``coef`` and ``predict``, plus the privacy bookkeeping."""

    coef: np.ndarray
    epsilon: float
    split: tuple[float, float, float]
    bx: float
    by: float
    noise: StatNoise | None
    noisy_stats: Stats | None
    priors: bool
    released: bool = False

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(X, dtype=float) @ self.coef


def robust_private_lr(
    X: np.ndarray,
    y: np.ndarray,
    *,
    epsilon: float,
    bx: float,
    by: float,
    split: Sequence[float] = DEFAULT_SPLIT,
    priors: bool = True,
    rng: np.random.Generator | None = None,
    public: tuple[np.ndarray, np.ndarray] | None = None,
) -> RobustPrivateLR:
    """Fit robust private LR on prepared data (rows normalised, ``y`` centred with a public/charged centre).

    Clips at ``(bx, by)``, perturbs ``nxx, nxy, nyy`` with Laplace noise at
    ``split · ε`` and fits the posterior (VB with Gamma priors, or λ = λ0 = 1).
    ``rng`` given → a seeded *preview* draw; ``rng=None`` → one OpenDP draw
    (a real release: charge it). ``epsilon=math.inf`` fits without clipping or
    noise (the non-private reference). ``public=(X0, y0)`` adds non-private
    records (clipped the same way) to the statistics without noise.
    """
    p = _split(split)
    if math.isinf(epsilon):
        s = sufficient_stats(X, y)
        noise, noisy = None, s
        if public is not None:
            noisy = noisy + sufficient_stats(*public)
    else:
        d = np.asarray(X).shape[1]
        noise = stat_noise(d, bx, by, epsilon, p)
        s = sufficient_stats(X, y, bx, by)
        noisy = noise.release(s) if rng is None else noise.sample(s, rng=rng)
        if public is not None:
            noisy = noisy + sufficient_stats(*public, bx, by)
    post = fit_stats(noisy, priors=priors)
    return RobustPrivateLR(post.coef, float(epsilon), p, float(bx), float(by), noise, noisy, priors,
                           released=rng is None and not math.isinf(epsilon))


def tune_thresholds(n: int, d: int, *, epsilon: float, split: Sequence[float] = DEFAULT_SPLIT, rng=None, **kwargs):
    """Free threshold search on synthetic data; see :func:`dpcore.regression_tuning.threshold_search`."""
    from dpcore.regression_tuning import threshold_search

    return threshold_search(n, d, epsilon=epsilon, split=split, rng=rng, **kwargs)


# --------------------------------------------------------------------------
# Baselines
# --------------------------------------------------------------------------


def output_perturbation_coef(X, y, *, epsilon, y_bound, rng: np.random.Generator, draws: int | None = None,
                             radius: float = 1.0) -> np.ndarray:
    """Output-perturbed ridge LR (Wu et al. 2015), batched over leading axes of ``X`` (..., n, d).

    Rows are unit-norm (so ``x ∈ [−1, 1]^d``), ``y`` is scaled by its public
    bound ``y_bound`` (broadcast over the batch) to ``[−1, 1]``. Minimise
    ``(1/n)Σ(y − wᵀx)² + (λ/2)‖w‖²`` on ``‖w‖ ≤ R`` with ``λ = √(d/(nε))`` (exactly,
    by bisection on the KKT multiplier in the eigenbasis of ``XᵀX/n``), then add
    a vector with a uniform direction and norm ``~ Γ(d, (12R + 8)/(λ n ε))``.
    ``draws`` adds a leading axis of independent draws. Coefficients are on the scale of ``y``.
    """
    X = np.asarray(X, dtype=float)
    yb = np.asarray(y_bound, dtype=float)
    ys = np.clip(np.asarray(y, dtype=float) / yb[..., None], -1, 1)
    n, d = X.shape[-2:]
    eps = np.asarray(epsilon, dtype=float)
    lam = np.sqrt(d / (n * eps))
    w_eig, v = np.linalg.eigh(np.swapaxes(X, -1, -2) @ X / n)
    t = np.einsum("...ji,...j->...i", v, np.einsum("...ni,...n->...i", X, ys) / n)
    t, w_eig = np.broadcast_arrays(t, w_eig)
    lam_b = np.broadcast_to(lam, t.shape[:-1])[..., None]

    def norm_at(mu):
        return np.linalg.norm(t / (w_eig + lam_b / 2.0 + mu[..., None]), axis=-1)

    lo = np.zeros(t.shape[:-1])
    hi = np.ones(t.shape[:-1])
    for _ in range(60):  # grow hi until the constraint holds everywhere
        grow = norm_at(hi) > radius
        if not grow.any():
            break
        hi = np.where(grow, hi * 2.0, hi)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        above = norm_at(mid) > radius
        lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
    mu = np.where(norm_at(lo * 0.0) > radius, hi, 0.0)
    wt = t / (w_eig + lam_b / 2.0 + mu[..., None])
    w = np.einsum("...ij,...j->...i", v, wt)
    shape = w.shape if draws is None else (int(draws),) + w.shape
    direction = rng.standard_normal(shape)
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    scale = (12.0 * radius + 8.0) / (np.broadcast_to(lam, w.shape[:-1]) * n * np.broadcast_to(eps, w.shape[:-1]))
    norm = rng.gamma(d, 1.0, size=shape[:-1]) * scale
    return (w + norm[..., None] * direction) * yb[..., None]


def functional_mechanism_coef(X, y, *, epsilon, y_bound, rng: np.random.Generator,
                              draws: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Functional-mechanism LR (Zhang et al. 2012), batched: returns ``(coef, intercept)``.

    A bias column is appended (d ← d + 1), ``y`` scaled to ``[−1, 1]``;
    ``Δ = 2d² + 4d``; ``XᵀX`` (all entries, then symmetrised) and ``−2Xᵀy`` get
    Laplace(Δ/ε) noise; a ridge ``5√2 Δ/ε · I`` is added and the noisy quadratic
    is minimised over its positive eigen-directions.
    """
    X = np.asarray(X, dtype=float)
    yb = np.asarray(y_bound, dtype=float)
    Xa = np.concatenate([np.clip(X, -1, 1), np.ones(X.shape[:-1] + (1,))], axis=-1)
    ys = np.clip(np.asarray(y, dtype=float) / yb[..., None], -1, 1)
    d = Xa.shape[-1]
    delta = 2.0 * d * d + 4.0 * d
    quad = np.swapaxes(Xa, -1, -2) @ Xa
    lin = -2.0 * np.einsum("...ni,...n->...i", Xa, ys)
    quad, lin_b = np.broadcast_arrays(quad, lin[..., None])
    lin = lin_b[..., 0]
    scale = (delta / np.asarray(epsilon, dtype=float)) * np.ones(quad.shape[:-2])
    lead = () if draws is None else (int(draws),)
    m = quad + rng.laplace(size=lead + quad.shape) * scale[..., None, None]
    m = 0.5 * (m + np.swapaxes(m, -1, -2)) + (5.0 * math.sqrt(2.0) * scale)[..., None, None] * np.eye(d)
    lin = lin + rng.laplace(size=lead + lin.shape) * scale[..., None]
    w, v = np.linalg.eigh(m)
    t = np.einsum("...ji,...j->...i", v, lin)
    keep = w > 0
    coef_t = np.where(keep, -0.5 * t / np.where(keep, w, 1.0), 0.0)
    coef = np.einsum("...ij,...j->...i", v, coef_t) * yb[..., None]
    return coef[..., :-1], coef[..., -1]


# --------------------------------------------------------------------------
# Public rows
# --------------------------------------------------------------------------

#: Seed of the fixed public rule for bundled and synthetic data (the paper's year): which records are public
#: is decided from their identifiers alone, never from data values.
PUBLIC_RULE_SEED = 2018


def fixed_public_ids(universe: Sequence, k: int, seed: int = PUBLIC_RULE_SEED) -> np.ndarray:
    """The first ``k`` identifiers of a seeded permutation of the sorted ``universe`` (a public rule).

    The choice depends on the identifiers, ``k`` and the seed only — not on any
    response or feature — so which records are public reveals nothing about the
    private ones. For GDSC the universe is every bundled cell line, whatever the
    drug, so a cell line is public for all drugs or for none.
    """
    ids = np.sort(np.asarray(universe))
    if not 0 <= k <= ids.size:
        raise ValueError(f"k = {k} public records requested from a universe of {ids.size}")
    return ids[np.random.default_rng(seed).permutation(ids.size)[:k]]


@dataclass(frozen=True)
class PublicRows:
    """Records whose data are public by someone's statement; they enter a release *without noise*.

    ``ids`` name them in the release notes (upload row numbers, COSMIC IDs);
    ``basis`` says why they are public (the user's marking column, or the fixed
    rule for bundled data). The guarantee of a release covers only the other
    (private) records and rests on this statement.
    """

    X: np.ndarray
    y: np.ndarray
    ids: tuple[str, ...]
    basis: str

    def __post_init__(self):
        X, y = np.asarray(self.X, dtype=float), np.asarray(self.y, dtype=float)
        if X.ndim != 2 or y.shape != (X.shape[0],) or len(self.ids) != X.shape[0]:
            raise ValueError(f"public rows: X {X.shape}, y {y.shape} and {len(self.ids)} ids do not match")
        if X.shape[0] and not self.basis.strip():
            raise ValueError("public rows need a basis: say why their data are public")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)

    @classmethod
    def none(cls, d: int) -> "PublicRows":
        """No public rows (the default for uploads): every record used is private."""
        return cls(np.zeros((0, d)), np.zeros(0), (), "")

    def __len__(self) -> int:
        return int(self.X.shape[0])

    def notes(self, n_private: int, unit: str) -> tuple[str, ...]:
        """What the release notes say about the scope of the guarantee."""
        if not len(self):
            return (f"No public records were added: the statistics are computed from the {n_private} private "
                    f"{unit}s only, all of them protected.",)
        return (
            f"Scope of the guarantee: it covers only the {n_private} private {unit}s. {len(self)} {unit}s treated "
            f"as public ({self.basis}) were added to the statistics without noise; they are NOT protected, and the "
            "guarantee for the others rests on the statement that these records are public.",
            f"Public {unit}s (not protected): " + ", ".join(self.ids) + ".",
        )


# --------------------------------------------------------------------------
# Release
# --------------------------------------------------------------------------


def release(
    X: np.ndarray,
    y: np.ndarray,
    *,
    prep: Preparation,
    epsilon: float,
    omega_x: float,
    omega_y: float,
    split: Sequence[float] = DEFAULT_SPLIT,
    priors: bool = True,
    public: PublicRows | None,
    dataset: str = "data",
    fingerprint: str = "",
    feature_names: Sequence[str] | None = None,
    tuning: Mapping[str, object] | None = None,
):
    """One real release: OpenDP-noised ``nxx, nxy, nyy`` and the posterior mean (post-processing).

    ``X, y`` are the raw private records; ``prep`` must itself have been
    released (DP parts) or be public — its ε parts are added to the bundle's
    total. ``public`` is required: the :class:`PublicRows` added without noise
    (``None`` or ``PublicRows.none(d)`` for none). They are listed in the notes,
    and the guarantee — stated for one *private* cell line — covers only ``X, y``:
    a public row moves the release with no noise at all, so its statement of
    being public is what the guarantee rests on. Returns a
    :class:`~dpcore.release.ReleaseBundle`.
    """
    import pandas as pd

    from dpcore.release import ReleaseBundle

    p = _split(split)
    Xp, yp = prep.transform(X, y)
    d = Xp.shape[1]
    bx, by = omega_x * prep.sigma_x, omega_y * prep.sigma_y
    public = PublicRows.none(d) if public is None else public
    pub = prep.transform(public.X, public.y) if len(public) else None
    fit = robust_private_lr(Xp, yp, epsilon=epsilon, bx=bx, by=by, split=p, priors=priors, rng=None, public=pub)
    names = list(feature_names) if feature_names is not None else [f"x{j + 1}" for j in range(d)]
    s = fit.noisy_stats
    nxx = pd.DataFrame(s.nxx, columns=names)
    nxx.insert(0, "feature", names)
    parts = {f"nxx ({p[0]:.0%})": p[0] * epsilon, f"nxy ({p[1]:.0%})": p[1] * epsilon,
             f"nyy ({p[2]:.0%})": p[2] * epsilon}
    parts.update(prep.parts)
    total = round(float(math.fsum(parts.values())), 12)
    params = {
        "n_private": int(np.asarray(X).shape[0]),
        "n_public_added_without_noise": len(public),
        "public rows (not protected)": list(public.ids),
        "public rows basis": public.basis or "none",
        "d": d,
        "omega_x": omega_x, "omega_y": omega_y, "Bx": bx, "By": by,
        "split (nxx, nxy, nyy)": list(p),
        "priors": "Gamma(2, 2) on λ and λ0, mean-field VB" if priors else "fixed λ = λ0 = 1",
        "feature centre": prep.x_centre.tolist(), "response centre": prep.y_centre,
        "σx": prep.sigma_x, "σy": prep.sigma_y,
        "preparation": dict(prep.sources),
        "threshold tuning": dict(tuning or {"source": "user-chosen ω (public)"}),
    }
    unit = "private cell line" if len(public) else "cell line"
    notes = public.notes(int(np.asarray(X).shape[0]), "cell line") + (
        "Statistics are computed after centring with the listed centre, scaling each record to unit L2 norm "
        "and clipping features at ±Bx and responses at ±By.",
        "nxx was released as its upper triangle (d(d+1)/2 values) and mirrored; the PSD repair and the posterior "
        "are post-processing of the noisy statistics.",
    )
    tables = {
        "coefficients": pd.DataFrame({"feature": names, "posterior_mean": fit.coef}),
        "noisy_nxx": nxx,
        "noisy_nxy": pd.DataFrame({"feature": names, "nxy": s.nxy}),
        "noisy_nyy": pd.DataFrame({"statistic": ["nyy", "n"], "value": [float(s.nyy), float(s.n)]}),
    }
    mechs = tuple(fit.noise.describe()) + tuple(f"{k}: Laplace (see public parameters)" for k in prep.parts)
    return ReleaseBundle(method=METHOD, dataset=dataset, fingerprint=fingerprint, epsilon=total, delta=0.0,
                         mechanisms=mechs, public_params=params, tables=tables, unit=unit,
                         parts=parts, notes=notes)


# --------------------------------------------------------------------------
# Audit
# --------------------------------------------------------------------------


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
    from dpcore.audit import AuditScenario

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


# --------------------------------------------------------------------------
# Uploads
# --------------------------------------------------------------------------


def regression_from_frame(frame, *, response: str, features: Sequence[str], public: str | None = None,
                          min_rows: int = 30):
    """Validated ``(X, y, is_public)`` from an uploaded frame: named numeric columns, distinct, enough rows.

    ``public`` optionally names a 0/1 column in which the user marks the rows
    whose data are public (1); without it no row is public. Messages name the
    column, the row and the problem (``dpcore.validation``).
    """
    from dpcore.validation import InputError, coded_column, distinct_columns, numeric_column

    features = list(features)
    if not features:
        raise InputError("Choose at least one feature column.")
    if response in features:
        raise InputError(f"Column {response!r} is the response; it cannot also be a feature.")
    distinct_columns(response, *features, public)
    y = numeric_column(frame, response, what="response")
    X = np.column_stack([numeric_column(frame, c, what="feature value") for c in features])
    if len(y) < min_rows:
        raise InputError(f"The file has {len(y)} rows; at least {min_rows} records are needed for a train/test split.")
    is_public = (coded_column(frame, public, [0, 1], what="public mark (1 = public, 0 = private)") == 1
                 if public else np.zeros(len(y), dtype=bool))
    return X, y, is_public
