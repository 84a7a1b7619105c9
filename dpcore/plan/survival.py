"""The plan-first path for survival curves: declare the public facts, explore on a proxy, lock, then read the file.

A release's (ε, δ) is proved for settings that do not depend on the private rows (``docs/privacy.md``). Here every
setting is chosen before those rows are read: the custodian declares what the study design already makes public
(:class:`SurvivalFacts`: column names, n or a bound on it, the time unit, the planned follow-up, the groups), the
settings are tried on a **proxy** cohort simulated from those facts and a public seed (:func:`simulate_proxy`; it
reads nobody), and the locked :class:`SurvivalPlan` is applied to the private file only when the release is made
(:func:`read_private`, the only function here that touches its bytes). Such a release's settings were, by
construction, "fixed before the private rows were read" (:data:`dpcore.provenance.FIXED`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpcore import survival as sv
from dpcore.core.datasets import UNIT_DAYS
from dpcore.ledger import Persons
from dpcore.notebooks import SurvivalConfig
from dpcore.plan.common import check_columns, read_declared
from dpcore.core.validation import InputError

#: the largest cohort a proxy is simulated for (the page simulates it on every change of a setting)
MAX_PROXY_N = 200_000
#: the most groups the survival release compares (as :func:`dpcore.survival.survival_from_frame` allows)
MAX_GROUPS = 8
#: the share of people censored before their event that a proxy may be declared with (all censored: no curve)
MAX_CENSORED = 0.95


@dataclass(frozen=True)
class SurvivalFacts:
    """What the study design makes public before any row is read; every field is checked on construction.

    ``n_max``: the number of people, or an upper bound on it (public under replace-one: the grid rule uses it, and a
    file with more rows is refused). ``medians`` (in ``time_unit``, one per group, or one without groups) and
    ``censored`` (the share censored before their event) shape the proxy only: expected values from the protocol
    or the literature, never read off the file. Without a ``person_column`` each whole row is a person, and
    identical rows are refused unless ``identical_rows_are_different_people`` is declared (as on the survival page).
    """

    time_column: str
    event_column: str
    n_max: int
    time_unit: str
    horizon: float
    medians: tuple[float, ...]
    censored: float = 0.3
    group_column: str = ""
    group_labels: tuple[str, ...] = ()
    person_column: str = ""
    identical_rows_are_different_people: bool = False
    seed: int = 0

    def __post_init__(self) -> None:
        names = {"time column": self.time_column, "event column": self.event_column,
                 "group column": self.group_column, "person column": self.person_column}
        for what in ("time column", "event column"):
            if not names[what].strip():
                raise InputError(f"Declare the {what}'s name.")
        check_columns(names)
        if self.time_unit not in UNIT_DAYS:
            raise InputError(f"The time unit must be one of {', '.join(UNIT_DAYS)}; got {self.time_unit!r}.")
        if not 2 <= int(self.n_max) <= MAX_PROXY_N:
            raise InputError(f"The number of people (or its bound) must be between 2 and {MAX_PROXY_N:,}; "
                             f"got {self.n_max}.")
        if not (np.isfinite(self.horizon) and self.horizon > 0):
            raise InputError(f"The horizon must be a positive number of {self.time_unit}; got {self.horizon}.")
        if not 0 <= self.censored <= MAX_CENSORED:
            raise InputError(f"The share censored must be between 0 and {MAX_CENSORED}; got {self.censored}.")
        labels = self.groups
        if self.group_column and (len(labels) < 2 or len(set(labels)) < len(labels)):
            raise InputError(f"Declare at least two distinct group labels for column {self.group_column!r}.")
        if len(labels) > MAX_GROUPS:
            raise InputError(f"{len(labels)} groups declared; at most {MAX_GROUPS} are supported.")
        if self.group_labels and not self.group_column:
            raise InputError("Group labels are declared without a group column: name the column or drop the labels.")
        if len(self.medians) != len(labels):
            raise InputError(f"Declare one expected median per group ({len(labels)}); got {len(self.medians)}.")
        if not all(np.isfinite(m) and m > 0 for m in self.medians):
            raise InputError(f"Every expected median must be a positive number of {self.time_unit}.")

    @property
    def groups(self) -> tuple[str, ...]:
        """The declared group labels, or the one pooled group ``("all",)`` without a group column."""
        return self.group_labels if self.group_column else ("all",)


def simulate_proxy(facts: SurvivalFacts) -> sv.MappedData:
    """A public stand-in for the cohort: ``facts.n_max`` people from ``facts.seed``, in equal shares per group.

    Each group's event times are exponential with the declared median (rate ln 2 / median) and censoring times
    exponential with the rate that censors the declared share before their event (for rates λ and μ, a person is
    censored first with probability μ / (λ + μ)). It reads no row of anyone: every input is a declared fact.
    """
    rng = np.random.default_rng(facts.seed)
    n, labels = int(facts.n_max), facts.groups
    member = np.arange(n) % len(labels)
    rate = np.log(2.0) / np.asarray(facts.medians, dtype=float)[member]
    event_time = rng.exponential(1.0 / rate)
    share = facts.censored
    censor_time = rng.exponential(1.0 / (rate * share / (1.0 - share))) if share > 0 else np.full(n, np.inf)
    time = np.minimum(event_time, censor_time)
    event = (event_time <= censor_time).astype(np.int64)
    group = np.asarray(labels, dtype=object)[member] if facts.group_column else None
    return sv.MappedData(time, event, group, facts.group_labels if facts.group_column else None, ("event",))


@dataclass(frozen=True)
class SurvivalPlan:
    """The locked settings of one survival release, chosen on the proxy: nothing here depends on a private row."""

    facts: SurvivalFacts
    epsilon: float
    grid_unit: str
    width: int
    estimator: str = "km"
    compare: bool = True
    risk_set: str = sv.DEFAULT_RISK_SET

    def grid(self) -> sv.Grid:
        return sv.make_grid(self.facts.horizon, data_unit=self.facts.time_unit, grid_unit=self.grid_unit,
                            width=self.width, max_bins=2_000)

    @property
    def compared(self) -> bool:
        """Whether the release has one curve per declared group."""
        return self.compare and bool(self.facts.group_column)

    def counts(self, data: sv.MappedData) -> sv.Counts:
        return sv.count_matrix(data.time, data.event, self.grid(), group=data.group if self.compared else None,
                               groups=data.groups if self.compared else None, n_types=1, event_labels=("event",),
                               statistic=sv.statistic_for(self.risk_set))

    def params(self) -> dict:
        """The release's public parameters as the ledger records them (as the survival page's releases do)."""
        statistic = sv.statistic_for(self.risk_set)
        groups = len(self.facts.groups) if self.compared else 1
        return {"grid": self.grid().describe(), "groups": list(self.facts.groups) if self.compared else ["all"],
                "estimators": "KM, NA, CIF, log-rank", "risk_set": self.risk_set, "statistic": statistic,
                "noise_kind": "discrete_laplace", "sensitivity_l1": sv.sensitivity(groups, statistic=statistic)}

    def config(self) -> SurvivalConfig:
        """The same settings as a script's configuration (the release's ``reproduce.py`` reads the user's CSV)."""
        facts = self.facts
        return SurvivalConfig(dataset=None, horizon=facts.horizon, grid_unit=self.grid_unit, width=self.width,
                              epsilon=self.epsilon, seed=facts.seed, estimator=self.estimator, compare=self.compared,
                              noise_aware=self.compared, risk_set=self.risk_set, time_col=facts.time_column,
                              event_col=facts.event_column, group_col=facts.group_column if self.compared else None,
                              group_labels=facts.group_labels if self.compared else None, time_unit=facts.time_unit)

    def release(self, cohort: PrivateCohort):
        """One OpenDP release of the private cohort with exactly these settings (a ``ReleaseBundle``)."""
        data = cohort.data
        return sv.release(data.time, data.event, grid=self.grid(), epsilon=self.epsilon,
                          group=data.group if self.compared else None, groups=data.groups if self.compared else None,
                          dataset=cohort.label, fingerprint=cohort.fingerprint, risk_set=self.risk_set,
                          statistic=sv.statistic_for(self.risk_set),
                          group_column=self.facts.group_column if self.compared else None)


@dataclass(frozen=True)
class PrivateCohort:
    """The private file as read at release time: its survival columns, content fingerprint, label and persons."""

    data: sv.MappedData
    fingerprint: str
    label: str
    persons: Persons


def read_private(data: bytes, name: str, facts: SurvivalFacts) -> PrivateCohort:
    """Parse and check the private file against the declared facts (an ``InputError`` naming the column or row).

    The checks every plan-first file gets (:func:`dpcore.plan.common.read_declared`), then the survival page's own
    (:func:`dpcore.survival.survival_from_frame`).
    """
    held = read_declared(data, name, columns=[facts.time_column, facts.event_column, facts.group_column],
                         n_max=facts.n_max, person_column=facts.person_column,
                         identical_rows_are_different_people=facts.identical_rows_are_different_people)
    mapped = sv.survival_from_frame(held.rows, time_col=facts.time_column, event_col=facts.event_column,
                                    group_col=facts.group_column or None, group_labels=facts.group_labels or None)
    return PrivateCohort(mapped, held.fingerprint, held.label, held.persons)
