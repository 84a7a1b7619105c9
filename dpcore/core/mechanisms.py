"""The one module every method draws its noise from.

Two paths (privacy.md, "Two noise paths"):

* **preview** — :meth:`Noise.sample` draws with a caller-supplied
  ``numpy.random.Generator`` and a ``draws`` count, so R Monte-Carlo releases
  come from one vectorised call (leading axis ``R``). Fast, seedable, and
  never exported.
* **release** — :meth:`Noise.release` draws once from OpenDP's vetted
  samplers, seeded by the operating system. Textbook floating-point Laplace
  sampling leaks through its low-order bits (Mironov 2012), so exported
  values never come from NumPy.

Calibration lives next to each constructor, with its proof sketch.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import optimize, special

from dpcore.core.validation import InputError

NoiseKind = Literal["laplace", "discrete_laplace", "gaussian"]


# --------------------------------------------------------------------------
# Calibration
# --------------------------------------------------------------------------


def check_budget(epsilon, delta: float = 0.0, *, delta_needed: bool = False, what: str = "a budget") -> None:
    """The one check of an (ε, δ) pair: ε positive and finite (each of an array of them), δ in [0, 1).

    ``delta_needed``: δ must be positive too (a Gaussian or other approximate-DP mechanism has no pure-ε form).
    ``what`` names the caller's quantity in the message ("a release", "the Gaussian noise"). An
    :class:`~dpcore.core.validation.InputError` (a ``ValueError``): a page shows its message as it is.
    """
    subject = what[:1].upper() + what[1:]
    eps = np.asarray(epsilon, dtype=float)
    if eps.size == 0 or not (np.all(np.isfinite(eps)) and np.all(eps > 0)):
        raise InputError(f"{subject} needs a positive finite ε, got {epsilon!r}.")
    low = 0.0 < delta if delta_needed else 0.0 <= delta
    if not (low and delta < 1.0):
        raise InputError(f"{subject} needs {'0 < δ' if delta_needed else '0 ≤ δ'} < 1, got δ = {delta!r}.")


def laplace_scale(l1_sensitivity: float, epsilon: float) -> float:
    """Scale ``b = Δ1/ε`` of the Laplace mechanism.

    Proof sketch: for neighbours with ``‖f(D) − f(D')‖1 ≤ Δ1`` the density
    ratio of ``f(D) + Lap(b)^k`` is ``exp(‖f(D) − f(D')‖1 / b) ≤ e^ε``.
    """
    check_budget(epsilon)
    if l1_sensitivity < 0:
        raise ValueError("sensitivity must be non-negative")
    return float(l1_sensitivity) / float(epsilon)


def gaussian_privacy_loss_delta(sigma: float, epsilon: float, l2_sensitivity: float) -> float:
    """Exact δ of the Gaussian mechanism at ``ε`` (Balle & Wang 2018, Thm. 8).

    ``δ(σ) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)``; evaluated in log
    space so ``e^ε Φ(·)`` neither overflows nor cancels catastrophically.
    """
    a = l2_sensitivity / (2.0 * sigma)
    b = epsilon * sigma / l2_sensitivity
    first = special.ndtr(a - b)
    second = math.exp(epsilon + special.log_ndtr(-a - b))
    return float(first - second)


def analytic_gaussian_sigma(l2_sensitivity: float, epsilon: float, delta: float) -> float:
    """Smallest σ for which the Gaussian mechanism is (ε, δ)-DP.

    Uses the analytic Gaussian mechanism (Balle & Wang 2018): ``δ(σ)``
    above is the exact privacy profile and decreases in σ, so a root search
    in ``log σ`` gives the tight σ at any ε — unlike the textbook
    ``Δ·sqrt(2 ln(1.25/δ))/ε``, which is only valid for ε ≤ 1. The returned
    σ is nudged upwards until ``δ(σ) ≤ δ`` holds in floating point.
    """
    check_budget(epsilon, delta, delta_needed=True, what="the Gaussian mechanism")
    if l2_sensitivity <= 0:
        raise ValueError("sensitivity must be positive")

    def excess(log_sigma: float) -> float:
        return gaussian_privacy_loss_delta(math.exp(log_sigma), epsilon, l2_sensitivity) - delta

    lo, hi = math.log(l2_sensitivity) - 20.0, math.log(l2_sensitivity) + 20.0
    log_sigma = optimize.brentq(excess, lo, hi, xtol=1e-14, rtol=1e-15, maxiter=500)
    sigma = math.exp(log_sigma)
    while gaussian_privacy_loss_delta(sigma, epsilon, l2_sensitivity) > delta:
        sigma = math.nextafter(sigma, math.inf) * (1 + 1e-15)
    return sigma


def zcdp_to_approx_dp(rho: float, delta: float) -> float:
    """ε such that ρ-zCDP implies (ε, δ)-DP: ``ε = ρ + 2 sqrt(ρ ln(1/δ))`` (Bun & Steinke 2016)."""
    if rho < 0 or not (0 < delta < 1):
        raise ValueError("need rho >= 0 and 0 < delta < 1")
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def approx_dp_to_zcdp(epsilon: float, delta: float) -> float:
    """Largest ρ whose zCDP → (ε, δ) conversion stays within ε (inverse of the above)."""
    check_budget(epsilon, delta, delta_needed=True, what="a zCDP conversion")
    log_term = math.log(1.0 / delta)
    return (math.sqrt(log_term + epsilon) - math.sqrt(log_term)) ** 2


def gaussian_zcdp_sigma(l2_sensitivity: float, rho: float) -> float:
    """σ of a Gaussian mechanism that is ρ-zCDP: ``ρ = Δ2²/(2σ²)``."""
    if rho <= 0:
        raise ValueError("rho must be positive")
    return l2_sensitivity / math.sqrt(2.0 * rho)


# --------------------------------------------------------------------------
# Vectorised preview samplers
# --------------------------------------------------------------------------


def _noise_shape(value: np.ndarray, draws: int | None) -> tuple[int, ...]:
    return value.shape if draws is None else (int(draws),) + value.shape


def laplace(value, scale: float, *, rng: np.random.Generator, draws: int | None = None) -> np.ndarray:
    """``value + Lap(scale)``; with ``draws=R`` returns ``R`` independent releases stacked on axis 0."""
    value = np.asarray(value, dtype=float)
    return value + rng.laplace(0.0, scale, size=_noise_shape(value, draws))


def discrete_laplace(value, scale: float, *, rng: np.random.Generator, draws: int | None = None) -> np.ndarray:
    """``value + Z`` with ``P(Z = k) ∝ exp(−|k|/scale)`` (two-sided geometric), integer output.

    Sampled as the difference of two i.i.d. geometric variables with success
    probability ``1 − e^{−1/scale}``, which has exactly that law.
    """
    value = np.asarray(value)
    if not np.issubdtype(value.dtype, np.integer):
        raise TypeError("discrete_laplace needs integer values (counts)")
    shape = _noise_shape(value, draws)
    if scale == 0:
        return np.broadcast_to(value, shape).astype(np.int64)
    p = -math.expm1(-1.0 / scale)
    noise = rng.geometric(p, size=shape) - rng.geometric(p, size=shape)
    return value.astype(np.int64) + noise


def gaussian(value, sigma: float, *, rng: np.random.Generator, draws: int | None = None) -> np.ndarray:
    """``value + N(0, σ²)`` element-wise; ``draws`` as in :func:`laplace`."""
    value = np.asarray(value, dtype=float)
    return value + rng.normal(0.0, sigma, size=_noise_shape(value, draws))


def sample_sweep(value, noises, *, rng: np.random.Generator, draws: int) -> np.ndarray:
    """Preview draws at several calibrations of one kind at once: shape ``(len(noises), draws, *value.shape)``.

    An ε sweep is then one vectorised call: standard noise times a per-ε
    scale (Laplace, Gaussian), or geometric differences with per-ε success
    probabilities (discrete Laplace). ``noises`` are :class:`Noise` objects.
    """
    value = np.asarray(value)
    kinds = {n.kind for n in noises}
    if len(kinds) != 1:
        raise ValueError("one noise kind per sweep")
    kind = kinds.pop()
    scales = np.array([n.scale for n in noises], dtype=float).reshape((-1,) + (1,) * (value.ndim + 1))
    shape = (len(noises), int(draws)) + value.shape
    if kind == "laplace":
        return value + rng.laplace(0.0, 1.0, size=shape) * scales
    if kind == "gaussian":
        return value + rng.normal(0.0, 1.0, size=shape) * scales
    p = np.broadcast_to(-np.expm1(-1.0 / scales), shape)
    return value.astype(np.int64) + (rng.geometric(p) - rng.geometric(p))


def report_noisy_max(
    scores, sensitivity: float, epsilon: float, *, rng: np.random.Generator, draws: int | None = None
) -> np.ndarray:
    """Index of the largest score after Laplace(2Δ/ε) noise, over the last axis.

    Proof sketch: with per-score sensitivity Δ, adding Lap(2Δ/ε) and
    releasing only the arg-max is ε-DP for arbitrary (non-monotone) scores
    (Dwork & Roth, Claim 3.9 with the factor 2 for non-monotone scores).
    Report-noisy-min is this applied to ``−scores``.
    """
    scale = 2.0 * laplace_scale(sensitivity, epsilon)
    noisy = laplace(scores, scale, rng=rng, draws=draws)
    return np.argmax(noisy, axis=-1)


# --------------------------------------------------------------------------
# Release path (OpenDP)
# --------------------------------------------------------------------------


def _opendp():
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def _opendp_release(values: np.ndarray, kind: NoiseKind, scale: float) -> np.ndarray:
    """One OpenDP draw for every element of ``values`` (flattened and restored)."""
    dp = _opendp()
    flat = values.ravel()
    if kind == "discrete_laplace":
        domain = dp.vector_domain(dp.atom_domain(T=int))
        meas = dp.m.make_laplace(domain, dp.l1_distance(T=int), scale=float(scale))
        out = np.asarray(meas([int(v) for v in flat]), dtype=np.int64)
    elif kind == "laplace":
        domain = dp.vector_domain(dp.atom_domain(T=float, nan=False))
        meas = dp.m.make_laplace(domain, dp.l1_distance(T=float), scale=float(scale))
        out = np.asarray(meas([float(v) for v in flat]), dtype=float)
    elif kind == "gaussian":
        domain = dp.vector_domain(dp.atom_domain(T=float, nan=False))
        meas = dp.m.make_gaussian(domain, dp.l2_distance(T=float), scale=float(scale))
        out = np.asarray(meas([float(v) for v in flat]), dtype=float)
    else:  # pragma: no cover - guarded by the Literal type
        raise ValueError(f"unknown noise kind {kind!r}")
    return out.reshape(values.shape)


# --------------------------------------------------------------------------
# A calibrated mechanism as a value
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Noise:
    """A calibrated additive mechanism: kind, scale, and the cost it was calibrated for.

    Methods build one of these from their sensitivity and budget
    (:func:`laplace_noise`, :func:`discrete_laplace_noise`,
    :func:`gaussian_noise`), then call :meth:`sample` for previews and
    :meth:`release` for the one exported draw, so preview and release can
    never disagree about calibration. ``scale`` is ``b`` for the Laplace
    kinds and ``σ`` for the Gaussian.
    """

    kind: NoiseKind
    scale: float
    sensitivity: float
    epsilon: float
    delta: float = 0.0

    @property
    def std(self) -> float:
        """Standard deviation of one noise coordinate (for "each count ± …" texts)."""
        if self.kind == "gaussian":
            return self.scale
        if self.kind == "laplace":
            return math.sqrt(2.0) * self.scale
        if self.scale == 0:
            return 0.0
        q = math.exp(-1.0 / self.scale)
        return math.sqrt(2.0 * q) / (1.0 - q)

    def sample(self, value, *, rng: np.random.Generator, draws: int | None = None) -> np.ndarray:
        """Preview draws (NumPy, seeded by the caller); never export these."""
        if not isinstance(rng, np.random.Generator):
            raise TypeError("preview sampling needs an explicit numpy.random.Generator")
        sampler = {"laplace": laplace, "discrete_laplace": discrete_laplace, "gaussian": gaussian}[self.kind]
        return sampler(value, self.scale, rng=rng, draws=draws)

    def release(self, value) -> np.ndarray:
        """One draw from OpenDP's samplers, seeded by the operating system."""
        value = np.asarray(value)
        if self.kind == "discrete_laplace" and not np.issubdtype(value.dtype, np.integer):
            raise TypeError("discrete Laplace releases need integer values")
        return _opendp_release(value, self.kind, self.scale)

    def with_scale_factor(self, factor: float) -> "Noise":
        """A copy with the scale multiplied by ``factor`` — used to plant bugs for audits."""
        return dataclasses.replace(self, scale=self.scale * factor)

    def describe(self) -> str:
        name = {"laplace": "Laplace", "discrete_laplace": "discrete Laplace", "gaussian": "Gaussian"}[self.kind]
        par = "σ" if self.kind == "gaussian" else "b"
        sens = "Δ2" if self.kind == "gaussian" else "Δ1"
        cost = f"ε = {self.epsilon:g}" + (f", δ = {self.delta:g}" if self.delta else "")
        return f"{name} noise, {par} = {self.scale:.4g} ({sens} = {self.sensitivity:g}, {cost})"


def laplace_noise(l1_sensitivity: float, epsilon: float) -> Noise:
    """Laplace mechanism for real-valued statistics (ε-DP); see :func:`laplace_scale`."""
    return Noise("laplace", laplace_scale(l1_sensitivity, epsilon), float(l1_sensitivity), float(epsilon))


def discrete_laplace_noise(l1_sensitivity: float, epsilon: float) -> Noise:
    """Discrete Laplace for integer counts (ε-DP).

    Proof sketch: ``P(Z = k) ∝ exp(−|k|/b)`` with ``b = Δ1/ε``; shifting an
    integer vector by at most Δ1 in L1 changes the probability of any output
    by at most ``exp(Δ1/b) = e^ε`` (Canonne, Kamath & Steinke 2020).
    """
    return Noise("discrete_laplace", laplace_scale(l1_sensitivity, epsilon), float(l1_sensitivity), float(epsilon))


def gaussian_noise(l2_sensitivity: float, epsilon: float, delta: float) -> Noise:
    """Gaussian mechanism with the analytic (tight) σ — (ε, δ)-DP at any ε."""
    sigma = analytic_gaussian_sigma(l2_sensitivity, epsilon, delta)
    return Noise("gaussian", sigma, float(l2_sensitivity), float(epsilon), float(delta))
