"""Benchmark: adjusted private hazard ratios (method A: continuous covariates coarsened by PUBLIC cut points into
the grouped histogram of ``DPCoxPHFitter``) against lifelines' Cox — the measured frontier.

Why: a clinician asks for the effect adjusted for age and other prognostic factors. The histogram route has L1
sensitivity 2 however many cells, so the adjusted model is available today once every continuous covariate is a
declared category; what it costs is that the noise (± 2/ε per cell) is spread over cells × intervals × 2 + 1 cells.
This file measures that cost and what n would remove it.

Cohorts and public cut points (from clinical / legal convention or the trial's design, never from the data):

- ``trial_1151``: a simulated 1,151-person HIV trial in the shape of ACTG 320 (8 % events over the planned follow-up
  1): arm (log HR log 0.5), age (0.02 per year), CD4 0–200 (−0.012 per cell/µL), Karnofsky < 90 (+0.8). Coarsened:
  age ≥ 40; CD4 ≤ 50 (ACTG 320's own stratification by CD4 ≤ 50 vs 51–200). 4 covariates, 16 cells.
- ``rossi`` (lifelines, 432 people, 114 arrests in 52 weeks): fin, age, race, wexp, mar, prio (paro, the least
  informative, left out: 6 covariates). Coarsened: age ≥ 25 (the "young adult offender" convention, under 25),
  prior convictions ≥ 3 (the habitual-offender "three priors" convention). 64 cells.
- ``gbsg2`` (lifelines, 686 women, 299 events, horizon 2,557 days; a 500-person-scale cohort with long follow-up
  and covariates at |z| > 5): horTh, age ≥ 50, tumour size > 20 mm (T1 vs T2+), grade III, positive nodes ≥ 4
  (N2+), progesterone receptor ≥ 20 fmol/mg (receptor-positive). 64 cells.

Per cohort and ε ∈ {0.5, 1, 2, 5, 10}: ``--draws`` seeded preview releases (``DPCoxPHFitter.simulate``, the release's
exact law) at the fitter's default intervals from n, ε, the cells and the declared event share, each with its
honest interval (``--redraws`` redraws of the known noise). Per covariate: the non-private references (lifelines on
the same coarsened covariates, and on the original continuous ones), median |Δ log HR| in units of the coarsened
reference's SE, share significant, sign flips, median privacy SE / sampling SE; coverage of the population value of
the coarsened model (simulated trial: a new cohort per replicate; the truth is lifelines on 200,000 people) and
type-I error with the primary permuted (a new permutation per replicate). Then the scaling: the cohort's rows
repeated m times (same estimates, counts × m, so the sampling SE shrinks like 1/√m and the privacy SE like about
1/m) at ε = 2 and 5, to read the n at which each covariate stays significant in 60 % / 70 % of releases.

``primary=`` in the fitter only orders the coefficients: one histogram serves every coefficient, so there is no
budget to weight (spending more on the primary would need a second release; measured: nothing to measure).

``--methods bc``: methods B (:mod:`dpcore.survival.cox_gd`) and C (:mod:`dpcore.survival.cox_score`) behind
``DPCoxPHFitter(method="gradient" | "score")`` on the original covariates in public bounds, each with its own
interval: bias, share significant, the frontier, coverage over new simulated trials (against the generating β),
type-I error with the primary permuted, C's privacy SE with only the score noised, and C's padding bias before any
noise (gbsg2 and lung, M = n/8, n/4, n/2, c at either corner or the centre). Without ``a`` in ``--methods`` the A part
of the results file is kept as it is and the B/C section is rewritten.

Writes ``bench/results/cox_adjusted.md`` (``--csv PATH``: the rows as CSV too).

    nice -n 10 .venv/bin/python bench/bench_cox_adjusted.py [--draws 200] [--redraws 50] [--replicates 300]
    nice -n 10 .venv/bin/python bench/bench_cox_adjusted.py --methods bc --draws 100 --redraws 100 --bc-replicates 100
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lifelines import CoxPHFitter, datasets

from dpcore.survival.cox import DPCoxPHFitter, lifelines_reference
from dpcore.survival.cox_gd import NoisyGD, person_data
from dpcore.survival.cox_score import PaddedScore, cut_at_horizon, exact_information, padded_score, unit_covariates
from dpcore.survival.hazard_ratio import fit_with_noise

EPSILONS = (0.5, 1.0, 2.0, 5.0, 10.0)
REPEATS = (1, 2, 4, 8, 16, 32)
OUT = ROOT / "bench" / "results"
TRIAL_RATE = 0.075  # baseline hazard giving about 8 % events by the horizon 1
TYPICAL_OF = 41  # the trial shown is the median (by the arm's z) of this many seeded draws


@dataclass(frozen=True)
class Cohort:
    name: str
    frame: pd.DataFrame  # T, E, the coarsened binary covariates and the original ones
    horizon: float
    coarse: tuple[str, ...]  # binary (0, 1) columns, primary first
    original: tuple[str, ...]  # the same covariates before coarsening (lifelines' continuous reference)
    share: float | None  # the design's expected event share (public), or None
    cuts: str
    gd_bounds: dict  # method B: public bounds of the original covariates
    gd_share: float  # method B: the design's expected event share (its start and step scale)
    gd_intervals: int


def simulate_trial(n: int, rng: np.random.Generator, permute_arm: bool = False) -> pd.DataFrame:
    """An ACTG 320-shaped trial (module docstring), exponential hazards, drop-out rate 0.1, followed to 1."""
    arm = (rng.random(n) < 0.5).astype(float)
    age = np.clip(rng.normal(38.0, 9.0, n), 18.0, 75.0)
    cd4 = rng.uniform(0.0, 200.0, n)
    karnofsky_low = (rng.random(n) < 0.3).astype(float)
    lp = np.log(0.5) * arm + 0.02 * (age - 38.0) - 0.012 * (cd4 - 100.0) + 0.8 * karnofsky_low
    t_event = -np.log(rng.random(n)) / (TRIAL_RATE * np.exp(lp))
    t_drop = rng.exponential(10.0, n)
    t = np.minimum(np.minimum(t_event, t_drop), 1.0)
    event = ((t_event <= t_drop) & (t_event <= 1.0)).astype(int)
    if permute_arm:
        arm = rng.permutation(arm)
    return pd.DataFrame({"T": t, "E": event, "arm": arm, "age_ge_40": (age >= 40).astype(float),
                         "cd4_le_50": (cd4 <= 50).astype(float), "karnofsky_lt_90": karnofsky_low,
                         "age": age, "cd4": cd4})


def typical_trial(rng: np.random.Generator) -> pd.DataFrame:
    """The draw whose arm z (lifelines, coarsened) is the median of :data:`TYPICAL_OF` seeded draws: one seeded
    cohort can be far from the design (a first draw had z = −6 for an expected −3.5), so the cohort shown is a typical
    one, by a rule fixed before looking at any private result."""
    draws = [simulate_trial(1151, rng) for _ in range(TYPICAL_OF)]
    cols = ["T", "E", "arm", "age_ge_40", "cd4_le_50", "karnofsky_lt_90"]
    z = [CoxPHFitter().fit(d[cols], "T", "E").summary.loc["arm", "z"] for d in draws]
    return draws[int(np.argsort(z)[TYPICAL_OF // 2])]


def cohorts(rng: np.random.Generator) -> list[Cohort]:
    rossi = datasets.load_rossi()
    rossi = rossi.assign(T=rossi.week.astype(float), E=rossi.arrest, age_ge_25=(rossi.age >= 25).astype(float),
                         prio_ge_3=(rossi.prio >= 3).astype(float))
    g = datasets.load_gbsg2()
    gbsg2 = pd.DataFrame({"T": g.time.astype(float), "E": g.cens, "horTh": (g.horTh == "yes").astype(float),
                          "age_ge_50": (g.age >= 50).astype(float), "tsize_gt_20": (g.tsize > 20).astype(float),
                          "grade_3": (g.tgrade == "III").astype(float), "pnodes_ge_4": (g.pnodes >= 4).astype(float),
                          "progrec_ge_20": (g.progrec >= 20).astype(float), "age": g.age, "tsize": g.tsize,
                          "grade": g.tgrade.map({"I": 1, "II": 2, "III": 3}).astype(float), "pnodes": g.pnodes,
                          "progrec": g.progrec})
    return [
        Cohort("trial_1151", typical_trial(rng), 1.0, ("arm", "age_ge_40", "cd4_le_50", "karnofsky_lt_90"),
               ("arm", "age", "cd4", "karnofsky_lt_90"), 0.08, "age ≥ 40, CD4 ≤ 50 (ACTG 320's stratum)",
               {"arm": (0, 1), "age": (18, 75), "cd4": (0, 200), "karnofsky_lt_90": (0, 1)}, 0.08, 1),
        Cohort("rossi", rossi, 52.0, ("fin", "age_ge_25", "race", "wexp", "mar", "prio_ge_3"),
               ("fin", "age", "race", "wexp", "mar", "prio"), None, "age ≥ 25, prior convictions ≥ 3",
               {"fin": (0, 1), "age": (16, 50), "race": (0, 1), "wexp": (0, 1), "mar": (0, 1), "prio": (0, 20)},
               0.25, 2),
        Cohort("gbsg2", gbsg2, 2557.0, ("horTh", "age_ge_50", "tsize_gt_20", "grade_3", "pnodes_ge_4",
                                        "progrec_ge_20"),
               ("horTh", "age", "tsize", "grade", "pnodes", "progrec"), None,
               "age ≥ 50, size > 20 mm, grade III, nodes ≥ 4, PgR ≥ 20 fmol/mg",
               {"horTh": (0, 1), "age": (20, 80), "tsize": (0, 100), "grade": (1, 3), "pnodes": (0, 30),
                "progrec": (0, 500)}, 0.45, 4),
    ]


def fitter(c: Cohort, eps: float, n: int | None = None, intervals=None) -> DPCoxPHFitter:
    return DPCoxPHFitter(epsilon=eps, bounds={k: (0, 1) for k in c.coarse}, horizon=c.horizon, primary=c.coarse[0],
                         expected_event_share=c.share, n=n or len(c.frame), intervals=intervals)


def references(c: Cohort) -> tuple[pd.DataFrame, pd.DataFrame]:
    """lifelines on the coarsened covariates (the private fit's reference) and on the original ones."""
    f = fitter(c, 1.0)
    coarse = lifelines_reference(c.frame, "T", "E", f)
    cut = c.frame.assign(E=np.where(c.frame["T"] > c.horizon, 0, c.frame["E"]), T=np.minimum(c.frame["T"], c.horizon))
    original = CoxPHFitter().fit(cut[["T", "E", *c.original]], "T", "E").summary
    return coarse, original


def exact_histograms(f: DPCoxPHFitter, frames: list[pd.DataFrame]) -> np.ndarray:
    cells = f._cells(pd.concat(frames, ignore_index=True), "T", "E")
    row_frame = np.repeat(np.arange(len(frames)), [len(fr) for fr in frames])
    counts = np.bincount(row_frame * f.design.size + cells, minlength=len(frames) * f.design.size)
    return counts.reshape(len(frames), f.design.size)


def releases(f: DPCoxPHFitter, exact: np.ndarray, rng: np.random.Generator, redraws: int):
    """One preview release per row of ``exact`` (R, size), fitted with its honest interval."""
    noisy = f.noise.sample(exact.astype(np.int64), rng=rng)
    return fit_with_noise(f.design.table(noisy, noisy=True), f.design.matrix(), f.design.names(), f.noise, rng=rng,
                          draws=redraws)


def grouped_exact(c: Cohort, f: DPCoxPHFitter, frame: pd.DataFrame | None = None):
    """The grouped fit of the exact histogram (no noise): the grouping's own estimate and sampling SE."""
    exact = exact_histograms(f, [c.frame if frame is None else frame])
    return fit_with_noise(f.design.table(exact, noisy=False), f.design.matrix(), f.design.names(), None)


def per_covariate(c: Cohort, eps: float, fit, coarse: pd.DataFrame, original: pd.DataFrame, k: int,
                  exact=None) -> list[dict]:
    rows = []
    se_priv = np.sqrt(np.diagonal(fit.privacy_cov, axis1=-2, axis2=-1))
    se_samp = np.sqrt(np.diagonal(fit.sampling_cov, axis1=-2, axis2=-1))
    sig = fit.p_value < 0.05
    for j, (name, orig) in enumerate(zip(c.coarse, c.original)):
        ref, ref_se, ref_p = (float(coarse.loc[name, key]) for key in ("coef", "se(coef)", "p"))
        coef = fit.coef[:, j]
        rows.append({"cohort": c.name, "epsilon": eps, "intervals": k, "covariate": name,
                     "z_continuous": float(original.loc[orig, "z"]), "z_coarse": ref / ref_se,
                     "coef_coarse": ref, "se_coarse": ref_se,
                     "grouping_bias_in_se": (float(exact.coef[0, j]) - ref) / ref_se if exact is not None else np.nan,
                     "median_abs_diff_in_se": float(np.median(np.abs(coef - ref)) / ref_se),
                     "share_significant": float(sig[:, j].mean()),
                     "significant_without_privacy": bool(ref_p < 0.05),
                     "sign_flips": float(np.mean(np.sign(coef) != np.sign(ref))),
                     "wrong_sign_significant": float(np.mean(sig[:, j] & (np.sign(coef) != np.sign(ref)))),
                     "median_se_sampling": float(np.median(se_samp[:, j])),
                     "median_se_privacy": float(np.median(se_priv[:, j])),
                     "privacy_over_sampling": float(np.median(se_priv[:, j] / se_samp[:, j]))})
    return rows


def gd_rows(c: Cohort, args, rng: np.random.Generator) -> list[dict]:
    """Method B (clipped noisy GD on the piecewise-exponential likelihood, :mod:`dpcore.survival.cox_gd`) on the
    original covariates clipped into public bounds, against lifelines on the same clipped covariates. No honest
    interval is built for B, so `share_significant_oracle` tests against √(SE² + privacy sd²) with the privacy sd
    measured over the releases: the best any interval carrying that noise could do."""
    names = list(c.original)
    lo = np.array([c.gd_bounds[k][0] for k in names], float)
    hi = np.array([c.gd_bounds[k][1] for k in names], float)
    x = np.clip(c.frame[names].to_numpy(float), lo, hi)
    cut = pd.DataFrame(x, columns=names).assign(E=np.where(c.frame["T"] > c.horizon, 0, c.frame["E"]),
                                                  T=np.minimum(c.frame["T"], c.horizon))
    ref = CoxPHFitter().fit(cut, "T", "E").summary
    data = person_data(c.frame["T"], c.frame["E"], x, {k: c.gd_bounds[k] for k in names}, c.horizon, c.gd_intervals)
    rows = []
    for eps in args.eps:
        m = NoisyGD(eps, args.gd_delta, len(names), intervals=c.gd_intervals, steps=args.gd_steps, share=c.gd_share)
        start = time.perf_counter()
        beta = m.log_hazard_ratios(m.run(data, rng, draws=args.draws), {k: c.gd_bounds[k] for k in names})
        seconds = time.perf_counter() - start
        for j, name in enumerate(names):
            b, se = float(ref.loc[name, "coef"]), float(ref.loc[name, "se(coef)"])
            sd = float(beta[:, j].std(ddof=1))
            rows.append({"cohort": c.name, "epsilon": eps, "covariate": name, "z_clipped": b / se,
                         "median_bias_in_se": float((np.median(beta[:, j]) - b) / se),
                         "median_abs_diff_in_se": float(np.median(np.abs(beta[:, j] - b)) / se),
                         "privacy_sd_over_se": sd / se,
                         "share_significant_oracle": float(np.mean(np.abs(beta[:, j]) > 1.959964 * np.hypot(se, sd))),
                         "sign_flips": float(np.mean(np.sign(beta[:, j]) != np.sign(b))),
                         "sigma_per_step": m.sigma, "seconds": seconds})
    return rows


# ---- methods B and C on the original covariates (clipped into public bounds) ------------------------------------

TRIAL_TRUTH = {"arm": np.log(0.5), "age": 0.02, "cd4": -0.012, "karnofsky_lt_90": 0.8}  # the generating model


class ScoreOnlyNoise(PaddedScore):
    """Method C with the event count and the covariance exact (bench only, never a release): how much of C's
    privacy variance is the score's noise, and how much the information's."""

    def scales(self):
        out = super().scales().copy()
        out[-2:] = 1e-12
        return out


def clipped_frame(c: Cohort) -> tuple[pd.DataFrame, list[str]]:
    names = list(c.original)
    lo = np.array([c.gd_bounds[k][0] for k in names], float)
    hi = np.array([c.gd_bounds[k][1] for k in names], float)
    x = np.clip(c.frame[names].to_numpy(float), lo, hi)
    return pd.DataFrame(x, columns=names).assign(T=c.frame["T"].to_numpy(float), E=c.frame["E"].to_numpy()), names


def alternative(c: Cohort, method: str, eps: float, args) -> DPCoxPHFitter:
    """Method B or C behind the fitter, on the original covariates in their public bounds, the primary first."""
    bounds = {k: c.gd_bounds[k] for k in c.original}
    if method == "score":
        return DPCoxPHFitter(eps, bounds=bounds, horizon=c.horizon, primary=c.original[0], method="score",
                             redraws=args.redraws)
    return DPCoxPHFitter(eps, delta=args.gd_delta, bounds=bounds, horizon=c.horizon, primary=c.original[0],
                         method="gradient", intervals=c.gd_intervals, expected_event_share=c.gd_share,
                         steps=args.gd_steps)


def bc_rows(c: Cohort, args, rng: np.random.Generator) -> tuple[list[dict], list[dict]]:
    """Per method (B, C), ε and covariate: bias, |Δ| and share significant from the method's own interval, against
    lifelines on the same clipped covariates; for C also the share of its privacy variance that the score's noise
    alone gives (the rest is the information's). Then coverage (trial: new cohorts against the generating β) and
    the type-I error (the primary permuted), one release each."""
    frame, names = clipped_frame(c)
    cut = frame.assign(E=np.where(frame["T"] > c.horizon, 0, frame["E"]), T=np.minimum(frame["T"], c.horizon))
    ref = CoxPHFitter().fit(cut, "T", "E").summary
    rows, checks = [], []
    if c.name == "trial_1151":
        covered = [simulate_trial(len(frame), rng) for _ in range(args.bc_replicates)]
    null = [frame.assign(**{names[0]: rng.permutation(frame[names[0]].to_numpy())})
            for _ in range(args.bc_replicates)]
    for method in ("score", "gradient"):
        for eps in args.eps:
            f = alternative(c, method, eps, args)
            start = time.perf_counter()
            fit = f.simulate(frame, "T", "E", draws=args.draws, rng=rng, redraws=args.redraws)
            seconds = (time.perf_counter() - start) / args.draws
            se_priv = np.sqrt(np.diagonal(fit.privacy_cov, axis1=-2, axis2=-1))
            se_samp = np.sqrt(np.diagonal(fit.sampling_cov, axis1=-2, axis2=-1))
            score_only = None
            if method == "score":
                m = f._alternative.mechanism(len(frame))
                only = ScoreOnlyNoise(m.epsilon, m.delta, m.n, m.dimension, m.padding, m.pseudo, m.primary)
                _, stats = f._alternative.exact(frame, "T", "E")
                so = only.fit(only.release(stats, rng, draws=args.draws), f._alternative.names, f._alternative.ranges,
                              rng=rng, redraws=args.redraws)
                score_only = np.sqrt(np.diagonal(so.privacy_cov, axis1=-2, axis2=-1))
            sig = fit.p_value < 0.05
            for j, name in enumerate(names):
                b, se = float(ref.loc[name, "coef"]), float(ref.loc[name, "se(coef)"])
                coef = fit.coef[:, j]
                rows.append({"cohort": c.name, "method": "C" if method == "score" else "B", "epsilon": eps,
                             "covariate": name, "z_clipped": b / se,
                             "median_bias_in_se": float((np.median(coef) - b) / se),
                             "median_abs_diff_in_se": float(np.median(np.abs(coef - b)) / se),
                             "share_significant": float(sig[:, j].mean()),
                             "sign_flips": float(np.mean(np.sign(coef) != np.sign(b))),
                             "wrong_sign_significant": float(np.mean(sig[:, j] & (np.sign(coef) != np.sign(b)))),
                             "privacy_over_sampling": float(np.median(se_priv[:, j] / se_samp[:, j])),
                             "privacy_sd_over_se": float(coef.std(ddof=1) / se),
                             "score_noise_only_over_se": (float(np.median(score_only[:, j]) / se)
                                                          if score_only is not None else np.nan),
                             "seconds_per_release": seconds})
            check = {"cohort": c.name, "method": "C" if method == "score" else "B", "epsilon": eps}
            if c.name == "trial_1151":
                fits = [alternative(c, method, eps, args).fit(d, "T", "E", rng=rng).fit_ for d in covered]
                truth = np.array([TRIAL_TRUTH[k] for k in names])
                hit = np.array([np.abs(ff.coef - truth) <= ff.half_width for ff in fits])
                for j, name in enumerate(names):
                    check[f"coverage {name}"] = float(hit[:, j].mean())
                check["coverage_mc_se"] = float(np.sqrt(0.95 * 0.05 / len(covered)))
            nulls = [alternative(c, method, eps, args).fit(d, "T", "E", rng=rng).fit_ for d in null]
            check["type_one_error"] = float(np.mean([ff.p_value[0] < 0.05 for ff in nulls]))
            check["type_one_error_mc_se"] = float(np.sqrt(0.05 * 0.95 / len(null)))
            checks.append(check)
            print(check, flush=True)
    return rows, checks


def padding_bias(args) -> pd.DataFrame:
    """Method C's padding bias before any noise (cox.md §2): the one-step log HR ``I(0)⁻¹U*(0)`` (exact
    information) against ``I(0)⁻¹U(0)`` (no padding), in lifelines' SE, at M = n/8, n/4, n/2 with c at the lower
    corner, the upper corner and the box's centre (for a 1:1 arm, the design's allocation fraction); one covariate
    (gbsg2's horTh, lung's sex) and the adjusted models."""
    g = datasets.load_gbsg2()
    gbsg2 = pd.DataFrame({"T": g.time.astype(float), "E": g.cens, "horTh": (g.horTh == "yes").astype(float),
                          "age": g.age, "tsize": g.tsize, "grade": g.tgrade.map({"I": 1, "II": 2, "III": 3}).astype(float),
                          "pnodes": g.pnodes, "progrec": g.progrec})
    lung = datasets.load_lung().dropna(subset=["ph.ecog", "ph.karno"])
    lung = pd.DataFrame({"T": lung.time.astype(float), "E": lung.status, "sex": (lung.sex == 2).astype(float),
                         "age": lung.age, "ph.ecog": lung["ph.ecog"], "ph.karno": lung["ph.karno"]})
    models = [("gbsg2", gbsg2, 2557.0, {"horTh": (0, 1)}),
              ("gbsg2", gbsg2, 2557.0, {"horTh": (0, 1), "age": (20, 80), "tsize": (0, 100), "grade": (1, 3),
                                        "pnodes": (0, 30), "progrec": (0, 500)}),
              ("lung", lung, 1100.0, {"sex": (0, 1)}),
              ("lung", lung, 1100.0, {"sex": (0, 1), "age": (18, 90), "ph.ecog": (0, 4), "ph.karno": (0, 100)})]
    out = []
    for cohort, frame, horizon, bounds in models:
        names = list(bounds)
        t, e = cut_at_horizon(frame["T"], frame["E"], horizon)
        x = unit_covariates(frame[names].to_numpy(float), bounds)
        r = np.array([hi - lo for lo, hi in bounds.values()])
        ref = CoxPHFitter().fit(pd.DataFrame(np.clip(frame[names].to_numpy(float), [b[0] for b in bounds.values()],
                                                     [b[1] for b in bounds.values()]), columns=names)
                                .assign(T=t, E=e), "T", "E").summary
        info = exact_information(t, e, x)
        exact = np.linalg.solve(info, padded_score(t, e, x, 1, np.zeros(len(names)))) / r
        n = len(frame)
        for frac in (0.125, 0.25, 0.5):
            M = int(frac * n)
            for label, c in (("lower corner", np.zeros(len(names))), ("upper corner", np.ones(len(names))),
                             ("centre", np.full(len(names), 0.5))):
                padded = np.linalg.solve(info, padded_score(t, e, x, M, c)) / r
                events_small = int(np.sum([(t >= ti).sum() < M for ti in t[e > 0]]))
                for j, name in enumerate(names):
                    out.append({"cohort": cohort, "model": "1 covariate" if len(names) == 1 else f"{len(names)} covariates",
                                "covariate": name, "n": n, "M": M, "M/n": frac, "c": label,
                                "events with m < M": events_small,
                                "bias_in_se": float((padded[j] - exact[j]) / ref.loc[name, "se(coef)"]),
                                "one_step_minus_cox_in_se": float((exact[j] - ref.loc[name, "coef"]) /
                                                                  ref.loc[name, "se(coef)"])})
    return pd.DataFrame(out)


def truth_of_trial(rng: np.random.Generator, n: int = 200_000) -> pd.Series:
    """The coarsened model's population value: lifelines on one very large simulated trial."""
    big = simulate_trial(n, rng)
    return CoxPHFitter().fit(big[["T", "E", "arm", "age_ge_40", "cd4_le_50", "karnofsky_lt_90"]], "T",
                             "E").summary["coef"]


def run(args):
    rng = np.random.default_rng(args.seed)
    rows, checks, scaling, refs, gd, sweep = [], [], [], [], [], []
    all_cohorts = cohorts(rng)
    truth = truth_of_trial(np.random.default_rng(args.seed + 1)) if args.replicates else None
    for c in all_cohorts:
        if args.sets and c.name not in args.sets:
            continue
        coarse, original = references(c)
        if args.gd_steps:
            gd += gd_rows(c, args, rng)
            print(gd[-1], flush=True)
        for name, orig in zip(c.coarse, c.original):
            refs.append({"cohort": c.name, "covariate": name, "original": orig,
                         "coef_continuous": float(original.loc[orig, "coef"]),
                         "z_continuous": float(original.loc[orig, "z"]),
                         "coef_coarse": float(coarse.loc[name, "coef"]), "se_coarse": float(coarse.loc[name, "se(coef)"]),
                         "z_coarse": float(coarse.loc[name, "z"]),
                         "truth_coarse": float(truth[name]) if (truth is not None and c.name == "trial_1151") else np.nan})
        # replicates: new cohorts (simulated trial) for coverage; the primary permuted for the type-I error
        if args.replicates:
            if c.name == "trial_1151":
                covered = [simulate_trial(len(c.frame), rng) for _ in range(args.replicates)]
                null = [simulate_trial(len(c.frame), rng, permute_arm=True) for _ in range(args.null_replicates)]
            else:
                covered = None
                null = [c.frame.assign(**{c.coarse[0]: rng.permutation(c.frame[c.coarse[0]].to_numpy())})
                        for _ in range(args.null_replicates)]
        for eps in args.eps:
            f = fitter(c, eps)
            k = f.design.shape[2]
            start = time.perf_counter()
            fit = f.simulate(c.frame, "T", "E", draws=args.draws, rng=rng, redraws=args.redraws)
            rows += per_covariate(c, eps, fit, coarse, original, k, grouped_exact(c, f))
            check = {"cohort": c.name, "epsilon": eps, "intervals": k, "cells": f.design.size,
                     "seconds": time.perf_counter() - start}
            if args.replicates:
                if covered is not None:
                    cf = releases(f, exact_histograms(f, covered), rng, args.redraws)
                    hit = np.abs(cf.coef - truth[list(c.coarse)].to_numpy()) <= cf.half_width
                    exact_fits = fit_with_noise(f.design.table(exact_histograms(f, covered), noisy=False),
                                                f.design.matrix(), f.design.names(), None)
                    for j, name in enumerate(c.coarse):
                        check[f"coverage {name}"] = float(hit[:, j].mean())
                    for j, name in enumerate(c.coarse):  # power over new cohorts: private, then without noise
                        check[f"power {name}"] = float(np.mean(cf.p_value[:, j] < 0.05))
                        check[f"power without privacy {name}"] = float(np.mean(exact_fits.p_value[:, j] < 0.05))
                    check["coverage_mc_se"] = float(np.sqrt(0.95 * 0.05 / len(covered)))
                nf = releases(f, exact_histograms(f, null), rng, args.redraws)
                check["type_one_error"] = float(np.mean(nf.p_value[:, 0] < 0.05))
                check["type_one_error_mc_se"] = float(np.sqrt(0.05 * 0.95 / len(null)))
            checks.append(check)
            print(check, flush=True)
        for eps in args.scaling_eps:
            k0 = fitter(c, eps).design.shape[2]  # intervals held at n₀'s default, so only n moves
            for m in REPEATS:
                n = m * len(c.frame)
                f = fitter(c, eps, n=n, intervals=k0)
                big = pd.concat([c.frame] * m, ignore_index=True)
                fit = f.simulate(big, "T", "E", draws=args.scaling_draws, rng=rng, redraws=args.redraws)
                for r in per_covariate(c, eps, fit, coarse, original, f.design.shape[2]):
                    scaling.append({**r, "repeat": m, "n": n})
        if c.name != "trial_1151" and args.sweep:  # more intervals: the grouping's bias against their noise
            for k in (1, 2, 4, 8):
                for eps in (2.0, 5.0, 10.0):
                    f = fitter(c, eps, intervals=k)
                    fit = f.simulate(c.frame, "T", "E", draws=args.scaling_draws, rng=rng, redraws=args.redraws)
                    sweep += [{**r, "cells": f.design.size}
                              for r in per_covariate(c, eps, fit, coarse, original, k, grouped_exact(c, f))]
            if args.replicates:  # the type-I error at ε = 5 again, with more permutations, and without noise
                f = fitter(c, 5.0)
                null = [c.frame.assign(**{c.coarse[0]: rng.permutation(c.frame[c.coarse[0]].to_numpy())})
                        for _ in range(args.sweep)]
                exact = exact_histograms(f, null)
                private = releases(f, exact, rng, args.redraws).p_value[:, 0] < 0.05
                plain = fit_with_noise(f.design.table(exact, noisy=False), f.design.matrix(), f.design.names(),
                                       None).p_value[:, 0] < 0.05
                checks.append({"cohort": c.name, "epsilon": 5.0, "intervals": f.design.shape[2],
                               "cells": f.design.size, "type_one_error": float(private.mean()),
                               "type_one_error_mc_se": float(np.sqrt(0.05 * 0.95 / args.sweep)),
                               "type_one_error_without_noise": float(plain.mean()), "permutations": args.sweep})
    return (pd.DataFrame(rows), pd.DataFrame(checks), pd.DataFrame(scaling), pd.DataFrame(refs), pd.DataFrame(gd),
            pd.DataFrame(sweep))


def table(frame: pd.DataFrame) -> str:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "---|" * len(cols)]
    for _, r in frame.iterrows():
        lines.append("| " + " | ".join(f"{v:.3g}" if isinstance(v, float) else str(v) for v in r) + " |")
    return "\n".join(lines)


def frontier(rows: pd.DataFrame, level: float) -> pd.DataFrame:
    """Per covariate: the smallest ε of the grid from which it stays significant in ≥ ``level`` of releases."""
    out = []
    for (cohort, cov), g in rows.groupby(["cohort", "covariate"], sort=False):
        g = g.sort_values("epsilon")
        ok = g["share_significant"].to_numpy() >= level
        tail = [e for i, e in enumerate(g["epsilon"]) if ok[i:].all()]
        out.append({"cohort": cohort, "covariate": cov, "z_coarse": g["z_coarse"].iloc[0],
                    **{f"sig ε={e:g}": s for e, s in zip(g["epsilon"], g["share_significant"])},
                    f"smallest ε with ≥ {level:.0%}": (f"{tail[0]:g}" if tail else "> 10")})
    return pd.DataFrame(out)


def ratio_needed(z: float, level: float) -> float:
    """The largest privacy SE / sampling SE ``r`` at which a covariate whose non-private estimate sits at ``z``
    sampling SEs is significant in ``level`` of releases: the release is ``N(β̂, (r·se)²)`` tested against
    ``se·√(1+r²)``, so the share is ``Φ((|z| − 1.96·√(1+r²))/r)``; solve it at ``level`` (0 when unreachable even
    without privacy)."""
    from scipy import optimize, stats

    q = stats.norm.ppf(level)
    g = lambda r: abs(z) - 1.959964 * np.sqrt(1 + r * r) - q * r  # noqa: E731 - decreasing in r
    return 0.0 if g(1e-9) <= 0 else float(optimize.brentq(g, 1e-9, 100.0))


def needed_n(scaling: pd.DataFrame) -> pd.DataFrame:
    """Per covariate and ε: the smallest repeat m (n = m·n₀) from which it is significant in ≥ 60 % and ≥ 70 %
    (the same effects, so the sampling SE shrinks too), and the n at which the measured privacy / sampling SE ratio
    (log-log fit over m) falls to the ratio a covariate at the same non-private z needs (:func:`ratio_needed`)."""
    out = []
    for (cohort, cov, eps), g in scaling.groupby(["cohort", "covariate", "epsilon"], sort=False):
        g = g.sort_values("repeat")
        row = {"cohort": cohort, "covariate": cov, "epsilon": eps, "z_coarse": g["z_coarse"].iloc[0]}
        for m, s, r in zip(g["repeat"], g["share_significant"], g["privacy_over_sampling"]):
            row[f"×{m}"] = f"{s:.0%} ({r:.2g})"
        for level in (0.6, 0.7):
            ok = g["share_significant"].to_numpy() >= level
            tail = [n for i, n in enumerate(g["n"]) if ok[i:].all()]
            row[f"n for {level:.0%}"] = f"{tail[0]:,}" if tail else f"> {g['n'].max():,}"
        slope, icpt = np.polyfit(np.log(g["n"]), np.log(g["privacy_over_sampling"]), 1)
        row["ratio ∝ n^"] = float(slope)
        for level in (0.6, 0.7):
            r = ratio_needed(g["z_coarse"].iloc[0], level)
            row[f"ratio needed, same z, {level:.0%}"] = r
            row[f"n, same z, {level:.0%}"] = ("unreachable" if r == 0 or slope >= 0 else
                                                f"{max(np.exp((np.log(r) - icpt) / slope), g['n'].min()):,.0f}")
        out.append(row)
    return pd.DataFrame(out)


def markdown(rows, checks, scaling, refs, gd, sweep, args) -> str:
    show = rows[["cohort", "epsilon", "intervals", "covariate", "z_coarse", "grouping_bias_in_se",
                 "median_abs_diff_in_se",
                 "share_significant", "sign_flips", "wrong_sign_significant", "privacy_over_sampling"]]
    parts = [
        "# Adjusted private hazard ratios (coarsened covariates in the grouped histogram) against lifelines' Cox",
        (f"`nice -n 10 .venv/bin/python bench/bench_cox_adjusted.py --draws {args.draws} --redraws {args.redraws} "
         f"--replicates {args.replicates} --null-replicates {args.null_replicates} --scaling-draws "
         f"{args.scaling_draws} --sweep {args.sweep} --gd-steps {args.gd_steps} --seed {args.seed}`. Seeded previews of the release's exact law (discrete Laplace "
         "2/ε on every cell, Δ1 = 2 however many cells); intervals: the fitter's default from n, ε, the cells and "
         "the declared event share (0.08 for the trial; none declared for rossi and gbsg2)."),
        "## Non-private references: the coarsening's own cost",
        ("lifelines' CoxPHFitter on the original (continuous) covariates and on the same covariates coarsened by the "
         "public cut points (the private fit's reference). `truth_coarse`: the coarsened model's population value "
         "(simulated trial, 200,000 people)."),
        table(refs),
        "## Releases per covariate",
        ("Medians over releases. `median_abs_diff_in_se`: |Δ log HR| against the coarsened reference, in its SE; "
         "`share_significant`: p < 0.05 from the honest interval (sampling + privacy); `sign_flips`: share of "
         "releases with the other sign; `grouping_bias_in_se`: the grouped fit of the exact histogram (no noise) against "
         "the coarsened reference, in its SE; `wrong_sign_significant`: significant with the other sign; "
         "`privacy_over_sampling`: median privacy SE / sampling SE reported by the fit."),
        table(show),
        "## Frontier: the smallest ε from which a covariate stays significant",
        "### in ≥ 60 % of releases",
        table(frontier(rows, 0.6)),
        "### in ≥ 70 % of releases",
        table(frontier(rows, 0.7)),
        "## Coverage and type-I error",
        ("Coverage of the coarsened model's population value by the honest 95 % interval (simulated trial: a new "
         "cohort per replicate); the rows with `permutations` repeat the type-I error at ε = 5 with more permutations, "
         "beside the grouped Wald test's own on the exact counts of the same permutations; `power`: share significant over those new cohorts with privacy, and without (the grouped "
         "fit of their exact histograms); type-I error of the primary with it permuted (a new permutation per replicate). "
         "`cells`: cells of the released histogram."),
        table(checks),
    ]
    if len(scaling):
        parts += [
            "## What n is needed: the cohort repeated m times",
            ("Each cell: share significant (median privacy SE / sampling SE) with the cohort's rows repeated m times "
             "(n = m·n₀: the same estimates, every count × m; the intervals held at n₀'s default). `n for 60 %`: the "
             f"smallest such n from which the share stays ≥ 60 % ({args.scaling_draws} releases per cell). "
             "`ratio ∝ n^`: the log-log slope of the measured privacy/sampling SE ratio over n; `ratio needed, same "
             "z`: the largest ratio at which a covariate at the same non-private z (sampling SEs) is significant in "
             "60 % / 70 % of releases (the share is Φ((|z| − 1.96·√(1+r²))/r)); `n, same z`: the n where the fitted "
             "ratio reaches it — the cohort size at which a covariate this strong (in z, not in effect) would pass."),
            table(needed_n(scaling)),
        ]
    if len(sweep):
        parts += [
            "## Intervals: the grouping's bias against the noise of more cells",
            ("The real cohorts at K = 1, 2, 4, 8 public intervals (the default gives 2 for 64 covariate cells), "
             f"{args.scaling_draws} releases per cell; `grouping_bias_in_se` as above."),
            table(sweep[["cohort", "epsilon", "intervals", "cells", "covariate", "z_coarse", "grouping_bias_in_se",
                         "median_abs_diff_in_se", "share_significant", "privacy_over_sampling"]]),
        ]
    if len(gd):
        parts += [
            "## Method B: clipped noisy gradient descent on the piecewise-exponential likelihood",
            (f"`dpcore/survival/cox_gd.py`, {args.gd_steps} steps plus one release of the curvature at the start, "
             f"Gaussian, δ = {args.gd_delta:g}, clip C = √(2 + P); the original covariates clipped into public bounds "
             "(trial: age 18–75, CD4 0–200; rossi: age 16–50, prio 0–20; gbsg2: age 20–80, size 0–100 mm, grade "
             "1–3, nodes 0–30, PgR 0–500); intervals 1 / 2 / 4; the design's event share 0.08 / 0.25 / 0.45. "
             "Reference: lifelines on the same clipped covariates (`z_clipped`). No honest interval is built for B: "
             "`share_significant_oracle` tests against √(SE² + privacy sd²) with the privacy sd measured over the "
             f"{args.draws} releases (what an interval carrying exactly that noise would give)."),
            table(gd.drop(columns=["seconds"])),
        ]
    return "\n\n".join(parts) + "\n"


BC_HEADING = "## Methods B and C with their own intervals"


def frontier_bc(rows: pd.DataFrame, level: float) -> pd.DataFrame:
    out = []
    for (cohort, method, cov), g in rows.groupby(["cohort", "method", "covariate"], sort=False):
        g = g.sort_values("epsilon")
        ok = g["share_significant"].to_numpy() >= level
        tail = [e for i, e in enumerate(g["epsilon"]) if ok[i:].all()]
        out.append({"cohort": cohort, "method": method, "covariate": cov, "z_clipped": g["z_clipped"].iloc[0],
                    **{f"sig ε={e:g}": v for e, v in zip(g["epsilon"], g["share_significant"])},
                    f"smallest ε with ≥ {level:.0%}": (f"{tail[0]:g}" if tail else "> 10")})
    return pd.DataFrame(out)


def markdown_bc(rows: pd.DataFrame, checks: pd.DataFrame, bias: pd.DataFrame, args) -> str:
    show = rows.drop(columns=["seconds_per_release"])
    timing = rows.groupby(["cohort", "method"], sort=False)["seconds_per_release"].median().reset_index()
    parts = [
        BC_HEADING,
        (f"`nice -n 10 .venv/bin/python bench/bench_cox_adjusted.py --methods bc --draws {args.draws} --redraws "
         f"{args.redraws} --bc-replicates {args.bc_replicates} --gd-steps {args.gd_steps} --seed {args.seed}` "
         f"({args.draws} seeded previews per cell, {args.redraws} privacy redraws for C's interval, "
         f"{args.bc_replicates} new trials / permutations per ε for coverage and type-I error, one release each). "
         "Both methods behind `DPCoxPHFitter(method=…)` on the original covariates clipped into the public bounds of "
         "method B's table above; reference: lifelines on the same clipped covariates (`z_clipped`). "
         "**C** (`dpcore/survival/cox_score.py`): the padded score one step from 0, Laplace (pure ε), padding "
         "M = ⌊n/4⌋, c the box's centre (0.5 for a binary: a 1:1 arm's allocation fraction), budget: the primary's "
         "score 50 %, the other scores 30 % together, the event count 5 %, the covariance 15 % (fixed before the "
         "runs); its interval adds the sampling covariance Î⁻¹ and the privacy covariance over redraws of the "
         "known noise. **B** (`dpcore/survival/cox_gd.py`): as above, now with the approximate interval of "
         "`NoisyGD.covariances` (sampling from the released curvature, privacy the steps' noise through the "
         "linearised iteration). `privacy_sd_over_se`: the spread of the estimate over the releases in lifelines' "
         "SE; `score_noise_only_over_se`: C's privacy SE (its redraws) when the event count and the covariance are "
         "exact and only the score is noised, in lifelines' SE — what the score's noise costs even with the "
         "information free (bench only, not a release). `privacy_over_sampling`: the method's own reported "
         "privacy SE / sampling SE."),
        table(show),
        "Median seconds per release (one fit with its interval; previews in a batch):",
        table(timing),
        "### Frontier (≥ 60 % of releases significant)",
        table(frontier_bc(rows, 0.6)),
        "### Coverage and type-I error",
        ("Coverage of the generating model's β (the simulated trial is exactly Cox with log HR log 0.5 for the arm, "
         "0.02 per year of age, −0.012 per CD4 cell, 0.8 for Karnofsky < 90) by each method's 95 % interval over "
         "new trials; type-I error of the primary with it permuted (the real cohorts' rows, a new permutation each)."),
        table(checks),
    ]
    if len(bias):
        parts += [
            "### C's padding bias before any noise",
            ("The one-step log HR with the exact information, padded `I(0)⁻¹U*(0)` minus unpadded `I(0)⁻¹U(0)`, in "
             "lifelines' SE (`bias_in_se`), and the unpadded one-step's own distance from Cox "
             "(`one_step_minus_cox_in_se`, the one step's attenuation). `events with m < M`: events whose risk "
             "set is smaller than M (the bias is zero without them)."),
            table(bias),
        ]
    return "\n\n".join(parts) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--redraws", type=int, default=50)
    parser.add_argument("--replicates", type=int, default=300)
    parser.add_argument("--null-replicates", type=int, default=None)
    parser.add_argument("--scaling-draws", type=int, default=100)
    parser.add_argument("--eps", type=lambda s: [float(v) for v in s.split(",")], default=list(EPSILONS))
    parser.add_argument("--scaling-eps", type=lambda s: [float(v) for v in s.split(",") if v], default=[2.0, 5.0])
    parser.add_argument("--sets", type=lambda s: s.split(","), default=None)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--sweep", type=int, default=1000,
                        help="real cohorts: the intervals sweep, and this many permutations at ε = 5 (0: skip)")
    parser.add_argument("--gd-steps", type=int, default=5, help="method B's steps (0: skip method B)")
    parser.add_argument("--gd-delta", type=float, default=1e-6)
    parser.add_argument("--out", default="cox_adjusted")
    parser.add_argument("--csv", default=None, help="also write the per-covariate rows to this CSV path")
    parser.add_argument("--methods", default="a", help="a: method A (and B's oracle table); bc: methods B and C "
                        "with their own intervals (without a, the A part of the results file is kept as it is)")
    parser.add_argument("--bc-replicates", type=int, default=200)
    args = parser.parse_args()
    args.null_replicates = args.null_replicates or args.replicates
    warnings.filterwarnings("ignore")
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{args.out}.md"
    if "a" in args.methods:
        rows, checks, scaling, refs, gd, sweep = run(args)
        if args.csv:  # the per-release rows, for a closer look (not kept in the repository)
            rows.to_csv(args.csv, index=False)
        text = markdown(rows, checks, scaling, refs, gd, sweep, args)
    else:
        text = path.read_text().split(BC_HEADING)[0].rstrip() + "\n"
    if "bc" in args.methods:
        rng = np.random.default_rng(args.seed)
        bc, bc_checks = [], []
        for c in cohorts(rng):  # the same cohorts as method A's (the same seed draws the same typical trial)
            if args.sets and c.name not in args.sets:
                continue
            r, k = bc_rows(c, args, rng)
            bc += r
            bc_checks += k
        bias = padding_bias(args)
        if args.csv:
            pd.DataFrame(bc).to_csv(args.csv.replace(".csv", "_bc.csv"), index=False)
        text = text.rstrip() + "\n\n" + markdown_bc(pd.DataFrame(bc), pd.DataFrame(bc_checks), bias, args)
    path.write_text(text)


if __name__ == "__main__":
    main()
