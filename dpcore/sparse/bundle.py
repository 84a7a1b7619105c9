"""The release, OpenDP noise only, as a ReleaseBundle (data only): peeling + private fit (default) or KT with a
private support.

The paper's variant is refused. The figure its report shows is chosen by the report layer
(:mod:`dpcore.reporting.release_figures`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from dpcore.core.mechanisms import (
    Noise,
    analytic_gaussian_sigma,
)
from dpcore.reporting.release import ReleaseBundle
from dpcore.sparse.baseline_two_stage import block_votes
from dpcore.sparse.events import KT_PRIVATE_SUPPORT, PEELING
from dpcore.sparse.params import _setup
from dpcore.sparse.peeling import peel_plan, release_fit, release_support, screening_scores
from dpcore.sparse.private_support import kt_ps_sensitivity, kt_vote_noise
from dpcore.sparse.transfer import fixed_support_teacher, synthetic_features


def release_sparse(X, y, *, sparsity: int, epsilon: float, delta: float, loss: str = "linear", dataset: str = "data",
                   fingerprint: str = "", feature_names: Sequence[str] | None = None,
                   variant: str = "peeling", **params):
    """The exported sparse release (OpenDP noise only).

    ``variant="peeling"`` (default, :mod:`dpcore.sparse.peeling`): the s features peeled from full-data scores
    (OpenDP Gumbel top-s), then the fit on them (OpenDP Gaussian). ``variant="private_support"``
    (:func:`kt_private_support_batch`: OpenDP Laplace on the support votes, OpenDP Gaussian on the synthetic
    responses) is the knowledge-transfer comparison. The paper's variant is refused: its
    sensitivity bound assumes a teacher support that no single record can
    change, and on the pair of :func:`known_violation_scenarios`, where one
    record tips that support, the true privacy loss for a claimed ε = 1 is
    ε ≈ 690 (δ = 10⁻²; an audit with 10⁵ runs shows ε ≥ 9, all that many
    runs can show). It stays available for previews and for the audit page.

    The noise is OpenDP's (not seeded); with two strong features among twenty, peeling keeps two:

    >>> import numpy as np
    >>> from dpcore import sparse as sp
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(4000, 20))
    >>> y = X[:, 0] - X[:, 1] + rng.normal(0, 0.1, 4000)
    >>> bundle = sp.release_sparse(X, y, sparsity=2, epsilon=2.0, delta=1e-6)
    >>> bundle.epsilon, bundle.delta
    (2.0, 1e-06)
    >>> int((bundle.tables["coefficients"].peeled > 0).sum())
    2
    """
    if variant == "paper":
        raise ValueError(
            "The paper's knowledge-transfer release is refused: its privacy proof assumes that no single record can "
            "change the teacher's support; on a pair where one record does, a claimed ε = 1 is in truth ε ≈ 690 "
            "(an audit with 10⁵ runs shows ε ≥ 9). Release 'KT with private support' instead (variant='private_support')."
        )
    if variant == "peeling":
        return _release_peeling(X, y, sparsity=sparsity, epsilon=epsilon, delta=delta, loss=loss, dataset=dataset,
                                fingerprint=fingerprint, feature_names=feature_names, **params)
    if variant != "private_support":
        raise ValueError("variant must be 'peeling' or 'private_support' (the paper's variant cannot be released)")
    return _release_private_support(X, y, sparsity=sparsity, epsilon=epsilon, delta=delta, loss=loss,
                                    dataset=dataset, fingerprint=fingerprint, feature_names=feature_names, **params)


def _release_private_support(X, y, *, sparsity, epsilon, delta, loss, dataset, fingerprint, feature_names,
                             select_share: float = 0.5, **params):
    """OpenDP release of KT with a private support (see :func:`kt_private_support_batch` for the proof)."""
    p, _, X, y, s, _ = _setup(X, y, sparsity, [epsilon], delta, loss, None, params)
    n, d = X.shape
    e1, e2 = epsilon * select_share, epsilon * (1.0 - select_share)
    votes, k = block_votes(X, y, s, loss, p)
    vote_noise = kt_vote_noise(s, k, float(e1))
    noisy_votes = vote_noise.release(votes)
    S = np.sort(np.argsort(-noisy_votes)[:s])
    lam = p.ridge(n, d, s, e2, delta, loss)
    theta, opt_err = fixed_support_teacher(X[:, S][None], y, lam, loss, p)
    m = p.n_synthetic(n)
    Xs = synthetic_features(m, d, p.K, p.synthetic_seed)[:, S].astype(float)
    sens = float(kt_ps_sensitivity(n, s, p.gamma(loss), lam, float(opt_err[0]), np.linalg.norm(Xs, 2)))
    noise = Noise("gaussian", analytic_gaussian_sigma(sens, e2, delta), sens, float(e2), float(delta))
    y_syn = noise.release(Xs @ theta[0])
    coef_s = np.linalg.lstsq(Xs, y_syn, rcond=None)[0]
    coef = np.zeros(d)
    coef[S] = coef_s
    names = list(feature_names) if feature_names is not None else [f"x{j + 1}" for j in range(d)]
    tables = {
        "coefficients": pd.DataFrame({"feature": [names[j] for j in S], "index": S, "coefficient": coef[S]}),
        "synthetic_responses": pd.DataFrame({"i": np.arange(m), "y_synthetic": y_syn}),
        "noisy_votes": pd.DataFrame({"feature": names, "index": np.arange(d), "noisy_vote": noisy_votes}),
    }
    public = {"variant": "KT with private support", "loss": loss, "sparsity": s, "n": n, "d": d, "K": p.K, "r": p.r,
              "B": p.radius(), "lambda": lam, "lambda_rule": p.lam_rule if p.lam is None else "given", "m": m, "blocks": k, "select_share": select_share,
              "synthetic_seed": p.synthetic_seed,
              "synthetic_features": f"columns S of 2K * numpy.random.default_rng({p.synthetic_seed})"
                                    ".random((m, d), dtype=float32) - K",
              "vote_scale": vote_noise.scale}
    # σ and the sensitivity follow ‖X̃_S‖op and the teacher's bound on the privately selected support S
    derived = {"support": [names[j] for j in S], "sigma": noise.scale, "l2_sensitivity": sens}
    notes = ("Support: top s of Laplace-noised sample-and-aggregate votes (pure DP, ε·select_share). Teacher: the "
             "λ-strongly convex ridge fit on that public support inside the ℓ1 ball; sensitivity of X̃_Sθ̂ computed "
             "exactly with ‖X̃_S‖op (no probabilistic event). Student: least squares on the support (post-processing).",)
    return ReleaseBundle(
        method=KT_PRIVATE_SUPPORT, dataset=dataset, fingerprint=fingerprint,
        epsilon=float(epsilon), delta=float(delta),
        mechanisms=(f"Laplace on the d block votes: {vote_noise.describe()}",
                    f"Gaussian mechanism on the m = {m} synthetic responses X̃_Sθ̂_S: {noise.describe()}"),
        public_params=public, derived_params=derived, tables=tables,
        parts={"support selection (Laplace)": float(e1), "synthetic responses (Gaussian)": float(e2)},
        notes=notes)


def _release_peeling(X, y, *, sparsity, epsilon, delta, loss, dataset, fingerprint, feature_names,
                     select_share: float = 0.5, **params):
    """OpenDP release of peeling + private fit (proofs in :mod:`dpcore.sparse.peeling`)."""
    p, _, X, y, s, _ = _setup(X, y, sparsity, [epsilon], delta, loss, None, params)
    n, d = X.shape
    plan = peel_plan(n, s, float(epsilon), float(delta), loss, p, select_share)
    support = release_support(screening_scores(X, y), s, plan)
    theta, stats = release_fit(X, y, support, loss, plan, p)
    names = list(feature_names) if feature_names is not None else [f"x{j + 1}" for j in range(d)]
    rows = ([("(intercept)", -1, float(theta[0]), 0)] if p.intercept else []) + [
        (names[j], int(j), float(c), rank + 1) for rank, (j, c) in enumerate(zip(support, theta[-s:]))]
    coefficients = pd.DataFrame(rows, columns=["feature", "index", "coefficient", "peeled"])
    tables = {"coefficients": coefficients}
    labels = (["(intercept)"] if p.intercept else []) + [names[j] for j in support]
    if loss == "linear":
        tables["noisy_gram"] = pd.concat([pd.DataFrame({"feature": labels}),
                                          pd.DataFrame(stats["gram"], columns=labels)], axis=1)
        tables["noisy_moment"] = pd.DataFrame({"feature": labels, "noisy_Zty": stats["moment"]})
    else:
        tables["noisy_gradients"] = pd.DataFrame(stats["gradients"], columns=labels).rename_axis("step").reset_index()
    public = {"variant": "peeling + private fit", "loss": loss, "sparsity": s, "n": n, "d": d, "K": p.K,
              "r": p.r if loss == "linear" else None, "intercept": p.intercept, "select_share": select_share,
              "rho_total": plan.rho, "rho_selection": plan.rho_select, "rho_fit": plan.rho_fit,
              "score_sensitivity_linf": plan.score_sensitivity, "gumbel_scale": plan.gumbel_scale,
              **{f"sigma_{name}": nz.scale for name, nz in plan.noises.items()},
              **{f"l2_sensitivity_{name}": nz.sensitivity for name, nz in plan.noises.items()},
              **({"gradient_steps": p.fit_T, "step_size": float(p.fit_step or 2.0 / p.K**2)} if loss == "logistic"
                 else {})}
    derived = {"support (in the order peeled)": [names[j] for j in support]}
    fit_text = ("noisy sufficient statistics ZᵀZ and Zᵀy (Gaussian, half of the fit's ρ each), then least squares "
                "with the ridge AdaSSP reads off the noisy matrix" if loss == "linear" else
                f"{p.fit_T} noisy gradient steps of the logistic loss (Gaussian on each mean gradient)")
    notes = (f"Support: the s = {s} largest of the scores |Σ x_ij·y_i|/n after Gumbel noise (OpenDP make_noisy_top_k, "
             "the law of s exponential mechanisms in a row), every record counting in every score. Fit on that "
             f"support with{'' if p.intercept else 'out'} an intercept: {fit_text}. All parts are composed in zCDP "
             f"(ρ = {plan.rho:.4g}) and converted to (ε, δ) by ε = ρ + 2√(ρ ln(1/δ)); the budget parts below are "
             "the ρ shares of ε. Every noise scale depends only on n, s, K, r, ε and δ.",)
    mechanisms = tuple(plan.describe())
    return ReleaseBundle(
        method=PEELING, dataset=dataset, fingerprint=fingerprint,
        epsilon=float(epsilon), delta=float(delta), mechanisms=mechanisms, public_params=public, tables=tables,
        derived_params=derived, parts=peel_parts(epsilon, select_share), notes=notes)


def peel_parts(epsilon: float, select_share: float = 0.5) -> dict[str, float]:
    """The budget parts a peeling release is charged under (the zCDP shares of ε; they sum to ε)."""
    return {"support selection (Gumbel top-s)": float(epsilon) * select_share,
            "fit on the support (Gaussian)": float(epsilon) * (1.0 - select_share)}
