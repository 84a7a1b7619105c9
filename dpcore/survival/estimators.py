"""Stage 3 — post-processing (free): risk sets, Kaplan–Meier, Nelson–Aalen, incidence, log-rank, noise band.

Run on the exact counts these give the non-private reference (equal to lifelines on the binned data);
run on noisy counts they give the DP estimates. Every array function accepts leading draw axes
``(..., G, k)`` so R noisy releases go through one vectorised pass.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy import special

from dpcore.core.mechanisms import Noise
from dpcore.survival.grid import ESTIMATORS, Grid
from dpcore.survival.mechanism import noisy_counts
from dpcore.survival.statistic import Counts


@dataclass(frozen=True)
class RiskTable:
    """Post-processed table: ``at_risk`` (..., G, k) and ``events`` (..., G, k, K), floats.

    ``actuarial``: the hazard of a bin divides by ``at_risk − censored/2`` (:attr:`exposed`, the life-table
    estimator: people censored within a bin were at risk for half of it on average), not by everyone at its
    start. ``statistic`` and ``pinned`` record how the counts were released (:data:`STATISTICS`) and whether the
    histogram's cells were pinned to the public n: the noise-aware log-rank variance depends on both. On a coarse grid this is far closer to the Kaplan–Meier curve of the raw times (Cancer, 6-month
    bins: largest gap 0.060 → 0.017), where counting the censored as at risk for the whole bin lifts the curve.
    """

    at_risk: np.ndarray
    events: np.ndarray
    censored: np.ndarray
    grid: Grid
    groups: tuple[str, ...]
    event_labels: tuple[str, ...]
    actuarial: bool = False
    statistic: str = "matrix"
    pinned: bool = False

    @property
    def exposed(self) -> np.ndarray:
        """The denominator of each bin's hazard (..., G, k): the number at risk, less half the censored if actuarial."""
        if not self.actuarial:
            return self.at_risk
        return np.maximum(self.at_risk - self.censored / 2.0, 0.0)

    @property
    def deaths(self) -> np.ndarray:
        """All-cause events per bin (..., G, k)."""
        return self.events.sum(-1)

    def pooled(self) -> "RiskTable":
        return replace(self, at_risk=self.at_risk.sum(-2, keepdims=True), events=self.events.sum(-3, keepdims=True),
                       censored=self.censored.sum(-2, keepdims=True), groups=("all",))


#: The post-processing rules that rebuild a risk table from noisy counts (all free post-processing), default first.
RISK_SETS: dict[str, str] = {
    "isotonic": "consistent counts (the exits sum to n — the public n for the histogram, the noisy n for the paper's "
                "matrix: least-squares split of the residual), no "
                "clipping before the hazard, isotonic (monotone least-squares) fit of each cumulative hazard",
    "bridge": "consistent counts (the exits sum to n — the public n for the histogram, the noisy n for the paper's "
              "matrix: least-squares split of the residual), "
              "unclipped events",
    "running": "running sum of the unclipped noisy counts, clipped at 0 and non-increasing; events clipped at 0",
    "spec": "clip every count at 0, then subtract (the paper's rule)",
}
DEFAULT_RISK_SET = "isotonic"


def statistic_for(risk_set: str) -> str:
    """The released statistic that goes with a post-processing rule on the page: the paper's rule (``"spec"``)
    reproduces the paper's release (the matrix, ``r_1`` noised too); every other rule runs on the default
    histogram, whose smaller sensitivity with groups (2, not 4) halves the noise (measured: docs/survival.md)."""
    if risk_set not in RISK_SETS:
        raise ValueError(f"risk_set must be one of {list(RISK_SETS)}, not {risk_set!r}")
    return "matrix" if risk_set == "spec" else "histogram"
def isotonic_increasing(y: np.ndarray) -> np.ndarray:
    """Least-squares non-decreasing fit of every row of ``y`` (last axis), vectorised over the leading axes.

    Pool-adjacent-violators, all rows and all violating neighbours at once: each pass computes every block's
    mean (one ``bincount``) and merges each block with its right neighbour where the means decrease. Merging any
    adjacent violators is a valid PAVA step (a run A > B > C pools to one block either way), so the passes end
    at the unique least-squares fit; every pass removes at least one block, and on noisy counts a few dozen
    passes suffice even for 1,000 bins. Tested equal to scipy's ``isotonic_regression`` row by row.
    """
    y = np.asarray(y, dtype=float)
    k = y.shape[-1]
    flat = y.reshape(-1, k)
    starts = np.ones(flat.shape, dtype=bool)  # does a block start here (every row's first point always does)
    tol = 1e-12 * max(1.0, float(np.abs(flat).max(initial=0.0)))
    while True:
        block = np.cumsum(starts.ravel()) - 1  # block ids, never shared between rows
        means = (np.bincount(block, weights=flat.ravel()) / np.bincount(block))[block].reshape(flat.shape)
        violates = starts[:, 1:] & (means[:, :-1] > means[:, 1:] + tol)
        if not violates.any():
            return means.reshape(y.shape)
        starts[:, 1:] &= ~violates


def _both_ends(r1: np.ndarray, d: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The least-squares consistent matrix: every record leaves by the horizon, so ``r_1 = Σ_j (Σ_k d_jk + c_j)``.

    All 1 + k(K+1) released cells carry i.i.d. noise, so the least-squares fit under that one linear constraint
    spreads the residual ``R = r_1' − Σ cells'`` equally: ``r̂_1 = r_1' − R/m``, every cell ``+ R/m``,
    ``m = 1 + k(K+1)`` (Hay et al. 2010's consistency step). The risk set ``r̂_j = r̂_1 − Σ_{l<j} exits`` then
    equals the sum of the exits from bin j on — it is pinned at both ends, a Brownian bridge of the noise rather
    than a random walk (its variance peaks mid-grid at about a quarter of the forward sum's at the end).
    Post-processing of released counts only.
    """
    k, K = d.shape[-2], d.shape[-1]
    share = (r1 - d.sum((-1, -2)) - c.sum(-1)) / (1 + k * (K + 1))
    return r1 - share, d + share[..., None, None], c + share[..., None]


def _pinned_histogram(d: np.ndarray, c: np.ndarray, total: float | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(r_1, d, c)`` from a released histogram: every record leaves by the horizon, so all groups' cells sum to
    the public ``n`` (``total``, replace-one); the least-squares fit under that one constraint, with i.i.d. noise
    on the ``M = G·k(K+1)`` cells, adds ``(n − Σ cells')/M`` to every cell; each group's ``r_1`` is then the sum of
    its cells, so its risk set is the sum of its exits from bin j on. Without ``total`` (add/remove-one, where n
    is private) the cells are kept. Post-processing of released counts and a public number only."""
    if total is not None:
        share = (total - d.sum((-1, -2, -3)) - c.sum((-1, -2))) / (c.shape[-2] * c.shape[-1] * (d.shape[-1] + 1))
        d, c = d + share[..., None, None, None], c + share[..., None, None]
    return d.sum((-1, -2)) + c.sum(-1), d, c


def postprocess(counts: Counts, *, risk_set: str = DEFAULT_RISK_SET) -> RiskTable:
    """Post-processing (free): a risk table (numbers at risk, events) from released counts; see :data:`RISK_SETS`.

    ``risk_set="isotonic"`` (default, measured best in ``bench/bench_survival_estimators.py``): the counts are made
    consistent (for the default histogram :func:`_pinned_histogram`: all exits sum to the public n, the risk set is
    the sum of the exits to come; for the paper's matrix :func:`_both_ends`: the risk set from both ends), nothing is clipped before the hazard
    (clipping a count at 0 adds about b/2 phantom events to every quiet bin, a downward bias of the curve), the
    cumulative hazard of each event type ``Σ_{l≤j} d_l/r_l`` gets its least-squares non-decreasing fit
    (:func:`isotonic_increasing`, so every hazard is ≥ 0 without a one-sided clip), and the events are
    ``r_j × fitted hazard``. ``"bridge"``: the consistent counts without the monotone fit (a hazard can be
    negative; the curve is clipped to [0, 1] when shown). ``"running"`` (the previous default): the risk set
    subtracts the unclipped noisy counts from ``r_1``, clipped at 0 and made non-increasing; events clipped at 0.
    ``"spec"`` (the paper's rule): clip at 0; ``r_j = max(0, r_{j−1} − Σ_k d_{j−1} − c_{j−1})``, which
    vectorises as ``max(0, r_1 − cumsum(removed))`` because the clipped counts are ≥ 0.

    Every rule clips the events of a bin to the number at risk (types scaled proportionally) and the risk set at
    0. On exact counts every rule gives the ordinary table (the fit of a non-decreasing sequence is itself).

    Counts of people are whole numbers, so real-valued (Laplace) noisy counts are first rounded to the nearest
    integer (free). Without it the table never reaches the exact one as ε grows: where nobody is left at risk, a
    noise-sized risk set divided into noise-sized events gives hazards of order one (the Nelson–Aalen curve of
    the Kidney set stayed 1.0 off at ε = 10⁶).
    """
    whole = [np.rint(np.asarray(x, dtype=float)) for x in (counts.at_start, counts.events, counts.censored)]
    if counts.statistic == "histogram":  # r_1 is not released: the cells' sum, pinned to the public n
        whole = list(_pinned_histogram(whole[1], whole[2], counts.total))
    actuarial = risk_set in ("isotonic", "bridge")
    if actuarial:
        r1, d, c = _both_ends(*whole)
        if risk_set == "isotonic":  # every count ≥ 0 by a monotone fit of its running total, not by a clip
            cells = np.concatenate([d, c[..., None]], axis=-1)  # (..., G, k, K+1)
            fitted = np.maximum(isotonic_increasing(np.cumsum(np.moveaxis(cells, -1, -2), axis=-1)), 0.0)
            cells = np.moveaxis(np.diff(fitted, axis=-1, prepend=0.0), -2, -1)
            d, c = cells[..., :-1], cells[..., -1]
        before = np.cumsum(d.sum(-1) + c, axis=-1) - (d.sum(-1) + c)
        at_risk = np.maximum(r1[..., None] - before, 0.0)
    elif risk_set == "spec":
        r1, d, c = (np.maximum(x, 0.0) for x in whole)
        removed = d.sum(-1) + c
        before = np.cumsum(removed, axis=-1) - removed  # removed in bins < j
        at_risk = np.maximum(r1[..., None] - before, 0.0)
    elif risk_set == "running":
        r1, d, c = (np.maximum(x, 0.0) for x in whole)
        removed = whole[1].sum(-1) + whole[2]
        before = np.cumsum(removed, axis=-1) - removed
        at_risk = np.minimum.accumulate(np.maximum(r1[..., None] - before, 0.0), axis=-1)
    else:
        raise ValueError(f"risk_set must be one of {list(RISK_SETS)}, not {risk_set!r}")
    table = RiskTable(at_risk, d, c, counts.grid, counts.groups, counts.event_labels, actuarial, counts.statistic,
                      counts.statistic == "histogram" and counts.total is not None)
    total, room = d.sum(-1), table.exposed
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(total > room, room / np.where(total > 0, total, 1.0), 1.0)
    return replace(table, events=d * factor[..., None])


def _ratio(num, den):
    """``num / den`` with 0 where ``den == 0`` (a bin with nobody at risk contributes nothing)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def _prepend(x: np.ndarray, value: float) -> np.ndarray:
    pad = np.full(x.shape[:-1] + (1,), value, dtype=float)
    return np.concatenate([pad, x], axis=-1)


@dataclass(frozen=True)
class CurveSet:
    """Curves on the grid edges (``times``, k+1 points incl. t=0), arrays (..., G, k+1)."""

    times: np.ndarray
    estimate: np.ndarray
    variance: np.ndarray
    ci_lower: np.ndarray
    ci_upper: np.ndarray
    groups: tuple[str, ...]
    alpha: float = 0.05


def km(table: RiskTable, *, alpha: float = 0.05) -> CurveSet:
    """Kaplan–Meier ``S(t_j) = Π (1 − d_l/r_l)`` with Greenwood variance and log(−log) CI.

    Conventions follow lifelines' ``KaplanMeierFitter`` so that exact counts
    give its numbers: a Greenwood term is 0 where ``r_l = d_l`` (lifelines
    replaces that infinity by 0), and the interval is 1 where ``S = 1``.
    Where a post-processing leaves a negative event count (``risk_set="bridge"``) the curve is clipped at 1
    and the Greenwood term at 0 (what is shown, not what is summed: the product runs on the unclipped counts).
    """
    d, r = table.deaths, table.exposed
    S = np.minimum(_prepend(np.cumprod(1.0 - _ratio(d, r), axis=-1), 1.0), 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where((r > 0) & (r > d) & (d > 0), d / (r * (r - d)), 0.0)
    cum = _prepend(np.cumsum(term, axis=-1), 0.0)
    var = S**2 * cum
    lo, hi = loglog_interval(S, cum, alpha)
    return CurveSet(table.grid.display, S, var, lo, hi, table.groups, alpha)


def loglog_interval(S, cum_sq, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Exponential Greenwood ("log(−log)") interval, as lifelines computes it (NaN → 1)."""
    z = special.ndtri(1 - alpha / 2)
    with np.errstate(all="ignore"):
        v = np.log(S)
        lo = np.exp(-np.exp(np.log(-v) - z * np.sqrt(cum_sq) / v))
        hi = np.exp(-np.exp(np.log(-v) + z * np.sqrt(cum_sq) / v))
    return np.nan_to_num(lo, nan=1.0), np.nan_to_num(hi, nan=1.0)


def nelson_aalen_curve(table: RiskTable, *, alpha: float = 0.05) -> CurveSet:
    """Nelson–Aalen ``H(t_j) = Σ d_l / r_l`` with lifelines' (un-smoothed) variance
    ``Σ d_l (r_l − d_l) / r_l³`` and its log-transformed interval.

    (The spec's ``Σ d/r²`` is the Aalen variance; lifelines'
    ``NelsonAalenFitter(nelson_aalen_smoothing=False)`` uses the binomial
    form above, which we follow so that ε = ∞ reproduces lifelines.)
    """
    d, r = table.deaths, table.exposed
    H = _prepend(np.cumsum(_ratio(d, r), axis=-1), 0.0)
    seen = np.maximum(d, 0.0)  # a noisy count below 0 adds no variance (it would make the variance negative)
    var = _prepend(np.cumsum(_ratio(seen * np.maximum(r - seen, 0.0), r**3), axis=-1), 0.0)
    z = special.ndtri(1 - alpha / 2)
    safe = np.where(H == 0, 1.0, H)
    with np.errstate(over="ignore"):  # a tiny H with a wide variance: the upper end is +inf, honestly
        lo = H * np.exp(-z * np.sqrt(var) / safe)
        hi = H * np.exp(z * np.sqrt(var) / safe)
    return CurveSet(table.grid.display, H, var, lo, hi, table.groups, alpha)


def incidence_curve(table: RiskTable, *, event_type: int = 1, alpha: float = 0.05) -> CurveSet:
    """Aalen–Johansen cumulative incidence ``F_k(t_j) = Σ S(t_{l−1}) d_l^(k) / r_l`` (S all-cause KM).

    Interval: a simple plug-in variance ``Σ S(t_{l−1})² d^(k)_l (r_l − d^(k)_l) / r_l³``
    (it ignores the variance of S) with a normal interval clipped to [0, 1];
    it is indicative only.
    """
    d_all, r = table.deaths, table.exposed
    dk = table.events[..., event_type - 1]
    S = np.cumprod(1.0 - _ratio(d_all, r), axis=-1)
    S_prev = _prepend(S[..., :-1], 1.0)
    F = _prepend(np.cumsum(S_prev * _ratio(dk, r), axis=-1), 0.0)
    var = _prepend(np.cumsum(S_prev**2 * _ratio(dk * np.maximum(r - dk, 0.0), r**3), axis=-1), 0.0)
    z = special.ndtri(1 - alpha / 2)
    sd = np.sqrt(np.maximum(var, 0.0))
    return CurveSet(table.grid.display, F, var, np.clip(F - z * sd, 0, 1), np.clip(F + z * sd, 0, 1), table.groups,
                    alpha)


def curve_for(table: RiskTable, estimator: str, *, alpha: float = 0.05, event_type: int = 1) -> CurveSet:
    if estimator == "km":
        return km(table, alpha=alpha)
    if estimator == "na":
        return nelson_aalen_curve(table, alpha=alpha)
    if estimator == "cif":
        return incidence_curve(table, event_type=event_type, alpha=alpha)
    raise ValueError(f"unknown estimator {estimator!r}; choose from {list(ESTIMATORS)}")


#: The fewest noisy people at risk a curve is drawn solid for (see :func:`min_at_risk`).
MIN_AT_RISK = 10


def min_at_risk(noise_std: float) -> float:
    """The public minimum number at risk: ``max(10, 3 × the noise's standard deviation per count)``.

    A function of ε and Δ1 only (public). Below it a bin's hazard is a ratio of noise-sized numbers: the figures
    fade the curve there (the tables keep the values and their intervals).
    """
    return max(float(MIN_AT_RISK), 3.0 * float(noise_std))


def reliable_edges(at_risk: np.ndarray, minimum: float) -> np.ndarray:
    """``(..., k+1)`` booleans: grid edge ``t_j`` is reliable while every noisy number at risk up to bin j reaches
    ``minimum`` (``t_0`` always). Post-processing of released values."""
    ok = np.logical_and.accumulate(np.asarray(at_risk) >= minimum, axis=-1)
    return np.concatenate([np.ones(ok.shape[:-1] + (1,), bool), ok], axis=-1)


def median_survival(S: np.ndarray, times: np.ndarray) -> np.ndarray:
    """First grid time with ``S ≤ 0.5`` (``inf`` when never reached), over the last axis."""
    below = S <= 0.5
    idx = np.argmax(below, axis=-1)
    return np.where(below.any(axis=-1), np.asarray(times)[idx], np.inf)


def median_interval(estimate: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                    times: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Median survival and its interval by inverting a pointwise band (Brookmeyer–Crowley): ``(median, low, high)``.

    ``low`` is the first time the band's lower edge reaches 0.5, ``high`` the first time its upper edge does;
    ``inf`` means "not reached". With the noise-aware band (:func:`noise_band`, which redraws the known DP noise
    and each redraw's sampling error) the interval covers both; with the Greenwood interval, sampling only.
    Post-processing of the curve and band, so free.
    """
    return median_survival(estimate, times), median_survival(lower, times), median_survival(upper, times)


def describe_median(median: float, low: float, high: float, unit: str, level: float = 0.95) -> str:
    """``"9 months (95 % CI 7 to 11)"``; "not reached" where the curve (or a band edge) never falls to 0.5."""
    def text(t):
        return "not reached" if not np.isfinite(t) else f"{t:.3g}"
    head = "not reached" if not np.isfinite(median) else f"{median:.3g} {unit}"
    return f"{head} ({level:.0%} CI {text(low)} to {text(high)})".replace("%", " %")


def bootstrap_curves(released: Counts, noise: Noise, *, draws: int = 200, rng: np.random.Generator,
                     estimator: str = "km", alpha: float = 0.05, include_sampling: bool = True, event_type: int = 1,
                     pool_groups: bool = False, risk_set: str = DEFAULT_RISK_SET) -> np.ndarray:
    """The redrawn curves behind :func:`noise_band`: ``(draws, ..., G, k+1)``, from the released counts alone.

    Redraw the known noise around the released matrix ``M'`` (``M* = M' + Z*``), re-run the post-processing and
    the estimator; with ``include_sampling`` each redrawn curve is also moved by its own sampling error (one normal
    deviate per redrawn curve on the interval's scale: log(−log) for KM, log for Nelson–Aalen, linear for
    incidence). Post-processing of released values and the public noise distribution, so free. Summaries that
    need the joint law over time or groups (restricted mean, differences between groups) read these redraws.
    """
    boot = noisy_counts(released, noise, rng=rng, draws=draws)
    if pool_groups:
        boot = boot.pooled()
    table = postprocess(boot.collapse_types() if estimator == "km" else boot, risk_set=risk_set)
    cs = curve_for(table, estimator, alpha=alpha, event_type=event_type)
    est = cs.estimate
    if include_sampling:
        z = rng.standard_normal(est.shape[:-1] + (1,))  # one sampling deviate per redrawn curve
        with np.errstate(all="ignore"):
            if estimator == "km":
                v = np.log(est)
                sd = np.sqrt(_ratio(cs.variance, est**2)) / np.where(v < 0, -v, 1.0)
                moved = np.exp(-np.exp(np.log(-v) + z * sd))
                est = np.where((est > 0) & (est < 1), moved, est)
            elif estimator == "na":
                sd = np.sqrt(cs.variance) / np.where(est > 0, est, 1.0)
                est = est * np.exp(z * sd)
            else:
                est = np.clip(est + z * np.sqrt(cs.variance), 0.0, 1.0)
    return est


def noise_band(released: Counts, noise: Noise, *, draws: int = 200, rng: np.random.Generator,
               estimator: str = "km", alpha: float = 0.05, include_sampling: bool = True,
               event_type: int = 1, method: str = "percentile", pool_groups: bool = False,
               risk_set: str = DEFAULT_RISK_SET) -> tuple[np.ndarray, np.ndarray]:
    """Noise-aware 95 % interval from the released counts alone (parametric bootstrap, free post-processing).

    Redraw the known noise around the released matrix ``M'`` (``M* = M' + Z*``),
    re-run the post-processing and the estimator, and take the α/2 and
    1−α/2 quantiles per grid point. With ``include_sampling`` each redraw
    is also perturbed by its own sampling error (a normal draw on the
    interval's scale: log(−log) for KM, log for Nelson–Aalen, linear for
    incidence), so the interval covers noise *and* sampling uncertainty.
    Vectorised: the redraws are one leading axis (and any leading draw axes of ``released`` broadcast).

    ``method="percentile"`` (default): the quantiles themselves. The default post-processing is close to
    unbiased, and this interval covered the exact curve (lifelines on the raw times) at 93–100 % of the read
    points on the bundled sets at ε = 1 (``bench/bench_survival_estimators.py``, ``docs/survival.md``).
    With a clipped, biased post-processing (``risk_set="spec"``) the redraws carry the bias twice:
    ``"union"`` takes the union with the basic (reflected) band ``[2Ŝ − q_hi, 2Ŝ − q_lo]``, which corrects it to
    first order; ``"basic"`` returns that band alone.
    With ``pool_groups`` the groups' redrawn matrices are summed before the
    post-processing (the interval of the pooled curve of a grouped release).
    Returns ``(lower, upper)`` shaped like the curve (..., G, k+1).
    """
    est = bootstrap_curves(released, noise, draws=draws, rng=rng, estimator=estimator, alpha=alpha,
                           include_sampling=include_sampling, event_type=event_type, pool_groups=pool_groups,
                           risk_set=risk_set)
    if pool_groups:
        released = released.pooled()
    q_lo, q_hi = np.quantile(est, [alpha / 2, 1 - alpha / 2], axis=0)
    if method == "percentile":
        return q_lo, q_hi
    centre_counts = released.collapse_types() if estimator == "km" else released
    centre = curve_for(postprocess(centre_counts, risk_set=risk_set), estimator, alpha=alpha, event_type=event_type).estimate
    top = np.inf if estimator == "na" else 1.0
    b_lo, b_hi = np.clip(2 * centre - q_hi, 0.0, top), np.clip(2 * centre - q_lo, 0.0, top)
    if method == "basic":
        return b_lo, b_hi
    return np.minimum(q_lo, b_lo), np.maximum(q_hi, b_hi)
