"""Shared numerics of every sparse method: public clipping bounds, hard thresholding, ℓ1 projection, IGHT, losses.

Nothing here is private by itself: the teacher, the student and DP-IGHT all call :func:`ight`.
"""

from __future__ import annotations

from typing import Callable

import numpy as np


def clip_features(X, K: float) -> np.ndarray:
    """Clip every feature to the public box ``[−K, K]`` (so ``‖x_i‖∞ ≤ K``)."""
    if not K > 0:
        raise ValueError("the feature bound K must be positive")
    return np.clip(np.asarray(X, dtype=float), -K, K)


def clip_responses(y, r: float) -> np.ndarray:
    """Clip responses to the public interval ``[−r, r]`` (linear loss)."""
    if not r > 0:
        raise ValueError("the response bound r must be positive")
    return np.clip(np.asarray(y, dtype=float), -r, r)


def hard_threshold(theta, s: int) -> np.ndarray:
    """``H_s``: keep the ``s`` largest-magnitude entries on the last axis, zero the rest (batched)."""
    theta = np.asarray(theta, dtype=float)
    d = theta.shape[-1]
    if s >= d:
        return theta.copy()
    idx = np.argpartition(-np.abs(theta), s - 1, axis=-1)[..., :s]
    out = np.zeros_like(theta)
    np.put_along_axis(out, idx, np.take_along_axis(theta, idx, axis=-1), axis=-1)
    return out


def l1_rescale(theta, radius: float | None) -> np.ndarray:
    """Rescale each row onto the ℓ1 ball ``‖θ‖1 ≤ B`` (``θ·min(1, B/‖θ‖1)``); no-op when ``radius`` is None."""
    if radius is None:
        return theta
    norm = np.abs(theta).sum(axis=-1, keepdims=True)
    return theta * np.minimum(1.0, radius / np.maximum(norm, 1e-300))


def project_l1_ball(theta, radius: float) -> np.ndarray:
    """Euclidean projection of each row onto ``{‖θ‖1 ≤ B}`` (Duchi et al. 2008, sort-based, batched)."""
    theta = np.asarray(theta, dtype=float)
    a = np.abs(theta)
    inside = a.sum(axis=-1, keepdims=True) <= radius
    u = -np.sort(-a, axis=-1)
    css = np.cumsum(u, axis=-1) - radius
    k = np.arange(1, theta.shape[-1] + 1)
    cond = u - css / k > 0
    rho = theta.shape[-1] - 1 - np.argmax(cond[..., ::-1], axis=-1)
    tau = np.take_along_axis(css, rho[..., None], axis=-1) / (rho[..., None] + 1)
    proj = np.sign(theta) * np.maximum(a - np.maximum(tau, 0.0), 0.0)
    return np.where(inside, theta, proj)


def ight(
    grad: Callable[[np.ndarray], np.ndarray],
    theta0: np.ndarray,
    *,
    sparsity: int,
    step: float,
    n_iter: int,
    radius: float | None = None,
    perturb: Callable[[int, np.ndarray], np.ndarray] | None = None,
    keep_path: bool = False,
    tol: float = 1e-7,
):
    """Iterative gradient hard thresholding, batched over leading axes of ``theta0``.

    ``θ_{t+1} = R_B(H_s(θ_t − η (∇F(θ_t) + b_t)))`` where ``b_t = perturb(t, g)``
    (DP-IGHT adds Gaussian noise there; ``None`` for the plain algorithm) and
    ``R_B`` is :func:`l1_rescale`. Returns ``θ_T`` and, with ``keep_path``,
    the list of iterates ``θ_0 … θ_T``. Without ``perturb`` the loop stops
    early once every row has converged (``‖θ_{t+1} − θ_t‖ ≤ tol·‖θ_t‖``), so
    ``n_iter`` is a maximum; noisy runs always take all ``n_iter`` steps (the
    privacy accounting counts them).
    """
    theta = np.array(theta0, dtype=float)
    path = [theta.copy()] if keep_path else None
    for t in range(int(n_iter)):
        g = grad(theta)
        if perturb is not None:
            g = g + perturb(t, g)
        new = l1_rescale(hard_threshold(theta - step * g, sparsity), radius)
        done = perturb is None and np.all(
            np.linalg.norm(new - theta, axis=-1) <= tol * np.maximum(np.linalg.norm(theta, axis=-1), 1e-300))
        theta = new
        if keep_path:
            path.append(theta.copy())
        if done:
            break
    return (theta, path) if keep_path else theta


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def loss_gradient(X: np.ndarray, y: np.ndarray, loss: str, lam: float = 0.0) -> Callable[[np.ndarray], np.ndarray]:
    """Gradient of ``L_S(θ) + (λ/2)‖θ‖²`` for a batch ``Θ`` of shape ``(..., d)``.

    ``y`` may be ``(n,)`` (shared) or ``(..., n)`` (one response vector per
    batch row, as for the student's R synthetic response draws). Two
    mat-vecs per call; the first exploits the sparsity of the iterates.
    """
    n = X.shape[0]

    def grad(theta: np.ndarray) -> np.ndarray:
        z = _sparse_matvec(X, theta)
        if loss == "linear":
            w = z - y
        else:
            w = -y * _sigmoid(-y * z)
        # float32 features (the public synthetic ones) are multiplied in float32: half the memory traffic
        return np.asarray(w.astype(X.dtype, copy=False) @ X, dtype=float) / n + lam * theta

    return grad


def _sparse_matvec(X: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``θ Xᵀ`` for a batch of (mostly sparse) rows, touching only used columns."""
    used = np.flatnonzero(np.any(theta != 0, axis=tuple(range(theta.ndim - 1))))
    if used.size == 0:
        return np.zeros(theta.shape[:-1] + (X.shape[0],))
    return theta[..., used] @ X[:, used].T


def loss_value(X, y, theta, loss: str, lam: float = 0.0) -> np.ndarray:
    z = _sparse_matvec(X, np.asarray(theta, dtype=float))
    if loss == "linear":
        value = 0.5 * np.mean((y - z) ** 2, axis=-1)
    else:
        value = np.mean(np.logaddexp(0.0, -y * z), axis=-1)
    return value + 0.5 * lam * np.sum(np.asarray(theta) ** 2, axis=-1)


def restricted_smoothness(X: np.ndarray, sparsity: int, n_iter: int = 10) -> float:
    """Estimate of the largest 2s-sparse eigenvalue of ``XᵀX/n`` (truncated power method).

    Used only to pick a step size for non-private or public-data IGHT runs
    (the teacher and the student); callers apply a 1.5 safety factor. Starts
    from the 2s columns of largest norm, so it never falls below the largest
    diagonal entry of ``XᵀX/n``.
    """
    n, d = X.shape
    k = min(2 * sparsity, d)
    col_sq = np.einsum("ij,ij->j", X, X) / n
    value = float(col_sq.max())
    v = hard_threshold(np.sqrt(col_sq), k)
    norm = np.linalg.norm(v)
    if norm == 0:
        return 1e-12
    v = v / norm
    for _ in range(n_iter):
        w = X.T @ (_sparse_matvec(X, v) / n)
        value = max(value, float(v @ w))
        w = hard_threshold(w, k)
        norm = np.linalg.norm(w)
        if norm == 0:
            break
        v = w / norm
    return max(value, 1e-12)
