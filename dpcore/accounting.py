"""Privacy ledger: every release of a session, per data set, under basic composition.

A plain Python object with no global state — each browser session keeps its
own instance in ``st.session_state`` (a module-level default, as in
diffprivlib, would be shared by every session of a Streamlit server).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping

import numpy as np
import pandas as pd


class BudgetExceeded(RuntimeError):
    """A release would take a data set's total (ε, δ) past its cap."""


def fingerprint(*parts: Any) -> str:
    """Short SHA-256 fingerprint of a data set (bytes, arrays, frames or strings).

    The ledger is keyed by content, not by file name, so the same data
    uploaded twice (or under another name) shares one budget.
    """
    digest = hashlib.sha256()
    for part in parts:
        if isinstance(part, (bytes, bytearray, memoryview)):
            digest.update(bytes(part))
        elif isinstance(part, np.ndarray):
            digest.update(str(part.dtype).encode() + str(part.shape).encode())
            digest.update(np.ascontiguousarray(part).tobytes())
        elif hasattr(part, "to_csv"):
            digest.update(part.to_csv(index=False).encode())
        else:
            digest.update(repr(part).encode())
        digest.update(b"\x00")
    return digest.hexdigest()[:16]


def table_fingerprint(frame: pd.DataFrame) -> str:
    """Fingerprint of an uploaded table's *content*: the same for any column order, row order, number
    format (``1`` = ``1.0``), line endings, byte-order mark or file name.

    Hashing the file's bytes would give the same data re-saved by a spreadsheet a fresh budget (and no
    cap). Cells that parse as numbers are compared as numbers, others as stripped text.
    """
    columns = sorted(frame.columns)
    canonical = pd.DataFrame({c: _canonical_cells(frame[c]) for c in columns})
    rows = np.sort(pd.util.hash_pandas_object(canonical, index=False).to_numpy())
    return fingerprint("table", tuple(columns), rows)


def _canonical_cells(column: pd.Series) -> pd.Series:
    number = pd.to_numeric(column, errors="coerce").astype(object)
    return number.where(number.notna(), column.astype(str).str.strip())


@dataclass(frozen=True)
class ReleaseRecord:
    """One charged release: what, on which data, at what cost, when."""

    dataset: str
    method: str
    epsilon: float
    delta: float
    params: Mapping[str, Any]
    parts: Mapping[str, float] = field(default_factory=dict)
    relation: str = "replace-one"
    time: str = ""


@dataclass
class Budget:
    epsilon: float
    delta: float = 0.0


class Ledger:
    """Per-data-set list of releases with totals and an optional cap."""

    def __init__(self) -> None:
        self._records: list[ReleaseRecord] = []
        self._budgets: dict[str, Budget] = {}
        self._labels: dict[str, str] = {}

    # -- budgets -----------------------------------------------------------
    def set_budget(self, dataset: str, epsilon: float, delta: float = 0.0) -> None:
        """Cap the total (ε, δ) of ``dataset``; a cap below what is spent already is refused."""
        if not (epsilon > 0 and math.isfinite(epsilon)) or not (0 <= delta < 1):
            raise ValueError("a budget needs 0 < ε < ∞ and 0 ≤ δ < 1")
        spent_eps, spent_delta = self.spent(dataset)
        if spent_eps > epsilon + 1e-12 or spent_delta > delta + 1e-15:
            raise BudgetExceeded(
                f"this data set has already spent ε = {spent_eps:g}, δ = {spent_delta:g}; "
                f"a cap of ε = {epsilon:g}, δ = {delta:g} would already be exceeded"
            )
        self._budgets[dataset] = Budget(float(epsilon), float(delta))

    def budget(self, dataset: str) -> Budget | None:
        return self._budgets.get(dataset)

    def label(self, dataset: str, name: str) -> None:
        """Attach a human-readable name (e.g. "Veteran (bundled)") to a fingerprint."""
        self._labels[dataset] = name

    def name_of(self, dataset: str) -> str:
        return self._labels.get(dataset, dataset)

    # -- spending ----------------------------------------------------------
    def spent(self, dataset: str) -> tuple[float, float]:
        """Total (ε, δ) spent on ``dataset`` by basic sequential composition."""
        records = [r for r in self._records if r.dataset == dataset]
        return (math.fsum(r.epsilon for r in records), math.fsum(r.delta for r in records))

    def remaining(self, dataset: str) -> tuple[float, float] | None:
        cap = self._budgets.get(dataset)
        if cap is None:
            return None
        eps, delta = self.spent(dataset)
        return (max(cap.epsilon - eps, 0.0), max(cap.delta - delta, 0.0))

    def check(self, dataset: str, epsilon: float, delta: float = 0.0) -> None:
        """Raise :class:`BudgetExceeded` if charging (ε, δ) would pass the cap."""
        if not (epsilon > 0 and math.isfinite(epsilon)) or not (0 <= delta < 1):
            raise ValueError("a release costs 0 < ε < ∞ and 0 ≤ δ < 1")
        cap = self._budgets.get(dataset)
        if cap is None:
            return
        eps, dl = self.spent(dataset)
        if eps + epsilon > cap.epsilon + 1e-12 or dl + delta > cap.delta + 1e-15:
            raise BudgetExceeded(
                f"This release costs ε = {epsilon:g}, δ = {delta:g}, but "
                f"{self.name_of(dataset)} has ε = {max(cap.epsilon - eps, 0):g}, "
                f"δ = {max(cap.delta - dl, 0):g} left of its cap (ε = {cap.epsilon:g}, δ = {cap.delta:g})."
            )

    def charge(
        self,
        dataset: str,
        method: str,
        epsilon: float,
        delta: float = 0.0,
        *,
        params: Mapping[str, Any] | None = None,
        parts: Mapping[str, float] | None = None,
        relation: str = "replace-one",
    ) -> ReleaseRecord:
        """Record a release after checking the cap; returns the frozen record."""
        self.check(dataset, epsilon, delta)
        if parts:
            total = math.fsum(parts.values())
            if abs(total - epsilon) > 1e-9 * max(1.0, epsilon):
                raise ValueError(f"budget parts sum to {total:g}, not to ε = {epsilon:g}")
        record = ReleaseRecord(
            dataset=dataset,
            method=method,
            epsilon=float(epsilon),
            delta=float(delta),
            params=dict(params or {}),
            parts=dict(parts or {}),
            relation=relation,
            time=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        )
        self._records.append(record)
        return record

    # -- reading -----------------------------------------------------------
    def records(self, dataset: str | None = None) -> list[ReleaseRecord]:
        return [r for r in self._records if dataset is None or r.dataset == dataset]

    def datasets(self) -> list[str]:
        seen = dict.fromkeys(r.dataset for r in self._records)
        seen.update(dict.fromkeys(self._budgets))
        return list(seen)

    def summary(self) -> list[dict[str, Any]]:
        """One row per data set: name, releases, ε and δ spent, cap."""
        rows = []
        for ds in self.datasets():
            eps, delta = self.spent(ds)
            cap = self._budgets.get(ds)
            rows.append(
                {
                    "data set": self.name_of(ds),
                    "fingerprint": ds,
                    "releases": len(self.records(ds)),
                    "ε spent": eps,
                    "δ spent": delta,
                    "ε cap": cap.epsilon if cap else None,
                    "δ cap": cap.delta if cap else None,
                }
            )
        return rows
