"""Registry of the bundled data sets and their *public* metadata.

Metadata (time unit, horizon, group labels, event coding, response range)
are documented properties of each public data set, recorded in
``assets/datasets/manifest.json`` by ``scripts/build_assets.py``; methods
may use them as public parameters. Everything else in the files is treated
as private data, exactly as an upload would be.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from dpcore.core.persons import Persons

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "datasets"

#: Days per grid unit, for turning a data set's native unit into a public grid.
UNIT_DAYS = {"days": 1.0, "weeks": 7.0, "months": 365.25 / 12.0, "years": 365.25}


@functools.lru_cache(maxsize=1)
def manifest() -> dict:
    """The provenance manifest (source, licence, rows, preprocessing) as a dict."""
    return json.loads((ASSETS / "manifest.json").read_text())


@dataclass(frozen=True)
class SurvivalDataset:
    """One bundled survival data set: private columns plus public metadata."""

    name: str
    title: str
    time: np.ndarray
    event: np.ndarray
    group: np.ndarray | None
    time_unit: str
    horizon: float
    default_grid_unit: str
    group_label: str | None
    groups: tuple[str, ...] = ()  # the declared (public) group labels a release uses
    event_labels: dict = field(default_factory=dict)
    provenance: dict = field(default_factory=dict)

    @property
    def competing(self) -> bool:
        return len(self.event_labels) > 1


#: how a bundled R survival set names its persons (documented in the manifest's provenance: R's row order)
SURVIVAL_PERSON_RULE = "the row number in the bundled file (R's own row order of the data set)"


def survival_persons(name: str, data: SurvivalDataset) -> Persons:
    """The persons of bundled survival set ``name``: row i of the bundled CSV is person i (the R data set's row
    order, kept by ``scripts/build_assets.py``), so every analysis of it charges the same people."""
    return Persons.named(f"survival:{name}", range(1, len(data.time) + 1), SURVIVAL_PERSON_RULE)


def gdsc_persons(cell_lines) -> Persons:
    """Bundled GDSC's persons are its cell lines, named by COSMIC id: every drug, feature count and page reads a
    subset of the same people (:meth:`Persons.subset` of all bundled cell lines, in the order of ``cell_lines``)."""
    every = load_gdsc().features.index
    persons = Persons.named("gdsc:COSMIC", every.to_numpy(), "the cell line's COSMIC id")
    return persons.subset(every.get_indexer(np.asarray(cell_lines)))


def survival_names() -> list[str]:
    return list(manifest()["survival"])


def survival_title(name: str) -> str:
    return manifest()["survival"][name]["title"]


def load_survival(name: str) -> SurvivalDataset:
    """Load bundled survival set ``name`` (see :func:`survival_names`)."""
    meta = manifest()["survival"].get(name)
    if meta is None:
        raise KeyError(f"no bundled survival data set {name!r}; choose from {survival_names()}")
    frame = pd.read_csv(ASSETS / meta["file"])
    group = frame["group"].astype(str).to_numpy() if "group" in frame else None
    return SurvivalDataset(
        name=name,
        title=meta["title"],
        time=frame["time"].to_numpy(dtype=float),
        event=frame["event"].to_numpy(dtype=np.int64),
        group=group,
        time_unit=meta["time_unit"],
        horizon=float(meta["horizon"]),
        default_grid_unit=meta["default_grid_unit"],
        group_label=meta["group_label"],
        groups=tuple(meta.get("groups") or ()),
        event_labels={int(k): v for k, v in meta["event_labels"].items()},
        provenance={k: meta[k] for k in ("source", "licence", "rows", "preprocessing")},
    )


@dataclass(frozen=True)
class GDSC:
    """The bundled GDSC subset: ln IC50 (cell lines × drugs) and binary genomic features."""

    ic50: pd.DataFrame
    features: pd.DataFrame
    tissue: pd.Series
    drugs: pd.DataFrame
    response_range: tuple[float, float]
    provenance: dict

    def drug_label(self, drug_id: str) -> str:
        """``"Nutlin-3a (GDSC drug 1047, target MDM2)"``, or ``"GDSC drug 221"`` where the release names none."""
        number = drug_id.removeprefix("Drug_").removesuffix("_IC50")
        row = self.drugs[self.drugs.DRUG_ID == drug_id]
        if not len(row):
            return f"GDSC drug {number}"
        return f"{row.DRUG_NAME.iloc[0]} (GDSC drug {number}, target {row.DRUG_TARGET.iloc[0]})"

    def drug_data(self, drug_id: str, n_features: int) -> tuple[np.ndarray, np.ndarray]:
        """``(X, y)`` for cell lines with a measured IC50: the first ``n_features``
        features in (public) frequency order, and ln IC50."""
        y = self.ic50[drug_id]
        keep = y.notna().to_numpy()
        X = self.features.iloc[:, :n_features].to_numpy(dtype=float)[keep]
        return X, y.to_numpy(dtype=float)[keep]

    def drug_cell_lines(self, drug_id: str) -> np.ndarray:
        """COSMIC IDs of the rows of :meth:`drug_data`, in the same order."""
        return self.ic50.index[self.ic50[drug_id].notna()].to_numpy()


#: Every GDSC analysis (any drug, any number of features, any page) uses the same cell lines, the unit of
#: privacy, so all GDSC releases draw on one ledger entry: keying it by drug or by feature count would let
#: the same cell lines collect several budgets.
GDSC_LEDGER_LABEL = "GDSC cell lines (bundled)"
GDSC_LEDGER_KEY = "bundled-gdsc-cell-lines"


@functools.lru_cache(maxsize=1)
def load_gdsc() -> GDSC:
    """Load the bundled GDSC v17 subset (cached: it is public and read-only)."""
    meta = manifest()["gdsc"]
    files = meta["files"]
    ic50 = pd.read_csv(ASSETS / files["ic50"], index_col="COSMIC_ID")
    feats = pd.read_csv(ASSETS / files["features"], index_col="COSMIC_ID")
    drugs = pd.read_csv(ASSETS / files["drugs"])
    tissue = feats.pop("tissue")
    return GDSC(
        ic50=ic50,
        features=feats,
        tissue=tissue,
        drugs=drugs,
        response_range=tuple(meta["response_range"]),
        provenance={k: meta[k] for k in ("source", "licence", "rows", "preprocessing")},
    )
