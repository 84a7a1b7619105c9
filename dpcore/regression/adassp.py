"""AdaSSP (Wang 2018, "Revisiting differentially private linear regression", Algorithm 2): noisy ``XᵀX`` and
``Xᵀy`` with a ridge ``λ`` chosen privately and adaptively from a noisy smallest eigenvalue.

Preparation (public constants and the record itself, free): the records are prepared as for robust private
LR (centred at public midpoints, divided by half their public ranges, scaled to unit L2 norm: every row
carries full energy, which public ranges much wider than the data would otherwise waste), a constant 1 is
appended (the intercept) and the row divided by ``√2``; so ``‖x̃‖2 ≤ 1 = B``. Responses are centred with
the (public or DP) centre of the preparation and clipped to ``|y| ≤ By = min(ωy σy, public worst case)``,
with the preparation's (public or DP) σy and the fixed public ``ωy = ADASSP_OMEGA_Y``.

Three Gaussian mechanisms at shares ``ADASSP_SPLIT`` of ``(ε, δ)`` (analytic calibration) compose to ``(ε, δ)``;
sensitivities under replace-one (:func:`adassp_sensitivities`, proofs there). The ridge, the PSD repair
and the solve are post-processing. As ε → ∞ every σ → 0, the noisy ``λ_min`` is exact, the ridge
``max(0, σ·c − λ̃_min)`` reaches 0 and the fit is ordinary least squares on the prepared data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcore.core.mechanisms import Noise, gaussian_noise
from dpcore.regression.linalg import triu_pack, triu_unpack

ADASSP = "AdaSSP"
#: failure probability of the ridge's high-probability bound (the paper's ρ)
FAILURE_PROBABILITY = 0.05


def adassp_features(Xn: np.ndarray) -> np.ndarray:
    """Rows prepared by :meth:`Preparation.transform` (norm ≤ 1) with an intercept column, over ``√2``: norm ≤ 1."""
    Xn = np.asarray(Xn, dtype=float)
    return np.concatenate([Xn, np.ones(Xn.shape[:-1] + (1,))], axis=-1) / math.sqrt(2.0)


def adassp_sensitivities(by: float) -> tuple[float, float, float]:
    """L2 sensitivities of ``(λ_min(XᵀX), upper triangle of XᵀX, Xᵀy)`` under replace-one, rows ``‖x‖ ≤ 1``, ``|y| ≤ By``.

    * ``λ_min``: replacing ``x`` by ``x'`` adds ``D = x'x'ᵀ − xxᵀ``, whose eigenvalues lie in ``[−‖x‖², ‖x'‖²]``;
      by Weyl's inequality ``λ_min`` moves by at most ``max(‖x‖², ‖x'‖²) ≤ 1``.
    * ``XᵀX``: ``‖D‖_F² = ‖x'‖⁴ + ‖x‖⁴ − 2(xᵀx')² ≤ 2``, and the upper triangle (diagonal included) has at most
      the Frobenius norm (each off-diagonal pair counts once instead of twice): ``Δ2 ≤ √2``, attained by two
      orthogonal unit rows.
    * ``Xᵀy``: ``‖x'y' − xy‖ ≤ ‖x'‖|y'| + ‖x‖|y| ≤ 2By``, attained by ``x' = x`` and ``y' = −y = By``.
    """
    return 1.0, math.sqrt(2.0), 2.0 * float(by)


@dataclass(frozen=True)
class AdaSSPNoise:
    """The three calibrated Gaussian mechanisms of one AdaSSP release."""

    lam_min: Noise
    xx: Noise
    xy: Noise

    @property
    def epsilon(self) -> float:
        return self.lam_min.epsilon + self.xx.epsilon + self.xy.epsilon

    @property
    def delta(self) -> float:
        return self.lam_min.delta + self.xx.delta + self.xy.delta

    def with_scale_factor(self, factor: float) -> "AdaSSPNoise":
        return AdaSSPNoise(*(m.with_scale_factor(factor) for m in (self.lam_min, self.xx, self.xy)))

    def describe(self) -> list[str]:
        return [f"λ_min(XᵀX): {self.lam_min.describe()}", f"XᵀX: {self.xx.describe()}", f"Xᵀy: {self.xy.describe()}"]


#: ``By = ωy σy`` (capped at the public worst case around the centre) with ``ωy = 2`` up to ε = 10. Clipping the
#: response at 2 σy instead of the public worst case cut the noise on Xᵀy by ~3× where the public range is wide: on
#: GDSC (d = 10, 700 private) median held-out R² at ε = 1 / 10 rose from −0.50 / −0.09 to −0.06 / −0.01; on diabetes
#: it was unchanged at ε = 10 (0.31 / 0.30) and higher at ε = 5 (0.18 → 0.23) (docs/regression.md).
ADASSP_OMEGA_Y = 2.0
#: above this ε the clipping relaxes (:func:`adassp_omega_y`)
ADASSP_OMEGA_EPSILON = 10.0


def adassp_omega_y(epsilon):
    """``ωy(ε) = 2 · max(1, √(ε/10))``: a public function of ε (array or scalar).

    Clipping adds a bias that no ε removes; the noise on ``Xᵀy`` scales as ``By/ε``. Growing ``By`` as ``√ε``
    beyond ε = 10 shrinks both (noise as ``1/√ε``), so that as ε → ∞ nothing within the public range is clipped
    and the fit reaches ordinary least squares (``tests/regression/test_regression_adassp.py``).
    """
    return ADASSP_OMEGA_Y * np.sqrt(np.maximum(1.0, np.asarray(epsilon, dtype=float) / ADASSP_OMEGA_EPSILON))


def adassp_delta(n: int) -> float:
    """The page's δ for ``n`` private records, ``1/n²``: far below the ``1/n`` at which releasing one whole
    record would be allowed, and a public function of the public ``n``."""
    return 1.0 / float(n) ** 2


#: Shares of (ε, δ) for (λ_min, XᵀX, Xᵀy). The paper gives each a third; λ_min only sets the ridge, and
#: giving it 10 % raised the median held-out R² on diabetes at ε = 10 from 0.26 to 0.31 (docs/regression.md).
ADASSP_SPLIT = (0.1, 0.45, 0.45)


def adassp_noise(by: float, epsilon: float, delta: float, split=None) -> AdaSSPNoise:
    """Analytic Gaussian mechanisms at ``(p_i ε, p_i δ)`` for the sensitivities of :func:`adassp_sensitivities`;
    by basic composition the three are ``(ε, δ)``-DP."""
    split = ADASSP_SPLIT if split is None else split
    s_min, s_xx, s_xy = adassp_sensitivities(by)
    return AdaSSPNoise(*(gaussian_noise(s, p * epsilon, p * delta) for s, p in zip((s_min, s_xx, s_xy), split)))


@dataclass(frozen=True)
class AdaSSPFit:
    """``coef`` (..., d + 1; the last entry is the intercept's), the ridge ``lam`` used, the noisy statistics."""

    coef: np.ndarray
    lam: np.ndarray
    noisy_xx: np.ndarray
    noisy_xy: np.ndarray
    noisy_lam_min: np.ndarray
    noise: AdaSSPNoise | None
    delta: float

    def predict(self, Xa: np.ndarray) -> np.ndarray:
        """Predictions (on the centred response's scale) for rows prepared by :func:`adassp_features`."""
        return np.einsum("...ti,...i->...t", Xa, self.coef)

    @property
    def feature_coef(self) -> np.ndarray:
        """Coefficients on rows prepared by :meth:`Preparation.transform` (the ``√2`` of :func:`adassp_features` undone)."""
        return self.coef[..., :-1] / math.sqrt(2.0)

    @property
    def intercept(self) -> np.ndarray:
        """The intercept on the centred response's scale (add the preparation's centre)."""
        return self.coef[..., -1] / math.sqrt(2.0)

    def noise_sd(self, draws: int = 400, seed: int = 0) -> np.ndarray:
        """Standard deviation of each entry of ``coef`` that the DP noise alone causes, given the release.

        The released statistics are noised again at the same (public) scales with a fixed seed and solved again;
        the spread of those solutions around each other estimates how far the noise moved this fit. It reads only
        the released statistics and public scales: post-processing, free (its seeded NumPy draws are not a
        release). ``None`` noise (ε = ∞) has no noise: zeros.
        """
        if self.noise is None:
            return np.zeros_like(self.coef)
        rng = np.random.default_rng(seed)
        nz, d1 = self.noise, self.coef.shape[-1]
        xx = triu_unpack(nz.xx.sample(triu_pack(self.noisy_xx), rng=rng, draws=draws), d1)
        xy = nz.xy.sample(self.noisy_xy, rng=rng, draws=draws)
        lam = nz.lam_min.sample(self.noisy_lam_min, rng=rng, draws=draws)
        return solve_adassp(xx, xy, lam, nz, self.delta).coef.std(axis=0)


def solve_adassp(xx: np.ndarray, xy: np.ndarray, lam_min: np.ndarray, noise: AdaSSPNoise | None,
                 delta: float) -> AdaSSPFit:
    """Post-processing of the three noisy releases (batched): the ridge and the solve."""
    d = xx.shape[-1]
    w, v = np.linalg.eigh(xx)
    w = np.maximum(w, 0.0)  # PSD repair
    if noise is None:
        lam = np.zeros(xx.shape[:-2])
    else:
        # the paper's λ̃_min: the noisy value shifted down by a high-probability bound on the noise, floored at 0,
        # and λ = max(0, σ √(d log(2d²/ρ)) − λ̃_min): enough ridge to dominate the noise in XᵀX, less when the
        # data already have a large smallest eigenvalue
        shift = noise.lam_min.scale * math.sqrt(2.0 * math.log(3.0 / delta))
        lam_tilde = np.maximum(lam_min - shift, 0.0)
        lam = np.maximum(noise.xx.scale * math.sqrt(d * math.log(2.0 * d * d / FAILURE_PROBABILITY)) - lam_tilde, 0.0)
    t = np.einsum("...ji,...j->...i", v, xy)
    prec = w + np.asarray(lam)[..., None]
    # a zero eigenvalue with no ridge (ε = ∞, rank-deficient data): the minimum-norm solution
    coef_t = np.divide(t, prec, out=np.zeros_like(t), where=prec > 1e-12)
    return AdaSSPFit(np.einsum("...ij,...j->...i", v, coef_t), np.asarray(lam), xx, xy, np.asarray(lam_min), noise,
                     float(delta))


def adassp(Xa: np.ndarray, y: np.ndarray, *, epsilon: float, delta: float, by: float,
           rng: np.random.Generator | None = None, draws: int | None = None,
           public: tuple[np.ndarray, np.ndarray] | None = None) -> AdaSSPFit:
    """AdaSSP on prepared rows ``Xa`` (:func:`adassp_features`) and centred ``y`` (clipped here at ``±by``).

    ``rng`` given → seeded preview draws (``draws`` on a leading axis); ``rng=None`` → one OpenDP release;
    ``epsilon=math.inf`` → ordinary least squares, no noise. ``public=(Xa0, y0)``: records declared public, whose
    ``XᵀX`` and ``Xᵀy`` (clipped the same way) are added after the noise (not protected); ``λ_min`` is the private
    rows' (adding public rows only raises the true smallest eigenvalue, so the ridge stays sufficient).
    """
    Xa = np.asarray(Xa, dtype=float)
    yc = np.clip(np.asarray(y, dtype=float), -by, by)
    xx = np.swapaxes(Xa, -1, -2) @ Xa
    xy = np.einsum("...ni,...n->...i", Xa, yc)
    lam_min = np.linalg.eigvalsh(xx)[..., 0]
    xx0 = xy0 = 0.0
    if public is not None and len(public[1]):
        Xa0, y0 = np.asarray(public[0], dtype=float), np.clip(np.asarray(public[1], dtype=float), -by, by)
        xx0, xy0 = Xa0.T @ Xa0, Xa0.T @ y0
    if math.isinf(epsilon):
        return solve_adassp(xx + xx0, xy + xy0, lam_min, None, delta)
    noise = adassp_noise(by, epsilon, delta)
    d = Xa.shape[-1]
    if rng is None:
        n_lam, n_xx, n_xy = noise.lam_min.release(lam_min), noise.xx.release(triu_pack(xx)), noise.xy.release(xy)
    else:
        n_lam = noise.lam_min.sample(lam_min, rng=rng, draws=draws)
        n_xx = noise.xx.sample(triu_pack(xx), rng=rng, draws=draws)
        n_xy = noise.xy.sample(xy, rng=rng, draws=draws)
    return solve_adassp(triu_unpack(n_xx, d) + xx0, n_xy + xy0, n_lam, noise, delta)
