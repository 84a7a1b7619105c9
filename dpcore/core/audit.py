"""Black-box privacy audit: an empirical *lower* bound on ε.

Run a mechanism many times on two neighbouring data sets ``A`` and ``B``,
reduce each output to a scalar summary, and look for an event ``E`` (a
threshold on the summary) that is much likelier under one than the other.
For an (ε, δ)-DP mechanism, ``P_A(E) ≤ e^ε P_B(E) + δ`` for every ``E``, so
with one-sided Clopper–Pearson bounds

    ε_LB = ln( (P̂_A_lower(E) − δ) / P̂_B_upper(E) )

is a lower bound on the true ε with the stated confidence. The candidate
thresholds are picked on a separate pilot share of the runs, and the bounds
are union-bounded over all candidate events (both directions, both tails), so
the confidence statement holds for the maximum. An audit can only refute a
privacy claim (ε_LB > claimed ε), never prove one; a planted bug (noise
scale halved) must be caught, which the tests check.

:func:`run_audit` draws the runs in seeded chunks (:mod:`dpcore.core.distributed`):
pilot chunks return their summaries, estimation chunks only their counts
above each threshold, which add up exactly. So 10⁸ runs need no 10⁸-long
array, and the chunks can run on a Dask cluster with the in-process result.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from functools import partial
from typing import Any, Callable

import numpy as np
from scipy import stats

from dpcore.core.distributed import Executor, spawn_seeds, split_runs

Sampler = Callable[[np.random.Generator, int], np.ndarray]


@dataclass(frozen=True)
class AuditResult:
    """Outcome of one audit: the bound, the event that gave it, and its inputs."""

    epsilon_lower: float
    claimed_epsilon: float
    delta: float
    event: str
    threshold: float
    p_first_lower: float
    p_second_upper: float
    n_runs: int
    confidence: float
    #: what was audited (method, neighbouring pair, planted bug or not), for reports read out of context
    subject: str = ""

    @property
    def violation(self) -> bool:
        """True when the data refute the claim at the stated confidence."""
        return self.epsilon_lower > self.claimed_epsilon

    @property
    def resolution(self) -> float:
        """The largest ε_lower this many runs can show at all (every A run in the event, no B run)."""
        return max_detectable_epsilon(self.n_runs, self.confidence, self.delta)

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready fields (for the ledger and for reports), with the verdict and the resolution."""
        return {**asdict(self), "violation": self.violation, "resolution": self.resolution,
                "description": self.describe()}

    def describe(self) -> str:
        verdict = "violation: the claim is refuted" if self.violation else "no violation found"
        text = (
            f"Empirical ε ≥ {self.epsilon_lower:.3f} for a claimed (ε = {self.claimed_epsilon:g}, δ = {self.delta:g}), "
            f"with {self.confidence:.0%} confidence from {self.n_runs:,} runs per data set; "
            f"event: {self.event} — {verdict}."
        )
        if not self.violation and self.claimed_epsilon >= self.resolution - 1.0:
            text += (f" With {self.n_runs:,} runs an audit cannot show much more than ε ≈ {self.resolution:.1f}, so a claim of "
                     f"ε = {self.claimed_epsilon:g} can hardly be tested: use more runs or a smaller ε.")
        return text


def clopper_pearson_lower(successes, trials: int, alpha: float) -> np.ndarray:
    """One-sided lower (1 − α) Clopper–Pearson bound on a binomial proportion."""
    k = np.asarray(successes, dtype=float)
    lower = stats.beta.ppf(alpha, np.maximum(k, 1e-300), trials - k + 1)
    return np.where(k <= 0, 0.0, lower)


def clopper_pearson_upper(successes, trials: int, alpha: float) -> np.ndarray:
    """One-sided upper (1 − α) Clopper–Pearson bound on a binomial proportion."""
    k = np.asarray(successes, dtype=float)
    upper = stats.beta.ppf(1 - alpha, k + 1, np.maximum(trials - k, 1e-300))
    return np.where(k >= trials, 1.0, upper)


def _candidate_thresholds(pilot: np.ndarray, n_thresholds: int) -> np.ndarray:
    qs = np.linspace(0.0, 1.0, n_thresholds + 2)[1:-1]
    return np.unique(np.quantile(pilot, qs, method="nearest"))


N_THRESHOLDS = 32  # candidate thresholds; each gives 8 one-sided bounds (2 sides × 2 directions × 2 bounds)
PILOT_FRACTION = 0.1
PILOT_MAX = 1_000_000  # 10⁶ pilot runs place 32 thresholds well; more runs all go to estimation


def _pilot_size(n_runs: int, fraction: float) -> int:
    return min(max(int(fraction * n_runs), 10), PILOT_MAX)


def count_above(summaries, thresholds: np.ndarray) -> np.ndarray:
    """How many ``summaries`` exceed each threshold (exact integer counts, so chunks add up; NaN exceeds none)."""
    values = np.asarray(summaries, dtype=float).ravel()
    ordered = np.sort(values[~np.isnan(values)])
    return ordered.size - np.searchsorted(ordered, thresholds, side="right")


def max_detectable_epsilon(n_runs: int, confidence: float = 0.99, delta: float = 0.0) -> float:
    """About the largest bound :func:`empirical_epsilon` can give with ``n_runs``: the event holds in every
    estimation run on one side and in none on the other (same pilot split and union bound; summaries with
    few distinct values try fewer thresholds and can reach slightly more)."""
    n = n_runs - _pilot_size(n_runs, PILOT_FRACTION)
    alpha = (1.0 - confidence) / (8 * N_THRESHOLDS)
    lower = float(clopper_pearson_lower(n, n, alpha)) - delta
    upper = float(clopper_pearson_upper(0, n, alpha))
    return math.log(lower / upper) if lower > 0 else 0.0


def empirical_epsilon(
    summaries_a,
    summaries_b,
    *,
    claimed_epsilon: float,
    delta: float = 0.0,
    confidence: float = 0.99,
    n_thresholds: int = N_THRESHOLDS,
    pilot_fraction: float = PILOT_FRACTION,
) -> AuditResult:
    """ε lower bound from scalar summaries of runs on neighbours A and B.

    The first ``pilot_fraction`` of each sample only chooses candidate
    thresholds; the rest estimates the event probabilities. Events are
    ``{s > τ}`` and ``{s ≤ τ}`` compared in both directions (A over B and B
    over A), and the failure probability ``1 − confidence`` is split evenly
    over every bound computed (union bound).
    """
    a = np.asarray(summaries_a, dtype=float).ravel()
    b = np.asarray(summaries_b, dtype=float).ravel()
    if a.size != b.size or a.size < 100:
        raise ValueError("need the same number (≥ 100) of runs on both data sets")
    n_pilot = _pilot_size(a.size, pilot_fraction)
    thresholds = _candidate_thresholds(np.concatenate([a[:n_pilot], b[:n_pilot]]), n_thresholds)
    return _bound_from_counts(
        thresholds, count_above(a[n_pilot:], thresholds), count_above(b[n_pilot:], thresholds),
        n=a.size - n_pilot, n_pilot=n_pilot, claimed_epsilon=claimed_epsilon, delta=delta, confidence=confidence,
    )


def _bound_from_counts(
    thresholds: np.ndarray, above_a: np.ndarray, above_b: np.ndarray, *, n: int, n_pilot: int,
    claimed_epsilon: float, delta: float, confidence: float,
) -> AuditResult:
    """The best union-bounded ε lower bound over events ``{s > τ}`` / ``{s ≤ τ}`` from counts in ``n`` runs."""
    # rows: events; columns: (count in "first", count in "second")
    events = [
        ("above", "A", above_a, above_b),
        ("at or below", "A", n - above_a, n - above_b),
        ("above", "B", above_b, above_a),
        ("at or below", "B", n - above_b, n - above_a),
    ]
    n_bounds = 2 * len(events) * thresholds.size
    alpha = (1.0 - confidence) / n_bounds

    best = (-math.inf, "", float("nan"), 0.0, 1.0)
    for side, first, k_first, k_second in events:
        lower = clopper_pearson_lower(k_first, n, alpha) - delta
        upper = clopper_pearson_upper(k_second, n, alpha)
        with np.errstate(divide="ignore", invalid="ignore"):
            eps = np.where(lower > 0, np.log(np.maximum(lower, 1e-300) / upper), -np.inf)
        i = int(np.argmax(eps))
        if eps[i] > best[0]:
            second = "B" if first == "A" else "A"
            label = f"summary {side} {thresholds[i]:.4g} (likelier under {first} than {second})"
            best = (float(eps[i]), label, float(thresholds[i]), float(lower[i] + delta), float(upper[i]))

    eps_lb = max(best[0], 0.0)
    return AuditResult(
        epsilon_lower=eps_lb,
        claimed_epsilon=float(claimed_epsilon),
        delta=float(delta),
        event=best[1] or "no informative event",
        threshold=best[2],
        p_first_lower=best[3],
        p_second_upper=best[4],
        n_runs=int(n + n_pilot),
        confidence=confidence,
    )


def chunk_plan(n_runs: int) -> tuple[list[int], list[int]]:
    """Chunk sizes of an audit of ``n_runs``: the pilot chunks, then the estimation chunks (a function of
    ``n_runs`` only; chunk ``i`` in this order draws from child ``i`` of the audit's seed)."""
    n_pilot = _pilot_size(n_runs, PILOT_FRACTION)
    return split_runs(n_pilot), split_runs(n_runs - n_pilot)


def audit_chunk(task) -> tuple[np.ndarray, np.ndarray]:
    """One chunk of an audit (runs on a Dask worker or in process): ``m`` runs on each neighbour from one seed.

    Without thresholds (pilot) it returns both samples of summaries; with them, only the counts above each
    threshold, so a chunk of estimation runs sends back a few integers whatever its size.
    """
    sample_a, sample_b, seed, m, thresholds = task
    rng = np.random.default_rng(seed)
    a = np.asarray(sample_a(rng, m), dtype=float).reshape(m)
    b = np.asarray(sample_b(rng, m), dtype=float).reshape(m)
    if thresholds is None:
        return a, b
    return count_above(a, thresholds), count_above(b, thresholds)


def run_audit(
    sample_a: Sampler,
    sample_b: Sampler,
    *,
    n_runs: int,
    claimed_epsilon: float,
    delta: float = 0.0,
    seed: int = 0,
    progress: Callable[[float], None] | None = None,
    confidence: float = 0.99,
    n_thresholds: int = N_THRESHOLDS,
    executor: Executor | None = None,
) -> tuple[AuditResult, np.ndarray, np.ndarray]:
    """Draw ``n_runs`` summaries on each neighbour in seeded chunks, then bound ε.

    ``sample_x(rng, draws)`` must return ``draws`` scalar summaries of the
    mechanism's output on data set x. The runs are cut into chunks by
    :func:`dpcore.core.distributed.split_runs` — first the pilot runs, which
    choose the thresholds, then the estimation runs, which only count — and
    chunk ``i`` draws from child ``i`` of ``SeedSequence(seed)``. So the
    result depends on ``seed`` and ``n_runs`` only, whether the chunks ran in
    process or on any number of Dask workers (``executor``, see
    :func:`dpcore.core.distributed.executor`). ``progress`` receives the completed
    share of runs as chunks finish (the audit page drives a progress bar with
    it; an exception from it cancels the audit). Returns the result and the
    pilot summaries of both neighbours (at most 10⁶ each, for plotting).
    """
    if n_runs < 100:
        raise ValueError("need at least 100 runs on each data set")
    executor = executor or Executor()
    pilot_sizes, estimate_sizes = chunk_plan(n_runs)
    n_pilot = sum(pilot_sizes)
    seeds = spawn_seeds(seed, len(pilot_sizes) + len(estimate_sizes))

    def phase(start: int, sizes: list[int], thresholds, done_before: int):
        tasks = [(sample_a, sample_b, s, m, thresholds) for s, m in zip(seeds[start:], sizes)]
        report = None if progress is None else (
            lambda f: progress((done_before + f * sum(sizes)) / n_runs))
        return executor.map(audit_chunk, tasks, progress=report)

    pilot = phase(0, pilot_sizes, None, 0)
    a = np.concatenate([p[0] for p in pilot])
    b = np.concatenate([p[1] for p in pilot])
    thresholds = _candidate_thresholds(np.concatenate([a, b]), n_thresholds)
    counts = phase(len(pilot_sizes), estimate_sizes, thresholds, n_pilot)
    result = _bound_from_counts(
        thresholds, sum(c[0] for c in counts), sum(c[1] for c in counts), n=n_runs - n_pilot, n_pilot=n_pilot,
        claimed_epsilon=claimed_epsilon, delta=delta, confidence=confidence,
    )
    return result, a, b


@dataclass(frozen=True)
class AuditScenario:
    """A worst-case neighbouring pair for one method's release, ready to audit.

    Each method module exposes ``audit_scenarios(epsilon, ...)`` returning
    these; the audit page lists every registered method's scenarios, so a
    new method plugs in without touching the page. ``sampler(which,
    planted_bug, rng, draws)`` returns ``draws`` scalar summaries of the
    release computed on data set ``which`` (``"A"`` or ``"B"``), with the
    bug of ``planted_bug_label`` planted when ``planted_bug`` is true.
    ``reveal`` says in words what the release shows on A and on B without
    noise (the attack without privacy), where the method module computes it.
    """

    method: str
    name: str
    neighbours: str
    summary: str
    claimed_epsilon: float
    delta: float
    sampler: Callable[[str, bool, np.random.Generator, int], np.ndarray]
    planted_bug_label: str = "noise scale halved"
    reveal: str = ""
    #: ``release_sampler(which, planted_bug, draws)``: the same summaries with the noise drawn through the
    #: method's OpenDP release path (seeded by the operating system, so no ``rng``); None where only the
    #: preview is simulated. Slower than the preview: audits on this path use fewer runs (:meth:`run`)
    release_sampler: Callable[[str, bool, int], np.ndarray] | None = None

    def run(
        self,
        n_runs: int,
        *,
        planted_bug: bool = False,
        seed: int = 0,
        progress: Callable[[float], None] | None = None,
        executor: Executor | None = None,
        path: str = "preview",
        confidence: float = 0.99,
    ) -> tuple[AuditResult, np.ndarray, np.ndarray]:
        """Audit this pair with ``n_runs`` runs per neighbour (see :func:`run_audit`; same seed, same result).

        ``path="release"`` draws every run through the method's OpenDP release path (:attr:`release_sampler`):
        the audit then tests the code users get, not only the preview sampler; its noise is seeded by the
        operating system, so ``seed`` only fixes the chunking and the result is not reproducible — choose
        ``confidence`` so that a false alarm is as rare as a test may fail (e.g. ``1 − 10⁻⁵``).
        """
        if path == "release":
            if self.release_sampler is None:
                raise ValueError(f"{self.method}: {self.name} has no release-path sampler")
            sampler = partial(_release_draws, self.release_sampler)
        elif path == "preview":
            sampler = self.sampler
        else:
            raise ValueError(f"path must be 'preview' or 'release', not {path!r}")
        result, a, b = run_audit(
            partial(sampler, "A", planted_bug),
            partial(sampler, "B", planted_bug),
            n_runs=n_runs,
            claimed_epsilon=self.claimed_epsilon,
            delta=self.delta,
            seed=seed,
            progress=progress,
            confidence=confidence,
            executor=executor,
        )
        subject = f"{self.method}: {self.name} — " + (
            f"with a deliberately planted bug ({self.planted_bug_label})" if planted_bug else "the mechanism as released")
        if path == "release":
            subject += " (OpenDP release path)"
        return replace(result, subject=subject), a, b


def _without_rng(sampler, which: str, planted_bug: bool, draws: int):
    return sampler(which, planted_bug, None, draws)


def release_path(sampler: Sampler) -> Callable[[str, bool, int], np.ndarray]:
    """The release-path sampler of a scenario sampler that draws through OpenDP when its ``rng`` is None (the
    convention of every method's noise functions: ``rng`` given → preview, None → release)."""
    return partial(_without_rng, sampler)


def _release_draws(release_sampler, which: str, planted_bug: bool, rng: np.random.Generator, draws: int):
    """A release-path sampler in the preview's signature: ``rng`` is unused (OpenDP seeds from the OS)."""
    return release_sampler(which, planted_bug, draws)
