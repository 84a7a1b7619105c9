"""What the ledger charges a release is what the noise that release drew allows: recomputed from the bundle.

For every release type a real release is made (OpenDP draws); a spy on :meth:`dpcore.core.mechanisms.Noise.release` and
on the peeling's Gumbel top-s sees which scale each draw used. The test then

1. reads the scale (b or σ) and the sensitivity of every mechanism from what the *bundle* records (public
   parameters, values derived from its DP outputs, the mechanism descriptions), and checks them against the drawn
   scale and against the sensitivity written out here from the method documents (Δ1 = 2 or 4 for survival counts,
   Δ2 = √2 or 2 for their Gaussian; AdaSSP's 1, √2, 2By; robust LR's d(d+1)Bx², 2dBxBy, By²; peeling's 2Kr/n,
   √2·z², 2r·z, 2z/n; the KT votes' 2s/k; PAPRIKA's η);
2. recomputes the tight ε at the deployment's δ independently of dpcore's events, with dp-accounting itself: the
   privacy-loss distributions of Laplace (b/Δ), discrete Laplace (1/b, Δ), Gaussian (σ/Δ), pure-ε selections,
   composed, and its Rényi accountant beside them; the smaller of the two (each an upper bound) is the reference;
3. charges a :class:`dpcore.ledger.Ledger` as the page charges it (the page's method name, ε, δ, parts and
   parameters, written out here from ``app_pages``) and as a notebook would from the bundle itself, and asserts
   that the ledger's tight ε never falls below the reference (that would let a cap pass more than the noise
   allows) and is not far above it (a release charged for other noise than it drew).

Deterministic in what it asserts: scales and sensitivities do not depend on the OpenDP draws, nor does any ε.
"""

from __future__ import annotations

import math
import re

import dp_accounting as dpa
import numpy as np
import pytest
from dp_accounting.pld import common as pld_common
from dp_accounting.pld import privacy_loss_distribution as pld_lib

from dpcore import fdr
from dpcore.core import mechanisms as M
from dpcore import regression as R
from dpcore import sparse as sp
from dpcore import survival as sv
from dpcore.ledger import Budget, Ledger
from dpcore.sparse import bundle as sparse_bundle
from dpcore.sparse.transfer import fixed_support_teacher, synthetic_features

INTERVAL = 1e-4  # PLD grid of the reference (pessimistic: every ε it reports is an upper bound)
#: the ledger may not report less than the reference minus this (both are pessimistic on the same grid)
BELOW = 1e-6
#: nor more than the reference plus this (relative and absolute): more means it charged other noise than was drawn
ABOVE_REL, ABOVE_ABS = 0.02, 0.01


@pytest.fixture
def drawn(monkeypatch):
    """Every mechanism a release drew with: ``("laplace" | "discrete_laplace" | "gaussian", scale, Noise)`` per OpenDP
    draw and ``("gumbel top-s", β, plan)`` per peeling, in call order."""
    seen = []
    real_release, real_support = M.Noise.release, sparse_bundle.release_support

    def release(noise, value):
        seen.append((noise.kind, noise.scale, noise))
        return real_release(noise, value)

    def support(scores, s, plan, draws=None):
        seen.append(("gumbel top-s", plan.gumbel_scale, plan))
        return real_support(scores, s, plan, draws)

    monkeypatch.setattr(M.Noise, "release", release)
    monkeypatch.setattr(sparse_bundle, "release_support", support)
    return seen


# ------------------------------------------------------------------ the reference accountant (dp-accounting only)


def reference_epsilon(mechanisms, delta_total: float) -> float:
    """Tight ε at ``delta_total`` of the composed ``mechanisms`` by dp-accounting: min(PLD, RDP).

    ``mechanisms``: ``("laplace", b, Δ)``, ``("discrete_laplace", b, Δ)``, ``("gaussian", σ, Δ)``,
    ``("selection", ε0, count)`` (ε0-DP bounded-range selections: pure-ε PLD, ``count·ε0²/8``-zCDP) and
    ``("approx", ε, δ)`` (only an (ε, δ) statement: its dominating pair; no RDP)."""
    plds, rdp, rdp_ok = [], dpa.rdp.RdpAccountant(), True
    for kind, a, b in mechanisms:
        if kind == "laplace":
            plds.append(pld_lib.from_laplace_mechanism(a / b, value_discretization_interval=INTERVAL))
            rdp.compose(dpa.LaplaceDpEvent(a / b))
        elif kind == "discrete_laplace":
            plds.append(pld_lib.from_discrete_laplace_mechanism(1.0 / a, sensitivity=int(b),
                                                                value_discretization_interval=INTERVAL))
            rdp.compose(dpa.ZCDpEvent((b / a) ** 2 / 2.0))
        elif kind == "gaussian":
            plds.append(pld_lib.from_gaussian_mechanism(a / b, value_discretization_interval=INTERVAL))
            rdp.compose(dpa.GaussianDpEvent(a / b))
        elif kind == "selection":
            pure = pld_common.DifferentialPrivacyParameters(a, 0.0)
            plds.append(pld_lib.from_privacy_parameters(pure, value_discretization_interval=INTERVAL).self_compose(
                int(b)))
            rdp.compose(dpa.ZCDpEvent(int(b) * a * a / 8.0))
        elif kind == "approx":
            plds.append(pld_lib.from_privacy_parameters(pld_common.DifferentialPrivacyParameters(a, b),
                                                        value_discretization_interval=INTERVAL))
            rdp_ok = False
        else:
            raise ValueError(kind)
    composed = plds[0]
    for pld in plds[1:]:
        composed = composed.compose(pld)
    eps_pld = float(composed.get_epsilon_for_delta(delta_total))
    eps_rdp = float(rdp.get_epsilon(delta_total)) if rdp_ok else math.inf
    return min(eps_pld, eps_rdp)


def ledger_epsilon(method: str, epsilon: float, delta: float, parts, params, delta_total: float) -> float:
    """The tight ε a ledger with a cap at ``delta_total`` holds against the one person a release was charged to."""
    ledger = Ledger(default_cap=Budget(1000.0, delta_total))
    ledger.charge("cohort", method, epsilon, delta, params=params, parts=parts)
    return ledger.spent("cohort")[0]


def assert_charged_as_drawn(charged: float, reference: float, what: str) -> None:
    assert charged >= reference - BELOW, (f"{what}: the ledger charges ε = {charged:.6g}, less than the noise drawn "
                                          f"allows (ε = {reference:.6g})")
    assert charged <= reference * (1 + ABOVE_REL) + ABOVE_ABS, (
        f"{what}: the ledger charges ε = {charged:.6g}, far more than the noise drawn costs (ε = {reference:.6g})")


def _charges(bundle, page_method: str, page_epsilon: float, page_parts, page_params, delta_total: float) -> dict:
    return {"as the page charges it": ledger_epsilon(page_method, page_epsilon, bundle.delta, page_parts, page_params,
                                                     delta_total),
            "from the bundle itself": ledger_epsilon(bundle.method, bundle.epsilon, bundle.delta, dict(bundle.parts),
                                                     dict(bundle.public_params), delta_total)}


def _described(text: str) -> dict:
    """The numbers of :meth:`dpcore.core.mechanisms.Noise.describe`: ``{"scale", "sensitivity", "epsilon", "delta"}``."""
    m = re.search(r"[bσ] = ([-\d.e+]+) \(Δ[12] = ([-\d.e+]+), ε = ([-\d.e+]+)(?:, δ = ([-\d.e+]+))?\)", text)
    assert m, f"no scale and sensitivity recorded in {text!r}"
    return {"scale": float(m[1]), "sensitivity": float(m[2]), "epsilon": float(m[3]),
            "delta": float(m[4]) if m[4] else 0.0}


def _discrete_laplace_scale(std: float) -> float:
    """b of the discrete Laplace whose standard deviation is ``std`` (``std² = 2q/(1 − q)²``, ``q = e^{−1/b}``)."""
    v = std * std
    q = ((v + 1.0) - math.sqrt(2.0 * v + 1.0)) / v
    return -1.0 / math.log(q)


# ------------------------------------------------------------------ survival


SURVIVAL = [  # (groups, statistic, noise kind, event types, the sensitivity from docs/survival.md)
    (None, "histogram", "discrete_laplace", 1, 2),
    (("a", "b"), "histogram", "discrete_laplace", 1, 2),
    (None, "matrix", "discrete_laplace", 1, 2),
    (("a", "b"), "matrix", "discrete_laplace", 1, 4),
    (("a", "b"), "histogram", "discrete_laplace", 2, 2),  # competing risks: still one cell left, one entered
    (None, "histogram", "gaussian", 1, math.sqrt(2.0)),
    (("a", "b"), "matrix", "gaussian", 1, 2.0),
]


@pytest.mark.parametrize("groups, statistic, kind, types, sensitivity", SURVIVAL)
def test_survival_is_charged_for_the_counts_noise_it_drew(drawn, groups, statistic, kind, types, sensitivity):
    """One discrete Laplace of scale b at Δ1 (2, or 4 for the paper's grouped matrix) or one Gaussian σ at Δ2 (√2 or
    2): read from the bundle (``sensitivity_l1``/``sensitivity_l2``, ``noise_std_per_count``), as drawn."""
    rng = np.random.default_rng(3)
    n, eps, delta = 300, 0.7, (1e-6 if kind == "gaussian" else 0.0)
    time, event = rng.uniform(0, 100, n), rng.integers(0, types + 1, n)
    group = rng.choice(["a", "b"], n) if groups else None
    grid = sv.make_grid(100.0, data_unit="days", grid_unit="weeks", width=2)
    labels = {"event_labels": ["relapse", "death"]} if types == 2 else {}
    bundle = sv.release(time, event, grid=grid, epsilon=eps, group=group, groups=groups, band_draws=10,
                        statistic=statistic, noise_kind=kind, delta=delta, n_types=types, **labels)
    (drawn_kind, drawn_scale, _), = drawn
    params = bundle.public_params
    assert drawn_kind == kind == params["noise_kind"]
    if kind == "gaussian":
        recorded = ("gaussian", params["noise_std_per_count"], params["sensitivity_l2"])
    else:
        recorded = ("discrete_laplace", _discrete_laplace_scale(params["noise_std_per_count"]), params["sensitivity_l1"])
    assert recorded[1] == pytest.approx(drawn_scale, rel=1e-9), "the bundle's noise is not the noise drawn"
    assert recorded[2] == pytest.approx(sensitivity, rel=1e-12), "the bundle's sensitivity is not the documented one"
    assert _described(params["noise"])["scale"] == pytest.approx(drawn_scale, rel=5e-4)
    delta_total = 1e-5
    reference = reference_epsilon([recorded], delta_total)
    if kind == "discrete_laplace":
        assert reference == pytest.approx(sensitivity / drawn_scale, abs=1e-3)  # pure: ε = Δ1/b = the charged ε
    page_params = {"groups": list(groups or ["all"]), "statistic": statistic, "noise_kind": kind, "risk_set": "isotonic",
                   "sensitivity_l1": sv.sensitivity(len(groups or [None]), statistic=statistic)}
    for how, charged in _charges(bundle, "DP survival analysis", eps, None, page_params, delta_total).items():
        assert_charged_as_drawn(charged, reference, f"survival {statistic}, {kind}, {how}")


# ------------------------------------------------------------------ regression


def _regression_data(n=200, d=4, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, d))
    return X, np.clip(X @ rng.normal(size=d) + rng.normal(size=n), -6, 6)


XB, YB = (-2.0, 2.0), (-6.0, 6.0)


def _dp_preparation(X, y, eps_prep):
    """The page's DP response centre and scale (each half of ε_prep), drawn through OpenDP; with their draws."""
    return R.prepare(X, y, x_bounds=XB, y_bounds=YB, x_centre="public", y_centre="dp", sigma_y="dp", epsilon=eps_prep,
                     release=True)


def _preparation_mechanisms(drawn_prep, prep, n):
    """The DP centre (Δ = (hi − lo)/n) and MAD (Δ = max(hi − c, c − lo)/n around the released centre c) as drawn.

    The bundle records their ε (its parts) and the released centre and σy, not their scales: the drawn scale is read
    from the spy, the sensitivity written out here (regression.md)."""
    (k1, b1, _), (k2, b2, _) = drawn_prep
    assert (k1, k2) == ("laplace", "laplace")
    c = prep.y_centre
    return [("laplace", b1, (YB[1] - YB[0]) / n), ("laplace", b2, max(YB[1] - c, c - YB[0]) / n)]


def test_adassp_is_charged_for_its_three_gaussians_and_the_preparation(drawn):
    """AdaSSP: Gaussians at Δ2 = 1 (λ_min), √2 (XᵀX), 2By (Xᵀy) with the σ the bundle's mechanisms record (4
    significant digits; checked against the drawn σ), plus the DP centre and scale (Laplace)."""
    X, y = _regression_data()
    n, d = X.shape
    eps_stat, eps_prep, delta = 1.0, 0.2, 1e-5
    prep = _dp_preparation(X, y, eps_prep)
    bundle = R.release_adassp(X, y, prep=prep, epsilon=eps_stat, delta=delta, public=None)
    assert [k for k, _, _ in drawn] == ["laplace"] * 2 + ["gaussian"] * 3
    by = bundle.derived_params["By"]
    documented = (1.0, math.sqrt(2.0), 2.0 * by)
    gaussians = []
    for text, (_, sigma, _), sens, share in zip(bundle.mechanisms[:3], drawn[2:], documented, R.ADASSP_SPLIT):
        recorded = _described(text)
        assert recorded["scale"] == pytest.approx(sigma, rel=5e-4), text
        assert recorded["sensitivity"] == pytest.approx(sens, rel=1e-5), text
        assert (recorded["epsilon"], recorded["delta"]) == pytest.approx((share * eps_stat, share * delta), rel=1e-5)
        gaussians.append(("gaussian", sigma, sens))
    mechanisms = gaussians + _preparation_mechanisms(drawn[:2], prep, n)
    delta_total = 1e-4
    reference = reference_epsilon(mechanisms, delta_total)
    from_text = reference_epsilon([("gaussian", _described(t)["scale"], s) for t, s in
                                   zip(bundle.mechanisms[:3], documented)] + mechanisms[3:], delta_total)
    assert from_text == pytest.approx(reference, rel=2e-3)  # the recorded σ (4 digits) gives the same ε
    parts = {k: share * eps_stat for k, share in zip(("λ_min", "XᵀX", "Xᵀy"), R.ADASSP_SPLIT)}
    parts.update({"response centre": eps_prep / 2, "response scale": eps_prep / 2})
    page_params = {"method": "AdaSSP", "n_private": n, "n_public_not_protected": 0, "d": d, "delta": delta}
    charges = _charges(bundle, R.ADASSP, round(math.fsum(parts.values()), 12), parts, page_params, delta_total)
    for how, charged in charges.items():
        assert_charged_as_drawn(charged, reference, f"AdaSSP, {how}")


@pytest.mark.parametrize("priors", [True, False], ids=["priors", "paper's mode"])
def test_robust_regression_is_charged_for_its_three_laplace_statistics_and_the_preparation(drawn, priors):
    """Robust private LR: Laplace on nxx, nxy, nyy at Δ1 = d(d+1)Bx², 2dBxBy, By² (Bx, By recorded by the bundle)
    with the scales its mechanisms record (checked against the drawn ones), plus the DP centre and scale."""
    X, y = _regression_data(d=5)
    n, d = X.shape
    eps_stat, eps_prep, wx, wy = 2.0, 0.2, 0.8, 1.2
    prep = _dp_preparation(X, y, eps_prep)
    bundle = R.release(X, y, prep=prep, epsilon=eps_stat, omega_x=wx, omega_y=wy, priors=priors, public=None)
    assert [k for k, _, _ in drawn] == ["laplace"] * 5
    bx = bundle.public_params["Bx"]
    by = {**bundle.public_params, **bundle.derived_params}["By"]
    assert bx == pytest.approx(wx / math.sqrt(d)) and by == pytest.approx(wy * prep.sigma_y)
    documented = (d * (d + 1) * bx**2, 2 * d * bx * by, by**2)
    stats = []
    for text, (_, b, _), sens, share in zip(bundle.mechanisms[:3], drawn[2:], documented, R.DEFAULT_SPLIT):
        recorded = _described(text)
        assert recorded["scale"] == pytest.approx(b, rel=5e-4), text
        assert recorded["sensitivity"] == pytest.approx(sens, rel=1e-5), text
        assert recorded["epsilon"] == pytest.approx(share * eps_stat, rel=1e-5), text
        stats.append(("laplace", b, sens))
    mechanisms = stats + _preparation_mechanisms(drawn[:2], prep, n)
    delta_total = 1e-5
    reference = reference_epsilon(mechanisms, delta_total)
    assert reference == pytest.approx(eps_stat + eps_prep, abs=2e-3)  # pure ε: Σ Δ/b
    p1, p2, p3 = R.DEFAULT_SPLIT
    parts = {"nxx": p1 * eps_stat, "nxy": p2 * eps_stat, "nyy": p3 * eps_stat,
             "response centre": eps_prep / 2, "response scale": eps_prep / 2}
    page_params = {"method": R.METHOD, "n_private": n, "n_public_not_protected": 0, "d": d, "omega": (wx, wy),
                   "split": list(R.DEFAULT_SPLIT), "priors": priors}
    charges = _charges(bundle, R.METHOD, round(math.fsum(parts.values()), 12), parts, page_params, delta_total)
    for how, charged in charges.items():
        assert_charged_as_drawn(charged, reference, f"robust LR, {how}")


# ------------------------------------------------------------------ sparse


def _zcdp_epsilon(rho: float, delta: float) -> float:
    """ρ-zCDP ⇒ (ρ + 2√(ρ ln(1/δ)), δ)-DP (Bun & Steinke 2016), written out here."""
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


@pytest.mark.parametrize("loss", ["linear", "logistic"])
def test_peeling_is_charged_for_its_gumbel_selections_and_fit_gaussians(drawn, loss):
    """Peeling: s Gumbel selections at ε0 = 2Δ∞/β (Δ∞ = 2Kr/n, or 2K/n for labels) and the fit's Gaussians (ZᵀZ at
    √2·z², Zᵀy at 2r·z; or T gradients at 2z/n), z² = 1 + sK²: all read from the bundle's public parameters at full
    precision and checked against the drawn β and σ; the bundle's ρ parts add up to its (ε, δ)."""
    n, d, s, eps, delta, steps = 400, 20, 3, 1.0, 1e-5, 6
    data = sp.make_synthetic(n, d, s, loss=loss, n_test=1, rng=np.random.default_rng(5))
    extra = {"fit_T": steps} if loss == "logistic" else {}
    bundle = sp.release_sparse(data.X, data.y, sparsity=s, epsilon=eps, delta=delta, loss=loss, **extra)
    pp = bundle.public_params
    K, r = pp["K"], (pp["r"] if loss == "linear" else 1.0)
    z2 = 1.0 + s * K**2
    kinds = [k for k, _, _ in drawn]
    assert kinds == ["gumbel top-s"] + ["gaussian"] * (2 if loss == "linear" else steps)
    assert pp["score_sensitivity_linf"] == pytest.approx(2 * K * r / n, rel=1e-12)
    assert pp["gumbel_scale"] == drawn[0][1]
    eps0 = 2 * pp["score_sensitivity_linf"] / pp["gumbel_scale"]
    mechanisms = [("selection", eps0, s)]
    if loss == "linear":
        for name, sens, (_, sigma, _) in zip(("gram", "moment"), (math.sqrt(2) * z2, 2 * r * math.sqrt(z2)),
                                             drawn[1:]):
            assert pp[f"l2_sensitivity_{name}"] == pytest.approx(sens, rel=1e-12)
            assert pp[f"sigma_{name}"] == sigma
            mechanisms.append(("gaussian", sigma, sens))
    else:
        assert pp["gradient_steps"] == steps
        assert pp["l2_sensitivity_gradient"] == pytest.approx(2 * math.sqrt(z2) / n, rel=1e-12)
        assert all(sigma == pp["sigma_gradient"] for _, sigma, _ in drawn[1:])
        mechanisms += [("gaussian", pp["sigma_gradient"], pp["l2_sensitivity_gradient"])] * steps
    rho = s * eps0**2 / 8 + sum((sens / sigma) ** 2 / 2 for kind, sigma, sens in mechanisms if kind == "gaussian")
    assert rho <= pp["rho_total"] * (1 + 1e-9)
    assert _zcdp_epsilon(pp["rho_total"], delta) == pytest.approx(eps, rel=1e-9)  # the bundle's (ε, δ) holds
    delta_total = 1e-4
    reference = min(reference_epsilon(mechanisms, delta_total), _zcdp_epsilon(rho, delta_total))
    page_params = {"variant": "peeling", "loss": loss, "sparsity": s, "K": K, "r": pp["r"] if loss == "linear" else 1.0,
                   "intercept": pp["intercept"], "select_share": 0.5}
    charges = _charges(bundle, bundle.method, eps, sp.peel_parts(eps), page_params, delta_total)
    for how, charged in charges.items():
        assert_charged_as_drawn(charged, reference, f"peeling ({loss}), {how}")


def test_kt_private_support_is_charged_for_its_vote_laplace_and_response_gaussian(drawn):
    """KT with a private support: Laplace on the block votes at Δ1 = 2s/k (k = ⌊√n⌋ blocks; the bundle records the
    scale and k) and the Gaussian at the Δ2 the bundle records (recomputed here: ‖X̃_S‖op·(2√s·γ/(nλ) + 2·opt))."""
    n, d, s, eps, delta = 900, 60, 2, 2.0, 1e-5
    data = sp.make_synthetic(n, d, s, noise=0.1, n_test=1, rng=np.random.default_rng(3))
    bundle = sp.release_sparse(data.X, data.y, sparsity=s, epsilon=eps, delta=delta, B=5.0, variant="private_support")
    pp, derived = bundle.public_params, bundle.derived_params
    (k1, b_votes, _), (k2, sigma, _) = drawn
    assert (k1, k2) == ("laplace", "gaussian")
    assert pp["blocks"] == math.isqrt(n) and pp["vote_scale"] == b_votes
    assert derived["sigma"] == sigma
    S = np.sort(bundle.tables["coefficients"]["index"].to_numpy())
    p = sp.SparseParams(B=5.0)
    Xc, yc = sp.prepare(data.X, data.y, "linear", p)
    Xs = synthetic_features(pp["m"], d, p.K, pp["synthetic_seed"])[:, S].astype(float)
    _, opt_err = fixed_support_teacher(Xc[:, S][None], yc, pp["lambda"], "linear", p)
    gamma = p.K * (p.K * 5.0 + p.r)
    sens = np.linalg.norm(Xs, 2) * (2 * math.sqrt(s) * gamma / (n * pp["lambda"]) + 2 * float(opt_err[0]))
    assert derived["l2_sensitivity"] == pytest.approx(sens, rel=1e-9)
    mechanisms = [("laplace", pp["vote_scale"], 2 * s / pp["blocks"]), ("gaussian", derived["sigma"],
                                                                          derived["l2_sensitivity"])]
    delta_total = 1e-4
    reference = reference_epsilon(mechanisms, delta_total)
    parts = {"support selection (Laplace)": eps / 2, "synthetic responses (Gaussian)": eps / 2}
    page_params = {"variant": "private_support", "loss": "linear", "sparsity": s, "K": p.K, "r": p.r, "B": 5.0,
                   "m": pp["m"], "lambda": pp["lambda"], "T2": p.T2, "synthetic_seed": sp.DEFAULT_SYNTHETIC_SEED}
    charges = _charges(bundle, bundle.method, eps, parts, page_params, delta_total)
    for how, charged in charges.items():
        assert_charged_as_drawn(charged, reference, f"KT private support, {how}")


# ------------------------------------------------------------------ PAPRIKA


@pytest.mark.parametrize("ai", [False, True], ids=["PAPRIKA", "PAPRIKA AI"])
def test_paprika_is_charged_for_its_sparse_vector_noise_and_shift(drawn, ai):
    """PAPRIKA: c segments of SparseVector, each paying η/b_α (threshold) + 2η/b_t (a ⊤ answer), so
    ε = c·(η/b_α + 2η/b_t) from the scales the bundle records (checked against the drawn ones); the δ its recorded
    shift A covers, ``(2k/3)·exp(−(A + ln 2 − η)/b_t)`` (fdr.md), is at most the charged δ."""
    T, c, eps, delta, eta = 300, 20, 1.5, 1e-4, 0.03
    p = np.random.default_rng(4).uniform(size=T) ** 2
    bundle = fdr.release(p, alpha=0.1, epsilon=eps, delta=delta, sensitivity=fdr.stated_sensitivity(eta), cutoff=c,
                         ai=ai)
    pp = bundle.public_params
    (ka, b_alpha, _), (kt, b_test, _) = drawn
    assert (ka, kt) == ("laplace", "laplace")
    assert (pp["threshold_noise_scale"], pp["test_noise_scale"]) == (b_alpha, b_test)
    assert (pp["eta"], pp["cutoff"]) == (eta, c)
    eps_svt = pp["cutoff"] * (pp["eta"] / pp["threshold_noise_scale"] + 2 * pp["eta"] / pp["test_noise_scale"])
    delta_shift = (2 * pp["horizon"] / 3) * math.exp(-(pp["shift_A"] + math.log(2) - pp["eta"]) / pp["test_noise_scale"])
    assert eps_svt == pytest.approx(eps, rel=1e-9)
    assert delta_shift <= delta * (1 + 1e-9)
    for delta_total in (delta, 10 * delta):
        # dp-accounting's dominating pair of (ε, δ), and the statement itself where its δ fits in δ_total
        reference = min(reference_epsilon([("approx", eps_svt, delta_shift)], delta_total),
                        eps_svt if delta_shift <= delta_total * (1 + 1e-9) else math.inf)
        page_params = {"alpha": 0.1, "eta": eta, "eta_source": "stated", "cutoff": c, "lam": 0.2, "shift": fdr.STREAM,
                       "gamma": "power", "rule": "paper", "T": T}
        method = "PAPRIKA AI" if ai else "PAPRIKA"
        charges = _charges(bundle, f"{method} discovery list", eps, None, page_params, delta_total)
        for how, charged in charges.items():
            assert_charged_as_drawn(charged, reference, f"{method} at δ = {delta_total:g}, {how}")


# ------------------------------------------------------------------ several releases on one person


def test_a_history_of_gaussian_releases_at_other_sensitivities_is_charged_as_drawn(drawn):
    """Three releases read one person: two Gaussian survival releases (Δ2 = 2, the grouped matrix; Δ2 = √2) and a
    peeling release (Gaussians at √2·z² and 2r·z, selections). The ledger's tight ε of the whole history is the
    composition of the noises drawn (read from the bundles), never less — Gaussians compose by σ/Δ, not by σ."""
    rng = np.random.default_rng(8)
    n, delta, delta_total = 300, 1e-6, 1e-4
    time, event, group = rng.uniform(0, 100, n), rng.integers(0, 2, n), rng.choice(["a", "b"], n)
    grid = sv.make_grid(100.0, data_unit="days", grid_unit="weeks", width=2)
    ledger = Ledger(default_cap=Budget(1000.0, delta_total))
    mechanisms, basic = [], []
    for groups, statistic, eps in ((("a", "b"), "matrix", 0.8), (None, "histogram", 0.5)):
        bundle = sv.release(time, event, grid=grid, epsilon=eps, group=group if groups else None, groups=groups,
                            band_draws=10, statistic=statistic, noise_kind="gaussian", delta=delta)
        pp = bundle.public_params
        mechanisms.append(("gaussian", pp["noise_std_per_count"], pp["sensitivity_l2"]))
        basic.append((bundle.epsilon, bundle.delta))
        ledger.charge("cohort", bundle.method, eps, delta, params={"groups": list(groups or ["all"]),
                                                                   "statistic": statistic, "noise_kind": "gaussian"})
    data = sp.make_synthetic(n, 20, 3, n_test=1, rng=np.random.default_rng(9))
    bundle = sp.release_sparse(data.X, data.y, sparsity=3, epsilon=1.0, delta=1e-5)
    pp = bundle.public_params
    mechanisms += [("selection", 2 * pp["score_sensitivity_linf"] / pp["gumbel_scale"], 3),
                   ("gaussian", pp["sigma_gram"], pp["l2_sensitivity_gram"]),
                   ("gaussian", pp["sigma_moment"], pp["l2_sensitivity_moment"])]
    basic.append((bundle.epsilon, bundle.delta))
    ledger.charge("cohort", bundle.method, bundle.epsilon, bundle.delta, parts=sp.peel_parts(bundle.epsilon),
                  params={"variant": "peeling", "loss": "linear", "sparsity": 3, "K": pp["K"], "r": pp["r"],
                          "intercept": pp["intercept"], "select_share": 0.5})
    assert [k for k, _, _ in drawn] == ["gaussian", "gaussian", "gumbel top-s", "gaussian", "gaussian"]
    assert [m[1] for m in mechanisms if m[0] == "gaussian"] == pytest.approx(
        [scale for kind, scale, _ in drawn if kind == "gaussian"], rel=1e-12)
    reference = reference_epsilon(mechanisms, delta_total)
    if sum(d for _, d in basic) <= delta_total:
        reference = min(reference, sum(e for e, _ in basic))
    assert_charged_as_drawn(ledger.spent("cohort")[0], reference, "a history of three releases")
