"""The release: OpenDP-noised ``nxx, nxy, nyy`` and the posterior mean, as a ReleaseBundle (data only)."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from dpcore.regression.estimator import robust_private_lr
from dpcore.regression.linalg import DEFAULT_SPLIT, METHOD, _split
from dpcore.regression.preparation import Preparation
from dpcore.regression.public_rows import PublicRows
from dpcore.release import ReleaseBundle


def release(
    X: np.ndarray,
    y: np.ndarray,
    *,
    prep: Preparation,
    epsilon: float,
    omega_x: float,
    omega_y: float,
    split: Sequence[float] = DEFAULT_SPLIT,
    priors: bool = True,
    public: PublicRows | None,
    dataset: str = "data",
    fingerprint: str = "",
    feature_names: Sequence[str] | None = None,
    tuning: Mapping[str, object] | None = None,
):
    """One real release: OpenDP-noised ``nxx, nxy, nyy`` and the posterior mean (post-processing).

    ``X, y`` are the raw private records; ``prep`` must itself have been
    released (DP parts) or be public — its ε parts are added to the bundle's
    total. ``public`` is required: the :class:`PublicRows` added without noise
    (``None`` or ``PublicRows.none(d)`` for none). They are listed in the notes,
    and the guarantee — stated for one *private* cell line — covers only ``X, y``:
    a public row moves the release with no noise at all, so its statement of
    being public is what the guarantee rests on. Returns a
    :class:`~dpcore.release.ReleaseBundle`.
    """
    p = _split(split)
    Xp, yp = prep.transform(X, y)
    d = Xp.shape[1]
    bx, by = omega_x * prep.sigma_x, omega_y * prep.sigma_y
    public = PublicRows.none(d) if public is None else public
    pub = prep.transform(public.X, public.y) if len(public) else None
    fit = robust_private_lr(Xp, yp, epsilon=epsilon, bx=bx, by=by, split=p, priors=priors, rng=None, public=pub)
    names = list(feature_names) if feature_names is not None else [f"x{j + 1}" for j in range(d)]
    s = fit.noisy_stats
    nxx = pd.DataFrame(s.nxx, columns=names)
    nxx.insert(0, "feature", names)
    parts = {f"nxx ({p[0]:.0%})": p[0] * epsilon, f"nxy ({p[1]:.0%})": p[1] * epsilon,
             f"nyy ({p[2]:.0%})": p[2] * epsilon}
    parts.update(prep.parts)
    total = round(float(math.fsum(parts.values())), 12)
    params = {
        "n_private": int(np.asarray(X).shape[0]),
        "n_public_added_without_noise": len(public),
        "public rows (not protected)": list(public.ids),
        "public rows basis": public.basis or "none",
        "d": d,
        "omega_x": omega_x, "omega_y": omega_y, "Bx": bx, "By": by,
        "split (nxx, nxy, nyy)": list(p),
        "priors": "Gamma(2, 2) on λ and λ0, mean-field VB" if priors else "fixed λ = λ0 = 1",
        "feature centre": prep.x_centre.tolist(), "response centre": prep.y_centre,
        "σx": prep.sigma_x, "σy": prep.sigma_y,
        "preparation": dict(prep.sources),
        "threshold tuning": dict(tuning or {"source": "user-chosen ω (public)"}),
    }
    unit = "private cell line" if len(public) else "cell line"
    notes = public.notes(int(np.asarray(X).shape[0]), "cell line") + (
        "Statistics are computed after centring with the listed centre, scaling each record to unit L2 norm "
        "and clipping features at ±Bx and responses at ±By.",
        "nxx was released as its upper triangle (d(d+1)/2 values) and mirrored; the PSD repair and the posterior "
        "are post-processing of the noisy statistics.",
    )
    tables = {
        "coefficients": pd.DataFrame({"feature": names, "posterior_mean": fit.coef}),
        "noisy_nxx": nxx,
        "noisy_nxy": pd.DataFrame({"feature": names, "nxy": s.nxy}),
        "noisy_nyy": pd.DataFrame({"statistic": ["nyy", "n"], "value": [float(s.nyy), float(s.n)]}),
    }
    mechs = tuple(fit.noise.describe()) + tuple(f"{k}: Laplace (see public parameters)" for k in prep.parts)
    return ReleaseBundle(method=METHOD, dataset=dataset, fingerprint=fingerprint, epsilon=total, delta=0.0,
                         mechanisms=mechs, public_params=params, tables=tables, unit=unit,
                         parts=parts, notes=notes)
