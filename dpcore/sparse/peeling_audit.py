"""Black-box audit scenarios of the default release, peeling + private fit (:mod:`dpcore.sparse.peeling`).

Each pair replaces one record; the summary of a release is its exact log-likelihood ratio ``ln p_A/p_B``
(the most powerful test): the peeled sequence's (s exponential mechanisms in a row, computed from the two score
vectors) plus the fit's given that support — for the linear loss the Gaussian on the noisy statistics
(``r·(Z ± r/2)`` with ``r`` the standardised shift of ``(v(ZᵀZ), Zᵀy)``), for the logistic loss the sum over
the noisy gradient steps of the same term along the path the released gradients take.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy.special import logsumexp

from dpcore.core.audit import AuditScenario, release_path
from dpcore.sparse.params import SparseParams, _params, prepare
from dpcore.sparse.peeling import (_fit_step, design, gram_vector, noisy_gradient_descent, peel_plan, release_support,
                                   screening_scores, solve_noisy_statistics)
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


def _clipped(X, y, loss: str, p: SparseParams, skip_clip: bool):
    return (np.asarray(X, dtype=float), np.asarray(y, dtype=float)) if skip_clip else prepare(X, y, loss, p)


#: Cells (draws × distinct records × support) one batch of logistic gradients holds (float64: 32 MB).
GRADIENT_CELLS = 1 << 22
#: Noisy scores (draws × d) one block of simulated releases holds: memory stays bounded for any upload's width.
SCORE_CELLS = 1 << 22


class _Pair:
    """The noise-free pieces of the release on A and on B, which differ in record ``changed`` only.

    Every difference the likelihood ratio needs comes from that one record (``ZᵀZ`` moves by ``z_A z_Aᵀ − z_B z_Bᵀ``,
    ``Zᵀy`` by ``z_A y_A − z_B y_B``, the mean gradient by the record's own term over n), so nothing of size d² is
    formed; the logistic path needs the full gradient on one side, from the distinct ``(z, y)`` rows of A.
    """

    def __init__(self, A, B, changed: int, loss: str, p: SparseParams, skip_clip: bool):
        (XA, yA), (XB, yB) = _clipped(*A, loss, p, skip_clip), _clipped(*B, loss, p, skip_clip)
        self.n = len(yA)
        self.scores = {"A": screening_scores(XA, yA), "B": screening_scores(XB, yB)}
        every = np.arange(XA.shape[1])  # the constant column, then every feature
        self.record = {"A": (design(XA[changed:changed + 1], every, True)[0], yA[changed]),
                       "B": (design(XB[changed:changed + 1], every, True)[0], yB[changed])}
        if loss == "logistic":
            rows, counts = np.unique(np.column_stack([design(XA, every, True), yA]), axis=0, return_counts=True)
            self.rows, self.labels, self.weights = rows[:, :-1], rows[:, -1], counts / self.n

    def statistic_shift(self, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(v(ZᵀZ)_A − v(ZᵀZ)_B, (Zᵀy)_A − (Zᵀy)_B)`` on each row of ``cols`` (draws, q)."""
        (za, ya), (zb, yb) = self.record["A"], self.record["B"]
        a, b = za[cols], zb[cols]
        dg = gram_vector(a[:, :, None] * a[:, None, :] - b[:, :, None] * b[:, None, :])
        return dg, a * ya - b * yb

    def _term(self, which: str, theta: np.ndarray, cols: np.ndarray) -> np.ndarray:
        z, y = self.record[which]
        zc = z[cols]
        return -y * _sigmoid(-y * np.einsum("di,di->d", zc, theta))[:, None] * zc

    def gradients(self, theta: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mean logistic gradients ``(g_A, g_B)`` at θ (draws, q) on ``cols`` (draws, q)."""
        gA = np.empty(theta.shape)
        step = max(1, GRADIENT_CELLS // (len(self.rows) * cols.shape[1]))
        for lo in range(0, len(theta), step):
            Z = self.rows[:, cols[lo:lo + step]].transpose(1, 0, 2)  # (draws, u, q)
            z = np.einsum("dui,di->du", Z, theta[lo:lo + step])
            w = -self.labels * _sigmoid(-self.labels * z) * self.weights
            gA[lo:lo + step] = np.einsum("du,dui->di", w, Z)
        return gA, gA - (self._term("A", theta, cols) - self._term("B", theta, cols)) / self.n


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


def _columns(S: np.ndarray, intercept: bool) -> np.ndarray:
    """Columns of ``(1, x)`` the fit reads for each peeled sequence: the intercept (if fitted), then the features."""
    return np.column_stack([np.zeros(len(S), dtype=int), S + 1]) if intercept else S + 1


def _llr_sampler(A, B, changed: int, s: int, loss: str, p: SparseParams, epsilon: float, delta: float, bug: str,
                 select_share: float = 0.5):
    """``sampler(which, planted_bug, rng, draws)``: the exact log-likelihood ratio of releases drawn on ``which``."""
    plan = peel_plan(len(A[1]), s, epsilon, delta, loss, p, select_share)
    pairs = {planted: _Pair(A, B, changed, loss, p, planted and bug == "clip") for planted in (False, True)}

    def sampler(which, planted_bug, rng, draws):
        step = max(1, SCORE_CELLS // pairs[False].scores["A"].size)  # draws × d noisy scores held at once
        return np.concatenate([block(which, planted_bug, rng, min(step, draws - lo)) for lo in range(0, draws, step)])

    def block(which, planted_bug, rng, draws):
        factor = 0.5 if planted_bug and bug == "noise" else 1.0
        pair = pairs[bool(planted_bug)]
        uA, uB = pair.scores["A"], pair.scores["B"]
        beta = plan.gumbel_scale * factor
        here = uA if which == "A" else uB
        if rng is None:  # the release path: OpenDP's top-k (its map checked against the plan's own ρ)
            S = release_support(here, s, replace(plan, gumbel_scale=beta, rho_select=plan.rho_select / factor**2),
                                draws)
        else:
            S = np.argsort(-(here + beta * rng.gumbel(size=(draws, here.size))), axis=1)[:, :s]
        llr = _peel_log_ratio(S, uA, uB, beta)
        cols = _columns(S, p.intercept)
        sign = 0.5 if which == "A" else -0.5
        if loss == "linear":
            sg, sm = (plan.noises[k].scale * factor for k in ("gram", "moment"))
            dg, dm = pair.statistic_shift(cols)
            shift = np.sqrt((dg**2).sum(axis=1) / sg**2 + (dm**2).sum(axis=1) / sm**2)
            if rng is None:  # ln p_A/p_B = e·Δ/σ² ± ‖Δ‖²/(2σ²) for the OpenDP noise e on ZᵀZ and Zᵀy
                eg, em = (plan.noises[k].with_scale_factor(factor).release(np.zeros(v.shape))
                          for k, v in (("gram", dg), ("moment", dm)))
                return llr + (eg * dg).sum(axis=1) / sg**2 + (em * dm).sum(axis=1) / sm**2 + sign * shift**2
            return llr + shift * (rng.standard_normal(draws) + sign * shift)
        if rng is None:
            raise ValueError("the release path of the logistic fit's audit is not simulated")
        sigma = plan.noises["gradient"].scale * factor
        theta = np.zeros(cols.shape)
        for _ in range(p.fit_T):
            gA, gB = pair.gradients(theta, cols)
            g = (gA if which == "A" else gB) + sigma * rng.standard_normal(theta.shape)
            llr += np.einsum("di,di->d", g - 0.5 * (gA + gB), gA - gB) / sigma**2
            theta = theta - _fit_step(p) * g
        return llr

    return sampler


SUMMARY = ("exact log-likelihood ratio ln p_A/p_B of the release: the peeled sequence's plus the fit's "
           "(Gaussian on the statistics, or on each gradient along the released path)")


def _scenario(kind: str, epsilon: float, delta: float, bug: str) -> AuditScenario:
    A, B, s, loss, p = _pair(kind)
    sampler = _llr_sampler(A, B, len(A[1]) - 1, s, loss, p, epsilon, delta, bug)
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
        method="sparse", name=names[kind], neighbours=texts[kind], summary=SUMMARY, claimed_epsilon=float(epsilon),
        delta=float(delta), sampler=sampler, planted_bug_label=PEEL_BUGS[bug],
        release_sampler=release_path(sampler) if loss == "linear" else None)


def peel_audit_scenarios(epsilon: float, delta: float, bug: str = "clip") -> list[AuditScenario]:
    """The default release's worst-case pairs: the selection tipped, a record at every bound (both losses)."""
    if bug not in PEEL_BUGS:
        raise ValueError(f"bug must be one of {tuple(PEEL_BUGS)}")
    return [_scenario(kind, epsilon, delta, bug) for kind in ("tip", "bound", "bound-logistic")]


# --------------------------------------------------------------------------
# The attacker's pair built from a data set (the audit page's "replace one record")
# --------------------------------------------------------------------------


def replaced_pair(X, y, index: int, alt_y: float, alt_x=None):
    """``(X, y), (X_B, y_B)``: the data set and the same with record ``index`` replaced (``alt_x=None``: same features)."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    if not 0 <= index < len(y):
        raise ValueError(f"record {index + 1} does not exist (the data set has {len(y)})")
    XB, yB = X.copy(), y.copy()
    XB[index] = X[index] if alt_x is None else np.asarray(alt_x, dtype=float)
    yB[index] = alt_y
    return (X, y), (XB, yB)


def replaced_record_text(n: int, d: int, index: int, y_now: float, alt_y: float, alt_x) -> str:
    """"A: the data set as it is …; B: record i with …" for a pair that replaces one record."""
    fmt = lambda v: f"{float(v):.3g}"
    alt_text = "the same features" if alt_x is None else "features " + (
        "set to 0" if not np.any(alt_x) else "(" + ", ".join(fmt(v) for v in np.ravel(alt_x)[:5]) + ", …)")
    return (f"A: the data set as it is (n = {n}, d = {d}; record {index + 1} has y = {fmt(y_now)}); B: "
            f"record {index + 1} with y = {fmt(alt_y)} and {alt_text}.")


def _noise_free(X, y, s: int, loss: str, p: SparseParams) -> tuple[np.ndarray, np.ndarray]:
    """The release without noise: the top-s scores' support (in score order) and the fit on it, intercept first
    (0 when none is fitted)."""
    X, y = prepare(X, y, loss, p)
    support = np.argsort(-screening_scores(X, y), kind="stable")[:s]
    Z = design(X, support[None], p.intercept)[0]
    if loss == "linear":
        theta = solve_noisy_statistics(Z.T @ Z, Z.T @ y, 0.0)
    else:
        theta = noisy_gradient_descent(Z, y, lambda t, g: g, p.fit_T, _fit_step(p))
    return support, theta if p.intercept else np.r_[0.0, theta]


def _reveal(A, B, s: int, loss: str, p: SparseParams, names: list[str]) -> str:
    (SA, tA), (SB, tB) = _noise_free(*A, s, loss, p), _noise_free(*B, s, loss, p)
    if set(SA) != set(SB):
        moved = sorted(set(SA) ^ set(SB))
        shown = ", ".join(names[j] for j in moved[:4]) + (" …" if len(moved) > 4 else "")
        return (f"Without noise the peeled support differs between A and B ({shown} enter or leave it): the attacker "
                "ranks the features' scores on A and on B themselves and reads off which support was released — "
                "right 100 % of the time.")
    coef_a, coef_b = dict(zip(SA, tA[1:])), dict(zip(SB, tB[1:]))
    diff = {j: coef_a[j] - coef_b[j] for j in SA}
    if not any(diff.values()) and tA[0] == tB[0]:
        return ("Without noise the peeled support and the fit on it are the same on A and B: this replacement does "
                "not move the release, so the attacker cannot tell them apart.")
    j = max(diff, key=lambda k: abs(diff[k]))
    return (f"Without noise A and B have the same peeled support ({', '.join(names[k] for k in SA[:5])}"
            f"{' …' if s > 5 else ''}) but the fit on it differs (largest change: {names[j]}, {coef_a[j]:.3g} on A, "
            f"{coef_b[j]:.3g} on B{f'; intercept {tA[0]:.3g} vs {tB[0]:.3g}' if p.intercept else ''}): the attacker "
            "computes both fits and "
            "reads off which one was released — right 100 % of the time.")


def peel_data_scenario(X, y, *, index: int, alt_y: float, alt_x=None, sparsity: int, epsilon: float, delta: float,
                       loss: str = "linear", select_share: float = 0.5, feature_names=None, bug: str = "noise",
                       **params) -> AuditScenario:
    """The attacker's pair built from a data set: A as it is, B with record ``index`` replaced by ``(alt_x, alt_y)``
    (``alt_x=None``: the same features), seen through the default release, peeling + private fit, with the same
    exact log-likelihood ratio as :func:`peel_audit_scenarios` (the most powerful attack on this pair)."""
    if bug not in PEEL_BUGS:
        raise ValueError(f"bug must be one of {tuple(PEEL_BUGS)}")
    p = _params(**params)
    (X, y), (XB, yB) = replaced_pair(X, y, index, alt_y, alt_x)
    n, d = X.shape
    s = int(sparsity)
    names = list(feature_names) if feature_names is not None else [f"x{j + 1}" for j in range(d)]
    plan = peel_plan(n, s, epsilon, delta, loss, p, select_share)
    fit = ("noisy ZᵀZ and Zᵀy" if loss == "linear" else f"{p.fit_T} noisy gradient steps")
    neighbours = (replaced_record_text(n, d, index, y[index], alt_y, alt_x)
                  + f" Peeling + private fit as released ({loss}): s = {s} features peeled by Gumbel noise "
                    f"(β = {plan.gumbel_scale:.3g}, {select_share:.0%} of the budget's ρ in zCDP), then {fit} on them "
                    f"{'with' if p.intercept else 'without'} an intercept (δ = {delta:.3g}); public K = {p.K:g}, "
                    f"r = {p.r:g}.")
    return AuditScenario(
        method="sparse", name=f"record {index + 1} replaced", neighbours=neighbours, summary=SUMMARY,
        claimed_epsilon=float(epsilon), delta=float(delta),
        sampler=_llr_sampler((X, y), (XB, yB), index, s, loss, p, epsilon, delta, bug, select_share),
        planted_bug_label=PEEL_BUGS[bug], reveal=_reveal((X, y), (XB, yB), s, loss, p, names))
