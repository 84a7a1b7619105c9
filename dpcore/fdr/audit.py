"""Privacy audit scenarios: SparseVector, candidacy and boundary neighbouring pairs."""

from __future__ import annotations

import math
from typing import Literal, Union

import numpy as np
from scipy import special

from dpcore.core.audit import AuditScenario, release_path
from dpcore.fdr.calibration import STREAM, THEOREM_4_SHIFT, Shift, gamma_sequence, paprika_shift, shift_value
from dpcore.fdr.paprika import run_paprika
from dpcore.fdr.sensitivity import P_FLOOR, _binomial_tail_table, eta_binomial_exact, eta_normal_tail_exact
from dpcore.fdr.simulate import TRUNCEXP_SIGMA0

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
             eta: float = AUDIT_ETA, delta: float = AUDIT_DELTA, alpha: float = AUDIT_ALPHA, shift: Shift = 1.0):
    """Worst-case SparseVector neighbours for PAPRIKA with c = 1 (no candidacy flips).

    Stream A: hypotheses 1..m−1 sit ``above·u`` above the (shifted) threshold, hypothesis m sits
    ``below·u`` below it, with ``u = ηc/ε`` the noise unit. Stream B multiplies the first m−1
    p-values by e^{−η} and the last by e^{+η} (each p-value moves by the allowed factor, in the
    direction that makes "first and only rejection at m" least likely). All p-values stay far
    below 2λ·e^{−η}, so candidacy is the same in A and B. ``shift``: the threshold shift the pair is built
    for (the paper's s, or :data:`STREAM` as released). Returns (p_A, p_B) of shape (m,).
    """
    g = gamma_sequence("power", m, exponent=1.6)
    shift_a = shift_value(epsilon, delta, eta, 1, m, shift)
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
    """Many hypotheses at the candidacy boundary: the pair that Theorem 4's shift does not cover.

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


#: What a sampler reduces each run to: "last", "any", or a weight per hypothesis (rejections @ weights)
Summary = Union[Literal["last", "any"], np.ndarray]
#: Most p-values (runs × stream length) an audit sampler holds at once (the noise table is as large).
_AUDIT_CHUNK = 8_000_000


def _audit_sampler(pair, *, epsilon: float, shift: Shift, summary: Summary,
                   bug: Literal["noise", "code", "calibration"], cutoff: int = 1, ai: bool = False,
                   eta: float = AUDIT_ETA, alpha: float = AUDIT_ALPHA, delta: float = AUDIT_DELTA, lam: float = 0.2,
                   floor: float = P_FLOOR):
    """Runs of PAPRIKA (AI) on one of the pair, reduced to a number: rejection of the last hypothesis
    (``"last"``), of any (``"any"``), or ``rejections @ summary`` for a weight vector (T,).

    Planted bugs: ``"noise"`` halves the noise scales, ``"code"`` uses the authors' code rule,
    ``"calibration"`` uses Theorem 4's per-hypothesis shift s = 4 instead of :func:`stream_shift`.
    Runs are simulated in chunks of at most :data:`_AUDIT_CHUNK` p-values.
    """
    p_a, p_b = pair
    T = p_a.size

    def sampler(which: str, planted_bug: bool, rng: np.random.Generator | None, draws: int) -> np.ndarray:
        rule = "code" if (planted_bug and bug == "code") else "paper"
        factor = 0.5 if (planted_bug and bug == "noise") else 1.0
        used_shift = THEOREM_4_SHIFT if (planted_bug and bug == "calibration") else shift
        out = np.empty(draws)
        step = max(1, _AUDIT_CHUNK // T)
        for start in range(0, draws, step):
            p = np.ascontiguousarray(np.broadcast_to(p_a if which == "A" else p_b, (min(step, draws - start), T)))
            res = run_paprika(p, alpha=alpha, epsilon=epsilon, delta=delta, eta=eta, cutoff=cutoff,
                              lam=lam, shift=used_shift, gamma="power", rule=rule, ai=ai, rng=rng,
                              scale_factor=factor, floor=floor)
            if isinstance(summary, str):
                rej = res.rejections[:, -1] if summary == "last" else res.rejections.any(axis=1)
            else:
                rej = res.rejections @ summary
            out[start:start + rej.size] = rej
        return out

    return sampler


def _hypotheses(rejected: np.ndarray) -> str:
    where = np.flatnonzero(rejected) + 1
    if where.size == 0:
        return "no hypothesis"
    listed = ", ".join(map(str, where[:5])) + (f" and {where.size - 5} more" if where.size > 5 else "")
    return ("hypothesis " if where.size == 1 else "hypotheses ") + listed


def noise_free_reveal(pair, *, epsilon: float, shift: Shift, cutoff: int, ai: bool = False, eta: float = AUDIT_ETA,
                      alpha: float = AUDIT_ALPHA, delta: float = AUDIT_DELTA, lam: float = 0.2,
                      floor: float = P_FLOOR) -> str:
    """The attack without privacy on a PAPRIKA pair, in words: the rule with its public threshold shift
    but no noise, run on A and on B, and the discovery that flips between them (if one does)."""
    runs = [run_paprika(p[None], alpha=alpha, epsilon=epsilon, delta=delta, eta=eta, cutoff=cutoff, lam=lam,
                        shift=shift, ai=ai, rng=np.random.default_rng(0), scale_factor=0.0,
                        floor=floor).rejections[0] for p in pair]
    seen = f"Without noise PAPRIKA rejects {_hypotheses(runs[0])} on A and {_hypotheses(runs[1])} on B"
    flips = np.flatnonzero(runs[0] != runs[1]) + 1
    if flips.size:
        return (f"{seen}: the discovery of hypothesis {flips[0]} flips, so the attacker reads off which stream it "
                "is — right 100 % of the time.")
    return (f"{seen}: the same discoveries, so without noise this pair cannot be told apart; whatever the "
            "attacker learns comes through the noise, which (ε, δ) bounds.")


def svt_scenario(epsilon: float, m: int = 20) -> AuditScenario:
    """The SparseVector worst case (:func:`svt_pair`, c = 1) on ``m`` hypotheses; planted bug: noise scales halved.

    Its release-path sampler runs PAPRIKA with OpenDP's noise. That path is slow (OpenDP draws each float
    Laplace value exactly), so an audit through it uses fewer runs, a shorter stream (``m = 5``: the last
    hypothesis is rejected first in ≈ 8 % of the runs instead of 0.5 %) and a larger ε (3), where 2·10⁴ runs
    resolve the halved noise.
    """
    svt = svt_pair(epsilon, m=m)
    sampler = _audit_sampler(svt, epsilon=epsilon, shift=1.0, summary="last", bug="noise")
    return AuditScenario(
        method="PAPRIKA", name="SparseVector worst case (c = 1)" + ("" if m == 20 else f", {m} hypotheses"),
        neighbours=f"{m} p-values; B = A with the first {m - 1} multiplied by e^−η and the last by e^+η "
                   f"(η = {AUDIT_ETA:.4f}); all are candidates in both",
        summary="1 if the single allowed rejection is the last hypothesis, else 0",
        claimed_epsilon=epsilon, delta=AUDIT_DELTA, sampler=sampler,
        planted_bug_label="noise scales halved", release_sampler=release_path(sampler),
        reveal=noise_free_reveal(svt, epsilon=epsilon, shift=1.0, cutoff=1),
    )


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
    eps = float(epsilon)
    candidacy = candidacy_pair(eps)
    boundary = boundary_pair(BOUNDARY_K, cutoff=BOUNDARY_CUTOFF)
    # rng=None runs PAPRIKA with OpenDP's noise (draw_paprika_noise's release path): the release-path audit
    flip_sampler = _audit_sampler(candidacy, epsilon=eps, shift=4.0, summary="last", bug="code")
    return [
        svt_scenario(eps),
        AuditScenario(
            method="PAPRIKA", name="candidacy flip (Theorem 4 shift s = 4)",
            neighbours="21 p-values; the first 20 are candidates (just below 2λ) in A and not in B "
                       "(B = A·e^η); the last is far below A's threshold",
            summary="1 if the last hypothesis is rejected, else 0",
            claimed_epsilon=eps, delta=AUDIT_DELTA,
            sampler=flip_sampler,
            planted_bug_label="authors' code rule (γ indexed by candidate counts)",
            release_sampler=release_path(flip_sampler),
            reveal=noise_free_reveal(candidacy, epsilon=eps, shift=4.0, cutoff=1),
        ),
        AuditScenario(
            method="PAPRIKA", name=f"many boundary hypotheses (k = {BOUNDARY_K}, c = {BOUNDARY_CUTOFF})",
            neighbours=f"{BOUNDARY_K} p-values just below 2λ in A (all candidates); B = A·e^η (none is a "
                       f"candidate, so B never rejects); c = {BOUNDARY_CUTOFF}, shift proven for the stream",
            summary="1 if any hypothesis is rejected, else 0",
            claimed_epsilon=eps, delta=AUDIT_DELTA,
            sampler=_audit_sampler(boundary, epsilon=eps, shift=STREAM,
                                   summary="any", bug="calibration", cutoff=BOUNDARY_CUTOFF),
            planted_bug_label="Theorem 4's per-hypothesis shift s = 4 (δ per boundary event, not per stream)",
            reveal=noise_free_reveal(boundary, epsilon=eps, shift=STREAM, cutoff=BOUNDARY_CUTOFF),
        ),
    ]


# --------------------------------------------------------------------------
# Neighbouring pairs built from a data set (the attacker's view)
# --------------------------------------------------------------------------

#: How one person's record moves the stream in B: every p-value toward discovery (smaller), every one away
#: (larger), or the worst case for one hypothesis t (t toward discovery, every other away).
MOVES = {"toward": "every p-value smaller (toward discovery)", "away": "every p-value larger (away from discovery)",
         "worst": "hypothesis {t} smaller (toward discovery), every other larger"}
#: Where the stream comes from: the Bernoulli simulator's exact binomial test, the truncated-exponential z-test,
#: or p-values whose η the user states (an upload).
Test = Literal["binomial", "ztest", "stated"]


def move_signs(T: int, move: str, target: int = 0) -> np.ndarray:
    """+1 where B's p-value is smaller than A's (toward discovery), −1 where larger, for a move of :data:`MOVES`."""
    if move not in MOVES:
        raise ValueError(f"move must be one of {tuple(MOVES)}")
    signs = np.full(T, 1 if move == "toward" else -1, dtype=np.int64)
    if move == "worst":
        if not 0 <= target < T:
            raise ValueError(f"hypothesis {target + 1} does not exist (the stream has {T})")
        signs[target] = 1
    return signs


def neighbour_stream(p, signs, *, test: Test, n: int = 1000, eta: float | None = None,
                     record_range: float = 1.0) -> np.ndarray:
    """B's p-values: one person's record replaced, moving hypothesis t toward discovery when ``signs[t] = +1``.

    * ``"binomial"`` (exact tail ``P(Bin(n, ½) ≥ S)``): every count S moves by one (one person's response
      flips), S recovered exactly from p through the tail table, clipped to 0..n;
    * ``"ztest"`` (truncated-exponential test ``p = Φ(−Z)``, ``Z = (Σx − nμ0)/(√n σ0)``): Σx moves by the
      public ``record_range`` (records in [0, record_range]: 1 under the null, θ for a non-null θ·truncexpon),
      i.e. Z by ``record_range/(√n σ0)``;
    * ``"stated"``: no raw data, the neighbour model itself: ``p·e^{−η·sign}`` (clipped to 1).
    """
    p = np.asarray(p, dtype=float)
    signs = np.asarray(signs)
    if test == "binomial":
        tail = _binomial_tail_table(int(n))
        sums = np.searchsorted(-tail, -p)  # the tail decreases strictly: p = tail[S] gives S exactly
        if not np.array_equal(tail[np.minimum(sums, n)], p):
            raise ValueError(f"these p-values are not exact binomial tails P(Bin({n}, ½) ≥ S)")
        return tail[np.clip(sums + signs, 0, n)]
    if test == "ztest":
        z = -special.ndtri(p) + signs * record_range / (math.sqrt(n) * TRUNCEXP_SIGMA0)
        return special.ndtr(-z)
    if eta is None or not eta > 0:
        raise ValueError("a stated neighbour model needs η > 0")
    return np.minimum(p * np.exp(-eta * signs), 1.0)


def data_scenario(p_a, epsilon: float, *, test: Test, move: str = "worst", target: int = 0, n: int = 1000,
                  eta: float | None = None, floor: float = 1e-6, cutoff: int = 40, alpha: float = AUDIT_ALPHA,
                  record_range: float = 1.0,
                  delta: float = AUDIT_DELTA, lam: float = 0.2, source: str = "", eta_basis: str | None = None,
                  bug: Literal["noise", "calibration"] = "noise") -> AuditScenario:
    """The attacker's pair built from one stream ``p_a``: B = :func:`neighbour_stream` for ``move``, seen through
    PAPRIKA as released (paper rule, :data:`STREAM` shift, horizon = stream length, p-values floored at μ).

    η is the release's: the exact binomial η above ``floor`` (``"binomial"``), the exact z-test η
    (``"ztest"``, :func:`eta_normal_tail_exact`), or the user's (``"stated"``: the guarantee rests on it, or on
    ``eta_basis`` when the caller derived η another way).
    Summary: for ``"worst"`` the rejection of hypothesis ``target``; otherwise the signed count of rejections,
    +1 for each hypothesis whose (floored) p-value is larger in B (A rejects it more often), −1 for each smaller.
    """
    p_a = np.asarray(p_a, dtype=float)
    T = p_a.size
    if test == "binomial":
        eta = eta_binomial_exact(int(n), floor)
        basis = f"the exact binomial η = {eta:.4g} (n = {n} records per test, p-values floored at μ = {floor:g})"
        how = f"each hypothesis' count of successes moves by one (one person's response flips; n = {n})"
    elif test == "ztest":
        eta = eta_normal_tail_exact(record_range / (math.sqrt(n) * TRUNCEXP_SIGMA0), floor)
        basis = (f"the exact z-test η = {eta:.4g} (n = {n}, records in [0, {record_range:g}], p-values floored at "
                 f"μ = {floor:g})")
        how = (f"each hypothesis' Σx moves by {record_range:g} (one person's value replaced across the public range "
               f"[0, {record_range:g}]; n = {n})")
    else:
        basis = eta_basis or (f"the η = {eta:.4g} you state: the guarantee for these p-values rests on that "
                              "statement (dpcore did not derive or check it)")
        how = f"every p-value multiplied by e^±η, η = {eta:.4g} (the neighbour model itself: no raw data)"
    signs = move_signs(T, move, target)
    p_b = neighbour_stream(p_a, signs, test=test, n=n, eta=eta, record_range=record_range)
    pair = (p_a, p_b)
    moved = np.sign(np.log(np.maximum(p_b, floor)) - np.log(np.maximum(p_a, floor)))
    if move == "worst":
        weights = np.zeros(T)
        weights[target] = 1.0
        summary = f"1 if hypothesis {target + 1} is rejected, else 0"
    else:
        weights = moved
        summary = ("signed count of rejections: +1 for each hypothesis whose p-value is larger in B, −1 for each "
                   "that is smaller")
    settings = dict(eta=float(eta), alpha=alpha, delta=delta, lam=lam, floor=floor)
    neighbours = (f"A: the stream as it is ({T:,} p-values{', ' + source if source else ''}); B: one person's "
                  f"record replaced — {how}: {MOVES[move].format(t=target + 1)} ({int((moved != 0).sum()):,} "
                  f"p-values move above the floor). PAPRIKA as released: paper rule, the shift proven for the "
                  f"stream, c = {cutoff}, α = {alpha:g}, λ = {lam:g}, δ = {delta:g}, with {basis}.")
    return AuditScenario(
        method="PAPRIKA", name=f"stream replaced by one person ({move})", neighbours=neighbours, summary=summary,
        claimed_epsilon=float(epsilon), delta=float(delta),
        sampler=_audit_sampler(pair, epsilon=float(epsilon), shift=STREAM, summary=weights, bug=bug, cutoff=cutoff,
                               **settings),
        planted_bug_label="noise scales halved" if bug == "noise" else "Theorem 4's shift s = 4",
        reveal=noise_free_reveal(pair, epsilon=float(epsilon), shift=STREAM, cutoff=cutoff, **settings))
