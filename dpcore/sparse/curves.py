"""Privacy–utility curves (vectorised over ε and R draws) and convergence traces, for every method."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from dpcore.core.utility import UtilityCurve
from dpcore.sparse.baseline_dp_ight import dp_ight, dp_ight_batch
from dpcore.sparse.baseline_frank_wolfe import dp_frank_wolfe, frank_wolfe_batch
from dpcore.sparse.baseline_two_stage import two_stage, two_stage_batch
from dpcore.sparse.params import METHODS, _check_budget, _params, prepare
from dpcore.sparse.peeling import peel_fit, peel_fit_batch
from dpcore.sparse.private_support import knowledge_transfer_private_support, kt_private_support_batch
from dpcore.sparse.simulate import SparseData, metrics
from dpcore.sparse.transfer import (
    knowledge_transfer,
    knowledge_transfer_batch,
    kt_plan,
    nonprivate_ight,
    student_fit,
    teacher_fit,
)

BATCH = {"peel": peel_fit_batch, "kt": knowledge_transfer_batch, "kt_ps": kt_private_support_batch, "dp_ight": dp_ight_batch, "frank_wolfe": frank_wolfe_batch,
         "two_stage": two_stage_batch}
ONE_CALL = {"peel": peel_fit, "kt": knowledge_transfer, "kt_ps": knowledge_transfer_private_support, "nonprivate": nonprivate_ight, "dp_ight": dp_ight,
            "frank_wolfe": dp_frank_wolfe, "two_stage": two_stage}


# --------------------------------------------------------------------------
# Privacy–utility curves (vectorised over ε and R)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class SparseUtilityCurve(UtilityCurve):
    """Per-draw metrics of several methods over an ε grid: ``values[method][metric]`` has shape ``(n_eps, R)``.

    Every private method ran at (ε, ``delta``) for each ε of the grid. As a kernel ``UtilityCurve`` a metric is
    named ``"method/metric"`` (e.g. ``metric("kt/l2_error")`` is ``values["kt"]["l2_error"]``); ``metrics`` lists
    them all. The non-private teacher has no ε: its metrics are repeated along both axes so that it plots as a
    flat reference line.
    """

    methods: tuple[str, ...]
    values: Mapping[str, Mapping[str, np.ndarray]]
    loss: str

    @property
    def metrics(self) -> tuple[str, ...]:
        return tuple(f"{method}/{name}" for method in self.methods for name in self.values[method])

    def metric(self, name: str) -> np.ndarray:
        method, _, measure = name.partition("/")
        if method not in self.values or measure not in self.values[method]:
            raise KeyError(f"no metric {name!r}: sparse curves name theirs \"method/metric\", e.g. "
                           f"{self.metrics[0]!r}")
        return np.asarray(self.values[method][measure], dtype=float)


def utility_curve(data: SparseData, *, sparsity: int, epsilons: Sequence[float], delta: float,
                  methods: Sequence[str] = METHODS, repeats: int = 10, rng: np.random.Generator | None = None,
                  progress: Callable[[float], None] | None = None, **params) -> SparseUtilityCurve:
    """Metrics of every method at every ε over ``repeats`` independent noise draws (one batched run per method)."""
    rng = rng if rng is not None else np.random.default_rng()
    eps = _check_budget(epsilons, delta)
    R = int(repeats)
    values: dict[str, dict[str, np.ndarray]] = {}
    p = _params(**params)
    Xc, yc = prepare(data.X, data.y, data.loss, p)
    teacher = teacher_fit(Xc, yc, sparsity=sparsity, lam=0.0, loss=data.loss, p=p)
    for i, method in enumerate(methods):
        intercept = None
        if method == "nonprivate":
            coef = np.broadcast_to(teacher, (eps.size, R, teacher.size))
        else:
            fit = BATCH[method](data.X, data.y, sparsity=sparsity, epsilons=eps, delta=delta, loss=data.loss,
                                rng=rng, draws=R, **params)
            coef, intercept = fit.coef, fit.details.get("intercept")
        values[method] = metrics(coef, theta=data.theta, X_test=data.X_test, y_test=data.y_test, loss=data.loss,
                                 teacher=teacher, intercept=intercept)
        if progress is not None:
            progress((i + 1) / len(methods))
    return SparseUtilityCurve(eps, tuple(methods), values, data.loss, delta=float(delta))


def convergence(data: SparseData, *, sparsity: int, epsilon: float, delta: float, rng=None, **params) -> dict:
    """Optimisation paths of the teacher and of one student draw.

    Returns ``teacher`` and ``student``: ``‖θ_t − θ_T‖2`` of each run against its own
    final iterate (linear convergence shows as a straight line on a log axis),
    and ``student_to_teacher``: ``‖θ^p_t − θ̂‖2`` (which levels off at the
    privacy error).
    """
    p = _params(**params)
    X, y = prepare(data.X, data.y, data.loss, p)
    rng = rng if rng is not None else np.random.default_rng()
    plan = kt_plan(X, y, sparsity=sparsity, epsilons=[epsilon], delta=delta, loss=data.loss, p=p)
    _, tpath = teacher_fit(X, y, sparsity=plan.sparsity, lam=float(plan.lam[0]), loss=data.loss, p=p, keep_path=True)
    y_syn = plan.noises[0].sample(plan.clean[0], rng=rng)
    _, spath = student_fit(plan.X_syn, y_syn, sparsity=plan.sparsity, p=p, keep_path=True)
    tpath, spath = np.array(tpath), np.array(spath)
    return {"teacher": np.linalg.norm(tpath[:-1] - tpath[-1], axis=-1),
            "student": np.linalg.norm(spath[:-1] - spath[-1], axis=-1),
            "student_to_teacher": np.linalg.norm(spath - plan.teacher[0], axis=-1)}
