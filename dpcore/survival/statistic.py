"""Stage 1 — the statistic: the survival counts, and their sensitivity (with the proof).

:func:`count_matrix` gives, per group, the number of people at the start ``r_1`` and, per grid bin,
the events of each type and the censorings. Two releases of these counts exist (:data:`STATISTICS`):

- ``"histogram"`` (the default): only the cells — the histogram of (group, bin, outcome) — are noised;
  ``r_1`` of each group is the sum of its cells, and the total ``n`` (public under replace-one) pins them;
- ``"matrix"`` (the paper's release): ``r_1`` of each group is noised as well, ``M = [r_1; cells]``.

Sensitivity (proof; :func:`sensitivity` returns it), replace-one (``n`` unchanged):

- histogram, any number of groups: the replaced person leaves one cell (an event or a censoring in some bin of
  their group) and the new one enters one cell (of any group), so ``‖H − H'‖1 ≤ 1 + 1 = 2``;
- matrix, one group: the same two cells, and ``r_1 = n`` is unchanged: 2;
- matrix, G ≥ 2 groups released together: the old person leaves group a (``r_1^a`` −1 and one cell −1) and the
  new one joins group b (``r_1^b`` +1 and one cell +1), so ``‖ΔM‖1 ≤ 4`` (2 when a = b).

Under add/remove-one: histogram 1 (one cell), matrix 2 (``r_1`` of one group and one cell); ``n`` is then
private, so no consistency step may use it (:func:`count_matrix` records ``total`` only under replace-one).

L2 sensitivity (for Gaussian noise, :func:`l2_sensitivity`): every count above moves by at most 1 and the moved
counts are the ones listed, so ``‖Δ‖2 = √(number of moved counts)``: histogram √2 (replace-one) or 1
(add/remove-one); matrix √2 with one group, 2 with several (replace-one), √2 under add/remove-one.

Time above the horizon is censored at the horizon, so every record falls in exactly one cell.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
import pandas as pd

from dpcore.survival.grid import RELATION, Grid, GroupLabelsFromDataWarning, bin_index
from dpcore.core.validation import InputError, declared_category_column, distinct_columns, numeric_column, role_code_column

#: The two releases of the survival counts (see the module docstring), the default first.
STATISTICS: dict[str, str] = {
    "histogram": "the histogram of (group, bin, outcome): every bin's events and censorings per group are noised, "
                 "the number at the start of each group is their sum (the total n is public under replace-one); "
                 "L1 sensitivity 2 with or without groups",
    "matrix": "the paper's release: the number at the start of each group is noised too; L1 sensitivity 2, or 4 "
              "when several groups are released together",
}
DEFAULT_STATISTIC = "histogram"


@dataclass(frozen=True)
class Counts:
    """Count matrices of G groups on a grid (exact, noisy, or R stacked noisy draws).

    ``at_start`` (..., G): people at risk at time 0 (``r_1``); ``events``
    (..., G, k, K): events of type 1..K per bin; ``censored`` (..., G, k).
    Leading axes are Monte-Carlo draws (and ε values in a sweep).
    ``statistic`` (:data:`STATISTICS`) says which of them a release noises: for ``"histogram"`` the cells only,
    and ``at_start`` of a noisy release is the sum of each group's noisy cells; ``total`` is the public ``n``
    (replace-one) that the post-processing pins the cells' sum to (``None``: not known).
    """

    at_start: np.ndarray
    events: np.ndarray
    censored: np.ndarray
    grid: Grid
    groups: tuple[str, ...] = ("all",)
    event_labels: tuple[str, ...] = ("event",)
    statistic: str = "matrix"
    total: float | None = None

    @property
    def n_groups(self) -> int:
        return len(self.groups)

    @property
    def n_types(self) -> int:
        return len(self.event_labels)

    def vector(self) -> np.ndarray:
        """What a release noises, per group, flattened: the cells ``(..., G, k(K+1))`` for the histogram, the
        matrix ``(..., G, 1 + k(K+1))`` (``r_1`` first) for the paper's release."""
        lead = self.censored.shape[:-1]
        cells = np.concatenate([self.events, self.censored[..., None]], axis=-1).reshape(lead + (-1,))
        if self.statistic == "histogram":
            return cells
        return np.concatenate([self.at_start[..., None], cells], axis=-1)

    def from_vector(self, vec: np.ndarray) -> "Counts":
        """Counts with the same grid/labels/statistic from a (possibly noisy, possibly stacked) released vector;
        for the histogram ``at_start`` is the sum of each group's cells (post-processing)."""
        k, K = self.grid.k, self.n_types
        first = 0 if self.statistic == "histogram" else 1
        cells = vec[..., first:].reshape(vec.shape[:-1] + (k, K + 1))
        at_start = cells.sum((-1, -2)) if self.statistic == "histogram" else vec[..., 0]
        return replace(self, at_start=at_start, events=cells[..., :K], censored=cells[..., K])

    def pooled(self) -> "Counts":
        """All groups summed (post-processing when applied to released counts)."""
        return replace(self, at_start=self.at_start.sum(-1, keepdims=True), events=self.events.sum(-3, keepdims=True),
                       censored=self.censored.sum(-2, keepdims=True), groups=("all",))

    def collapse_types(self) -> "Counts":
        """Events of any type as one type (for KM / Nelson–Aalen / log-rank)."""
        if self.n_types == 1:
            return self
        return replace(self, events=self.events.sum(-1, keepdims=True), event_labels=("any event",))


def count_matrix(time, event, grid: Grid, *, group=None, groups: Sequence[str] | None = None,
                 n_types: int = 1, event_labels: Sequence[str] | None = None,
                 statistic: str = DEFAULT_STATISTIC) -> Counts:
    """Exact count matrix per group on the public grid (stage 1), to be released as ``statistic``.

    ``event``: 0 = censored, 1..``n_types`` = event type (``n_types`` is
    public: the declared coding). ``groups`` is the public list of group
    labels; records with a label outside it are refused. Subjects with
    ``time > H`` are censored at ``H`` (last bin).

    Without ``groups`` the labels are read off the data, with a
    :class:`GroupLabelsFromDataWarning`: which labels occur is itself private
    (a group with one member appears or vanishes with that person, changing
    the released table's shape), so :func:`release` and OpenDP draws refuse it
    — only previews may infer labels.
    """
    time = np.asarray(time, dtype=float)
    event = np.asarray(event)
    if time.ndim != 1 or time.shape != event.shape:
        raise InputError("time and event must be one-dimensional and of the same length")
    if time.size == 0:
        raise InputError("no records")
    if not np.isfinite(time).all() or (time < 0).any():
        raise InputError("times must be finite and non-negative")
    if not np.all(event == np.round(event)) or event.min() < 0 or event.max() > n_types:
        raise InputError(f"event codes must be 0 (censored) or 1..{n_types}")
    event = event.astype(np.int64)
    if group is None:
        gidx = np.zeros(time.size, dtype=np.int64)
        groups = ("all",)
    else:
        group = np.asarray(group).astype(str)
        if group.shape != time.shape:
            raise InputError("group must have one label per record")
        if groups is None:
            warnings.warn("group labels were read from the data: fine for a preview, but a release needs the "
                          "declared list of labels (pass groups=...)", GroupLabelsFromDataWarning, stacklevel=2)
            groups = np.unique(group)
        groups = tuple(str(g) for g in groups)
        gidx = pd.Categorical(group, categories=list(groups)).codes.astype(np.int64)
        if (gidx < 0).any():
            bad = group[int(np.argmax(gidx < 0))]
            raise InputError(f"group label {bad!r} is not among the declared groups {list(groups)}")
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {list(STATISTICS)}, not {statistic!r}")
    G, k, K = len(groups), grid.k, int(n_types)
    j = bin_index(time, grid)
    kind = np.where(time > grid.horizon, 0, event)  # 0 censored, 1..K event type
    # one bincount over (group, bin, column) with column K meaning "censored"
    col = np.where(kind == 0, K, kind - 1)
    flat = np.bincount((gidx * k + j) * (K + 1) + col, minlength=G * k * (K + 1)).reshape(G, k, K + 1)
    at_start = np.bincount(gidx, minlength=G).astype(np.int64)
    labels = tuple(event_labels) if event_labels is not None else (
        ("event",) if K == 1 else tuple(f"type {i}" for i in range(1, K + 1)))
    total = float(time.size) if RELATION == "replace-one" else None  # n is public only under replace-one
    return Counts(at_start, flat[..., :K].astype(np.int64), flat[..., K].astype(np.int64), grid, tuple(groups), labels,
                  statistic, total)


@dataclass(frozen=True)
class MappedData:
    """An uploaded table mapped to the survival roles, validated."""

    time: np.ndarray
    event: np.ndarray
    group: np.ndarray | None
    groups: tuple[str, ...] | None
    event_labels: tuple[str, ...]


def survival_from_frame(frame: pd.DataFrame, *, time_col: str, event_col: str, group_col: str | None = None,
                        group_labels: Sequence[str] | None = None, n_types: int = 1, max_groups: int = 8) -> MappedData:
    """Validate an uploaded frame's columns for survival analysis (named errors, nothing stored).

    Times must be finite and non-negative; event codes in ``0..n_types`` (0
    = censored; the coding is declared by the user, i.e. public). With a
    group column, the user declares the group labels (public, e.g. the
    trial's arms): the set of labels found in a file depends on who is in
    it, so it is never read off the data, and a row with an undeclared
    label is refused.
    """
    distinct_columns(time_col, event_col, group_col)
    if not 1 <= int(n_types) <= 9:
        raise InputError("the number of event types must be between 1 and 9")
    time = numeric_column(frame, time_col, minimum=0, what="time")
    event = role_code_column(frame, event_col, list(range(int(n_types) + 1)), role="event")
    group = groups = None
    if group_col:
        if not group_labels:
            raise InputError(f"Declare the group labels of column {group_col!r} (comma-separated, e.g. 'A, B').")
        declared = list(dict.fromkeys(str(g).strip() for g in group_labels if str(g).strip()))
        if len(declared) > max_groups:
            raise InputError(f"{len(declared)} groups declared; at most {max_groups} are supported.")
        group = declared_category_column(frame, group_col, declared)
        groups = tuple(declared)
    labels = ("event",) if n_types == 1 else tuple(f"type {k}" for k in range(1, int(n_types) + 1))
    return MappedData(time, event, group, groups, labels)


def time_unit_warning(time, unit: str, named_unit: str | None = None) -> str | None:
    """A warning for the custodian when an upload's times do not look like ``unit`` (``None`` when they do).

    Larynx-like times 0.1–10.7 read as days make a curve that hits 0 in four weeks. When the column's name states
    no unit (``named_unit`` is None) and times read as days or weeks are fractional and all below 50 (about 1.7
    months of days), they look like years (up to 15) or months. Shown only to the custodian, who has the data;
    the unit is never switched from the values (it fixes the public grid, which must not come from the data).
    """
    if named_unit is not None or unit not in ("days", "weeks"):
        return None
    t = np.asarray(time, dtype=float)
    if t.size == 0 or t.max() >= 50 or np.all(t == np.round(t)):
        return None
    likely = "years" if t.max() <= 15 else "months"
    return (f"The times run from {t.min():.3g} to {t.max():.3g} and are fractional: read as {unit}, all follow-up "
            f"would end within {t.max():.3g} {unit}. They look like {likely}: if so, set "
            f"the unit of the time column to {likely} before a release (the grid and the horizon follow it). The unit "
            "is not switched for you: it fixes the public grid, which must not be read off the data.")


def sensitivity(n_groups: int = 1, relation: str = RELATION, statistic: str = DEFAULT_STATISTIC) -> int:
    """L1 sensitivity of the released counts (all groups stacked); the proof is the module docstring's.

    Replace-one: the replaced person leaves one cell and the new one enters one cell, so the histogram moves by
    ``1 + 1 = 2`` whatever the groups; the paper's matrix also carries ``r_1`` per group, unchanged with one group
    (2) but −1 in the old group and +1 in the new one when several groups are released together (4).
    Add/remove-one: one cell (histogram: 1), or one cell and ``r_1`` of its group (matrix: 2).
    """
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {list(STATISTICS)}, not {statistic!r}")
    if relation == "add/remove-one":
        return 1 if statistic == "histogram" else 2
    if relation != "replace-one":
        raise ValueError(f"unknown neighbouring relation {relation!r}")
    return 2 if (statistic == "histogram" or n_groups <= 1) else 4


def l2_sensitivity(n_groups: int = 1, relation: str = RELATION, statistic: str = DEFAULT_STATISTIC) -> float:
    """L2 sensitivity of the released counts (Gaussian noise); the proof is the module docstring's.

    One person moves each count by at most 1, so the L2 norm is the square root of the number of moved counts,
    which is the L1 sensitivity: ``√(sensitivity(...))``.
    """
    return float(np.sqrt(sensitivity(n_groups, relation, statistic)))
