"""The law of every OpenDP release: the noise users get has the calibrated scale.

Every release function is called as the pages call it; a spy on :meth:`dpcore.core.mechanisms.Noise.release` records
what each OpenDP draw was given and what it returned, so ``released − exact`` is the noise itself. Its scale is
compared with the scale written out *here* from the method documents (never read back from the code under test).

One scale check (:func:`check_scale`) is an exact two-sided binomial test of ``K = #{|Z| > t}`` at ``t`` = the
expected scale: ``K ~ Bin(N, p0)`` with ``p0 = P(|Z| > t)`` exact for the kind (Laplace ``e^{−1}``, Gaussian
``2Φ(−1)``, discrete Laplace ``2q^{⌊t⌋+1}/(1 + q)``, ``q = e^{−1/b}``). It fails with probability at most
``ALPHA = 10⁻⁶`` when the scale is right, whatever N; and the check itself asserts that N draws would miss a
halved scale with probability below 10⁻⁶ (computed from the binomial law at the halved scale). A test makes at
most 8 checks, so its false-alarm rate is below 10⁻⁵ (union bound). The seed-free OpenDP draws are independent
across elements and calls.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpcore import fdr
from dpcore.core import mechanisms as M
from dpcore import regression as R
from dpcore import sparse as sp
from dpcore import survival as sv
from dpcore.sparse.transfer import fixed_support_teacher, synthetic_features

ALPHA = 1e-6  # false alarm of one check (see the module docstring)
MISS = 1e-6  # largest allowed probability that a check misses a halved scale


def tail(kind: str, scale: float, t: float) -> float:
    """``P(|Z| > t)`` for noise of ``kind`` and ``scale`` (b, or σ for the Gaussian)."""
    if kind == "laplace":
        return math.exp(-t / scale)
    if kind == "gaussian":
        return 2.0 * stats.norm.sf(t / scale)
    q = math.exp(-1.0 / scale)
    return 2.0 * q ** (math.floor(t) + 1) / (1.0 + q)


def check_scale(noise, kind: str, scale) -> None:
    """Exact binomial test that ``noise`` has the law of ``kind`` at ``scale`` (per element; continuous kinds take
    an array of scales, one per element); see the module docstring for the error rates."""
    noise = np.asarray(noise, dtype=float).ravel()
    scale = np.broadcast_to(np.asarray(scale, dtype=float), noise.shape)
    if kind == "discrete_laplace":
        assert np.all(scale == scale[0])
        t, unit = float(scale[0]), float(scale[0])
        exceed = np.abs(noise) > t
    else:  # standardised: |Z|/scale > 1
        t, unit = 1.0, 1.0
        exceed = np.abs(noise) / scale > 1.0
    n = noise.size
    p0, p_half = tail(kind, unit, t), tail(kind, unit / 2.0, t)
    lo, hi = stats.binom.ppf(ALPHA / 2, n, p0), stats.binom.isf(ALPHA / 2, n, p0)
    miss = stats.binom.cdf(hi, n, p_half) - stats.binom.cdf(lo - 1, n, p_half)
    assert miss < MISS, f"{n} draws cannot resolve a halved scale (miss {miss:.2g})"
    k = int(exceed.sum())
    assert lo <= k <= hi, (f"{kind} noise: {k} of {n} draws beyond the expected scale, expected {n * p0:.1f} "
                           f"(accepted {lo:.0f}–{hi:.0f}; a halved scale gives {n * p_half:.1f})")


@pytest.fixture
def opendp(monkeypatch):
    """Every OpenDP draw made while the test runs: ``(kind, exact value, released value)`` in call order."""
    seen = []
    release = M.Noise.release

    def spy(self, value):
        out = release(self, value)
        seen.append((self.kind, np.asarray(value), np.asarray(out)))
        return out

    monkeypatch.setattr(M.Noise, "release", spy)
    return seen


def _noise(draw) -> np.ndarray:
    return (draw[2].astype(float) - draw[1].astype(float)).ravel()


def _zcdp_rho(epsilon: float, delta: float) -> float:
    """ρ with ρ + 2√(ρ ln(1/δ)) = ε (privacy.md; written out here, not read from dpcore)."""
    log_term = math.log(1.0 / delta)
    return (math.sqrt(log_term + epsilon) - math.sqrt(log_term)) ** 2


# ------------------------------------------------------------------ survival


@pytest.mark.parametrize("groups, statistic, sensitivity",
                         [(None, "histogram", 2), (("a", "b"), "histogram", 2), (("a", "b"), "matrix", 4)])
def test_survival_release_counts_have_scale_sensitivity_over_epsilon(opendp, groups, statistic, sensitivity):
    """survival.md and docs/survival.md: discrete Laplace of scale Δ1/ε on every released count: the default
    histogram (cells only) has Δ1 = 2 with or without groups; the paper's matrix (r_1 too) 2, or 4 with groups."""
    rng = np.random.default_rng(0)  # the data only; the noise is OpenDP's
    n, eps = 400, 1.0
    time, event = rng.uniform(0, 100, n), rng.integers(0, 2, n)
    group = rng.choice(["a", "b"], n) if groups else None
    grid = sv.make_grid(100.0, data_unit="days")
    exact = sv.count_matrix(time, event, grid, group=group, groups=groups, statistic=statistic).vector()
    first_cell = 1 if statistic == "matrix" else 0  # the matrix carries r_1 before the cells
    noise = []
    for _ in range(3):
        bundle = sv.release(time, event, grid=grid, epsilon=eps, group=group, groups=groups, band_draws=2,
                            statistic=statistic)
        assert [d[0] for d in opendp] == ["discrete_laplace"]  # one OpenDP draw of all released counts per release
        (_, value, out), = opendp
        np.testing.assert_array_equal(value, exact)
        unclipped = bundle.tables["counts_unclipped"]
        np.testing.assert_array_equal(unclipped["censored"], out[..., first_cell:].reshape(-1, 2)[:, 1])  # exported
        noise.append(_noise(opendp.pop()))
    check_scale(np.concatenate(noise), "discrete_laplace", sensitivity / eps)


@pytest.mark.parametrize("groups", [None, ("a", "b")])
def test_survival_gaussian_release_has_the_analytic_sigma_at_the_l2_sensitivity(opendp, groups):
    """docs/survival.md: the Gaussian survival release noises the histogram with the analytic σ for (ε, δ) at
    Δ2 = √2 (one person moves two cells by one, with or without groups); the bundle states δ and the noise."""
    rng = np.random.default_rng(1)
    n, eps, delta = 400, 1.0, 1e-6
    time, event = rng.uniform(0, 100, n), rng.integers(0, 2, n)
    group = rng.choice(["a", "b"], n) if groups else None
    grid = sv.make_grid(100.0, data_unit="days")
    exact = sv.count_matrix(time, event, grid, group=group, groups=groups).vector()
    noise = []
    for _ in range(3):
        bundle = sv.release(time, event, grid=grid, epsilon=eps, group=group, groups=groups, band_draws=2,
                            noise_kind="gaussian", delta=delta)
        assert [d[0] for d in opendp] == ["gaussian"]
        (_, value, _), = opendp
        np.testing.assert_array_equal(value, exact)
        assert bundle.delta == delta and bundle.public_params["noise_kind"] == "gaussian"
        assert bundle.public_params["sensitivity_l2"] == pytest.approx(math.sqrt(2.0))
        noise.append(_noise(opendp.pop()))
    check_scale(np.concatenate(noise), "gaussian", M.analytic_gaussian_sigma(math.sqrt(2.0), eps, delta))


@pytest.mark.parametrize("grouped, statistic, sensitivity",
                         [(False, "histogram", 2), (True, "histogram", 2), (True, "matrix", 4)])
def test_survival_one_call_releases_have_the_same_scales(opendp, grouped, statistic, sensitivity):
    """The one-call functions without ``rng`` (kaplan_meier; logrank for groups) release through OpenDP too."""
    rng = np.random.default_rng(5)
    n, eps = 400, 0.5
    time, event, group = rng.uniform(0, 100, n), rng.integers(0, 2, n), rng.choice(["a", "b"], n)
    grid = sv.make_grid(100.0, data_unit="days")
    for _ in range(3):
        if grouped:
            sv.logrank(time, event, group, grid=grid, epsilon=eps, groups=("a", "b"), statistic=statistic)
        else:
            sv.kaplan_meier(time, event, grid=grid, epsilon=eps, statistic=statistic)
    assert [d[0] for d in opendp] == ["discrete_laplace"] * 3
    check_scale(np.concatenate([_noise(d) for d in opendp]), "discrete_laplace", sensitivity / eps)


# ------------------------------------------------------------------ regression


def _regression_data(n=200, d=4, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, d))
    return X, np.clip(X @ rng.normal(size=d) + rng.normal(size=n), -6, 6)


def test_private_preparation_releases_have_their_scales(opendp):
    """regression.md: DP column means Σ(hi − lo)/(nε'), DP centre (hi − lo)/(nε'), DP MAD max(hi − c, c − lo)/(nε')
    around the released centre c, with ε' = ε/3 each; drawn through ``prepare(release=True)``."""
    X, y = _regression_data()
    (n, d), eps = X.shape, 0.6
    xb, yb = (-2.0, 2.0), (-6.0, 6.0)
    share = eps / 3
    cols, centre, mad, mad_scale = [], [], [], []
    for _ in range(400):  # one draw of each scalar per call: 400 draws resolve a halved Laplace scale
        prep = R.prepare(X, y, x_bounds=xb, y_bounds=yb, x_centre="dp", y_centre="dp", sigma_y="dp", epsilon=eps,
                         release=True)
        assert [k for k, _, _ in opendp] == ["laplace"] * 3
        col, mean, dev = (_noise(draw) for draw in opendp)
        c = prep.y_centre
        np.testing.assert_allclose(opendp[2][1], np.abs(y - c).mean())  # the MAD around the released centre
        cols.append(col)
        centre.append(mean)
        mad.append(dev)
        mad_scale.append(max(yb[1] - c, c - yb[0]) / (n * share))
        opendp.clear()
    check_scale(np.concatenate(cols), "laplace", d * (xb[1] - xb[0]) / (n * share))
    check_scale(np.concatenate(centre), "laplace", (yb[1] - yb[0]) / (n * share))
    check_scale(np.concatenate(mad), "laplace", np.array(mad_scale))


def test_robust_private_lr_release_has_the_three_scales(opendp):
    """regression.md: Laplace on nxx (upper triangle), nxy, nyy with Δ1 = d(d+1)Bx², 2dBxBy, By² at p_i ε."""
    X, y = _regression_data(d=6)
    d = X.shape[1]
    eps, wx, wy = 2.0, 0.8, 1.2
    prep = R.prepare(X, y, x_bounds=(-2.0, 2.0), y_bounds=(-6.0, 6.0), x_centre="public", y_centre="public",
                     sigma_y="public")
    bx, by = wx / math.sqrt(d), wy * 12.0 / 6.0  # ωx/√d; ωy·(public range / 6)
    p1, p2, p3 = R.DEFAULT_SPLIT
    draws = {"nxx": [], "nxy": [], "nyy": []}
    for _ in range(400):
        bundle = R.release(X, y, prep=prep, epsilon=eps, omega_x=wx, omega_y=wy, public=None)
        assert [k for k, _, _ in opendp] == ["laplace"] * 3
        for name, draw in zip(draws, opendp):
            draws[name].append(_noise(draw))
        assert float(bundle.tables["noisy_nyy"]["value"][0]) == pytest.approx(float(opendp[2][2]))
        opendp.clear()
    check_scale(np.concatenate(draws["nxx"]), "laplace", d * (d + 1) * bx**2 / (p1 * eps))
    check_scale(np.concatenate(draws["nxy"]), "laplace", 2 * d * bx * by / (p2 * eps))
    check_scale(np.concatenate(draws["nyy"]), "laplace", by**2 / (p3 * eps))


def test_adassp_release_has_the_three_gaussian_scales(opendp):
    """regression.md: analytic Gaussian σ for Δ2 = 1 (λ_min), √2 (XᵀX), 2By (Xᵀy) at (p_i ε, p_i δ)."""
    X, y = _regression_data(d=3)
    eps, delta = 1.0, 1e-4
    prep = R.prepare(X, y, x_bounds=(-2.0, 2.0), y_bounds=(-6.0, 6.0), x_centre="public", y_centre="public",
                     sigma_y="public")
    draws = [[], [], []]
    for _ in range(300):
        bundle = R.release_adassp(X, y, prep=prep, epsilon=eps, delta=delta, public=None)
        assert [k for k, _, _ in opendp] == ["gaussian"] * 3
        for store, draw in zip(draws, opendp):
            store.append(_noise(draw))
        opendp.clear()
    by = bundle.metadata()["derived_from_dp_outputs"]["By"]
    assert by == pytest.approx(min(2.0 * 2.0, 6.0))  # ωy σy = 2 · 12/6, below the public worst case 6
    for store, sens, share in zip(draws, (1.0, math.sqrt(2.0), 2.0 * by), R.ADASSP_SPLIT):
        check_scale(np.concatenate(store), "gaussian", M.analytic_gaussian_sigma(sens, share * eps, share * delta))


# ------------------------------------------------------------------ sparse


def _peel_data(n: int, d: int, carriers: int):
    """Feature 1 carried by ``carriers`` records (x = K = 1, y = r = 1), every other record zero: the scores are
    exactly ``carriers/n`` for feature 1 and 0 for the rest."""
    X, y = np.zeros((n, d)), np.zeros(n)
    X[:carriers, 0], y[:carriers] = 1.0, 1.0
    return X, y


def test_peeling_release_selection_and_fit_have_their_scales(opendp):
    """sparse.md: Gumbel top-s with β = Δ∞·√(s/(2ρ_sel)), Δ∞ = 2Kr/n; ZᵀZ and Zᵀy Gaussian with
    σ = Δ2/√(2·ρ_fit/2), Δ2 = √2·z², 2r·z (z² = 1 + sK²); ρ split half and half.

    Selection: with scores (g, 0, …, 0) over d features the first peeled is feature 1 with probability
    ``e^{g/β}/(e^{g/β} + d − 1)`` (Gumbel-max), tested with the same exact binomial test (its miss at β/2 is
    computed and asserted in :func:`_check_probability`)."""
    n, d, s, eps, delta = 1000, 20, 1, 1.0, 1e-6
    rho = _zcdp_rho(eps, delta)
    beta = (2.0 / n) * math.sqrt(s / (2 * rho / 2))
    carriers = round(3 * beta * n)  # g/β ≈ 3
    X, y = _peel_data(n, d, carriers)
    first, gram, moment = [], [], []
    runs = 150
    for _ in range(runs):
        bundle = sp.release_sparse(X, y, sparsity=s, epsilon=eps, delta=delta, K=1.0, r=1.0)
        coef = bundle.tables["coefficients"]
        first.append(int(coef.loc[coef["peeled"] == 1, "index"].iloc[0]))
        assert [k for k, _, _ in opendp] == ["gaussian"] * 2
        gram.append(_noise(opendp[0]))
        moment.append(_noise(opendp[1]))
        opendp.clear()
    z2 = 1.0 + s
    check_scale(np.concatenate(gram), "gaussian", math.sqrt(2.0) * z2 / math.sqrt(rho / 2))
    check_scale(np.concatenate(moment), "gaussian", 2.0 * math.sqrt(z2) / math.sqrt(rho / 2))
    g = carriers / n

    def p_first(b):
        return math.exp(g / b) / (math.exp(g / b) + d - 1)

    _check_probability(sum(j == 0 for j in first), runs, p_first(beta), p_first(beta / 2))


def _check_probability(k: int, n: int, p0: float, p_bug: float) -> None:
    lo, hi = stats.binom.ppf(ALPHA / 2, n, p0), stats.binom.isf(ALPHA / 2, n, p0)
    assert stats.binom.cdf(hi, n, p_bug) - stats.binom.cdf(lo - 1, n, p_bug) < MISS
    assert lo <= k <= hi, (f"{k} of {n}, expected {n * p0:.1f} (accepted {lo:.0f}–{hi:.0f}; "
                           f"the bug gives {n * p_bug:.1f})")


def test_peeling_logistic_release_gradients_have_their_scale(opendp):
    """sparse.md: T noisy gradient steps, Gaussian σ = (2z/n)/√(2·ρ_fit/T) on each mean gradient."""
    n, d, s, eps, delta, steps = 1000, 5, 1, 2.0, 1e-6, 10
    X, y = _peel_data(n, d, 100)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    grads = []
    for _ in range(15):
        sp.release_sparse(X, y, sparsity=s, epsilon=eps, delta=delta, loss="logistic", K=1.0, fit_T=steps)
        assert [k for k, _, _ in opendp] == ["gaussian"] * steps
        grads.extend(_noise(draw) for draw in opendp)
        opendp.clear()
    rho_fit = _zcdp_rho(eps, delta) / 2
    check_scale(np.concatenate(grads), "gaussian", (2.0 * math.sqrt(1.0 + s) / n) / math.sqrt(2 * rho_fit / steps))


def test_kt_private_support_release_has_its_vote_and_response_scales(opendp):
    """sparse.md: Laplace 2s/(kε1) on the votes of k = ⌊√n⌋ blocks; Gaussian with the analytic σ at (ε2, δ) for
    Δ2 = ‖X̃_S‖op·(2√s·γ/(nλ) + 2·opt_error) on the m synthetic responses; ε1 = ε2 = ε/2."""
    data = sp.make_synthetic(900, 60, 2, noise=0.1, rng=np.random.default_rng(3))
    eps, delta, s = 2.0, 1e-5, 2
    k = math.isqrt(900)
    votes, responses, sigmas = [], [], []
    for _ in range(8):
        bundle = sp.release_sparse(data.X, data.y, sparsity=s, epsilon=eps, delta=delta, B=5.0,
                                   variant="private_support")
        assert [kind for kind, _, _ in opendp] == ["laplace", "gaussian"]
        votes.append(_noise(opendp[0]))
        responses.append(_noise(opendp[1]))
        public = bundle.public_params
        S = np.sort(bundle.tables["coefficients"]["index"].to_numpy())
        p = sp.SparseParams(B=5.0)
        Xc, yc = sp.prepare(data.X, data.y, "linear", p)
        Xs = synthetic_features(public["m"], 60, p.K, public["synthetic_seed"])[:, S].astype(float)
        _, opt_err = fixed_support_teacher(Xc[:, S][None], yc, public["lambda"], "linear", p)
        gamma = p.K * (p.K * 5.0 + p.r)
        sens = np.linalg.norm(Xs, 2) * (2 * math.sqrt(s) * gamma / (900 * public["lambda"]) + 2 * float(opt_err[0]))
        sigmas.append(np.full(public["m"], M.analytic_gaussian_sigma(sens, eps / 2, delta)))
        opendp.clear()
    check_scale(np.concatenate(votes), "laplace", 2 * s / (k * eps / 2))
    check_scale(np.concatenate(responses), "gaussian", np.concatenate(sigmas))


# ------------------------------------------------------------------ PAPRIKA


def test_paprika_release_draws_both_noises_at_their_scales(opendp):
    """fdr.md: threshold noise Lap(2ηc/ε) (c + 1 values, one per segment) and per-test noise Lap(4ηc/ε)."""
    T, c, eps, eta = 2000, 400, 1.0, 0.05
    p = np.random.default_rng(4).uniform(size=T)
    zalpha, ztest = [], []
    for _ in range(2):
        bundle = fdr.release(p, alpha=0.1, epsilon=eps, delta=1e-3, sensitivity=fdr.stated_sensitivity(eta),
                             cutoff=c)
        assert isinstance(bundle.tables["rejections"], pd.DataFrame)
        (ka, va, a), (kt, vt, t) = opendp
        assert (ka, kt, va.shape, vt.shape) == ("laplace", "laplace", (1, c + 1), (1, T))
        zalpha.append(a - va)
        ztest.append(t - vt)
        opendp.clear()
    check_scale(np.concatenate(zalpha, axis=None), "laplace", 2 * eta * c / eps)
    check_scale(np.concatenate(ztest, axis=None), "laplace", 4 * eta * c / eps)


def test_paprika_one_call_without_rng_releases_both_noises_at_their_scales(opendp):
    """``fdr.paprika`` without ``rng`` draws from OpenDP (its release path), at the same two scales."""
    T, c, eps, eta = 1000, 500, 2.0, 0.02
    p = np.random.default_rng(6).uniform(size=T)
    fdr.paprika(p, alpha=0.1, epsilon=eps, delta=1e-3, eta=eta, cutoff=c)
    (_, va, a), (_, vt, t) = opendp
    assert (va.shape, vt.shape) == ((1, c + 1), (1, T))
    check_scale(a - va, "laplace", 2 * eta * c / eps)
    check_scale(t - vt, "laplace", 4 * eta * c / eps)
