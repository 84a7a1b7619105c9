"""One release of every method with hostile labels (formula starts) in every text cell a ZIP writes."""

from __future__ import annotations

import numpy as np

from dpcore import fdr
from dpcore import regression as R
from dpcore import sparse as sp
from dpcore import survival as sv
from dpcore.core.datasets import load_survival

CALC = "=cmd|' /C calc'!A0"
PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def hostile(i: int) -> str:
    """The ``i``-th hostile label: each formula start in turn, all distinct."""
    return CALC if i == 0 else f"{PREFIXES[i % len(PREFIXES)]}HYPERLINK(\"http://x/?{i}\")"


def _survival():
    d = load_survival("gehan")
    labels = {g: hostile(i) for i, g in enumerate(sorted(set(d.group)))}
    group = np.array([labels[g] for g in d.group])
    grid = sv.make_grid(d.horizon, data_unit=d.time_unit, grid_unit=d.default_grid_unit)
    return sv.release(d.time, d.event, grid=grid, epsilon=1.0, group=group, groups=tuple(labels.values()),
                      band_draws=20)


def _regression_data(d=6):
    rng = np.random.default_rng(3)
    X = R.normalise_rows(rng.standard_normal((200, d)))
    y = X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(200)
    return X, y - y.mean(), R.prepare(X, y, x_bounds=(-1, 1), y_bounds=(-6, 6), epsilon=0.1, release=True)


def _robust_lr():
    X, y, prep = _regression_data()
    return R.release(X, y, prep=prep, epsilon=1.0, omega_x=0.5, omega_y=1.0, public=None,
                     feature_names=[hostile(j) for j in range(X.shape[1])])


def _adassp():
    X, y, prep = _regression_data()
    return R.release_adassp(X, y, prep=prep, epsilon=2.0, delta=1e-5, public=None,
                            feature_names=[hostile(j) for j in range(X.shape[1])])


def _sparse(variant: str, loss: str = "linear"):
    data = sp.make_synthetic(600, 12, 3, loss=loss, noise=0.1, rng=np.random.default_rng(4))
    return sp.release_sparse(data.X, data.y, sparsity=3, epsilon=5.0, delta=1e-6, loss=loss, variant=variant,
                             feature_names=[hostile(j) for j in range(12)])


def _fdr():
    s = fdr.simulate_bernoulli(1, 60, pi1=0.2, rng=np.random.default_rng(5))
    return fdr.release(s.pvalues[0], alpha=0.05, epsilon=5.0, delta=2.5e-4, sensitivity=fdr.stated_sensitivity(0.08),
                       cutoff=10, labels=[hostile(i) for i in range(60)])


RELEASES = {"survival": _survival, "robust private LR": _robust_lr, "AdaSSP": _adassp,
            "sparse peeling": lambda: _sparse("peeling"), "sparse peeling (logistic)": lambda: _sparse("peeling",
                                                                                                      "logistic"),
            "sparse KT with private support": lambda: _sparse("private_support"), "online FDR": _fdr}
