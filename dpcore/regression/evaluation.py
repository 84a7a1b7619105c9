"""Monte-Carlo cross-validation of the five models, utility over ε, equivalent sample size.

Noise uses common random numbers across ε (one standard draw per repeat,
scaled by each ε's calibration), so curves over ε are smooth while each ε's
distribution is exactly the mechanism's. Repeats are independent random splits of the records into a test set, a
small non-private training set and a private pool (nested private training
sets of the requested sizes are prefixes of the pool). Everything is batched
over repeats and ε; the only Python loop is over the private sizes (their
arrays have different shapes) — and over nothing else.

Each repeat simulates the whole private pipeline, including the charged
preparation: with ``y_centre="dp"`` / ``sigma_y="dp"`` a share
``prep_share`` of ε pays for the DP mean and scale of the private training
responses, and the rest is split p1:p2:p3 between the statistics.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from dpcore.core.utility import UtilityCurve
from dpcore.regression.adassp import ADASSP, AdaSSPNoise, adassp, adassp_features, adassp_noise, adassp_omega_y, solve_adassp
from dpcore.regression.baselines import functional_mechanism_coef, output_perturbation_coef
from dpcore.regression.linalg import (
    DEFAULT_PREP_SHARE, DEFAULT_SPLIT, METHOD, MODELS, _split, r2_rmse, spearman, triu_pack, triu_unpack,
)
from dpcore.regression.mechanism import StatNoise, stat_noise
from dpcore.regression.posterior import fit_stats, noise_ridge
from dpcore.regression.preparation import (
    Preparation, feature_bounds, mad_sensitivity, mean_sensitivity, normalise_rows, prepare, sigma_from_noisy_mad,
)
from dpcore.regression.statistic import Stats, prediction_features, sensitivities, sufficient_stats
from dpcore.regression.tuning import threshold_search

OmegaFn = Callable[[int, int, float, tuple], tuple[float, float]]


@functools.lru_cache(maxsize=256)
def tuned_omegas(n: int, d: int, epsilon: float, split: tuple, n_sets: int = 20, n_draws: int = 20) -> tuple[float, float]:
    """``(ωx, ωy)`` from the free synthetic search (cached by public inputs only)."""
    res = threshold_search(n, d, epsilon=epsilon, split=split, n_sets=n_sets, n_draws=n_draws)
    return res.omega_x, res.omega_y


@dataclass(frozen=True)
class CVResult:
    """``rho`` and ``mse`` of shape (models, sizes, ε, repeats); ``omegas`` (sizes, ε, 2) used."""

    models: tuple[str, ...]
    sizes: np.ndarray
    epsilons: np.ndarray
    rho: np.ndarray
    mse: np.ndarray
    omegas: np.ndarray
    n_test: int
    n_nonprivate: int
    prep: str

    var_test: np.ndarray  # (repeats,) variance of each repeat's held-out responses (for R²)

    def model(self, name: str) -> int:
        return self.models.index(name)

    @property
    def r2(self) -> np.ndarray:
        """Held-out R² = 1 − MSE / var(test responses), same shape as ``mse``."""
        return 1.0 - self.mse / self.var_test

    @property
    def rmse(self) -> np.ndarray:
        return np.sqrt(self.mse)

    def table(self):
        """Long table: model, size, ε, mean and s.d. of ρ and MSE over repeats."""
        rows = []
        for m, name in enumerate(self.models):
            for s, size in enumerate(self.sizes):
                for e, eps in enumerate(self.epsilons):
                    r, q = self.rho[m, s, e], self.mse[m, s, e]
                    rows.append({"model": name, "n_private": int(size), "epsilon": float(eps),
                                 "rho_mean": float(np.mean(r)), "rho_sd": float(np.std(r)),
                                 "mse_mean": float(np.mean(q)), "r2_median": float(np.median(self.r2[m, s, e])),
                                 "rmse_median": float(np.median(self.rmse[m, s, e])), "repeats": int(r.size)})
        return pd.DataFrame(rows)


def _prep_y(y, bounds, centre, sigma, eps_prep, rng, shape_e):
    """Per-(repeat, ε) centre and σy: public values broadcast, or DP estimates (vectorised)."""
    R, m = y.shape
    lo, hi = bounds
    n_dp = int(centre == "dp") + int(sigma == "dp")
    share = eps_prep / max(n_dp, 1)  # (E,)
    yc = np.clip(y, lo, hi)
    if centre == "dp":
        c = yc.mean(axis=1)[:, None] + rng.laplace(size=(R, 1)) * (mean_sensitivity(bounds, m) / share)[None, :]
        c = np.clip(c, lo, hi)
    else:
        c = np.full((R, shape_e), 0.5 * (lo + hi) if centre == "public" else float(centre))
    if sigma == "dp":
        scale = mad_sensitivity(c, bounds, m) / share
        mad = np.abs(yc[:, None, :] - c[..., None]).mean(-1) + rng.laplace(size=(R, 1)) * scale
        sy = sigma_from_noisy_mad(mad, scale, bounds)
    else:
        sy = np.full((R, shape_e), (hi - lo) / 6.0 if sigma == "public" else float(sigma))
    return c, sy


def _xx_scale(d: int, bx: np.ndarray, eps_stat: np.ndarray, split) -> np.ndarray:
    """The Laplace scale of the noise on ``nxx`` per ε (clipping at ``bx``, its share ``split[0]`` of ``eps_stat``)."""
    return sensitivities(d, 1.0, 1.0)[0] * bx**2 / (split[0] * eps_stat)


def _noisy_stats(Xp, yp, bx, by, eps_stat, split, rng, public=None):
    """Clipped statistics of (R, E) batches plus Laplace noise at p_i ε (preview draws)."""
    p1, p2, p3 = split
    d = Xp.shape[-1]
    Xc = np.clip(Xp[:, None], -bx[None, :, None, None], bx[None, :, None, None])  # (R, E, m, d)
    yc = np.clip(yp, -by[..., None], by[..., None])  # (R, E, m)
    nxx = np.swapaxes(Xc, -1, -2) @ Xc
    nxy = np.einsum("remi,rem->rei", Xc, yc)
    nyy = (yc * yc).sum(-1)
    _, s2, s3 = sensitivities(d, 1.0, 1.0)
    R, E = yc.shape[:2]
    iu = np.triu_indices(d)
    # common random numbers over ε: one standard Laplace draw per repeat, scaled per ε (smoother curves;
    # each ε's marginal distribution is unchanged)
    lap = rng.laplace(size=(R, 1, iu[0].size)) * _xx_scale(d, bx, eps_stat, split)[None, :, None]
    noise = np.zeros((R, E, d, d))
    noise[..., iu[0], iu[1]] = lap
    noise[..., iu[1], iu[0]] = lap
    nxx = nxx + noise
    nxy = nxy + rng.laplace(size=(R, 1, d)) * (s2 * bx[None, :, None] * by[..., None] / (p2 * eps_stat[None, :, None]))
    nyy = nyy + rng.laplace(size=(R, 1)) * (s3 * by**2 / (p3 * eps_stat[None, :]))
    n = Xp.shape[1]
    if public is not None:
        X0, y0 = public  # (R, k, d), (R, E, k)
        X0c = np.clip(X0[:, None], -bx[None, :, None, None], bx[None, :, None, None])
        y0c = np.clip(y0, -by[..., None], by[..., None])
        nxx = nxx + np.swapaxes(X0c, -1, -2) @ X0c
        nxy = nxy + np.einsum("remi,rem->rei", X0c, y0c)
        nyy = nyy + (y0c * y0c).sum(-1)
        n += X0.shape[1]
    return Stats(nxx, nxy, nyy, n)


def _adassp_cv(Xp, yp, ybound, eps_stat, delta, rng, public=None) -> np.ndarray:
    """AdaSSP coefficients (R, E, d + 1) for (R, E) batches of prepared rows: per ε its Gaussian noise scales.
    ``ybound`` (R, E) is each repeat's response bound By."""
    R_, E = yp.shape[:2]
    Xa = adassp_features(Xp)  # (R, m, d + 1)
    d1 = Xa.shape[-1]
    yc = np.clip(yp, -ybound[..., None], ybound[..., None])  # (R, E, m)
    xx = np.swapaxes(Xa, -1, -2) @ Xa  # (R, d1, d1)
    xy = yc @ Xa  # (R, E, d1): a batched BLAS product (einsum here was 2–6× slower)
    if public is not None:
        X0, y0 = public
        X0a = adassp_features(X0)
        y0c = np.clip(y0, -ybound[..., None], ybound[..., None])
        xx0, xy0 = np.swapaxes(X0a, -1, -2) @ X0a, y0c @ X0a
    coefs = np.empty((R_, E, d1))
    iu = np.triu_indices(d1)
    z_lam, z_xx, z_xy = rng.standard_normal((R_,)), rng.standard_normal((R_, iu[0].size)), rng.standard_normal((R_, d1))
    lam_min = np.linalg.eigvalsh(xx)[..., 0]
    for e in range(E):  # E is a handful of ε; every repeat is batched
        noise = adassp_noise(1.0, float(eps_stat[e]), delta)  # σ for By = 1; Xᵀy's scales with each repeat's By
        n_xx = triu_unpack(triu_pack(xx) + z_xx * noise.xx.scale, d1)
        n_xy = xy[:, e] + z_xy * (noise.xy.scale * ybound[:, e])[:, None]
        n_lam = lam_min + z_lam * noise.lam_min.scale
        if public is not None:
            n_xx, n_xy = n_xx + xx0, n_xy + xy0[:, e]
        coefs[:, e] = solve_adassp(n_xx, n_xy, n_lam, noise, delta).coef
    return coefs


def monte_carlo_cv(
    X: np.ndarray,
    y: np.ndarray,
    *,
    epsilons: Sequence[float],
    sizes: Sequence[int],
    repeats: int = 10,
    n_test: int = 100,
    n_nonprivate: int = 10,
    public: tuple[np.ndarray, np.ndarray] | None = None,
    x_bounds=(0.0, 1.0),
    y_bounds: tuple[float, float],
    x_centre: float | str | None = "public",
    y_centre: str | float = "dp",
    sigma_y: str | float = "dp",
    prep_share: float = DEFAULT_PREP_SHARE,
    split: Sequence[float] = DEFAULT_SPLIT,
    priors: bool = True,
    omegas: OmegaFn | None = None,
    rng: np.random.Generator | int | None = None,
    progress: Callable[[float], None] | None = None,
    adassp_delta: float | None = None,
) -> CVResult:
    """Monte-Carlo CV of the five models (``MODELS``) over private sizes and ε.

    ``omegas(n, d, ε_stat, split) -> (ωx, ωy)`` chooses the thresholds
    (default: the cached free synthetic search, :func:`tuned_omegas`). With
    DP preparation, ε_stat = (1 − prep_share) ε; the baselines get the same
    DP centre and the full ``ε_stat`` too. The non-private model uses the
    exact training mean and no clipping. Output perturbation and the
    functional mechanism use the private training set only.

    Non-private training records: ``n_nonprivate`` rows drawn afresh from
    ``X`` in every repeat (the paper's experiment, a simulation), or
    ``public=(X0, y0)``, records declared public and kept apart from ``X``,
    added to every repeat (what a release with public rows does). Not both.
    AdaSSP is (ε_stat, δ)-DP with ``δ = adassp_delta`` (default ``1/n²`` for ``n`` private records).
    """
    p = _split(split)
    rng = np.random.default_rng(rng)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    N, d = X.shape
    sizes = np.asarray(sizes, dtype=int)
    eps = np.asarray(epsilons, dtype=float)
    if public is not None and n_nonprivate:
        raise ValueError("give either n_nonprivate (rows of X simulated as public) or public rows, not both")
    if sizes.max() + n_test + n_nonprivate > N:
        raise ValueError(f"need {sizes.max()} + {n_test} + {n_nonprivate} records, the data have {N}")
    uses_dp = y_centre == "dp" or sigma_y == "dp"
    eps_prep = eps * prep_share if uses_dp else np.zeros_like(eps)
    eps_stat = eps - eps_prep
    omegas = omegas or (lambda n, dd, e, sp: tuned_omegas(int(n), int(dd), float(e), tuple(sp)))
    xlo, xhi = feature_bounds(x_bounds, d)
    if isinstance(x_centre, str) and x_centre == "public":
        xc = 0.5 * (xlo + xhi)
    else:
        xc = 0.0 if x_centre is None else x_centre
    xs = 0.5 * (xhi - xlo)
    Xn = normalise_rows(X, xc, xs)

    perm = np.argsort(rng.random((repeats, N)), axis=1)
    test, pub, pool = perm[:, :n_test], perm[:, n_test:n_test + n_nonprivate], perm[:, n_test + n_nonprivate:]
    if public is None:
        Xpub, ypub = Xn[pub], y[pub]  # (R, k, d), (R, k)
    else:
        y0 = np.asarray(public[1], dtype=float)
        Xpub = np.broadcast_to(normalise_rows(public[0], xc, xs), (repeats, y0.size, d))
        ypub = np.broadcast_to(y0, (repeats, y0.size))
    n_pub = ypub.shape[1]
    Xt, yt = Xn[test], y[test]  # (R, t, d), (R, t)
    M, S, E = len(MODELS), sizes.size, eps.size
    rho = np.empty((M, S, E, repeats))
    mse = np.empty((M, S, E, repeats))
    om = np.empty((S, E, 2))
    for si, m in enumerate(sizes):
        idx = pool[:, :m]
        Xp, yraw = Xn[idx], y[idx]
        om[si] = [omegas(int(m), d, float(e), p) for e in eps_stat]
        c, sy = _prep_y(yraw, y_bounds, y_centre, sigma_y, eps_prep, rng, E)  # (R, E)
        yp = yraw[:, None, :] - c[..., None]  # (R, E, m)
        X0, y0 = Xpub, ypub[:, None, :] - c[..., None]
        bx = om[si, :, 0] / math.sqrt(d)
        by = om[si, :, 1][None, :] * sy
        ybound = np.maximum(y_bounds[1] - c, c - y_bounds[0])  # public worst case given the centre
        coefs = {}
        # 1. non-private: all training data, exact mean, no clipping, no noise
        Xall = np.concatenate([Xp, Xpub], axis=1)
        yall = np.concatenate([yraw, ypub], axis=1)
        cnp = yall.mean(axis=1)
        ya = yall - cnp[:, None]
        s_np = Stats(np.swapaxes(Xall, -1, -2) @ Xall, np.einsum("rni,rn->ri", Xall, ya), (ya * ya).sum(-1),
                     Xall.shape[1])
        coefs[MODELS[0]] = (np.broadcast_to(fit_stats(s_np, priors=priors).coef[:, None], (repeats, E, d)),
                            np.broadcast_to(cnp[:, None], (repeats, E)))
        # 2. robust private LR
        s_rp = _noisy_stats(Xp, yp, bx, by, eps_stat, p, rng, public=(X0, y0) if n_pub else None)
        coefs[MODELS[1]] = (fit_stats(s_rp, priors=priors, ridge=noise_ridge(_xx_scale(d, bx, eps_stat, p))).coef, c)
        # 3. no projection: public worst-case bounds (|x| ≤ 1 after row scaling, |y − c| ≤ ybound)
        s_np2 = _noisy_stats(Xp, yp, np.ones(E), ybound, eps_stat, p, rng,
                             public=(X0, y0) if n_pub else None)
        coefs[MODELS[2]] = (fit_stats(s_np2, priors=priors, ridge=noise_ridge(_xx_scale(d, np.ones(E), eps_stat, p))).coef, c)
        # 4. output perturbation; 5. functional mechanism (private training set only)
        Xb = np.broadcast_to(Xp[:, None], (repeats, E, m, d))
        coefs[MODELS[3]] = (output_perturbation_coef(Xb, yp, epsilon=eps_stat[None, :], y_bound=ybound, rng=rng), c)
        fm, icpt = functional_mechanism_coef(Xb, yp, epsilon=eps_stat[None, :], y_bound=ybound, rng=rng)
        coefs[MODELS[4]] = (fm, c + icpt)
        # 6. AdaSSP on the private training set (and the public rows, unnoised), same DP centre, (ε_stat, δ)
        by_ada = np.minimum(adassp_omega_y(eps_stat)[None, :] * sy, ybound)
        ada = _adassp_cv(Xp, yp, by_ada, eps_stat, adassp_delta or 1.0 / m**2, rng,
                         public=(Xpub, y0) if n_pub else None)
        coefs[MODELS[5]] = (ada[..., :-1] / math.sqrt(2.0), c + ada[..., -1] / math.sqrt(2.0))  # rows were / √2
        for mi, name in enumerate(MODELS):
            coef, centre = coefs[name]
            # the robust fit predicts on features clipped as in its fit with the priors, unclipped in the paper's mode
            # (prediction_features); the others on the prepared rows (|x| ≤ 1)
            Xq = prediction_features(Xt[:, None], bx[None, :, None, None], priors=priors) if name == MODELS[1] \
                else Xt[:, None]
            pred = np.einsum("reti,rei->ret", np.broadcast_to(Xq, (repeats, E) + Xt.shape[1:]), coef) + centre[..., None]
            rho[mi, si] = spearman(pred, yt[:, None, :]).T
            mse[mi, si] = ((pred - yt[:, None, :]) ** 2).mean(-1).T
        if progress is not None:
            progress((si + 1) / S)
    return CVResult(MODELS, sizes, eps, rho, mse, om, int(n_test), int(n_pub),
                    f"x centre {x_centre}, y centre {y_centre}, σy {sigma_y}, prep share {prep_share if uses_dp else 0}",
                    yt.var(axis=1))


@dataclass(frozen=True)
class Preview:
    """Preview draws of one method (:func:`preview_fit`) on one split, and the non-private fit on the same records.

    ``coef`` (draws, d) and ``pred`` (draws, t) are the private fits and their test predictions (test
    features clipped at ±Bx as in the fit with the priors, unclipped in the paper's mode (``prediction_features``);
    ``bx`` is ∞ for AdaSSP), ``rho``, ``r2``, ``rmse`` (draws,) their
    Spearman ρ, held-out R² and RMSE; ``coef_sd`` (draws, d) the coefficients' standard deviations; ``intercept``
    (draws,) the prediction at a zero prepared record; ``*_nonprivate`` are the same pipeline without noise or clipping: the same
    training records (private and public) and the exact value of the response centre the private fit
    estimates (the private rows' mean for a DP centre, the same public value otherwise). So the preview
    tends to it as ε → ∞ (``tests/regression/test_regression.py`` checks ε = 10⁶).
    """

    prep: Preparation
    bx: float
    by: float
    noise: StatNoise | AdaSSPNoise
    coef: np.ndarray
    pred: np.ndarray
    rho: np.ndarray
    r2: np.ndarray
    rmse: np.ndarray
    coef_sd: np.ndarray
    coef_nonprivate: np.ndarray
    pred_nonprivate: np.ndarray
    rho_nonprivate: float
    r2_nonprivate: float
    rmse_nonprivate: float
    intercept: np.ndarray  # (draws,) the prediction at a zero prepared record, on the response's scale
    intercept_nonprivate: float
    delta: float = 0.0


def preview_fit(
    X: np.ndarray,
    y: np.ndarray,
    *,
    private: np.ndarray,
    public: np.ndarray,
    test: np.ndarray,
    x_bounds,
    y_bounds: tuple[float, float],
    x_centre: float | str | None,
    y_centre: str | float,
    sigma_y: str | float,
    eps_prep: float,
    eps_stat: float,
    rng: np.random.Generator,
    draws: int,
    method: str = METHOD,
    omegas: tuple[float, float] = (0.1, 0.5),
    split: Sequence[float] = DEFAULT_SPLIT,
    priors: bool = True,
    delta: float = 0.0,
) -> Preview:
    """What the page previews: ``draws`` seeded releases on the rows ``private`` (+ ``public``, unnoised).

    The preparation (public or DP centre / scale at ``eps_prep``) uses the private rows only. ``method``:

    * robust private LR (``METHOD``): ``Bx = ωx σx``, ``By = ωy σy`` from ``omegas``; Laplace noise on the
      statistics at ``eps_stat`` split p1:p2:p3; ``coef_sd`` the posterior's; the reference is the same posterior
      without noise or clipping;
    * ``ADASSP``: ``(eps_stat, delta)``, ``By = min(ωy(ε) σy, public worst case)``
      (:func:`~dpcore.regression.adassp.adassp_omega_y`), no feature clipping (``bx`` is ∞); ``coef_sd`` the draws'
      spread; the reference is ordinary least squares with an intercept.

    Both references use the same training records and the exact value of the centre the private fit estimates.

    Every draw is a whole release: its own DP centre and σy (when they are DP), hence its own By, then the noise on
    the statistics (the same batched code as :func:`monte_carlo_cv`, one split). ``prep``, ``by`` and ``noise``
    describe draw 0, the one the page plots. With one preparation for every draw the spread over draws hid the
    larger part of a release's error at small ε (GDSC at ε = 1: held-out R² −0.95 to −0.90 over draws, where the
    DP centre alone moves it by about 1).
    """
    if isinstance(x_centre, str) and x_centre == "dp":  # as in monte_carlo_cv: each draw would need its own
        raise ValueError("previews take a public feature centre (x_centre 'public', None or numbers), not 'dp'")
    d = X.shape[1]
    first = prepare(X[private], y[private], x_bounds=x_bounds, y_bounds=y_bounds, x_centre=x_centre,
                    y_centre=y_centre, sigma_y=sigma_y, epsilon=eps_prep, rng=rng)  # public parts and sources
    yp_raw = np.broadcast_to(y[private], (draws, len(private)))
    c, sy = (v[:, 0] for v in _prep_y(yp_raw, y_bounds, y_centre, sigma_y, np.array([eps_prep]), rng, 1))
    prep = dataclasses.replace(first, y_centre=float(c[0]), sigma_y=float(sy[0]),
                               y_bound=float(max(y_bounds[1] - c[0], c[0] - y_bounds[0])))
    Xp, Xt, yt = prep.transform(X[private]), prep.transform(X[test]), y[test]
    Xpub = prep.transform(X[public])[None] if len(public) else None
    ypub = (y[public][None, :] - c[:, None])[:, None, :] if len(public) else None  # (draws, 1, k)
    yp = (y[private][None, :] - c[:, None])[:, None, :]  # (draws, 1, m): each draw centred by its own centre
    eps_arr = np.array([eps_stat], dtype=float)
    train = np.concatenate([private, public])
    centre = float(np.clip(y[private], *y_bounds).mean()) if y_centre == "dp" else prep.y_centre
    if method == ADASSP:
        ybound = np.maximum(y_bounds[1] - c, c - y_bounds[0])
        by_draws = np.minimum(adassp_omega_y(eps_stat) * sy, ybound)
        ada = _adassp_cv(Xp[None], yp, by_draws[:, None], eps_arr, delta, rng,
                         public=(Xpub, ypub) if len(public) else None)[:, 0]
        exact = adassp(adassp_features(prep.transform(X[train])), y[train] - centre, epsilon=math.inf, delta=delta,
                       by=math.inf)
        bx, by, noise = math.inf, float(by_draws[0]), adassp_noise(float(by_draws[0]), eps_stat, delta)
        coef, intercept = ada[:, :-1] / math.sqrt(2.0), c + ada[:, -1] / math.sqrt(2.0)  # rows were scaled by 1/√2
        coef_sd = np.broadcast_to(coef.std(axis=0), coef.shape)
        coef_np, intercept_np = exact.feature_coef, float(exact.intercept) + centre
        pred = coef @ Xt.T + intercept[:, None]
    else:
        bx, by_draws = omegas[0] * prep.sigma_x, omegas[1] * sy
        by, noise = float(by_draws[0]), stat_noise(d, bx, float(by_draws[0]), eps_stat, split)
        noisy = _noisy_stats(Xp[None], yp, np.array([bx]), by_draws[:, None], eps_arr, _split(split), rng,
                             public=(Xpub, ypub) if len(public) else None)
        noisy = Stats(noisy.nxx[:, 0], noisy.nxy[:, 0], noisy.nyy[:, 0], noisy.n)
        post = fit_stats(noisy, priors=priors, ridge=noise_ridge(noise.xx.scale))
        coef, coef_sd, intercept = post.coef, post.sd, c
        coef_np = fit_stats(sufficient_stats(prep.transform(X[train]), y[train] - centre), priors=priors).coef
        intercept_np = centre
        pred = coef @ prediction_features(Xt, bx, priors=priors).T + c[:, None]
    pred_np = Xt @ coef_np + intercept_np
    r2, rmse = r2_rmse(pred, yt)
    r2_np, rmse_np = r2_rmse(pred_np, yt)
    return Preview(prep, bx, by, noise, coef, pred, spearman(pred, yt), r2, rmse, coef_sd, coef_np, pred_np,
                   float(spearman(pred_np, yt)), float(r2_np), float(rmse_np), intercept, intercept_np, delta)


#: the metrics :func:`utility_curve` measures, and their labels
CURVE_METRICS = {"rho": "Spearman ρ", "mse": "test MSE"}


@dataclass(frozen=True)
class RegressionUtilityCurve(UtilityCurve):
    """Per-repeat values of one metric of one model over an ε grid: ``values`` (n_eps, R), plus the non-private line.

    ``measure`` is the metric's name (``"rho"`` or ``"mse"``, the only name :meth:`metric` answers), ``label``
    its text; ``delta`` is AdaSSP's δ when ``model`` is AdaSSP, else 0 (the other private models are pure ε-DP).
    """

    values: np.ndarray
    nonprivate: np.ndarray  # (R,)
    measure: str
    model: str

    @property
    def label(self) -> str:
        return CURVE_METRICS[self.measure]

    @property
    def metrics(self) -> tuple[str, ...]:
        return (self.measure,)

    def metric(self, name: str) -> np.ndarray:
        if name != self.measure:
            raise KeyError(f"this curve measured {self.measure!r}, not {name!r}")
        return np.asarray(self.values, dtype=float)


def utility_curve(
    X: np.ndarray,
    y: np.ndarray,
    *,
    epsilons: Sequence[float],
    n_private: int,
    repeats: int = 20,
    model: str = "robust private LR",
    metric: str = "rho",
    **kwargs,
) -> RegressionUtilityCurve:
    """Spearman ρ (``metric="rho"``) or test MSE (``"mse"``) of one model over ``epsilons`` × ``repeats`` (for the
    accuracy-first ε)."""
    if metric not in CURVE_METRICS:
        raise ValueError(f"metric is one of {list(CURVE_METRICS)}, not {metric!r}")
    res = monte_carlo_cv(X, y, epsilons=epsilons, sizes=[n_private], repeats=repeats, **kwargs)
    arr = res.rho if metric == "rho" else res.mse
    delta = (kwargs.get("adassp_delta") or 1.0 / n_private**2) if model == ADASSP else 0.0  # as monte_carlo_cv
    return RegressionUtilityCurve(np.asarray(epsilons, dtype=float), arr[res.model(model), 0], arr[0, 0, 0], metric,
                                  model, delta=float(delta))


def equivalent_sample_size(sizes: Sequence[float], rho_nonprivate: Sequence[float], rho_private: float) -> float:
    """Smallest non-private training size with the private model's ρ (linear interpolation; NaN if none)."""
    sizes = np.asarray(sizes, dtype=float)
    r = np.maximum.accumulate(np.asarray(rho_nonprivate, dtype=float))
    if rho_private <= r[0]:
        return float(sizes[0]) if rho_private >= r[0] - 1e-12 else float("nan")
    if rho_private > r[-1]:
        return float("nan")
    return float(np.interp(rho_private, r, sizes))
