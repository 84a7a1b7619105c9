# ruff: noqa: I001  (imports in data-flow order, not alphabetical)
"""Private online false discovery rate control: PAPRIKA against SAFFRON, LORD++ and alpha-investing.

Specification: ``shared/docs/fdr.md`` (Zhang, Kamath & Cummings, "PAPRIKA").

**Sensitivity proof:** :mod:`dpcore.fdr.sensitivity` (its module docstring, and
:func:`eta_binomial_exact` for the binomial test); the SparseVector calibration and the threshold
shift are proved in :mod:`dpcore.fdr.calibration` (:func:`stream_shift`).

The files, in the order data flows (each imports only the ones above it):

1. ``sensitivity.py`` — **statistic**: the floored log p-value stream, its sensitivity η (proof), uploads;
2. ``calibration.py`` — **mechanism** calibration: γ sequences, SparseVector scales, the shift;
3. ``core.py`` — the compiled sequential core shared by every γ-based rule;
4. ``rules.py`` — **baselines**: SAFFRON, SAFFRON AI, LORD++, alpha-investing (non-private);
5. ``paprika.py`` — the **private rule**: PAPRIKA (AI) noise and run;
6. ``one_call.py`` — one-call functions, :class:`Settings`, :func:`run_all`;
7. ``simulate.py`` — **simulators** of p-value streams with known truth;
8. ``evaluation.py`` — **post-processing**: FDP, power, summary tables;
9. ``sweeps.py`` — privacy–utility curves over ε (:class:`FdrUtilityCurve`, a kernel ``UtilityCurve``);
10. ``frontier.py`` — the release path's power over records per test × cutoff × ε (public simulations);
11. ``bundle.py`` — :func:`release`: one OpenDP run as a ReleaseBundle (data only);
12. ``figures.py`` — Plotly figures of the results above (imported by pages, never by the files above);
13. ``audit.py`` — audit scenarios (neighbouring pairs for the black-box audit, and pairs built from a stream
    for the attacker's view: :func:`data_scenario`);
14. ``reference.py`` — the per-stream Python loops the compiled core is tested against;
15. ``page_text.py`` — the FDR page's prose (plain strings);
16. ``session.py`` — the FDR page's work without Streamlit: its choices, named seed streams, views' tables and
    sentences (through this face, as the page calls it).

This ``__init__`` is the public API (``from dpcore import fdr; fdr.release(...)``).

A stream of p-values ``p_1, p_2, …`` arrives; at each step a rule decides at
once whether to reject (a *discovery*). All rules here run **R streams in one
call**: runs, rules, π1 values and ε values are stacked on one run axis, each
row with its own parameters, and one compiled kernel (numba) makes one pass
over time per row. The decision at ``t`` depends on the decisions before it,
so time cannot be vectorised; a NumPy loop over time with arrays over runs
reached only ≈ 35× a per-run Python loop (the ~20k rejection updates and
alpha-investing's wealth recursion cost ≈ 1 µs each as array operations), the
compiled pass ≈ 140× (``bench/bench_fdr.py``). Noise is drawn as arrays
beforehand; the kernel only compares.

Shared bookkeeping (one implementation for every γ-based rule)
---------------------------------------------------------------
SAFFRON, SAFFRON AI, LORD++, PAPRIKA and PAPRIKA AI all compute

    s_t = W_0 γ[1 + N(t−1) − K_0] + W_1 γ[1 + N(t−1) − K_1] + Σ_{j≥2} W_j γ[1 + N(t−1) − K_j]

with weights ``W_0 = w0``, ``W_1 = b0 − w0``, ``W_j = b0`` (``j ≥ 2``), a
*clock* ``N(t)`` and ``K_j = N(τ_j)`` the clock at the j-th rejection
(``K_0 = 0``). The core keeps, per run, ``F(n) = Σ_j W_j γ[1 + n − K_j]`` as a
table over clock values, so a step is one gather ``F(N)`` and a rejection one
slice update. Two clocks:

* ``"time"``: ``N(t) = t`` → indices ``t − τ_j`` (LORD++, PAPRIKA paper rule);
* ``"candidates"``: ``N(t) = t − C_{0+}(t)`` (non-candidates so far) →
  indices ``t − τ_j − C_{j+}(t−1)`` as in SAFFRON (and the authors' PAPRIKA code).

Indeed ``t − τ_j − C_{j+}(t−1) = 1 + N(t−1) − N(τ_j)`` because
``C_{j+}(t−1) = C_{0+}(t−1) − C_{0+}(τ_j)``. The threshold is then
``α_t = min(cap, s_t)`` (constant λ) or ``α_t = s_t / (1 + f s_t)`` (the
alpha-investing choice ``λ_t = α_t``; ``f = 1`` for SAFFRON AI, ``f = 2`` for
PAPRIKA AI whose candidates use ``2λ_t``).

Alpha-investing (Foster & Stine 2008) keeps a scalar wealth instead and has
its own small kernel.

Privacy of PAPRIKA (SparseVector on ``log p``)
----------------------------------------------
Each p-value has multiplicative sensitivity ``η``: on neighbouring data sets
``|log p − log p'| ≤ η`` for p above the floor ``μ`` (flooring is 1-Lipschitz
in ``log``, so ``log max(p, μ)`` has additive sensitivity ``η``). Threshold
noise ``Z_α ~ Lap(2ηc/ε)`` (redrawn after each rejection) and per-test noise
``Z_t ~ Lap(4ηc/ε)`` are SparseVector's calibration for ``c`` ⊤ answers of a
sensitivity-η query stream: each of the ``c`` segments costs ``ε/(2c)`` for
the threshold (shift η against scale 2ηc/ε) plus ``ε/(2c)`` for its ⊤ query
(shift 2η against scale 4ηc/ε); c segments compose to ε. The thresholds
``α_t`` must be functions of released decisions only — true for the paper's
time clock, false for the candidate clock of the authors' code. Candidacy
``p_t < 2λ`` is not noised, and one person moves *every* log p of the stream
(each test runs on the same records), so up to k hypotheses can change candidacy
at once. Theorem 4's shift (s = 4) bounds the chance that one such flip matters
by δ; releases use :func:`stream_shift`, which bounds it by δ/k per hypothesis
and so by δ for the stream (proof in its docstring; the s = 4 shift gave
P = 0.07 ≫ δ on 800 boundary hypotheses). Only an η proven for the test
(:func:`binomial_sensitivity`) or stated by the user (:func:`stated_sensitivity`)
is released; the paper's √(ln n / n) is for previews.
"""

from dpcore.fdr.sensitivity import (  # noqa: F401
    binomial_pvalues, binomial_sensitivity, eta_binomial_exact, eta_normal_tail_exact, eta_paper, EtaSource, GammaKind,
    hypothesis_labels, LATTICE_RTOL, METHODS, on_binomial_lattice, P_FLOOR, paper_sensitivity,
    PRIVATE_METHODS, pvalues_from_frame, Rule, Sensitivity, stated_sensitivity, _binomial_tail_table,
)
from dpcore.fdr.calibration import (  # noqa: F401
    gamma_sequence, paprika_noise_scales, paprika_noises, paprika_shift, Shift, shift_label, shift_value, STREAM,
    stream_shift, THEOREM_4_SHIFT,
)
from dpcore.fdr.core import (  # noqa: F401
    log_pvalues, StreamResult, _alpha_investing_kernel, _compiled, _gamma_kernel,
)
from dpcore.fdr.rules import (  # noqa: F401
    FDRResult, run_alpha_investing, run_lord, run_saffron, run_saffron_ai,
)
from dpcore.fdr.paprika import (  # noqa: F401
    draw_paprika_noise, PaprikaNoise, run_paprika,
)
from dpcore.fdr.one_call import (  # noqa: F401
    alpha_investing, lord, paprika, run_all, run_method, saffron, Settings,
)
from dpcore.fdr.simulate import (  # noqa: F401
    page_stream, page_streams, simulate_bernoulli, simulate_truncexp, Streams, TRUNCEXP_MU0, TRUNCEXP_SIGMA0,
)
from dpcore.fdr.evaluation import (  # noqa: F401
    COMPARED_SHIFTS, fdp_power, fdr_bound, Metrics, metrics, mfdr, shift_cost, summary_table,
)
from dpcore.fdr.sweeps import (  # noqa: F401
    FdrUtilityCurve, sweep, utility_curve,
)
from dpcore.fdr.frontier import (  # noqa: F401
    design_floor, FRONTIER_CUTOFFS, FRONTIER_EPSILONS, FRONTIER_RECORDS, FRONTIER_RUNS, power_frontier,
    smallest_records_per_epsilon, smallest_working, TARGET_EPSILON, TARGET_POWER,
)
from dpcore.fdr.bundle import (  # noqa: F401
    release,
)
from dpcore.fdr.audit import (  # noqa: F401
    AUDIT_ALPHA, AUDIT_DELTA, AUDIT_ETA, audit_scenarios, BOUNDARY_CUTOFF, BOUNDARY_K, boundary_pair,
    candidacy_pair, data_scenario, move_signs, MOVES, neighbour_stream, svt_pair, _audit_sampler,
)

__all__ = ["binomial_pvalues", "binomial_sensitivity", "eta_binomial_exact", "eta_normal_tail_exact", "eta_paper",
    "EtaSource", "GammaKind", "hypothesis_labels", "LATTICE_RTOL", "METHODS", "on_binomial_lattice", "P_FLOOR",
    "paper_sensitivity", "PRIVATE_METHODS", "pvalues_from_frame", "Rule", "Sensitivity", "stated_sensitivity",
    "gamma_sequence", "paprika_noise_scales", "paprika_noises", "paprika_shift", "Shift", "shift_label",
    "shift_value", "STREAM", "stream_shift", "THEOREM_4_SHIFT", "log_pvalues", "StreamResult", "FDRResult",
    "run_alpha_investing", "run_lord", "run_saffron", "run_saffron_ai", "draw_paprika_noise", "PaprikaNoise",
    "run_paprika", "alpha_investing", "lord", "paprika", "run_all", "run_method", "saffron", "Settings",
    "page_stream", "page_streams", "simulate_bernoulli", "simulate_truncexp", "Streams", "TRUNCEXP_MU0",
    "TRUNCEXP_SIGMA0", "COMPARED_SHIFTS", "fdp_power", "fdr_bound", "Metrics", "metrics", "mfdr", "shift_cost",
    "summary_table", "sweep", "utility_curve", "FdrUtilityCurve", "design_floor", "FRONTIER_CUTOFFS",
    "FRONTIER_EPSILONS", "FRONTIER_RECORDS", "FRONTIER_RUNS", "power_frontier", "smallest_records_per_epsilon",
    "smallest_working", "TARGET_EPSILON", "TARGET_POWER", "release", "AUDIT_ALPHA", "AUDIT_DELTA", "AUDIT_ETA",
    "audit_scenarios", "BOUNDARY_CUTOFF", "BOUNDARY_K", "boundary_pair", "candidacy_pair", "data_scenario",
    "move_signs", "MOVES", "neighbour_stream", "svt_pair"]
