"""Data preparation and what it costs: centring and row scaling, public or DP (charged) centres and σ's.

* Each record ``x_i`` is centred with a *column centre* and scaled to unit L2 norm. The column centre
  is public (the midpoint of the public feature range — 0.5 for GDSC's binary features — or a user
  vector) or a DP mean charged to the budget. Row scaling uses only the record itself: free.
* ``y`` is centred with a public centre (midpoint of the documented response range, or a user value)
  or a DP mean of ``y`` clipped to the public range, charged. ``σy`` (for the clipping bound
  ``By = ωy σy``) is public (range/6, the six-sigma rule, or a user value) or a DP estimate from the
  mean absolute deviation (its upper confidence bound: a low σy would clip every response), charged. ``σx = 1/√d`` is public after row scaling.

The paper took all of these from the private data without charge; dpcore never does (``privacy.md``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from dpcore.core.mechanisms import Noise, check_budget, laplace_noise


def feature_bounds(x_bounds, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Public feature ranges as two length-``d`` arrays: one ``(lo, hi)`` pair for every feature, or per-feature
    ``(lo_vector, hi_vector)`` (features on different scales, e.g. age and cholesterol, need their own)."""
    lo, hi = (np.broadcast_to(np.asarray(b, dtype=float), (d,)).copy() for b in x_bounds)
    if not np.all(hi > lo):
        j = int(np.flatnonzero(~(hi > lo))[0])
        raise ValueError(f"feature {j + 1}: the public maximum {hi[j]:g} must be larger than the minimum {lo[j]:g}")
    return lo, hi


def normalise_rows(X: np.ndarray, centre: np.ndarray | float | None = None,
                   scale: np.ndarray | float | None = None) -> np.ndarray:
    """Subtract a (public or DP) column centre, divide by a public per-feature scale, then scale every record
    to unit L2 norm.

    The per-feature scale (half of each feature's public range) puts features measured in different units on
    one footing before the row scaling, which would otherwise be dominated by the feature with the largest
    numbers; for features sharing one range it only multiplies every row by a constant, which the row scaling
    removes. A record that is all zeros after centring stays zero. Both steps use public constants and the
    record itself, so they are free under replace-one; afterwards ``|x_ij| ≤ 1`` (the public worst-case
    bound used by the no-projection baseline) and the typical coordinate size is ``σx = 1/√d``.
    """
    X = np.asarray(X, dtype=float)
    if centre is not None:
        X = X - np.asarray(centre, dtype=float)
    if scale is not None:
        X = X / np.asarray(scale, dtype=float)
    norm = np.linalg.norm(X, axis=-1, keepdims=True)
    return np.divide(X, norm, out=np.zeros_like(X), where=norm > 0)


@dataclass(frozen=True)
class Preparation:
    """The centring / scaling constants used, where each came from, and what they cost.

    ``sources`` maps ``x_centre``, ``y_centre``, ``sigma_y`` to ``"public"`` or
    ``"DP (charged)"``; ``parts`` lists the ε charged for each DP estimate.
    ``y_bound`` is the public worst case of ``|y − y_centre|`` (from the public
    response range), used by the no-projection baseline and output perturbation.
    """

    x_centre: np.ndarray
    x_scale: np.ndarray  # half of each feature's public range
    y_centre: float
    sigma_x: float
    sigma_y: float
    y_bound: float
    sources: Mapping[str, str]
    parts: Mapping[str, float] = field(default_factory=dict)
    #: standard deviation of the DP response centre's Laplace noise, √2 (hi − lo)/(n ε): a public function of public
    #: numbers (0 for a public centre); the release reports it for its intercept
    centre_sd: float = 0.0

    @property
    def epsilon(self) -> float:
        return float(math.fsum(self.parts.values()))

    def transform(self, X: np.ndarray, y: np.ndarray | None = None):
        """Apply the preparation to records (any set: private, public or test)."""
        Xn = normalise_rows(X, self.x_centre, self.x_scale)
        if y is None:
            return Xn
        return Xn, np.asarray(y, dtype=float) - self.y_centre

    def describe(self) -> list[str]:
        return [
            f"feature centre: {self.sources['x_centre']}",
            f"response centre {self.y_centre:.3g}: {self.sources['y_centre']}",
            f"σy = {self.sigma_y:.3g}: {self.sources['sigma_y']}; σx = 1/√d = {self.sigma_x:.3g}: public",
        ]


def _dp_value(value, noise: Noise, rng: np.random.Generator | None, release: bool) -> np.ndarray:
    if release:
        return noise.release(np.asarray(value, dtype=float))
    if rng is None:
        raise ValueError("a preview DP estimate needs rng (or release=True for an OpenDP draw)")
    return noise.sample(np.asarray(value, dtype=float), rng=rng)


def column_mean_sensitivity(lo: np.ndarray, hi: np.ndarray, n: int) -> float:
    """L1 sensitivity of the clipped column means: ``Σ_j (hi_j − lo_j)/n``.

    Proof: replacing one row moves column ``j``'s clipped mean by at most ``(hi_j − lo_j)/n``; summing over the
    columns gives the L1 bound (``d (hi − lo)/n`` for one shared range).
    """
    return float(np.sum(np.asarray(hi, dtype=float) - np.asarray(lo, dtype=float))) / n


def mean_sensitivity(bounds: tuple[float, float], n):
    """Sensitivity ``(hi − lo)/n`` of the mean of ``n`` values clipped to ``bounds`` (``n`` may be an array).

    Proof: each clipped value lies in ``[lo, hi]``; replacing one moves the sum by at most ``hi − lo``.
    """
    lo, hi = bounds
    return (hi - lo) / np.asarray(n, dtype=float)[()]


def mad_sensitivity(centre, bounds: tuple[float, float], n):
    """Sensitivity ``max(hi − c, c − lo)/n`` of the mean absolute deviation around a released (public) centre
    ``c`` of ``n`` values clipped to ``bounds`` (``centre`` may be an array of centres).

    Proof: ``|clip(y) − c| ∈ [0, M]`` with ``M = max(hi − c, c − lo)``, so replacing one record moves the
    mean by at most ``M/n``.
    """
    lo, hi = bounds
    return np.maximum(hi - np.asarray(centre, dtype=float), np.asarray(centre, dtype=float) - lo)[()] / n


def dp_column_mean(X: np.ndarray, bounds: tuple[float, float], epsilon: float, *, rng=None,
                   release=False) -> np.ndarray:
    """DP column means of ``X`` clipped to the public ``bounds`` (Laplace, :func:`column_mean_sensitivity`)."""
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    lo, hi = feature_bounds(bounds, d)
    noise = laplace_noise(column_mean_sensitivity(lo, hi, n), epsilon)
    return _dp_value(np.clip(X, lo, hi).mean(axis=0), noise, rng, release)


def dp_mean_noise(bounds: tuple[float, float], n: int, epsilon: float) -> Noise:
    """The Laplace mechanism of :func:`dp_mean` (:func:`mean_sensitivity`); its ``std`` is the centre's noise sd."""
    return laplace_noise(float(mean_sensitivity(bounds, n)), epsilon)


def dp_mean(y: np.ndarray, bounds: tuple[float, float], epsilon: float, *, rng=None, release=False) -> float:
    """DP mean of ``y`` clipped to the public ``bounds`` (Laplace, :func:`mean_sensitivity`), clipped to them."""
    y = np.asarray(y, dtype=float)
    lo, hi = bounds
    noise = dp_mean_noise(bounds, y.size, epsilon)
    return float(np.clip(_dp_value(np.clip(y, lo, hi).mean(), noise, rng, release), lo, hi))


def dp_sigma(y: np.ndarray, centre: float, bounds: tuple[float, float], epsilon: float, *, rng=None,
             release=False) -> float:
    """DP standard deviation via the mean absolute deviation, ``σ ≈ √(π/2)·MAD`` (exact for a normal), taken at
    the noisy MAD's upper confidence bound (:func:`sigma_from_noisy_mad`, post-processing); the MAD gets
    Laplace noise for :func:`mad_sensitivity` (the centre ``c`` already released, so public).
    """
    y = np.asarray(y, dtype=float)
    lo, hi = bounds
    noise = laplace_noise(float(mad_sensitivity(centre, bounds, y.size)), epsilon)
    mad = float(_dp_value(np.abs(np.clip(y, lo, hi) - centre).mean(), noise, rng, release))
    return float(sigma_from_noisy_mad(mad, noise.scale, bounds))


#: the level of the one-sided upper confidence bound on the MAD that σy is taken from (see sigma_from_noisy_mad)
MAD_UPPER_LEVEL = 0.9


def sigma_from_noisy_mad(mad, noise_scale, bounds: tuple[float, float]):
    """σy from a noisy MAD whose Laplace noise has the public scale ``noise_scale`` (post-processing).

    The MAD's upper confidence bound at ``MAD_UPPER_LEVEL``, ``mad + b·ln(1 / (2(1 − level)))``, times ``√(π/2)``:
    σy sets the response clipping bound, and an estimate that comes out low clips every response to a sliver
    around the centre (the fit then predicts a constant), while one that comes out high only adds noise. With a
    wide public range and little budget the noise is as large as the MAD itself (GDSC: ln IC50 within ±13.8,
    ε = 0.05 for the MAD); as the budget grows the bound tends to the point estimate. A floor of
    ``(hi − lo)/1000`` keeps it positive.
    """
    lo, hi = bounds
    upper = np.asarray(mad) + np.asarray(noise_scale) * math.log(1.0 / (2.0 * (1.0 - MAD_UPPER_LEVEL)))
    return np.maximum(math.sqrt(math.pi / 2) * upper, (hi - lo) / 1000.0)


def prepare(
    X: np.ndarray,
    y: np.ndarray,
    *,
    x_bounds: tuple[float, float],
    y_bounds: tuple[float, float],
    x_centre: str | float | np.ndarray = "public",
    y_centre: str | float = "dp",
    sigma_y: str | float = "dp",
    epsilon: float = 0.0,
    rng: np.random.Generator | None = None,
    release: bool = False,
) -> Preparation:
    """Choose centring and scale constants, public or DP-charged — never silently from private data.

    ``x_bounds``: one public ``(lo, hi)`` for every feature or ``(lo_vector, hi_vector)`` per feature (each
    feature is divided by half its range before the row scaling). ``x_centre``: ``"public"`` (midpoints of
    ``x_bounds``), ``None`` (no column
    centring), a public vector/number, or ``"dp"``. ``y_centre``: ``"public"``
    (midpoint of ``y_bounds``), a number, or ``"dp"``. ``sigma_y``:
    ``"public"`` (``(hi − lo)/6``), a number, or ``"dp"``. The DP items share
    ``epsilon`` equally (sequential composition); it must be > 0 iff some
    item is ``"dp"``. ``rng`` draws a preview; ``release=True`` uses OpenDP.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    d = X.shape[1]
    dp_items = [k for k, v in (("x_centre", x_centre), ("y_centre", y_centre), ("sigma_y", sigma_y))
                if isinstance(v, str) and v == "dp"]
    if dp_items:
        check_budget(epsilon, what=f"the preparation (DP estimates of {', '.join(dp_items)})")
    if not dp_items and epsilon:
        raise ValueError("no DP estimate requested, so the preparation budget must be 0")
    share = epsilon / len(dp_items) if dp_items else 0.0
    parts: dict[str, float] = {}
    sources: dict[str, str] = {}

    xlo, xhi = feature_bounds(x_bounds, d)
    if isinstance(x_centre, str) and x_centre == "dp":
        xc = dp_column_mean(X, (xlo, xhi), share, rng=rng, release=release)
        sources["x_centre"], parts["feature centre"] = "DP column means (charged)", share
    elif isinstance(x_centre, str) and x_centre == "public":
        xc = 0.5 * (xlo + xhi)
        sources["x_centre"] = (f"public midpoint {xc[0]:g} of the feature range" if np.all(xc == xc[0])
                               else "public midpoints of the per-feature ranges")
    elif x_centre is None:
        xc = np.zeros(d)
        sources["x_centre"] = "none (no column centring)"
    else:
        xc = np.broadcast_to(np.asarray(x_centre, dtype=float), (d,)).copy()
        sources["x_centre"] = "public (user value)"

    centre_sd = 0.0
    if isinstance(y_centre, str) and y_centre == "dp":
        yc = dp_mean(y, y_bounds, share, rng=rng, release=release)
        sources["y_centre"], parts["response centre"] = "DP mean (charged)", share
        centre_sd = dp_mean_noise(y_bounds, y.size, share).std
    elif isinstance(y_centre, str) and y_centre == "public":
        yc = 0.5 * (y_bounds[0] + y_bounds[1])
        sources["y_centre"] = "public midpoint of the response range"
    else:
        yc = float(y_centre)
        sources["y_centre"] = "public (user value)"

    if isinstance(sigma_y, str) and sigma_y == "dp":
        sy = dp_sigma(y, yc, y_bounds, share, rng=rng, release=release)
        sources["sigma_y"], parts["response scale"] = f"DP mean absolute deviation, its {MAD_UPPER_LEVEL:.0%} upper bound (charged)", share
    elif isinstance(sigma_y, str) and sigma_y == "public":
        sy = (y_bounds[1] - y_bounds[0]) / 6.0
        sources["sigma_y"] = "public: response range / 6"
    else:
        sy = float(sigma_y)
        sources["sigma_y"] = "public (user value)"

    y_bound = max(y_bounds[1] - yc, yc - y_bounds[0])
    return Preparation(np.asarray(xc, dtype=float), 0.5 * (xhi - xlo), float(yc), 1.0 / math.sqrt(d), float(sy), float(y_bound),
                       sources, parts, centre_sd)
