"""The power frontier of the release path: records per test n × cutoff c × ε → power and FDR.

What a *release* on the Bernoulli design can achieve, with nothing weakened: the exact binomial η for n records
per test above the design floor μ (:func:`design_floor`), the shift proven for the whole stream
(:func:`stream_shift`), the paper's threshold rule, at most c rejections. The paper's η (√(ln n / n)) and shift
(s = 1) give power at n = 1000, but neither may be released; with the proven η and shift, power needs more
records per test (one record then moves a p-value by relatively less) or a larger ε.

Every input is a public simulation setting (no data), so a frontier may be cached and shown to anyone. The grid is
one kernel call per n: every (c, ε) pair and run is stacked on the run axis (rows carry their own cutoff, shift
and noise scale).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from dpcore.fdr.calibration import STREAM, stream_shift
from dpcore.fdr.core import _core
from dpcore.fdr.evaluation import fdp_power
from dpcore.fdr.one_call import Settings, _rule_rows
from dpcore.fdr.paprika import draw_paprika_noise
from dpcore.fdr.rules import _gamma_for
from dpcore.fdr.sensitivity import P_FLOOR, eta_binomial_exact
from dpcore.fdr.simulate import simulate_bernoulli

#: Records per test n of the frontier (and of the page's slider)
FRONTIER_RECORDS = (100, 200, 500, 1000, 2000, 3000, 4000, 5000, 7500, 10_000, 20_000)
FRONTIER_CUTOFFS = (10, 20, 40, 80)
FRONTIER_EPSILONS = (0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 20.0)
#: Simulated streams per cell (standard error of the power ≤ 0.5/√40 ≈ 0.08, about 0.01 where power is high)
FRONTIER_RUNS = 40
#: Power a configuration must reach, and the largest ε it may use, to count as "working"
TARGET_POWER = 0.8
TARGET_EPSILON = 5.0


def design_floor(n: int, theta: float) -> float:
    """The floor μ = 10^−k a design with n records per test and alternative θ uses: the one-sided binomial
    p-value of the alternative's median count, rounded to a power of ten (k between 1 and 300).

    Why: below μ one record may move log p by more than η, so p-values are raised to μ; a lower μ lets strong
    effects count as stronger evidence but raises η (and with it the noise and the shift). Simulations of the
    release path (``docs/fdr.md``) put the best μ near the typical alternative's p-value; flooring there keeps
    half the alternatives at μ. Depends on the design only (n, θ), never on data.
    """
    median = int(stats.binom.median(n, theta))
    log10_p = float(stats.binom.logsf(median - 1, n, 0.5)) / math.log(10)  # −inf when it underflows
    k = int(round(float(np.clip(-log10_p, 1, -math.log10(P_FLOOR)))))
    return 10.0 ** -k


def power_frontier(records: Sequence[int] = FRONTIER_RECORDS, cutoffs: Sequence[int] = FRONTIER_CUTOFFS,
                   epsilons: Sequence[float] = FRONTIER_EPSILONS, *, T: int = 800, pi1: float = 0.05,
                   theta: float = 0.75, settings: Settings = Settings(), ai: bool = False,
                   runs: int = FRONTIER_RUNS, seed: int = 0) -> pd.DataFrame:
    """Power and FDR of the release path (PAPRIKA, or PAPRIKA AI with ``ai``) over records × cutoffs × ε.

    Bernoulli streams (T hypotheses, share π1 of alternatives with success rate θ), ``runs`` of them per n, the
    same truth labels for every n (common random numbers: only the counts change with n). ``settings`` supplies
    α, δ, λ and γ; its η, floor, shift, rule, cutoff and ε are replaced by the release path's. Preview noise
    (seeded NumPy), the same law as a release's. One row per (records, cutoff, ε): the floor μ and η used, the
    shift A, mean power and FDR over runs with standard errors.
    """
    cs, es = (np.array(v) for v in zip(*itertools.product(cutoffs, epsilons)))
    row_cutoff, row_eps = np.repeat(cs, runs), np.repeat(es.astype(float), runs)
    name = "PAPRIKA AI" if ai else "PAPRIKA"
    gamma = _gamma_for(settings.gamma, T, ai)
    tables = []
    for n in records:
        streams = simulate_bernoulli(runs, T, pi1=pi1, n=int(n), theta=theta, rng=np.random.default_rng([seed, 28]))
        floor = design_floor(int(n), theta)
        eta = eta_binomial_exact(int(n), floor)
        s = replace(settings, eta=eta, floor=floor, shift=STREAM, rule="paper")
        shift_a = np.array([stream_shift(float(e), s.delta, eta, int(c), T) for c, e in zip(cs, es)])
        rows = replace(_rule_rows(name, row_eps.size, s, 0, np.repeat(shift_a, runs)),
                       cutoff=row_cutoff.astype(np.int64))
        # one noise table as wide as the largest cutoff; per row the scale is ηc/ε (ε given as ε·c_max/c)
        c_max = int(cs.max())
        noise = draw_paprika_noise(row_eps.size, T, epsilon=row_eps * c_max / row_cutoff, eta=eta, cutoff=c_max,
                                   rng=np.random.default_rng([seed, 28, int(n)]))
        rej, *_ = _core(streams.pvalues, rows, [gamma], z_alpha=noise.z_alpha, z_test=noise.z_test, floor=floor)
        fdp, power = fdp_power(rej, np.tile(streams.truth, (cs.size, 1)))
        fdp, power = fdp.reshape(cs.size, runs), power.reshape(cs.size, runs)
        counts = np.isfinite(power).sum(axis=1)
        tables.append(pd.DataFrame(dict(
            records=int(n), cutoff=cs, epsilon=es, floor=floor, eta=eta, shift_A=shift_a,
            power=np.nanmean(power, axis=1), power_se=np.nanstd(power, axis=1, ddof=1) / np.sqrt(counts),
            FDR=fdp.mean(axis=1), FDR_se=fdp.std(axis=1, ddof=1) / math.sqrt(runs))))
    return pd.concat(tables, ignore_index=True)


def smallest_working(table: pd.DataFrame, *, target: float = TARGET_POWER,
                     max_epsilon: float = TARGET_EPSILON) -> pd.Series | None:
    """The configuration with the fewest records per test whose power reaches ``target`` at ε ≤ ``max_epsilon``
    (then the smallest such ε, then the highest power); None when no configuration of the table does.

    In NumPy (a stable lexicographic sort of the qualifying rows): the page states it on every ε move, where
    pandas' filter and ``sort_values`` took about 0.5 ms against 0.03."""
    power, epsilon, records = (table[c].to_numpy(dtype=float) for c in ("power", "epsilon", "records"))
    ok = np.flatnonzero((power >= target) & (epsilon <= max_epsilon))
    if ok.size == 0:
        return None
    return table.iloc[ok[np.lexsort((-power[ok], epsilon[ok], records[ok]))[0]]]


def smallest_records_per_epsilon(table: pd.DataFrame, *, target: float = TARGET_POWER) -> pd.DataFrame:
    """For each cutoff and ε, the fewest records per test reaching ``target`` (NaN when none of the grid does)."""
    ok = table[table["power"] >= target].groupby(["cutoff", "epsilon"])["records"].min()
    full = pd.MultiIndex.from_product([sorted(table["cutoff"].unique()), sorted(table["epsilon"].unique())],
                                      names=["cutoff", "epsilon"])
    return ok.reindex(full).reset_index()
