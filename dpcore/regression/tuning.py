"""Free choice of the clipping thresholds and the budget split on auxiliary synthetic data.

The search sees only public quantities — ``n``, ``d``, ε and the split — so
it costs no privacy budget and its results can be cached by those keys.

Batching (why 400 pairs × 20 data sets × 20 draws = 160,000 fits take seconds):

* the clipped ``nxx`` depends on ``(ωx, data set)`` only, ``nxy`` on
  ``(ωx, ωy, data set)``, so 400 + 8,000 small products replace 160,000;
* noise uses *common random numbers*: one standard Laplace matrix per
  ``(data set, draw)``, multiplied by each pair's scale. Every pair's score is
  still an average over 20 × 20 independent realisations of exactly the
  distribution the paper describes; only the *correlation between pairs* changes
  (it rises), which makes the comparison between pairs less noisy;
* so the noisy precision ``λ0 I + λ nxx`` depends on ``(ωx, set, draw)`` only:
  8,000 batched ``eigh`` calls (which also perform the PSD repair) serve all 20
  ``ωy`` values as right-hand sides;
* Spearman's ρ uses the fixed ranks of ``y`` and one float32 arg-sort per fit.

:func:`threshold_search_loop` is the straightforward reference (one
``numpy.linalg.solve`` per fit, fresh noise per fit) used by the benchmark and
to check that both give the same scores within Monte-Carlo error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from dpcore.regression.linalg import DEFAULT_SPLIT, OMEGA_GRID, _split, spearman, triu_unpack
from dpcore.regression.preparation import normalise_rows
from dpcore.regression.statistic import sensitivities

Progress = Callable[[float], None] | None


@dataclass(frozen=True)
class SyntheticSets:
    """``S`` public synthetic data sets: ``X`` (S, n, d) row-normalised, ``y`` (S, n) centred, σ's."""

    X: np.ndarray
    y: np.ndarray
    beta: np.ndarray
    sigma_x: np.ndarray
    sigma_y: np.ndarray


def synthetic_sets(n: int, d: int, n_sets: int, rng: np.random.Generator) -> SyntheticSets:
    """The paper's auxiliary data: ``x ~ N(0, I)`` centred and row-normalised, ``β ~ N(0, I)``,
    ``y = xβ + N(0, 1)`` centred. σx, σy are their own standard deviations (public: synthetic)."""
    X = rng.standard_normal((n_sets, n, d))
    X = normalise_rows(X - X.mean(axis=1, keepdims=True))
    beta = rng.standard_normal((n_sets, d))
    y = np.einsum("sni,si->sn", X, beta) + rng.standard_normal((n_sets, n))
    y -= y.mean(axis=1, keepdims=True)
    return SyntheticSets(X, y, beta, X.std(axis=(1, 2)), y.std(axis=1))


@dataclass(frozen=True)
class ThresholdSearch:
    """Score grid (mean Spearman ρ over sets × draws; NaN where a coarse-to-fine search did not need the pair) and the
    chosen ``(ωx, ωy)`` (:func:`least_clipping_choice`)."""

    omega_x: float
    omega_y: float
    scores: np.ndarray  # (len(grid_x), len(grid_y))
    grid_x: np.ndarray
    grid_y: np.ndarray
    n: int
    d: int
    epsilon: float
    split: tuple[float, float, float]
    n_sets: int
    n_draws: int

    @property
    def best_score(self) -> float:
        return float(np.nanmax(self.scores))

    @property
    def pairs_scored(self) -> int:
        return int(np.isfinite(self.scores).sum())

    @property
    def chosen_score(self) -> float:
        """Mean ρ of the chosen pair (:func:`least_clipping_choice`; at most a tie margin below the best)."""
        i, j = int(np.flatnonzero(self.grid_x == self.omega_x)[0]), int(np.flatnonzero(self.grid_y == self.omega_y)[0])
        return float(self.scores[i, j])

    def describe(self) -> dict:
        return {"source": "free search on synthetic data (public n, d, ε, split)", "n": self.n, "d": self.d,
                "epsilon": self.epsilon, "split": list(self.split), "data sets": self.n_sets,
                "noise draws": self.n_draws, "omega_x": self.omega_x, "omega_y": self.omega_y,
                "rule": "least clipping among pairs within 0.002 (or 2 s.e.) of the best mean rho",
                "mean Spearman rho at the choice": self.chosen_score, "best mean Spearman rho": self.best_score}


def _rank_scores(pred: np.ndarray) -> np.ndarray:
    """Spearman ρ along the last axis when the records are sorted by ``y`` (so y's ranks are ``0..n−1``).

    Then ``Σ (rank_pred − m)(rank_y − m) = Σ_k (k − m)(order_k − m)`` with
    ``order`` the arg-sort of the predictions: one sort, no gather. The sort
    is a radix sort of the predictions quantised to 16 bits within each
    vector (3× faster than a float arg-sort); only predictions closer than
    1/65,535 of their range can swap, which moved ρ by at most 2e-4 against
    exact ranks in our checks (the tests compare with the exact loop). Continuous data (no ties), as the
    synthetic sets are.
    """
    n = pred.shape[-1]
    lo = pred.min(axis=-1, keepdims=True)
    span = pred.max(axis=-1, keepdims=True) - lo
    q = ((pred - lo) * (65535.0 / np.where(span > 0, span, 1.0))).astype(np.uint16)
    order = np.argsort(q, axis=-1, kind="stable").astype(np.float32)
    ranks_c = (np.arange(n) - (n - 1) / 2.0).astype(np.float32)
    return (order @ ranks_c).astype(float) / float((ranks_c.astype(float) ** 2).sum())


def least_clipping_choice(rho: np.ndarray, z: float = 2.0, margin: float = 0.002) -> tuple[int, int]:
    """The pair with the least clipping among those not materially worse than the best (grid indices).

    ``rho`` is (Gx, S, R, Gy): each pair's score on the same S × R synthetic
    realisations (common random numbers), grids in increasing order. A pair is
    *tied* with the best (highest mean) when its mean paired difference to the
    best is above ``−max(z · standard error, margin)``; among tied pairs we take
    the largest ``i + j`` (then the higher score). Why: clipping adds a bias that
    does not shrink as ε grows, while the noise it saves does. At large ε every
    light-clipping pair scores within 0.001 of the others, and a plain argmax
    picks one that clips a third of GDSC's responses (robust-looking ranks on
    Gaussian synthetic data), so the private fit would never reach the
    non-private one. ``margin`` = 0.002 in mean ρ is below what the page shows or
    its CV bands resolve; at small ε the score falls off far faster than that.
    """
    gx, s, r, gy = rho.shape
    scores = _cell_means(rho)
    i0, j0 = np.unravel_index(int(np.argmax(np.nan_to_num(scores, nan=-np.inf))), scores.shape)
    diff = (rho - rho[i0, :, :, j0][None, :, :, None]).reshape(gx, s * r, gy)
    done = ~np.isnan(scores)
    with np.errstate(invalid="ignore"):
        se = diff.std(axis=1, ddof=1) / np.sqrt(s * r) if s * r > 1 else np.zeros((gx, gy))
        tied = done & (diff.mean(axis=1) >= -np.maximum(z * se, margin))
    lo, span = np.nanmin(scores), float(np.nanmax(scores) - np.nanmin(scores))
    ties_by_score = 0.5 * (scores - lo) / max(span, 1e-300)  # < 1: breaks i + j ties only
    key = np.where(tied, np.add.outer(np.arange(gx), np.arange(gy)) + ties_by_score, -np.inf)
    i, j = np.unravel_index(int(np.argmax(key)), key.shape)
    return int(i), int(j)


def _cell_means(rho: np.ndarray) -> np.ndarray:
    """Mean score of each pair over its sets and draws; NaN for pairs the search did not evaluate."""
    done = ~np.isnan(rho[:, 0, 0, :])
    return np.where(done, np.nan_to_num(rho).mean(axis=(1, 2)), np.nan)


class _PairScorer:
    """Scores of ``(ωx, ωy)`` pairs on one fixed set of synthetic data and standard noise (common random numbers).

    Work shared across pairs: the sets sorted by ``y`` once, ``y`` clipped once per ``ωy``, and per ``ωx`` the clipped
    ``nxx``, its noisy eigen-decomposition (the PSD repair) and ``nxy`` — computed once and kept, so a coarse pass and
    its refinements rarely repeat a row's decomposition. Only the solve and the rank score are per pair.
    """

    def __init__(self, n, d, epsilon, split, rng, n_sets, n_draws, gx, gy):
        p1, self.p2, _ = _split(split)
        self.epsilon, self.d, self.gx, self.gy = float(epsilon), int(d), gx, gy
        data = synthetic_sets(int(n), int(d), n_sets, rng)
        k = d * (d + 1) // 2
        self.lxx = triu_unpack(rng.laplace(size=(n_sets, n_draws, k)), d)  # (S, R, d, d) standard Laplace, mirrored
        self.lxy = rng.laplace(size=(n_sets, n_draws, d))
        order = np.argsort(data.y, axis=-1)  # sort each set by y once: y's ranks become 0..n-1
        self.X = np.take_along_axis(data.X, order[..., None], axis=1)
        y = np.take_along_axis(data.y, order, axis=1)
        self.by = gy[:, None] * data.sigma_y[None, :]  # (Gy, S)
        self.y_clip = np.clip(y[None], -self.by[..., None], self.by[..., None])  # (Gy, S, n)
        self.sigma_x, self.p1 = data.sigma_x, p1
        self.Xt = np.ascontiguousarray(np.swapaxes(self.X, 1, 2), dtype=np.float32)  # (S, d, n), for the scoring
        self.rows: dict[int, tuple] = {}  # ωx index → its decomposition, the KEEP most recent

    KEEP = 4

    def _row(self, a: int):
        if a not in self.rows:
            s_xx, _, _ = sensitivities(self.d, 1.0, 1.0)
            bx = self.gx[a] * self.sigma_x  # (S,)
            Xc = np.clip(self.X, -bx[:, None, None], bx[:, None, None])
            Xct = np.swapaxes(Xc, 1, 2)
            b_xx = s_xx * bx**2 / (self.p1 * self.epsilon)  # (S,)
            w, v = np.linalg.eigh((Xct @ Xc)[:, None] + b_xx[:, None, None, None] * self.lxx)  # (S, R, d), (S, R, d, d)
            if len(self.rows) >= self.KEEP:
                self.rows.pop(next(iter(self.rows)))  # the oldest row: at d = 64 each holds 13 MB
            self.rows[a] = (bx, Xct, np.maximum(w, 0.0), v)  # PSD repair
        return self.rows[a]

    def __call__(self, a: int, js: np.ndarray) -> np.ndarray:
        """ρ of pairs ``(a, j)`` for ``j`` in ``js``: shape (S, R, len(js))."""
        bx, Xct, w, v = self._row(a)
        n_sets, n_draws = self.lxy.shape[:2]
        nxy = Xct @ np.moveaxis(self.y_clip[js], 0, -1)  # (S, d, J)
        b_xy = 2.0 * self.d * bx[:, None] * self.by[js].T / (self.p2 * self.epsilon)  # (S, J)
        noisy_xy = nxy[:, None] + self.lxy[..., None] * b_xy[:, None, None, :]  # (S, R, d, J)
        t = np.swapaxes(v, -1, -2) @ noisy_xy / (1.0 + w[..., None])  # λ = λ0 = 1, in the eigenbasis
        mu = np.swapaxes(v @ t, -1, -2).reshape(n_sets, n_draws * len(js), self.d).astype(np.float32)
        pred = mu @ self.Xt  # (S, R·J, n), float32: only its ranks matter
        return _rank_scores(pred).reshape(n_sets, n_draws, len(js))


#: every third value of the ω grid (and its last) in the coarse pass of :func:`threshold_search`
COARSE_STEP = 3


def _coarse(size: int) -> np.ndarray:
    return np.union1d(np.arange(0, size, COARSE_STEP), [size - 1])


def _refinements(rho: np.ndarray) -> set[tuple[int, int]]:
    """Pairs still to score: the unscored neighbours of the best pair, and those of the chosen pair that clip less."""
    gx, _, _, gy = rho.shape
    scores = _cell_means(rho)
    best = np.unravel_index(int(np.argmax(np.nan_to_num(scores, nan=-np.inf))), scores.shape)
    ci, cj = least_clipping_choice(rho)
    cells = {(best[0] + a, best[1] + b) for a in (-1, 0, 1) for b in (-1, 0, 1)}
    cells |= {(ci + a, cj + b) for a in (-1, 0, 1) for b in (-1, 0, 1) if a + b >= 0}
    return {(i, j) for i, j in cells if 0 <= i < gx and 0 <= j < gy and np.isnan(scores[i, j])}


def threshold_search(
    n: int,
    d: int,
    *,
    epsilon: float,
    split: Sequence[float] = DEFAULT_SPLIT,
    rng: np.random.Generator | int | None = None,
    n_sets: int = 20,
    n_draws: int = 20,
    grid_x: Sequence[float] = OMEGA_GRID,
    grid_y: Sequence[float] = OMEGA_GRID,
    progress: Progress = None,
    coarse_to_fine: bool = True,
) -> ThresholdSearch:
    """Score ``(ωx, ωy)`` pairs on synthetic data and choose by :func:`least_clipping_choice` (free: public inputs).

    Fits use fixed precisions λ = λ0 = 1 (as the paper's search); the score is
    Spearman's ρ between ``x μ*`` and ``y`` on the (unclipped) synthetic set,
    averaged over ``n_sets × n_draws``. ``coarse_to_fine`` (default) scores every third ω in each direction
    (and the last), then the unscored neighbours of the best pair and of the chosen pair's less-clipping side
    until both have all their neighbours scored — the same choice as scoring every pair (tested) from about a fifth of
    the pairs; ``False`` scores the whole grid. ``progress(fraction)`` is called after each ωx row of the coarse pass.
    ``rng`` defaults to a fixed seed so the result is cacheable by ``(n, d, ε, split)``.
    """
    rng = np.random.default_rng(0 if rng is None else rng)
    gx, gy = np.asarray(grid_x, dtype=float), np.asarray(grid_y, dtype=float)
    score = _PairScorer(n, d, epsilon, split, rng, n_sets, n_draws, gx, gy)
    rho_all = np.full((gx.size, n_sets, n_draws, gy.size), np.nan)
    rows = _coarse(gx.size) if coarse_to_fine else np.arange(gx.size)
    cols = _coarse(gy.size) if coarse_to_fine else np.arange(gy.size)
    for k, a in enumerate(rows):
        rho_all[a][..., cols] = score(int(a), cols)
        if progress is not None:
            progress((k + 1) / rows.size)
    while coarse_to_fine and (todo := _refinements(rho_all)):
        for a in sorted({i for i, _ in todo}):
            js = np.array(sorted(j for i, j in todo if i == a))
            rho_all[a][..., js] = score(int(a), js)
    i, j = least_clipping_choice(rho_all)
    return ThresholdSearch(float(gx[i]), float(gy[j]), _cell_means(rho_all), gx, gy, int(n), int(d), float(epsilon),
                           _split(split), n_sets, n_draws)


def threshold_search_loop(
    n: int,
    d: int,
    *,
    epsilon: float,
    split: Sequence[float] = DEFAULT_SPLIT,
    rng: np.random.Generator | int | None = None,
    n_sets: int = 20,
    n_draws: int = 20,
    grid_x: Sequence[float] = OMEGA_GRID,
    grid_y: Sequence[float] = OMEGA_GRID,
) -> np.ndarray:
    """Reference implementation: a Python loop, fresh noise and one ``np.linalg.solve`` per fit.

    Returns the score grid only. Used by the benchmark (on a subsample of
    pairs) and by the tests (agreement with :func:`threshold_search`).
    """
    p1, p2, _ = _split(split)
    rng = np.random.default_rng(0 if rng is None else rng)
    data = synthetic_sets(int(n), int(d), n_sets, rng)
    gx, gy = np.asarray(grid_x, dtype=float), np.asarray(grid_y, dtype=float)
    iu = np.triu_indices(d)
    scores = np.zeros((gx.size, gy.size))
    for a, wx in enumerate(gx):
        for b, wy in enumerate(gy):
            total = 0.0
            for s in range(n_sets):
                X, y = data.X[s], data.y[s]
                bx, by = wx * data.sigma_x[s], wy * data.sigma_y[s]
                Xc, yc = np.clip(X, -bx, bx), np.clip(y, -by, by)
                s_xx, s_xy, _ = sensitivities(d, bx, by)
                for _ in range(n_draws):
                    nxx = Xc.T @ Xc
                    noise = np.zeros((d, d))
                    noise[iu] = rng.laplace(0.0, s_xx / (p1 * epsilon), size=iu[0].size)
                    nxx = nxx + noise + np.triu(noise, 1).T
                    wv, vv = np.linalg.eigh(nxx)
                    nxx = (vv * np.maximum(wv, 0.0)) @ vv.T
                    nxy = Xc.T @ yc + rng.laplace(0.0, s_xy / (p2 * epsilon), size=d)
                    mu = np.linalg.solve(np.eye(d) + nxx, nxy)
                    total += float(spearman(X @ mu, y, ties=False))
            scores[a, b] = total / (n_sets * n_draws)
    return scores


# --------------------------------------------------------------------------
# Budget split
# --------------------------------------------------------------------------


def split_grid(step: float = 0.05, low: float = 0.05, high: float = 0.90, min_p3: float = 0.05) -> np.ndarray:
    """All ``(p1, p2, p3)`` with ``p1, p2 ∈ {low, …, high}`` and ``p3 = 1 − p1 − p2 ≥ min_p3``."""
    vals = np.round(np.arange(low, high + 1e-9, step), 10)
    rows = [(a, b, round(1.0 - a - b, 10)) for a in vals for b in vals if 1.0 - a - b >= min_p3 - 1e-9]
    return np.asarray(rows)


@dataclass(frozen=True)
class SplitSearch:
    """Best score over ``(ωx, ωy)`` for every split, and the chosen split."""

    splits: np.ndarray  # (K, 3)
    scores: np.ndarray  # (K,)
    omegas: np.ndarray  # (K, 2) the best ω pair per split
    best: tuple[float, float, float]
    n: int
    d: int
    epsilon: float


def split_search(
    n: int,
    d: int,
    *,
    epsilon: float,
    splits: np.ndarray | None = None,
    rng: np.random.Generator | int | None = None,
    n_sets: int = 5,
    n_draws: int = 5,
    grid_x: Sequence[float] = OMEGA_GRID,
    grid_y: Sequence[float] = OMEGA_GRID,
    progress: Progress = None,
) -> SplitSearch:
    """Search the budget split (5 × 5 by default, as the paper): each split gets its own ω search.

    The same seed is used for every split (common random numbers), so splits
    are compared on identical synthetic data and noise shapes. With fixed
    precisions ``nyy`` does not enter the fit, so the best split gives ``p3`` its
    minimum — a real property of the method, not a bug.
    """
    grid = split_grid() if splits is None else np.asarray(splits, dtype=float)
    seed = 0 if rng is None else (rng if isinstance(rng, int) else int(rng.integers(2**31)))
    scores, omegas = np.empty(len(grid)), np.empty((len(grid), 2))
    for k, sp in enumerate(grid):
        res = threshold_search(n, d, epsilon=epsilon, split=tuple(sp), rng=seed, n_sets=n_sets, n_draws=n_draws,
                               grid_x=grid_x, grid_y=grid_y)
        scores[k], omegas[k] = res.best_score, (res.omega_x, res.omega_y)
        if progress is not None:
            progress((k + 1) / len(grid))
    best = tuple(float(v) for v in grid[int(np.argmax(scores))])
    return SplitSearch(grid, scores, omegas, best, int(n), int(d), float(epsilon))  # type: ignore[arg-type]


def tune_thresholds(n: int, d: int, *, epsilon: float, split: Sequence[float] = DEFAULT_SPLIT, rng=None, **kwargs):
    """Free threshold search on synthetic data; see :func:`threshold_search`."""
    return threshold_search(n, d, epsilon=epsilon, split=split, rng=rng, **kwargs)
