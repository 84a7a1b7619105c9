"""The sequential core (compiled with numba): every γ-based rule, R streams in one pass over time.

Input handling (p-values → runs × time, floored log p) and the shared bookkeeping described in the
package docstring. Noise is drawn beforehand as arrays; the kernel only compares.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal, Mapping, Sequence

import numba
import numpy as np

from dpcore.fdr.calibration import Shift, shift_value
from dpcore.fdr.sensitivity import P_FLOOR


def _shift_per_run(eps: np.ndarray, delta: float, eta: float, cutoff: int, horizon: int, shift: Shift) -> np.ndarray:
    """:func:`shift_value` for each run's ε (an ε grid stacked on the run axis), computed once per value."""
    grid, index = np.unique(eps, return_inverse=True)
    return np.array([shift_value(float(e), delta, eta, cutoff, horizon, shift) for e in grid])[index]


def _as_runs(pvalues) -> tuple[np.ndarray, bool]:
    p = np.asarray(pvalues, dtype=float)
    single = p.ndim == 1
    if single:
        p = p[None, :]
    if p.ndim != 2 or p.shape[1] == 0:
        raise ValueError("p-values must have shape (T,) or (R, T) with T ≥ 1")
    if not np.all(np.isfinite(p)) or (p < 0).any() or (p > 1).any():
        raise ValueError("p-values must be finite numbers in [0, 1]")
    return p, single


def log_pvalues(p: np.ndarray, floor: float = P_FLOOR) -> np.ndarray:
    """``log max(p, μ)``: p = 0 is allowed and floored at ``μ`` (the sensitivity assumption starts there)."""
    return np.log(np.maximum(p, floor))


# --------------------------------------------------------------------------
# The sequential core (compiled)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class StreamResult:
    """Decisions of one rule on R streams (arrays of shape ``(R, T)``).

    ``alpha`` is the rule's test level ``α_t``; for the private rules
    ``log_threshold = log α_t − A + Z_α`` (the moving noisy threshold) and
    ``noisy_logp = log p_t + Z_t`` are kept for preview figures only — they
    are internal noise of SparseVector and are never part of a release.
    """

    method: str
    rejections: np.ndarray
    alpha: np.ndarray
    candidates: np.ndarray
    log_threshold: np.ndarray | None = None
    noisy_logp: np.ndarray | None = None
    params: Mapping[str, object] = field(default_factory=dict)

    def squeeze(self) -> "StreamResult":
        """Drop the run axis of a single stream."""
        def s(a):
            return None if a is None else a[0]
        return StreamResult(self.method, s(self.rejections), s(self.alpha), s(self.candidates),
                            s(self.log_threshold), s(self.noisy_logp), self.params)


def _gamma_run(
    p: np.ndarray,
    *,
    w0,
    b0,
    gamma: np.ndarray,
    clock: Literal["time", "candidates"],
    lam: float | None,
    cand_factor: float,
    ai_factor: float | None,
    cap: float | None,
    private: bool = False,
    shift_a=None,
    z_alpha: np.ndarray | None = None,
    z_test: np.ndarray | None = None,
    cutoff: int | None = None,
    floor: float = P_FLOOR,
    keep_threshold: bool = False,
):
    """One γ-based rule on R streams: scalar parameters broadcast to the per-row core :func:`_core`.

    Constant-λ rules use candidates ``p < cand_factor·λ`` and ``α_t = min(cap, s_t)``; AI rules
    (``ai_factor = f``) use ``α_t = s_t/(1 + f s_t)`` and candidates ``p < f·α_t``; ``lam=None``
    with ``ai_factor=None`` makes every step a candidate (LORD++).
    """
    R = p.shape[0]
    rows = _Rows.build(
        R, w0=w0, b0=b0, cap=math.inf if cap is None else cap, ai=0.0 if ai_factor is None else ai_factor,
        cand_const=math.inf if lam is None else cand_factor * lam, time_clock=clock == "time", private=private,
        cutoff=cutoff if cutoff is not None else np.iinfo(np.int64).max, shift_a=0.0 if shift_a is None else shift_a,
        gamma_id=0,
    )
    return _core(p, rows, [gamma], z_alpha=z_alpha, z_test=z_test, floor=floor, keep_threshold=keep_threshold)


def _compiled(function):
    """numba-compile ``function`` (GIL released, so sessions run side by side), cached on disk when a
    writable cache location exists (next to the module, or ``NUMBA_CACHE_DIR`` / the user's cache);
    on a read-only install it compiles once per process instead of failing at import."""
    try:
        return numba.njit(cache=True, nogil=True)(function)
    except RuntimeError:  # numba: "cannot cache function …: no locator available"
        return numba.njit(nogil=True)(function)


@dataclass(frozen=True)
class _Rows:
    """Per-run parameters of the γ-based core, so several rules (or ε values) share one call."""

    w0: np.ndarray
    b0: np.ndarray
    cap: np.ndarray
    ai: np.ndarray
    cand_const: np.ndarray
    time_clock: np.ndarray
    private: np.ndarray
    cutoff: np.ndarray
    shift_a: np.ndarray
    gamma_id: np.ndarray

    @classmethod
    def build(cls, R: int, **values) -> "_Rows":
        dtypes = dict(time_clock=bool, private=bool, cutoff=np.int64, gamma_id=np.int64)
        return cls(**{k: np.broadcast_to(np.asarray(v, dtype=dtypes.get(k, float)), (R,)).copy()
                      for k, v in values.items()})

    @staticmethod
    def stack(parts: Sequence["_Rows"]) -> "_Rows":
        return _Rows(**{f: np.concatenate([getattr(r, f) for r in parts]) for f in _Rows.__dataclass_fields__})


@_compiled
def _gamma_kernel(p, stream, w0, b0, cap, ai, cand_const, time_clock, private, cutoff, shift_a, gamma_id, G,
                  z_alpha, z_test, floor, rejections, alphas, candidates):
    """The sequential algorithm of the module docstring, compiled: one pass over time per run.

    Row ``r`` reads the p-values of stream ``stream[r]`` (so stacked rules share one copy of the streams).

    ``F[n] = Σ_j W_j γ[1 + n − K_j]`` over clock values ``n = 0..T`` (``G[i, k] = γ_k`` of sequence i,
    zero-padded); the level at a step with clock ``N`` is ``F[N]`` and a rejection at clock ``K``
    adds ``W·γ[1 + n − K]`` to every ``F[n ≥ K]``.
    """
    R, T = rejections.shape
    F = np.empty(T + 1)
    for r in range(R):
        x = p[stream[r]]
        g = G[gamma_id[r]]
        for n in range(T + 1):
            F[n] = g[1 + n] * w0[r]
        clock = 0
        nrej = 0
        for t in range(T):
            s = F[clock]
            if ai[r] > 0.0:  # λ_t = α_t: α_t = s/(1 + f s), candidates p < f α_t
                a = min(s / (ai[r] * s + 1.0), cap[r])
                cand = x[t] < ai[r] * a
            else:
                a = min(s, cap[r])
                cand = x[t] < cand_const[r]
            alphas[r, t] = a
            candidates[r, t] = cand
            rej = False
            if cand and nrej < cutoff[r]:
                if private[r]:  # SparseVector: log p + Z_t < log α_t − A + Z_α (Z_α redrawn per rejection)
                    rej = a > 0.0 and (math.log(max(x[t], floor)) + z_test[r, t]
                                       < math.log(a) - shift_a[r] + z_alpha[r, nrej])
                else:
                    rej = x[t] < a
            if time_clock[r] or not cand:
                clock += 1
            if rej:
                rejections[r, t] = True
                w = b0[r] - w0[r] if nrej == 0 else b0[r]
                for n in range(clock, T + 1):
                    F[n] += g[1 + n - clock] * w
                nrej += 1


def _core(p: np.ndarray, rows: _Rows, gammas: Sequence[np.ndarray], *, z_alpha=None, z_test=None,
          floor: float = P_FLOOR, keep_threshold: bool = False):
    """Every γ-based rule on (S, T) p-values, one row of ``rows`` per run (see the module docstring).

    ``rows`` has R = k·S rows: row r runs on stream ``r mod S`` (k rules stacked on the run axis).
    ``gammas``: γ arrays indexed by ``rows.gamma_id``. Private rows reject iff candidate, fewer than
    ``cutoff`` rejections so far, and ``log p + Z_t < log α_t − A + Z_α[#rej]``; ``z_alpha`` has shape
    (R, max cutoff + 1): the j-th threshold draw is used between the j-th and (j+1)-th rejection.
    Non-private rows reject iff candidate, fewer than ``cutoff`` rejections and ``p < α_t``.
    Returns rejections, α_t, candidates and (``keep_threshold``) the private rows' noisy threshold
    and statistic for preview figures.
    """
    R, T = rows.w0.size, p.shape[1]
    if R % p.shape[0]:
        raise ValueError(f"{R} parameter rows cannot be split over {p.shape[0]} streams")
    stream = np.arange(R) % p.shape[0]
    G = np.zeros((len(gammas), max(max(g.size for g in gammas), T + 2)))  # γ beyond a stored sequence is 0
    for i, g in enumerate(gammas):
        G[i, : g.size] = g
    private = np.any(rows.private)
    za = np.ascontiguousarray(z_alpha, dtype=float) if private else np.zeros((1, 1))
    zt = np.ascontiguousarray(z_test, dtype=float) if private else np.zeros((1, 1))
    # the kernel reads z_alpha[r, j] for j < min(cutoff, T) and z_test[r, t] (unchecked: verify here)
    if private and (za.shape[0] != R or za.shape[1] < min(int(rows.cutoff[rows.private].max()), T)
                    or zt.shape != (R, T)):
        raise ValueError("private rows need z_alpha of shape (R, cutoff + 1) and z_test of shape (R, T)")
    rejections = np.zeros((R, T), dtype=bool)
    alphas = np.empty((R, T))
    candidates = np.zeros((R, T), dtype=bool)
    _gamma_kernel(np.ascontiguousarray(p, dtype=float), stream, rows.w0, rows.b0, rows.cap, rows.ai, rows.cand_const,
                  rows.time_clock, rows.private, rows.cutoff, rows.shift_a, rows.gamma_id, G, za, zt, float(floor),
                  rejections, alphas, candidates)
    thresholds = noisy = None
    if private and keep_threshold:
        before = np.cumsum(rejections, axis=1) - rejections  # rejections before each step
        np.minimum(before, za.shape[1] - 1, out=before)
        with np.errstate(divide="ignore", invalid="ignore"):
            thresholds = np.log(alphas) - rows.shift_a[:, None] + np.take_along_axis(za, before, axis=1)
        noisy = log_pvalues(p[stream], floor) + zt
    return rejections, alphas, candidates, thresholds, noisy


@_compiled
def _alpha_investing_kernel(p, w0, payout, rejections, alphas):
    R, T = p.shape
    for r in range(R):
        wealth = w0
        last = 0.0
        for t in range(T):
            a = min(wealth / (1.0 + (t + 1) - last), wealth / (1.0 + wealth))
            alphas[r, t] = a
            if p[r, t] < a:
                rejections[r, t] = True
                wealth += payout
                last = t + 1.0
            else:
                wealth -= a / (1.0 - a)


def _alpha_investing_run(p: np.ndarray, *, alpha: float, w0: float | None = None, payout: float | None = None):
    """Foster & Stine (2008) alpha-investing on R streams (one compiled pass over time per run).

    Wealth ``W(0) = w0`` (default α/2); level ``α_t = min(W/(1 + t − k*), W/(1 + W))`` with ``k*`` the
    last rejection time (0 before any); a rejection earns the payout ``ω = α``, a non-rejection
    costs ``α_t/(1 − α_t) ≤ W``. Controls mFDR_η = E V / (E R + η) ≤ α with η = 1 − α when
    ``W(0) ≤ α(1 − α)`` and ``ω ≤ α`` (Foster & Stine, Theorem 1).
    """
    R, T = p.shape
    rejections = np.zeros((R, T), dtype=bool)
    alphas = np.empty((R, T))
    _alpha_investing_kernel(np.ascontiguousarray(p, dtype=float), alpha / 2.0 if w0 is None else float(w0),
                            float(alpha if payout is None else payout), rejections, alphas)
    return rejections, alphas, np.ones((R, T), dtype=bool)
