"""Accuracy-first ε: the smallest ε on a utility curve that meets a stated target.

Every method produces, for a grid of ε values, a metric per Monte-Carlo draw
(shape ``(n_eps, R)``). A user states a target in one of two forms:

* **probability** — "the error is at most ``a`` with probability at least
  ``p``" (e.g. survival curve within 0.05 of the non-private one in 90 % of
  releases): success per draw is ``metric ≤ a``;
* **mean** — "the average metric is at least / at most ``a``" (e.g. power
  ≥ 0.8, Spearman ρ drop ≤ 0.02).

The answer is an estimate from finitely many draws on the custodian's data (or
synthetic data), so it comes with an uncertainty range: the smallest ε that
meets the target under the optimistic and the pessimistic end of a confidence
interval at every grid point. Between grid points the curve is interpolated
linearly in ``log ε``.

Every method's ``utility_curve(...)`` returns a :class:`UtilityCurve` (a subclass named after the method),
so a figure, a report or the trade-off explorer reads any method's per-draw metrics and its (ε, δ) the same way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Literal

import numpy as np
from scipy import stats

from dpcore.core.audit import clopper_pearson_lower, clopper_pearson_upper
from dpcore.core.distributed import Executor, spawn_seeds, split_runs

#: one metric value per ε and draw: ``simulate(grid, draws, rng) -> array (len(grid), draws)``
Simulator = Callable[[np.ndarray, int, np.random.Generator], np.ndarray]
DRAW_BLOCK = (20, 500)  # draws per task (smallest, largest): each draw is a whole release


@dataclass(frozen=True)
class UtilityCurve:
    """Per-draw utility of one method over an ε grid, with the δ every point of the grid was run at.

    Why one type: four methods had four unrelated result classes, so each figure, report and the
    trade-off explorer had to know which method made a curve before it could read it. Every method's
    curve now answers the same questions: ``epsilons`` and ``delta`` (its privacy, (ε, δ) per grid point;
    ``delta = 0`` for pure ε-DP), ``metrics`` (the names it has), ``metric(name)`` (per-draw values, shape
    ``(n_eps, R)``, the input of :func:`smallest_epsilon`) and ``mean(name)`` (shape ``(n_eps,)``).
    Subclasses add their own fields; by default ``metric(name)`` reads the field called ``name``.
    """

    epsilons: np.ndarray
    delta: float = field(default=0.0, kw_only=True)

    @property
    def metrics(self) -> tuple[str, ...]:
        """The names :meth:`metric` answers."""
        raise NotImplementedError

    def metric(self, name: str) -> np.ndarray:
        """Per-draw values of ``name`` over the grid, shape ``(n_eps, R)``; ``KeyError`` for a name not in
        :attr:`metrics`."""
        if name not in self.metrics:
            raise KeyError(f"{type(self).__name__} has no metric {name!r}; it has {', '.join(self.metrics)}")
        return np.asarray(getattr(self, name), dtype=float)

    def mean(self, name: str) -> np.ndarray:
        """Mean of ``name`` over the draws at each ε, shape ``(n_eps,)``."""
        return self.metric(name).mean(axis=1)


@dataclass(frozen=True)
class EpsilonChoice:
    """The smallest ε meeting a target, with its uncertainty and the curve it came from."""

    epsilon: float | None
    epsilon_optimistic: float | None
    epsilon_pessimistic: float | None
    grid: np.ndarray
    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    target: float
    description: str

    @property
    def met(self) -> bool:
        return self.epsilon is not None

    def summary(self) -> str:
        if self.epsilon is None:
            best = float(self.estimate[-1])
            return (f"No ε up to {self.grid[-1]:g} meets the target ({self.description}); at ε = {self.grid[-1]:g} "
                    f"the estimate is {best:.3g}.")
        lo = self.epsilon_optimistic
        hi = self.epsilon_pessimistic
        hi_text = f"{hi:.3g}" if hi is not None else f"> {self.grid[-1]:g}"
        return (f"Smallest ε meeting the target ({self.description}): ≈ {self.epsilon:.3g} "
                f"(uncertainty range {lo:.3g} – {hi_text}).")


def _first_crossing(grid: np.ndarray, curve: np.ndarray, target: float, larger_is_better: bool) -> float | None:
    """Smallest ε where ``curve`` reaches ``target``, interpolating linearly in log ε."""
    ok = curve >= target if larger_is_better else curve <= target
    if not ok.any():
        return None
    i = int(np.argmax(ok))
    if i == 0:
        return float(grid[0])
    x0, x1 = math.log(grid[i - 1]), math.log(grid[i])
    y0, y1 = float(curve[i - 1]), float(curve[i])
    frac = 1.0 if y1 == y0 else (target - y0) / (y1 - y0)
    return float(math.exp(x0 + min(max(frac, 0.0), 1.0) * (x1 - x0)))


def smallest_epsilon(
    grid,
    draws,
    *,
    threshold: float,
    kind: Literal["probability", "mean"] = "probability",
    probability: float = 0.9,
    larger_is_better: bool = False,
    confidence: float = 0.95,
) -> EpsilonChoice:
    """Smallest ε on ``grid`` whose ``draws`` (shape ``(n_eps, R)``) meet the target.

    ``kind="probability"``: success per draw is ``metric ≤ threshold`` (or
    ``≥`` when ``larger_is_better``); the target is ``P(success) ≥
    probability``, with two-sided Clopper–Pearson limits. ``kind="mean"``: the
    target is ``mean ≥ threshold`` (``larger_is_better``) or ``≤ threshold``,
    with normal limits ``mean ± z·SE``.
    """
    grid = np.asarray(grid, dtype=float)
    values = np.asarray(draws, dtype=float)
    if values.ndim != 2 or values.shape[0] != grid.size:
        raise ValueError(f"draws must have shape (len(grid), R); got {values.shape} for {grid.size} ε values")
    if not (np.all(np.diff(grid) > 0) and grid[0] > 0):
        raise ValueError("the ε grid must be positive and increasing")
    n = values.shape[1]
    alpha = (1.0 - confidence) / 2.0
    if kind == "probability":
        success = values >= threshold if larger_is_better else values <= threshold
        k = success.sum(axis=1)
        estimate = k / n
        lower = clopper_pearson_lower(k, n, alpha)
        upper = clopper_pearson_upper(k, n, alpha)
        target, better = probability, True
        relation = "≥" if larger_is_better else "≤"
        description = f"metric {relation} {threshold:g} with probability ≥ {probability:.0%}"
    elif kind == "mean":
        estimate = values.mean(axis=1)
        se = values.std(axis=1, ddof=1) / math.sqrt(n) if n > 1 else np.zeros(grid.size)
        z = stats.norm.ppf(1 - alpha)
        lower, upper = estimate - z * se, estimate + z * se
        target, better = threshold, larger_is_better
        description = f"mean metric {'≥' if larger_is_better else '≤'} {threshold:g}"
    else:
        raise ValueError(f"unknown target kind {kind!r}")
    # optimistic: the most favourable end of the interval; pessimistic: the least favourable
    optimistic_curve, pessimistic_curve = (upper, lower) if better else (lower, upper)
    return EpsilonChoice(
        epsilon=_first_crossing(grid, estimate, target, better),
        epsilon_optimistic=_first_crossing(grid, optimistic_curve, target, better),
        epsilon_pessimistic=_first_crossing(grid, pessimistic_curve, target, better),
        grid=grid,
        estimate=estimate,
        lower=lower,
        upper=upper,
        target=target,
        description=description,
    )


def _draw_chunk(task) -> np.ndarray:
    simulate, grid, seed, m = task
    values = np.asarray(simulate(grid, m, np.random.default_rng(seed)), dtype=float)
    if values.shape != (grid.size, m):
        raise ValueError(f"simulate must return shape (len(grid), draws) = {(grid.size, m)}; got {values.shape}")
    return values


def simulate_draws(
    simulate: Simulator,
    grid,
    n_draws: int,
    *,
    seed: int = 0,
    executor: Executor | None = None,
    progress: Callable[[float], None] | None = None,
) -> np.ndarray:
    """``n_draws`` metric draws per ε for :func:`smallest_epsilon`, in seeded chunks (shape ``(len(grid), n_draws)``).

    Chunk ``i`` (sizes from :func:`dpcore.core.distributed.split_runs`) draws from child ``i`` of
    ``SeedSequence(seed)``, so the draws are the same in process or on any Dask cluster (``executor``).
    """
    grid = np.asarray(grid, dtype=float)
    sizes = split_runs(n_draws, min_block=DRAW_BLOCK[0], max_block=DRAW_BLOCK[1])
    tasks = [(simulate, grid, s, m) for s, m in zip(spawn_seeds(seed, len(sizes)), sizes)]
    return np.concatenate((executor or Executor()).map(_draw_chunk, tasks, progress=progress), axis=1)


def describe_draws(values, *, digits: int = 3) -> str:
    """``mean (5–95 %: lo–hi)`` of Monte-Carlo draws, for plain-language notes and reports."""
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v)]
    if v.size == 0:
        return "not available"
    lo, hi = np.quantile(v, [0.05, 0.95])
    return f"{v.mean():.{digits}g} (5–95 %: {lo:.{digits}g} to {hi:.{digits}g})"
