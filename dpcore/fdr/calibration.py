"""Stage 2 — the mechanism's calibration: PAPRIKA's SparseVector noise scales and the threshold shift.

Threshold noise ``Z_α ~ Lap(2ηc/ε)`` (redrawn after each rejection) and per-test noise
``Z_t ~ Lap(4ηc/ε)`` are SparseVector's calibration for ``c`` ⊤ answers of a sensitivity-η query
stream: each of the c segments costs ``ε/(2c)`` for the threshold (shift η against scale 2ηc/ε)
plus ``ε/(2c)`` for its ⊤ query (shift 2η against scale 4ηc/ε); c segments compose to ε.
Candidacy ``p_t < 2λ`` is not noised; :func:`stream_shift` lowers the threshold so that each of
the k hypotheses whose candidacy a neighbour could flip matters with probability at most δ/k
(proof in its docstring). The γ sequences of the rules are here too (public parameters).
"""

from __future__ import annotations

import math
from typing import Literal, Union

import numpy as np

from dpcore.fdr.sensitivity import GammaKind
from dpcore.core.mechanisms import Noise, check_budget, laplace_noise


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


def paprika_noises(epsilon: float, eta: float, cutoff: int) -> tuple[Noise, Noise]:
    """The Laplace mechanisms of the threshold noise ``Z_α`` (scale ``2ηc/ε``) and the per-test noise ``Z_t``
    (``4ηc/ε``) at a finite ε: the one place both scales are written (previews and releases draw from these).

    Proof sketch (SparseVector, sensitivity η of ``log p``): the threshold
    noise pays ``η/(2ηc/ε) = ε/(2c)`` per segment and each ⊤ answer pays
    ``2η/(4ηc/ε) = ε/(2c)``; ``c`` segments compose to ``ε``.
    """
    return laplace_noise(2.0 * eta * cutoff, epsilon), laplace_noise(4.0 * eta * cutoff, epsilon)


def paprika_noise_scales(epsilon: float, eta: float, cutoff: int) -> tuple[float, float]:
    """Scales ``(2ηc/ε, 4ηc/ε)`` of :func:`paprika_noises`; ``(0, 0)`` at ``ε = ∞`` (no noise)."""
    if math.isinf(epsilon):
        return 0.0, 0.0
    z_alpha, z_test = paprika_noises(epsilon, eta, cutoff)
    return z_alpha.scale, z_test.scale


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
    check_budget(epsilon, delta, delta_needed=True, what="the shift")
    if not (eta > 0 and cutoff >= 1 and horizon >= 1):
        raise ValueError("need η > 0, c ≥ 1 and k ≥ 1")


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
    hypotheses it allows up to kδ (P = 0.07 ≫ δ at k = 800, c = 40, ε = 1).
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
