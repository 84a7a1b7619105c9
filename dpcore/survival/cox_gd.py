"""Adjusted hazard ratios with continuous covariates: the piecewise-exponential model by clipped noisy gradient
descent (``shared/docs/cox.md`` §4a). Measured in ``bench/bench_cox_adjusted.py``; not on the page.

Why this route: the grouped histogram (:mod:`dpcore.survival.cox`) needs every covariate as declared categories;
here each person contributes one clipped gradient of their own likelihood, so continuous covariates enter as
they are (clipped into public bounds) and the noise does not grow with the number of cells.

Model. Public cut points ``0 = a_0 < … < a_K = τ`` (times cut at the public horizon τ, an event after τ is
censored), person i's exposure in interval k ``e_ik = |[0, T_i] ∩ I_k| / τ`` and event indicator ``d_ik``;
covariates clipped into public bounds and scaled to ``[−1, 1]``; the log-likelihood is the sum over persons of
``ℓ_i(θ) = Σ_k d_ik(α_k + βᵀx_i) − e_ik exp(α_k + βᵀx_i)``, ``θ = (α, β)``.

**Sensitivity and privacy (proof).** Replace-one, ``n`` public. Step t releases
``g̃_t = Σ_i clip_C(∇ℓ_i(θ_t)) + N(0, σ² I)`` with ``clip_C(g) = g·min(1, C/‖g‖₂)``. ``θ_t`` is a function of
public inputs (the start, the steps, ``n``) and the earlier releases only, so at step t the two neighbours differ
in one summand, each of norm ≤ C: ``‖Δg_t‖₂ ≤ 2C``, whatever the data and θ_t (no risk set, no ρ factor).
Each step is the Gaussian mechanism with ``μ = 2C/σ``; the adaptive composition of T of them is exactly
``√T·μ``-GDP (Dong, Roth & Su 2019, Cor. 3.3), i.e. the privacy profile of one Gaussian mechanism of L2
sensitivity ``2C√T`` and noise σ. So ``σ = analytic_gaussian_sigma(2C√T, ε, δ)`` (Balle & Wang 2018) gives
exactly (ε, δ), and the accounting event is :class:`~dpcore.accounting.events.Gaussian` ``(σ, 2C√T, ε, δ)``.
Every input of σ is public: ε, δ, C, T. The estimate (the mean of the last half of the iterates) and every
figure are post-processing.

**The preconditioner (proof).** Plain gradient steps do not converge in few steps (covariates with a mean far from
the box's centre tie β to α), and every step costs √T in the noise. So one more Gaussian release, of the
curvature at the public start: ``S = Σ_i Σ_k e_ik z_ik z_ikᵀ`` with ``z_ik = (one-hot k, x_i)``. Since
``Σ_k e_ik ≤ 1`` and ``‖z_ik‖² ≤ 1 + P``, one person's term has Frobenius norm ≤ 1 + P, so replacing them moves
the upper triangle of S by at most ``Δ_S = 2(1 + P)`` in L2 (no clipping needed). It gets noise ``σ·Δ_S/(2C)``,
i.e. the same μ as a gradient step, so the whole mechanism is T + 1 Gaussian mechanisms of equal μ and
``σ = analytic_gaussian_sigma(2C√(T+1), ε, δ)``. Steps are ``θ += D⁻¹ g̃ / e^{α₀}`` with ``D`` the released S
(eigenvalues floored at ``2·sd·√(K+P)``, about the noise's spectral norm; post-processing) and ``α₀`` the public start: a Newton step with the curvature held at
the start.
No honest interval here: the sampling information at the estimate is not released (it would cost another
release); the bench measures the estimate against lifelines and the spread of the privacy noise.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from dpcore.accounting.events import Gaussian
from dpcore.core.mechanisms import analytic_gaussian_sigma, check_budget
from dpcore.core.validation import InputError, numeric_column, require_columns
from dpcore.survival.hazard_ratio import HazardRatioFit

#: Default number of full-batch steps (each pays in the noise: σ grows like √(T + 1)).
DEFAULT_STEPS = 4


@dataclass(frozen=True)
class PEData:
    """Per-person exposure ``e`` (n, K, in units of τ), events ``d`` (n, K) and scaled covariates ``x`` (n, P)."""

    exposure: np.ndarray
    events: np.ndarray
    x: np.ndarray


def person_data(time, event, covariates: np.ndarray, bounds: Mapping[str, tuple[float, float]], horizon: float,
                intervals: int) -> PEData:
    """Each person's row of the model from public bounds and cut points only: times cut at τ, covariates clipped
    into their bounds and scaled to [−1, 1]."""
    if not (np.isfinite(horizon) and horizon > 0) or intervals < 1:
        raise InputError("Declare a positive public horizon and at least one interval.")
    lo = np.array([float(b[0]) for b in bounds.values()])
    hi = np.array([float(b[1]) for b in bounds.values()])
    if np.any(~(hi > lo)):
        raise InputError("Every covariate needs a public range with lower < upper.")
    t = np.asarray(time, dtype=float)
    e = np.asarray(event, dtype=float)
    edges = np.linspace(0.0, horizon, intervals + 1)
    cut_t = np.minimum(t, horizon)
    exposure = np.clip(cut_t[:, None] - edges[None, :-1], 0.0, np.diff(edges)[None, :]) / horizon
    k = np.clip(np.searchsorted(edges, cut_t, side="left") - 1, 0, intervals - 1)
    events = np.zeros_like(exposure)
    happened = (e > 0) & (t <= horizon)
    events[np.arange(t.size)[happened], k[happened]] = 1.0
    x = (np.clip(np.asarray(covariates, float), lo, hi) - (lo + hi) / 2) / ((hi - lo) / 2)
    return PEData(exposure, events, x)


def clipped_gradients(data: PEData, theta: np.ndarray, clip: float) -> np.ndarray:
    """Per-person gradients of ℓ_i at θ (n, K + P), each clipped to L2 norm ``clip``; θ may carry leading axes
    (…, K + P) for many releases at once (then the result is (…, n, K + P))."""
    K = data.exposure.shape[1]
    alpha, beta = theta[..., None, :K], theta[..., None, K:]
    lin = np.einsum("np,...np->...n", data.x, np.broadcast_to(beta, beta.shape[:-2] + data.x.shape))
    rate = np.exp(np.clip(alpha + lin[..., None], -30.0, 30.0))  # (..., n, K)
    resid = data.events - data.exposure * rate
    grad = np.concatenate([resid, resid.sum(-1, keepdims=True) * data.x], axis=-1)
    norm = np.linalg.norm(grad, axis=-1, keepdims=True)
    return grad * np.minimum(1.0, clip / np.maximum(norm, 1e-300))


def curvature(data: PEData) -> np.ndarray:
    """``S = Σ_i Σ_k e_ik z_ik z_ikᵀ``, ``z_ik = (one-hot k, x_i)``: the curvature at the start up to ``e^{α₀}``."""
    K = data.exposure.shape[1]
    P = data.x.shape[1]
    S = np.zeros((K + P, K + P))
    S[:K, :K] = np.diag(data.exposure.sum(0))
    S[:K, K:] = data.exposure.T @ data.x
    S[K:, :K] = S[:K, K:].T
    S[K:, K:] = (data.x * data.exposure.sum(1)[:, None]).T @ data.x
    return S


@dataclass(frozen=True)
class NoisyGD:
    """The mechanism's public settings: ε, δ, clip C, steps T, intervals K, expected event share."""

    epsilon: float
    delta: float
    dimension: int  # covariates P
    intervals: int = 1
    steps: int = DEFAULT_STEPS
    clip: float | None = None
    share: float = 0.5

    def __post_init__(self):
        check_budget(self.epsilon, self.delta, delta_needed=True, what="noisy gradient descent (a Gaussian mechanism)")
        if self.steps < 1 or self.dimension < 1:
            raise InputError("At least one step and one covariate.")

    @property
    def clip_norm(self) -> float:
        """``C = √(2 + P)`` (cox.md §4a: clips nothing while a person's expected count stays below 1)."""
        return self.clip if self.clip is not None else math.sqrt(2.0 + self.dimension)

    @property
    def sensitivity(self) -> float:
        """L2 sensitivity of the T gradient sums and the curvature (scaled to one step's μ) together:
        ``2C√(T + 1)`` (module docstring)."""
        return 2.0 * self.clip_norm * math.sqrt(self.steps + 1)

    @property
    def curvature_sensitivity(self) -> float:
        """Replace-one L2 sensitivity of the upper triangle of S: ``2(1 + P)`` (module docstring)."""
        return 2.0 * (1.0 + self.dimension)

    @property
    def sigma(self) -> float:
        """Noise sd of each coordinate of each released gradient sum: public inputs only."""
        return analytic_gaussian_sigma(self.sensitivity, self.epsilon, self.delta)

    def event(self) -> Gaussian:
        """The release's privacy event for the accountant (checked against the exact Gaussian profile)."""
        return Gaussian(self.sigma, self.sensitivity, self.epsilon, self.delta)

    def start(self) -> np.ndarray:
        """Public start: the baseline at the design's event share (constant hazard to τ), β = 0."""
        base = math.log(-math.log1p(-min(self.share, 0.99)))
        return np.concatenate([np.full(self.intervals, base), np.zeros(self.dimension)])

    def noisy_curvature(self, data: PEData, rng: np.random.Generator, shape: tuple = ()) -> np.ndarray:
        """The released curvature S + symmetric noise (upper triangle noised, mirrored), eigenvalues floored
        at about the noise's spectral norm (post-processing): the preconditioner (module docstring)."""
        K, P = self.intervals, self.dimension
        S = curvature(data)
        sd = self.sigma * self.curvature_sensitivity / (2.0 * self.clip_norm)
        noise = np.triu(rng.normal(0.0, sd, shape + (K + P, K + P)))
        noisy = S + noise + np.swapaxes(np.triu(noise, 1), -1, -2)
        values, vectors = np.linalg.eigh(noisy)
        floor = max(1.0, 2.0 * sd * math.sqrt(K + P))  # about the noise's spectral norm: public
        return np.einsum("...ij,...j,...kj->...ik", vectors, np.maximum(values, floor), vectors)

    def run(self, data: PEData, rng: np.random.Generator, draws: int | None = None, *,
            with_curvature: bool = False):
        """The released estimate θ̂ (K + P,), or ``draws`` independent releases (draws, K + P) at once (previews:
        a NumPy draw of the mechanism's exact law); ``with_curvature``: also the released (floored) curvature,
        which the interval reads (post-processing; the same draws in the same order)."""
        shape = () if draws is None else (draws,)
        start = self.start()
        theta = np.broadcast_to(start, shape + start.shape).copy()
        released_curvature = self.noisy_curvature(data, rng, shape)
        inverse = np.linalg.inv(released_curvature) / math.exp(start[0])
        kept = []
        for t in range(self.steps):
            noisy = clipped_gradients(data, theta, self.clip_norm).sum(-2) + rng.normal(0.0, self.sigma, theta.shape)
            theta = theta + np.clip(np.einsum("...ij,...j->...i", inverse, noisy), -1.0, 1.0)
            if t >= self.steps // 2:
                kept.append(theta)
        estimate = np.mean(kept, axis=0)
        return (estimate, released_curvature) if with_curvature else estimate

    def covariances(self, theta: np.ndarray, released_curvature: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """An approximate interval's two covariances of θ̂ (post-processing of θ̂ and the released curvature D̃):
        sampling ``(e^{ᾱ} D̃)⁻¹`` (the model's information with the curvature held at the start's covariate
        weights and the baseline at the estimate's mean level ᾱ), and privacy the exact covariance of the steps'
        Gaussian noise through the linearised iteration ``e_{t+1} = (I − A H) e_t + A ξ_t``,
        ``A = D̃⁻¹ e^{−α₀}``, ``H = e^{ᾱ} D̃``, averaged over the kept iterates. **Not honest**: it carries
        neither the shrinkage of few steps from the start (the iteration has not converged) nor the curvature's
        own noise; bench/results/cox_adjusted.md measures its coverage."""
        K = self.intervals
        level = np.exp(np.mean(theta[..., :K], axis=-1))[..., None, None]
        H = level * released_curvature
        A = np.linalg.inv(released_curvature) / math.exp(self.start()[0])
        M = np.eye(K + self.dimension) - A @ H
        kept = [t for t in range(self.steps) if t >= self.steps // 2]
        privacy = np.zeros_like(H)
        for s_ in range(self.steps):  # noise of step s_ reaches the iterate after step t through M^(t − s_)
            C = np.zeros_like(H)
            power = np.broadcast_to(np.eye(K + self.dimension), H.shape).copy()
            for t in range(s_, self.steps):
                if t in kept:
                    C = C + power
                power = M @ power
            CA = C @ A / len(kept)
            privacy = privacy + self.sigma**2 * CA @ np.swapaxes(CA, -1, -2)
        return np.linalg.inv(H), privacy

    def log_hazard_ratios(self, theta: np.ndarray, bounds: Mapping[str, tuple[float, float]]) -> np.ndarray:
        """β on the covariates' own scale (per unit): the scaled β divided by each half-range."""
        half = np.array([(float(b[1]) - float(b[0])) / 2 for b in bounds.values()])
        return theta[..., self.intervals:] / half


class GradientCox:
    """Method B behind :class:`dpcore.survival.cox.DPCoxPHFitter` (``method="gradient"``): continuous covariates
    in public numeric bounds ``{name: (lo, hi)}``, a public horizon, (ε, δ) with δ > 0 (default 10⁻⁶). Its
    interval is :meth:`NoisyGD.covariances` — approximate, **not honest** (measured coverage in
    bench/results/cox_adjusted.md)."""

    def __init__(self, epsilon: float, delta: float, bounds: Mapping[str, tuple[float, float]], horizon: float,
                 primary: str | None = None, intervals=None, expected_event_share: float | None = None,
                 steps: int | None = None, alpha: float = 0.05):
        if not (horizon is not None and np.isfinite(horizon) and horizon > 0):
            raise InputError("Declare the horizon (the study's planned follow-up): it must be public.")
        try:
            self.bounds = {k: (float(v[0]), float(v[1])) for k, v in bounds.items()}
        except (TypeError, ValueError, IndexError):
            raise InputError("Gradient descent takes numeric bounds per covariate, e.g. {'age': (18, 75)}.") from None
        names = list(self.bounds)
        if primary is not None:
            if primary not in names:
                raise InputError(f"The primary covariate {primary!r} is not among the declared ones {names}.")
            names.sort(key=lambda name: name != primary)
            self.bounds = {k: self.bounds[k] for k in names}
        self.names, self.horizon, self.alpha = tuple(names), float(horizon), alpha
        self.mechanism = NoisyGD(float(epsilon), float(delta) if delta > 0 else 1e-6, len(names),
                                 intervals=int(intervals or 1), steps=int(steps or DEFAULT_STEPS),
                                 share=0.5 if expected_event_share is None else float(expected_event_share))

    def data(self, df, duration_col: str, event_col: str) -> PEData:
        require_columns(df, [duration_col, event_col, *self.names])
        time = numeric_column(df, duration_col, minimum=0, what="duration")
        event = numeric_column(df, event_col, minimum=0, maximum=1, integer=True, what="event (0 or 1)")
        x = df[list(self.names)].to_numpy(float)
        if np.isnan(x).any():
            raise InputError("Gradient descent fits complete cases only: a covariate value is missing.")
        return person_data(time, event, x, self.bounds, self.horizon, self.mechanism.intervals)

    def _fit(self, theta, curvature_released):
        K = self.mechanism.intervals
        sampling, privacy = self.mechanism.covariances(theta, curvature_released)
        half = np.array([(hi - lo) / 2 for lo, hi in self.bounds.values()])
        outer = 1.0 / (half[:, None] * half[None, :])
        return HazardRatioFit(self.names, self.mechanism.log_hazard_ratios(theta, self.bounds),
                              sampling[..., K:, K:] * outer, privacy[..., K:, K:] * outer, self.alpha)

    def fit(self, df, duration_col: str, event_col: str, rng: np.random.Generator | None = None):
        if rng is None:  # the release path: NumPy's generator seeded by the operating system
            rng = np.random.default_rng()
        return self._fit(*self.mechanism.run(self.data(df, duration_col, event_col), rng, with_curvature=True))

    def simulate(self, df, duration_col: str, event_col: str, *, draws: int, rng: np.random.Generator,
                 redraws: int = 100):
        return self._fit(*self.mechanism.run(self.data(df, duration_col, event_col), rng, draws=draws,
                                             with_curvature=True))

    def public_params(self) -> dict:
        m = self.mechanism
        return {"method": "piecewise-exponential by clipped noisy gradient descent (method B)",
                "bounds": self.bounds, "horizon": self.horizon, "intervals": m.intervals, "steps": m.steps,
                "clip": m.clip_norm, "sigma": m.sigma, "delta": m.delta, "noise_kind": "gaussian"}
