"""Peeling over full-data scores, then a private fit on the selected support — the default release.

Why: block votes (two-stage, KT with private support) see the data through blocks of ≈ √n records and miss the
support at every ε users accept. Here every record speaks in every score, and the cost of selecting
s features is one composition of s exponential mechanisms (Cai, Wang & Zhang 2021 peel; Durfee & Rogers 2019
one-shot Gumbel top-s), all accounted in zCDP:

1. **Scores** ``u_j = |Σ_i x_ij·y_i|/n`` on the clipped data (:func:`screening_scores`), ``y`` clipped to
   ``[−r, r]`` (linear) or a ±1 label (logistic). Sensitivity: :func:`screening_sensitivity`.
2. **Peeling**: Gumbel(β) noise on every score once, keep the top s — the same law as s exponential mechanisms
   in a row, each ε0-bounded-range with ``ε0 = 2Δ/β`` (non-monotone scores), so ``ρ_sel = s·ε0²/8 =
   sΔ²/(2β²)``-zCDP (Cesar & Rogers 2021). OpenDP's ``make_noisy_top_k`` (zCDP, Gumbel) draws the release
   and its privacy map is checked against ``ρ_sel``.
3. **Fit on the public support S** with the rest of ρ, the features ``z = (1, x_S)`` (with the intercept):
   linear — noisy sufficient statistics ``ZᵀZ``, ``Zᵀy`` (Gaussian; :func:`fit_sensitivities`), then the
   ridge-regularised solve (post-processing, AdaSSP-style: the ridge comes from the noisy matrix itself);
   logistic — T steps of noisy gradient descent (Gaussian on each mean gradient, zCDP composition).

Total: ``ρ = approx_dp_to_zcdp(ε, δ)`` split ``select_share : 1 − select_share``; every σ and β depends only
on ``n, s, K, r, ε, δ`` (public), never on the data or on which support was selected.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcore.core.mechanisms import Noise, approx_dp_to_zcdp, gaussian_zcdp_sigma
from dpcore.sparse.params import SparseFit, SparseParams, _setup
from dpcore.sparse.solver import _sigmoid


def screening_scores(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``u_j = |Σ_i x_ij y_i|/n`` for every feature j (inputs already clipped): the full-data marginal statistic."""
    return np.abs(y @ X) / X.shape[0]


def screening_sensitivity(n: int, loss: str, p: SparseParams) -> float:
    """ℓ∞ sensitivity of the score vector under replace-one: ``2Kr/n`` (linear), ``2K/n`` (logistic).

    Proof: replacing record i by i' changes ``Σ_i x_ij y_i`` by ``x'_j y' − x_ij y_i``, of absolute value
    ``≤ 2·K·r`` (``|x| ≤ K``, ``|y| ≤ r``; ``|y| = 1`` for labels), and ``||a| − |b|| ≤ |a − b|``. The same
    record moves *every* coordinate at once, which is why the s selections are composed (not parallel).
    """
    return 2.0 * p.K * (p.r if loss == "linear" else 1.0) / n


def fit_sensitivities(s: int, loss: str, p: SparseParams) -> dict[str, float]:
    """ℓ2 sensitivities of what the fit on a support of size s reads, with ``z = (1, x_S)`` (or ``x_S``).

    ``‖z‖² ≤ c + sK² =: Z²`` (``c = 1`` with the intercept). Linear, replace-one:

    * ``ZᵀZ`` as the vector ``v`` (diagonal, √2 × the upper off-diagonal: ``‖v(M)‖2 = ‖M‖F``) moves by
      ``‖zzᵀ − z'z'ᵀ‖F = sqrt(‖z‖⁴ + ‖z'‖⁴ − 2(zᵀz')²) ≤ √2·Z²``;
    * ``Zᵀy`` moves by ``‖zy − z'y'‖ ≤ 2rZ``.

    Logistic: the mean gradient ``(1/n)Σ −y z σ(−y zᵀθ)`` moves by ``≤ 2Z/n`` (each term has norm ≤ ``Z``)
    at *every* θ, so each noisy step is a Gaussian mechanism with that sensitivity.
    """
    z2 = (1.0 if p.intercept else 0.0) + s * p.K**2
    if loss == "linear":
        return {"gram": math.sqrt(2.0) * z2, "moment": 2.0 * p.r * math.sqrt(z2)}
    return {"gradient": 2.0 * math.sqrt(z2)}


@dataclass(frozen=True)
class PeelPlan:
    """Every noise scale of one (ε, δ): all public (functions of n, s, K, r, ε, δ and the shares only)."""

    rho: float
    rho_select: float
    rho_fit: float
    score_sensitivity: float
    gumbel_scale: float
    noises: dict  # name → Noise (Gaussian) for the fit

    def describe(self) -> list[str]:
        return ([f"Gumbel top-s on the scores, β = {self.gumbel_scale:.4g} (Δ∞ = {self.score_sensitivity:.4g}, "
                 f"ρ = {self.rho_select:.4g})"]
                + [f"{name}: {nz.describe()}" for name, nz in self.noises.items()])


def peel_plan(n: int, s: int, epsilon: float, delta: float, loss: str, p: SparseParams,
              select_share: float = 0.5) -> PeelPlan:
    """Split ``ρ = approx_dp_to_zcdp(ε, δ)`` between the peeling (``select_share``) and the fit.

    Peeling: ``β = Δ∞·sqrt(s/(2ρ_sel))`` (inverse of ``ρ_sel = sΔ∞²/(2β²)``). Linear fit: ``ZᵀZ`` and ``Zᵀy``
    get half of ``ρ_fit`` each, ``σ = Δ2/sqrt(2ρ_part)``. Logistic fit: ``p.fit_T`` gradients at
    ``ρ_fit/T`` each. Each ``Noise`` records the (ε, δ) of the whole release (zCDP parts are not ε parts).
    """
    if not 0 < select_share < 1:
        raise ValueError("select_share must lie in (0, 1)")
    rho = approx_dp_to_zcdp(epsilon, delta)
    rho_sel, rho_fit = select_share * rho, (1.0 - select_share) * rho
    delta_inf = screening_sensitivity(n, loss, p)
    beta = delta_inf * math.sqrt(s / (2.0 * rho_sel)) * (1.0 + 1e-9)  # a hair up: OpenDP's map rounds upwards
    sens = fit_sensitivities(s, loss, p)
    if loss == "linear":
        noises = {name: Noise("gaussian", gaussian_zcdp_sigma(sens[name], rho_fit / 2.0), sens[name], epsilon, delta)
                  for name in ("gram", "moment")}
    else:
        g = sens["gradient"] / n
        noises = {"gradient": Noise("gaussian", gaussian_zcdp_sigma(g, rho_fit / p.fit_T), g, epsilon, delta)}
    return PeelPlan(rho, rho_sel, rho_fit, delta_inf, beta, noises)


def design(X: np.ndarray, support: np.ndarray, intercept: bool) -> np.ndarray:
    """``Z`` for a batch of supports (..., s): shape (..., n, s + intercept), the constant column first."""
    Xs = np.moveaxis(X[:, support], 0, -2)
    if not intercept:
        return Xs
    return np.concatenate([np.ones(Xs.shape[:-1] + (1,)), Xs], axis=-1)


def gram_vector(M: np.ndarray) -> np.ndarray:
    """Isometric vector of symmetric matrices (..., q, q): the diagonal, then √2 × the upper triangle."""
    q = M.shape[-1]
    iu = np.triu_indices(q, 1)
    return np.concatenate([np.diagonal(M, axis1=-2, axis2=-1), math.sqrt(2.0) * M[..., iu[0], iu[1]]], axis=-1)


def gram_matrix(v: np.ndarray, q: int) -> np.ndarray:
    """Inverse of :func:`gram_vector`."""
    M = np.zeros(v.shape[:-1] + (q, q))
    idx = np.arange(q)
    M[..., idx, idx] = v[..., :q]
    iu = np.triu_indices(q, 1)
    off = v[..., q:] / math.sqrt(2.0)
    M[..., iu[0], iu[1]] = off
    M[..., iu[1], iu[0]] = off
    return M


def solve_noisy_statistics(gram: np.ndarray, moment: np.ndarray, sigma_gram: float) -> np.ndarray:
    """Least squares from noisy ``ZᵀZ`` and ``Zᵀy`` (post-processing, batched).

    The noisy matrix's eigenvalues are floored at 0, and a ridge ``λ = max(0, √(2q)·σ − λ_min)`` is added — the
    noise matrix's typical operator norm minus the smallest noisy eigenvalue (AdaSSP's rule, Wang 2018, with its
    λ_min read off the released matrix, so free): a well-conditioned problem gets no ridge, and as σ → 0 the
    solve is ordinary least squares on the support.
    """
    w, V = np.linalg.eigh(gram)
    lam = np.maximum(0.0, math.sqrt(2.0 * gram.shape[-1]) * sigma_gram - w[..., :1])
    w = np.maximum(w, 0.0) + lam
    w = np.maximum(w, 1e-12)
    return np.einsum("...ij,...j->...i", V, np.einsum("...ji,...j->...i", V, moment) / w)


def noisy_gradient_descent(Z: np.ndarray, y: np.ndarray, noise, steps: int, step: float) -> np.ndarray:
    """Logistic regression by ``steps`` noisy gradient steps from 0, batched over the leading axes of ``Z``.

    ``noise(t, g)`` returns the noisy gradient (preview: NumPy, release: OpenDP); privacy is paid per step in
    zCDP (:func:`peel_plan`); the iterates are post-processing of the noisy gradients.
    """
    n = Z.shape[-2]
    theta = np.zeros(Z.shape[:-2] + Z.shape[-1:])
    for t in range(int(steps)):
        z = np.einsum("...ni,...i->...n", Z, theta)
        g = np.einsum("...n,...ni->...i", -y * _sigmoid(-y * z), Z) / n
        theta = theta - step * noise(t, g)
    return theta


def _fit_step(p: SparseParams) -> float:
    return float(p.fit_step) if p.fit_step is not None else 2.0 / p.K**2


#: Cells of one batch of design matrices (n × q per support): bounds the preview's memory (float64, 32 MB).
DESIGN_CELLS = 1 << 22


def _fit_supports(X, y, support, plans, loss, p, rng) -> np.ndarray:
    """Preview fits on a batch of supports (B, s), each with its own plan's noise: θ of shape (B, q)."""
    Z = design(X, support, p.intercept)  # (B, n, q)
    q = Z.shape[-1]
    if loss == "linear":
        sg = np.array([pl.noises["gram"].scale for pl in plans])[:, None]
        sm = np.array([pl.noises["moment"].scale for pl in plans])[:, None]
        v = gram_vector(np.einsum("bni,bnj->bij", Z, Z))
        gram = gram_matrix(v + sg * rng.standard_normal(v.shape), q)
        moment = np.einsum("bni,n->bi", Z, y)
        moment = moment + sm * rng.standard_normal(moment.shape)
        return np.stack([solve_noisy_statistics(gram[b], moment[b], plans[b].noises["gram"].scale)
                         for b in range(len(plans))])
    sig = np.array([pl.noises["gradient"].scale for pl in plans])[:, None]
    return noisy_gradient_descent(Z, y, lambda t, g: g + sig * rng.standard_normal(g.shape), p.fit_T, _fit_step(p))


def peel_fit_batch(X, y, *, sparsity, epsilons, delta, loss="linear", rng=None, draws=1, select_share: float = 0.5,
                   **params) -> SparseFit:
    """Peeling + private fit for each ε and R draws (preview noise): coefficients ``(n_eps, R, d)``, the
    intercepts in ``details["intercept"]`` ``(n_eps, R)`` and the ordered supports in ``details["support"]``."""
    p, rng, X, y, s, eps = _setup(X, y, sparsity, epsilons, delta, loss, rng, params)
    n, d = X.shape
    R = int(draws)
    plans = [peel_plan(n, s, float(e), delta, loss, p, select_share) for e in eps]
    scores = screening_scores(X, y)
    beta = np.array([pl.gumbel_scale for pl in plans])[:, None, None]
    noisy = scores + rng.gumbel(size=(eps.size, R, d)) * beta
    support = np.argsort(-noisy, axis=-1)[..., :s]  # (E, R, s), in the order peeled
    q = s + (1 if p.intercept else 0)
    per_eps = np.repeat(np.arange(eps.size), R)
    flat = support.reshape(-1, s)
    theta = np.empty((flat.shape[0], q))
    chunk = max(1, DESIGN_CELLS // (n * q))  # supports per batch: Z of one batch stays ≈ 32 MB whatever n, R, ε grid
    for lo in range(0, flat.shape[0], chunk):
        rows = slice(lo, lo + chunk)
        theta[rows] = _fit_supports(X, y, flat[rows], [plans[i] for i in per_eps[rows]], loss, p, rng)
    theta = theta.reshape(eps.size, R, q)
    coef = np.zeros((eps.size, R, d))
    np.put_along_axis(coef, support, theta[..., q - s:], axis=-1)
    intercept = theta[..., 0] if p.intercept else np.zeros((eps.size, R))
    noises = tuple(nz for pl in plans for nz in pl.noises.values())
    return SparseFit("peel", coef, eps, delta, loss, {**p.__dict__, "select_share": select_share}, noises,
                     {"intercept": intercept, "support": support, "gumbel_scale": beta[:, 0, 0],
                      "plans": tuple(plans)})


def peel_fit(X, y, *, sparsity, epsilon, delta, loss="linear", rng=None, **params) -> SparseFit:
    """One call of :func:`peel_fit_batch` (preview noise)."""
    fit = peel_fit_batch(X, y, sparsity=sparsity, epsilons=[epsilon], delta=delta, loss=loss, rng=rng, **params)
    return SparseFit("peel", fit.coef[0, 0], float(epsilon), float(delta), loss, fit.params, fit.noise,
                     {"intercept": float(fit.details["intercept"][0, 0]), "support": fit.details["support"][0, 0],
                      "plan": fit.details["plans"][0]})


# --------------------------------------------------------------------------
# Release path (OpenDP only)
# --------------------------------------------------------------------------


def release_support(scores: np.ndarray, s: int, plan: PeelPlan, draws: int | None = None) -> np.ndarray:
    """The s peeled features, in the order peeled, from OpenDP's ``make_noisy_top_k`` (Gumbel, zCDP).

    OpenDP's own privacy map at the score sensitivity must not exceed ``ρ_sel``; it is checked before drawing.
    ``draws=R`` makes R independent releases (R, s) from the same measurement (for audits of the release path).
    """
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float, monotonic=False))
    meas = dp.m.make_noisy_top_k(*space, dp.zero_concentrated_divergence(), k=int(s), scale=float(plan.gumbel_scale))
    rho = meas.map(float(plan.score_sensitivity))
    if rho > plan.rho_select * (1.0 + 1e-12):
        raise RuntimeError(f"OpenDP charges ρ = {rho:g} for the peeling, above its share ρ = {plan.rho_select:g}")
    values = [float(v) for v in scores]
    if draws is None:
        return np.asarray(meas(values), dtype=np.int64)
    return np.array([meas(values) for _ in range(int(draws))], dtype=np.int64).reshape(int(draws), int(s))


def release_fit(X: np.ndarray, y: np.ndarray, support: np.ndarray, loss: str, plan: PeelPlan,
                p: SparseParams) -> tuple[np.ndarray, dict]:
    """The fit on a released support with OpenDP noise: ``(θ on (intercept, S), released statistics)``."""
    Z = design(X, support, p.intercept)
    q = Z.shape[-1]
    if loss == "linear":
        gram_noise, moment_noise = plan.noises["gram"], plan.noises["moment"]
        gram = gram_matrix(gram_noise.release(gram_vector(Z.T @ Z)), q)
        moment = moment_noise.release(Z.T @ y)
        return solve_noisy_statistics(gram, moment, gram_noise.scale), {"gram": gram, "moment": moment}
    gradients = []

    def noise(t, g):
        gradients.append(plan.noises["gradient"].release(g))
        return gradients[-1]

    theta = noisy_gradient_descent(Z, y, noise, p.fit_T, _fit_step(p))
    return theta, {"gradients": np.array(gradients)}
