"""Stage 2 — the mechanism: Laplace noise on the three statistics with a budget split p1:p2:p3."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from dpcore.core.mechanisms import Noise, laplace_noise
from dpcore.regression.linalg import DEFAULT_SPLIT, _split, triu_pack, triu_unpack
from dpcore.regression.statistic import Stats, sensitivities


@dataclass(frozen=True)
class StatNoise:
    """The three calibrated Laplace mechanisms of one release."""

    xx: Noise
    xy: Noise
    yy: Noise
    d: int

    @property
    def epsilon(self) -> float:
        return self.xx.epsilon + self.xy.epsilon + self.yy.epsilon

    def with_scale_factor(self, factor: float) -> "StatNoise":
        return StatNoise(self.xx.with_scale_factor(factor), self.xy.with_scale_factor(factor),
                         self.yy.with_scale_factor(factor), self.d)

    def sample(self, s: Stats, *, rng: np.random.Generator, draws: int | None = None) -> Stats:
        """Preview: ``draws`` noisy copies of ``s`` (leading axis R), ``nxx`` noised on its upper triangle and mirrored."""
        xx = triu_unpack(self.xx.sample(triu_pack(s.nxx), rng=rng, draws=draws), self.d)
        return Stats(xx, self.xy.sample(s.nxy, rng=rng, draws=draws), self.yy.sample(s.nyy, rng=rng, draws=draws), s.n)

    def release(self, s: Stats) -> Stats:
        """One OpenDP draw of every statistic (the only noise allowed in exported values)."""
        xx = triu_unpack(self.xx.release(triu_pack(s.nxx)), self.d)
        return Stats(xx, self.xy.release(s.nxy), self.yy.release(np.asarray(s.nyy, dtype=float)), s.n)

    def describe(self) -> list[str]:
        return [f"nxx: {self.xx.describe()}", f"nxy: {self.xy.describe()}", f"nyy: {self.yy.describe()}"]


def stat_noise(d: int, bx: float, by: float, epsilon: float, split: Sequence[float] = DEFAULT_SPLIT) -> StatNoise:
    """Laplace mechanisms with budgets ``p_i ε`` and scales ``Δ_i/(p_i ε)`` (:func:`sensitivities`).

    By sequential composition the three releases together are ε-DP.
    """
    p1, p2, p3 = _split(split)
    s1, s2, s3 = sensitivities(d, bx, by)
    return StatNoise(laplace_noise(s1, p1 * epsilon), laplace_noise(s2, p2 * epsilon),
                     laplace_noise(s3, p3 * epsilon), d)
