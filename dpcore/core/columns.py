"""Default column mapping for an uploaded table: guess each role's column by its name and type.

The upload pages used to map the first columns to the first roles, so real tables went wrong silently
(GBSG2's ``horTh`` became the time, lung's ``inst`` the time, larynx's ``age`` the event code). Here each
role has a list of usual names (exact names first, then names containing a keyword); among the columns a
name fits, the first whose type fits the role wins (a number for a time, whole numbers for an event code,
text or a few whole numbers for a group). Each guess carries a short reason the page shows, so the user
can check it; when no name fits, the guess falls back to the first column of the right type and says so.

What is read: the column names, and whether a candidate column's cells are all numbers (whole numbers,
numbers in [0, 1]) — the same checks each role's validation makes when the column is used. A guess only
fills in controls the data custodian confirms, on the custodian's own screen; a release uses the confirmed
mapping (with declared event codes and group labels), and no value computed from the data is released
or used as a public parameter because of a guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: Role → (exact names, keywords a name may contain), compared lower-case with punctuation removed.
NAMES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "time": (("time", "t", "futime", "survtime", "duration", "days", "day", "weeks", "week", "months", "month",
              "years", "year", "followup", "fu", "tte", "stop", "os", "pfs", "dfs", "efs", "los"),
             ("time", "duration", "survival", "followup", "days", "weeks", "months", "years")),
    "event": (("event", "e", "status", "death", "dead", "died", "cens", "fail", "failure", "arrest", "relapse",
               "recurrence", "observed", "delta", "d", "fstat", "outcome", "vitalstatus", "censor"),
              ("event", "status", "death", "dead", "cens", "fail", "relapse", "recur")),
    "group": (("group", "grp", "arm", "treatment", "treat", "trt", "rx", "therapy", "horth", "cohort", "sex",
               "gender", "fin"),
              ("group", "arm", "treat", "therapy")),
    "response": (("target", "y", "response", "outcome", "label", "class", "lnic50", "ic50", "auc", "score",
                  "diagnosis"),
                 ("target", "response", "ic50", "outcome", "label")),
    "p_value": (("p", "pval", "pvalue", "pvalues", "pv", "prob", "significance"),
                ("pval", "pvalue")),
    "truth": (("truth", "true", "h1", "alternative", "isalt", "signal", "nonnull", "label", "effect"),
              ("truth", "nonnull", "signal")),
    "person": (("id", "patientid", "patient", "subject", "subjectid", "mrn", "case", "caseid", "person", "personid",
                "pid", "participant", "participantid", "recordid", "sampleid", "cosmicid", "cellline", "celllineid",
                "studyid", "usubjid", "eid", "ptid", "patno", "patientno", "patientnumber"),
               ("patientid", "subjectid", "personid", "participantid", "caseid", "mrn", "cosmicid", "usubjid")),
}
#: Time units a time column's name may state.
UNIT_WORDS = {"day": "days", "days": "days", "week": "weeks", "weeks": "weeks", "month": "months",
              "months": "months", "year": "years", "years": "years", "yr": "years", "yrs": "years"}


@dataclass(frozen=True)
class Guess:
    """One role's guessed column (``None``: no column fits) and why, in words for the page."""

    role: str
    column: str | None
    reason: str

    def index_in(self, options: Sequence, default: int = 0) -> int:
        """The guessed column's position in a selectbox's ``options`` (``default`` when it is not there)."""
        options = list(options)
        return options.index(self.column) if self.column in options else default


def _key(name) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def _numbers(frame: pd.DataFrame, col) -> np.ndarray | None:
    """The column's cells as numbers, or ``None`` when any cell is blank or not a finite number."""
    values = pd.to_numeric(frame[col].astype(str).str.strip(), errors="coerce").to_numpy(dtype=float)
    return values if values.size and np.isfinite(values).all() else None


#: Cell texts that stand for a missing value (lower case; a blank cell is the empty text).
MISSING = ("", "nan", "na", "n/a", "null", "none")


def _named_fit(frame: pd.DataFrame, col, fits) -> bool:
    """Whether a column whose *name* fits a role also fits its type, judged on its finite cells only.

    A column named for the role wins over the type of a few cells: a ``time`` column with a NaN or ``inf`` row is
    still the time (its validation then names that row), where the strict check sent the guess to another column
    (``event`` taken as the time, then "mapped to more than one role"). Text cells stay (a group's labels); a
    column with nothing but missing or infinite cells does not fit.
    """
    raw = frame[col].astype(str).str.strip()
    infinite = np.isinf(pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float))
    kept = ~(infinite | raw.str.lower().isin(MISSING).to_numpy())
    return bool(kept.any()) and fits(frame.loc[kept, [col]], col)


def _numeric(frame: pd.DataFrame, col) -> bool:
    return _numbers(frame, col) is not None


def _whole(frame: pd.DataFrame, col) -> bool:
    values = _numbers(frame, col)
    return values is not None and bool(np.all(values == np.round(values)))


def _probabilities(frame: pd.DataFrame, col) -> bool:
    values = _numbers(frame, col)
    return values is not None and bool(np.all((values >= 0) & (values <= 1))) and not _whole(frame, col)


#: Role → does a column's type fit it (the same checks the role's own validation makes).
FITS = {
    "time": _numeric,
    "event": _whole,
    "group": lambda frame, col: not _numeric(frame, col) or _whole(frame, col),
    "response": _numeric,
    "p_value": _probabilities,
    "truth": _whole,
    "person": lambda frame, col: bool(frame[col].notna().all()) and frame[col].is_unique
    and (not _numeric(frame, col) or _whole(frame, col)),
}
TYPE_WORDS = {"time": "numbers", "event": "whole numbers", "group": "labels", "response": "numbers",
              "p_value": "numbers between 0 and 1", "truth": "whole numbers",
              "person": "distinct identifiers"}


def guess(frame: pd.DataFrame, role: str, *, exclude: Iterable = (), fallback: bool = True) -> Guess:
    """The column for ``role`` (one of :data:`NAMES`): an exact usual name, then a name containing a keyword,
    each only if the column's finite cells fit the type (:func:`_named_fit`: a blank, NaN or ``inf`` cell is left to
    the role's validation, which names its row); else (``fallback``) the first column whose every cell fits."""
    taken = set(exclude)
    cols = [c for c in frame.columns if c not in taken]
    exact, words = NAMES[role]
    fits = FITS[role]
    for col in cols:
        if _key(col) in exact and _named_fit(frame, col, fits):
            return Guess(role, col, f"named {str(col)!r}")
    for col in cols:
        if any(w in _key(col) for w in words) and _named_fit(frame, col, fits):
            return Guess(role, col, f"its name {str(col)!r} suggests it")
    if fallback:
        for col in cols:
            if fits(frame, col):
                return Guess(role, col, f"no usual name found: the first column of {TYPE_WORDS[role]}")
    return Guess(role, None, "no column has a usual name for it")


def time_unit(column: str | None) -> str | None:
    """The time unit a time column's name states (``week`` → weeks, ``time_months`` → months), else ``None``."""
    if column is None:
        return None
    for part in re.split(r"[^a-z]+", str(column).lower()):
        if part in UNIT_WORDS:
            return UNIT_WORDS[part]
    return None


def survival_roles(frame: pd.DataFrame) -> dict[str, Guess]:
    """Time, event and (optional, by name only) group columns, each distinct."""
    time = guess(frame, "time")
    event = guess(frame, "event", exclude=[time.column])
    group = guess(frame, "group", exclude=[time.column, event.column], fallback=False)
    return {"time": time, "event": event, "group": group}


def describe(guesses: Iterable[Guess]) -> str:
    """``"Guessed: time = 'T' (named 'T'); …"`` — plain text for :func:`ui.layout.literal`."""
    parts = [f"{g.role.replace('_', '-')} = {str(g.column)!r} ({g.reason})" for g in guesses if g.column is not None]
    return ("Columns guessed from their names and types: " + "; ".join(parts) + ". Check them below.") if parts else ""
