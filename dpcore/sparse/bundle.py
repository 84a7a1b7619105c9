"""The release: KT with a private support, OpenDP noise only, as a ReleaseBundle (data only).

The paper's variant is refused. The figure its report shows is chosen by the report layer
(:mod:`dpcore.release_figures`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from dpcore.mechanisms import (
    Noise,
    analytic_gaussian_sigma,
)
from dpcore.release import ReleaseBundle
from dpcore.sparse.baseline_two_stage import block_votes
from dpcore.sparse.params import _setup
from dpcore.sparse.private_support import kt_ps_sensitivity
from dpcore.sparse.transfer import fixed_support_teacher, synthetic_features


def release_sparse(X, y, *, sparsity: int, epsilon: float, delta: float, loss: str = "linear", dataset: str = "data",
                   fingerprint: str = "", feature_names: Sequence[str] | None = None,
                   variant: str = "private_support", **params):
    """The exported knowledge-transfer release: KT with private support (OpenDP noise only).

    Only ``variant="private_support"`` (:func:`kt_private_support_batch`:
    OpenDP Laplace on the support votes, OpenDP Gaussian on the synthetic
    responses) can be released. The paper's variant is refused: its
    sensitivity bound assumes a teacher support that no single record can
    change, and on the pair of :func:`known_violation_scenarios`, where one
    record tips that support, the true privacy loss for a claimed ε = 1 is
    ε ≈ 690 (δ = 10⁻²; an audit with 10⁵ runs shows ε ≥ 9, all that many
    runs can show). It stays available for previews and for the audit page.
    """
    if variant == "paper":
        raise ValueError(
            "The paper's knowledge-transfer release is refused: its privacy proof assumes that no single record can "
            "change the teacher's support; on a pair where one record does, a claimed ε = 1 is in truth ε ≈ 690 "
            "(an audit with 10⁵ runs shows ε ≥ 9). Release 'KT with private support' instead (variant='private_support')."
        )
    if variant != "private_support":
        raise ValueError("variant must be 'private_support' (the paper's variant cannot be released)")
    return _release_private_support(X, y, sparsity=sparsity, epsilon=epsilon, delta=delta, loss=loss,
                                    dataset=dataset, fingerprint=fingerprint, feature_names=feature_names, **params)


def _release_private_support(X, y, *, sparsity, epsilon, delta, loss, dataset, fingerprint, feature_names,
                             select_share: float = 0.5, **params):
    """OpenDP release of KT with a private support (see :func:`kt_private_support_batch` for the proof)."""
    p, _, X, y, s, _ = _setup(X, y, sparsity, [epsilon], delta, loss, None, params)
    n, d = X.shape
    e1, e2 = epsilon * select_share, epsilon * (1.0 - select_share)
    votes, k = block_votes(X, y, s, loss, p)
    vote_noise = Noise("laplace", 2.0 * s / (k * e1), 2.0 * s / k, float(e1))
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
              "sigma": noise.scale, "l2_sensitivity": sens, "vote_scale": vote_noise.scale}
    notes = ("Support: top s of Laplace-noised sample-and-aggregate votes (pure DP, ε·select_share). Teacher: the "
             "λ-strongly convex ridge fit on that public support inside the ℓ1 ball; sensitivity of X̃_Sθ̂ computed "
             "exactly with ‖X̃_S‖op (no probabilistic event). Student: least squares on the support (post-processing).",)
    return ReleaseBundle(
        method="Sparse regression by knowledge transfer (private support)", dataset=dataset, fingerprint=fingerprint,
        epsilon=float(epsilon), delta=float(delta),
        mechanisms=(f"Laplace on the d block votes: {vote_noise.describe()}",
                    f"Gaussian mechanism on the m = {m} synthetic responses X̃_Sθ̂_S: {noise.describe()}"),
        public_params=public, tables=tables,
        parts={"support selection (Laplace)": float(e1), "synthetic responses (Gaussian)": float(e2)},
        notes=notes)
