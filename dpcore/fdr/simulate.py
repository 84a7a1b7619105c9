"""Simulators: R p-value streams with known truth (Bernoulli and truncated-exponential tests)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from dpcore.fdr.sensitivity import _binomial_tail_table, eta_paper


@dataclass(frozen=True)
class Streams:
    """R simulated p-value streams with their truth labels (True = non-null)."""

    pvalues: np.ndarray
    truth: np.ndarray
    eta: float
    description: str


def simulate_bernoulli(R: int, T: int = 800, *, pi1: float = 0.05, n: int = 1000, theta: float = 0.75,
                       rng: np.random.Generator) -> Streams:
    """Bernoulli streams (fdr.md): ``H_t ~ Bern(π1)``; n draws of Bern(½) (null) or Bern(θ); exact tail p-value.

    ``Σx`` is drawn exactly as ``Binomial(n, θ_t)``; ``p = P(Bin(n, ½) ≥ Σx)``. Fresh data for every run.
    """
    truth = rng.random((R, T)) < pi1
    sums = rng.binomial(n, np.where(truth, theta, 0.5))
    p = _binomial_tail_table(int(n))[sums]
    return Streams(p, truth, eta_paper(n), f"Bernoulli, n = {n}, θ = {theta:g}, π1 = {pi1:g}")


TRUNCEXP_MU0 = 1.0 - 1.0 / (math.e - 1.0)
_PRODUCT_TERMS = 500
TRUNCEXP_SIGMA0 = math.sqrt(1.0 - math.e / (math.e - 1.0) ** 2)


def simulate_truncexp(R: int, T: int = 800, *, pi1: float = 0.05, n: int = 1000, theta: float = 1.8,
                      rng: np.random.Generator, chunk: int = 4_000_000) -> Streams:
    """Truncated-exponential streams: n draws of ``truncexpon(b=1)`` (null) or ``θ·truncexpon(b=1)``.

    ``Z = (Σx − nμ0)/(√n σ0)`` with ``μ0 = 1 − 1/(e−1)``, ``σ0² = 1 − e/(e−1)²`` (the correct
    standardisation; the authors' code divides by ``nσ0²``), ``p = 1 − Φ(Z)``. Draws by inversion
    ``x = −ln(1 − U(1 − e^{−1}))``, in chunks of runs (one reused buffer) to bound memory.

    ``Σ −ln(1 − cU_i) = −ln Π(1 − cU_i)``: one log per :data:`_PRODUCT_TERMS` draws instead of one
    per draw (10× faster; each factor is ≥ e^{−1}, so a product of 500 stays above 1e−218).
    """
    truth = rng.random((R, T)) < pi1
    sums = np.empty((R, T))
    rows = max(1, min(R, chunk // (T * n)))
    buffer = np.empty((rows, T, n))
    c1 = -math.expm1(-1.0)
    for r0 in range(0, R, rows):
        u = buffer[: min(rows, R - r0)]
        rng.random(out=u)  # the same draws as rng.random(u.shape)
        u *= -c1
        u += 1.0
        sums[r0:r0 + rows] = -sum(np.log(np.prod(u[..., i:i + _PRODUCT_TERMS], axis=2))
                                  for i in range(0, n, _PRODUCT_TERMS))
    sums = np.where(truth, theta * sums, sums)
    z = (sums - n * TRUNCEXP_MU0) / (math.sqrt(n) * TRUNCEXP_SIGMA0)
    p = special.ndtr(-z)
    return Streams(p, truth, eta_paper(n), f"truncated exponential, n = {n}, θ = {theta:g}, π1 = {pi1:g}")


def _page_part(kind: str, part: int, count: int, T: int, pi1: float, n: int, theta: float, seed: int) -> Streams:
    """``count`` streams from the FDR page's generator ``[seed, ⌊π1·10⁶⌋, 17, part]``."""
    simulate = simulate_bernoulli if kind == "bernoulli" else simulate_truncexp
    return simulate(count, T, pi1=pi1, n=n, theta=theta, rng=np.random.default_rng([seed, int(pi1 * 1e6), 17, part]))


def page_streams(kind: str, runs: int, T: int = 800, *, pi1: float = 0.05, n: int = 1000, theta: float = 0.75,
                 seed: int = 0) -> Streams:
    """The FDR page's ``runs`` simulated streams from its public seed: run 1 from its own generator (so the page's
    "one stream" does not change with the number of runs), runs 2..R together from a second one.
    ``kind``: ``"bernoulli"`` or ``"truncexp"``."""
    one = _page_part(kind, 0, 1, T, pi1, n, theta, seed)
    if runs == 1:
        return one
    more = _page_part(kind, 1, runs - 1, T, pi1, n, theta, seed)
    return Streams(np.concatenate([one.pvalues, more.pvalues]), np.concatenate([one.truth, more.truth]), one.eta,
                   one.description)


def page_stream(kind: str, run: int = 1, runs: int = 100, T: int = 800, *, pi1: float = 0.05, n: int = 1000,
                theta: float = 0.75, seed: int = 0) -> Streams:
    """Run ``run`` (1-based) of :func:`page_streams` (one stream: ``pvalues`` and ``truth`` of shape (T,)),
    simulating only the generator it comes from."""
    if not 1 <= run <= runs:
        raise ValueError(f"run {run} does not exist (the page simulates {runs})")
    streams = _page_part(kind, 0 if run == 1 else 1, 1 if run == 1 else runs - 1, T, pi1, n, theta, seed)
    i = 0 if run == 1 else run - 2
    return Streams(streams.pvalues[i], streams.truth[i], streams.eta, streams.description)
