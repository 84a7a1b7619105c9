"""A trade-off explorer must reach the truth: with default settings, every private preview approaches the
non-private answer as ε grows.

Here: survival (every estimator, both preview noises, both risk sets, random data) and online FDR (each
private rule at ε = 10⁶ under the page's defaults equals its own noise-free run, which the equivalence tests
in ``test_fdr.py`` tie to SAFFRON). The other two methods keep their limit tests beside their code:
``test_regression.py::test_preview_reaches_the_nonprivate_fit_as_epsilon_grows`` (coefficients and
predictions at ε = 10⁶ and 10⁷) and ``test_sparse_limits.py`` (support F1 ≥ 0.9 at ε = 10⁶, both losses,
every method whose noise-free counterpart recovers the support).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore import fdr
from dpcore import survival as sv

HUGE_EPSILON = 1e6


@st.composite
def _survival_data(draw):
    n = draw(st.integers(3, 120))
    types = draw(st.integers(1, 2))
    groups = draw(st.sampled_from([None, ("a", "b")]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    time = rng.exponential(5.0, n).round(1)
    event = rng.integers(0, types + 1, n)
    group = rng.choice(groups, n) if groups else None
    return time, event, group, groups, types


@settings(max_examples=60, deadline=None)
@given(data=_survival_data(), kind=st.sampled_from(["discrete_laplace", "laplace"]),
       risk_set=st.sampled_from(list(sv.RISK_SETS)), width=st.sampled_from([2.0, 0.25]))
def test_survival_previews_reach_the_exact_curves(data, kind, risk_set, width):
    """At ε = 10⁶ each count's noise has scale ≤ 4·10⁻⁶ people; after rounding to whole people (free
    post-processing) P(any cell moves) ≤ cells · e^(−0.5/4·10⁻⁶) ≈ 0, so the curves must be *equal*.
    Before rounding, continuous noise left hazards of order one wherever nobody was at risk."""
    time, event, group, groups, types = data
    grid = sv.make_grid(10.0, width=width)  # 5 or 40 bins; times beyond 10 are censored at the horizon
    for estimator in ("km", "na", "cif"):
        counts = sv.count_matrix(time, event if estimator == "cif" else (event != 0).astype(int), grid, group=group,
                                 groups=groups, n_types=max(types, 2) if estimator == "cif" else 1)
        util = sv.utility(counts, HUGE_EPSILON, draws=5, rng=np.random.default_rng(0), estimator=estimator,
                          kind=kind, risk_set=risk_set)
        assert float(util.sup_error.max()) == 0.0, (estimator, kind, risk_set)


@pytest.mark.parametrize("rule", ["paper", "code"])
@pytest.mark.parametrize("method", ["PAPRIKA", "PAPRIKA AI"])
@pytest.mark.parametrize("shift", [1.0, 4.0, fdr.STREAM])
def test_fdr_private_rules_reach_their_noise_free_run(method, rule, shift):
    """At ε = 10⁶ the noise scale 4ηc/ε is ≈ 10⁻⁵ in log p and every shift is ≈ 10⁻³ or less: a decision can
    only differ for a p-value within a factor e^(10⁻²) of its threshold. The streams are fixed (seeded), so
    this test is deterministic; it fails if a rule keeps noise or a shift that does not vanish as ε grows."""
    streams = fdr.simulate_bernoulli(20, 800, pi1=0.05, rng=np.random.default_rng(3))
    base = fdr.Settings(rule=rule, shift=shift)
    huge = fdr.run_method(method, streams.pvalues, base, rng=np.random.default_rng(4), epsilon=HUGE_EPSILON)
    free = fdr.run_method(method, streams.pvalues, base, rng=np.random.default_rng(4), epsilon=math.inf)
    np.testing.assert_array_equal(huge.rejections, free.rejections)
    np.testing.assert_allclose(huge.alpha, free.alpha, rtol=1e-9)
    assert free.rejections.sum() > 100  # the noise-free rule does discover (power is not trivially equal at 0)
