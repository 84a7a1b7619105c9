"""Neighbouring pairs of additive releases: the data the attacker's view and each method's attacker pair share.

A :class:`NeighbourPair` is two neighbouring data sets ``A`` and ``B`` seen through a release whose noise has a
known density: one :class:`Block` per noised statistic, holding its mechanism and its exact value on ``A`` and on
``B``. Each method builds its own pair from a data set (``dpcore/<method>/attack_pair.py``); the attacker's view
(:mod:`dpcore.reporting.attack`) reads any pair without knowing which method made it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from dpcore.core.mechanisms import Noise


@dataclass(frozen=True)
class Block:
    """One noised statistic of a release: its mechanism and its exact value on A and on B (flattened)."""

    noise: Noise
    a: np.ndarray
    b: np.ndarray

    def __post_init__(self):
        if self.noise.kind not in ("laplace", "discrete_laplace"):
            raise ValueError("attack pairs handle Laplace and discrete Laplace statistics")
        object.__setattr__(self, "a", np.ravel(self.a))
        object.__setattr__(self, "b", np.ravel(self.b))

    def scaled(self, factor: float) -> Block:
        return Block(self.noise.with_scale_factor(factor), self.a, self.b)


@dataclass(frozen=True)
class NeighbourPair:
    """Two neighbouring data sets seen through an additive release (known density).

    ``reveal`` says in words what the attacker reads off the release *without*
    noise; ``curves`` optionally holds the two non-private curves behind it
    (``x``, ``A``, ``B``, ``x_label``, ``y_label``) for a figure.
    """

    method: str
    name: str
    neighbours: str
    blocks: tuple[Block, ...]
    reveal: str
    curves: dict = field(default_factory=dict)

    @property
    def epsilon(self) -> float:
        return math.fsum(b.noise.epsilon for b in self.blocks)

    def with_scale_factor(self, factor: float) -> NeighbourPair:
        """The same pair with every noise scale multiplied (``0.5`` plants the "noise halved" bug)."""
        return replace(self, blocks=tuple(b.scaled(factor) for b in self.blocks))
