"""Benchmark: private hazard ratios (the grouped Cox fit of one released histogram) against lifelines' Cox.

Public cohorts (lifelines): Rossi (432, `fin`), lung (228, sex, 72 % events), GBSG2 (686, hormonal therapy,
44 % events), kidney transplant (863, black male, 16 % events), democracy durations `dd` (1,808, democracy, 81 %
events); two simulated trials with a known coefficient: 1,151 people with 8 % events and HR 0.5 (the size and
event share of a large HIV trial; few events) and 686 people (GBSG2's arm split) with about 45 % events and HR 0.67
(Weibull hazards, shape 1.3, so the hazard is not constant within intervals). Horizons are public study lengths.

For ε ∈ {0.5, 1, 2, 5, 10} and K public intervals ∈ {1, 2, 4, 8}: R seeded preview releases (the NumPy draw of
the release's exact law), each with its honest interval (B redraws of the known noise for the privacy variance):

- grouping: the grouped estimate on exact counts against lifelines (Efron ties) and against Cox with Breslow ties
  (this file's own Newton fit), in units of lifelines' SE;
- |Δ log HR| (median over releases) against lifelines' estimate, absolute and in units of lifelines' SE;
- share significant at 5 % (from the honest interval), sign agreement with lifelines;
- coverage of the true coefficient (simulated cohorts, a new cohort per replicate) and type-I error with the arm
  permuted (real cohorts: a new permutation per replicate), each with its Monte-Carlo standard error;
- time of one ``DPCoxPHFitter.fit`` (OpenDP release, 200 redraws) on the 1,151-person trial against lifelines'
  ``CoxPHFitter.fit`` on the same rows.

Writes ``bench/results/cox.{csv,md}``.

    .venv/bin/python bench/bench_cox.py [--draws 200] [--redraws 100] [--replicates 1000] [--null-replicates N]
                                        [--eps 0.5,1,2,5,10]
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

from dpcore.survival.cox import DPCoxPHFitter, default_intervals
from dpcore.survival.hazard_ratio import fit_with_noise

EPSILONS = (0.5, 1.0, 2.0, 5.0, 10.0)
INTERVALS = (1, 2, 4, 8)
OUT = ROOT / "bench" / "results"


@dataclass(frozen=True)
class Cohort:
    name: str
    frame: pd.DataFrame  # columns T, E, x (binary 0/1)
    horizon: float
    what: str
    true_coef: float | None = None  # simulated cohorts only


def _frame(t, e, x) -> pd.DataFrame:
    return pd.DataFrame({"T": np.asarray(t, float), "E": np.asarray(e, int), "x": np.asarray(x, float)})


def simulate(n: int, treated_share: float, coef: float, rate: float, rng: np.random.Generator) -> pd.DataFrame:
    """Weibull (shape 1.3) event times with log HR ``coef`` for ``x``, exponential drop-out (rate 0.1), followed to
    the horizon 1."""
    x = (rng.random(n) < treated_share).astype(float)
    t_event = (-np.log(rng.random(n)) / (rate * np.exp(coef * x))) ** (1 / 1.3)
    t_drop = rng.exponential(10.0, n)
    t = np.minimum(t_event, t_drop)
    return _frame(t, t_event <= t_drop, x)


def cohorts(rng: np.random.Generator) -> list[Cohort]:
    lung = datasets.load_lung()
    gbsg2 = datasets.load_gbsg2()
    kidney = datasets.load_kidney_transplant()
    dd = datasets.load_dd()
    rossi = datasets.load_rossi()
    return [
        Cohort("rossi", _frame(rossi.week, rossi.arrest, rossi.fin), 52, "432 released prisoners, financial aid"),
        Cohort("lung", _frame(lung.time, lung.status, lung.sex == 2), 1000, "228 lung cancer patients, female sex"),
        Cohort("gbsg2", _frame(gbsg2.time, gbsg2.cens, gbsg2.horTh == "yes"), 2557, "686 breast cancer, hormonal therapy"),
        Cohort("kidney", _frame(kidney.time, kidney.death, kidney.black_male), 3287, "863 kidney transplants, black male"),
        Cohort("dd", _frame(dd.duration, dd.observed, dd.democracy == "Democracy"), 45, "1,808 heads of government"),
        Cohort("trial_1151", simulate(1151, 0.5, np.log(0.5), 0.11, rng), 1.0,
               "simulated trial, 1,151 people, 8 % events, HR 0.5", np.log(0.5)),
        Cohort("sim_686", simulate(686, 246 / 686, np.log(0.67), 0.75, rng), 1.0,
               "simulated, 686 people (GBSG2's arm split), ~45 % events, HR 0.67", np.log(0.67)),
    ]


def cut(frame: pd.DataFrame, horizon: float) -> pd.DataFrame:
    return frame.assign(E=np.where(frame["T"] > horizon, 0, frame["E"]), T=np.minimum(frame["T"], horizon))


def lifelines_cox(frame: pd.DataFrame, horizon: float) -> tuple[float, float]:
    s = CoxPHFitter().fit(cut(frame, horizon), "T", "E").summary.loc["x"]
    return float(s["coef"]), float(s["se(coef)"])


def breslow_cox(frame: pd.DataFrame, horizon: float) -> float:
    """Cox's log HR of binary ``x`` with Breslow ties (lifelines offers Efron only): Newton on the partial
    likelihood over distinct event times."""
    f = cut(frame, horizon)
    t, e, x = f["T"].to_numpy(), f["E"].to_numpy(), f["x"].to_numpy()
    times = np.unique(t[e == 1])
    at1 = np.array([((t >= s) & (x == 1)).sum() for s in times], float)
    at0 = np.array([((t >= s) & (x == 0)).sum() for s in times], float)
    d = np.array([((t == s) & (e == 1)).sum() for s in times], float)
    d1 = np.array([((t == s) & (e == 1) & (x == 1)).sum() for s in times], float)
    beta = 0.0
    for _ in range(50):
        p = at1 * np.exp(beta) / (at0 + at1 * np.exp(beta))
        step = (d1 - d * p).sum() / (d * p * (1 - p)).sum()
        beta += step
        if abs(step) < 1e-12:
            break
    return beta


def fitter(horizon: float, k: int, epsilon: float) -> DPCoxPHFitter:
    return DPCoxPHFitter(epsilon=epsilon, bounds={"x": (0, 1)}, horizon=horizon, intervals=k)


def exact_histograms(f: DPCoxPHFitter, frames: list[pd.DataFrame]) -> np.ndarray:
    """One exact histogram per frame ``(len(frames), size)``: the frames' cells in one call, counted per frame."""
    cells = f._cells(pd.concat(frames, ignore_index=True), "T", "E")
    frame_of_row = np.repeat(np.arange(len(frames)), [len(fr) for fr in frames])
    counts = np.bincount(frame_of_row * f.design.size + cells, minlength=len(frames) * f.design.size)
    return counts.reshape(len(frames), f.design.size)


def release_fits(f: DPCoxPHFitter, exact: np.ndarray, rng: np.random.Generator, redraws: int):
    """One preview release per row of ``exact`` (R, size), each fitted with its honest interval: (coef, half width
    of the 95 % interval, p)."""
    noisy = f.noise.sample(exact.astype(np.int64), rng=rng)
    fit = fit_with_noise(f.design.table(noisy, noisy=True), f.design.matrix(), ("x",), f.noise, rng=rng,
                         draws=redraws)
    return fit.coef[:, 0], fit.half_width[:, 0], fit.p_value[:, 0]


def release_summary(f: DPCoxPHFitter, exact: np.ndarray, ref: float, ref_se: float, args,
                    rng: np.random.Generator) -> dict:
    """``args.draws`` preview releases of one exact histogram against lifelines' estimate and SE."""
    coef, half, p = release_fits(f, np.repeat(exact, args.draws, 0), rng, args.redraws)
    return {"median_abs_diff": float(np.median(np.abs(coef - ref))),
            "median_abs_diff_in_se": float(np.median(np.abs(coef - ref)) / ref_se),
            "median_release_within_one_se": bool(abs(np.median(coef) - ref) <= ref_se),
            "share_significant": float(np.mean(p < 0.05)),
            "sign_agreement": float(np.mean(np.sign(coef) == np.sign(ref))),
            "median_se_ratio": float(np.median(half) / 1.959964 / ref_se)}


def default_rule(cohort: Cohort, args, rng: np.random.Generator) -> list[dict]:
    """Releases at the default number of intervals from n and ε (no event share declared), per ε."""
    ref, ref_se = lifelines_cox(cohort.frame, cohort.horizon)
    rows = []
    for eps in args.eps:
        k = default_intervals(eps, n=len(cohort.frame))
        f = fitter(cohort.horizon, k, eps)
        rows.append({"cohort": cohort.name, "epsilon": eps, "intervals": k,
                     **release_summary(f, exact_histograms(f, [cohort.frame]), ref, ref_se, args, rng)})
    return rows


def replicate_histograms(cohort: Cohort, f: DPCoxPHFitter, args, rng: np.random.Generator):
    """Exact histograms of the replicates: new cohorts for coverage (simulated cohorts only, else None) and the arm
    permuted for the type-I error (a new permutation per replicate; of the new cohorts where there are some)."""
    if cohort.true_coef is None:
        return None, exact_histograms(f, [cohort.frame.assign(x=rng.permutation(cohort.frame["x"].to_numpy()))
                                          for _ in range(args.null_replicates)])
    frames = [simulate(len(cohort.frame), cohort.frame["x"].mean(), cohort.true_coef,
                       0.11 if cohort.name == "trial_1151" else 0.75, rng)
              for _ in range(max(args.replicates, args.null_replicates))]
    permuted = [fr.assign(x=rng.permutation(fr["x"].to_numpy())) for fr in frames[:args.null_replicates]]
    return exact_histograms(f, frames[:args.replicates]), exact_histograms(f, permuted)


def share_with_mc_se(name: str, hits: np.ndarray) -> dict:
    """A share over replicates and its Monte-Carlo standard error (columns ``name`` and ``name_mc_se``)."""
    share = float(np.mean(hits))
    return {name: share, f"{name}_mc_se": float(np.sqrt(share * (1 - share) / hits.size))}


def grouping_bias(cohort: Cohort) -> list[dict]:
    """The grouped estimate on exact counts against lifelines (Efron) and Breslow, per number of intervals."""
    ref, ref_se = lifelines_cox(cohort.frame, cohort.horizon)
    breslow = breslow_cox(cohort.frame, cohort.horizon)
    events = float(cut(cohort.frame, cohort.horizon)["E"].mean())
    rows = []
    for k in (*INTERVALS, 26):
        f = fitter(cohort.horizon, k, 1.0)
        exact_fit = fit_with_noise(f.design.table(exact_histograms(f, [cohort.frame])[0], noisy=False),
                                   f.design.matrix(), ("x",), None)
        rows.append({"cohort": cohort.name, "n": len(cohort.frame), "event_share": events, "intervals": k,
                     "grouped": float(exact_fit.coef[0]), "grouped_se": float(exact_fit.se[0]),
                     "lifelines_efron": ref, "lifelines_se": ref_se, "breslow": breslow,
                     "bias_vs_efron_in_se": (float(exact_fit.coef[0]) - ref) / ref_se,
                     "bias_vs_breslow_in_se": (float(exact_fit.coef[0]) - breslow) / ref_se,
                     "true_coef": cohort.true_coef})
    return rows


def run(args) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    rng = np.random.default_rng(args.seed)
    rows, grouping, rule = [], [], []
    for cohort in cohorts(rng):
        grouping += grouping_bias(cohort)
        if args.report_only:
            rule += default_rule(cohort, args, rng)
        if (args.sets and cohort.name not in args.sets) or args.report_only:
            continue
        ref, ref_se = lifelines_cox(cohort.frame, cohort.horizon)
        events = float(cut(cohort.frame, cohort.horizon)["E"].mean())
        for k in INTERVALS:
            # the exact histograms do not depend on ε: one set of replicates per number of intervals
            design = fitter(cohort.horizon, k, 1.0)
            exact = exact_histograms(design, [cohort.frame])
            covered, null = replicate_histograms(cohort, design, args, rng) if args.replicates else (None, None)
            for eps in args.eps:
                f = fitter(cohort.horizon, k, eps)
                row = {"cohort": cohort.name, "n": len(cohort.frame), "event_share": events, "intervals": k,
                       "epsilon": eps, "lifelines_coef": ref, "lifelines_se": ref_se,
                       **release_summary(f, exact, ref, ref_se, args, rng)}
                if covered is not None:
                    c, s, _ = release_fits(f, covered, rng, args.redraws)
                    row.update(share_with_mc_se("coverage", np.abs(c - cohort.true_coef) <= s))
                if null is not None:
                    _, _, p0 = release_fits(f, null, rng, args.redraws)
                    row.update(share_with_mc_se("type_one_error", p0 < 0.05))
                rows.append(row)
                print({k2: (round(v, 3) if isinstance(v, float) else v) for k2, v in row.items()}, flush=True)
    trial = next(c for c in cohorts(np.random.default_rng(args.seed)) if c.name == "trial_1151")
    start = time.perf_counter()
    fitter(1.0, 1, 1.0).fit(trial.frame, "T", "E")
    dp_time = time.perf_counter() - start
    start = time.perf_counter()
    CoxPHFitter().fit(trial.frame, "T", "E")
    ll_time = time.perf_counter() - start
    timing = {"dp_fit_seconds_1151": dp_time, "lifelines_fit_seconds_1151": ll_time}
    return pd.DataFrame(rows), pd.DataFrame(grouping), pd.DataFrame(rule), timing


def markdown(results: pd.DataFrame, grouping: pd.DataFrame, rule: pd.DataFrame, timing: dict, args) -> str:
    def table(frame: pd.DataFrame) -> str:
        cols = list(frame.columns)
        lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for _, r in frame.iterrows():
            lines.append("| " + " | ".join(f"{v:.3g}" if isinstance(v, float) else str(v) for v in r) + " |")
        return "\n".join(lines)

    show = results.drop(columns=["n", "lifelines_se"]).copy()
    return "\n\n".join([
        "# Private hazard ratios (grouped Cox) against lifelines' Cox",
        (f"`bench/bench_cox.py --draws {args.draws} --redraws {args.redraws} --replicates {args.replicates} "
         f"--null-replicates {args.null_replicates} --seed {args.seed}`"
         + (f" with the release rows of {', '.join(args.include)}" if args.include else "")
         + ". Releases are seeded previews of the release's exact law (discrete Laplace, Δ1 = 2)."),
        "## The grouping's own bias (exact counts, no noise)",
        ("`grouped`: the piecewise-exponential estimate on K public intervals; `breslow`: Cox with Breslow ties; "
        "`lifelines_efron`: lifelines' CoxPHFitter (Efron ties). Bias in units of lifelines' SE."),
        table(grouping),
        *(["## The default number of intervals from n and ε",
           ("`default_intervals(ε, n=n)` (no event share declared): the most intervals, a power of two from 2 to 32, "
            "that keep 50/ε expected events per group and interval; medians over the releases (`--report-only` "
            "runs only)."),
           table(rule)] if len(rule) else []),
        "## Releases",
        ("Medians over releases; `share_significant` and `type_one_error` from the honest interval (sampling + "
        "privacy); coverage of the true coefficient on simulated cohorts (a new cohort per replicate); type-I error "
        "with the arm permuted (a new permutation per replicate); `*_mc_se`: Monte-Carlo standard error."),
        table(show),
        "## Time",
        (f"One `DPCoxPHFitter.fit` on 1,151 people (OpenDP release + 200 redraws): "
        f"{timing['dp_fit_seconds_1151'] * 1000:.0f} ms; lifelines' `CoxPHFitter.fit` on the same rows: "
        f"{timing['lifelines_fit_seconds_1151'] * 1000:.0f} ms (same process, shared 2-core machine)."),
    ]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--redraws", type=int, default=100)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--null-replicates", type=int, default=None,
                        help="permutations for the type-I error (default: --replicates)")
    parser.add_argument("--eps", type=lambda s: [float(v) for v in s.split(",")], default=list(EPSILONS))
    parser.add_argument("--sets", type=lambda s: s.split(","), default=None)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", default="cox")
    parser.add_argument("--include", type=lambda s: s.split(","), default=None,
                        help="CSV files of earlier runs' release rows to report with this run's")
    parser.add_argument("--report-only", action="store_true", help="no releases: grouping, time and --include")
    args = parser.parse_args()
    args.null_replicates = args.null_replicates or args.replicates
    warnings.filterwarnings("ignore")
    results, grouping, rule, timing = run(args)
    if args.include:  # rows of earlier runs with the same settings (a long run split by cohort)
        results = pd.concat([*(pd.read_csv(p) for p in args.include), results], ignore_index=True)
    OUT.mkdir(parents=True, exist_ok=True)
    results.to_csv(OUT / f"{args.out}.csv", index=False)
    grouping.to_csv(OUT / f"{args.out}_grouping.csv", index=False)
    (OUT / f"{args.out}.md").write_text(markdown(results, grouping, rule, timing, args))


if __name__ == "__main__":
    main()
