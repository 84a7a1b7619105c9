"""Times recorded in whole units: which declarations a time column can carry, and a hint for its custodian.

A release's ``time_resolution`` (:func:`dpcore.survival.release`) is a **public statement by the data's
custodian** that every time was recorded as a whole number of some unit (follow-up in whole years, say): the
exact Kaplan–Meier curve then steps only at multiples of it, and every reading is taken as that staircase
(:func:`dpcore.survival.read.on_resolution`). It is printed in the release, and the release's reading rests on it.
It must come from how the study recorded its times, never from the values: :func:`recorded_hint` reads the
custodian's own data only to write a sentence for them to check (shown in their session, never released), and
never sets the declaration.
"""

from __future__ import annotations

import numpy as np

from dpcore.core.datasets import UNIT_DAYS

#: The declaration's default: times are continuous (no staircase).
CONTINUOUS = "continuous"


def in_data_units(unit: str, data_unit: str) -> float:
    """The length of one ``unit`` in ``data_unit`` (1 year in months: 12)."""
    return UNIT_DAYS[unit] / UNIT_DAYS[data_unit]


def whole_units(data_unit: str) -> list[str]:
    """The units a column in ``data_unit`` can be declared recorded in: those whose length is a whole number of
    ``data_unit`` (days: days, weeks; months: months, years). A month is not a whole number of days, so a column in
    days cannot state whole months."""
    return [u for u in UNIT_DAYS
            if in_data_units(u, data_unit) >= 1 - 1e-9
            and abs(in_data_units(u, data_unit) - round(in_data_units(u, data_unit))) < 1e-9]


def declared_resolution(choice: str, data_unit: str) -> float | None:
    """The ``time_resolution`` (in ``data_unit``) a choice of :func:`whole_units` or :data:`CONTINUOUS` states."""
    if choice == CONTINUOUS:
        return None
    if choice not in whole_units(data_unit):
        raise ValueError(f"times in {data_unit} cannot be declared recorded in whole {choice}")
    return float(round(in_data_units(choice, data_unit)))


def recorded_hint(time, data_unit: str, choice: str) -> str | None:
    """A sentence for the custodian about the declaration ``choice`` against their own times (``None``: nothing
    to say). Undeclared, it names the coarsest whole unit every time is a multiple of, for them to confirm;
    declared, it warns when some times are not whole multiples (the staircase would then be the wrong reading).
    Reads private data: shown in the custodian's session only, never released, and the declaration is never
    set from it."""
    t = np.asarray(time, dtype=float)
    t = t[np.isfinite(t)]
    if t.size == 0:
        return None

    def whole(unit: str) -> bool:
        r = t / in_data_units(unit, data_unit)
        return bool(np.all(np.abs(r - np.round(r)) < 1e-6))

    if choice == CONTINUOUS:
        fits = [u for u in whole_units(data_unit) if whole(u)]
        if not fits:
            return None
        return (f"Every time in the data is a whole number of {fits[-1]}. If the study recorded them so, declare "
                f"'whole {fits[-1]}' here: the release then reads the curve as the staircase such times give and "
                "states your declaration. Not set for you: it is a statement about how the times were recorded, "
                "which the values alone cannot make.")
    if whole(choice):
        return None
    return (f"Some times in the data are not whole {choice}: the declaration 'whole {choice}' does not hold for "
            "them, and the release would read their curve at the wrong times. Declare it only if the study recorded "
            "every time so.")
