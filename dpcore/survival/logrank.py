"""Post-processing, the log-rank test: the test of a release and the table it reads (free post-processing).

Separate from :mod:`dpcore.survival.estimators` (the curves) because the test has its own variance argument (the
noise-aware covariance of ``O − E``) and its own choice of table (:func:`logrank_table`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from dpcore.survival.estimators import DEFAULT_RISK_SET, RiskTable, _ratio, postprocess
from dpcore.survival.statistic import Counts


@dataclass(frozen=True)
class LogrankArrays:
    statistic: np.ndarray
    p_value: np.ndarray
    dof: int
    observed: np.ndarray
    expected: np.ndarray


#: The log-rank test reads the consistent counts without the monotone fit (``"bridge"``) when the public n is at
#: least this many noise standard deviations. Why: the monotone fit is non-linear and treats a small group's
#: noisy cells differently from a large one's, which biases ``O − E`` under the null (Mgus, 2,000 permutations:
#: size 0.064 / 0.072 at ε = 1 / 2; with the linear counts 0.041 / 0.054, agreement unchanged); but where the
#: noise is large against n, unclipped negative counts break the normal approximation (Leukemia and Ovarian at
#: ε ≤ 1, n/σ = 4–9: size 0.10–0.15 linear, ≤ 0.013 with the fit; Kidney at ε = 0.5, n/σ = 14: 0.096). The
#: smallest ratio where the linear counts kept their size on the bundled sets was 15; 20 leaves a margin.
LOGRANK_LINEAR_MIN = 20.0


def logrank_table(counts: Counts, noise_std, *, risk_set: str = DEFAULT_RISK_SET) -> RiskTable:
    """The risk table the log-rank test of a release reads (post-processing of released counts).

    The curves' rule, except that the default (``"isotonic"``) gives way to its linear form (``"bridge"``, the
    same consistent counts without the monotone fit) where the public n is at least :data:`LOGRANK_LINEAR_MIN`
    noise standard deviations ``noise_std`` (public: ε and the sensitivity); on exact counts both are the
    ordinary table. Without a public n (``counts.total`` is None) the rule is kept.
    """
    if risk_set == "isotonic" and linear_logrank(counts, noise_std):
        return postprocess(counts, risk_set="bridge")
    return postprocess(counts, risk_set=risk_set)


def linear_logrank(counts: Counts, noise_std) -> np.ndarray:
    """Whether :func:`logrank_table` reads the linear counts (broadcasts over an array of noise sds)."""
    std = np.asarray(noise_std, dtype=float)
    if counts.total is None:
        return np.zeros(std.shape, bool)
    with np.errstate(divide="ignore"):
        return float(counts.total) / std >= LOGRANK_LINEAR_MIN


def logrank_test(table: RiskTable, *, noise_var=0.0, n_types: int = 1) -> LogrankArrays:
    """Log-rank chi-square for G ≥ 2 groups from per-group risk tables (vectorised over draws).

    Per bin: ``E_gj = d_j r_gj / r_j`` and hypergeometric covariance
    ``V_ghj = d_j (r_j − d_j)/(r_j − 1) · (r_gj/r_j)(δ_gh − r_hj/r_j)``
    (the factor ``(r−d)/(r−1)`` is 1 where ``r_j ≤ 1``, as in lifelines);
    ``U = (O−E)ᵀ V⁻ (O−E)`` over the first G−1 groups (pseudo-inverse).

    ``noise_var`` (not in the spec): the variance ``σ²`` of the DP noise on one released count. The plain
    statistic treats noisy counts as real people, so its variance ignores the noise and it rejects far too
    often at small ε. With ``noise_var`` the covariance gets the delta-method variance of ``O − E`` in the
    noise of **every** released cell — events, censorings and the count at time 0, which move the risk sets
    too (the previous noise term had the events only). Linearised at the released values,
    ``δ(O−E)_g = Σ_h Σ_j A_j[g,h] (δd_hj − λ_j δr_hj)``, ``A_j[g,h] = δ_gh − r_gj/r_j``, ``λ_j = d_j/r_j``,
    ``δr_hj = δr_1h − Σ_{l<j} (δd_hl + δc_hl)``; so the weight of ``d_hl`` is ``A_l + T_l``, of ``c_hl`` is
    ``T_l``, of ``r_1h`` is ``−T_0``, with ``T_l = Σ_{j>l} λ_j A_j`` (``T_0`` over all j), and the noise
    covariance is ``σ² Σ_h (n_types·Σ_l (A_l+T_l)(A_l+T_l)ᵀ + Σ_l T_l T_lᵀ + T_0 T_0ᵀ)`` (an event count that
    sums ``n_types`` noisy counts has ``n_types·σ²``). For a table from consistent counts (``risk_set`` "bridge"
    or "isotonic": :func:`_both_ends` projects the released cells orthogonally onto ``r_1 = Σ cells``), the
    noise covariance is ``σ²(I − uuᵀ/m)``, ``u = (−1, 1, …, 1)``, so ``(uᵀJ)(uᵀJ)ᵀ/m`` per group is subtracted:
    the risk set is a bridge, not a random walk. For the histogram release (the default statistic) ``r_1h`` is
    not released but the sum of group h's cells, so the weight ``−T_0`` moves onto every cell (events
    ``A_l + T_l − T_0``, censorings ``T_l − T_0``), and pinning all cells to the public n makes their noise
    ``σ²(I − 11ᵀ/M)`` over the ``M = G·k(K+1)`` cells. Post-processing of released values. ``noise_var = 0`` is the
    spec's (and lifelines') test. An array ``noise_var`` broadcasts against the leading (draw / ε) axes, e.g.
    shape ``(n_eps, 1)``.
    """
    G = len(table.groups)
    if G < 2:
        raise ValueError("the log-rank test needs at least two groups")
    rg = table.at_risk  # (..., G, k): the classical table (lifelines on binned data at ε = ∞)
    dg = table.deaths
    r = rg.sum(-2)  # (..., k)
    d = dg.sum(-2)
    frac = _ratio(rg, r[..., None, :])  # (..., G, k)
    O = dg.sum(-1)
    E = (d[..., None, :] * frac).sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        hyper = np.where(r > 1, (r - d) / np.where(r > 1, r - 1, 1.0), 1.0)
    w = d * hyper  # (..., k)
    # V_gh = Σ_j w_j frac_g (δ_gh − frac_h)
    Vdiag = np.einsum("...gk,...k->...g", frac, w)
    V = -np.einsum("...gk,...hk,...k->...gh", frac, frac, w)
    idx = np.arange(G)
    V[..., idx, idx] += Vdiag
    nv = np.asarray(noise_var, dtype=float)
    if np.any(nv > 0):
        alive = (rg > 0).astype(float)  # (..., G, k): where group h's counts enter the statistic
        A = (np.eye(G)[:, :, None] - frac[..., :, None, :]) * alive[..., None, :, :]  # (..., g, h, k)
        lam = A * _ratio(d, r)[..., None, None, :]
        total = lam.sum(-1, keepdims=True)
        later = total - np.cumsum(lam, axis=-1)  # T_l: Σ_{j>l}
        if table.statistic == "histogram":  # r_1h = Σ_l (d_hl + c_hl): its weight −T_0 moves onto every cell
            w_event, w_censored = A + later - total, later - total
            noise_cov = (n_types * np.einsum("...ghk,...fhk->...gf", w_event, w_event)
                         + np.einsum("...ghk,...fhk->...gf", w_censored, w_censored))
            if table.pinned:  # the cells of all groups projected onto Σ = n: σ²(I − 11ᵀ/M) over the M cells
                m = G * rg.shape[-1] * (n_types + 1)
                along = (n_types * w_event.sum(-1) + w_censored.sum(-1)).sum(-1)  # (..., g): Jᵀ1 over all cells
                noise_cov = noise_cov - np.einsum("...g,...f->...gf", along, along) / m
        else:
            noise_cov = (n_types * np.einsum("...ghk,...fhk->...gf", A + later, A + later)
                         + np.einsum("...ghk,...fhk->...gf", later, later)
                         + np.einsum("...ghk,...fhk->...gf", total, total))
            if table.actuarial:  # consistent counts (both ends): the noise projected off the constraint's direction
                m = 1 + rg.shape[-1] * (n_types + 1)
                along = total[..., 0] + n_types * (A + later).sum(-1) + later.sum(-1)  # (..., g, h): uᵀJ per group
                noise_cov = noise_cov - np.einsum("...gh,...fh->...gf", along, along) / m
        V = V + nv[..., None, None] * noise_cov
    u = (O - E)[..., : G - 1]
    Vi = np.linalg.pinv(V[..., : G - 1, : G - 1])
    stat = np.einsum("...g,...gh,...h->...", u, Vi, u)
    stat = np.maximum(stat, 0.0)
    return LogrankArrays(stat, stats.chi2.sf(stat, G - 1), G - 1, O, E)
