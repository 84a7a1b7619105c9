# ruff: noqa: I001  (imports in data-flow order, not alphabetical)
"""Differentially private survival analysis on a public time grid.

Specification: ``shared/docs/survival.md`` (Gondara & Wang, "Differentially Private Survival Function
Estimation", with the spec's fixes: a public grid and censoring counts).

**Sensitivity proof:** :mod:`dpcore.survival.statistic` (its module docstring and :func:`sensitivity`):
under replace-one, L1 sensitivity 2 for the default release (the histogram of group × bin × outcome, with or
without groups); the paper's matrix (the number at the start noised too) has 2, or 4 with several groups.

The files, in the order data flows (each imports only the ones above it):

1. ``grid.py`` — public inputs: the time grid, estimator names, the neighbouring relation;
2. ``resolution.py`` — public inputs: the custodian's declaration that times were recorded in whole units
   (:func:`whole_units`), with a hint for them to check that is never applied;
3. ``statistic.py`` — **statistic**: :func:`count_matrix` and its sensitivity (the proof);
4. ``mechanism.py`` — **mechanism**: :func:`noisy_counts` (NumPy preview, R draws) or
   :func:`release_counts` (one OpenDP discrete-Laplace draw);
5. ``events.py`` — the privacy events of the releases (:func:`release_events`), as the ledger composes them
   (found through :mod:`dpcore.registry`);
6. ``estimators.py`` — **post-processing**: :func:`postprocess`, :func:`km`, :func:`nelson_aalen_curve`,
   :func:`incidence_curve`, :func:`noise_band` (on exact counts: the non-private baseline, equal to lifelines
   on the binned data);
7. ``logrank.py`` — **post-processing**, the test: :func:`logrank_test` (noise-aware variance) and
   :func:`logrank_table`, the table a release's test reads;
8. ``read.py`` — **post-processing**, the curve read where a clinician reads it: one within-bin rule
   (:data:`WITHIN_BIN_RULE`), :func:`survival_at` (any time, from a released table), :func:`median_read`,
   :func:`rmst`, :func:`read_tables` (survival at chosen times, restricted mean, differences between groups);
9. ``reference.py`` — the **non-private** reference (previews and benchmarks only, never exported): lifelines'
   Kaplan–Meier on the exact times (:func:`lifelines_reference`) and what the grid and the noise cost
   (:func:`costs`);
10. ``one_call.py`` — one-call functions for notebooks: :func:`kaplan_meier`, :func:`nelson_aalen`,
   :func:`cumulative_incidence`, :func:`logrank`;
11. ``monte_carlo.py`` — Monte-Carlo utility over R draws and over ε (:class:`SurvivalUtilityCurve`);
12. ``planning.py`` — several releases on one budget: which noise (discrete Laplace or Gaussian) gives each
   less error (:func:`survival_plan`);
13. ``bundle.py`` — :func:`release`: one OpenDP release as a ReleaseBundle (data only);
14. ``figures.py`` — Plotly figures of the results above (imported by pages, never by the files above);
15. ``audit.py`` — worst-case neighbouring pairs for the black-box audit;
16. ``attack_pair.py`` — the attacker's pair from a data set (:func:`survival_pair`: one patient's record
    replaced), the worst case the attacker's view computes exactly;
17. ``hazard_ratio.py`` — **post-processing**, hazard ratios: the grouped piecewise-exponential (Cox) fit of
    released counts with its interval (sampling + privacy) and the per-interval proportional-hazards check;
18. ``cox_gd.py`` — adjusted hazard ratios with continuous covariates: the piecewise-exponential model by clipped
    noisy gradient descent (method B, its own sensitivity proof); measured in the bench, not on the page.
19. ``cox_score.py`` — adjusted hazard ratios by the padded score one step from 0 with the information from cheap
    releases (method C, its own sensitivity proof); measured in the bench, not on the page.
20. ``cox.py`` — :class:`DPCoxPHFitter`: one histogram of stratum × covariate cell × interval × outcome (its own
    sensitivity proof), fitted by ``hazard_ratio.py``;
21. ``cox_audit.py`` — worst-case pairs and planted bugs for the hazard-ratio releases' audit (methods A and C).
22. ``page_text.py`` — the survival page's prose (labels, help texts, captions), as plain strings;
23. ``session.py`` — what the survival page computes between its controls and its figures (the preview, its reads,
    the sweeps, the tables), with the preview's named seed streams the notebook repeats; not part of this face.

This ``__init__`` is the public API (``from dpcore import survival as sv; sv.count_matrix(...)``).
"""

from dpcore.survival.grid import (  # noqa: F401
    bin_index, bin_width_text, binned_for_lifelines, default_bin_width, Estimator, ESTIMATORS, Grid, GRID_RULE,
    target_bins,
    GroupLabelsFromDataWarning, make_grid, points_grid, RELATION,
)
from dpcore.survival.statistic import (  # noqa: F401
    count_matrix, Counts, DEFAULT_STATISTIC, l2_sensitivity, MappedData, sensitivity, STATISTICS, survival_from_frame,
    time_unit_warning,
)
from dpcore.survival.mechanism import (  # noqa: F401
    NOISE_KINDS, noise_for, noisy_counts, release_counts, survival_noise,
)
from dpcore.survival.estimators import (  # noqa: F401
    bootstrap_curves, curve_for, CurveSet, DEFAULT_RISK_SET, describe_median, incidence_curve, km, loglog_interval,
    isotonic_increasing, median_interval, median_survival, min_at_risk, MIN_AT_RISK, nelson_aalen_curve, noise_band,
    postprocess, reliable_edges, RISK_SETS, RiskTable, statistic_for,
)
from dpcore.survival.logrank import (  # noqa: F401
    linear_logrank, logrank_table, logrank_test, LOGRANK_LINEAR_MIN, LogrankArrays,
)
from dpcore.survival.read import (  # noqa: F401
    BAND_RULES, band_at, curve_table, DEFAULT_BAND, describe as describe_read, fine_times, first_below, median_read,
    median_table, on_resolution, path, read_tables, rmst,
    survival_at, WITHIN_BIN_RULE,
)
from dpcore.survival.reference import (  # noqa: F401
    costs, lifelines_reference, Reference,
)
from dpcore.survival.one_call import (  # noqa: F401
    cumulative_incidence, kaplan_meier, logrank, LogrankResult, nelson_aalen, SurvivalResult,
)
from dpcore.survival.monte_carlo import (  # noqa: F401
    metric_draws, SurvivalUtilityCurve, Utility, utility, utility_curve,
)
from dpcore.survival.bundle import (  # noqa: F401
    default_read_times, MEASURED_FRONTIER, READ_FRONTIER, READ_YEARS, release, released_tables,
)
from dpcore.survival.audit import (  # noqa: F401
    audit_scenarios,
)
from dpcore.survival.attack_pair import survival_pair  # noqa: F401
from dpcore.survival.hazard_ratio import (  # noqa: F401
    ESTIMAND, GroupedTable, hazard_ratios, HazardRatioFit, proportional_hazards_check, ProportionalHazardsCheck,
    stratified_labels,
)
from dpcore.survival.cox import (  # noqa: F401
    cut_at, CutPoints, DPCoxPHFitter,
)

__all__ = ["bin_index", "bin_width_text", "binned_for_lifelines", "default_bin_width", "Estimator", "ESTIMATORS",
    "Grid", "GRID_RULE", "target_bins", "GroupLabelsFromDataWarning", "make_grid", "points_grid", "RELATION",
    "count_matrix", "Counts", "DEFAULT_STATISTIC", "l2_sensitivity", "MappedData", "sensitivity", "STATISTICS",
    "survival_from_frame", "time_unit_warning", "NOISE_KINDS", "noise_for", "noisy_counts", "release_counts",
    "survival_noise", "bootstrap_curves", "curve_for", "CurveSet", "DEFAULT_RISK_SET", "describe_median",
    "incidence_curve", "km", "loglog_interval", "isotonic_increasing", "median_interval", "median_survival",
    "min_at_risk", "MIN_AT_RISK", "nelson_aalen_curve", "noise_band", "postprocess", "reliable_edges", "RISK_SETS",
    "RiskTable", "statistic_for", "linear_logrank", "logrank_table", "logrank_test", "LOGRANK_LINEAR_MIN",
    "LogrankArrays", "BAND_RULES", "band_at", "curve_table", "DEFAULT_BAND", "describe_read", "fine_times",
    "first_below", "median_read", "median_table", "on_resolution", "path", "read_tables", "rmst", "survival_at",
    "WITHIN_BIN_RULE", "costs", "lifelines_reference", "Reference", "cumulative_incidence", "kaplan_meier",
    "logrank", "LogrankResult", "nelson_aalen", "SurvivalResult", "metric_draws", "Utility", "utility",
    "utility_curve", "SurvivalUtilityCurve", "default_read_times", "MEASURED_FRONTIER", "READ_FRONTIER", "READ_YEARS",
    "release", "released_tables", "audit_scenarios", "survival_pair", "ESTIMAND", "GroupedTable", "hazard_ratios",
    "HazardRatioFit", "proportional_hazards_check", "ProportionalHazardsCheck", "stratified_labels", "cut_at", "CutPoints", "DPCoxPHFitter"]
