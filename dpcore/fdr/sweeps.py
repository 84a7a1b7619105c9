"""Privacy–utility sweeps (the run axis carries runs × grid points)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from dpcore.core.utility import UtilityCurve
from dpcore.fdr.core import _as_runs
from dpcore.fdr.evaluation import fdp_power, metrics, mfdr
from dpcore.fdr.one_call import Settings, run_all, run_method
from dpcore.fdr.simulate import Streams


@dataclass(frozen=True)
class FdrUtilityCurve(UtilityCurve):
    """Per-run FDP, power and number of rejections of PAPRIKA (AI) over an ε grid: arrays of shape (n_eps, R).

    ``delta`` is the settings' δ, which PAPRIKA spends at every ε of the grid; the metrics are the fields'
    names (``"fdp"``, ``"power"``, ``"n_rejections"``).
    """

    fdp: np.ndarray
    power: np.ndarray
    n_rejections: np.ndarray
    method: str

    @property
    def metrics(self) -> tuple[str, ...]:
        return ("fdp", "power", "n_rejections")


def utility_curve(pvalues, truth, epsilons, *, settings: Settings = Settings(), ai: bool = False,
                  rng: np.random.Generator) -> FdrUtilityCurve:
    """FDP, power and #rejections of PAPRIKA (AI) for every ε in the grid and every run, in one pass.

    ``pvalues``/``truth``: (R, T) (the same streams are reused at every ε, so differences across ε
    are due to the privacy noise and shift only). Returns arrays of shape (n_eps, R).
    """
    p, _ = _as_runs(pvalues)
    tr = np.atleast_2d(np.asarray(truth, dtype=bool))
    eps = np.asarray(epsilons, dtype=float).ravel()
    R, T = p.shape
    big_p = np.tile(p, (eps.size, 1))
    big_eps = np.repeat(eps, R)
    res = run_method("PAPRIKA AI" if ai else "PAPRIKA", big_p, settings, rng=rng, epsilon=big_eps)
    fdp, power = fdp_power(res.rejections, np.tile(tr, (eps.size, 1)))
    return FdrUtilityCurve(eps, fdp.reshape(eps.size, R), power.reshape(eps.size, R),
                           res.rejections.sum(axis=1).reshape(eps.size, R), res.method, delta=float(settings.delta))


def sweep(streams_by_x: Mapping[float, Streams], methods: Sequence[str], settings: Settings, *,
          rng: np.random.Generator, epsilons: Mapping[float, float] | None = None) -> pd.DataFrame:
    """FDR/power of each method at each grid point x (e.g. π1 or ε), all grid points stacked on the run axis.

    ``epsilons`` maps x → ε for the private methods (for an ε sweep); otherwise ``settings.epsilon``.
    Returns a long table: x, method, FDR, FDR_se, power, power_se, mFDR, rejections.
    """
    xs = list(streams_by_x)
    p = np.concatenate([streams_by_x[x].pvalues for x in xs])
    truth = np.concatenate([streams_by_x[x].truth for x in xs])
    sizes = [streams_by_x[x].pvalues.shape[0] for x in xs]
    bounds = np.cumsum([0] + sizes)
    eps = None
    if epsilons is not None:
        eps = np.concatenate([np.full(n, epsilons[x]) for x, n in zip(xs, sizes)])
    rows = []
    results = run_all(p, settings, rng=rng, methods=methods, epsilon=eps)
    for name in methods:
        res = results[name]
        for i, x in enumerate(xs):
            sl = slice(bounds[i], bounds[i + 1])
            m = metrics(res.rejections[sl], truth[sl])
            rows.append(dict(x=x, method=name, FDR=m.fdr, FDR_se=m.fdr_se, power=m.mean_power, power_se=m.power_se,
                             mFDR=mfdr(res.rejections[sl], truth[sl]), rejections=float(m.n_rejections.mean())))
    return pd.DataFrame(rows)
