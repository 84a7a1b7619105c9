"""A charged private choice of the survival grid's bin width among public candidates.

The survival page's default width follows a public rule (:func:`dpcore.survival.default_bin_width`); a custodian
who moves it while watching previews of the private rows makes it depend on them. This is the third way, a release
of its own (charged to every person it reads, composed in the ledger like any release), built from the pieces of
the private choice of ε (:mod:`dpcore.private_choice.selection`): subsample and aggregate, then report-noisy-max.

Public inputs: the candidate widths (:func:`candidate_widths`: the ladder's rungs around the rule's, from the
horizon, n, ε and the groups), the page's release settings (ε, noise, post-processing, groups, declared
resolution), the number of blocks k, the partition and simulation seeds and ε_sel.

1. The n rows are cut into k blocks by a public random permutation (:func:`dpcore.private_choice.selection.partition`).
2. Each block b votes for one candidate: the width whose simulated releases at the page's ε have the smallest mean
   sup-norm error against b's own Kaplan–Meier curve on its exact times (:func:`sup_errors`), on a stand-in of n
   rows, b's rows repeated, so that its noise is the full data's. A utility heuristic on which no privacy claim
   rests.
3. c_j = the number of blocks voting for candidate j; the index released is argmax_j (c_j + Exponential(2Δ/ε_sel)),
   report-noisy-max with exponential noise (permute-and-flip, McKenna & Sheldon 2020), Δ = 1.

**Sensitivity proof (replace-one).** c_j = Σ_b v_bj with v_bj ∈ {0, 1} block b's vote. Replacing one row changes one
block (the partition depends on positions and a public seed, not values), and a block's votes depend on its own
rows and public inputs only, so only that block's votes change: every c_j moves by at most 1 (with one vote per
block, one count −1 and another +1). The counts' L∞ sensitivity is Δ = 1 in any direction, so report-noisy-max with
exponential noise of scale 2Δ/ε_sel is ε_sel-DP (McSherry & Talwar 2007; McKenna & Sheldon 2020). OpenDP's
``make_noisy_max`` draws the release and its privacy map states the same cost. Only the width is released.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcore.private_choice import selection
from dpcore.core.audit import AuditScenario, release_path
from dpcore.core.datasets import UNIT_DAYS
from dpcore.survival.estimators import DEFAULT_RISK_SET, km, postprocess, statistic_for
from dpcore.survival.grid import GRID_LADDER, Grid, bin_width_text, default_bin_width, make_grid
from dpcore.survival.mechanism import noise_for, noisy_counts
from dpcore.survival.read import on_resolution, path
from dpcore.survival.reference import lifelines_reference
from dpcore.survival.statistic import count_matrix

#: the vote counts' L∞ sensitivity under replace-one (the module's proof)
SENSITIVITY = 1
#: rungs of :data:`~dpcore.survival.grid.GRID_LADDER` offered on each side of the rule's
SPREAD = 3
#: most bins a candidate may have (finer grids hold mostly noise at the sizes the page allows a choice for)
MAX_CANDIDATE_BINS = 200
#: simulated releases per candidate a block judges from, and the points its sup-norm is read at
BLOCK_DRAWS = 20
READ_POINTS = 256
#: the error is read where at least this share of the group is still at risk (as :func:`dpcore.survival.costs`)
MIN_SHARE = 0.1


def candidate_widths(horizon: float, data_unit: str, *, n: int, epsilon: float, n_groups: int = 1,
                     resolution: float | None = None) -> tuple[tuple[int, str], ...]:
    """The public candidates: the rule's ``(width, unit)`` and up to :data:`SPREAD` rungs either side of it with 2 to
    :data:`MAX_CANDIDATE_BINS` bins over the horizon (public inputs only, as the rule's)."""
    rule = default_bin_width(horizon, data_unit, n=n, epsilon=epsilon, n_groups=n_groups, resolution=resolution)
    i = GRID_LADDER.index(rule)
    days = float(horizon) * UNIT_DAYS[data_unit]
    return tuple(r for r in GRID_LADDER[max(0, i - SPREAD):i + SPREAD + 1]
                 if r == rule or 2 <= math.ceil(days / (r[0] * UNIT_DAYS[r[1]]) - 1e-9) <= MAX_CANDIDATE_BINS)


@dataclass(frozen=True)
class ReleaseSetting:
    """The page's public settings of the release a grid is chosen for (what each candidate is simulated with)."""

    horizon: float
    data_unit: str
    epsilon: float
    groups: tuple[str, ...] | None = None
    n_types: int = 1
    kind: str = "discrete_laplace"
    delta: float = 0.0
    risk_set: str = DEFAULT_RISK_SET
    resolution: float | None = None

    def candidates(self, n: int) -> tuple[tuple[int, str], ...]:
        """:func:`candidate_widths` for ``n`` rows under these settings."""
        return candidate_widths(self.horizon, self.data_unit, n=n, epsilon=self.epsilon,
                                n_groups=len(self.groups) if self.groups else 1, resolution=self.resolution)

    def grids(self, candidates) -> list[Grid]:
        return [make_grid(self.horizon, data_unit=self.data_unit, grid_unit=u, width=w) for w, u in candidates]


def sup_errors(time, event, group, candidates, setting: ReleaseSetting, *, rng: np.random.Generator,
               draws: int) -> np.ndarray:
    """``(len(candidates), draws)`` sup-norm errors of simulated Kaplan–Meier releases at each candidate width, read
    by the within-bin rule against lifelines on the exact times of these rows (a grid's binning error and its
    noise in one number, comparable across widths). Non-private: blocks' votes and benches only."""
    time, event = np.asarray(time, float), np.asarray(event)
    horizon = float(setting.horizon)
    exact = Grid(np.array([0.0, horizon]), setting.data_unit, setting.data_unit, 1.0)  # data units throughout
    # a block may hold nobody of a declared group: its curve is judged on the groups it holds
    held = [0] if group is None else [i for i, g in enumerate(setting.groups) if np.any(np.asarray(group) == g)]
    refs = lifelines_reference(time, event, exact, group=group,
                               groups=None if group is None else [setting.groups[i] for i in held])
    t = np.linspace(0.0, horizon, READ_POINTS + 1)
    truth = np.stack([r.at(t) for r in refs])
    kept = np.stack([r.at_risk_share(t) >= MIN_SHARE for r in refs])
    read = on_resolution(t, setting.resolution)
    out = []
    for grid in setting.grids(candidates):
        counts = count_matrix(time, event, grid, group=group, groups=setting.groups, n_types=setting.n_types,
                              statistic=statistic_for(setting.risk_set))
        noise = noise_for(counts, setting.epsilon, kind=setting.kind, delta=setting.delta)
        noisy = noisy_counts(counts, noise, rng=rng, draws=draws)  # (draws, …): every draw at once
        curve = km(postprocess(noisy.collapse_types(), risk_set=setting.risk_set)).estimate[..., held, :]
        out.append(np.where(kept, np.abs(path(grid.edges, curve, read) - truth), 0.0).max(axis=(-1, -2)))
    return np.stack(out)


def block_judge(time, event, group, candidates, setting: ReleaseSetting, *, draws: int = BLOCK_DRAWS,
                seed: int = 0) -> selection.BlockJudge:
    """A block's vote (one-hot over the candidates): the width of least mean sup error on its stand-in (its rows'
    positions, repeated to n), with a public simulation seed."""
    time, event = np.asarray(time), np.asarray(event)
    group = None if group is None else np.asarray(group)

    def judge(rows: np.ndarray) -> np.ndarray:
        errors = sup_errors(time[rows], event[rows], None if group is None else group[rows], candidates, setting,
                            rng=np.random.default_rng(seed), draws=draws)
        return np.arange(len(candidates)) == np.argmin(errors.mean(axis=1))
    return judge


def preview_choices(counts, epsilon: float, *, rng: np.random.Generator, draws: int,
                    scale_factor: float = 1.0) -> np.ndarray:
    """``draws`` indices chosen on the vote ``counts`` as :func:`choose_grid` chooses (seeded NumPy, all at once)."""
    return selection.preview_argmax(counts, epsilon, sensitivity=SENSITIVITY, rng=rng, draws=draws,
                                    scale_factor=scale_factor)


@dataclass(frozen=True)
class PrivateGrid:
    """What the selection released: the chosen ``(width, unit)`` and its cost (the votes are never kept)."""

    width: int
    unit: str
    candidates: tuple[tuple[int, str], ...]
    blocks: int
    cost: float

    def summary(self) -> str:
        return (f"Bins of {bin_width_text(self.width, self.unit)} chosen by a private selection over "
                f"{len(self.candidates)} candidate widths by {self.blocks} blocks, charged ε = {self.cost:g}.")


def choose_grid(judge: selection.BlockJudge, n: int, candidates, *, epsilon: float, seed: int = 0,
                blocks: int | None = None) -> PrivateGrid:
    """The candidate most blocks vote for, chosen privately at cost ``epsilon`` (OpenDP's sampler). Charge it before
    calling: the votes read the private rows."""
    candidates = tuple((int(w), str(u)) for w, u in candidates)
    k = selection.block_count(n) if blocks is None else int(blocks)
    if k < selection.MIN_BLOCKS:
        raise ValueError(f"a private choice of the grid needs at least "
                         f"{selection.MIN_BLOCKS * selection.MIN_ROWS_PER_BLOCK} rows ({selection.MIN_BLOCKS} blocks "
                         f"of {selection.MIN_ROWS_PER_BLOCK}); these data have {n}")
    counts = selection.votes(judge, n, len(candidates), blocks=k, seed=seed).sum(axis=0)
    width, unit = candidates[selection.noisy_argmax(counts, epsilon, sensitivity=SENSITIVITY)]
    return PrivateGrid(width, unit, candidates, k, float(epsilon))


# -- audit --------------------------------------------------------------------------------------------------------------
def audit_scenarios(epsilon: float) -> list[AuditScenario]:
    """Votes on two neighbours whose replaced row moves one block's vote between two candidate widths (the ε choice's
    adversarial pair, through :func:`dpcore.private_choice.selection.votes`), then the noisy maximum; summarised by whether it
    chose the width the vote moved to."""
    counts, n = selection.audit_counts()

    def sampler(which: str, planted_bug: bool, rng: np.random.Generator | None, draws: int) -> np.ndarray:
        factor = 0.5 if planted_bug else 1.0
        if rng is None:  # the release path: OpenDP's sampler, one call per run
            chosen = np.array([selection.noisy_argmax(counts[which], epsilon / factor, sensitivity=SENSITIVITY)
                               for _ in range(draws)])
        else:
            chosen = preview_choices(counts[which], epsilon, rng=rng, draws=draws, scale_factor=factor)
        return (chosen == 1).astype(float)

    return [AuditScenario(
        method="Private choice of the survival grid", name="one block's vote moved",
        neighbours=f"{n} rows in {selection.AUDIT_BLOCKS} blocks; replacing one row moves its block's vote from "
                   "one candidate width to another",
        summary="1 when the second width is chosen", claimed_epsilon=float(epsilon), delta=0.0, sampler=sampler,
        reveal="without noise the first width on A, the second on B", release_sampler=release_path(sampler))]
