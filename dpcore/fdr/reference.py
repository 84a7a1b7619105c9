"""Straightforward per-stream Python loops of the online FDR rules, written from the formulas in fdr.md.

Independent of the vectorised :mod:`dpcore.fdr` (no shared bookkeeping): each step sums γ over the
list of past rejection times directly. Used as the test oracle (same decisions given the same noise)
and as the benchmark baseline. Not meant for the pages: plain Python, one stream at a time.
"""

from __future__ import annotations

import math
from typing import Sequence


def _g(gamma: Sequence[float], j: int) -> float:
    """γ_j with γ_j = 0 for j ≤ 0 or beyond the stored sequence (gamma[0] is unused)."""
    return gamma[j] if 1 <= j < len(gamma) else 0.0


def saffron_loop(p: Sequence[float], gamma: Sequence[float], *, alpha: float, lam: float):
    """SAFFRON: α_t = min{λ, w0 γ_{t−C0+} + ((1−λ)α − w0) γ_{t−τ1−C1+} + (1−λ)α Σ_{j≥2} γ_{t−τj−Cj+}}."""
    w0 = (1 - lam) * alpha / 2
    taus: list[int] = []
    cj: list[int] = []  # C_{j+}: candidates after τ_j
    c0 = 0
    rej, alphas = [], []
    for t in range(1, len(p) + 1):
        total = w0 * _g(gamma, t - c0)
        for j, tau in enumerate(taus):
            weight = (1 - lam) * alpha - w0 if j == 0 else (1 - lam) * alpha
            total += weight * _g(gamma, t - tau - cj[j])
        a = min(lam, total)
        is_cand = p[t - 1] < lam
        r = is_cand and p[t - 1] < a
        if is_cand:
            c0 += 1
            cj = [c + 1 for c in cj]
        if r:
            taus.append(t)
            cj.append(0)
        rej.append(r)
        alphas.append(a)
    return rej, alphas


def lord_loop(p: Sequence[float], gamma: Sequence[float], *, alpha: float, w0: float | None = None):
    """LORD++: α_t = w0 γ_t + (α − w0) γ_{t−τ1} + α Σ_{j≥2} γ_{t−τj}."""
    w0 = 0.1 * alpha if w0 is None else w0
    taus: list[int] = []
    rej, alphas = [], []
    for t in range(1, len(p) + 1):
        a = w0 * _g(gamma, t)
        for j, tau in enumerate(taus, start=1):
            a += (alpha - w0 if j == 1 else alpha) * _g(gamma, t - tau)
        r = p[t - 1] < a
        if r:
            taus.append(t)
        rej.append(r)
        alphas.append(a)
    return rej, alphas


def saffron_ai_loop(p: Sequence[float], gamma: Sequence[float], *, alpha: float):
    """SAFFRON with λ_t = α_t: s_t with indices t − τ_j − C_{j+}, α_t = s_t / (1 + s_t), candidate p < α_t."""
    w0 = alpha / 2
    taus: list[int] = []
    cj: list[int] = []
    c0 = 0
    rej, alphas = [], []
    for t in range(1, len(p) + 1):
        s = w0 * _g(gamma, t - c0)
        for j, tau in enumerate(taus):
            s += (alpha - w0 if j == 0 else alpha) * _g(gamma, t - tau - cj[j])
        a = s / (1 + s)
        r = p[t - 1] < a  # candidate (p < λ_t = α_t) and rejection coincide
        if r:
            c0 += 1
            cj = [c + 1 for c in cj]
            taus.append(t)
            cj.append(0)
        rej.append(r)
        alphas.append(a)
    return rej, alphas


def alpha_investing_loop(p: Sequence[float], *, alpha: float):
    """Foster–Stine: α_t = min(W/(1 + t − k*), W/(1+W)); reject → W += α, else W −= α_t/(1−α_t)."""
    wealth, last = alpha / 2, 0
    rej, alphas = [], []
    for t in range(1, len(p) + 1):
        a = min(wealth / (1 + t - last), wealth / (1 + wealth))
        r = p[t - 1] < a
        if r:
            wealth += alpha
            last = t
        else:
            wealth -= a / (1 - a)
        rej.append(r)
        alphas.append(a)
    return rej, alphas


def paprika_loop(
    p: Sequence[float],
    gamma: Sequence[float],
    *,
    alpha: float,
    lam: float,
    cutoff: int,
    shift_a: float,
    z_alpha: Sequence[float],
    z_test: Sequence[float],
    ai: bool = False,
    rule: str = "paper",
    floor: float = 1e-300,
):
    """PAPRIKA / PAPRIKA AI with given noise: reject iff C_t, fewer than c rejections, and
    log p_t + Z_t < log α_t − A + Z_α (Z_α = z_alpha[number of rejections so far])."""
    if ai:
        w0, b0 = alpha / 2, alpha
    else:
        w0, b0 = (1 - 2 * lam) * alpha / 2, (1 - 2 * lam) * alpha
    taus: list[int] = []
    cj: list[int] = []
    c0 = 0
    rej, alphas = [], []
    for t in range(1, len(p) + 1):
        if rule == "paper":
            s = w0 * _g(gamma, t)
            for j, tau in enumerate(taus):
                s += (b0 - w0 if j == 0 else b0) * _g(gamma, t - tau)
        else:
            s = w0 * _g(gamma, t - c0)
            for j, tau in enumerate(taus):
                s += (b0 - w0 if j == 0 else b0) * _g(gamma, t - tau - cj[j])
        if ai:
            a = s / (1 + 2 * s)
            is_cand = p[t - 1] < 2 * a
        else:
            a = min(lam, s)
            is_cand = p[t - 1] < 2 * lam
        r = False
        if is_cand and len(taus) < cutoff and a > 0:
            stat = math.log(max(p[t - 1], floor)) + z_test[t - 1]
            r = stat < math.log(a) - shift_a + z_alpha[len(taus)]
        if is_cand:
            c0 += 1
            cj = [c + 1 for c in cj]
        if r:
            taus.append(t)
            cj.append(0)
        rej.append(r)
        alphas.append(a)
    return rej, alphas
