"""Black-box audit scenarios of the default release, peeling + private fit (:mod:`dpcore.sparse.peeling`).

Each pair replaces one record; the summary of a release is its exact log-likelihood ratio ``ln p_A/p_B``
(the most powerful test): the peeled sequence's (s exponential mechanisms in a row, computed from the two score
vectors) plus the fit's given that support — for the linear loss the Gaussian on the noisy statistics
(``r·(Z ± r/2)`` with ``r`` the standardised shift of ``(v(ZᵀZ), Zᵀy)``), for the logistic loss the sum over
the noisy gradient steps of the same term along the path the released gradients take.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from dpcore.audit import AuditScenario
from dpcore.sparse.params import SparseParams, prepare
from dpcore.sparse.peeling import _fit_step, gram_vector, peel_plan, screening_scores
from dpcore.sparse.solver import _sigmoid

RAW_FACTOR = 50.0
PEEL_BUGS = {"noise": "every noise scale halved (Gumbel and Gaussian)",
             "clip": f"clipping skipped (the changed record's raw values are {RAW_FACTOR:g}× the public bound)"}


def _pair(kind: str):
    """``(X_A, y_A), (X_B, y_B), s, loss, p`` before clipping (the changed record is the last).

    ``tip``: n = 1000, d = 2, s = 1, K = r = 1. 499 records ``(x = (K, 0), y = r)``, 499 ``(x = (0, K), y = r)``,
    one ``(0, 0)``; the changed record has raw response 50r (clipped to r) and ``x = (K, −K)`` in A,
    ``(−K, K)`` in B. It tips the selection with the largest swing the proof allows (each score moves by
    exactly ``Δ∞ = 2Kr/n``, in opposite directions), and on either support ``ZᵀZ`` moves by exactly its
    sensitivity ``√2·(1 + sK²)`` (``z = (1, K)`` and ``(1, −K)`` are orthogonal).

    ``bound`` (linear) / ``bound-logistic``: n = 1000, d = 20, s = 3; n − 1 records are zero; the changed record
    has every feature at the bound (raw 50K, clipped to K) and response +r vs raw −50r (linear: ``Zᵀy`` then
    moves by exactly ``2r‖z‖``, its sensitivity, on every support) or label +1 vs −1 (logistic).
    """
    K, r, n = 1.0, 1.0, 1000
    p = SparseParams(K=K, r=r, fit_T=10)
    if kind == "tip":
        X = np.zeros((n, 2))
        X[:499, 0] = K
        X[499:998, 1] = K
        y = np.full(n, r)
        y[998] = 0.0
        y[-1] = RAW_FACTOR * r
        XA, XB = X.copy(), X.copy()
        XA[-1], XB[-1] = (K, -K), (-K, K)
        return (XA, y), (XB, y.copy()), 1, "linear", p
    loss = "linear" if kind == "bound" else "logistic"
    X = np.zeros((n, 20))
    X[-1] = RAW_FACTOR * K
    yA = np.zeros(n) if loss == "linear" else np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    yB = yA.copy()
    yA[-1] = r if loss == "linear" else 1.0
    yB[-1] = -RAW_FACTOR * r if loss == "linear" else -1.0
    return (X, yA), (X.copy(), yB), 3, loss, p


class _Side:
    """The noise-free pieces of the release on one data set: scores, and what the fit reads on any support."""

    def __init__(self, X, y, loss: str, p: SparseParams, skip_clip: bool):
        if skip_clip:
            X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        else:
            X, y = prepare(X, y, loss, p)
        self.scores = screening_scores(X, y)
        Z = np.column_stack([np.ones(len(y)), X])  # the intercept first, then every feature
        if loss == "linear":
            self.gram, self.moment = Z.T @ Z, Z.T @ y
        else:  # distinct (z, y) rows with their counts: the gradient along a path needs only those
            rows, counts = np.unique(np.column_stack([Z, y]), axis=0, return_counts=True)
            self.rows, self.labels, self.weights = rows[:, :-1], rows[:, -1], counts / len(y)

    def gradient(self, theta: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Mean logistic gradient at θ (draws, q) on columns ``cols`` (draws, q)."""
        Z = self.rows[:, cols].transpose(1, 0, 2)  # (draws, u, q)
        z = np.einsum("dui,di->du", Z, theta)
        w = -self.labels * _sigmoid(-self.labels * z) * self.weights
        return np.einsum("du,dui->di", w, Z)


def _peel_log_ratio(S: np.ndarray, uA: np.ndarray, uB: np.ndarray, beta: float) -> np.ndarray:
    """``ln P_A(sequence)/P_B(sequence)`` of the peeled sequences S (draws, s): s exponential mechanisms."""
    out = np.zeros(len(S))
    remaining = np.ones((len(S), uA.size), dtype=bool)
    rows = np.arange(len(S))
    for t in range(S.shape[1]):
        j = S[:, t]
        lse = [logsumexp(np.where(remaining, u / beta, -np.inf), axis=1) for u in (uA, uB)]
        out += (uA[j] - uB[j]) / beta - (lse[0] - lse[1])
        remaining[rows, j] = False
    return out


def _scenario(kind: str, epsilon: float, delta: float, bug: str) -> AuditScenario:
    (XA, yA), (XB, yB), s, loss, p = _pair(kind)
    n = len(yA)
    plan = peel_plan(n, s, epsilon, delta, loss, p)
    sides = {planted: {"A": _Side(XA, yA, loss, p, planted and bug == "clip"),
                       "B": _Side(XB, yB, loss, p, planted and bug == "clip")} for planted in (False, True)}

    def sampler(which, planted_bug, rng, draws):
        factor = 0.5 if planted_bug and bug == "noise" else 1.0
        A, B = sides[bool(planted_bug)]["A"], sides[bool(planted_bug)]["B"]
        here = A if which == "A" else B
        beta = plan.gumbel_scale * factor
        S = np.argsort(-(here.scores + beta * rng.gumbel(size=(draws, here.scores.size))), axis=1)[:, :s]
        llr = _peel_log_ratio(S, A.scores, B.scores, beta)
        cols = np.column_stack([np.zeros(draws, dtype=int), S + 1])  # the intercept, then the peeled features
        sign = 0.5 if which == "A" else -0.5
        if loss == "linear":
            sg, sm = (plan.noises[k].scale * factor for k in ("gram", "moment"))
            dg = gram_vector(A.gram[cols[:, :, None], cols[:, None, :]] - B.gram[cols[:, :, None], cols[:, None, :]])
            dm = A.moment[cols] - B.moment[cols]
            shift = np.sqrt((dg**2).sum(axis=1) / sg**2 + (dm**2).sum(axis=1) / sm**2)
            return llr + shift * (rng.standard_normal(draws) + sign * shift)
        sigma = plan.noises["gradient"].scale * factor
        theta = np.zeros(cols.shape)
        for _ in range(p.fit_T):
            gA, gB = A.gradient(theta, cols), B.gradient(theta, cols)
            g = (gA if which == "A" else gB) + sigma * rng.standard_normal(theta.shape)
            llr += np.einsum("di,di->d", g - 0.5 * (gA + gB), gA - gB) / sigma**2
            theta = theta - _fit_step(p) * g
        return llr

    names = {"tip": "peeling + private fit: one record tips the selection (features at ±K)",
             "bound": "peeling + private fit: one record with every feature at the bound, y = +r vs −r",
             "bound-logistic": "peeling + private fit (logistic): every feature at the bound, label +1 vs −1"}
    texts = {"tip": "n = 1000, d = 2, s = 1, K = r = 1: 499 records carry feature 1 and 499 feature 2 (y = r); the "
                    "changed record is x = (K, −K) in A and (−K, K) in B (raw response 50r, clipped to r). Each "
                    "score moves by exactly its sensitivity 2Kr/n, in opposite directions, so the record decides "
                    "the tie; on either support ZᵀZ moves by exactly its sensitivity √2·(1 + sK²).",
             "bound": "n = 1000, d = 20, s = 3: n − 1 records are zero; the changed record has every feature at K "
                      "(raw 50K) and y = +r in A, raw −50r (clipped to −r) in B: Zᵀy moves by exactly its "
                      "sensitivity 2r·√(1 + sK²) on every support.",
             "bound-logistic": "n = 1000, d = 20, s = 3, 10 gradient steps: labels alternate on n − 1 zero records; "
                               "the changed record has every feature at K (raw 50K) and label +1 in A, −1 in B."}
    return AuditScenario(
        method="sparse", name=names[kind], neighbours=texts[kind],
        summary="exact log-likelihood ratio ln p_A/p_B of the release: the peeled sequence's plus the fit's "
                "(Gaussian on the statistics, or on each gradient along the released path)",
        claimed_epsilon=float(epsilon), delta=float(delta), sampler=sampler, planted_bug_label=PEEL_BUGS[bug])


def peel_audit_scenarios(epsilon: float, delta: float, bug: str = "clip") -> list[AuditScenario]:
    """The default release's worst-case pairs: the selection tipped, a record at every bound (both losses)."""
    if bug not in PEEL_BUGS:
        raise ValueError(f"bug must be one of {tuple(PEEL_BUGS)}")
    return [_scenario(kind, epsilon, delta, bug) for kind in ("tip", "bound", "bound-logistic")]
