# ruff: noqa: I001  (imports in data-flow order, not alphabetical)
"""Robust private Bayesian linear regression (Honkela et al. 2018) for drug sensitivity.

The method follows the three stages of ``design.md``::

    records ──prepare (public / charged)──▶ clip at (Bx, By) ──▶ nxx, nxy, nyy  (sensitivities below)
            ──Laplace, budget split p1:p2:p3──▶ noisy statistics
            ──PSD repair + Bayesian posterior (fixed precisions or closed-form VB)──▶ coefficients

Everything after the noise is post-processing, so the same code run on the
exact statistics gives the non-private reference.

**Sensitivity proof:** :mod:`dpcore.regression.statistic` (its module docstring and
:func:`sensitivities`); the DP centres and σ's of the data preparation are calibrated in
:mod:`dpcore.regression.preparation`.

The files, in the order data flows (each imports only the ones above it):

1. ``linalg.py`` — constants and small numerical helpers (Spearman's ρ, triangle packing, PSD repair);
2. ``preparation.py`` — centring and scaling, public or DP (charged) centres and σ's;
3. ``statistic.py`` — **statistic**: clipped ``nxx, nxy, nyy`` and their sensitivities (proof);
4. ``mechanism.py`` — **mechanism**: Laplace with a budget split (:class:`StatNoise`);
5. ``posterior.py`` — **post-processing**: PSD repair and the Bayesian posterior;
6. ``estimator.py`` — :func:`robust_private_lr`, the three stages in one call;
7. ``baselines.py`` — **baselines**: output perturbation, functional mechanism;
8. ``adassp.py`` — AdaSSP (Wang 2018): Gaussian sufficient statistics with a private adaptive ridge (proofs);
9. ``events.py`` — the privacy events of the releases (:func:`release_events`), as the ledger composes them
   (found through :mod:`dpcore.registry`);
10. ``tuning.py`` — free threshold and budget-split searches on public synthetic data;
11. ``evaluation.py`` — **simulators**: Monte-Carlo CV, utility curves, the page's preview;
12. ``public_rows.py`` — public rows added without noise;
13. ``data.py`` — uploaded CSVs mapped to ``(X, y)``;
14. ``examples.py`` — scikit-learn's diabetes data with public per-feature ranges (tests, benchmarks);
15. ``bundle.py`` — :func:`release_adassp` (the page's default) and :func:`release` (robust private LR, the paper's):
    one OpenDP release as a ReleaseBundle (data only);
16. ``figures.py`` — Plotly figures of the results above (imported by pages, never by the files above);
17. ``audit.py`` — black-box audit scenarios;
18. ``attack_pair.py`` — the attacker's pair from a data set (:func:`regression_pair`: one record replaced);
19. ``page_text.py`` — the drug-sensitivity page's prose (help texts, captions, explanations) as plain strings;
20. ``session.py`` — what that page computes between its controls and its figures: its data sources, named seed
    streams (shared with its notebook), the preview, the CV runs and the release's charged parts.

This ``__init__`` is the public API (``from dpcore import regression as R; R.release(...)``); the
evaluation and tuning helpers are imported from their modules
(``from dpcore.regression.evaluation import monte_carlo_cv``).
"""

from dpcore.regression.linalg import (  # noqa: F401
    DEFAULT_PREP_SHARE, DEFAULT_SPLIT, METHOD, MODELS, OMEGA_GRID, psd_repair, r2_rmse, spearman, triu_pack,
    triu_unpack,
)
from dpcore.regression.preparation import (  # noqa: F401
    dp_column_mean, dp_mean, dp_sigma, feature_bounds, normalise_rows, Preparation, prepare,
)
from dpcore.regression.statistic import (  # noqa: F401
    clip, clip_features, prediction_features, sensitivities, Stats, sufficient_stats,
)
from dpcore.regression.mechanism import (  # noqa: F401
    stat_noise, StatNoise,
)
from dpcore.regression.posterior import (  # noqa: F401
    fit_stats, noise_ridge, Posterior, posterior_fixed, posterior_vb,
)
from dpcore.regression.estimator import (  # noqa: F401
    robust_private_lr, RobustPrivateLR,
)
from dpcore.regression.baselines import (  # noqa: F401
    functional_mechanism_coef, output_perturbation_coef,
)
from dpcore.regression.tuning import tune_thresholds  # noqa: F401
from dpcore.regression.public_rows import (  # noqa: F401
    fixed_public_ids, PUBLIC_RULE_SEED, PublicRows,
)
from dpcore.regression.data import (  # noqa: F401
    feature_ranges, regression_from_frame,
)
from dpcore.regression.adassp import (  # noqa: F401
    ADASSP, ADASSP_SPLIT, adassp_delta,
)
from dpcore.regression.bundle import (  # noqa: F401
    INTERCEPT, release, release_adassp,
)
from dpcore.regression.audit import (  # noqa: F401
    audit_scenarios,
)
from dpcore.regression.attack_pair import regression_pair  # noqa: F401

__all__ = ["DEFAULT_PREP_SHARE", "DEFAULT_SPLIT", "METHOD", "MODELS", "OMEGA_GRID", "psd_repair", "r2_rmse",
    "spearman", "triu_pack", "triu_unpack", "dp_column_mean", "dp_mean", "dp_sigma", "feature_bounds",
    "normalise_rows", "Preparation", "prepare", "clip", "clip_features", "prediction_features", "sensitivities",
    "Stats", "sufficient_stats", "stat_noise", "StatNoise", "fit_stats", "noise_ridge", "Posterior",
    "posterior_fixed", "posterior_vb", "robust_private_lr", "RobustPrivateLR", "functional_mechanism_coef",
    "output_perturbation_coef", "tune_thresholds", "fixed_public_ids", "PUBLIC_RULE_SEED", "PublicRows",
    "feature_ranges", "regression_from_frame", "ADASSP", "ADASSP_SPLIT", "adassp_delta", "INTERCEPT", "release",
    "release_adassp", "audit_scenarios", "regression_pair"]
