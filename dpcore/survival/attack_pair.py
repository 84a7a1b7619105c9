"""The survival attacker's pair: a data set and its neighbour with one patient's record replaced.

A is the data set as it is; B replaces record ``index`` by another time and status (replace-one, the
neighbouring relation of :data:`dpcore.survival.RELATION`). The release is the default statistic — the histogram
of (group, bin, outcome) cells — with discrete Laplace noise of scale ``2/ε`` (:func:`dpcore.survival.noise_for`).

Why it is the worst case: a replacement that moves the patient to another cell changes exactly two counts by one,
an L1 shift of 2, the histogram's whole sensitivity (proof in :mod:`dpcore.survival.statistic`), so the privacy
loss reaches ε: the likelihood ratio's largest value is ``e^ε`` and the optimal ROC runs along the region's edge
``TPR = e^ε·FPR`` near the origin. No neighbour of any data set does more. The optimal attacker's ROC under
discrete Laplace depends only on the shifts, so every such replacement, on any data set, gives the same curve (best
accuracy 62 % at ε = 1, under the 73 % bound that only randomised response attains); a replacement within one cell
gives nothing. The attacker's view (:mod:`dpcore.reporting.attack`) computes that curve exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dpcore.core.pairs import Block, NeighbourPair
from dpcore.survival.estimators import km, postprocess
from dpcore.survival.mechanism import noise_for
from dpcore.survival.statistic import count_matrix


def survival_pair(time, event, grid, *, epsilon: float, index: int, alt_time: float, alt_event: int,
                  n_types: int = 1, event_labels: Sequence[str] | None = None) -> NeighbourPair:
    """A: the data set as it is; B: record ``index`` replaced by ``(alt_time, alt_event)`` (one group).

    The release is the default survival statistic (the histogram of cells) with
    discrete Laplace noise (:func:`dpcore.survival.noise_for`). Without noise the attacker
    subtracts the counts of the n − 1 records they know from the released
    counts: one person is left, in one cell — the bin of their time and
    whether they had an event or were censored (the differencing attack).
    """
    time, event = np.asarray(time, dtype=float), np.asarray(event)
    if not 0 <= index < time.size:
        raise ValueError(f"record {index + 1} does not exist (the data set has {time.size})")
    t_b, e_b = time.copy(), event.copy()
    t_b[index], e_b[index] = alt_time, alt_event

    def counts(t, e):
        return count_matrix(t, e, grid, n_types=n_types, event_labels=event_labels)

    c_a, c_b = counts(time, event), counts(t_b, e_b)
    others = counts(np.delete(time, index), np.delete(event, index))
    labels = c_a.event_labels

    def cell(c) -> str:
        cells = lambda m: np.concatenate([m.events, m.censored[..., None]], axis=-1).ravel()
        left = np.flatnonzero(cells(c) - cells(others))[0]  # the lone person's cell
        j, col = divmod(int(left), len(labels) + 1)
        what = "was censored" if col == len(labels) else ("had an event" if len(labels) == 1 else
                                                          f"had an event ({labels[col]})")
        return f"{what} in [{grid.display[j]:g}, {grid.display[j + 1]:g}) {grid.grid_unit}"

    def curve(c):
        return km(postprocess(c.collapse_types())).estimate[0]

    if np.array_equal(c_a.vector(), c_b.vector()):
        reveal = ("Both values put the patient in the same cell of the grid, so even without noise the release is "
                  "identical on A and B: the attacker cannot tell them apart.")
    else:
        reveal = (f"The attacker subtracts the counts of the {time.size - 1} patients they know from "
                  f"the released counts: one patient is left, who {cell(c_a)} under A and {cell(c_b)} under B. The "
                  f"two Kaplan–Meier curves below differ exactly there: the attacker is right 100 % of the time.")
    shown = lambda e: "censored" if int(e) == 0 else (
        "event" if len(labels) == 1 else f"event ({labels[int(e) - 1]})")
    return NeighbourPair(
        "survival", f"record {index + 1} replaced",
        f"A: the data set as it is (patient {index + 1}: time {time[index]:g} {grid.data_unit}, {shown(event[index])}); "
        f"B: the same patient with time {float(alt_time):g} {grid.data_unit}, {shown(alt_event)}.",
        (Block(noise_for(c_a, epsilon), c_a.vector(), c_b.vector()),), reveal,
        dict(x=grid.display, A=curve(c_a), B=curve(c_b), x_label=f"time ({grid.grid_unit})",
             y_label="survival (non-private)"))
