"""The releases as ReleaseBundles (data only): robust private LR (:func:`release`, the paper's method) and AdaSSP
(:func:`release_adassp`, the page's default), each from OpenDP noise, with a coefficients table that has an
intercept row and a standard deviation per coefficient (post-processing of the released statistics)."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from dpcore.regression.adassp import (
    ADASSP, ADASSP_SPLIT, adassp, adassp_features, adassp_omega_y,
)
from dpcore.regression.estimator import robust_private_lr
from dpcore.regression.linalg import DEFAULT_SPLIT, METHOD, _split
from dpcore.regression.preparation import Preparation
from dpcore.regression.public_rows import PublicRows
from dpcore.reporting.release import ReleaseBundle

INTERCEPT = "(intercept)"


def _names(feature_names: Sequence[str] | None, d: int) -> list[str]:
    return list(feature_names) if feature_names is not None else [f"x{j + 1}" for j in range(d)]


def _preparation_params(prep: Preparation) -> tuple[dict, dict]:
    """The preparation's constants split into public inputs and values derived from its DP outputs."""
    public = {"feature centre": prep.x_centre.tolist(), "feature scale (half the public range)": prep.x_scale.tolist(),
              "σx": prep.sigma_x, "preparation": dict(prep.sources)}
    derived: dict = {}
    for key, label, value in (("y_centre", "response centre", prep.y_centre), ("sigma_y", "σy", prep.sigma_y)):
        (derived if prep.sources[key].startswith("DP") else public)[label] = value
    return public, derived


def _coefficients(names: list[str], coef: np.ndarray, sd: np.ndarray, intercept: float, intercept_sd: float,
                  sd_label: str) -> pd.DataFrame:
    return pd.DataFrame({"feature": names + [INTERCEPT], "coefficient": np.append(coef, intercept),
                         sd_label: np.append(sd, intercept_sd)})


def _scope(public: PublicRows, n_private: int, unit: str) -> tuple[str, tuple[str, ...], dict]:
    """The bundle's unit, its scope notes and the public-rows parameters."""
    params = {"n_private": n_private, "n_public_added_without_noise": len(public),
              "public rows (not protected)": list(public.ids), "public rows basis": public.basis or "none"}
    return (f"private {unit}" if len(public) else unit), public.notes(n_private, unit), params


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
    unit: str = "cell line",
    source_notes: Sequence[str] = (),
):
    """One real release of robust private LR: OpenDP-noised ``nxx, nxy, nyy`` and the posterior mean.

    ``X, y`` are the raw private records; ``prep`` must itself have been
    released (DP parts) or be public — its ε parts are added to the bundle's
    total. ``public`` is required: the :class:`PublicRows` added without noise
    (``None`` or ``PublicRows.none(d)`` for none). They are listed in the notes,
    and the guarantee — stated for one *private* ``unit`` — covers only ``X, y``:
    a public row moves the release with no noise at all, so its statement of
    being public is what the guarantee rests on. ``unit`` names what one record is; ``source_notes`` (e.g. the public
    rules behind a bundled data set's feature order and response range) are added to the notes. Returns a
    :class:`~dpcore.reporting.release.ReleaseBundle`.
    """
    p = _split(split)
    Xp, yp = prep.transform(X, y)
    d = Xp.shape[1]
    bx, by = omega_x * prep.sigma_x, omega_y * prep.sigma_y
    public = PublicRows.none(d) if public is None else public
    pub = prep.transform(public.X, public.y) if len(public) else None
    fit = robust_private_lr(Xp, yp, epsilon=epsilon, bx=bx, by=by, split=p, priors=priors, rng=None, public=pub)
    names = _names(feature_names, d)
    s = fit.noisy_stats
    nxx = pd.DataFrame(s.nxx, columns=names)
    nxx.insert(0, "feature", names)
    parts = {f"nxx ({p[0]:.0%})": p[0] * epsilon, f"nxy ({p[1]:.0%})": p[1] * epsilon,
             f"nyy ({p[2]:.0%})": p[2] * epsilon}
    parts.update(prep.parts)
    total = round(float(math.fsum(parts.values())), 12)
    n_private = int(np.asarray(X).shape[0])
    bundle_unit, scope_notes, params = _scope(public, n_private, unit)
    prep_public, derived = _preparation_params(prep)
    params.update({"d": d, "omega_x": omega_x, "omega_y": omega_y, "Bx": bx, "split (nxx, nxy, nyy)": list(p),
                   "priors": "Gamma(2, 2) on λ and λ0, mean-field VB, ridge 2b (b: the noise's scale on nxx) added to the "
                             "repaired nxx" if priors else "fixed λ = λ0 = 1, no ridge (the paper's model)",
                   **prep_public, "threshold tuning": dict(tuning or {"source": "user-chosen ω (public)"})})
    (derived if "σy" in derived else params)["By"] = by  # ωy σy: derived when σy is a DP estimate
    notes = scope_notes + (
        "Statistics are computed after centring with the listed centre, scaling each record to unit L2 norm "
        "and clipping features at ±Bx and responses at ±By.",
        "nxx was released as its upper triangle (d(d+1)/2 values) and mirrored; the PSD repair"
        + (", the ridge (from the public noise scale)" if priors else "") + " and the posterior are post-processing "
        "of the noisy statistics.",
        "Coefficients apply to records prepared as above (centred, divided by half their public range, scaled to "
        + ("unit length, features clipped at ±Bx)" if priors else
           "unit length; features not clipped, as in the authors' code, which ranks unclipped test rows)")
        + "; the intercept row is the response centre. Standard deviations are "
        "the posterior's given the noisy statistics (post-processing); the intercept's is that of the DP centre's "
        "noise (0 for a public centre).",
    ) + tuple(source_notes)
    tables = {
        "coefficients": _coefficients(names, fit.coef, fit.sd, prep.y_centre, prep.centre_sd, "posterior_sd"),
        "noisy_nxx": nxx,
        "noisy_nxy": pd.DataFrame({"feature": names, "nxy": s.nxy}),
        "noisy_nyy": pd.DataFrame({"statistic": ["nyy", "n"], "value": [float(s.nyy), float(s.n)]}),
    }
    mechs = tuple(fit.noise.describe()) + tuple(f"{k}: Laplace (see public parameters)" for k in prep.parts)
    return ReleaseBundle(method=METHOD, dataset=dataset, fingerprint=fingerprint, epsilon=total, delta=0.0,
                         mechanisms=mechs, public_params=params, derived_params=derived, tables=tables,
                         unit=bundle_unit, parts=parts, notes=notes)


def release_adassp(
    X: np.ndarray,
    y: np.ndarray,
    *,
    prep: Preparation,
    epsilon: float,
    delta: float,
    public: PublicRows | None,
    dataset: str = "data",
    fingerprint: str = "",
    feature_names: Sequence[str] | None = None,
    unit: str = "cell line",
    source_notes: Sequence[str] = (),
):
    """One real AdaSSP release (Wang 2018): OpenDP Gaussian noise on ``λ_min(XᵀX)``, ``XᵀX`` and ``Xᵀy`` at
    ``ADASSP_SPLIT`` of ``(epsilon, delta)`` (sensitivities and proofs in
    :func:`~dpcore.regression.adassp.adassp_sensitivities`), the ridge and the solve as post-processing.

    The preparation ``prep`` (released or public) adds its ε parts to the total; the bundle is
    ``(ε_prep + epsilon, delta)``-DP by basic composition. ``By = min(ωy(ε) σy, public worst case)``
    (:func:`~dpcore.regression.adassp.adassp_omega_y`). ``public``, ``unit`` and ``source_notes`` as in :func:`release`.

    The noise is OpenDP's (not seeded), so the example prints only what does not depend on it:

    >>> import numpy as np
    >>> from dpcore import regression as R
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(0, 1, size=(2000, 3))
    >>> y = 2 * X[:, 0] - X[:, 1] + rng.normal(0, 0.3, 2000)
    >>> prep = R.prepare(X, y, x_bounds=(0.0, 1.0), y_bounds=(-2.0, 3.0), y_centre="public", sigma_y="public")
    >>> bundle = R.release_adassp(X, y, prep=prep, epsilon=1.0, delta=1e-6, public=None)
    >>> bundle.method, bundle.epsilon, bundle.delta
    ('AdaSSP', 1.0, 1e-06)
    >>> list(bundle.tables["coefficients"].feature)
    ['x1', 'x2', 'x3', '(intercept)']
    """
    Xp, yp = prep.transform(X, y)
    d = Xp.shape[1]
    by = float(min(adassp_omega_y(epsilon) * prep.sigma_y, prep.y_bound))
    public = PublicRows.none(d) if public is None else public
    pub = ((adassp_features(prep.transform(public.X)), np.asarray(public.y, dtype=float) - prep.y_centre)
           if len(public) else None)
    fit = adassp(adassp_features(Xp), yp, epsilon=epsilon, delta=delta, by=by, rng=None, public=pub)
    names = _names(feature_names, d)
    sd = fit.noise_sd() / math.sqrt(2.0)
    parts = {f"{k} ({share:.0%})": share * epsilon for k, share in zip(("λ_min", "XᵀX", "Xᵀy"), ADASSP_SPLIT)}
    parts.update(prep.parts)
    total = round(float(math.fsum(parts.values())), 12)
    n_private = int(np.asarray(X).shape[0])
    bundle_unit, scope_notes, params = _scope(public, n_private, unit)
    prep_public, derived = _preparation_params(prep)
    omega_y = float(adassp_omega_y(epsilon))
    params.update({"d": d, "split (λ_min, XᵀX, Xᵀy)": list(ADASSP_SPLIT), "omega_y": omega_y,
                   "By rule": "min(ωy σy, public worst case |y − centre|), ωy = 2·max(1, √(ε/10))",
                   "ridge rule": "λ = max(0, σ_XX √(d log(2d²/0.05)) − max(0, λ̃_min − shift))",
                   **prep_public})
    derived.update({"By": by, "ridge λ (from the noisy λ_min)": float(fit.lam)})
    xx_names = names + [INTERCEPT]
    nxx = pd.DataFrame(fit.noisy_xx, columns=xx_names)
    nxx.insert(0, "feature", xx_names)
    notes = scope_notes + (
        "Each record is centred, divided by half its public range, scaled to unit L2 norm, given a constant 1 (the "
        "intercept) and divided by √2; responses are centred with the listed centre and clipped at ±By.",
        "XᵀX was released as its upper triangle and mirrored; the ridge λ (from the noisy λ_min), the PSD repair and "
        "the solve are post-processing.",
        "Coefficients apply to records prepared as above (before the constant 1 and the √2); the intercept row adds "
        "the response centre. Standard deviations are the spread the DP noise alone causes (the released statistics "
        "noised again at the same public scales and solved again: post-processing), not sampling error; the "
        "intercept's includes the DP centre's noise.",
    ) + tuple(source_notes)
    intercept_sd = math.hypot(float(sd[-1]), prep.centre_sd)
    tables = {
        "coefficients": _coefficients(names, fit.feature_coef, sd[:-1], float(fit.intercept) + prep.y_centre,
                                      intercept_sd, "noise_sd"),
        "noisy_xtx": nxx,
        "noisy_xty": pd.DataFrame({"feature": xx_names, "xty": fit.noisy_xy}),
        "noisy_lambda_min": pd.DataFrame({"statistic": ["λ_min(XᵀX)", "n"],
                                          "value": [float(fit.noisy_lam_min), float(n_private)]}),
    }
    mechs = tuple(fit.noise.describe()) + tuple(f"{k}: Laplace (see public parameters)" for k in prep.parts)
    return ReleaseBundle(method=ADASSP, dataset=dataset, fingerprint=fingerprint, epsilon=total, delta=float(delta),
                         mechanisms=mechs, public_params=params, derived_params=derived, tables=tables,
                         unit=bundle_unit, parts=parts, notes=notes)
