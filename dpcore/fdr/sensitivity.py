"""Stage 1 — the statistic: the stream of floored log p-values, and its sensitivity η (with the proof).

Every PAPRIKA release answers threshold queries on ``log max(p_t, μ)``. Sensitivity (proof): on
neighbouring data sets (one person's record replaced) each p-value moves multiplicatively,
``|log p − log p'| ≤ η`` for p above the floor ``μ``; flooring is 1-Lipschitz in ``log``, so
``log max(p, μ)`` has additive sensitivity η. Every test runs on the same records, so one person can
move *every* log p of the stream at once — the mechanism (:mod:`dpcore.fdr.calibration`) allows for it.

Which η a release may use: :func:`binomial_sensitivity` is proven for the exact one-sided binomial
tail p-value (:func:`eta_binomial_exact`: replacing one of the n Bernoulli records changes ``S = Σx``
by at most 1, so ``|log p − log p'| ≤ max_k |log P(S ≥ k) − log P(S ≥ k+1)|`` over the k whose
p-values are ≥ μ; below the floor both are floored and the difference shrinks);
:func:`stated_sensitivity` is the user's statement (a release says it rests on it); the paper's
√(ln n / n) (:func:`paper_sensitivity`) is not a bound for any test here and is refused for releases.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
import pandas as pd
from scipy import special, stats

from dpcore.core.validation import InputError, coded_column, distinct_columns, numeric_column, require_columns

GammaKind = Literal["power", "constant"]
Rule = Literal["paper", "code"]

#: Smallest p-value used in ``log p`` (p = 0 would give −∞). It only guards
#: against p = 0; see :func:`log_pvalues`.
P_FLOOR = 1e-300

METHODS = ("SAFFRON", "SAFFRON AI", "LORD++", "alpha-investing", "PAPRIKA", "PAPRIKA AI")
PRIVATE_METHODS = ("PAPRIKA", "PAPRIKA AI")


def eta_paper(n: int) -> float:
    """The paper's multiplicative sensitivity for n observations per hypothesis: ``sqrt(ln n / n)``."""
    if n < 2:
        raise ValueError("n must be at least 2")
    return math.sqrt(math.log(n) / n)


@lru_cache(maxsize=16)
def _binomial_tail_table(n: int) -> np.ndarray:
    """``P(Bin(n, ½) ≥ k)`` for k = 0..n (exact; index k)."""
    return stats.binom.sf(np.arange(n + 1) - 1, n, 0.5)


def eta_binomial_exact(n: int, floor: float) -> float:
    """Exact multiplicative sensitivity of the one-sided binomial tail p-value above ``floor``.

    Proof sketch: replacing one of the n Bernoulli records changes ``S = Σx`` by at most 1, so
    ``|log p − log p'| ≤ max_k |log P(S ≥ k) − log P(S ≥ k+1)|`` over the k whose p-values are ≥ floor
    (below the floor both are floored and the difference shrinks).
    """
    tail = _binomial_tail_table(int(n))
    logt = np.log(np.maximum(tail, floor))
    return float(np.max(np.abs(np.diff(logt))))


def eta_normal_tail_exact(dz: float, floor: float) -> float:
    """Exact multiplicative sensitivity of the z-test p-value ``p = Φ(−z)`` above ``floor`` when one record
    moves z by at most ``dz``: ``ln Φ(Φ⁻¹(μ) + dz) − ln μ``.

    Proof sketch: ``ln Φ`` is concave, so ``ln Φ(a + dz) − ln Φ(a)`` decreases in a; over the p-values
    ``≥ μ`` it is largest where the smaller one is μ (``a = Φ⁻¹(μ)``), and below the floor both are
    floored and the difference shrinks. (For the truncated-exponential test, ``dz = 1/(√n σ0)``: one
    record in [0, 1] moves Σx by at most 1.)
    """
    return float(np.log(special.ndtr(special.ndtri(floor) + dz)) - math.log(floor))


EtaSource = Literal["binomial", "stated", "paper"]


@dataclass(frozen=True)
class Sensitivity:
    """η (how far one person moves every log p-value), the floor μ above which it holds, and its basis.

    ``source``: ``"binomial"`` — proven for the exact one-sided binomial test (:func:`binomial_sensitivity`);
    ``"stated"`` — the user's statement about their own p-values (a release rests on it and says so);
    ``"paper"`` — the paper's √(ln n / n), which is not a bound for any test here: previews only.
    ``basis`` is the sentence a release prints about it.
    """

    eta: float
    floor: float
    source: EtaSource
    basis: str
    #: records per test n of the binomial test (``source == "binomial"``): the p-values must lie on its lattice
    records: int | None = None

    @property
    def refusal(self) -> str | None:
        """Why a release with this η is refused (None when it may be released)."""
        if self.source != "paper":
            return None
        return (f"η = {self.eta:.4g} is the paper's √(ln n / n), not a bound proven for the test behind these "
                "p-values: one record moves log p by more than that for small p-values (for the one-sided binomial "
                "test with n = 1000, below p ≈ 0.23, and by ≈ 12η near the rejection thresholds). Releases need the "
                "exact binomial η with its floor μ, or an η you state for your own p-values.")


def binomial_sensitivity(n: int, floor: float) -> Sensitivity:
    """The exact η of the one-sided binomial tail p-value above ``floor`` (:func:`eta_binomial_exact`)."""
    eta = eta_binomial_exact(n, floor)
    return Sensitivity(eta, floor, "binomial",
                       f"η = {eta:.4g} is the exact sensitivity of the one-sided binomial tail p-value P(Bin(n, ½) ≥ S) "
                       f"with n = {n} records per test, proven for p-values above μ = {floor:g}; p-values below μ "
                       "are raised to μ. Every p-value at or above μ was checked to be such a tail value.",
                       records=int(n))


def stated_sensitivity(eta: float, floor: float = P_FLOOR) -> Sensitivity:
    """An η the user states for their own p-values; a release says that its guarantee rests on it."""
    if not (math.isfinite(eta) and eta > 0):
        raise ValueError("a stated η must be a positive number")
    return Sensitivity(eta, floor, "stated",
                       f"The guarantee rests on the user-stated η = {eta:.4g}: it holds only if one person can move "
                       f"every log p-value (floored at μ = {floor:g}) by at most η. dpcore did not derive or check "
                       "this η.")


def paper_sensitivity(n: int) -> Sensitivity:
    """The paper's η = √(ln n / n) (:func:`eta_paper`): previews only (see :attr:`Sensitivity.refusal`)."""
    return Sensitivity(eta_paper(n), P_FLOOR, "paper",
                       f"η = √(ln n / n) with n = {n} (the paper's value; an assumption, not a proven bound).")

# --------------------------------------------------------------------------
# Uploaded p-values
# --------------------------------------------------------------------------

#: Relative tolerance of the lattice check: the rounding of a tail value computed in double precision (and
#: written with 15 or more significant digits), far below the lattice's spacing (≥ 0.5 % for n ≤ 100,000).
LATTICE_RTOL = 1e-9


def on_binomial_lattice(p: np.ndarray, n: int, floor: float, *, rtol: float = LATTICE_RTOL):
    """``(snapped, first_bad)``: each p-value at or above ``floor`` replaced by the tail value
    ``P(Bin(n, ½) ≥ s)`` it equals within ``rtol`` (relative), and the index of the first one that equals
    none (``None`` when all do).

    Why: the exact η (:func:`eta_binomial_exact`) is a proof only for p-values on that lattice; z-test
    p-values for the same n move by more (true η 0.55 where 0.31 was claimed). Values below the
    floor are not checked: the mechanism raises them to μ, where every lattice value below μ lands too.
    Vectorised: one sorted search of all p-values in the n + 1 tail values.
    """
    lattice = np.unique(_binomial_tail_table(int(n)))  # ascending; repeated 1.0 (and underflowed 0) collapse
    p = np.asarray(p, dtype=float)
    right = np.clip(np.searchsorted(lattice, p), 0, lattice.size - 1)
    left = np.clip(right - 1, 0, lattice.size - 1)
    nearest = np.where(np.abs(lattice[left] - p) <= np.abs(lattice[right] - p), lattice[left], lattice[right])
    checked = p >= floor
    bad = checked & (np.abs(nearest - p) > rtol * p)
    snapped = np.where(checked & ~bad, nearest, p)
    return snapped, (int(np.argmax(bad)) if bad.any() else None)


def binomial_pvalues(p: np.ndarray, n: int, floor: float, *, row_name=lambda i: f"hypothesis {i + 1}") -> np.ndarray:
    """``p`` snapped onto the binomial lattice (:func:`on_binomial_lattice`), or an :class:`InputError`
    naming the first p-value that is not a one-sided binomial tail value for ``n`` records.

    ``row_name(i)`` names index ``i`` in the message (an upload passes its spreadsheet row).
    """
    snapped, bad = on_binomial_lattice(p, n, floor)
    if bad is not None:
        raise InputError(
            f"{row_name(bad)}: p = {float(p[bad]):.10g} is not a one-sided binomial tail value P(Bin(n, ½) ≥ s) for "
            f"n = {n} (nor within a relative {LATTICE_RTOL:g} of one), so the exact binomial η is not proven for these "
            "p-values. Check n, or state an η for your test (the release then says that it rests on your statement).")
    return snapped



def pvalues_from_frame(frame: pd.DataFrame, pcol: str, truth_col: str | None = None):
    """Validate an uploaded stream: p-values in [0, 1] in stream order, optional 0/1 truth labels.

    p = 0 is accepted and floored at :data:`P_FLOOR` when logs are taken (the sensitivity
    assumption only covers p above a small floor). Raises :class:`dpcore.core.validation.InputError`.
    """
    distinct_columns(pcol, truth_col)
    p = numeric_column(frame, pcol, minimum=0.0, maximum=1.0, what="p-value")
    truth = None
    if truth_col:
        truth = coded_column(frame, truth_col, [0, 1], what="truth label").astype(bool)
    if p.size > 100_000:
        raise InputError(f"Column {pcol!r} has {p.size:,} p-values; at most 100,000 are supported.")
    return p, truth


def hypothesis_labels(frame: pd.DataFrame, label_col: str, *roles: str | None) -> np.ndarray:
    """The uploaded names of the hypotheses (cell text, stripped), so results name them rather than row numbers.

    ``roles``: the other mapped columns (p-values, truth), which the label column must differ from. The labels are
    text from a file: pages show them literally, never as Markdown.
    """
    distinct_columns(label_col, *roles)
    require_columns(frame, [label_col])
    return frame[label_col].astype(str).str.strip().to_numpy()
