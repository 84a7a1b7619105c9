"""Clipped noisy gradient descent for the piecewise-exponential model: the sensitivities on adversarial pairs,
the accounting from public inputs only, and convergence without noise."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore.core.mechanisms import analytic_gaussian_sigma
from dpcore.survival.cox_gd import NoisyGD, clipped_gradients, curvature, person_data

BOUNDS = {"a": (0.0, 1.0), "b": (16.0, 50.0), "c": (0.0, 20.0)}


def cohort(rng, n=40):
    t = rng.uniform(0.0, 60.0, n)
    e = (rng.random(n) < 0.5).astype(float)
    x = np.column_stack([rng.integers(0, 2, n), rng.uniform(10, 60, n), rng.uniform(-5, 30, n)])
    return t, e, x


def adversarial_records():
    """Records at the corners, out of the box, events at the first instant and censored after the horizon."""
    return [
        (0.0, 1.0, [1.0, 50.0, 20.0]), (52.0, 0.0, [0.0, 16.0, 0.0]), (1e-6, 1.0, [5.0, 1e3, -1e3]),
        (1e4, 1.0, [-3.0, -1e3, 1e3]), (52.0, 1.0, [1.0, 16.0, 20.0]), (26.0, 1.0, [0.0, 50.0, 0.0]),
        (51.999, 0.0, [1.0, 50.0, 20.0]),
    ]


@pytest.mark.parametrize("K", [1, 2, 5])
def test_gradient_and_curvature_sensitivity_on_adversarial_pairs(K):
    rng = np.random.default_rng(K)
    t, e, x = cohort(rng)
    worst_g, worst_s = 0.0, 0.0
    for theta_scale in (0.0, 1.0, 5.0, 30.0):
        theta = rng.normal(0.0, theta_scale, K + 3)
        for p, (tp, ep, xp) in enumerate(adversarial_records()):
            for q, (tq, eq, xq) in enumerate(adversarial_records()):
                if p == q:
                    continue
                d1 = person_data(np.append(t, tp), np.append(e, ep), np.vstack([x, xp]), BOUNDS, 52.0, K)
                d2 = person_data(np.append(t, tq), np.append(e, eq), np.vstack([x, xq]), BOUNDS, 52.0, K)
                m = NoisyGD(1.0, 1e-6, 3, intervals=K)
                g = clipped_gradients(d1, theta, m.clip_norm).sum(0) - clipped_gradients(d2, theta, m.clip_norm).sum(0)
                worst_g = max(worst_g, np.linalg.norm(g) / (2 * m.clip_norm))
                ds = np.triu(curvature(d1) - curvature(d2))
                worst_s = max(worst_s, np.linalg.norm(ds) / m.curvature_sensitivity)
    assert worst_g <= 1.0 + 1e-12
    assert worst_s <= 1.0 + 1e-12
    assert worst_g > 0.5  # the pairs do reach the clip: the test would see a larger change


def test_sensitivity_on_random_pairs():
    rng = np.random.default_rng(7)
    m = NoisyGD(1.0, 1e-6, 3, intervals=3, clip=1.5)
    for _ in range(200):
        t, e, x = cohort(rng, n=6)
        t2, e2, x2 = t.copy(), e.copy(), x.copy()
        t2[0], e2[0], x2[0] = rng.uniform(-1, 80), float(rng.integers(0, 2)), rng.uniform(-100, 100, 3)
        d1, d2 = (person_data(a, b, c, BOUNDS, 52.0, 3) for a, b, c in ((t, e, x), (t2, e2, x2)))
        theta = rng.normal(0.0, 3.0, 6)
        g = clipped_gradients(d1, theta, m.clip_norm).sum(0) - clipped_gradients(d2, theta, m.clip_norm).sum(0)
        assert np.linalg.norm(g) <= 2 * m.clip_norm + 1e-12
        assert np.linalg.norm(np.triu(curvature(d1) - curvature(d2))) <= m.curvature_sensitivity + 1e-12


def test_noise_from_public_inputs_and_exact_accounting():
    m = NoisyGD(2.0, 1e-6, 6, intervals=2, steps=5)
    assert m.clip_norm == pytest.approx(math.sqrt(8.0))
    assert m.sensitivity == pytest.approx(2 * math.sqrt(8.0) * math.sqrt(6))
    assert m.sigma == pytest.approx(analytic_gaussian_sigma(m.sensitivity, 2.0, 1e-6))
    event = m.event()  # the Gaussian event checks its claim against the exact profile
    assert (event.epsilon, event.delta) == (2.0, 1e-6)
    with pytest.raises(ValueError):  # less noise would not be (ε, δ)
        type(event)(m.sigma * 0.9, m.sensitivity, 2.0, 1e-6)


def test_converges_to_the_piecewise_exponential_fit_without_noise():
    rng = np.random.default_rng(3)
    n = 3000
    x = np.column_stack([rng.integers(0, 2, n), rng.uniform(20, 40, n)])
    rate = 0.02 * np.exp(-0.5 * x[:, 0] + 0.05 * (x[:, 1] - 30))
    t_event = rng.exponential(1 / rate)
    t = np.minimum(t_event, 52.0)
    e = (t_event <= 52.0).astype(float)
    bounds = {"arm": (0.0, 1.0), "age": (16.0, 50.0)}
    data = person_data(t, e, x, bounds, 52.0, 1)
    m = NoisyGD(1e9, 1e-6, 2, intervals=1, steps=20, share=float(e.mean()))
    beta = m.log_hazard_ratios(m.run(data, np.random.default_rng(0)), bounds)
    assert beta == pytest.approx([-0.5, 0.05], abs=0.12)
