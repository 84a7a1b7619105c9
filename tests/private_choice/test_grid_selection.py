"""The charged private choice of the survival grid (dpcore.private_choice.grid_selection): public candidates, vote counts of L∞
sensitivity 1 on adversarial neighbours, a choice that approaches the blocks' non-private favourite as ε_sel grows,
and the black-box audit with the selection step (passes; catches the noise halved). Every draw is seeded except
OpenDP's, whose false-alarm rates are bounded below from the run counts."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.private_choice import grid_selection as gs
from dpcore.private_choice import selection
from dpcore.core.datasets import load_survival
from dpcore.survival.grid import GRID_LADDER, default_bin_width


def _setting(name: str, epsilon: float) -> tuple:
    d = load_survival(name)
    return d, gs.ReleaseSetting(d.horizon, d.time_unit, epsilon, n_types=len(d.event_labels))


def test_the_candidates_are_the_rules_neighbours_on_the_ladder_from_public_inputs_only():
    d, setting = _setting("pbc", 1.0)
    candidates = setting.candidates(d.time.size)
    assert default_bin_width(d.horizon, d.time_unit, n=d.time.size, epsilon=1.0) in candidates
    rungs = [GRID_LADDER.index(c) for c in candidates]
    assert rungs == list(range(rungs[0], rungs[-1] + 1)) and len(rungs) <= 2 * gs.SPREAD + 1  # contiguous
    assert all(2 <= g.k <= gs.MAX_CANDIDATE_BINS for g in setting.grids(candidates))


def test_the_error_a_block_judges_by_weighs_binning_against_noise():
    """Without noise (ε = 1000) the finest width misses the exact curve least; at ε = 0.05 the coarsest does."""
    d, _ = _setting("pbc", 1.0)
    candidates = _setting("pbc", 1.0)[1].candidates(d.time.size)
    for epsilon, best in ((1000.0, 0), (0.05, len(candidates) - 1)):
        errors = gs.sup_errors(d.time, d.event, None, candidates, _setting("pbc", epsilon)[1],
                               rng=np.random.default_rng(0), draws=50)
        assert int(np.argmin(errors.mean(axis=1))) == best


def test_replacing_one_row_moves_one_blocks_vote_so_each_count_by_at_most_one():
    """Adversarial neighbours through the whole vote: the judgement reads every row of its block, and one row moves
    its vote to another candidate; the counts move by −1 and +1 (Δ∞ = 1, the module's proof)."""
    n, blocks, m = 200, 8, 5
    rng = np.random.default_rng(1)
    values = rng.integers(0, m, size=n).astype(float)

    def judge_of(data):
        return lambda rows: np.arange(m) == int(data[np.unique(rows)].sum()) % m

    before = selection.votes(judge_of(values), n, m, blocks=blocks, seed=5).sum(axis=0)
    assert before.sum() == blocks  # one vote per block
    for row in rng.choice(n, size=40, replace=False):
        other = values.copy()
        other[row] = (other[row] + 1) % m
        moved = selection.votes(judge_of(other), n, m, blocks=blocks, seed=5).sum(axis=0) - before
        assert np.abs(moved).max() == gs.SENSITIVITY and sorted(moved[moved != 0]) == [-1, 1]


def test_the_choice_approaches_the_blocks_favourite_as_its_epsilon_grows():
    """Real votes (myeloid, 646 people, 25 blocks); the non-private best is the candidate most blocks vote for."""
    d, setting = _setting("myeloid", 1.0)
    candidates = setting.candidates(d.time.size)
    judge = gs.block_judge(d.time, d.event, None, candidates, setting)
    counts = selection.votes(judge, d.time.size, len(candidates), blocks=selection.block_count(d.time.size),
                             seed=0).sum(axis=0)
    best = int(np.argmax(counts))
    shares = [np.mean(gs.preview_choices(counts, e, rng=np.random.default_rng(2), draws=4000) == best)
              for e in (0.05, 0.5, 5.0)]
    assert shares[0] < shares[1] < shares[2] and shares[2] > 0.95
    # OpenDP's release path, same law: 400 draws at ε_sel = 5 choose the favourite at least 85 % of the time (its
    # preview share is above 95 %: P(≤ 340 of 400) < 10⁻¹⁰, far below a false alarm of 10⁻⁴)
    picks = [selection.noisy_argmax(counts, 5.0, sensitivity=gs.SENSITIVITY) for _ in range(400)]
    assert np.mean(np.array(picks) == best) > 0.85


def test_the_audit_with_the_selection_step_passes_and_catches_a_planted_bug():
    """10⁶ seeded runs per neighbour (the seed fixes every draw: no flake). The pair is a hard one: the honest
    mechanism's exact privacy loss on it is ln((1 − e^(−1/2)/2) / (e^(−1/2)/2)) ≈ 0.83 at ε = 1."""
    (scenario,) = gs.audit_scenarios(1.0)
    honest, _, _ = scenario.run(10**6, seed=0)
    assert not honest.violation and honest.epsilon_lower > 0.6
    planted, _, _ = scenario.run(10**6, seed=0, planted_bug=True)
    assert planted.violation


def test_the_release_path_draws_within_its_claim():
    """OpenDP's sampler (seeded by the OS): 3,000 runs at confidence 1 − 10⁻⁵, so a false alarm is rarer than 10⁻⁵
    (< 10⁻⁴); its shares per index agree with the preview's within 5 binomial sds (each < 6·10⁻⁷, two indices)."""
    (scenario,) = gs.audit_scenarios(1.0)
    result, _, _ = scenario.run(3000, path="release", confidence=1 - 1e-5)
    assert not result.violation
    counts = selection.audit_counts()[0]["B"]
    picks = np.array([selection.noisy_argmax(counts, 1.0, sensitivity=gs.SENSITIVITY) for _ in range(3000)])
    preview = gs.preview_choices(counts, 1.0, rng=np.random.default_rng(4), draws=10**5)
    for index in range(2):
        p = np.mean(preview == index)
        assert abs(np.mean(picks == index) - p) < 5 * np.sqrt(p * (1 - p) / picks.size) + 1e-3


def test_too_few_rows_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="at least 125 rows"):
        gs.choose_grid(lambda rows: np.array([True, False]), 100, [(1, "months"), (2, "months")], epsilon=0.5)


def test_a_block_without_someone_of_a_declared_group_is_judged_on_the_groups_it_holds():
    d = load_survival("myeloid")
    groups = tuple(str(g) for g in np.unique(d.group))
    setting = gs.ReleaseSetting(d.horizon, d.time_unit, 1.0, groups, len(d.event_labels))
    candidates = setting.candidates(d.time.size)
    only = np.flatnonzero(d.group == groups[0])[:60]
    errors = gs.sup_errors(d.time[only], d.event[only], d.group[only], candidates, setting,
                           rng=np.random.default_rng(0), draws=5)
    assert errors.shape == (len(candidates), 5) and np.isfinite(errors).all()
