"""The private rule: PAPRIKA (AI) — draw the SparseVector noise, then run the core with it."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcore.fdr.calibration import Shift, paprika_noise_scales, paprika_noises
from dpcore.fdr.core import StreamResult, _gamma_run, _shift_per_run
from dpcore.fdr.rules import _gamma_for
from dpcore.fdr.sensitivity import P_FLOOR, Rule
from dpcore.core.mechanisms import laplace


@dataclass(frozen=True)
class PaprikaNoise:
    """Pre-drawn SparseVector noise for R streams: ``z_alpha`` (R, c+1) and ``z_test`` (R, T)."""

    z_alpha: np.ndarray
    z_test: np.ndarray


def draw_paprika_noise(
    R: int, T: int, *, epsilon, eta: float, cutoff: int, rng: np.random.Generator | None,
    scale_factor: float = 1.0,
) -> PaprikaNoise:
    """Laplace noise for R streams through the shared mechanisms.

    ``rng`` given → preview (NumPy, :func:`dpcore.core.mechanisms.laplace`), ``epsilon`` may be an
    array of shape (R,) (an ε grid stacked on the run axis). ``rng=None`` → release path:
    OpenDP draws via :meth:`Noise.release` (scalar ε only). Drawing the c + 1 threshold values
    up front is the same in law as redrawing ``Z_α`` after each rejection: the draws are
    independent and the j-th is only used after the (j−1)-th rejection.
    ``scale_factor`` plants the "noise halved" bug for audits.
    """
    eps = np.broadcast_to(np.asarray(epsilon, dtype=float), (R,))
    if rng is None:
        if not np.all(eps == eps[0]) or math.isinf(eps[0]):
            raise ValueError("the release path needs one finite ε")
        na, nt = (n.with_scale_factor(scale_factor) for n in paprika_noises(float(eps[0]), eta, cutoff))
        return PaprikaNoise(na.release(np.zeros((R, cutoff + 1))), nt.release(np.zeros((R, T))))
    # the preview's per-row scales come from the same function, once per distinct ε (an ε grid has few)
    values, row = np.unique(eps, return_inverse=True)
    scales = np.array([paprika_noise_scales(float(e), eta, cutoff) for e in values]) * scale_factor
    za = laplace(np.zeros((R, cutoff + 1)), 1.0, rng=rng)
    za *= scales[row, 0][:, None]
    zt = laplace(np.zeros((R, T)), 1.0, rng=rng)
    zt *= scales[row, 1][:, None]  # in place (same products; a broadcast product with a fresh temporary is slower)
    return PaprikaNoise(za, zt)


def run_paprika(
    p: np.ndarray,
    *,
    alpha: float,
    epsilon,
    delta: float,
    eta: float,
    cutoff: int,
    lam: float = 0.2,
    shift: Shift = 1.0,
    gamma="power",
    ai: bool = False,
    rule: Rule = "paper",
    horizon: int | None = None,
    rng: np.random.Generator | None = None,
    noise: PaprikaNoise | None = None,
    scale_factor: float = 1.0,
    floor: float = P_FLOOR,
    keep_threshold: bool = False,
) -> StreamResult:
    """PAPRIKA (``ai=False``, λ constant) or PAPRIKA AI (``ai=True``, ``λ_t = α_t``) on R streams.

    ``rule="paper"`` (default): γ indexed by ``t − τ_j`` (thresholds depend on released decisions
    only). ``rule="code"``: the authors' code, γ indexed by ``t − τ_j − C_{j+}`` (depends on the
    unreleased candidacy indicators — not private; for reproduction and the audit only).
    ``epsilon`` may be ``inf`` (no noise, ``A = 0``) or an array (R,) for ε sweeps. ``shift``: the
    paper's scale s or :data:`STREAM` (the shift proven for the whole stream, :func:`stream_shift`).
    """
    R, T = p.shape
    k = int(horizon or T)
    if T > k:
        raise ValueError(f"the stream has {T} hypotheses, more than the horizon k = {k}")
    if cutoff < 1:
        raise ValueError("the cutoff c must be at least 1")
    if rule not in ("paper", "code"):
        raise ValueError("rule must be 'paper' or 'code'")
    if not ai and not 0 < lam < 0.5:
        raise ValueError("PAPRIKA needs 0 < λ < 0.5 (candidates use 2λ)")
    eps = np.broadcast_to(np.asarray(epsilon, dtype=float), (R,))
    if noise is None:
        noise = draw_paprika_noise(R, T, epsilon=eps, eta=eta, cutoff=cutoff, rng=rng, scale_factor=scale_factor)
    shift_a = _shift_per_run(eps, delta, eta, cutoff, k, shift)
    g = _gamma_for(gamma, T, ai, horizon=k)
    clock = "time" if rule == "paper" else "candidates"
    if ai:
        w0, b0, lam_arg, f, cap = alpha / 2, alpha, None, 2.0, None
    else:
        w0, b0, lam_arg, f, cap = (1 - 2 * lam) * alpha / 2, (1 - 2 * lam) * alpha, lam, None, lam
    rej, a, cand, thr, noisy = _gamma_run(
        p, w0=w0, b0=b0, gamma=g, clock=clock, lam=lam_arg, cand_factor=2.0, ai_factor=f, cap=cap,
        private=True, shift_a=shift_a, z_alpha=noise.z_alpha, z_test=noise.z_test, cutoff=cutoff, floor=floor,
        keep_threshold=keep_threshold,
    )
    name = ("PAPRIKA AI" if ai else "PAPRIKA") + (" (authors' code rule)" if rule == "code" else "")
    params = dict(alpha=alpha, epsilon=epsilon, delta=delta, eta=eta, cutoff=cutoff, lam=lam, shift=shift,
                  rule=rule, horizon=k, shift_A=shift_a, ai=ai)
    return StreamResult(name, rej, a, cand, thr, noisy, params)
