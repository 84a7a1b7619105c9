"""Baselines: the non-private online FDR rules SAFFRON, SAFFRON AI, LORD++ and alpha-investing."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from dpcore.fdr.calibration import gamma_sequence
from dpcore.fdr.core import StreamResult, _alpha_investing_run, _gamma_run
from dpcore.fdr.sensitivity import GammaKind


class FDRResult(NamedTuple):
    """Return value of the one-call functions: rejections and test levels α_t (same shape as ``pvalues``)."""

    rejections: np.ndarray
    alpha: np.ndarray


def _default_exponent(ai: bool) -> float:
    return 1.4 if ai else 1.6


def _gamma_for(gamma: GammaKind | np.ndarray, T: int, ai: bool, horizon: int | None = None) -> np.ndarray:
    if isinstance(gamma, np.ndarray):
        return gamma
    return gamma_sequence(gamma, max(T, 1), exponent=_default_exponent(ai), horizon=horizon or T)


def run_saffron(p: np.ndarray, *, alpha: float, lam: float = 0.5, gamma="power", cutoff: int | None = None) -> StreamResult:
    """SAFFRON (Ramdas et al. 2018): ``w0 = (1−λ)α/2``, candidates ``p < λ``, candidate clock, ``α_t ≤ λ``."""
    if not 0 < lam < 1:
        raise ValueError("λ must lie in (0, 1)")
    g = _gamma_for(gamma, p.shape[1], False)
    rej, a, cand, _, _ = _gamma_run(p, w0=(1 - lam) * alpha / 2, b0=(1 - lam) * alpha, gamma=g, clock="candidates",
                                    lam=lam, cand_factor=1.0, ai_factor=None, cap=lam, cutoff=cutoff)
    return StreamResult("SAFFRON", rej, a, cand, params=dict(alpha=alpha, lam=lam))


def run_saffron_ai(p: np.ndarray, *, alpha: float, gamma="power") -> StreamResult:
    """SAFFRON with ``λ_t = α_t`` (its alpha-investing special case): ``α_t = s_t/(1+s_t)``, ``w0 = α/2``."""
    g = _gamma_for(gamma, p.shape[1], True)
    rej, a, cand, _, _ = _gamma_run(p, w0=alpha / 2, b0=alpha, gamma=g, clock="candidates", lam=None,
                                    cand_factor=1.0, ai_factor=1.0, cap=None)
    return StreamResult("SAFFRON AI", rej, a, cand, params=dict(alpha=alpha))


def run_lord(p: np.ndarray, *, alpha: float, gamma="power", w0: float | None = None) -> StreamResult:
    """LORD++ (Ramdas et al. 2017): ``α_t = w0γ_t + (α−w0)γ_{t−τ1} + αΣ_{j≥2}γ_{t−τj}``, ``w0 = 0.1α``."""
    g = _gamma_for(gamma, p.shape[1], False)
    w = 0.1 * alpha if w0 is None else w0
    rej, a, cand, _, _ = _gamma_run(p, w0=w, b0=alpha, gamma=g, clock="time", lam=None, cand_factor=1.0,
                                    ai_factor=None, cap=None)
    return StreamResult("LORD++", rej, a, cand, params=dict(alpha=alpha, w0=w))


def run_alpha_investing(p: np.ndarray, *, alpha: float) -> StreamResult:
    """Foster–Stine alpha-investing (see :func:`_alpha_investing_run`)."""
    rej, a, cand = _alpha_investing_run(p, alpha=alpha)
    return StreamResult("alpha-investing", rej, a, cand, params=dict(alpha=alpha))
