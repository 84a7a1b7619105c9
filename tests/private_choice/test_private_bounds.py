"""The private choice of clipping ranges (dpcore.private_choice.private_bounds): the quantile score's sensitivity on adversarial
neighbours, the choice approaching the true quantiles as ε grows, the coverage, its black-box audit with one row at
the boundary of every quantile at once (the per-release ε, not a per-quantile one) and a planted bug caught, and its
OpenDP release path; the same for the sparse page's bounds K and r (one quantile each of every row's largest |x| and
of |y|), whose audit pair moves one row's largest |x| and its |y| at once.

False alarms: the preview audits are seeded (the same draws every run: no flake), and their bound holds with
confidence 1 − 10⁻⁵ whatever the seed. The release paths are seeded by the operating system: two audits at
confidence 1 − 10⁻⁵ each, and two law checks at 5 binomial standard deviations per value (two-sided ≤ 6·10⁻⁷ each,
at most 24 + 7 values: ≤ 1.9·10⁻⁵), so a correct mechanism fails this file with probability below 4·10⁻⁵ < 10⁻⁴."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.private_choice import private_bounds as pb

CONFIDENCE = 1 - 1e-5


def test_the_score_moves_by_at_most_one_when_one_row_is_replaced():
    """Adversarial neighbours: values on the candidates themselves (ties), beyond the grid at either end, and the
    replaced row moved from one extreme to the other; the bound Δ∞ = 1 is never passed and is reached."""
    rng = np.random.default_rng(0)
    grid = pb.candidate_grid([(0.0, 10.0)] * 2, 11)
    worst = 0.0
    for _ in range(300):
        n = int(rng.integers(5, 40))
        values = rng.choice(np.r_[grid[0], -5.0, 15.0, 2.5], size=(n, 2))
        alphas = rng.uniform(0, 1, size=3).tolist() + [0.01, 0.99]
        before = pb.scores(values, grid, alphas)
        for row in rng.choice(n, size=min(n, 5), replace=False):
            for new in (-5.0, 15.0, 0.0, 10.0, 5.0, 2.5):
                other = values.copy()
                other[row] = new  # one person: every column of the row at once
                worst = max(worst, float(np.abs(pb.scores(other, grid, alphas) - before).max()))
    assert worst <= pb.SENSITIVITY + 1e-12 and worst == pytest.approx(pb.SENSITIVITY)


def test_the_chosen_quantiles_approach_the_true_ones_as_epsilon_grows():
    rng = np.random.default_rng(1)
    values = np.column_stack([rng.normal(0, 1, 3000), rng.exponential(2.0, 3000)])
    outer = [(-10.0, 10.0), (0.0, 50.0)]
    grid = pb.candidate_grid(outer)
    u = pb.scores(values, grid, pb.levels(0.98))
    best = np.argmax(u, axis=-1)  # a noiseless choice (the first of the candidates tied at the top): (k, 2) indices
    exact_lo, exact_hi = grid[[0, 1], best[:, 0]], grid[[0, 1], best[:, 1]]
    errors = []
    for eps in (0.3, 3.0, 30.0, 3000.0):
        lo, hi = pb.preview_ranges(values, outer, epsilon=eps, coverage=0.98, rng=np.random.default_rng(2),
                                   draws=400)
        errors.append(float(np.mean(np.abs(lo - exact_lo)) + np.mean(np.abs(hi - exact_hi))))
    assert errors == sorted(errors, reverse=True) and errors[0] > 10 * errors[2]
    # with ε large, every draw is a candidate of the top score (several grid points between two rows tie)
    for side, chosen in enumerate((lo, hi)):
        index = np.rint((chosen - grid[:, 0]) / (grid[:, 1] - grid[:, 0])).astype(int)  # (draws, k)
        assert np.allclose(u[np.arange(2), side][np.arange(2), index], u[:, side].max(axis=-1), rtol=0, atol=1e-9)
    # which is the empirical quantile to the grid's resolution (outer range / 1000)
    assert np.all(np.abs(exact_lo - np.quantile(values, 0.01, axis=0)) <= grid[:, 1] - grid[:, 0])
    assert np.all(np.abs(exact_hi - np.quantile(values, 0.99, axis=0)) <= grid[:, 1] - grid[:, 0])


def test_the_ranges_hold_their_coverage():
    rng = np.random.default_rng(3)
    values = np.column_stack([rng.normal(5, 2, 4000), rng.uniform(0, 1, 4000), rng.lognormal(0, 1, 4000)])
    outer = [(-50.0, 50.0), (-1.0, 2.0), (0.0, 100.0)]
    for coverage in (0.8, 0.98):
        lo, hi = pb.preview_ranges(values, outer, epsilon=500.0, coverage=coverage, rng=np.random.default_rng(4),
                                   draws=50)
        inside = ((values >= lo[:, None, :]) & (values <= hi[:, None, :])).mean(axis=1)  # (draws, k)
        assert np.all(np.abs(inside - coverage) < 0.01)
    # at a small ε the error is mostly outward: wider ranges, coverage kept on average
    lo, hi = pb.preview_ranges(values, outer, epsilon=1.0, coverage=0.98, rng=np.random.default_rng(5), draws=200)
    inside = ((values >= lo[:, None, :]) & (values <= hi[:, None, :])).mean(axis=1)
    assert inside.mean() >= 0.98


def test_the_bounds_are_ordered_and_never_empty():
    """All rows on one candidate, at the grid's top and bottom: both quantiles pick it, and post-processing widens
    the range by one grid step (inward at an end)."""
    outer = [(0.0, 4.0)] * 3
    values = np.column_stack([np.full(50, 0.0), np.full(50, 2.0), np.full(50, 4.0)])
    lo, hi = pb.preview_ranges(values, outer, epsilon=1e4, points=5, rng=np.random.default_rng(6), draws=20)
    assert np.all(lo < hi)
    assert np.array_equal(lo[0], [0.0, 2.0, 3.0]) and np.array_equal(hi[0], [1.0, 3.0, 4.0])


def test_one_row_moves_every_quantile_at_once():
    """The audit pair: in each of the 2k quantiles the replaced row shifts the score gap between the two candidates
    around the quantile by the full 2Δ, toward the upper one."""
    a, b = pb.audit_pair()
    grid = pb.candidate_grid([pb.AUDIT_OUTER] * pb.AUDIT_COLUMNS, pb.AUDIT_POINTS)
    ua, ub = (pb.scores(t, grid, pb.levels(pb.AUDIT_COVERAGE)) for t in (a, b))
    gap_a = np.stack([ua[:, 0, 1] - ua[:, 0, 0], ua[:, 1, 3] - ua[:, 1, 2]], axis=1)
    gap_b = np.stack([ub[:, 0, 1] - ub[:, 0, 0], ub[:, 1, 3] - ub[:, 1, 2]], axis=1)
    assert np.array_equal(gap_b - gap_a, np.full((pb.AUDIT_COLUMNS, 2), 2.0 * pb.SENSITIVITY))
    assert np.abs(ub - ua).max() == pb.SENSITIVITY


@pytest.mark.parametrize("epsilon", [1.0, 2.0])
def test_the_audit_with_the_selection_step_passes_and_catches_the_planted_bug(epsilon):
    """10⁶ seeded runs per neighbour. The correct mechanism is not refuted, and its bound is above one quantile's
    share ε / 2k: the loss of all quantiles adds up, so only the per-release ε can hold. Each quantile given the
    whole ε (a per-quantile guarantee) is refuted."""
    scenario = pb.audit_scenarios(epsilon)[0]  # the ranges
    honest, _, _ = scenario.run(10**6, seed=0, confidence=CONFIDENCE)
    assert not honest.violation and honest.epsilon_lower > epsilon / (2 * pb.AUDIT_COLUMNS)
    planted, _, _ = scenario.run(10**6, seed=0, planted_bug=True, confidence=CONFIDENCE)
    assert planted.violation and planted.epsilon_lower > 1.5 * epsilon


def test_the_release_path_draws_with_the_previews_law_and_within_its_claim():
    scenario = pb.audit_scenarios(2.0)[0]
    result, _, _ = scenario.run(1200, path="release", confidence=CONFIDENCE)
    assert not result.violation
    release = scenario.release_sampler("B", False, 1500)
    preview = scenario.sampler("B", False, np.random.default_rng(7), 10**5)
    values = np.unique(np.concatenate([release, preview]))
    assert values.size <= 24  # the sum of six bounds on the grid 0, 1, 2, 3
    for v in values:  # same law: the share at each value agrees within 5 binomial sds
        p = np.mean(preview == v)
        assert abs(np.mean(release == v) - p) < 5 * np.sqrt(p * (1 - p) / release.size) + 1e-3


def test_the_cost_is_split_over_every_quantile_and_opendp_states_it():
    assert pb.quantile_epsilon(1.0, 4) == 0.125
    grid = tuple(pb.candidate_grid([(0.0, 1.0)], 11)[0])
    measurement = pb._quantile(30, grid, 0.01, 0.125)
    assert measurement.map(2) == pytest.approx(0.125)  # replace-one: a symmetric distance of 2
    rng = np.random.default_rng(8)
    chosen = pb.choose_ranges(rng.uniform(size=(30, 4)), [(0.0, 1.0)] * 4, epsilon=1.0, points=11,
                              names=("y", "a", "b", "c"))
    assert chosen.quantiles == 8 and chosen.public_params()["ε per quantile"] == 0.125
    assert all(lo < hi and lo in grid and hi in grid for lo, hi in zip(chosen.lower, chosen.upper))
    assert "charged ε = 1" in chosen.summary()


@pytest.mark.parametrize("kwargs, message", [
    (dict(outer=[(1.0, 0.0)] * 2), "outer range"),
    (dict(outer=[(0.0, np.inf)] * 2), "outer range"),
    (dict(coverage=1.0), "coverage"),
    (dict(epsilon=0.0), "positive"),
    (dict(epsilon=np.nan), "positive"),
    (dict(values=np.array([[0.5, np.nan]] * 10)), "finite"),
    (dict(outer=[(0.0, 1.0)] * 3), "3 declared outer ranges"),
])
def test_bad_inputs_are_refused_with_the_reason(kwargs, message):
    args = dict(values=np.full((10, 2), 0.5), outer=[(0.0, 1.0)] * 2, epsilon=1.0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        pb.choose_ranges(args.pop("values"), args.pop("outer"), **args)


# -- the sparse page's K and r: one quantile per bound ------------------------------------------------------------------
def test_the_row_maximum_and_the_response_are_one_value_each_per_row():
    """Replacing one row of (X, y) — every feature and the response at once, to either extreme — changes one value
    of each magnitude column, so the bounds' scores move by at most Δ = 1, and the pair reaches it."""
    rng = np.random.default_rng(9)
    grid = pb.candidate_grid([(0.0, 5.0)] * 2, 11)
    worst = 0.0
    for _ in range(200):
        n = int(rng.integers(5, 30))
        X, y = rng.normal(0, 2, size=(n, 4)), rng.normal(0, 2, size=n)
        before = pb.scores(pb.magnitudes(X, y), grid, [0.5, 0.9, 0.99])
        row = int(rng.integers(n))
        for new in (0.0, -9.0, 9.0, 2.5):
            X2, y2 = X.copy(), y.copy()
            X2[row], y2[row] = new, new
            changed = pb.magnitudes(X2, y2) != pb.magnitudes(X, y)
            assert changed.any(axis=1).sum() <= 1  # one row's magnitudes, nobody else's
            worst = max(worst, float(np.abs(pb.scores(pb.magnitudes(X2, y2), grid, [0.5, 0.9, 0.99]) - before).max()))
    assert worst <= pb.SENSITIVITY + 1e-12 and worst == pytest.approx(pb.SENSITIVITY)
    (xa, ya), (xb, yb) = pb.audit_bounds_pair()
    grid = pb.candidate_grid([pb.AUDIT_OUTER] * 2, pb.AUDIT_POINTS)
    ua, ub = (pb.scores(pb.magnitudes(x, y), grid, [pb.AUDIT_BOUND_COVERAGE])[:, 0] for x, y in ((xa, ya), (xb, yb)))
    assert np.allclose((ub[:, 3] - ub[:, 2]) - (ua[:, 3] - ua[:, 2]), 2.0 * pb.SENSITIVITY)  # both bounds at once
    assert np.abs(ub - ua).max() == pytest.approx(pb.SENSITIVITY)


def test_k_and_r_approach_the_true_quantiles_as_epsilon_grows():
    rng = np.random.default_rng(10)
    X, y = rng.normal(0, 1, size=(2000, 30)), rng.standard_t(4, 2000)
    values, outer = pb.magnitudes(X, y), [(0.1, 100.0), (0.1, 100.0)]
    exact = np.quantile(values, 0.9, axis=0)
    errors = []
    for eps in (0.1, 1.0, 10.0, 1000.0):
        chosen = pb.preview_bounds(values, outer, epsilon=eps, coverage=0.9, rng=np.random.default_rng(11), draws=400)
        errors.append(float(np.mean(np.abs(chosen - exact))))
    assert errors == sorted(errors, reverse=True) and errors[0] > 10 * errors[2]
    assert errors[-1] <= 0.1  # the grid's step (100 / 1000)
    # at the same ε, two quantiles err far less than the 2(d + 1) of per-column ranges would at ε / (d + 1)
    cheap = pb.preview_bounds(values, outer, epsilon=1.0, rng=np.random.default_rng(12), draws=400)
    costly = pb.preview_bounds(values, outer, epsilon=2.0 / (2 * 31), rng=np.random.default_rng(12), draws=400)
    assert np.mean(np.abs(cheap - exact)) < np.mean(np.abs(costly - exact)) / 5


@pytest.mark.parametrize("epsilon", [1.0, 2.0])
def test_the_bounds_audit_passes_and_catches_the_planted_bug(epsilon):
    """10⁶ seeded runs per neighbour on the K/r pair. The correct mechanism is not refuted and its bound is above
    one quantile's share ε / 2 (the two bounds' losses add up); each bound given the whole ε is refuted."""
    scenario = next(s for s in pb.audit_scenarios(epsilon) if s.summary == "K + r")
    honest, _, _ = scenario.run(10**6, seed=0, confidence=CONFIDENCE)
    assert not honest.violation and honest.epsilon_lower > 0.9 * epsilon
    planted, _, _ = scenario.run(10**6, seed=0, planted_bug=True, confidence=CONFIDENCE)
    assert planted.violation and planted.epsilon_lower > 1.5 * epsilon


def test_the_bounds_release_path_draws_with_the_previews_law_and_within_its_claim():
    """OpenDP's sampler (seeded by the system): its audit at confidence 1 − 10⁻⁵, its law within 5 binomial sds at
    each of at most 7 values (sums of two bounds on 0, 1, 2, 3)."""
    scenario = next(s for s in pb.audit_scenarios(2.0) if s.summary == "K + r")
    result, _, _ = scenario.run(1200, path="release", confidence=CONFIDENCE)
    assert not result.violation
    release = scenario.release_sampler("B", False, 1500)
    preview = scenario.sampler("B", False, np.random.default_rng(13), 10**5)
    for v in np.unique(np.concatenate([release, preview])):
        p = np.mean(preview == v)
        assert abs(np.mean(release == v) - p) < 5 * np.sqrt(p * (1 - p) / release.size) + 1e-3


def test_the_bounds_are_deterministic_given_the_seed_and_say_what_they_cost():
    rng = np.random.default_rng(14)
    values = pb.magnitudes(rng.normal(size=(60, 5)), rng.normal(size=60))
    outer = [(0.1, 10.0), (0.1, 10.0)]
    first, again = (pb.preview_bounds(values, outer, epsilon=1.0, rng=np.random.default_rng(15), draws=50)
                    for _ in range(2))
    assert np.array_equal(first, again)
    chosen = pb.choose_bounds(values, outer, epsilon=1.0, names=("K", "r"))
    grid = pb.candidate_grid(outer)
    assert chosen.quantiles == 2 and chosen.public_params()["ε per quantile"] == 0.5
    assert all(b in grid[j] for j, b in enumerate(chosen.bounds))
    assert chosen.table() == {"bound": ["K", "r"], "value": list(chosen.bounds)}
    assert "K, r" in chosen.summary() and "charged ε = 1" in chosen.summary()
    only_k = pb.choose_bounds(values[:, :1], outer[:1], epsilon=1.0, names=("K",))  # logistic: no r, all ε to K
    assert only_k.public_params()["ε per quantile"] == 1.0
    assert pb.magnitudes([[1.0, -3.0], [0.5, 0.2]]).tolist() == [[3.0], [0.5]]
    with pytest.raises(ValueError, match="coverage"):
        pb.choose_bounds(values, outer, epsilon=1.0, coverage=1.0)
    with pytest.raises(ValueError, match="2 columns but 1 declared"):
        pb.choose_bounds(values, outer[:1], epsilon=1.0)
