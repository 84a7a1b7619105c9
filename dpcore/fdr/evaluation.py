"""Post-processing of decisions: FDP, power, mFDR, the FDR bound, summary tables, the shift's cost."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
import pandas as pd

from dpcore.fdr.calibration import STREAM, THEOREM_4_SHIFT, Shift, shift_label, shift_value
from dpcore.fdr.core import StreamResult
from dpcore.fdr.one_call import Settings, run_all
from dpcore.fdr.sensitivity import PRIVATE_METHODS


@dataclass(frozen=True)
class Metrics:
    """Per-run FDP and power plus their means, standard errors and mFDR."""

    fdp: np.ndarray
    power: np.ndarray
    n_rejections: np.ndarray

    @property
    def fdr(self) -> float:
        return float(np.mean(self.fdp))

    @property
    def fdr_se(self) -> float:
        return float(np.std(self.fdp, ddof=1) / math.sqrt(self.fdp.size)) if self.fdp.size > 1 else float("nan")

    @property
    def mean_power(self) -> float:
        v = self.power[np.isfinite(self.power)]
        return float(np.mean(v)) if v.size else float("nan")

    @property
    def power_se(self) -> float:
        v = self.power[np.isfinite(self.power)]
        return float(np.std(v, ddof=1) / math.sqrt(v.size)) if v.size > 1 else float("nan")


def fdp_power(rejections: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """FDP = false rejections / max(rejections, 1) and power = true rejections / #non-nulls (NaN if none), per run."""
    rej = np.asarray(rejections, dtype=bool)
    tr = np.asarray(truth, dtype=bool)
    n_rej = rej.sum(axis=-1)
    false = (rej & ~tr).sum(axis=-1)
    true = (rej & tr).sum(axis=-1)
    nonnull = tr.sum(axis=-1)
    fdp = false / np.maximum(n_rej, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        power = np.where(nonnull > 0, true / np.maximum(nonnull, 1), np.nan)
    return fdp, power


def metrics(rejections: np.ndarray, truth: np.ndarray) -> Metrics:
    rej = np.atleast_2d(rejections)
    fdp, power = fdp_power(rej, np.atleast_2d(truth))
    return Metrics(fdp, power, rej.sum(axis=-1))


def mfdr(rejections: np.ndarray, truth: np.ndarray) -> float:
    """mFDR = E[false rejections] / E[rejections] over runs (0 when nothing is rejected)."""
    rej = np.atleast_2d(rejections).astype(bool)
    false = (rej & ~np.atleast_2d(truth)).sum()
    total = rej.sum()
    return float(false / total) if total else 0.0


def fdr_bound(alpha: float, delta: float, t) -> np.ndarray:
    """PAPRIKA's guarantee ``FDR(t) ≤ α + δ t``."""
    return alpha + delta * np.asarray(t, dtype=float)


def summary_table(results: Sequence[StreamResult], truth: np.ndarray) -> pd.DataFrame:
    """One row per method: FDR ± SE, power ± SE, mFDR, mean number of rejections."""
    rows = []
    for res in results:
        m = metrics(res.rejections, truth)
        rows.append(dict(method=res.method, FDR=m.fdr, FDR_se=m.fdr_se, power=m.mean_power, power_se=m.power_se,
                         mFDR=mfdr(res.rejections, truth), rejections=float(m.n_rejections.mean())))
    return pd.DataFrame(rows)


#: Shifts whose cost the page compares: the proven one, Theorem 4's s = 4 and the paper's experiments' s = 1.
COMPARED_SHIFTS: tuple[Shift, ...] = (STREAM, THEOREM_4_SHIFT, 1.0)


def shift_cost(p: np.ndarray, truth: np.ndarray, settings: Settings, *, rng: np.random.Generator,
               shifts: Sequence[Shift] = COMPARED_SHIFTS) -> pd.DataFrame:
    """FDR and power of PAPRIKA and PAPRIKA AI under each shift, on the same (R, T) streams.

    One :func:`run_all` call per shift (both private rules stacked on the run axis, horizon k = T).
    Columns: shift (label), A, then :func:`summary_table`'s.
    """
    tables = []
    for shift in shifts:
        table = summary_table(list(run_all(p, replace(settings, shift=shift), rng=rng,
                                           methods=PRIVATE_METHODS).values()), truth)
        table.insert(0, "A", shift_value(settings.epsilon, settings.delta, settings.eta, settings.cutoff, p.shape[1],
                                         shift))
        table.insert(0, "shift", shift_label(shift))
        tables.append(table)
    return pd.concat(tables, ignore_index=True)
