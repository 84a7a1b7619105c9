"""Post-processing, hazard ratios: the grouped piecewise-exponential (Poisson) model of released counts.

A released histogram of (stratum × cell) × interval × outcome is all a hazard ratio needs. Per stratum ``s``, cell
``c`` (a group, or a combination of categorical covariate levels with design row ``x_c``) and public interval
``k`` of length ``L_k``: events ``d``, censorings, and the people still followed at the horizon. The exposure is
the life-table person-time ``Y = L_k (r − (d + censored)/2)`` (``r``: the exits still to come, so no total is
needed), and the model is ``d ~ Poisson(Y exp(α_sk + βᵀx_c))``. Profiling out every baseline ``α_sk`` leaves

    ``U(β) = Σ_sk Σ_c x_c (d_sck − D_sk p_sck)``,  ``p_sck = Y_sck e^{βᵀx_c} / Σ_c' Y_sc'k e^{βᵀx_c'}``,
    ``I(β) = Σ_sk D_sk Cov_p(x)``,

the partial-likelihood score and information of Cox's model with the risk set measured by person-time and
Breslow's handling of ties; ``U(0)`` is the grouped log-rank ``O − E``. So as the intervals shrink the estimate
approaches Cox's log hazard ratio with **Breslow** ties and its SE the **binomial** (Breslow) variance, not
lifelines' Efron ties nor its log-rank's hypergeometric variance; with one interval it behaves like a ratio of
event rates, close to the hazard ratio only when events are rare (``docs/survival.md`` measures the grouping's bias
against lifelines' ``CoxPHFitter``).

Everything here reads released values and public inputs only (the interval lengths, the noise's law), never the
data: it is post-processing, free of ε. The interval that goes with an estimate adds two variances: sampling
(``I(β̂)⁻¹`` at the released counts) and privacy noise (the spread of the estimate over redraws of the known noise
added to the released cells, a parametric bootstrap like the survival band); significance is read from the same
interval (``z = β̂ / se``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy import stats

from dpcore.core.mechanisms import Noise
from dpcore.survival.statistic import Counts
from dpcore.core.validation import InputError

#: What each number approaches, in words (tables, notes, the page).
ESTIMAND = ("Cox's hazard ratio, estimated by the grouped piecewise-exponential model: constant hazards within "
            "each public interval, one ratio across intervals. With enough intervals it approaches Cox's estimate "
            "with Breslow ties (lifelines uses Efron's: nearly equal unless many events share a time) and its "
            "standard error the binomial (Breslow) variance; with one interval it is a ratio of event rates, close "
            "to the hazard ratio only when events are rare.")
#: Where a cell's person-time is below half a person over the interval, it is raised to that (noise can make it
#: zero or negative, where no rate is defined).
MIN_PERSONS_AT_RISK = 0.5
#: A log hazard ratio is kept within ± this (a hazard ratio of e^±10): a cell without events has no finite MLE.
MAX_LOG_HR = 10.0
NEWTON_STEPS = 40


@dataclass(frozen=True)
class GroupedTable:
    """Released (or exact) counts per stratum, cell and public interval; leading axes are redraws.

    ``events``, ``censored``: ``(..., S, C, K)``; ``beyond``: ``(..., S, C)`` people followed past the horizon
    (zero where the release censors them in the last interval); ``widths``: the ``K`` public interval lengths.
    ``event_cells``: how many released cells each event count sums (event types), so a redraw of its noise has
    that many draws; ``beyond_released``: whether ``beyond`` is a released cell (and so noised).
    """

    events: np.ndarray
    censored: np.ndarray
    beyond: np.ndarray
    widths: np.ndarray
    strata: tuple[str, ...] = ("all",)
    cells: tuple[str, ...] = ("all",)
    event_cells: int = 1
    beyond_released: bool = False

    @property
    def exposure(self) -> np.ndarray:
        """Life-table person-time per stratum, cell and interval, ≥ :data:`MIN_PERSONS_AT_RISK` × the length."""
        exits = self.events + self.censored
        to_come = np.flip(np.cumsum(np.flip(exits, -1), -1), -1) + self.beyond[..., None]
        return self.widths * np.maximum(to_come - exits / 2.0, MIN_PERSONS_AT_RISK)

    def merged(self, every: int) -> GroupedTable:
        """Adjacent intervals summed ``every`` at a time (the last may hold fewer): post-processing of released
        counts, at the price of summing their noise."""
        k = self.widths.size
        starts = np.arange(0, k, int(every))
        return replace(self, events=np.add.reduceat(self.events, starts, axis=-1),
                       censored=np.add.reduceat(self.censored, starts, axis=-1),
                       widths=np.add.reduceat(self.widths, starts))

    def redraws(self, noise: Noise, *, rng: np.random.Generator, draws: int) -> GroupedTable:
        """``draws`` copies of this table with fresh noise of the known law on every released cell (leading axis)."""
        shape = self.events.shape

        def zeros(dims):  # the noise's own value type: integers for discrete Laplace
            return np.zeros(dims, dtype=np.int64 if noise.kind == "discrete_laplace" else float)

        event_noise = noise.sample(zeros(shape + (self.event_cells,)), rng=rng, draws=draws).sum(-1)
        censored_noise = noise.sample(zeros(shape), rng=rng, draws=draws)
        beyond = self.beyond + (noise.sample(zeros(self.beyond.shape), rng=rng, draws=draws)
                                if self.beyond_released else 0.0)
        return replace(self, events=self.events + event_noise, censored=self.censored + censored_noise,
                       beyond=np.broadcast_to(beyond, (draws,) + self.beyond.shape))


def table_from_counts(counts: Counts, *, strata: int = 1) -> GroupedTable:
    """The survival page's counts (released or exact) as a grouped table: groups are cells; with ``strata = S``
    the groups are ``S`` strata × cells, stratum first (:func:`stratified_labels` names them)."""
    collapsed = counts.collapse_types()
    d = np.asarray(collapsed.events[..., 0], dtype=float)
    c = np.asarray(collapsed.censored, dtype=float)
    G = len(counts.groups)
    if G % strata:
        raise InputError(f"{G} groups cannot be {strata} strata of equal size")
    lead, k = d.shape[:-2], d.shape[-1]
    shape = lead + (strata, G // strata, k)
    labels = tuple(counts.groups[: G // strata]) if strata == 1 else tuple(
        g.split(STRATUM_SEPARATOR, 1)[1] for g in counts.groups[: G // strata])
    strata_labels = ("all",) if strata == 1 else tuple(
        g.split(STRATUM_SEPARATOR, 1)[0] for g in counts.groups[:: G // strata])
    return GroupedTable(d.reshape(shape), c.reshape(shape), np.zeros(shape[:-1]), np.diff(counts.grid.edges),
                        strata_labels, labels, event_cells=counts.n_types)


#: Joins a stratum and a group into one declared group label of the survival release ("site A · treated").
STRATUM_SEPARATOR = " · "


def stratified_labels(strata: tuple[str, ...], groups: tuple[str, ...]) -> tuple[str, ...]:
    """The declared group labels of a stratified survival release: every stratum × group, stratum first."""
    return tuple(f"{s}{STRATUM_SEPARATOR}{g}" for s in strata for g in groups)


def dummy_design(levels: tuple[str, ...]) -> np.ndarray:
    """The design of one categorical covariate: a column per level after the first (the reference)."""
    return np.eye(len(levels))[:, 1:]


def profile_fit(events: np.ndarray, exposure: np.ndarray, design: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Log hazard ratios ``β`` ``(..., P)`` and the information ``I(β)`` ``(..., P, P)`` of the grouped model.

    ``events`` and ``exposure`` ``(..., S, C, K)``, ``design`` ``(C, P)``. Newton's method on the profile score
    (module docstring), vectorised over the leading axes; the score keeps the released events as they are
    (unbiased, negatives included), the Newton direction and the reported information use each stratum-interval's
    events clipped at 0, so the information stays positive semi-definite. Steps are capped at 1 and ``β`` at
    ± :data:`MAX_LOG_HR`.
    """
    X = np.asarray(design, dtype=float)
    P = X.shape[1]
    log_y = np.log(exposure)
    total = events.sum(-2)  # D_sk: (..., S, K)
    weight = np.maximum(total, 0.0)
    beta = np.zeros(events.shape[:-3] + (P,))
    observed = np.einsum("...sck,cp->...p", events, X)
    ridge = 1e-9 * np.eye(P)

    def moments(b):
        eta = log_y + np.einsum("cp,...p->...c", X, b)[..., None, :, None]
        eta = eta - eta.max(-2, keepdims=True)
        w = np.exp(eta)
        p = w / w.sum(-2, keepdims=True)
        mean = np.einsum("...sck,cp->...skp", p, X)
        second = np.einsum("...sck,cp,cq->...skpq", p, X, X)
        cov = second - mean[..., :, None] * mean[..., None, :]
        score = observed - np.einsum("...sk,...skp->...p", total, mean)
        info = np.einsum("...sk,...skpq->...pq", weight, cov)
        return score, info

    for _ in range(NEWTON_STEPS):
        score, info = moments(beta)
        step = np.linalg.solve(info + ridge, score[..., None])[..., 0]
        step = np.clip(step, -1.0, 1.0)
        beta = np.clip(beta + step, -MAX_LOG_HR, MAX_LOG_HR)
        if np.all(np.abs(step) < 1e-10):
            break
    return beta, moments(beta)[1]


def _sampling_cov(info: np.ndarray) -> np.ndarray:
    return np.linalg.pinv(info)


def fit_table(table: GroupedTable, design: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`profile_fit` of a grouped table: ``β`` and its sampling covariance ``I(β)⁻¹``."""
    beta, info = profile_fit(table.events, table.exposure, design)
    return beta, _sampling_cov(info)


@dataclass(frozen=True)
class HazardRatioFit:
    """A grouped fit with its honest interval: ``coef`` (P,), sampling and privacy covariances (P, P).

    ``privacy_df``: the degrees of freedom of the privacy covariance, estimated from ``redraws − 1`` redraws of the
    noise (infinite when it is known exactly or zero). The interval and the test use Student's t with
    Satterthwaite's degrees of freedom for the sum, so the Monte-Carlo error of that estimate widens the interval
    instead of shrinking the type-I margin.
    """

    names: tuple[str, ...]
    coef: np.ndarray
    sampling_cov: np.ndarray
    privacy_cov: np.ndarray
    alpha: float = 0.05
    privacy_df: float = np.inf

    @property
    def cov(self) -> np.ndarray:
        return self.sampling_cov + self.privacy_cov

    @property
    def se(self) -> np.ndarray:
        """Standard errors ``(..., P)``: sampling and privacy together."""
        return np.sqrt(np.diagonal(self.cov, axis1=-2, axis2=-1))

    @property
    def df(self) -> np.ndarray:
        """Satterthwaite's degrees of freedom of each variance ``(..., P)``: the sampling part counts as known."""
        privacy = np.diagonal(self.privacy_cov, axis1=-2, axis2=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(privacy > 0, self.se ** 4 * self.privacy_df / privacy ** 2, np.inf)

    @property
    def half_width(self) -> np.ndarray:
        """Half the width of the interval of each log hazard ratio ``(..., P)``."""
        return stats.t.ppf(1 - self.alpha / 2, self.df) * self.se

    @property
    def p_value(self) -> np.ndarray:
        """Two-sided p of ``β = 0`` from the same interval (``t = β/se`` on :attr:`df` degrees of freedom)."""
        return 2 * stats.t.sf(np.abs(self.coef / self.se), self.df)

    def summary(self) -> pd.DataFrame:
        """lifelines' columns (``coef`` … ``p``), the interval and test from sampling and privacy together, and
        the two standard errors apart."""
        se, half = self.se, self.half_width
        level = f"{1 - self.alpha:.0%}"
        frame = pd.DataFrame({
            "coef": self.coef, "exp(coef)": np.exp(self.coef), "se(coef)": se,
            f"coef lower {level}": self.coef - half, f"coef upper {level}": self.coef + half,
            f"exp(coef) lower {level}": np.exp(self.coef - half),
            f"exp(coef) upper {level}": np.exp(self.coef + half),
            "z": self.coef / se, "p": self.p_value,
            "se sampling": np.sqrt(np.diag(self.sampling_cov)), "se privacy": np.sqrt(np.diag(self.privacy_cov)),
        }, index=pd.Index(self.names, name="covariate"))
        return frame


def privacy_cov(table: GroupedTable, design: np.ndarray, noise: Noise, *, rng: np.random.Generator,
                draws: int = 200) -> np.ndarray:
    """Covariance ``(..., P, P)`` of the estimate over ``draws`` redraws of the known noise on each released table
    (leading axes kept: one covariance per release)."""
    redrawn, _ = fit_table(table.redraws(noise, rng=rng, draws=draws), design)
    centred = redrawn - redrawn.mean(0)
    return np.einsum("b...p,b...q->...pq", centred, centred) / (draws - 1)


def fit_with_noise(table: GroupedTable, design: np.ndarray, names: tuple[str, ...], noise: Noise | None, *,
                   rng: np.random.Generator | None = None, draws: int = 200, alpha: float = 0.05) -> HazardRatioFit:
    """The fit of a released table and its privacy covariance from ``draws`` redraws of the known noise
    (``noise=None``: exact counts, sampling error only). Post-processing: released values and public inputs.
    Leading axes of the table (several releases) carry through; :meth:`HazardRatioFit.summary` needs one."""
    coef, sampling = fit_table(table, design)
    privacy, privacy_df = np.zeros_like(sampling), np.inf
    if noise is not None and noise.scale > 0:
        privacy = privacy_cov(table, design, noise, rng=rng if rng is not None else np.random.default_rng(),
                              draws=draws)
        privacy_df = draws - 1.0
    return HazardRatioFit(tuple(names), coef, sampling, privacy, alpha, privacy_df)


@dataclass(frozen=True)
class ProportionalHazardsCheck:
    """Per-interval log hazard ratios of each group against the reference, and the test of their trend."""

    per_interval: pd.DataFrame
    trend: pd.DataFrame


def proportional_hazards_check(table: GroupedTable, noise: Noise | None, *, rng: np.random.Generator | None = None,
                               draws: int = 200, alpha: float = 0.05,
                               time_unit: str = "") -> ProportionalHazardsCheck:
    """Each group's log hazard ratio in each interval, and a test that it does not drift with time.

    Cells are the groups (reference first). Per interval the same grouped fit on that interval alone; their
    covariance is the sampling part (intervals are independent under the model) plus the privacy part from
    redraws (a released cell moves the person-time of every earlier interval, so those are correlated). The
    trend is the generalised-least-squares slope of the per-interval log HRs on the intervals' midpoints, with
    its z-test; intervals without events carry no information and drop out by their infinite variance.
    """
    design = dummy_design(table.cells)
    K = table.widths.size

    def per_interval(t: GroupedTable) -> tuple[np.ndarray, np.ndarray]:
        d = np.moveaxis(t.events, -1, 0)[..., None]  # (K, ..., S, C, 1)
        y = np.moveaxis(t.exposure, -1, 0)[..., None]
        beta, info = profile_fit(d, y, design)  # (K, ..., P)
        return np.moveaxis(beta, 0, -2), np.moveaxis(info, 0, -3)  # (..., K, P), (..., K, P, P)

    beta, info = per_interval(table)
    var_sampling = np.diagonal(np.linalg.pinv(info), axis1=-2, axis2=-1)  # (K, P)
    var_sampling = np.where(np.diagonal(info, axis1=-2, axis2=-1) > 1e-12, var_sampling, np.inf)
    privacy = np.zeros((table.cells.__len__() - 1, K, K))
    if noise is not None and noise.scale > 0:
        rng = rng if rng is not None else np.random.default_rng()
        redrawn, _ = per_interval(table.redraws(noise, rng=rng, draws=draws))  # (R, K, P)
        privacy = np.stack([np.atleast_2d(np.cov(redrawn[..., p], rowvar=False)) for p in range(beta.shape[-1])])
    edges = np.concatenate([[0.0], np.cumsum(table.widths)])
    mid = (edges[:-1] + edges[1:]) / 2
    q = stats.norm.ppf(1 - alpha / 2)
    rows, trends = [], []
    for p, group in enumerate(table.cells[1:]):
        cov = privacy[p] + np.diag(var_sampling[:, p])
        finite = np.isfinite(np.diag(cov))
        se = np.sqrt(np.diag(cov))
        for k in range(K):
            rows.append({"group": group, "reference": table.cells[0], "interval": k + 1, "start": edges[k],
                         "end": edges[k + 1], "log_hr": beta[k, p] if finite[k] else np.nan,
                         "se": se[k] if finite[k] else np.nan,
                         "lower": beta[k, p] - q * se[k] if finite[k] else np.nan,
                         "upper": beta[k, p] + q * se[k] if finite[k] else np.nan})
        if finite.sum() >= 2:
            W = np.linalg.pinv(cov[np.ix_(finite, finite)])
            A = np.column_stack([np.ones(finite.sum()), mid[finite]])
            slope_cov = np.linalg.pinv(A.T @ W @ A)
            slope = (slope_cov @ A.T @ W @ beta[finite, p])[1]
            z = slope / np.sqrt(slope_cov[1, 1])
            trends.append({"group": group, "intervals_used": int(finite.sum()),
                           f"slope_per_{time_unit or 'time unit'}": slope, "se": np.sqrt(slope_cov[1, 1]),
                           "z": z, "p": 2 * stats.norm.sf(abs(z))})
    return ProportionalHazardsCheck(pd.DataFrame(rows), pd.DataFrame(trends))


def hazard_ratios(counts: Counts, noise: Noise | None, *, strata: int = 1, every: int = 1, draws: int = 200,
                  rng: np.random.Generator | None = None, alpha: float = 0.05) -> HazardRatioFit:
    """Each group's hazard ratio against the first, from the survival page's released counts (post-processing).

    ``strata = S``: the groups are ``S`` strata × arms (:func:`stratified_labels`), one ratio per arm across
    strata, each stratum with its own baseline hazard. ``every``: adjacent grid bins merged into one interval
    (fewer intervals: less noise, more grouping bias where events are common). ``noise``: the law the counts were
    released with (None for exact counts).
    """
    table = table_from_counts(counts, strata=strata)
    if every > 1:
        table = table.merged(every)
    names = tuple(f"{g} vs {table.cells[0]}" for g in table.cells[1:])
    return fit_with_noise(table, dummy_design(table.cells), names, noise, rng=rng, draws=draws, alpha=alpha)
