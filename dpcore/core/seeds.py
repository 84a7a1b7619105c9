"""Named seed streams: a page's preview draws each use of randomness from its own offset of the page's seed.

Naming the offsets once (``SeedStreams(preview=0, sweep=1)``) keeps two uses from sharing draws and lets the
notebook a page hands out draw the same numbers: the generator reads the same names (:meth:`SeedStreams.code`).
These seeds only drive seeded previews; a release draws its noise from OpenDP, never from them.
"""

from __future__ import annotations

import numpy as np


class SeedStreams(dict):
    """Offsets by name; calling it gives a stream's seed (``streams(seed, "sweep")``), an unknown name a KeyError."""

    def __call__(self, seed: int, name: str) -> int:
        return int(seed) + self[name]

    def rng(self, seed: int, name: str) -> np.random.Generator:
        """A generator on stream ``name``."""
        return np.random.default_rng(self(seed, name))

    def code(self, name: str, seed: str = "SEED") -> str:
        """Stream ``name``'s seed as notebook code: ``SEED + 7``, or ``SEED`` for offset 0."""
        return f"{seed} + {self[name]}" if self[name] else seed

    def rng_code(self, name: str, seed: str = "SEED") -> str:
        """A generator on stream ``name`` as notebook code: ``np.random.default_rng(SEED + 7)``."""
        return f"np.random.default_rng({self.code(name, seed)})"
