"""Real data: the GDSC drug-response problems and uploaded CSVs, as ``(X, y)`` with public bounds applied."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from dpcore.core.datasets import load_gdsc
from dpcore.sparse.simulate import SparseData
from dpcore.core.validation import InputError, distinct_columns, numeric_column


def gdsc_problem(drug_id: str, n_features: int, *, loss: str = "linear", centre: float | None = None,
                 threshold: float | None = None, test_fraction: float = 0.2, split_seed: int = 0,
                 intercept: bool = True) -> SparseData:
    """GDSC binary genomic features (the first ``n_features`` in the gdsctools file's own column order, a public
    rule) against one drug's ln IC50.

    Linear: ``y = ln IC50 − centre`` with a *public* centre (default: the
    midpoint of the public response range), because the model has no
    intercept. Logistic: sensitive (+1, ln IC50 below ``threshold``) vs
    resistant (−1); the threshold must be public — by default the midpoint
    of the public response range, not the (private) median. A random
    public-seeded split holds out ``test_fraction`` for the test error.
    With ``intercept`` a constant feature ``(intercept) = 1`` comes first
    (public, within ``[−K, K]``); it competes for one of the ``s`` slots.
    """
    g = load_gdsc()
    X, ic50 = g.drug_data(drug_id, n_features)
    mid = 0.5 * (g.response_range[0] + g.response_range[1])
    if loss == "linear":
        y = ic50 - (mid if centre is None else centre)
    else:
        y = np.where(ic50 < (mid if threshold is None else threshold), 1.0, -1.0)
    order = np.random.default_rng(split_seed).permutation(y.size)
    n_test = int(round(test_fraction * y.size))
    test, train = order[:n_test], order[n_test:]
    names = tuple(g.features.columns[:n_features])
    if intercept:
        X = np.column_stack([np.ones(X.shape[0]), X])
        names = ("(intercept)",) + names
    return SparseData(X[train], y[train], X[test], y[test], None, loss, g.drug_label(drug_id), names)


def sparse_from_frame(frame, response: str, features: Sequence[str], *, loss: str = "linear",
                      threshold: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Validated ``(X, y)`` from an uploaded table; errors name the column, row and problem.

    Logistic responses must be 0/1 or ±1 labels unless a public
    ``threshold`` is given (then label = 1 when the response is below it).
    """
    features = list(features)
    if response in features:
        raise InputError(f"Column {response!r} is the response; remove it from the features.")
    if len(features) < 2:
        raise InputError("Choose at least two feature columns.")
    distinct_columns(*features)
    if len(frame) < 10:
        raise InputError(f"The file has {len(frame)} data rows; sparse regression needs at least 10.")
    X = np.column_stack([numeric_column(frame, c, what="feature value") for c in features])
    y = numeric_column(frame, response, what="response")
    if loss == "logistic":
        if threshold is not None:
            y = np.where(y < threshold, 1.0, -1.0)
        else:
            bad = ~np.isin(y, [0.0, 1.0, -1.0])
            if bad.any():
                i = int(np.argmax(bad))
                raise InputError(f"Column {response!r}, row {i + 2}: the label {y[i]:g} is not 0/1 or ±1 "
                                 "(or give a public threshold).")
            y = np.where(y > 0, 1.0, -1.0)
        if np.all(y == y[0]):
            raise InputError(f"Every record of {response!r} falls in one class"
                             + (f" at the threshold {threshold:g}" if threshold is not None else "")
                             + "; a logistic model needs both (choose another threshold or response).")
    return X, y


#: Column names (lower case) taken for the response when an upload has one; otherwise the last numeric column.
#: an upload's public split: a seeded permutation's first 80 % train (the release reads them), the rest test
TRAIN_SHARE, SPLIT_SEED = 0.8, 0


def upload_split(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The training and held-out rows of an upload of ``n`` rows, from positions and a public seed only: the page,
    the plan-first path and a release's ``reproduce.py`` read the same rows."""
    order = np.random.default_rng(SPLIT_SEED).permutation(n)
    cut = int(TRAIN_SHARE * n)
    return order[:cut], order[cut:]


def clipping_report(X: np.ndarray, K: float, names: Sequence[str]) -> tuple[float, list[tuple[str, float]]]:
    """Share of feature cells outside ``[−K, K]`` (they are clipped), and the columns with such cells with their
    largest absolute value, worst first. Shown to the custodian, who holds the data; never released."""
    X = np.asarray(X, dtype=float)
    outside = np.abs(X) > K
    worst = np.abs(X).max(axis=0)
    cols = [(names[j], float(worst[j])) for j in np.argsort(-worst) if outside[:, j].any()]
    return float(outside.mean()), cols
