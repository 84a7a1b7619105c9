"""Public rows added without noise (the paper's k "public" cell lines), stated as such in every release."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

#: Seed of the fixed public rule for bundled and synthetic data (the paper's year): which records are public
#: is decided from their identifiers alone, never from data values.
PUBLIC_RULE_SEED = 2018


def fixed_public_ids(universe: Sequence, k: int, seed: int = PUBLIC_RULE_SEED) -> np.ndarray:
    """The first ``k`` identifiers of a seeded permutation of the sorted ``universe`` (a public rule).

    The choice depends on the identifiers, ``k`` and the seed only — not on any
    response or feature — so which records are public reveals nothing about the
    private ones. For GDSC the universe is every bundled cell line, whatever the
    drug, so a cell line is public for all drugs or for none.
    """
    ids = np.sort(np.asarray(universe))
    if not 0 <= k <= ids.size:
        raise ValueError(f"k = {k} public records requested from a universe of {ids.size}")
    return ids[np.random.default_rng(seed).permutation(ids.size)[:k]]


@dataclass(frozen=True)
class PublicRows:
    """Records whose data are public by someone's statement; they enter a release *without noise*.

    ``ids`` name them in the release notes (upload row numbers, COSMIC IDs);
    ``basis`` says why they are public (the user's marking column, or the fixed
    rule for bundled data). The guarantee of a release covers only the other
    (private) records and rests on this statement.
    """

    X: np.ndarray
    y: np.ndarray
    ids: tuple[str, ...]
    basis: str

    def __post_init__(self):
        X, y = np.asarray(self.X, dtype=float), np.asarray(self.y, dtype=float)
        if X.ndim != 2 or y.shape != (X.shape[0],) or len(self.ids) != X.shape[0]:
            raise ValueError(f"public rows: X {X.shape}, y {y.shape} and {len(self.ids)} ids do not match")
        if X.shape[0] and not self.basis.strip():
            raise ValueError("public rows need a basis: say why their data are public")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)

    @classmethod
    def none(cls, d: int) -> "PublicRows":
        """No public rows (the default for uploads): every record used is private."""
        return cls(np.zeros((0, d)), np.zeros(0), (), "")

    def __len__(self) -> int:
        return int(self.X.shape[0])

    def notes(self, n_private: int, unit: str) -> tuple[str, ...]:
        """What the release notes say about the scope of the guarantee."""
        if not len(self):
            return (f"No public records were added: the statistics are computed from the {n_private} private "
                    f"{unit}s only, all of them protected.",)
        return (
            f"Scope of the guarantee: it covers only the {n_private} private {unit}s. {len(self)} {unit}s treated "
            f"as public ({self.basis}) were added to the statistics without noise; they are NOT protected, and the "
            "guarantee for the others rests on the statement that these records are public.",
            f"Public {unit}s (not protected): " + ", ".join(self.ids) + ".",
        )
