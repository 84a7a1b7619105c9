"""Simulator: synthetic data with a known θ*, and the metrics that compare a fit with it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpcore.sparse.solver import _sigmoid


@dataclass(frozen=True)
class SparseData:
    """A synthetic (or real) problem: training data, held-out data and, when known, θ*."""

    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    theta: np.ndarray | None
    loss: str
    label: str = "synthetic"
    feature_names: tuple[str, ...] = ()


def make_synthetic(n: int, d: int, s_star: int, *, loss: str = "linear", noise: float = 0.5, K: float = 1.0,
                   magnitude: float = 1.0, n_test: int = 1000, rng: np.random.Generator | None = None) -> SparseData:
    """``x ~ N(0, I)`` clipped to ``[−K, K]``, θ* with ``s*`` non-zeros (random positions and signs, given magnitude),
    ``y = xᵀθ* + N(0, noise²)`` (linear) or ``y ~ ±1`` with ``P(y = 1) = sigmoid(xᵀθ*)`` (logistic)."""
    rng = rng if rng is not None else np.random.default_rng()
    if not 1 <= s_star <= d:
        raise ValueError("need 1 ≤ s* ≤ d")
    theta = np.zeros(d)
    idx = rng.choice(d, size=s_star, replace=False)
    theta[idx] = magnitude * rng.choice([-1.0, 1.0], size=s_star)
    X = np.clip(rng.standard_normal((n + n_test, d)), -K, K)
    z = X @ theta
    if loss == "linear":
        y = z + noise * rng.standard_normal(z.shape)
    else:
        y = np.where(rng.random(z.shape) < _sigmoid(z), 1.0, -1.0)
    return SparseData(X[:n], y[:n], X[n:], y[n:], theta, loss)


def support_scores(coef, truth_support) -> dict[str, np.ndarray]:
    """Precision, recall and F1 of ``supp(coef)`` (batched on leading axes) against a reference support."""
    coef = np.asarray(coef)
    sel = coef != 0
    ref = np.zeros(coef.shape[-1], dtype=bool)
    ref[np.asarray(truth_support, dtype=int)] = True
    tp = (sel & ref).sum(axis=-1)
    n_sel = sel.sum(axis=-1)
    precision = np.where(n_sel > 0, tp / np.maximum(n_sel, 1), 0.0)
    recall = tp / max(ref.sum(), 1)
    f1 = np.where(precision + recall > 0, 2 * precision * recall / np.maximum(precision + recall, 1e-300), 0.0)
    return {"precision": precision, "recall": recall, "f1": f1}


def test_error(coef, X_test, y_test, loss: str, intercept=None) -> np.ndarray:
    """Test MSE (linear) or misclassification rate (logistic), batched over leading axes of ``coef``
    (``intercept``: one per fit, same leading axes, or None)."""
    z = np.asarray(coef) @ np.asarray(X_test, dtype=float).T
    if intercept is not None:
        z = z + np.asarray(intercept, dtype=float)[..., None]
    if loss == "linear":
        return np.mean((z - y_test) ** 2, axis=-1)
    return np.mean(np.where(z >= 0, 1.0, -1.0) != y_test, axis=-1)


def metrics(coef, *, theta=None, X_test=None, y_test=None, loss="linear", teacher=None,
            intercept=None) -> dict[str, np.ndarray]:
    """ℓ2 error to θ* and support P/R/F1 (when θ* known), test error, support overlap (F1) with the teacher."""
    out: dict[str, np.ndarray] = {}
    if theta is not None:
        out["l2_error"] = np.linalg.norm(np.asarray(coef) - theta, axis=-1)
        out.update(support_scores(coef, np.flatnonzero(theta)))
    if X_test is not None:
        out["test_error"] = test_error(coef, X_test, y_test, loss, intercept)
    if teacher is not None:
        out["teacher_overlap"] = support_scores(coef, np.flatnonzero(teacher))["f1"]
    return out
