"""A charged private choice of ε: the smallest ε of a public grid whose release meets an accuracy target.

The non-private finder (:func:`dpcore.core.utility.smallest_epsilon`) simulates releases from the private rows without
noise, so an ε chosen from it depends on the rows and is not a public setting. This is its private variant, a
release of its own (charged to every person it reads, composed in the ledger like any release): subsample and
aggregate (Nissim, Raskhodnikova & Smith 2007) and report-noisy-max over the candidate grid.

Public inputs: the candidate grid ε_1 < … < ε_m (e.g. the ε slider's steps), the target, the number of blocks k, the
partition seed, the simulation seed and ε_sel.

1. The n rows are cut into k blocks by a public random permutation (:func:`partition`): which block a row falls in
   depends on its position and the public seed only.
2. Each block b votes, for each candidate ε_j, whether a release at ε_j meets the target, judged from b's rows alone:
   the page's simulator runs at ε_j on a stand-in of n rows, the block's rows repeated (a data set distributed as
   the block, of the full data's size, so that its noise is the full data's). A utility heuristic on which no
   privacy claim rests; running the block itself at ε_j · n / n_b instead is biased — discrete noise vanishes
   faster than its scale on small counts — and chose too small an ε on every cohort measured.
3. c_j = the number of blocks voting yes; τ = ⌊k/2⌋ + 1 (a majority). The scores (:func:`scores`) are
   u_j = −max(0, τ − c_j) − max(0, c_{j−1} − τ + 1) for j = 1 … m (c_0 = 0), highest (0) at the first ε a majority
   accepts, and u_{m+1} = −max(0, c_m − τ + 1) for "no ε of the grid meets the target".
4. The index released is argmax_j (u_j + Exponential(2Δ/ε_sel)): report-noisy-max with exponential noise, which is
   permute-and-flip (McKenna & Sheldon 2020), with Δ = 2.

**Sensitivity proof (replace-one).** Replacing one row changes one block (the partition depends on positions and a
public seed, not values), and a block's votes depend on its own rows and public inputs only, so every c_j moves by
at most 1, all at once in any direction. u_j reads c_j and c_{j−1} through two 1-Lipschitz terms, so |Δu_j| ≤ 2;
u_{m+1} reads c_m once, |Δu_{m+1}| ≤ 1. So the scores' L∞ sensitivity is Δ = 2, and report-noisy-max with
exponential noise of scale 2Δ/ε_sel (permute-and-flip) is ε_sel-DP for scores that may move in any direction, as
the exponential mechanism is (McSherry & Talwar 2007; McKenna & Sheldon 2020). OpenDP's ``make_noisy_max`` under
max-divergence draws the release, and its privacy map states the same cost. Only the index is released: the votes
and the counts are never shown.

This is a selection with a proved cost, not the random-stopping selection of Liu & Talwar (2019) or Papernot &
Steinke (2022), which tunes by repeating whole DP releases; the counts of votes make one noisy maximum
enough. Its price is data: each block must be large enough to judge accuracy (:data:`MIN_ROWS_PER_BLOCK`), and the
choice is sharp only when many blocks agree (measured in ``bench/bench_selection.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Literal

import numpy as np

from dpcore.core.audit import AuditScenario, release_path
from dpcore.core.mechanisms import check_budget

#: the scores' L∞ sensitivity under replace-one (the module's proof)
SENSITIVITY = 2
#: fewest rows a block judges accuracy from, and most blocks (more blocks: sharper votes, smaller blocks)
MIN_ROWS_PER_BLOCK = 25
MAX_BLOCKS = 40
#: fewest blocks the selection runs with: below it the votes cannot form a majority worth the cost
MIN_BLOCKS = 5

#: ``meets(rows)``: for the stand-in of one block (its rows' positions, repeated to n), whether a release at each
#: candidate ε would meet the target (a boolean array, one per candidate)
BlockJudge = Callable[[np.ndarray], np.ndarray]


def block_count(n: int) -> int:
    """The number of blocks for n rows (public: n is public under replace-one): as many as keep
    :data:`MIN_ROWS_PER_BLOCK` rows each, at most :data:`MAX_BLOCKS`; 0 when fewer than :data:`MIN_BLOCKS` fit."""
    k = min(MAX_BLOCKS, int(n) // MIN_ROWS_PER_BLOCK)
    return k if k >= MIN_BLOCKS else 0


def partition(n: int, blocks: int, seed: int) -> np.ndarray:
    """Each row's block (0 … blocks − 1), from a public random permutation: sizes ⌊n/k⌋ or ⌈n/k⌉; which block a
    row is in depends on its position and ``seed`` only, never on its values."""
    order = np.random.default_rng(seed).permutation(int(n))
    out = np.empty(int(n), dtype=np.int64)
    out[order] = np.arange(int(n)) % int(blocks)
    return out


def votes(judge: BlockJudge, n: int, candidates: int, *, blocks: int, seed: int) -> np.ndarray:
    """``(blocks, candidates)`` booleans: block b's vote on each candidate ε (``judge`` on its rows alone, repeated
    to n rows)."""
    which = partition(n, blocks, seed)
    out = np.zeros((blocks, candidates), dtype=bool)
    for b in range(blocks):  # one judgement per block: each simulates its own releases, vectorised inside
        verdict = np.asarray(judge(np.resize(np.flatnonzero(which == b), int(n))), dtype=bool)
        if verdict.shape != (candidates,):
            raise ValueError(f"a block's judgement must be one boolean per candidate ε ({candidates}); "
                             f"got shape {verdict.shape}")
        out[b] = verdict
    return out


def scores(counts, blocks: int) -> np.ndarray:
    """The integer scores of the m candidates and of "none meets" (shape ``(..., m + 1)``) from the vote counts
    ``(..., m)``; L∞ sensitivity :data:`SENSITIVITY` (the module's proof)."""
    c = np.asarray(counts, dtype=np.int64)
    need = blocks // 2 + 1
    before = np.concatenate([np.zeros(c.shape[:-1] + (1,), dtype=np.int64), c[..., :-1]], axis=-1)
    candidate = -np.maximum(0, need - c) - np.maximum(0, before - need + 1)
    none = -np.maximum(0, c[..., -1:] - need + 1)
    return np.concatenate([candidate, none], axis=-1)


def noise_scale(epsilon: float, sensitivity: int = SENSITIVITY) -> float:
    """The exponential noise's scale 2Δ/ε for an ε-DP choice on scores of L∞ sensitivity Δ."""
    check_budget(epsilon, what="the selection")
    return 2.0 * sensitivity / float(epsilon)


def preview_argmax(values, epsilon: float, *, sensitivity: int, rng: np.random.Generator, draws: int,
                   scale_factor: float = 1.0) -> np.ndarray:
    """``draws`` noisy maxima of integer scores ``values`` as :func:`noisy_argmax` draws them (the same law, seeded
    NumPy, all draws at once: audits and benches). ``scale_factor`` plants a bug for audits (0.5: noise halved)."""
    u = np.asarray(values, dtype=float)
    noisy = u + rng.exponential(noise_scale(epsilon, sensitivity) * scale_factor, size=(int(draws), u.shape[-1]))
    return np.argmax(noisy, axis=-1)


def preview_choices(counts, blocks: int, epsilon: float, *, rng: np.random.Generator, draws: int,
                    scale_factor: float = 1.0) -> np.ndarray:
    """``draws`` indices chosen on ``counts`` as :func:`release_choice` chooses (:func:`preview_argmax`)."""
    return preview_argmax(scores(counts, blocks), epsilon, sensitivity=SENSITIVITY, rng=rng, draws=draws,
                          scale_factor=scale_factor)


@lru_cache(maxsize=32)
def _noisy_max(epsilon: float, sensitivity: int):
    """OpenDP's report-noisy-max (exponential noise under max-divergence) for an ε-DP choice on scores of L∞
    sensitivity Δ; its privacy map confirms the cost (Δ in, at most ε out). Built once per (ε, Δ): building costs
    milliseconds, a draw microseconds."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T=int)), dp.linf_distance(T=int, monotonic=False)
    measurement = dp.m.make_noisy_max(*space, dp.max_divergence(), scale=noise_scale(epsilon, sensitivity))
    if measurement.map(sensitivity) > epsilon * (1 + 1e-9):
        raise RuntimeError("OpenDP states a larger cost for this selection than claimed")
    return measurement


def noisy_argmax(values, epsilon: float, *, sensitivity: int) -> int:
    """The index of the noisy maximum of integer scores ``values`` from OpenDP's ``make_noisy_max`` (seeded by the
    operating system): ε-DP when the scores' L∞ sensitivity is ``sensitivity``."""
    return int(_noisy_max(float(epsilon), int(sensitivity))([int(v) for v in values]))


def release_choice(counts, blocks: int, epsilon: float) -> int:
    """One index from OpenDP's ``make_noisy_max`` on the scores of ``counts``."""
    return noisy_argmax(scores(counts, blocks), epsilon, sensitivity=SENSITIVITY)


@dataclass(frozen=True)
class PrivateEpsilon:
    """What a charged private selection released: the chosen candidate (``None``: no ε of the grid meets the
    target by the blocks' majority) and its cost. The votes are never kept."""

    epsilon: float | None
    grid: tuple[float, ...]
    blocks: int
    cost: float

    def summary(self) -> str:
        cost = f"a private selection over {len(self.grid)} candidate ε by {self.blocks} blocks, charged ε = " \
               f"{self.cost:g}"
        if self.epsilon is None:
            return f"No ε up to {self.grid[-1]:g} meets the target by {cost}."
        return f"ε = {self.epsilon:g} chosen by {cost}."


def choose_epsilon(judge: BlockJudge, n: int, grid, *, epsilon: float, seed: int = 0,
                   blocks: int | None = None) -> PrivateEpsilon:
    """The smallest candidate of ``grid`` meeting the target, chosen privately at cost ``epsilon`` (release path:
    OpenDP's sampler). Charge it before calling: the votes read the private rows."""
    grid = tuple(float(e) for e in grid)
    k = block_count(n) if blocks is None else int(blocks)
    if k < MIN_BLOCKS:
        raise ValueError(f"a private choice of ε needs at least {MIN_BLOCKS * MIN_ROWS_PER_BLOCK} rows "
                         f"({MIN_BLOCKS} blocks of {MIN_ROWS_PER_BLOCK}); these data have {n}")
    counts = votes(judge, n, len(grid), blocks=k, seed=seed).sum(axis=0)
    index = release_choice(counts, k, epsilon)
    return PrivateEpsilon(grid[index] if index < len(grid) else None, grid, k, float(epsilon))


def meets_target(draws, *, threshold: float, kind: Literal["probability", "mean"] = "probability",
                 probability: float = 0.9, larger_is_better: bool = False) -> np.ndarray:
    """Per candidate ε (rows of ``draws``, shape ``(m, R)``), whether the simulated releases meet the target: the
    point estimate :func:`dpcore.core.utility.smallest_epsilon` compares (share of draws within the bound, or mean)."""
    values = np.asarray(draws, dtype=float)
    if kind == "probability":
        ok = values >= threshold if larger_is_better else values <= threshold
        return ok.mean(axis=1) >= probability
    if kind == "mean":
        mean = values.mean(axis=1)
        return mean >= threshold if larger_is_better else mean <= threshold
    raise ValueError(f"unknown target kind {kind!r}")


#: simulated releases per candidate ε a block judges from (seeded: the votes are a function of the rows)
BLOCK_DRAWS = 60


def block_judge(simulate_on: Callable[[np.ndarray], Callable], grid, *, threshold: float,
                kind: Literal["probability", "mean"] = "probability", probability: float = 0.9,
                larger_is_better: bool = False, draws: int = BLOCK_DRAWS, seed: int = 0) -> BlockJudge:
    """A block's judgement from a page's simulator: ``simulate_on(rows)`` is the
    :data:`dpcore.core.utility.Simulator` of the rows at those positions (the page's own, on a subset; positions may
    repeat), run at every candidate ε with a public seed, and compared with the target as the non-private finder
    compares it (:func:`meets_target`)."""
    epsilons = np.asarray(grid, dtype=float)

    def judge(rows: np.ndarray) -> np.ndarray:
        values = simulate_on(rows)(epsilons, int(draws), np.random.default_rng(seed))
        return meets_target(values, threshold=threshold, kind=kind, probability=probability,
                            larger_is_better=larger_is_better)
    return judge


# -- audit --------------------------------------------------------------------------------------------------------------
AUDIT_BLOCKS = 9


def _audit_judge(values: np.ndarray) -> BlockJudge:
    """Adversarial blocks: each block's first row decides its two votes (0: yes on ε_1 only; 1: yes on ε_2 only;
    2: no). Any function of a block's rows is allowed by the proof; this one flips both votes at once."""
    def judge(rows: np.ndarray) -> np.ndarray:
        lead = int(values[rows.min()])
        return np.array([lead == 0, lead == 1])
    return judge


def audit_pair() -> tuple[np.ndarray, np.ndarray, int]:
    """Neighbouring data sets (one row replaced) whose vote counts move c = (τ, τ − 1) → (τ − 1, τ): the selection's
    scores then shift by the full Δ on the candidate that gains and the opposite way on the others."""
    n = AUDIT_BLOCKS * MIN_ROWS_PER_BLOCK
    which = partition(n, AUDIT_BLOCKS, seed=0)
    lead = np.array([np.flatnonzero(which == b).min() for b in range(AUDIT_BLOCKS)])
    need = AUDIT_BLOCKS // 2 + 1
    a = np.full(n, 2.0)
    a[lead[:need - 1]] = 0.0  # τ − 1 blocks vote for ε_1 …
    a[lead[need - 1:2 * need - 2]] = 1.0  # … τ − 1 for ε_2
    a[lead[-1]] = 0.0  # and the last block for ε_1: c = (τ, τ − 1)
    b = a.copy()
    b[lead[-1]] = 1.0  # replaced: c = (τ − 1, τ)
    return a, b, n


def audit_counts() -> tuple[dict[str, np.ndarray], int]:
    """The vote counts of :func:`audit_pair`'s two neighbours (A: (τ, τ − 1), B: (τ − 1, τ)) through :func:`votes`,
    and their n: one block's vote moved from the first candidate to the second (the grid choice's audit too)."""
    a, b, n = audit_pair()
    return {w: votes(_audit_judge(data), n, 2, blocks=AUDIT_BLOCKS, seed=0).sum(axis=0)
            for w, data in (("A", a), ("B", b))}, n


def audit_scenarios(epsilon: float) -> list[AuditScenario]:
    """The private choice of ε with its selection step included: votes computed on two neighbouring data sets,
    then report-noisy-max, summarised by whether it chose the candidate the replaced row moved to."""
    counts, n = audit_counts()

    def sampler(which: str, planted_bug: bool, rng: np.random.Generator | None, draws: int) -> np.ndarray:
        factor = 0.5 if planted_bug else 1.0
        if rng is None:  # the release path: OpenDP's sampler, one call per run
            chosen = np.array([release_choice(counts[which], AUDIT_BLOCKS, epsilon / factor) for _ in range(draws)])
        else:
            chosen = preview_choices(counts[which], AUDIT_BLOCKS, epsilon, rng=rng, draws=draws, scale_factor=factor)
        return (chosen == 1).astype(float)

    return [AuditScenario(
        method="Private choice of ε", name="one block's votes flipped",
        neighbours=f"{n} rows in {AUDIT_BLOCKS} blocks; replacing one row flips its block's votes on two candidate ε",
        summary="1 when the second candidate is chosen", claimed_epsilon=float(epsilon), delta=0.0, sampler=sampler,
        reveal="without noise the first candidate on A, the second on B", release_sampler=release_path(sampler))]
