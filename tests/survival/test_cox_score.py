"""Method C (the padded score one step from 0, the information from cheap releases): the sensitivities of its three
parts on adversarial and hill-climbed neighbours, noise from public inputs only, the black-box audit with a planted
bug, and the fitter's method switch (A stays the default and unchanged).

Randomised checks are seeded (deterministic); the one that is not (the OpenDP release path) runs at confidence
1 − 10⁻⁵, so its false-alarm rate is below 10⁻⁴."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from lifelines import datasets

from dpcore.accounting.events import Gaussian, Laplace
from dpcore.core.validation import InputError
from dpcore.survival.cox import DPCoxPHFitter
from dpcore.survival.cox_audit import audit_scenarios, score_audit_scenarios
from dpcore.survival.cox_score import (
    PaddedScore,
    covariance_bound,
    cut_at_horizon,
    design,
    exact_information,
    padded_bound,
    padded_score,
    statistics,
)

HORIZON = 20.0


def harmonic(n: int) -> float:
    return float(np.sum(1.0 / np.arange(1, n + 1)))


# ---- the bound itself ------------------------------------------------------------------------------------------


def test_padded_bound_is_the_theorem_s_closed_form():
    assert padded_bound(3, 1) == pytest.approx(1.5) and padded_bound(4, 1) == pytest.approx(11 / 6)  # H_{n−1}
    assert padded_bound(432, 1) == pytest.approx(6.644, abs=1e-3)
    assert padded_bound(432, 216) == pytest.approx(2.685, abs=1e-3)  # cox.md §2
    for n in (5, 12, 100, 1151):
        for M in (2, 3, n // 4, n // 2, n):
            closed = 2 - 1 / n - 1 / M + harmonic(n) - harmonic(M)
            assert padded_bound(n, M) == pytest.approx(closed, rel=1e-12)
    assert covariance_bound(10) == pytest.approx(9 / 100)


# ---- sensitivity on adversarial neighbours ---------------------------------------------------------------------


def parts(time, event, x, M, c):
    t, e = cut_at_horizon(time, event, HORIZON)
    s = statistics(t, e, np.clip(x, 0.0, 1.0), M, c)
    return s.score, s.events, s.cov


def adversarial_records(P: int) -> list[tuple[float, float, np.ndarray]]:
    """A record that touches every event time (censored after everyone), first events at the corners, the last
    event at a risk set of one, out-of-box values, a tie with everyone, an event after the horizon."""
    hi, lo, mid = np.ones(P), np.zeros(P), np.full(P, 0.5)
    alt = np.arange(P) % 2.0
    return [(0.01, 1.0, hi), (0.01, 1.0, lo), (1e4, 0.0, hi), (1e4, 0.0, lo), (19.99, 1.0, hi), (19.99, 1.0, lo),
            (0.01, 1.0, alt), (1e4, 0.0, 1 - alt), (5.0, 1.0, np.full(P, 7.0)), (5.0, 1.0, np.full(P, -3.0)),
            (3.0, 1.0, mid), (30.0, 1.0, hi), (0.0, 0.0, lo)]


def base_cohorts(P: int, rng: np.random.Generator):
    n = 11
    yield np.arange(1.0, n + 1), np.ones(n), np.zeros((n, P))  # Theorem 1's worst base: all events at lo
    yield np.arange(1.0, n + 1), np.ones(n), np.ones((n, P))
    yield np.full(n, 3.0), np.ones(n), rng.random((n, P))  # everyone tied
    for _ in range(3):
        yield rng.uniform(0, 25, n), (rng.random(n) < 0.7).astype(float), rng.random((n, P))


@pytest.mark.parametrize("P", [1, 3])
@pytest.mark.parametrize("M", [1, 3, 6, 12, 14])
@pytest.mark.parametrize("corner", [0.0, 0.5, 1.0])
def test_every_part_stays_within_its_bound_on_adversarial_pairs(P, M, corner):
    rng = np.random.default_rng(P * 100 + M)
    c = np.full(P, corner)
    worst = np.zeros(3)
    for time, event, x in base_cohorts(P, rng):
        n = time.size + 1
        bound = np.array([padded_bound(n, M), 1.0, covariance_bound(n)])
        records = adversarial_records(P)
        for i, (tp, ep, xp) in enumerate(records):
            for tq, eq, xq in records[i + 1:]:
                a = parts(np.append(time, tp), np.append(event, ep), np.vstack([x, xp]), M, c)
                b = parts(np.append(time, tq), np.append(event, eq), np.vstack([x, xq]), M, c)
                moved = np.array([np.abs(a[0] - b[0]).max(), abs(a[1] - b[1]), np.abs(a[2] - b[2]).max()])
                worst = np.maximum(worst, moved / bound)
    assert np.all(worst <= 1.0 + 1e-12), worst
    assert worst[1] == 1.0 and worst[2] > 0.5  # the pairs reach the bounds: a smaller bound would fail
    if corner != 0.5 or M <= 1:
        assert worst[0] > 0.85


def test_the_worst_pair_attains_the_score_bound_with_c_at_a_corner():
    """cox.md Theorem 2's construction: n − 1 events at lo at distinct times, p the first event at hi against p
    censored after everyone at hi; equality with c at the lower corner (a strict bound would be caught)."""
    n, M = 40, 10
    t = np.linspace(1.0, 19.0, n - 1)  # events before the horizon
    a = parts(np.append(t, 0.5), np.append(np.ones(n - 1), 1), np.vstack([np.zeros((n - 1, 1)), [[1.0]]]), M,
              np.zeros(1))
    b = parts(np.append(t, 1e4), np.append(np.ones(n - 1), 0), np.vstack([np.zeros((n - 1, 1)), [[1.0]]]), M,
              np.zeros(1))
    assert abs(a[0][0] - b[0][0]) == pytest.approx(padded_bound(n, M), rel=1e-9)


@pytest.mark.parametrize("n", [3, 4, 6, 8])
def test_hill_climbed_pairs_stay_within_the_bounds(n):
    """Random restarts + coordinate moves on (times, events, covariates, the replaced record), maximising the
    score's change over the bound; corners and ties are in the move set."""
    rng = np.random.default_rng(n)
    P, best = 2, 0.0
    for restart in range(12):
        M = [1, 2, n // 2 + 1, n, n + 2][restart % 5]
        c = rng.choice([0.0, 0.5, 1.0], P)
        bound = padded_bound(n, M)
        t = rng.choice([1.0, 2.0, 3.0, 4.0, 30.0], n)
        e = rng.integers(0, 2, n).astype(float)
        x = rng.choice([0.0, 1.0], (n, P))
        tq, eq, xq = 30.0, 0.0, rng.choice([0.0, 1.0], P)

        def ratio(t, e, x, tq, eq, xq, M=M, c=c, bound=bound):
            a = parts(t, e, x, M, c)[0]
            b = parts(np.append(t[:-1], tq), np.append(e[:-1], eq), np.vstack([x[:-1], xq]), M, c)[0]
            return np.abs(a - b).max() / bound

        current = ratio(t, e, x, tq, eq, xq)
        for _ in range(150):
            t2, e2, x2, tq2, eq2, xq2 = t.copy(), e.copy(), x.copy(), tq, eq, xq.copy()
            k = int(rng.integers(n + 1))
            if k == n:
                tq2, eq2, xq2 = rng.choice([0.5, 1.0, 2.5, 30.0]), float(rng.integers(2)), rng.choice([0.0, 1.0], P)
            else:
                t2[k], e2[k], x2[k] = rng.choice([0.5, 1.0, 2.0, 3.0, 4.0, 30.0]), float(rng.integers(2)), \
                    rng.choice([0.0, 0.5, 1.0], P)
            r = ratio(t2, e2, x2, tq2, eq2, xq2)
            if r >= current:
                t, e, x, tq, eq, xq, current = t2, e2, x2, tq2, eq2, xq2, r
        best = max(best, current)
    assert best <= 1.0 + 1e-12
    assert best > 0.8  # the climb gets near the bound, so a bound too small would be caught


def test_padded_score_without_padding_is_the_cox_score_and_the_information_is_breslow():
    """M ≤ 1 gives Σ_events (x_i − risk-set mean), checked by a loop; the information likewise."""
    rng = np.random.default_rng(2)
    t = rng.integers(1, 8, 30).astype(float)
    e = (rng.random(30) < 0.6).astype(float)
    x = rng.random((30, 2))
    u, info = np.zeros(2), np.zeros((2, 2))
    for i in np.flatnonzero(e):
        risk = x[t >= t[i]]
        u += x[i] - risk.mean(0)
        info += np.cov(risk.T, bias=True)
    assert padded_score(t, e, x, 1, np.zeros(2)) == pytest.approx(u)
    assert exact_information(t, e, x) == pytest.approx(info)


# ---- noise from public inputs only, composition ----------------------------------------------------------------


def test_noise_reads_public_inputs_only_and_composes_to_the_budget():
    m = design(432, {"fin": (0, 1), "age": (16, 50), "prio": (0, 20)}, epsilon=2.0, primary="fin")
    assert m.padding == 108 and m.weights().sum() == pytest.approx(1.0) and m.weights()[0] == 0.5
    l1, _ = m.sensitivities()
    assert l1[:3] == pytest.approx(padded_bound(432, 108)) and l1[3] == 1.0
    assert l1[4] == pytest.approx(6 * 431 / 432**2)
    events = m.events()
    assert all(isinstance(ev, Laplace) for ev in events)
    assert math.fsum(ev.basic()[0] for ev in events) == pytest.approx(2.0)
    g = design(432, {"fin": (0, 1), "age": (16, 50)}, epsilon=2.0, delta=1e-6, primary="fin")
    (event,) = g.events()
    assert isinstance(event, Gaussian) and (event.epsilon, event.delta) == (2.0, 1e-6)
    # the stacked, normalised release has unit sensitivity and σ₁ on every coordinate
    _, l2 = g.sensitivities()
    assert np.sqrt(np.sum((l2 / (g.scales() / g.unit_sigma)) ** 2)) == pytest.approx(1.0)
    with pytest.raises(ValueError):  # less noise would not be (ε, δ)
        Gaussian(event.sigma * 0.9, 1.0, 2.0, 1e-6)
    # two data sets of the same n: the same scales (nothing read off the data)
    rossi = datasets.load_rossi()
    b = {"fin": (0, 1), "age": (16, 50)}
    f1 = DPCoxPHFitter(2.0, bounds=b, horizon=52, method="score").fit(rossi, "week", "arrest",
                                                                      rng=np.random.default_rng(0))
    other = rossi.assign(age=rossi.age[::-1].to_numpy(), week=52 - rossi.week + 1)
    f2 = DPCoxPHFitter(2.0, bounds=b, horizon=52, method="score").fit(other, "week", "arrest",
                                                                      rng=np.random.default_rng(0))
    assert f1._alternative.mechanism_.scales() == pytest.approx(f2._alternative.mechanism_.scales())


def test_preview_noise_has_the_claimed_scale():
    """20,000 seeded previews: each part's empirical sd within 7 % of the claimed Laplace sd (the sample sd's relative
    SE is √(5/4N) = 0.8 %, so 7 % is ~9 SE: a false alarm below 1e-4 even unseeded; halved noise is 50 % off)."""
    m = design(200, {"a": (0, 1), "b": (0, 10)}, epsilon=1.0, primary="a")
    t, e = cut_at_horizon(np.linspace(1, 30, 200), np.ones(200), HORIZON)
    rng = np.random.default_rng(1)
    s = statistics(t, e, rng.random((200, 2)), m.padding, m.pseudo)
    r = m.release(s, np.random.default_rng(4), draws=20_000)
    sd = np.concatenate([r.score.std(0), [r.events.std()], [r.cov[:, 0, 0].std(), r.cov[:, 0, 1].std()]])
    claimed = math.sqrt(2) * np.concatenate([m.scales()[:2], [m.scales()[2]], [m.scales()[3]] * 2])
    assert sd / claimed == pytest.approx(np.ones(5), abs=0.07)


def test_release_noise_has_the_claimed_scale():
    """The OpenDP path the fitter uses without a seed: 2,000 unseeded releases, each part's empirical sd within 25 %
    of the claimed Laplace sd (the sample sd's relative SE is √(5/4N) = 2.5 %, so 25 % is ~10 SE: a false alarm
    far below 1e-4); noise halved in the release path alone is 50 % off."""
    m = design(200, {"a": (0, 1), "b": (0, 10)}, epsilon=1.0, primary="a")
    t, e = cut_at_horizon(np.linspace(1, 30, 200), np.ones(200), HORIZON)
    s = statistics(t, e, np.random.default_rng(1).random((200, 2)), m.padding, m.pseudo)
    releases = [m.release(s, None) for _ in range(2_000)]
    sd = np.array([np.std([r.score[0] for r in releases]), np.std([r.score[1] for r in releases]),
                   np.std([r.events for r in releases]), np.std([r.cov[0, 0] for r in releases])])
    claimed = math.sqrt(2) * np.asarray(m.scales()[:4])
    assert sd / claimed == pytest.approx(np.ones(4), abs=0.25)


# ---- black-box audit -------------------------------------------------------------------------------------------


def test_audit_passes_the_release_and_catches_halved_noise():
    """Preview path, 200,000 runs, 99 % confidence, seeded (deterministic)."""
    (scenario,) = score_audit_scenarios(1.0)
    assert scenario in audit_scenarios(1.0) or any(s.name == scenario.name for s in audit_scenarios(1.0))
    good, _, _ = scenario.run(200_000, seed=3)
    assert not good.violation, good.describe()
    bad, _, _ = scenario.run(200_000, planted_bug=True, seed=3)
    assert bad.violation, bad.describe()


def test_audit_on_the_opendp_release_path():
    """OpenDP draws are not seeded: confidence 1 − 10⁻⁵ keeps a false alarm below 1e-4."""
    (scenario,) = score_audit_scenarios(1.0)
    good, _, _ = scenario.run(40_000, path="release", confidence=1 - 1e-5)
    assert not good.violation, good.describe()
    bad, _, _ = scenario.run(40_000, planted_bug=True, path="release", confidence=1 - 1e-5)
    assert bad.violation, bad.describe()


# ---- the fitter's method switch --------------------------------------------------------------------------------


def test_method_a_stays_the_default_with_the_same_numbers():
    rossi = datasets.load_rossi()
    kw = {"epsilon": 2.0, "bounds": {"fin": (0, 1), "race": (0, 1)}, "horizon": 52}
    default = DPCoxPHFitter(**kw).fit(rossi, "week", "arrest", rng=np.random.default_rng(9)).summary
    named = DPCoxPHFitter(**kw, method="histogram").fit(rossi, "week", "arrest", rng=np.random.default_rng(9)).summary
    pd.testing.assert_frame_equal(default, named)
    assert DPCoxPHFitter(**kw).method == "histogram"
    with pytest.raises(InputError, match="method"):
        DPCoxPHFitter(**kw, method="newton")


@pytest.mark.parametrize("method", ["score", "gradient"])
def test_methods_b_and_c_are_one_argument_away(method):
    rossi = datasets.load_rossi()
    bounds = {"age": (16, 50), "fin": (0, 1), "prio": (0, 20)}
    f = DPCoxPHFitter(5.0, delta=1e-6 if method == "gradient" else 0.0, bounds=bounds, horizon=52, primary="fin",
                      method=method, expected_event_share=0.25)
    f.fit(rossi, "week", "arrest", rng=np.random.default_rng(0))
    s = f.summary
    assert list(s.index) == ["fin", "age", "prio"]  # the primary first
    assert np.all(np.isfinite(s[["coef", "se(coef)", "p"]].to_numpy()))
    assert (s["coef lower 95%"] < s["coef"]).all() and (s["coef"] < s["coef upper 95%"]).all()
    sims = f.simulate(rossi, "week", "arrest", draws=7, rng=np.random.default_rng(1))
    assert sims.coef.shape == (7, 3)
    assert f.public_params()["n"] == 432
    with pytest.raises(InputError, match="measured"):
        f.release_bundle()
    with pytest.raises(InputError, match="histogram"):
        f.proportional_hazards_check()


def test_score_fit_without_noise_is_the_one_step_and_near_cox_on_rossi():
    """ε huge: the one-step β̂ = (D·Σ₀)⁻¹ U*(0) at the default padding M = 108 with c from the design (fin: 0.5);
    on rossi it stays within 0.5 lifelines SE of Cox for fin, the primary."""
    from lifelines import CoxPHFitter

    rossi = datasets.load_rossi()
    bounds = {"fin": (0, 1), "age": (16, 50), "prio": (0, 20)}
    f = DPCoxPHFitter(1e9, bounds=bounds, horizon=52, method="score", pseudo={"fin": 0.5})
    f.fit(rossi, "week", "arrest", rng=np.random.default_rng(0))
    ref = CoxPHFitter().fit(rossi[["week", "arrest", *bounds]], "week", "arrest").summary
    assert abs(f.summary.loc["fin", "coef"] - ref.loc["fin", "coef"]) < 0.5 * ref.loc["fin", "se(coef)"]
    assert f.summary.loc["fin", "se privacy"] < 1e-6


def test_inputs_are_refused_with_a_reason():
    with pytest.raises(InputError, match="horizon"):
        DPCoxPHFitter(1.0, bounds={"a": (0, 1)}, method="score")
    with pytest.raises(InputError, match="strata"):
        DPCoxPHFitter(1.0, bounds={"a": (0, 1)}, horizon=5, strata={"s": ("x", "y")}, method="score")
    with pytest.raises(InputError, match="range"):
        DPCoxPHFitter(1.0, bounds={"a": (1, 1)}, horizon=5, method="score")
    with pytest.raises(InputError):
        PaddedScore(0.0, 0.0, 10, 1, 2, np.zeros(1))
