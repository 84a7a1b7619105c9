"""Private online false discovery rate control: PAPRIKA against SAFFRON, LORD++ and alpha-investing.

Specification: ``shared/docs/fdr.md`` (Zhang, Kamath & Cummings, "PAPRIKA").

A stream of p-values ``p_1, p_2, …`` arrives; at each step a rule decides at
once whether to reject (a *discovery*). All rules here run **R streams in one
call**: runs, rules, π1 values and ε values are stacked on one run axis, each
row with its own parameters, and one compiled kernel (numba) makes one pass
over time per row. The decision at ``t`` depends on the decisions before it,
so time cannot be vectorised; a NumPy loop over time with arrays over runs
reached only ≈ 35× a per-run Python loop (the ~20k rejection updates and
alpha-investing's wealth recursion cost ≈ 1 µs each as array operations), the
compiled pass ≈ 140× (``bench/bench_fdr.py``). Noise is drawn as arrays
beforehand; the kernel only compares.

Shared bookkeeping (one implementation for every γ-based rule)
---------------------------------------------------------------
SAFFRON, SAFFRON AI, LORD++, PAPRIKA and PAPRIKA AI all compute

    s_t = W_0 γ[1 + N(t−1) − K_0] + W_1 γ[1 + N(t−1) − K_1] + Σ_{j≥2} W_j γ[1 + N(t−1) − K_j]

with weights ``W_0 = w0``, ``W_1 = b0 − w0``, ``W_j = b0`` (``j ≥ 2``), a
*clock* ``N(t)`` and ``K_j = N(τ_j)`` the clock at the j-th rejection
(``K_0 = 0``). The core keeps, per run, ``F(n) = Σ_j W_j γ[1 + n − K_j]`` as a
table over clock values, so a step is one gather ``F(N)`` and a rejection one
slice update. Two clocks:

* ``"time"``: ``N(t) = t`` → indices ``t − τ_j`` (LORD++, PAPRIKA paper rule);
* ``"candidates"``: ``N(t) = t − C_{0+}(t)`` (non-candidates so far) →
  indices ``t − τ_j − C_{j+}(t−1)`` as in SAFFRON (and the authors' PAPRIKA code).

Indeed ``t − τ_j − C_{j+}(t−1) = 1 + N(t−1) − N(τ_j)`` because
``C_{j+}(t−1) = C_{0+}(t−1) − C_{0+}(τ_j)``. The threshold is then
``α_t = min(cap, s_t)`` (constant λ) or ``α_t = s_t / (1 + f s_t)`` (the
alpha-investing choice ``λ_t = α_t``; ``f = 1`` for SAFFRON AI, ``f = 2`` for
PAPRIKA AI whose candidates use ``2λ_t``).

Alpha-investing (Foster & Stine 2008) keeps a scalar wealth instead and has
its own small kernel.

Privacy of PAPRIKA (SparseVector on ``log p``)
----------------------------------------------
Each p-value has multiplicative sensitivity ``η``: on neighbouring data sets
``|log p − log p'| ≤ η`` for p above the floor ``μ`` (flooring is 1-Lipschitz
in ``log``, so ``log max(p, μ)`` has additive sensitivity ``η``). Threshold
noise ``Z_α ~ Lap(2ηc/ε)`` (redrawn after each rejection) and per-test noise
``Z_t ~ Lap(4ηc/ε)`` are SparseVector's calibration for ``c`` ⊤ answers of a
sensitivity-η query stream: each of the ``c`` segments costs ``ε/(2c)`` for
the threshold (shift η against scale 2ηc/ε) plus ``ε/(2c)`` for its ⊤ query
(shift 2η against scale 4ηc/ε); c segments compose to ε. The thresholds
``α_t`` must be functions of released decisions only — true for the paper's
time clock, false for the candidate clock of the authors' code. Candidacy
``p_t < 2λ`` is not noised, and one person moves *every* log p of the stream
(each test runs on the same records), so up to k hypotheses can change candidacy
at once. Theorem 4's shift (s = 4) bounds the chance that one such flip matters
by δ; releases use :func:`stream_shift`, which bounds it by δ/k per hypothesis
and so by δ for the stream (proof in its docstring; the s = 4 shift gave
P = 0.07 ≫ δ on 800 boundary hypotheses). Only an η proven for the test
(:func:`binomial_sensitivity`) or stated by the user (:func:`stated_sensitivity`)
is released; the paper's √(ln n / n) is for previews.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Literal, Mapping, NamedTuple, Sequence, Union

import numba
import numpy as np
import pandas as pd
from scipy import special, stats

from dpcore.mechanisms import laplace, laplace_noise

GammaKind = Literal["power", "constant"]
Rule = Literal["paper", "code"]

#: Smallest p-value used in ``log p`` (p = 0 would give −∞). It only guards
#: against p = 0; see :func:`log_pvalues`.
P_FLOOR = 1e-300

METHODS = ("SAFFRON", "SAFFRON AI", "LORD++", "alpha-investing", "PAPRIKA", "PAPRIKA AI")
PRIVATE_METHODS = ("PAPRIKA", "PAPRIKA AI")


# --------------------------------------------------------------------------
# γ sequences
# --------------------------------------------------------------------------


def gamma_sequence(kind: GammaKind, length: int, *, exponent: float = 1.6, horizon: int | None = None) -> np.ndarray:
    """``γ`` as an array ``g`` with ``g[0] = 0``, ``g[j] = γ_j`` for ``1 ≤ j ≤ length`` and a trailing 0.

    * ``"power"``: ``γ_j ∝ j^(−exponent)`` normalised over ``j ≤ max(10⁴, length)``
      (the authors' code; exponent 1.6, or 1.4 for the alpha-investing variants);
    * ``"constant"``: ``γ_j = 1/k`` for ``j ≤ k = horizon`` and 0 after (the paper text).

    Both are non-negative, non-increasing and sum to at most 1. Index 0 and
    indices beyond ``length`` read 0, so lookups can clip to ``length + 1``.
    """
    length = int(length)
    if length < 1:
        raise ValueError("the γ sequence needs at least one term")
    j = np.arange(1, length + 1, dtype=float)
    if kind == "power":
        if exponent <= 1:
            raise ValueError("the power γ sequence needs an exponent > 1")
        norm_len = max(10_000, length)
        norm = np.sum(np.arange(1, norm_len + 1, dtype=float) ** -exponent)
        values = j**-exponent / norm
    elif kind == "constant":
        k = int(horizon if horizon is not None else length)
        if k < 1:
            raise ValueError("the constant γ sequence needs a horizon k ≥ 1")
        values = np.where(j <= k, 1.0 / k, 0.0)
    else:
        raise ValueError(f"unknown γ family {kind!r} (use 'power' or 'constant')")
    return np.concatenate([[0.0], values, [0.0]])


# --------------------------------------------------------------------------
# PAPRIKA calibration
# --------------------------------------------------------------------------


def paprika_noise_scales(epsilon: float, eta: float, cutoff: int) -> tuple[float, float]:
    """Scales ``(2ηc/ε, 4ηc/ε)`` of the threshold noise ``Z_α`` and the per-test noise ``Z_t``.

    Proof sketch (SparseVector, sensitivity η of ``log p``): the threshold
    noise pays ``η/(2ηc/ε) = ε/(2c)`` per segment and each ⊤ answer pays
    ``2η/(4ηc/ε) = ε/(2c)``; ``c`` segments compose to ``ε``.
    """
    if math.isinf(epsilon):
        return 0.0, 0.0
    z_alpha = laplace_noise(2.0 * eta * cutoff, epsilon).scale
    z_test = laplace_noise(4.0 * eta * cutoff, epsilon).scale
    return z_alpha, z_test


def paprika_shift(epsilon: float, delta: float, eta: float, cutoff: int, horizon: int, shift: float = 1.0) -> float:
    """The paper's ``A = s·η·c·ln(2 / (3·min(δ, 1 − ((1−δ)e^{−ε})^{1/k}))) / ε`` (fdr.md); ``A = 0`` at ``ε = ∞``.

    The shift lowers the noisy threshold so that noise rarely pushes a null over it (it trades power
    for FDR control). Theorem 4 uses ``s = 4``, which bounds the chance that *one* boundary hypothesis
    is rejected by δ; a stream can hold up to k of them, so only :func:`stream_shift` is released.
    """
    if math.isinf(epsilon):
        return 0.0
    _check_shift_inputs(epsilon, delta, eta, cutoff, horizon)
    other = -math.expm1((math.log1p(-delta) - epsilon) / horizon)
    m = min(delta, other)
    return shift * eta * cutoff * math.log(2.0 / (3.0 * m)) / epsilon


def _check_shift_inputs(epsilon: float, delta: float, eta: float, cutoff: int, horizon: int) -> None:
    if not (epsilon > 0 and 0 < delta < 1 and eta > 0 and cutoff >= 1 and horizon >= 1):
        raise ValueError("need ε > 0, 0 < δ < 1, η > 0, c ≥ 1 and k ≥ 1")


def stream_shift(epsilon: float, delta: float, eta: float, cutoff: int, horizon: int) -> float:
    """Shift proven for a whole stream: ``A = max(0, b·ln(2k/(3δ)) + η − ln 2)``, ``b = 4ηc/ε``; 0 at ε = ∞.

    Claim: PAPRIKA and PAPRIKA AI (paper rule) with this shift are (ε, δ)-DP for streams of at most
    k hypotheses, under neighbours that move *every* log p (floored at μ) by at most η.

    Proof. Fix neighbours D, D′. Let H(D) be the run on D's p-values that decides candidacy as D′ does
    (``p_t(D′) < 2λ_t``, ``λ_t = λ`` or ``α_t``; λ_t depends on released decisions only). H(D) and
    M(D′) = H(D′) are SparseVector with the same candidacy rule on queries ``log p_t`` that differ by
    ≤ η, so ``P(H(D) ∈ S) ≤ e^ε P(M(D′) ∈ S)``. With the same noise, M(D) and H(D) first differ at a
    step t whose candidacy differs between D and D′, where the comparison
    ``log p_t + Z_t < log α_t − A + Z_α`` passes. Such a p_t is ≥ 2λ_t e^{−η} ≥ 2α_t e^{−η} (α_t ≤ λ
    by the cap), so it needs ``Z_t − Z_α < −x`` with ``x = A + ln 2 − η ≥ b·ln(2k/(3δ)) > 0``. Given
    the history, the current ``Z_α ~ Lap(b/2)`` is its law truncated above (each ⊥ since the last
    rejection says ``Z_α < …``), which is stochastically smaller, and ``Z_t ~ Lap(b)`` is fresh; so
    the step passes with probability ≤ ``P(Lap(b) − Lap(b/2) < −x) = (4e^{−x/b} − e^{−2x/b})/6 ≤
    (2/3)e^{−x/b} ≤ δ/k``. A union bound over the ≤ k steps gives ``P(M(D) ≠ H(D)) ≤ δ``, hence
    ``P(M(D) ∈ S) ≤ e^ε P(M(D′) ∈ S) + δ``. ∎

    Theorem 4's ``s = 4`` is the same bound for one step (``b·ln(2/(3δ))``): with k boundary
    hypotheses it allows up to kδ (issue 11: P = 0.07 ≫ δ at k = 800, c = 40, ε = 1).
    """
    if math.isinf(epsilon):
        return 0.0
    _check_shift_inputs(epsilon, delta, eta, cutoff, horizon)
    b = 4.0 * eta * cutoff / epsilon
    return max(0.0, b * math.log(2.0 * horizon / (3.0 * delta)) + eta - math.log(2.0))


#: The shift "scale" that selects :func:`stream_shift` (the only shift a release uses).
STREAM = "stream"
#: Theorem 4's shift scale: δ per boundary hypothesis, not per stream (the many-boundary audit's planted bug)
THEOREM_4_SHIFT = 4.0
Shift = Union[float, Literal["stream"]]


def shift_value(epsilon: float, delta: float, eta: float, cutoff: int, horizon: int, shift: Shift) -> float:
    """``A`` for a shift choice: :data:`STREAM` → :func:`stream_shift`, a number s → :func:`paprika_shift`."""
    if shift == STREAM:
        return stream_shift(epsilon, delta, eta, cutoff, horizon)
    return paprika_shift(epsilon, delta, eta, cutoff, horizon, float(shift))


def shift_label(shift: Shift) -> str:
    """How a shift choice is named on the page and in tables."""
    return "proven for the stream (δ/k)" if shift == STREAM else f"s = {float(shift):g}" + (
        " (Theorem 4)" if float(shift) == 4.0 else " (paper's experiments)" if float(shift) == 1.0 else "")


# --------------------------------------------------------------------------
# Input handling
# --------------------------------------------------------------------------


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


# --------------------------------------------------------------------------
# Named rules (non-private)
# --------------------------------------------------------------------------


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


# --------------------------------------------------------------------------
# PAPRIKA
# --------------------------------------------------------------------------


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

    ``rng`` given → preview (NumPy, :func:`dpcore.mechanisms.laplace`), ``epsilon`` may be an
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
        na = laplace_noise(2.0 * eta * cutoff, float(eps[0])).with_scale_factor(scale_factor)
        nt = laplace_noise(4.0 * eta * cutoff, float(eps[0])).with_scale_factor(scale_factor)
        return PaprikaNoise(na.release(np.zeros((R, cutoff + 1))), nt.release(np.zeros((R, T))))
    with np.errstate(divide="ignore"):
        unit = np.where(np.isinf(eps), 0.0, eta * cutoff / eps) * scale_factor
    za = laplace(np.zeros((R, cutoff + 1)), 1.0, rng=rng)
    za *= (2.0 * unit)[:, None]
    zt = laplace(np.zeros((R, T)), 1.0, rng=rng)
    zt *= (4.0 * unit)[:, None]  # in place (same products; a broadcast product with a fresh temporary is slower)
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
                  rule=rule, horizon=k, shift_A=shift_a)
    return StreamResult(name, rej, a, cand, thr, noisy, params)


# --------------------------------------------------------------------------
# One-call functions (for notebooks)
# --------------------------------------------------------------------------


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
    """
    p, single = _as_runs(pvalues)
    res = run_paprika(p, alpha=alpha, epsilon=epsilon, delta=delta, eta=eta, cutoff=cutoff, lam=lam, shift=shift,
                      gamma=gamma, ai=ai, rule=rule, horizon=horizon, rng=rng)
    return _pack(res, single)


def saffron(pvalues, *, alpha: float, lam: float = 0.5, gamma: GammaKind = "power") -> FDRResult:
    """Non-private SAFFRON on ``pvalues`` of shape (T,) or (R, T); returns ``(rejections, alpha_t)``."""
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


# --------------------------------------------------------------------------
# Simulated p-value streams
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Streams:
    """R simulated p-value streams with their truth labels (True = non-null)."""

    pvalues: np.ndarray
    truth: np.ndarray
    eta: float
    description: str


def eta_paper(n: int) -> float:
    """The paper's multiplicative sensitivity for n observations per hypothesis: ``sqrt(ln n / n)``."""
    if n < 2:
        raise ValueError("n must be at least 2")
    return math.sqrt(math.log(n) / n)


@lru_cache(maxsize=16)
def _binomial_tail_table(n: int) -> np.ndarray:
    """``P(Bin(n, ½) ≥ k)`` for k = 0..n (exact; index k)."""
    return stats.binom.sf(np.arange(n + 1) - 1, n, 0.5)


def eta_binomial_exact(n: int, floor: float) -> float:
    """Exact multiplicative sensitivity of the one-sided binomial tail p-value above ``floor``.

    Proof sketch: replacing one of the n Bernoulli records changes ``S = Σx`` by at most 1, so
    ``|log p − log p'| ≤ max_k |log P(S ≥ k) − log P(S ≥ k+1)|`` over the k whose p-values are ≥ floor
    (below the floor both are floored and the difference shrinks).
    """
    tail = _binomial_tail_table(int(n))
    logt = np.log(np.maximum(tail, floor))
    return float(np.max(np.abs(np.diff(logt))))


EtaSource = Literal["binomial", "stated", "paper"]


@dataclass(frozen=True)
class Sensitivity:
    """η (how far one person moves every log p-value), the floor μ above which it holds, and its basis.

    ``source``: ``"binomial"`` — proven for the exact one-sided binomial test (:func:`binomial_sensitivity`);
    ``"stated"`` — the user's statement about their own p-values (a release rests on it and says so);
    ``"paper"`` — the paper's √(ln n / n), which is not a bound for any test here: previews only.
    ``basis`` is the sentence a release prints about it.
    """

    eta: float
    floor: float
    source: EtaSource
    basis: str

    @property
    def refusal(self) -> str | None:
        """Why a release with this η is refused (None when it may be released)."""
        if self.source != "paper":
            return None
        return (f"η = {self.eta:.4g} is the paper's √(ln n / n), not a bound proven for the test behind these "
                "p-values: one record moves log p by more than that for small p-values (for the one-sided binomial "
                "test with n = 1000, below p ≈ 0.23, and by ≈ 12η near the rejection thresholds). Releases need the "
                "exact binomial η with its floor μ, or an η you state for your own p-values.")


def binomial_sensitivity(n: int, floor: float) -> Sensitivity:
    """The exact η of the one-sided binomial tail p-value above ``floor`` (:func:`eta_binomial_exact`)."""
    eta = eta_binomial_exact(n, floor)
    return Sensitivity(eta, floor, "binomial",
                       f"η = {eta:.4g} is the exact sensitivity of the one-sided binomial tail p-value P(Bin(n, ½) ≥ S) "
                       f"with n = {n} records per test, proven for p-values above μ = {floor:g}; p-values below μ "
                       "are raised to μ.")


def stated_sensitivity(eta: float, floor: float = P_FLOOR) -> Sensitivity:
    """An η the user states for their own p-values; a release says that its guarantee rests on it."""
    if not (math.isfinite(eta) and eta > 0):
        raise ValueError("a stated η must be a positive number")
    return Sensitivity(eta, floor, "stated",
                       f"The guarantee rests on the user-stated η = {eta:.4g}: it holds only if one person can move "
                       f"every log p-value (floored at μ = {floor:g}) by at most η. dpcore did not derive or check "
                       "this η.")


def paper_sensitivity(n: int) -> Sensitivity:
    """The paper's η = √(ln n / n) (:func:`eta_paper`): previews only (see :attr:`Sensitivity.refusal`)."""
    return Sensitivity(eta_paper(n), P_FLOOR, "paper",
                       f"η = √(ln n / n) with n = {n} (the paper's value; an assumption, not a proven bound).")


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


# --------------------------------------------------------------------------
# Uploaded p-values
# --------------------------------------------------------------------------


def pvalues_from_frame(frame: pd.DataFrame, pcol: str, truth_col: str | None = None):
    """Validate an uploaded stream: p-values in [0, 1] in stream order, optional 0/1 truth labels.

    p = 0 is accepted and floored at :data:`P_FLOOR` when logs are taken (the sensitivity
    assumption only covers p above a small floor). Raises :class:`dpcore.validation.InputError`.
    """
    from dpcore.validation import InputError, coded_column, distinct_columns, numeric_column

    distinct_columns(pcol, truth_col)
    p = numeric_column(frame, pcol, minimum=0.0, maximum=1.0, what="p-value")
    truth = None
    if truth_col:
        truth = coded_column(frame, truth_col, [0, 1], what="truth label").astype(bool)
    if p.size > 100_000:
        raise InputError(f"Column {pcol!r} has {p.size:,} p-values; at most 100,000 are supported.")
    return p, truth


# --------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Metrics:
    """Per-run FDP and power plus their means, standard errors and mFDR."""

    fdp: np.ndarray
    power: np.ndarray
    n_rejections: np.ndarray

    @property
    def fdr(self) -> float:
        return float(np.mean(self.fdp))

    @property
    def fdr_se(self) -> float:
        return float(np.std(self.fdp, ddof=1) / math.sqrt(self.fdp.size)) if self.fdp.size > 1 else float("nan")

    @property
    def mean_power(self) -> float:
        v = self.power[np.isfinite(self.power)]
        return float(np.mean(v)) if v.size else float("nan")

    @property
    def power_se(self) -> float:
        v = self.power[np.isfinite(self.power)]
        return float(np.std(v, ddof=1) / math.sqrt(v.size)) if v.size > 1 else float("nan")


def fdp_power(rejections: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """FDP = false rejections / max(rejections, 1) and power = true rejections / #non-nulls (NaN if none), per run."""
    rej = np.asarray(rejections, dtype=bool)
    tr = np.asarray(truth, dtype=bool)
    n_rej = rej.sum(axis=-1)
    false = (rej & ~tr).sum(axis=-1)
    true = (rej & tr).sum(axis=-1)
    nonnull = tr.sum(axis=-1)
    fdp = false / np.maximum(n_rej, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        power = np.where(nonnull > 0, true / np.maximum(nonnull, 1), np.nan)
    return fdp, power


def metrics(rejections: np.ndarray, truth: np.ndarray) -> Metrics:
    rej = np.atleast_2d(rejections)
    fdp, power = fdp_power(rej, np.atleast_2d(truth))
    return Metrics(fdp, power, rej.sum(axis=-1))


def mfdr(rejections: np.ndarray, truth: np.ndarray) -> float:
    """mFDR = E[false rejections] / E[rejections] over runs (0 when nothing is rejected)."""
    rej = np.atleast_2d(rejections).astype(bool)
    false = (rej & ~np.atleast_2d(truth)).sum()
    total = rej.sum()
    return float(false / total) if total else 0.0


def fdr_bound(alpha: float, delta: float, t) -> np.ndarray:
    """PAPRIKA's guarantee ``FDR(t) ≤ α + δ t``."""
    return alpha + delta * np.asarray(t, dtype=float)


def summary_table(results: Sequence[StreamResult], truth: np.ndarray) -> pd.DataFrame:
    """One row per method: FDR ± SE, power ± SE, mFDR, mean number of rejections."""
    rows = []
    for res in results:
        m = metrics(res.rejections, truth)
        rows.append(dict(method=res.method, FDR=m.fdr, FDR_se=m.fdr_se, power=m.mean_power, power_se=m.power_se,
                         mFDR=mfdr(res.rejections, truth), rejections=float(m.n_rejections.mean())))
    return pd.DataFrame(rows)


#: Shifts whose cost the page compares: the proven one, Theorem 4's s = 4 and the paper's experiments' s = 1.
COMPARED_SHIFTS: tuple[Shift, ...] = (STREAM, THEOREM_4_SHIFT, 1.0)


def shift_cost(p: np.ndarray, truth: np.ndarray, settings: Settings, *, rng: np.random.Generator,
               shifts: Sequence[Shift] = COMPARED_SHIFTS) -> pd.DataFrame:
    """FDR and power of PAPRIKA and PAPRIKA AI under each shift, on the same (R, T) streams.

    One :func:`run_all` call per shift (both private rules stacked on the run axis, horizon k = T).
    Columns: shift (label), A, then :func:`summary_table`'s.
    """
    tables = []
    for shift in shifts:
        table = summary_table(list(run_all(p, replace(settings, shift=shift), rng=rng,
                                           methods=PRIVATE_METHODS).values()), truth)
        table.insert(0, "A", shift_value(settings.epsilon, settings.delta, settings.eta, settings.cutoff, p.shape[1],
                                         shift))
        table.insert(0, "shift", shift_label(shift))
        tables.append(table)
    return pd.concat(tables, ignore_index=True)


# --------------------------------------------------------------------------
# Sweeps (run axis carries runs × grid points)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class UtilityCurve:
    """Per-run FDP and power over an ε grid: arrays of shape (n_eps, R)."""

    epsilons: np.ndarray
    fdp: np.ndarray
    power: np.ndarray
    n_rejections: np.ndarray
    method: str


def utility_curve(pvalues, truth, epsilons, *, settings: Settings = Settings(), ai: bool = False,
                  rng: np.random.Generator) -> UtilityCurve:
    """FDP, power and #rejections of PAPRIKA (AI) for every ε in the grid and every run, in one pass.

    ``pvalues``/``truth``: (R, T) (the same streams are reused at every ε, so differences across ε
    are due to the privacy noise and shift only). Returns arrays of shape (n_eps, R).
    """
    p, _ = _as_runs(pvalues)
    tr = np.atleast_2d(np.asarray(truth, dtype=bool))
    eps = np.asarray(epsilons, dtype=float).ravel()
    R, T = p.shape
    big_p = np.tile(p, (eps.size, 1))
    big_eps = np.repeat(eps, R)
    res = run_method("PAPRIKA AI" if ai else "PAPRIKA", big_p, settings, rng=rng, epsilon=big_eps)
    fdp, power = fdp_power(res.rejections, np.tile(tr, (eps.size, 1)))
    return UtilityCurve(eps, fdp.reshape(eps.size, R), power.reshape(eps.size, R),
                        res.rejections.sum(axis=1).reshape(eps.size, R), res.method)


def sweep(streams_by_x: Mapping[float, Streams], methods: Sequence[str], settings: Settings, *,
          rng: np.random.Generator, epsilons: Mapping[float, float] | None = None) -> pd.DataFrame:
    """FDR/power of each method at each grid point x (e.g. π1 or ε), all grid points stacked on the run axis.

    ``epsilons`` maps x → ε for the private methods (for an ε sweep); otherwise ``settings.epsilon``.
    Returns a long table: x, method, FDR, FDR_se, power, power_se, mFDR, rejections.
    """
    xs = list(streams_by_x)
    p = np.concatenate([streams_by_x[x].pvalues for x in xs])
    truth = np.concatenate([streams_by_x[x].truth for x in xs])
    sizes = [streams_by_x[x].pvalues.shape[0] for x in xs]
    bounds = np.cumsum([0] + sizes)
    eps = None
    if epsilons is not None:
        eps = np.concatenate([np.full(n, epsilons[x]) for x, n in zip(xs, sizes)])
    rows = []
    results = run_all(p, settings, rng=rng, methods=methods, epsilon=eps)
    for name in methods:
        res = results[name]
        for i, x in enumerate(xs):
            sl = slice(bounds[i], bounds[i + 1])
            m = metrics(res.rejections[sl], truth[sl])
            rows.append(dict(x=x, method=name, FDR=m.fdr, FDR_se=m.fdr_se, power=m.mean_power, power_se=m.power_se,
                             mFDR=mfdr(res.rejections[sl], truth[sl]), rejections=float(m.n_rejections.mean())))
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------
# Privacy audit
# --------------------------------------------------------------------------

#: Public parameters of the audit streams (fdr.md's η, δ and α; one rejection allowed).
AUDIT_ETA = math.sqrt(math.log(1000) / 1000)
AUDIT_DELTA = 2.5e-4
AUDIT_ALPHA = 0.05
#: Stream length and cutoff of the many-boundary audit scenario (the issue's pair has k = 800; 100 cuts
#: the audit's cost and Theorem 4's shift still fails by far: P_A(any rejection) ≈ 0.011 = 44δ at ε = 1)
BOUNDARY_K = 100
BOUNDARY_CUTOFF = 40


def _paper_thresholds(T: int, *, alpha: float, lam: float, gamma: np.ndarray) -> np.ndarray:
    """log α_t of PAPRIKA before its first rejection (paper rule): ``min(λ, w0 γ_t)``, t = 1..T."""
    w0 = (1 - 2 * lam) * alpha / 2
    return np.log(np.minimum(lam, w0 * gamma[1:T + 1]))


def svt_pair(epsilon: float, *, m: int = 20, above: float = 2.0, below: float = 1.0, lam: float = 0.2,
             eta: float = AUDIT_ETA, delta: float = AUDIT_DELTA, alpha: float = AUDIT_ALPHA):
    """Worst-case SparseVector neighbours for PAPRIKA with c = 1 (no candidacy flips).

    Stream A: hypotheses 1..m−1 sit ``above·u`` above the (shifted) threshold, hypothesis m sits
    ``below·u`` below it, with ``u = ηc/ε`` the noise unit. Stream B multiplies the first m−1
    p-values by e^{−η} and the last by e^{+η} (each p-value moves by the allowed factor, in the
    direction that makes "first and only rejection at m" least likely). All p-values stay far
    below 2λ·e^{−η}, so candidacy is the same in A and B. Returns (p_A, p_B) of shape (m,).
    """
    g = gamma_sequence("power", m, exponent=1.6)
    shift_a = paprika_shift(epsilon, delta, eta, 1, m, 1.0)
    thr = _paper_thresholds(m, alpha=alpha, lam=lam, gamma=g) - shift_a
    u = eta / epsilon
    log_a = thr + above * u
    log_a[-1] = thr[-1] - below * u
    log_b = log_a - eta
    log_b[-1] = log_a[-1] + eta
    return np.exp(log_a), np.exp(log_b)


def candidacy_pair(epsilon: float, *, flips: int = 20, lam: float = 0.2, eta: float = AUDIT_ETA,
                   alpha: float = AUDIT_ALPHA, delta: float = AUDIT_DELTA, shift: float = 4.0, depth: float = 8.0):
    """Neighbours that differ in candidacy: the case where the authors' code rule leaks.

    Stream A: ``flips`` p-values at ``2λ·e^{−η/2}`` (candidates), then one p-value ``depth·u`` below
    the shifted threshold the code rule gives A at that step (``log(w0 γ_1) − A``, since A's
    candidate clock has not moved). Stream B = A·e^{η}: its first ``flips`` p-values are just above 2λ (not candidates),
    so under the code rule its clock advances and its threshold at the last step is
    ``w0 γ_{flips+1}`` — about ``1.6·ln(flips+1)`` lower in log scale, far more than η.
    Under the paper rule both thresholds are ``w0 γ_{flips+1}`` and only the factor e^η remains.
    """
    T = flips + 1
    g = gamma_sequence("power", T, exponent=1.6)
    w0 = (1 - 2 * lam) * alpha / 2
    log_a = np.full(T, math.log(2 * lam) - eta / 2)
    shift_a = paprika_shift(epsilon, delta, eta, 1, T, shift)
    log_a[-1] = math.log(min(lam, w0 * g[1])) - shift_a - depth * eta / epsilon
    return np.exp(log_a), np.exp(log_a + eta)


def boundary_pair(k: int = 800, *, ai: bool = False, lam: float = 0.2, eta: float = AUDIT_ETA,
                  alpha: float = AUDIT_ALPHA, cutoff: int = 40):
    """Many hypotheses at the candidacy boundary (issue 11): the pair that Theorem 4's shift does not cover.

    Stream A: k p-values just below the candidacy bound — ``2λ`` (PAPRIKA) or ``2α_t`` with the levels
    α_t of a stream without rejections (PAPRIKA AI; the worst case of :func:`stream_shift`'s proof,
    ``log α_t − log p_t = −ln 2``). Stream B = A·e^η: no p-value is a candidate, so B never rejects,
    and for (ε, δ)-DP ``P_A(any rejection) ≤ δ`` must hold. Returns (p_A, p_B) of shape (k,).
    """
    if ai:  # the AI levels of a stream that has rejected nothing (no candidates: p = 1, no noise)
        ones = np.ones((1, k))
        bound = 2.0 * run_paprika(ones, alpha=alpha, epsilon=math.inf, delta=AUDIT_DELTA, eta=eta, cutoff=cutoff,
                                  ai=True, rng=np.random.default_rng(0)).alpha[0]
    else:
        bound = np.full(k, 2.0 * lam)
    p_a = np.nextafter(bound, 0.0)
    return p_a, p_a * math.exp(eta)


#: Most p-values (runs × stream length) an audit sampler holds at once (the noise table is as large).
_AUDIT_CHUNK = 8_000_000


def _audit_sampler(pair, *, epsilon: float, shift: Shift, summary: Literal["last", "any"],
                   bug: Literal["noise", "code", "calibration"], cutoff: int = 1, ai: bool = False,
                   eta: float = AUDIT_ETA):
    """Runs of PAPRIKA (AI) on one of the pair, reduced to 0/1: rejection of the last hypothesis or any.

    Planted bugs: ``"noise"`` halves the noise scales, ``"code"`` uses the authors' code rule,
    ``"calibration"`` uses Theorem 4's per-hypothesis shift s = 4 instead of :func:`stream_shift`.
    Runs are simulated in chunks of at most :data:`_AUDIT_CHUNK` p-values.
    """
    p_a, p_b = pair
    T = p_a.size

    def sampler(which: str, planted_bug: bool, rng: np.random.Generator, draws: int) -> np.ndarray:
        rule = "code" if (planted_bug and bug == "code") else "paper"
        factor = 0.5 if (planted_bug and bug == "noise") else 1.0
        used_shift = THEOREM_4_SHIFT if (planted_bug and bug == "calibration") else shift
        out = np.empty(draws)
        step = max(1, _AUDIT_CHUNK // T)
        for start in range(0, draws, step):
            p = np.ascontiguousarray(np.broadcast_to(p_a if which == "A" else p_b, (min(step, draws - start), T)))
            res = run_paprika(p, alpha=AUDIT_ALPHA, epsilon=epsilon, delta=AUDIT_DELTA, eta=eta, cutoff=cutoff,
                              lam=0.2, shift=used_shift, gamma="power", rule=rule, ai=ai, rng=rng,
                              scale_factor=factor)
            rej = res.rejections[:, -1] if summary == "last" else res.rejections.any(axis=1)
            out[start:start + rej.size] = rej
        return out

    return sampler


def audit_scenarios(epsilon: float) -> list:
    """Worst-case neighbouring pairs for the PAPRIKA rejection-vector release (paper rule).

    1. *SparseVector pair* (planted bug: noise scales halved): A has 19 hypotheses just above the
       threshold and one just below; B moves every p-value by the factor e^{±η} against A. Summary:
       whether the one allowed rejection (c = 1) falls on the last hypothesis — with c = 1 the
       release is the first rejection time, and this event carries most of the privacy loss
       (≈ 0.99 ε of the ε budget for the correct noise, ≈ 1.9 ε with halved noise).
    2. *Candidacy pair* (planted bug: the authors' code rule, γ indexed by candidate counts): the
       first 20 p-values sit just below 2λ in A and just above in B; the code rule then moves B's
       threshold far below A's while the paper rule keeps them equal. Shift s = 4 (Theorem 4), so
       the unnoised candidacy flip costs at most δ.

    3. *Many boundary hypotheses* (planted bug: Theorem 4's shift s = 4 instead of
       :func:`stream_shift`): :func:`boundary_pair` with k = 100 and c = 40. B never rejects, so any
       rejection in A is the δ event; s = 4 covers one boundary hypothesis with δ, not k of them.

    A 200k-run audit can only exhibit ε up to about ln(runs) ≈ 9, so bugs at claimed ε ≳ 4 may
    go undetected; use ε ≤ 3 for a meaningful audit.
    """
    from dpcore.audit import AuditScenario

    eps = float(epsilon)
    return [
        AuditScenario(
            method="PAPRIKA", name="SparseVector worst case (c = 1)",
            neighbours="20 p-values; B = A with the first 19 multiplied by e^−η and the last by e^+η "
                       f"(η = {AUDIT_ETA:.4f}); all are candidates in both",
            summary="1 if the single allowed rejection is the last hypothesis, else 0",
            claimed_epsilon=eps, delta=AUDIT_DELTA,
            sampler=_audit_sampler(svt_pair(eps), epsilon=eps, shift=1.0, summary="last", bug="noise"),
            planted_bug_label="noise scales halved",
        ),
        AuditScenario(
            method="PAPRIKA", name="candidacy flip (Theorem 4 shift s = 4)",
            neighbours="21 p-values; the first 20 are candidates (just below 2λ) in A and not in B "
                       "(B = A·e^η); the last is far below A's threshold",
            summary="1 if the last hypothesis is rejected, else 0",
            claimed_epsilon=eps, delta=AUDIT_DELTA,
            sampler=_audit_sampler(candidacy_pair(eps), epsilon=eps, shift=4.0, summary="last", bug="code"),
            planted_bug_label="authors' code rule (γ indexed by candidate counts)",
        ),
        AuditScenario(
            method="PAPRIKA", name=f"many boundary hypotheses (k = {BOUNDARY_K}, c = {BOUNDARY_CUTOFF})",
            neighbours=f"{BOUNDARY_K} p-values just below 2λ in A (all candidates); B = A·e^η (none is a "
                       f"candidate, so B never rejects); c = {BOUNDARY_CUTOFF}, shift proven for the stream",
            summary="1 if any hypothesis is rejected, else 0",
            claimed_epsilon=eps, delta=AUDIT_DELTA,
            sampler=_audit_sampler(boundary_pair(BOUNDARY_K, cutoff=BOUNDARY_CUTOFF), epsilon=eps, shift=STREAM,
                                   summary="any", bug="calibration", cutoff=BOUNDARY_CUTOFF),
            planted_bug_label="Theorem 4's per-hypothesis shift s = 4 (δ per boundary event, not per stream)",
        ),
    ]


# --------------------------------------------------------------------------
# Release
# --------------------------------------------------------------------------


def release(pvalues, *, alpha: float, epsilon: float, delta: float, sensitivity: "Sensitivity", cutoff: int,
            lam: float = 0.2, gamma: GammaKind = "power", ai: bool = False, horizon: int | None = None,
            dataset: str = "uploaded p-values", fingerprint: str = ""):
    """One PAPRIKA (AI) run with OpenDP noise, packed as a :class:`dpcore.release.ReleaseBundle`.

    ``sensitivity`` carries η and the floor μ of ``log max(p, μ)`` above which η holds; it must be
    proven for the test behind the p-values (:func:`binomial_sensitivity`) or stated by the user
    (:func:`stated_sensitivity`, and the notes say the guarantee rests on it). The paper's η
    (:func:`paper_sensitivity`) is refused. The shift is :func:`stream_shift` (proven for every
    boundary hypothesis of the stream; horizon k = ``horizon`` or the stream length).

    Exports only the rejection vector and the test levels α_t (paper rule: α_t is a function of
    earlier released rejections, so it is post-processing). The noisy threshold and the per-test
    noise are internal to SparseVector and are never exported. The authors' code rule is refused
    (its α_t depends on unreleased candidacy indicators).
    """
    from dpcore.release import ReleaseBundle

    p, single = _as_runs(pvalues)
    if not single:
        raise ValueError("a release is made on one stream of p-values")
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise ValueError("a release needs a finite ε > 0")
    if not isinstance(sensitivity, Sensitivity):
        raise TypeError("a release needs η as a Sensitivity (binomial_sensitivity or stated_sensitivity), "
                        "so that it says what the bound rests on")
    if sensitivity.refusal:
        raise ValueError(sensitivity.refusal)
    eta, floor = sensitivity.eta, sensitivity.floor
    res = run_paprika(p, alpha=alpha, epsilon=epsilon, delta=delta, eta=eta, cutoff=cutoff, lam=lam, shift=STREAM,
                      gamma=gamma, ai=ai, rule="paper", horizon=horizon, rng=None, floor=floor)
    rej = res.rejections[0]
    T = rej.size
    k = int(horizon or T)
    table = pd.DataFrame({"hypothesis": np.arange(1, T + 1), "rejected": rej.astype(int), "alpha_t": res.alpha[0]})
    name = "PAPRIKA AI" if ai else "PAPRIKA"
    scale_alpha, scale_test = paprika_noise_scales(epsilon, eta, cutoff)
    shift_a = float(res.params["shift_A"][0])
    params = dict(rule="paper (γ indexed by t − τ_j)", alpha=alpha, eta=eta, eta_source=sensitivity.source,
                  cutoff=cutoff, lam=lam, shift="proven for the stream: 4ηc/ε·ln(2k/(3δ)) + η − ln 2", shift_A=shift_a,
                  gamma=gamma, horizon=k, n_hypotheses=T, n_rejections=int(rej.sum()),
                  threshold_noise_scale=scale_alpha, test_noise_scale=scale_test, p_value_floor=floor)
    return ReleaseBundle(
        method=name, dataset=dataset, fingerprint=fingerprint, epsilon=float(epsilon), delta=float(delta),
        mechanisms=(f"SparseVector: Laplace threshold noise b = 2ηc/ε = {scale_alpha:.4g}, redrawn after each rejection",
                    f"Laplace per-test noise b = 4ηc/ε = {scale_test:.4g} on log p (sensitivity η = {eta:g})"),
        public_params=params, tables={"rejections": table}, unit="person in the data behind the p-values",
        notes=(f"Neighbours: one person's record is replaced. Every test in the stream runs on the same records, so "
               f"one person can move every log p-value (floored at μ = {floor:g}) by at most η = {eta:.4g} at once; "
               f"the guarantee allows all {T} to move together.",
               sensitivity.basis,
               f"At most c = {cutoff} rejections; the stream stops rejecting after the c-th.",
               f"Candidacy (p < 2λ) is not noised. The threshold is lowered by A = {shift_a:.4g} so that each of the "
               f"k = {k} hypotheses whose candidacy a neighbour could flip is rejected with probability at most δ/k "
               "(a union bound over the stream); δ covers them all.",
               f"FDR guarantee under conditional super-uniformity: FDR(t) ≤ α + δt = {alpha + delta * T:.4g} at t = {T}."),
    )
