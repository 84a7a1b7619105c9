"""One-call functions for notebooks, the page's settings, and every rule on the same streams."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from dpcore.fdr.calibration import Shift
from dpcore.fdr.core import StreamResult, _as_runs, _core, _Rows, _shift_per_run
from dpcore.fdr.paprika import draw_paprika_noise, run_paprika
from dpcore.fdr.rules import FDRResult, _gamma_for, run_alpha_investing, run_lord, run_saffron, run_saffron_ai
from dpcore.fdr.sensitivity import METHODS, P_FLOOR, PRIVATE_METHODS, GammaKind, Rule


def _pack(res: StreamResult, single: bool) -> FDRResult:
    if single:
        return FDRResult(res.rejections[0], res.alpha[0])
    return FDRResult(res.rejections, res.alpha)


def paprika(
    pvalues,
    *,
    alpha: float,
    epsilon: float,
    delta: float,
    eta: float,
    cutoff: int,
    lam: float = 0.2,
    shift: Shift = 1.0,
    gamma: GammaKind = "power",
    rng: np.random.Generator | None = None,
    ai: bool = False,
    rule: Rule = "paper",
    horizon: int | None = None,
) -> FDRResult:
    """PAPRIKA on ``pvalues`` of shape (T,) or (R, T); returns ``(rejections, alpha_t)``.

    With ``rng=None`` the noise comes from OpenDP (the release path, OS-seeded); pass a
    ``numpy.random.Generator`` for fast, reproducible previews. ``ai=True`` gives PAPRIKA AI.

    >>> import numpy as np
    >>> from dpcore import fdr
    >>> p = np.array([1e-6, 0.2, 3e-5, 0.8, 1e-4, 0.5, 0.03, 1e-7])
    >>> fdr.saffron(p, alpha=0.1).rejections.nonzero()[0].tolist()  # the non-private answer
    [0, 2, 4, 7]
    >>> many = fdr.paprika(np.tile(p, (200, 1)), alpha=0.1, epsilon=5.0, delta=1e-4, eta=0.5, cutoff=4,
    ...                    rng=np.random.default_rng(0))  # 200 seeded previews
    >>> many.rejections.mean(axis=0).round(1).tolist()  # how often each hypothesis is rejected
    [1.0, 0.0, 0.8, 0.0, 0.7, 0.0, 0.1, 0.9]
    """
    p, single = _as_runs(pvalues)
    res = run_paprika(p, alpha=alpha, epsilon=epsilon, delta=delta, eta=eta, cutoff=cutoff, lam=lam, shift=shift,
                      gamma=gamma, ai=ai, rule=rule, horizon=horizon, rng=rng)
    return _pack(res, single)


def saffron(pvalues, *, alpha: float, lam: float = 0.5, gamma: GammaKind = "power") -> FDRResult:
    """Non-private SAFFRON on ``pvalues`` of shape (T,) or (R, T); returns ``(rejections, alpha_t)``.

    >>> import numpy as np
    >>> from dpcore import fdr
    >>> fdr.saffron(np.array([1e-6, 0.2, 3e-5, 0.8]), alpha=0.1).rejections.tolist()
    [True, False, True, False]
    """
    p, single = _as_runs(pvalues)
    return _pack(run_saffron(p, alpha=alpha, lam=lam, gamma=gamma), single)


def lord(pvalues, *, alpha: float, gamma: GammaKind = "power") -> FDRResult:
    """Non-private LORD++ (``w0 = 0.1α``)."""
    p, single = _as_runs(pvalues)
    return _pack(run_lord(p, alpha=alpha, gamma=gamma), single)


def alpha_investing(pvalues, *, alpha: float) -> FDRResult:
    """Non-private Foster–Stine alpha-investing."""
    p, single = _as_runs(pvalues)
    return _pack(run_alpha_investing(p, alpha=alpha), single)


@dataclass(frozen=True)
class Settings:
    """Public parameters shared by all six methods on a page, a sweep or a benchmark."""

    alpha: float = 0.05
    epsilon: float = 5.0
    delta: float = 2.5e-4
    eta: float = math.sqrt(math.log(1000) / 1000)
    cutoff: int = 40
    lam_saffron: float = 0.5
    lam_paprika: float = 0.2
    #: a scale s of the paper's shift (:func:`paprika_shift`) or :data:`STREAM` (:func:`stream_shift`)
    shift: Shift = 1.0
    gamma: GammaKind = "power"
    rule: Rule = "paper"
    #: μ in log max(p, μ): η is only a bound above it (see :func:`eta_binomial_exact`)
    floor: float = P_FLOOR


def run_method(name: str, p: np.ndarray, settings: Settings, *, rng: np.random.Generator | None = None,
               epsilon=None, keep_threshold: bool = False) -> StreamResult:
    """Run one of :data:`METHODS` on (R, T) p-values (``epsilon`` overrides ``settings.epsilon``, may be (R,))."""
    s = settings
    if name == "SAFFRON":
        return run_saffron(p, alpha=s.alpha, lam=s.lam_saffron, gamma=s.gamma)
    if name == "SAFFRON AI":
        return run_saffron_ai(p, alpha=s.alpha, gamma=s.gamma)
    if name == "LORD++":
        return run_lord(p, alpha=s.alpha, gamma=s.gamma)
    if name == "alpha-investing":
        return run_alpha_investing(p, alpha=s.alpha)
    if name in PRIVATE_METHODS:
        if rng is None:
            raise ValueError("previews of the private methods need a numpy Generator")
        return run_paprika(p, alpha=s.alpha, epsilon=s.epsilon if epsilon is None else epsilon, delta=s.delta,
                           eta=s.eta, cutoff=s.cutoff, lam=s.lam_paprika, shift=s.shift, gamma=s.gamma,
                           ai=name == "PAPRIKA AI", rule=s.rule, rng=rng, keep_threshold=keep_threshold,
                           floor=s.floor)
    raise ValueError(f"unknown method {name!r}; choose from {', '.join(METHODS)}")


def _rule_rows(name: str, R: int, settings: Settings, gamma_id: int, shift_a) -> _Rows:
    s = settings
    big = np.iinfo(np.int64).max
    if name == "SAFFRON":
        lam = s.lam_saffron
        return _Rows.build(R, w0=(1 - lam) * s.alpha / 2, b0=(1 - lam) * s.alpha, cap=lam, ai=0.0, cand_const=lam,
                           time_clock=False, private=False, cutoff=big, shift_a=0.0, gamma_id=gamma_id)
    if name == "SAFFRON AI":
        return _Rows.build(R, w0=s.alpha / 2, b0=s.alpha, cap=math.inf, ai=1.0, cand_const=math.inf,
                           time_clock=False, private=False, cutoff=big, shift_a=0.0, gamma_id=gamma_id)
    if name == "LORD++":
        return _Rows.build(R, w0=0.1 * s.alpha, b0=s.alpha, cap=math.inf, ai=0.0, cand_const=math.inf,
                           time_clock=True, private=False, cutoff=big, shift_a=0.0, gamma_id=gamma_id)
    ai = name == "PAPRIKA AI"
    lam = s.lam_paprika
    w0, b0 = (s.alpha / 2, s.alpha) if ai else ((1 - 2 * lam) * s.alpha / 2, (1 - 2 * lam) * s.alpha)
    return _Rows.build(R, w0=w0, b0=b0, cap=math.inf if ai else lam, ai=2.0 if ai else 0.0,
                       cand_const=math.inf if ai else 2 * lam, time_clock=s.rule == "paper", private=True,
                       cutoff=s.cutoff, shift_a=shift_a, gamma_id=gamma_id)


def run_all(p: np.ndarray, settings: Settings, *, rng: np.random.Generator,
            methods: Sequence[str] = METHODS, epsilon=None) -> dict[str, StreamResult]:
    """Run several of :data:`METHODS` on the same (R, T) streams in one kernel call.

    The γ-based rules are stacked on the run axis (R × #rules rows, each with its own parameters);
    alpha-investing runs in its own kernel. Same decisions as :func:`run_method` given the same
    noise (the private rows draw their own noise from ``rng``). ``epsilon`` (scalar or (R,))
    overrides ``settings.epsilon`` for the private rules.
    """
    R, T = p.shape
    s = settings
    eps = np.broadcast_to(np.asarray(s.epsilon if epsilon is None else epsilon, dtype=float), (R,))
    g_rules = [m for m in methods if m != "alpha-investing"]
    out: dict[str, StreamResult] = {}
    if g_rules:
        gammas = [_gamma_for(s.gamma, T, False), _gamma_for(s.gamma, T, True)]
        shift_a = 0.0
        if any(m in PRIVATE_METHODS for m in g_rules):
            shift_a = _shift_per_run(eps, s.delta, s.eta, s.cutoff, T, s.shift)
        rows = _Rows.stack([_rule_rows(m, R, s, int(m in ("SAFFRON AI", "PAPRIKA AI")), shift_a) for m in g_rules])
        za = np.zeros((len(g_rules) * R, s.cutoff + 1))
        zt = np.zeros((len(g_rules) * R, T))  # non-private rows keep zeros (never read)
        for i, m in enumerate(g_rules):  # noise drawn in the order of `methods`, as run_method would
            if m in PRIVATE_METHODS:
                noise = draw_paprika_noise(R, T, epsilon=eps, eta=s.eta, cutoff=s.cutoff, rng=rng)
                za[i * R:(i + 1) * R] = noise.z_alpha
                zt[i * R:(i + 1) * R] = noise.z_test
        rej, a, cand, _, _ = _core(p, rows, gammas, z_alpha=za, z_test=zt, floor=s.floor)
        for i, m in enumerate(g_rules):
            sl = slice(i * R, (i + 1) * R)
            out[m] = StreamResult(m, rej[sl], a[sl], cand[sl], params=dict(settings=s))
    if "alpha-investing" in methods:
        out["alpha-investing"] = run_alpha_investing(p, alpha=s.alpha)
    return {m: out[m] for m in methods}
