"""Adjusted hazard ratios by the padded score, one step from 0, with the information from cheap releases
(method C; ``shared/docs/cox.md`` §2). Measured in ``bench/bench_cox_adjusted.py``; reached from
``DPCoxPHFitter(method="score")``.

Why this route: the score ``U(0)`` of Cox's partial likelihood is one P-vector whose noise is independent of n
(cox.md Theorem 2 with public padding), so the budget can be **weighted toward the primary covariate**: its
coordinate gets its own share of ε, the others share the rest. The information is not released as a noisy
P × P matrix (its sensitivity ``r_j r_k (1/4 + S)``, S ≈ 1 + ln(n/M), is what made that route fail: the
treatment significant in 6–17 % of releases at ε = 2, docs/cox.md);
it is the product of two cheap releases: the event count D (sensitivity 1) and the covariance Σ₀ of the
covariates over all n people at time 0 (an average over n public rows: sensitivity ``r_j r_k (n−1)/n²``).
``I(0) ≈ D·Σ₀`` holds while the risk sets keep the cohort's covariate mix (rare events, randomised arm);
the bench measures its error where they do not.

Model and public inputs. Replace-one, ``n`` public. Public: the covariates' bounds ``[lo_j, hi_j]`` (values
clipped; ``r_j = hi_j − lo_j``; everything below is computed on ``(x − lo)/r ∈ [0, 1]^P``, unit ranges, and the
log hazard ratios are divided by ``r_j`` at the end), the horizon τ (``T ← min(T, τ)``, an event after τ is
censored), the padding size M (default ``⌊n/4⌋``) and the pseudo-value ``c`` in the box (default the box's
centre; the design's value, e.g. an arm's allocation fraction, is better: cox.md §2 bias), ε, δ and the
budget weights (constants of this module). Breslow ties: ``R(t) = {k : T_k ≥ t}``, ``m(t) = |R(t)|``.

Released (three parts, noise from public inputs only):

1. ``U*_j = Σ_i D_i (x_ij − x̄*_j(T_i))``, ``x̄*(t) = (Σ_{R(t)} x_k + (M − m(t))₊ c) / max(m(t), M)``, per
   coordinate j.
2. ``D = Σ_i D_i``, the events up to τ.
3. ``Σ₀ = (1/n) Σ_i (x_i − x̄)(x_i − x̄)ᵀ`` over all n people (upper triangle).

**Sensitivity (proof).** (1) cox.md Theorem 2 at β0 = 0: per coordinate ``|ΔU*_j| ≤ r_j·B*`` with
``B* = max(2a, a + G*)``, ``a = 1 − 1/max(n, M)``, ``G* = Σ_{k=1}^{n−1} 1/max(k+1, M)`` (unit ranges here, so
``B*``); the proof there holds for any c in the box, which is why c is clipped into it. (2) One person's event
indicator (after the horizon cut) is 0 or 1, the others' are unchanged: ``|ΔD| ≤ 1``. (3) cox.md §3 lemma:
replacing one of m points in a box changes every covariance entry by at most ``r_j r_k (m−1)/m²``; here m = n
(every person is counted, n public), unit ranges: ``(n−1)/n²`` per entry. All three bounds hold for the same
neighbouring pair at once, so

* **pure ε** (``delta = 0``): Laplace on every coordinate of part q with scale ``Δ1_q/ε_q`` (``Δ1`` of the score
  coordinate j: ``B*``; of D: 1; of Σ₀: ``(n−1)/n²·P(P+1)/2``), ``ε_q = w_q·ε``, ``Σ w_q = 1``: each part is
  ε_q-DP (Dwork & Roth 3.6) and the release ``Σ ε_q = ε``-DP by composition (exact for pure DP);
* **(ε, δ)** (``delta > 0``): Gaussian with ``σ_q = Δ2_q·σ₁/√w_q``, ``σ₁`` = the analytic Gaussian σ of unit
  sensitivity at (ε, δ) (Balle & Wang 2018). Divide part q by ``Δ2_q/√w_q``: the stacked vector then moves by at
  most ``√(Σ_q w_q) = 1`` in L2 under the pair, and carries ``N(0, σ₁²)`` on every coordinate, which is exactly
  one Gaussian mechanism of sensitivity 1 — (ε, δ)-DP with no composition loss (the same as μ-GDP with
  ``μ = 1/σ₁``, Dong, Roth & Su 2019). The accounting event is ``Gaussian(σ₁, 1, ε, δ)``.

Every scale reads ε, δ, n, M, P and the weights; never the data (no risk-set size, no observed range, no Λ̂).
The estimate and its interval are post-processing:
``Î = max(D̃, 1)·Σ̃₀⁺`` (Σ̃₀ symmetrised, eigenvalues floored at ``2·sd·√P``, about its noise's spectral norm: public), ``β̂ = Î⁻¹ Ũ`` (one
Newton step from 0), the sampling covariance ``Î⁻¹`` (the score's variance at 0 is the information), and the
privacy covariance the spread of ``β̂`` over redraws of the known noise around the released values (the project's
parametric bootstrap, as for the histogram). **What the interval does not carry:** the one-step's distance from
the Cox estimate when effects are large (one step from 0 is attenuated; measured), the padding's bias (cox.md
§2: ``|U*_j − U_j| ≤ r_j (M−1)/2``, zero when every event has ``m ≥ M``) and the error of ``D·Σ₀`` as the
information. The bench measures all three (`bench/results/cox_adjusted.md`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from dpcore.accounting.events import Gaussian, Laplace
from dpcore.core.mechanisms import _opendp_release, analytic_gaussian_sigma, check_budget
from dpcore.core.validation import InputError, numeric_column, require_columns
from dpcore.survival.cox_gd import GradientCox
from dpcore.survival.hazard_ratio import HazardRatioFit

#: Budget weights, fixed before any private run (public constants): the primary's score coordinate, the other
#: score coordinates together (split equally), the event count, the covariance. Without a primary the first two
#: are pooled and split equally over the covariates.
PRIMARY_SHARE = 0.5
OTHERS_SHARE = 0.3
COUNT_SHARE = 0.05
COVARIANCE_SHARE = 0.15
#: Default padding: ``⌊n/4⌋`` (cox.md §2).
PADDING_FRACTION = 0.25


def padded_bound(n: int, M: int) -> float:
    """``B*`` of cox.md Theorem 2 at β0 = 0 for unit ranges: ``max(2a, a + G*)``, ``a = 1 − 1/max(n, M)``,
    ``G* = Σ_{k=1}^{n−1} 1/max(k+1, M)`` (M ≤ 1: no padding, ``B = H_{n−1}``)."""
    if n < 2:
        raise InputError("The padded score needs n ≥ 2.")
    M = max(int(M), 1)
    a = 1.0 - 1.0 / max(n, M)
    k = np.arange(1, n, dtype=float)
    g = float(np.sum(1.0 / np.maximum(k + 1.0, M))) if M > 1 else float(np.sum(1.0 / k))
    if M <= 1:  # cox.md Theorem 1 at β0 = 0: exactly H_{n−1}
        return g
    return max(2.0 * a, a + g)


def covariance_bound(n: int) -> float:
    """Replace-one change of one entry of the 1/n covariance of n points in the unit box: ``(n−1)/n²``."""
    return (n - 1) / n**2


@dataclass(frozen=True)
class ScoreStatistics:
    """The exact statistics of one data set on the unit scale: padded score ``U`` (P,), events ``D``, covariance
    ``cov`` (P, P); with leading axes when many releases are previewed."""

    score: np.ndarray
    events: float
    cov: np.ndarray


def unit_covariates(covariates, bounds: Mapping[str, tuple[float, float]]) -> np.ndarray:
    """Covariates clipped into their public bounds and mapped to [0, 1]."""
    lo = np.array([float(b[0]) for b in bounds.values()])
    hi = np.array([float(b[1]) for b in bounds.values()])
    if np.any(~(hi > lo)) or not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise InputError("Every covariate needs a finite public range with lower < upper.")
    x = np.asarray(covariates, float).reshape(-1, lo.size)
    if np.isnan(x).any():
        raise InputError("The padded score fits complete cases only: a covariate value is missing.")
    return (np.clip(x, lo, hi) - lo) / (hi - lo)


def cut_at_horizon(time, event, horizon: float) -> tuple[np.ndarray, np.ndarray]:
    """``T ← min(T, τ)``; an event after τ is censored."""
    t = np.asarray(time, float)
    e = (np.asarray(event, float) > 0) & (t <= horizon)
    return np.minimum(t, horizon), e.astype(float)


def padded_score(time, event, x: np.ndarray, M: int, c: np.ndarray) -> np.ndarray:
    """``U*(0)`` (module docstring), Breslow ties; ``M ≤ 1`` gives the exact score ``U(0)``."""
    t = np.asarray(time, float)
    e = np.asarray(event, float) > 0
    order = np.argsort(t, kind="stable")
    ts, xs = t[order], x[order]
    suffix = np.vstack([np.cumsum(xs[::-1], axis=0)[::-1], np.zeros((1, x.shape[1]))])
    idx = np.searchsorted(ts, t[e], side="left")
    m = (t.size - idx).astype(float)
    pad = np.maximum(float(M) - m, 0.0)
    mean = (suffix[idx] + pad[:, None] * c[None, :]) / (m + pad)[:, None]
    return (x[e] - mean).sum(0)


def exact_information(time, event, x: np.ndarray) -> np.ndarray:
    """Cox's information at 0, ``I(0) = Σ_i D_i Cov(x | R(T_i))`` (Breslow; non-private, for the bench)."""
    t = np.asarray(time, float)
    e = np.asarray(event, float) > 0
    order = np.argsort(t, kind="stable")
    ts, xs = t[order], x[order]
    P = x.shape[1]
    s1 = np.vstack([np.cumsum(xs[::-1], axis=0)[::-1], np.zeros((1, P))])
    outer = np.einsum("np,nq->npq", xs, xs)
    s2 = np.concatenate([np.cumsum(outer[::-1], axis=0)[::-1], np.zeros((1, P, P))])
    idx = np.searchsorted(ts, t[e], side="left")
    m = (t.size - idx).astype(float)
    mean = s1[idx] / m[:, None]
    return (s2[idx] / m[:, None, None] - np.einsum("ip,iq->ipq", mean, mean)).sum(0)


def statistics(time, event, x: np.ndarray, M: int, c: np.ndarray) -> ScoreStatistics:
    """The three released parts of one data set (unit scale, times already cut at the horizon)."""
    centred = x - x.mean(0)
    return ScoreStatistics(padded_score(time, event, x, M, c), float(np.sum(np.asarray(event) > 0)),
                           centred.T @ centred / x.shape[0])


@dataclass(frozen=True)
class PaddedScore:
    """Method C's public settings (module docstring): ε, δ (0: Laplace, pure ε; > 0: Gaussian), n, P, the
    padding M and the pseudo-value c (unit scale), the primary's index (or None)."""

    epsilon: float
    delta: float
    n: int
    dimension: int
    padding: int
    pseudo: np.ndarray = field(repr=False)
    primary: int | None = 0

    def __post_init__(self):
        check_budget(self.epsilon, self.delta, what="the padded score")
        if self.n < 2 or self.dimension < 1:
            raise InputError("The padded score needs n ≥ 2 and at least one covariate.")
        c = np.clip(np.asarray(self.pseudo, float).reshape(self.dimension), 0.0, 1.0)  # c in the box (proof)
        object.__setattr__(self, "pseudo", c)

    # ---- the budget and the noise: public inputs only ----------------------------------------------------------

    def weights(self) -> np.ndarray:
        """Budget share of every released coordinate group: P score coordinates, D, Σ₀ (sum 1)."""
        P = self.dimension
        scores = np.full(P, (PRIMARY_SHARE + OTHERS_SHARE) / P)
        if self.primary is not None and P > 1:
            scores[:] = OTHERS_SHARE / (P - 1)
            scores[self.primary] = PRIMARY_SHARE
        return np.concatenate([scores, [COUNT_SHARE, COVARIANCE_SHARE]])

    @property
    def score_bound(self) -> float:
        return padded_bound(self.n, self.padding)

    def sensitivities(self) -> tuple[np.ndarray, np.ndarray]:
        """Per part (P score coordinates, D, Σ₀'s upper triangle): the L1 and the L2 sensitivity (unit ranges)."""
        P = self.dimension
        entries = P * (P + 1) // 2
        cov = covariance_bound(self.n)
        l1 = np.concatenate([np.full(P, self.score_bound), [1.0, cov * entries]])
        l2 = np.concatenate([np.full(P, self.score_bound), [1.0, cov * math.sqrt(entries)]])
        return l1, l2

    @property
    def kind(self) -> str:
        return "gaussian" if self.delta > 0 else "laplace"

    @property
    def unit_sigma(self) -> float:
        """σ₁: the Gaussian noise of the stacked, normalised release (module docstring)."""
        return analytic_gaussian_sigma(1.0, self.epsilon, self.delta)

    def scales(self) -> np.ndarray:
        """Noise scale of every coordinate of each part (Laplace b or Gaussian σ), P + 2 values."""
        w = self.weights()
        l1, l2 = self.sensitivities()
        if self.kind == "laplace":
            return l1 / (w * self.epsilon)
        return l2 * self.unit_sigma / np.sqrt(w)

    def events(self) -> list:
        """The release's privacy events: one Laplace per part (pure ε, adding to ε), or one Gaussian."""
        if self.kind == "gaussian":
            return [Gaussian(self.unit_sigma, 1.0, self.epsilon, self.delta)]
        l1, _ = self.sensitivities()
        return [Laplace(float(b), float(s)) for b, s in zip(self.scales(), l1)]

    def _noise(self, shape: tuple, scale: float, rng: np.random.Generator) -> np.ndarray:
        if self.kind == "laplace":
            return rng.laplace(0.0, scale, shape)
        return rng.normal(0.0, scale, shape)

    def release(self, stats: ScoreStatistics, rng: np.random.Generator | None, draws: int | None = None
                ) -> ScoreStatistics:
        """The noisy parts: a seeded preview of the release's law with ``rng`` (``draws`` more leading axes at
        once; ``stats`` may carry leading axes), or one OpenDP draw without."""
        P = self.dimension
        b = self.scales()
        iu = np.triu_indices(P)
        score, events = np.asarray(stats.score, float), np.asarray(stats.events, float)
        upper = np.asarray(stats.cov, float)[..., iu[0], iu[1]]
        if rng is None:
            score = np.concatenate([_opendp_release(score[j:j + 1], self.kind, float(b[j])) for j in range(P)])
            events = _opendp_release(events.reshape(1), self.kind, float(b[P]))[0]
            upper = _opendp_release(upper, self.kind, float(b[P + 1]))
        else:
            lead = () if draws is None else (draws,)
            score = score + self._noise(lead + score.shape, 1.0, rng) * b[:P]
            events = events + self._noise(lead + events.shape, float(b[P]), rng)
            upper = upper + self._noise(lead + upper.shape, float(b[P + 1]), rng)
        cov = np.zeros(upper.shape[:-1] + (P, P))
        cov[..., iu[0], iu[1]] = upper
        cov[..., iu[1], iu[0]] = upper
        return ScoreStatistics(score, events, cov)

    # ---- post-processing ---------------------------------------------------------------------------------------

    def information(self, released: ScoreStatistics) -> np.ndarray:
        """``Î = max(D̃, 1)·Σ̃₀⁺``: eigenvalues floored at ``2·sd·√P``, about the spectral norm of the covariance's
        noise (public; a smaller floor lets redraws near a singular Σ̃₀ blow the privacy variance up)."""
        sd = self.scales()[-1] * (math.sqrt(2.0) if self.kind == "laplace" else 1.0)
        floor = max(2.0 * sd * math.sqrt(self.dimension), 1e-6)  # about the noise's spectral norm: public
        values, vectors = np.linalg.eigh(released.cov)
        cov = np.einsum("...ij,...j,...kj->...ik", vectors, np.maximum(values, floor), vectors)
        return np.maximum(np.asarray(released.events, float), 1.0)[..., None, None] * cov

    def one_step(self, released: ScoreStatistics) -> tuple[np.ndarray, np.ndarray]:
        """``β̂ = Î⁻¹ Ũ`` on the unit scale, and ``Î⁻¹``."""
        inverse = np.linalg.inv(self.information(released))
        return np.einsum("...ij,...j->...i", inverse, released.score), inverse

    def fit(self, released: ScoreStatistics, names, ranges: np.ndarray, *, rng: np.random.Generator | None,
            redraws: int = 200, alpha: float = 0.05) -> HazardRatioFit:
        """The estimate with its interval (module docstring), on the covariates' own scale (per unit): β̂/r.
        Post-processing of ``released`` (leading axes: several releases) and public inputs."""
        rng = rng if rng is not None else np.random.default_rng()
        beta, inverse = self.one_step(released)
        redrawn = self.release(released, rng, draws=redraws)  # the known noise again, around the released values
        beta_b, _ = self.one_step(redrawn)
        centred = beta_b - beta_b.mean(0)
        privacy = np.einsum("b...p,b...q->...pq", centred, centred) / (redraws - 1)
        scale = 1.0 / np.asarray(ranges, float)
        outer = scale[:, None] * scale[None, :]
        return HazardRatioFit(tuple(names), beta * scale, inverse * outer, privacy * outer, alpha, redraws - 1.0)


def design(n: int, bounds: Mapping[str, tuple[float, float]], *, epsilon: float, delta: float = 0.0,
           primary: str | None = None, padding: int | None = None,
           pseudo: Mapping[str, float] | None = None) -> PaddedScore:
    """Method C's settings from public inputs: padding ``⌊n/4⌋`` unless given, the pseudo-value the box's centre
    unless the design gives one per covariate (``pseudo={"arm": 0.5}``, on the covariate's own scale)."""
    names = list(bounds)
    if primary is not None and primary not in names:
        raise InputError(f"The primary covariate {primary!r} is not among the declared ones {names}.")
    lo = np.array([float(b[0]) for b in bounds.values()])
    hi = np.array([float(b[1]) for b in bounds.values()])
    c = (lo + hi) / 2.0
    for name, value in (pseudo or {}).items():
        if name not in names:
            raise InputError(f"The pseudo-value names {name!r}, which is not a declared covariate.")
        c[names.index(name)] = float(value)
    M = int(PADDING_FRACTION * n) if padding is None else int(padding)
    return PaddedScore(float(epsilon), float(delta), int(n), len(names), M, (c - lo) / (hi - lo),
                       None if primary is None else names.index(primary))


class ScoreCox:
    """Method C behind :class:`dpcore.survival.cox.DPCoxPHFitter` (``method="score"``): continuous covariates
    with public numeric bounds ``{name: (lo, hi)}``, a public horizon; ``n`` public (the upload's rows)."""

    def __init__(self, epsilon: float, delta: float, bounds: Mapping[str, tuple[float, float]], horizon: float,
                 primary: str | None = None, padding: int | None = None, pseudo: Mapping[str, float] | None = None,
                 alpha: float = 0.05, redraws: int = 200):
        if not (horizon is not None and np.isfinite(horizon) and horizon > 0):
            raise InputError("Declare the horizon (the study's planned follow-up): it must be public.")
        try:
            self.bounds = {k: (float(v[0]), float(v[1])) for k, v in bounds.items()}
        except (TypeError, ValueError, IndexError):
            raise InputError("The padded score takes numeric bounds per covariate, e.g. {'age': (18, 75)}.") from None
        if any(len(v) != 2 for v in bounds.values()):
            raise InputError("The padded score takes numeric bounds per covariate, e.g. {'age': (18, 75)}.")
        unit_covariates(np.zeros((1, len(self.bounds))), self.bounds)  # validates the ranges
        names = list(self.bounds)
        if primary is not None:  # the primary first, as in the histogram fitter
            names.sort(key=lambda name: name != primary)
            self.bounds = {k: self.bounds[k] for k in names}
        self.epsilon, self.delta, self.horizon, self.primary = float(epsilon), float(delta), float(horizon), primary
        self.padding, self.pseudo, self.alpha, self.redraws = padding, pseudo, alpha, int(redraws)
        self.names = tuple(names)
        self.ranges = np.array([hi - lo for lo, hi in self.bounds.values()])

    def mechanism(self, n: int) -> PaddedScore:
        return design(n, self.bounds, epsilon=self.epsilon, delta=self.delta, primary=self.primary,
                      padding=self.padding, pseudo=self.pseudo)

    def exact(self, df: pd.DataFrame, duration_col: str, event_col: str) -> tuple[PaddedScore, ScoreStatistics]:
        require_columns(df, [duration_col, event_col, *self.names])
        if len(df) < 2:
            raise InputError("The upload has fewer than two rows.")
        time = numeric_column(df, duration_col, minimum=0, what="duration")
        event = numeric_column(df, event_col, minimum=0, maximum=1, integer=True, what="event (0 or 1)")
        t, e = cut_at_horizon(time, event, self.horizon)
        m = self.mechanism(len(df))
        x = unit_covariates(df[list(self.names)].to_numpy(float), self.bounds)
        return m, statistics(t, e, x, m.padding, m.pseudo)

    def fit(self, df: pd.DataFrame, duration_col: str, event_col: str, rng: np.random.Generator | None = None
            ) -> HazardRatioFit:
        m, stats = self.exact(df, duration_col, event_col)
        self.mechanism_ = m
        self.released_ = m.release(stats, rng)
        return m.fit(self.released_, self.names, self.ranges, rng=rng, redraws=self.redraws, alpha=self.alpha)

    def simulate(self, df: pd.DataFrame, duration_col: str, event_col: str, *, draws: int,
                 rng: np.random.Generator, redraws: int = 100) -> HazardRatioFit:
        m, stats = self.exact(df, duration_col, event_col)
        return m.fit(m.release(stats, rng, draws=draws), self.names, self.ranges, rng=rng, redraws=redraws,
                     alpha=self.alpha)

    def public_params(self) -> dict:
        m = getattr(self, "mechanism_", None)
        return {"method": "padded score, one step from 0 (method C)", "bounds": self.bounds,
                "horizon": self.horizon, "primary": self.primary,
                "padding": None if m is None else m.padding,
                "pseudo_value": None if m is None else (m.pseudo * self.ranges +
                                                       np.array([lo for lo, _ in self.bounds.values()])).tolist(),
                "budget_weights": None if m is None else m.weights().tolist(),
                "noise_kind": "gaussian" if self.delta > 0 else "laplace",
                "noise_scales_unit": None if m is None else m.scales().tolist()}


#: The fit's methods (``DPCoxPHFitter(method=…)``): the default grouped histogram (A, :mod:`dpcore.survival.cox`),
#: the piecewise-exponential model by clipped noisy gradient descent (B, :mod:`dpcore.survival.cox_gd`) and this
#: module's padded score (C). B and C take continuous covariates in public numeric bounds ``{name: (lo, hi)}`` and
#: no strata; measured in bench/results/cox_adjusted.md, where A is the best of the three, so A stays the default.
FIT_METHODS = ("histogram", "gradient", "score")


def alternative_method(method: str, epsilon: float, delta: float, bounds, horizon, strata, primary, intervals,
                       expected_event_share, padding, pseudo, steps, alpha: float, redraws: int):
    """Method B or C behind the fitter, from the fitter's arguments (public inputs)."""
    if not bounds:
        raise InputError("Declare at least one covariate in bounds, e.g. {'age': (18, 75)}.")
    if strata:
        raise InputError(f"method={method!r} does not take strata; the histogram method does.")
    if method == "score":
        return ScoreCox(epsilon, delta, bounds, horizon, primary=primary, padding=padding, pseudo=pseudo,
                        alpha=alpha, redraws=redraws)
    return GradientCox(epsilon, delta, bounds, horizon, primary=primary, intervals=intervals,
                       expected_event_share=expected_event_share, steps=steps, alpha=alpha)
