"""Simulated utility: Monte-Carlo over R noise draws and over ε (preview only, NumPy noise)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from dpcore.core.mechanisms import sample_sweep
from dpcore.core.utility import UtilityCurve
from dpcore.survival.estimators import DEFAULT_RISK_SET, curve_for, noise_band, postprocess
from dpcore.survival.logrank import linear_logrank, logrank_test
from dpcore.survival.mechanism import noise_for, noisy_counts
from dpcore.survival.read import fine_times, first_below, path
from dpcore.survival.statistic import Counts


@dataclass(frozen=True)
class Utility:
    """Per-draw utility measures; every array has the draw axes (R,) or (n_eps, R).

    ``sup_error``: max over grid (and groups) of ``|private − exact|``;
    ``integrated_error``: Σ over bins of ``|private − exact| × width`` (grid
    units), averaged over groups; ``median_error``: ``|median' − median|``, each median read by the within-bin rule
    (:mod:`dpcore.survival.read`; grid units, NaN when only one of them is reached, 0 when neither);
    ``coverage``: share of grid points where the private Greenwood interval
    (sampling error only) contains the exact curve; ``covers_all``: it does at
    every point; ``released_coverage`` / ``released_covers_all``: the same for
    the interval a release exports (:func:`noise_band`, noise and sampling),
    when :func:`utility` computed it; ``p_value`` and
    ``logrank_agree`` (decision at ``level`` equal to the exact one) when
    G ≥ 2, else None.
    """

    sup_error: np.ndarray
    integrated_error: np.ndarray
    median_error: np.ndarray
    coverage: np.ndarray
    covers_all: np.ndarray
    p_value: np.ndarray | None
    logrank_agree: np.ndarray | None
    exact_p_value: float | None
    estimator: str
    released_coverage: np.ndarray | None = None
    released_covers_all: np.ndarray | None = None

    def summary(self) -> pd.DataFrame:
        """Mean and 5–95 % band of each measure over the draws (last axis)."""
        rows = []
        for name, label in [("sup_error", "sup-norm error"), ("integrated_error", "integrated absolute error"),
                            ("median_error", "median survival error"),
                            ("released_coverage", "released 95 % interval (noise + sampling) covers exact"),
                            ("released_covers_all", "released interval covers all of exact curve"),
                            ("coverage", "Greenwood CI (sampling only) covers exact"),
                            ("covers_all", "Greenwood CI covers all of exact curve"), ("p_value", "log-rank p-value"),
                            ("logrank_agree", "log-rank decision agrees")]:
            v = getattr(self, name)
            if v is None or (name == "median_error" and self.estimator != "km"):
                continue
            v = np.asarray(v, dtype=float)
            if np.isnan(v).all():
                rows.append({"measure": label, "mean": np.nan, "q05": np.nan, "q95": np.nan})
                continue
            rows.append({"measure": label, "mean": float(np.nanmean(v)), "q05": float(np.nanquantile(v, 0.05)),
                         "q95": float(np.nanquantile(v, 0.95))})
        return pd.DataFrame(rows)


def _median_read(times: np.ndarray, estimate: np.ndarray, substeps: int = 16, cells: int = 2_000_000) -> np.ndarray:
    """The median by the within-bin rule for every curve of ``estimate`` (..., k+1), read in chunks of at most
    ``cells`` fine points: all draws of an ε sweep at once would hold (draws, groups, 16·k) arrays several times over
    (1.5 GB on Mgus at weekly bins), for the same result."""
    fine = fine_times(times, substeps)
    flat = np.asarray(estimate, float).reshape(-1, np.shape(estimate)[-1])
    step = max(1, cells // fine.size)
    parts = [first_below(fine, path(times, flat[i:i + step], fine)) for i in range(0, len(flat), step)]
    return np.concatenate(parts).reshape(np.shape(estimate)[:-1])


def _utility_from(exact: Counts, noisy: Counts, estimator: str, alpha: float, level: float, event_type: int,
                  risk_set: str = DEFAULT_RISK_SET, lr_noise_var=0.0, noise_std=0.0) -> Utility:
    n_types = exact.n_types  # the released matrix's event types (their noise adds up when collapsed)
    if estimator != "cif":
        exact, noisy = exact.collapse_types(), noisy.collapse_types()
    ex_table, nz_table = postprocess(exact, risk_set=risk_set), postprocess(noisy, risk_set=risk_set)
    ex = curve_for(ex_table, estimator, alpha=alpha, event_type=event_type)
    nz = curve_for(nz_table, estimator, alpha=alpha, event_type=event_type)
    diff = np.abs(nz.estimate - ex.estimate)  # (..., G, k+1)
    widths = np.diff(exact.grid.display)
    sup = diff.max(axis=(-1, -2))
    integ = (diff[..., :-1] * widths).sum(-1).mean(-1)  # step function: value on [t_j, t_{j+1})
    inside = (nz.ci_lower <= ex.estimate + 1e-12) & (ex.estimate <= nz.ci_upper + 1e-12)
    coverage = inside.mean(axis=(-1, -2))
    covers = inside.all(axis=(-1, -2))
    if estimator == "km":  # read by the within-bin rule, as the release reads its median
        m_ex = _median_read(ex.times, ex.estimate)
        m_nz = _median_read(nz.times, nz.estimate)
        both_inf = np.isinf(m_ex) & np.isinf(m_nz)
        with np.errstate(invalid="ignore"):
            me = np.where(both_inf, 0.0, np.where(np.isinf(m_ex) | np.isinf(m_nz), np.nan, np.abs(m_nz - m_ex)))
        med = np.where(np.isnan(me).any(-1), np.nan, me.max(-1))
    else:
        med = np.full(sup.shape, np.nan)
    p = agree = exact_p = None
    if exact.n_groups >= 2:  # the test a release reports: on the table of logrank_table (per ε in a sweep)
        lr_ex = logrank_test(ex_table if estimator != "cif" else postprocess(exact.collapse_types(), risk_set=risk_set))
        all_cause = noisy.collapse_types()
        tables = {} if estimator == "cif" else {risk_set: nz_table}  # the curves' all-cause table, not redone

        def p_on(rule: str) -> np.ndarray:
            if rule not in tables:
                tables[rule] = postprocess(all_cause, risk_set=rule)
            return logrank_test(tables[rule], noise_var=lr_noise_var, n_types=n_types).p_value

        linear = np.asarray(linear_logrank(all_cause, noise_std)) & (risk_set == "isotonic")  # () or (n_eps, 1)
        p = p_on("bridge") if linear.all() else p_on(risk_set)
        if linear.any() and not linear.all():  # a sweep whose small ε keep the monotone fit
            p = np.where(linear, p_on("bridge"), p)
        exact_p = float(lr_ex.p_value)
        agree = (p < level) == (exact_p < level)
    return Utility(sup, integ, med, coverage, covers, p, agree, exact_p, estimator)


def utility(counts: Counts, epsilon: float, *, draws: int = 200, rng: np.random.Generator, estimator: str = "km",
            kind: str = "laplace", alpha: float = 0.05, level: float = 0.05, event_type: int = 1,
            risk_set: str = DEFAULT_RISK_SET, noise_aware_logrank: bool = False, interval_draws: int = 100,
            delta: float = 0.0) -> Utility:
    """Utility measures of ``survival.md`` over ``draws`` preview releases, one vectorised pass.

    ``noise_aware_logrank`` adds the noise variance to the log-rank test
    (see :func:`logrank_test`); ``risk_set`` as in :func:`postprocess`. With ``interval_draws > 0`` each preview
    release also gets the interval a release exports (:func:`noise_band` with that many redraws, in steps of at
    most :data:`SWEEP_CELLS` redrawn counts), and its coverage of the exact curve is measured. ``delta``: the
    Gaussian's (``kind="gaussian"``).
    """
    noise = noise_for(counts, epsilon, kind=kind, delta=delta)
    noisy = noisy_counts(counts, noise, rng=rng, draws=draws)
    util = _utility_from(counts, noisy, estimator, alpha, level, event_type, risk_set,
                         noise.std**2 if noise_aware_logrank else 0.0, noise.std)
    if interval_draws <= 0:
        return util
    exact_counts = counts if estimator == "cif" else counts.collapse_types()
    exact = curve_for(postprocess(exact_counts, risk_set=risk_set), estimator, alpha=alpha, event_type=event_type)
    released = noisy.vector()  # (draws, G, cells): the preview releases, in steps of `step`
    step = max(1, SWEEP_CELLS // max(1, int(interval_draws) * released[0].size))
    inside = []
    for start in range(0, draws, step):
        part = noisy.from_vector(released[start:start + step])
        lo, hi = noise_band(part, noise, draws=interval_draws, rng=rng, estimator=estimator, alpha=alpha,
                            event_type=event_type, risk_set=risk_set)
        inside.append((lo <= exact.estimate + 1e-12) & (exact.estimate <= hi + 1e-12))
    inside = np.concatenate(inside, axis=0)
    return replace(util, released_coverage=inside.mean(axis=(-1, -2)), released_covers_all=inside.all(axis=(-1, -2)))


@dataclass(frozen=True)
class SurvivalUtilityCurve(UtilityCurve):
    """Utility over an ε grid: every measure shaped ``(n_eps, R)`` (per-draw values).

    ``delta`` is the noise's δ: 0 for the Laplace kinds (pure ε-DP), the Gaussian's δ otherwise. The metrics are
    the fields' names; ``logrank_agree`` and ``p_value`` only with two or more groups.
    """

    sup_error: np.ndarray
    integrated_error: np.ndarray
    median_error: np.ndarray
    coverage: np.ndarray
    logrank_agree: np.ndarray | None
    p_value: np.ndarray | None
    exact_p_value: float | None
    estimator: str

    @property
    def metrics(self) -> tuple[str, ...]:
        return tuple(name for name in ("sup_error", "integrated_error", "median_error", "coverage", "logrank_agree",
                                       "p_value") if getattr(self, name) is not None)

    def metric(self, name: str) -> np.ndarray:
        if name in ("logrank_agree", "p_value") and getattr(self, name) is None:
            raise KeyError(f"{name} is not available (needs two or more groups)")
        return super().metric(name)


#: Most noisy counts (ε values × draws × cells) one step of :func:`utility_curve` holds: its estimator
#: intermediates are a few arrays of this size, so a step stays near 0.3 GB whatever the grid and draws.
SWEEP_CELLS = 4_000_000


def utility_curve(counts: Counts, epsilons, *, draws: int = 200, rng: np.random.Generator, estimator: str = "km",
                  kind: str = "laplace", alpha: float = 0.05, level: float = 0.05, event_type: int = 1,
                  risk_set: str = DEFAULT_RISK_SET, noise_aware_logrank: bool = False,
                  delta: float = 0.0) -> SurvivalUtilityCurve:
    """Per-draw utility measures over an ε grid (``(n_eps, R)`` arrays), vectorised over draws and ε.

    The ε grid is taken in steps of at most :data:`SWEEP_CELLS` noisy counts (one step when it fits, which
    keeps small sweeps' draws as they were): a 17-ε sweep of 500 draws on a 2,000-bin competing-risk grid
    otherwise held several GB at once.
    """
    eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
    noises = [noise_for(counts, float(e), kind=kind, delta=delta) for e in eps]
    vector = counts.vector()
    step = max(1, SWEEP_CELLS // max(1, int(draws) * vector.size))
    parts = []
    for start in range(0, eps.size, step):
        chunk = noises[start:start + step]
        vec = sample_sweep(vector, chunk, rng=rng, draws=draws)
        std = np.array([n.std for n in chunk])[:, None]
        nv = std**2 if noise_aware_logrank else 0.0
        parts.append(_utility_from(counts, counts.from_vector(vec), estimator, alpha, level, event_type, risk_set, nv,
                                   std))

    def joined(name: str):
        values = [getattr(u, name) for u in parts]
        return None if values[0] is None else np.concatenate(values, axis=0)

    return SurvivalUtilityCurve(eps, joined("sup_error"), joined("integrated_error"), joined("median_error"),
                                joined("coverage"), joined("logrank_agree"), joined("p_value"),
                                parts[0].exact_p_value, estimator, delta=float(noises[0].delta))


def metric_draws(counts: Counts, metric: str, epsilons, draws: int, rng: np.random.Generator,
                 **options) -> np.ndarray:
    """``(len(epsilons), draws)`` values of one measure of :func:`utility_curve` (e.g. ``"sup_error"``).

    With ``functools.partial(metric_draws, counts, metric, **options)`` this is a
    ``dpcore.core.utility.Simulator``: accuracy-first refines its estimate with it, in seeded chunks that may run
    on a Dask cluster (public data only).
    """
    return utility_curve(counts, epsilons, draws=draws, rng=rng, **options).metric(metric)
