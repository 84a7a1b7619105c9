# ruff: noqa: I001  (imports in data-flow order, not alphabetical)
"""DP sparse linear / logistic regression: peeling + private fit (the default release), knowledge transfer
(Wang & Gu, AAAI 2020) and the baselines.

Specification: ``shared/docs/sparse.md``; the default release is measured in ``docs/sparse.md``.

**Sensitivity proof:** the default release (peeling over full-data scores, then a private fit on the peeled
support): :mod:`dpcore.sparse.peeling` (:func:`screening_sensitivity`, :func:`fit_sensitivities`); KT with a
private support: :mod:`dpcore.sparse.private_support` (:func:`kt_ps_sensitivity`); the paper's variant
(previews only): :mod:`dpcore.sparse.transfer` (:func:`kt_sensitivity`, under :data:`KT_ASSUMPTIONS`); the
baselines' calibrations in their own files.

The files, in the order data flows (each imports only the ones above it):

1. ``solver.py`` — public clipping bounds, hard thresholding, IGHT, losses (shared numerics);
2. ``params.py`` — public parameters, input set-up, the result type :class:`SparseFit`;
3. ``transfer.py`` — teacher → **statistic** ``X̃θ̂`` + sensitivity → **mechanism** → student;
4. ``baseline_dp_ight.py``, ``baseline_frank_wolfe.py``, ``baseline_two_stage.py`` — **baselines**;
5. ``private_support.py`` — KT with a private support: its sensitivity (proof), Gaussian;
6. ``peeling.py`` — the default release: peeling over full-data scores, then a private fit (proofs);
7. ``events.py`` — the privacy events of the releases (:func:`release_events`), as the ledger composes them
   (found through :mod:`dpcore.registry`);
8. ``simulate.py`` — **simulator** with a known θ*, metrics (post-processing);
9. ``curves.py`` — privacy–utility curves over ε and R draws for every method (:class:`SparseUtilityCurve`);
10. ``data.py`` — GDSC problems and uploaded CSVs;
11. ``bundle.py`` — :func:`release_sparse`: one OpenDP release as a ReleaseBundle (data only);
12. ``figures.py`` — Plotly figures of the results above (imported by pages, never by the files above);
13. ``peeling_audit.py`` — black-box audit pairs of the default release (the selection tipped, records at bounds)
    and its attacker's pair built from a data set (:func:`peel_data_scenario`);
14. ``audit.py`` — black-box audit scenarios, including the known support-flip violation, and pairs built
    from a data set for KT with private support (:func:`data_scenario`).
15. ``session.py`` — what the Sparse page computes (the preview, the curves, the release's terms, the seed
    streams a notebook shares), calling the methods through this face;
16. ``page_text.py`` — what the Sparse page says (plain strings).

This ``__init__`` is the public API (``from dpcore import sparse; sparse.knowledge_transfer(...)``).

The method in three stages, as in ``design.md``:

1. **Teacher** (not private): IGHT on ``L_S(θ) + (λ/2)‖θ‖²`` s.t. ``‖θ‖0 ≤ s``.
2. **Knowledge transfer** (the only mechanism): public synthetic features
   ``X̃ ~ Uniform[−K, K]^{m×d}`` (drawn from a *public* seed, data-independent)
   and Gaussian-mechanism responses ``y^p = X̃ θ̂ + ξ``.
3. **Student** (post-processing): IGHT on ``(1/2m)‖y^p − X̃θ‖²``.

Baselines with the same one-call signature: :func:`nonprivate_ight`,
:func:`dp_ight`, :func:`dp_frank_wolfe`, :func:`two_stage`.

Every private method is vectorised over an ε grid *and* R draws: the
``*_batch`` functions return coefficients of shape ``(n_eps, R, d)`` from one
batched iteration (no Python loop over draws or ε).

Privacy assumptions of the knowledge-transfer release (stated in every
privacy report, see :data:`KT_ASSUMPTIONS`):

* the ℓ2 sensitivity ``‖θ̂(S) − θ̂(S')‖2 ≤ 2√s γ /(nλ)`` is the one of the
  exact minimiser of a λ-strongly convex objective whose per-example
  gradient is ``γ``-bounded in ℓ∞ on ``s`` coordinates. The IGHT teacher is
  the (approximate) minimiser of a *non-convex* ℓ0-constrained problem: when
  one record changes which ``s`` coordinates are kept, the teacher can move
  by O(1), not O(1/n). The audit scenario ``support flip`` exhibits this
  (see :func:`known_violation_scenarios` and ``docs/sparse.md``);
* ``‖X̃ v‖2 ≤ √(mβ) ‖v‖2`` for the sparse difference ``v`` (``β = K²/3``), the
  paper's "with probability ≥ 1 − δ/2" event, which is why δ is split;
* ``σ`` is the paper's textbook-Gaussian formula at ``δ/2``; that formula is
  only valid for ε ≤ 1 (privacy.md), so by default we take the larger of it
  and the analytic Gaussian σ for the same sensitivity at ``(ε, δ/2)``.
"""

from dpcore.sparse.solver import (  # noqa: F401
    clip_features, clip_responses, hard_threshold, ight, l1_rescale, loss_gradient, loss_value, project_l1_ball,
    restricted_smoothness,
)
from dpcore.sparse.params import (  # noqa: F401
    DEFAULT_SYNTHETIC_SEED, KT_ASSUMPTIONS, LAMBDA_RULES, LOSSES, METHOD_LABELS, METHODS, prepare, PRIVATE_METHODS,
    SparseFit, SparseParams,
)
from dpcore.sparse.transfer import (  # noqa: F401
    fixed_support_teacher, knowledge_transfer, knowledge_transfer_batch, kt_noise, kt_plan, kt_sensitivity,
    kt_sigma_paper, KTPlan, nonprivate_ight, student_fit, synthetic_features, teacher_fit,
)
from dpcore.sparse.baseline_dp_ight import (  # noqa: F401
    dp_ight, dp_ight_batch, dp_ight_gradient_bound, dp_ight_noise,
)
from dpcore.sparse.baseline_frank_wolfe import (  # noqa: F401
    dp_frank_wolfe, frank_wolfe_batch, frank_wolfe_scale, frank_wolfe_scale_spec,
)
from dpcore.sparse.baseline_two_stage import (  # noqa: F401
    block_lasso, block_votes, noisy_top_s, objective_perturbation_params, two_stage, two_stage_batch,
    two_stage_vote_scale,
)
from dpcore.sparse.private_support import (  # noqa: F401
    knowledge_transfer_private_support, kt_private_support_batch, kt_ps_sensitivity,
)
from dpcore.sparse.peeling import (  # noqa: F401
    design, fit_sensitivities, gram_matrix, gram_vector, noisy_gradient_descent, peel_fit, peel_fit_batch, peel_plan,
    PeelPlan, screening_scores, screening_sensitivity, solve_noisy_statistics,
)
from dpcore.sparse.simulate import (  # noqa: F401
    make_synthetic, metrics, SparseData, support_scores, test_error,
)
from dpcore.sparse.curves import (  # noqa: F401
    BATCH, convergence, ONE_CALL, SparseUtilityCurve, utility_curve,
)
from dpcore.sparse.data import (  # noqa: F401
    TRAIN_SHARE, clipping_report, gdsc_problem, sparse_from_frame, upload_split,
)
from dpcore.sparse.bundle import (  # noqa: F401
    peel_parts, release_sparse,
)
from dpcore.sparse.peeling_audit import (  # noqa: F401
    peel_audit_scenarios, peel_data_scenario, PEEL_BUGS,
)
from dpcore.sparse.audit import (  # noqa: F401
    AUDIT_DELTA, AUDIT_RAW_FACTOR, audit_scenarios, BUG_LABELS, data_scenario, gaussian_shift_epsilon,
    known_violation_scenarios,
    _kt_audit_pair,
)

__all__ = ["clip_features", "clip_responses", "hard_threshold", "ight", "l1_rescale", "loss_gradient", "loss_value",
    "project_l1_ball", "restricted_smoothness", "DEFAULT_SYNTHETIC_SEED", "KT_ASSUMPTIONS", "LAMBDA_RULES", "LOSSES",
    "METHOD_LABELS", "METHODS", "prepare", "PRIVATE_METHODS", "SparseFit", "SparseParams", "fixed_support_teacher",
    "knowledge_transfer", "knowledge_transfer_batch", "kt_noise", "kt_plan", "kt_sensitivity", "kt_sigma_paper",
    "KTPlan", "nonprivate_ight", "student_fit", "synthetic_features", "teacher_fit", "dp_ight", "dp_ight_batch",
    "dp_ight_gradient_bound", "dp_ight_noise", "dp_frank_wolfe", "frank_wolfe_batch", "frank_wolfe_scale",
    "frank_wolfe_scale_spec", "block_lasso", "block_votes", "noisy_top_s", "objective_perturbation_params",
    "two_stage", "two_stage_batch", "two_stage_vote_scale", "knowledge_transfer_private_support",
    "kt_private_support_batch", "kt_ps_sensitivity", "design", "fit_sensitivities", "gram_matrix", "gram_vector",
    "noisy_gradient_descent", "peel_fit", "peel_fit_batch", "peel_plan", "PeelPlan", "screening_scores",
    "screening_sensitivity", "solve_noisy_statistics", "make_synthetic", "metrics", "SparseData", "support_scores",
    "test_error", "BATCH", "convergence", "ONE_CALL", "utility_curve", "SparseUtilityCurve", "TRAIN_SHARE",
    "clipping_report", "gdsc_problem", "sparse_from_frame", "upload_split", "peel_parts", "release_sparse",
    "peel_audit_scenarios", "peel_data_scenario", "PEEL_BUGS", "AUDIT_DELTA", "AUDIT_RAW_FACTOR", "audit_scenarios",
    "BUG_LABELS", "data_scenario", "gaussian_shift_epsilon", "known_violation_scenarios"]
