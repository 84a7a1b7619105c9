"""Representative, seeded inputs for every public figure builder (shared by the figure tests and benchmarks)."""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd

from dpcore.reporting import attack
from dpcore.reporting import attack_figures as AF
from dpcore.reporting import figures as F
from dpcore.reporting import release_figures as LF
from dpcore.ledger import Spend
from dpcore.ledger import figures as ledger_figures
from dpcore import survival as sv
from dpcore.fdr import figures as ff
from dpcore.fdr.core import StreamResult
from dpcore.fdr.sensitivity import METHODS as FDR_METHODS
from dpcore.fdr.sweeps import FdrUtilityCurve as FdrCurve
from dpcore.regression import figures as rf
from dpcore.regression.linalg import MODELS
from dpcore.sparse import figures as spf
from dpcore.survival import figures as sf
from dpcore.survival.cox import lifelines_reference as cox_reference
from dpcore.survival.estimators import CurveSet
from dpcore.survival.monte_carlo import SurvivalUtilityCurve as SurvCurve


def _curves(rng, groups=("arm <A>", "arm B"), k=60):
    times = np.linspace(0, 24, k + 1)
    est = np.clip(np.exp(-np.cumsum(rng.uniform(0, 0.05, (len(groups), k + 1)), axis=1)), 0, 1)
    return CurveSet(times=times, estimate=est, variance=est * 0.01, ci_lower=np.clip(est - 0.08, 0, 1),
                    ci_upper=np.clip(est + 0.08, 0, 1), groups=tuple(groups))


def _surv_utility(rng, groups=True):
    eps = np.array([0.1, 0.3, 1.0, 3.0, 10.0])
    u = lambda: rng.gamma(2.0, 0.05, (eps.size, 40)) / eps[:, None] ** 0.5  # noqa: E731
    return SurvCurve(epsilons=eps, sup_error=u(), integrated_error=u(), median_error=u(), coverage=u(),
                     logrank_agree=(rng.random((eps.size, 40)) < 0.8).astype(float) if groups else None,
                     p_value=None, exact_p_value=None, estimator="km")


def _hazard_ratio_fit(rng, n=400):
    """A seeded private fit of a simulated two-arm trial (true HR 0.6): its summary, lifelines' fit on the same
    rows, and the fitter."""
    arm = rng.integers(0, 2, n)
    time = rng.exponential(1.0 / np.where(arm == 1, 0.6, 1.0)) * 12
    frame = pd.DataFrame({"time": np.minimum(time, 36.0), "event": (time < 36.0).astype(int), "arm": arm})
    fitter = sv.DPCoxPHFitter(epsilon=2, bounds={"arm": (0, 1)}, horizon=36, intervals=4).fit(
        frame, "time", "event", rng=rng)
    return fitter.summary, cox_reference(frame, "time", "event", fitter), fitter


def _hazard_ratio_curve():
    eps = np.array([0.5, 1.0, 2.0, 5.0, 10.0])
    return pd.DataFrame({"epsilon": eps, "median_abs_diff": 0.4 / eps, "q90_abs_diff": 0.9 / eps,
                         "share_significant": np.minimum(1.0, 0.3 * eps), "exact_significant": 1.0})


def _stream(rng, T=300):
    p = np.where(rng.random(T) < 0.1, rng.random(T) ** 8, rng.random(T))
    p[5] = 1e-30
    truth = p < 0.01
    rej = (p < 0.002) & (np.arange(T) < 250)
    alpha = np.full(T, 0.05) * np.exp(-np.arange(T) / 200)
    thr = np.log(alpha) - 3 + rng.normal(0, 0.5, T)
    private = StreamResult("PAPRIKA (private)", rej, alpha, p < 0.4, log_threshold=thr, params=dict(lam=0.2, ai=False))
    base = StreamResult("SAFFRON", p < 0.001, alpha * 1.5, np.ones(T, bool))
    return private, p, truth, base


def _frontier_table(rng):
    """A power frontier's shape: records × cutoffs × ε with power rising in records and ε (c = 10 never reaches 0.8)."""
    grid = [(n, c, e) for n in (500, 2000, 8000) for c in (10, 40) for e in (1.0, 5.0, 20.0)]
    return pd.DataFrame([dict(records=n, cutoff=c, epsilon=e, power=min(c / 40, n * e / 40000), power_se=0.01,
                              FDR=rng.uniform(0, 0.02), FDR_se=0.001, floor=1e-20, eta=1.0, shift_A=100.0)
                         for n, c, e in grid])


def _fdr_table(rng, xs=(0.1, 0.5, 1.0, 2.0)):
    rows = [dict(method=m, x=x, FDR=rng.uniform(0, 0.1), FDR_se=rng.uniform(0, 0.01), power=rng.uniform(0.2, 0.9),
                 power_se=rng.uniform(0, 0.02)) for m in FDR_METHODS + ("PAPRIKA (authors' code rule)",) for x in xs]
    return pd.DataFrame(rows)


def cases():
    """``{case name: zero-argument callable building the figure}`` on seeded inputs."""
    rng = np.random.default_rng(14)
    cs, cs_exact = _curves(rng), _curves(rng)
    draws = np.clip(cs.estimate[0] + rng.normal(0, 0.05, (200, cs.times.size)), 0, 1)
    eps = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
    sizes = [50, 100, 200, 400]
    rho_eps = rng.uniform(-0.1, 0.6, (len(MODELS), len(eps), 10))
    rho_size = rng.uniform(-0.1, 0.6, (len(MODELS), len(sizes), 10))
    private, p, truth, base = _stream(rng_fixed(15))  # its own seed: a new model elsewhere must not move it
    table = _fdr_table(rng)
    summary = table[table["x"] == 1.0].drop(columns="x").reset_index(drop=True)
    fcurve = FdrCurve(np.array([0.5, 1.0, 5.0]), rng.uniform(0, 0.1, (3, 20)), rng.uniform(0.3, 0.9, (3, 20)),
                      np.ones((3, 20)), "PAPRIKA")
    coefs = {"truth θ*": np.r_[1.0, 0, -2.0, 0.5, np.zeros(6)], "DP-IGHT": np.r_[0.8, 0.1, -1.5, 0, np.zeros(6)]}
    sp_curve = SimpleNamespace(epsilons=np.array([0.5, 1.0, 2.0, 5.0]), methods=["nonprivate", "kt"],
                               values={m: {"f1": rng.uniform(0, 1, (4, 8))} for m in ("nonprivate", "kt")})
    choice = SimpleNamespace(grid=np.array([0.1, 0.3, 1.0, 3.0]), lower=np.array([0.1, 0.3, 0.6, 0.8]),
                             upper=np.array([0.3, 0.5, 0.8, 0.95]), estimate=np.array([0.2, 0.4, 0.7, 0.9]),
                             target=0.7, epsilon=1.0)
    audit_res = SimpleNamespace(threshold=0.3)
    a, b = rng.normal(0, 1, 500), rng.normal(0.3, 1, 500)
    splits = rng.dirichlet([1, 1, 1], 12)
    return {
        "regression.rho_panels": lambda: rf.rho_panels(eps, rho_eps, sizes, rho_size, epsilon=1.0, n_private=200,
                                                       equivalent=120.0),
        "regression.rho_panels_plain": lambda: rf.rho_panels(eps, rho_eps, sizes, rho_size, epsilon=0.5, n_private=100,
                                                             shown=MODELS[:2]),
        "regression.rho_vs_epsilon": lambda: rf.rho_vs_epsilon(eps, rho_eps, chosen=2.0),
        "regression.rho_vs_size": lambda: rf.rho_vs_size(sizes, rho_size, chosen_size=200, equivalent=150.0),
        "regression.predicted_vs_observed": lambda: rf.predicted_vs_observed(
            rng_fixed(1).normal(size=30), rng_fixed(2).normal(size=30), rng_fixed(3).normal(size=30),
            rho_private=0.4, rho_nonprivate=0.6, y_label="AUC <x>"),
        "regression.rho_draws_histogram": lambda: rf.rho_draws_histogram(rng_fixed(4).normal(0.4, 0.1, 200), 0.55),
        "regression.tuning_heatmap": lambda: rf.tuning_heatmap([0.1, 1.0, 16.0], [0.5, 2.0], np.arange(6.0).reshape(3, 2),
                                                               chosen=(1.0, 2.0), used=(0.1, 0.5)),
        "regression.ternary_split": lambda: rf.ternary_split(splits, np.linspace(0, 1, 12), chosen=(0.3, 0.3, 0.4),
                                                             best=(0.5, 0.2, 0.3)),
        "regression.coefficient_bars": lambda: rf.coefficient_bars(["a<b>", "c"], [1.0, 2.0], np.array([1.1, 1.9]),
                                                                   [0.9, 1.5], [1.3, 2.2], truth=[1.0, 2.0]),
        "fdr.sweep_figure": lambda: ff.sweep_figure(table, x_title="π1", alpha=0.05, bound=0.125),
        "fdr.sweep_figure_log": lambda: ff.sweep_figure(table, x_title="ε", alpha=0.05, log_x=True, mark=1.0,
                                                        methods=["PAPRIKA", "SAFFRON"]),
        "fdr.summary_figure": lambda: ff.summary_figure(summary, alpha=0.05, bound=0.125),
        "fdr.summary_figure_nobound": lambda: ff.summary_figure(summary, alpha=0.05, bound=1.5),
        "fdr.stream_figure": lambda: ff.stream_figure(private, p, truth=truth, nonprivate=base, cutoff=3, title="one"),
        "fdr.stream_figure_plain": lambda: ff.stream_figure(private, p),
        "fdr.utility_figure": lambda: ff.utility_figure([fcurve], 1.0, alpha=0.05, bound=0.125),
        "fdr.frontier_figure": lambda: ff.frontier_figure(_frontier_table(rng_fixed(7)), cutoff=40, target=0.8,
                                                          current=(2000, 5.0)),
        "survival.headline_figure": lambda: sf.headline_figure(cs, cs_exact, noise_band=(cs.ci_lower, cs.ci_upper),
                                                               title="pooled"),
        "survival.headline_figure_na": lambda: sf.headline_figure(cs, None, estimator="na", group=1),
        "survival.headline_figure_nolegend": lambda: sf.headline_figure(cs, cs_exact, noise_band=(cs.ci_lower, cs.ci_upper),
                                                                        title="pooled", legend=False),
        "survival.read_figure": lambda: sf.read_figure(
            sv.curve_table(cs.times, cs.estimate[:1], cs.ci_lower[:1], cs.ci_upper[:1], ("all",)),
            reference=(cs_exact.times, cs_exact.estimate[0]), binned=(cs.times, cs_exact.estimate[0]),
            time_label="time (months)", at_risk=np.linspace(200, 20, cs.times.size - 1), min_at_risk=30.0),
        "survival.draws_figure": lambda: sf.draws_figure(cs.times, draws, cs_exact.estimate[0]),
        "survival.groups_figure": lambda: sf.groups_figure(cs, cs_exact, p_private=0.1, p_exact=0.05),
        "survival.utility_figure": lambda: sf.utility_figure(_surv_utility(rng_fixed(5)), 1.0),
        "survival.utility_figure_one": lambda: sf.utility_figure(_surv_utility(rng_fixed(6), groups=False), None),
        "survival.forest_figure": lambda: sf.forest_figure(*_hazard_ratio_fit(rng_fixed(16))[:2], epsilon=2,
                                                           title="arm"),
        "survival.forest_figure_released": lambda: sf.forest_figure(_hazard_ratio_fit(rng_fixed(16))[0]),
        "survival.per_interval_figure": lambda: sf.per_interval_figure(
            _hazard_ratio_fit(rng_fixed(17))[2].proportional_hazards_check(rng=rng_fixed(18)).per_interval,
            time_label="time (months)"),
        "survival.hazard_ratio_utility_figure": lambda: sf.hazard_ratio_utility_figure(_hazard_ratio_curve(), chosen=2.0),
        "figures.coefficient_figure": lambda: F.coefficient_figure(coefs, feature_names=[f"g<{j}>" for j in range(10)],
                                                                  title="stems"),
        "sparse.stem_figure": lambda: spf.stem_figure(coefs, feature_names=[f"g<{j}>" for j in range(10)]),
        "sparse.release_stem_figure": lambda: spf.release_stem_figure(
            0.9 * coefs["truth θ*"], coefs["DP-IGHT"], theta=coefs["truth θ*"], feature_names=[f"g<{j}>" for j in range(10)]),
        "sparse.stem_figure_many": lambda: spf.stem_figure(
            {f"a longer method name {i}": rng_fixed(7).normal(size=60) * (rng_fixed(i).random(60) < 0.5) for i in range(7)},
            max_features=30),
        "sparse.convergence_figure": lambda: spf.convergence_figure(
            {"teacher": np.r_[np.geomspace(1, 1e-6, 20), 0.0], "student": np.geomspace(1, 1e-3, 21),
             "student_to_teacher": np.geomspace(1, 0.1, 21)}),
        "sparse.utility_figure": lambda: spf.utility_figure(sp_curve, "f1", labels={"nonprivate": "teacher (non-private)",
                                                                                  "kt": "knowledge transfer (student)"},
                                                           epsilon=2.0, y_title="F1", title="t", log_y=True),
        "figures.epsilon_choice_figure": lambda: F.epsilon_choice_figure(choice, metric_label="coverage"),
        "figures.audit_figure": lambda: F.audit_figure(a, b, audit_res),
        "ledger.person_spend_figure": lambda: ledger_figures.person_spend_figure(
            [Spend(1.0, 0.0, 70, 1), Spend(3.0, 1e-6, 30, 2), Spend(9.5, 0.0, 1, 6)], 10.0),
        "figures.audit_figure_discrete": lambda: F.audit_figure(np.r_[np.zeros(90), np.ones(10)], np.zeros(100),
                                                               audit_res),
    } | attack_and_release_cases()


def _attack_views():
    """An exact (survival counts) and a Monte-Carlo-only attacker's view, and the pair's non-private curves."""
    rng = np.random.default_rng(3)
    time, event = rng.uniform(0, 24, 80), (rng.random(80) < 0.7).astype(int)
    pair = sv.survival_pair(time, event, sv.make_grid(24.0, data_unit="months", grid_unit="months"),
                            epsilon=1.0, index=0, alt_time=20.0, alt_event=0)
    exact = attack.attack_view(pair, draws=2_000)
    return exact, dataclasses.replace(exact, exact=None, delta=1e-5), pair.curves


def attack_and_release_cases() -> dict:
    """The attacker's-view figures and the release report's figures."""
    exact, monte_carlo, curves = _attack_views()
    km = pd.DataFrame({"group": ["a"] * 5 + ["<b>"] * 5, "time": list(range(5)) * 2, "survival": np.linspace(1, .5, 10),
                       "ci_lower": np.linspace(.9, .4, 10), "ci_upper": np.linspace(1, .6, 10)})
    return {
        "attack.roc_figure": lambda: AF.roc_figure(exact),
        "attack.roc_figure_monte_carlo": lambda: AF.roc_figure(monte_carlo),
        "attack.bound_figure": lambda: AF.bound_figure(1.0),
        "attack.bound_figure_delta": lambda: AF.bound_figure(2.5, 1e-5),
        "attack.nonprivate_figure": lambda: AF.nonprivate_figure(curves),
        "release.survival_release_figure": lambda: LF.survival_release_figure(km, "months"),
        "release.survival_release_figure_faded": lambda: LF.survival_release_figure(
            km.assign(reliable=[True] * 3 + [False] * 2 + [True] * 5), "days", group_column="arm", min_at_risk=17),
        "release.fdr_release_figure": lambda: LF.fdr_release_figure(np.array([0, 1, 0, 1, 0], bool),
                                                                    np.array([1e-3, 2e-3, 1e-4, 5e-4, 1e-2])),
    }


def rng_fixed(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def plain(value):
    """Arrays and tuples as lists, numpy scalars as Python numbers, NaN comparable."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [plain(v) for v in (value.tolist() if isinstance(value, np.ndarray) else value)]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return "nan" if math.isnan(value) else round(value, 12)
    return value
