"""Spreadsheet formulas in exported CSVs: every text cell a release ZIP writes that starts with =, +, -,
@, a tab or a carriage return gets OWASP's single-quote prefix, for every method's release, and numbers are kept.

Hostile labels reach the CSVs as group labels (survival), feature names (regression, sparse: table cells and
column headers) and hypothesis labels (online FDR). Figure files are left out (no browser needed here)."""

from __future__ import annotations

import csv
import io
import math
import zipfile

import numpy as np
import pandas as pd
import pytest

from dpcore import fdr
from dpcore import regression as R
from dpcore import release as release_module
from dpcore import sparse as sp
from dpcore import survival as sv
from dpcore.datasets import load_survival
from dpcore.release import FORMULA_STARTS, csv_text, spreadsheet_safe

CALC = "=cmd|' /C calc'!A0"
PREFIXES = ("=", "+", "-", "@", "\t", "\r")
assert set(PREFIXES) == set(FORMULA_STARTS)


def hostile(i: int) -> str:
    """The ``i``-th hostile label: each formula start in turn, all distinct."""
    return CALC if i == 0 else f"{PREFIXES[i % len(PREFIXES)]}HYPERLINK(\"http://x/?{i}\")"


@pytest.fixture(autouse=True)
def _no_figure_files(monkeypatch):
    monkeypatch.setattr(release_module, "export", lambda figures: {})


def _survival():
    d = load_survival("gehan")
    labels = {g: hostile(i) for i, g in enumerate(sorted(set(d.group)))}
    group = np.array([labels[g] for g in d.group])
    grid = sv.make_grid(d.horizon, data_unit=d.time_unit, grid_unit=d.default_grid_unit)
    return sv.release(d.time, d.event, grid=grid, epsilon=1.0, group=group, groups=tuple(labels.values()),
                      band_draws=20)


def _regression_data(d=6):
    rng = np.random.default_rng(3)
    X = R.normalise_rows(rng.standard_normal((200, d)))
    y = X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(200)
    return X, y - y.mean(), R.prepare(X, y, x_bounds=(-1, 1), y_bounds=(-6, 6), epsilon=0.1, release=True)


def _robust_lr():
    X, y, prep = _regression_data()
    return R.release(X, y, prep=prep, epsilon=1.0, omega_x=0.5, omega_y=1.0, public=None,
                     feature_names=[hostile(j) for j in range(X.shape[1])])


def _adassp():
    X, y, prep = _regression_data()
    return R.release_adassp(X, y, prep=prep, epsilon=2.0, delta=1e-5, public=None,
                            feature_names=[hostile(j) for j in range(X.shape[1])])


def _sparse(variant: str, loss: str = "linear"):
    data = sp.make_synthetic(600, 12, 3, loss=loss, noise=0.1, rng=np.random.default_rng(4))
    return sp.release_sparse(data.X, data.y, sparsity=3, epsilon=5.0, delta=1e-6, loss=loss, variant=variant,
                             feature_names=[hostile(j) for j in range(12)])


def _fdr():
    s = fdr.simulate_bernoulli(1, 60, pi1=0.2, rng=np.random.default_rng(5))
    return fdr.release(s.pvalues[0], alpha=0.05, epsilon=5.0, delta=2.5e-4, sensitivity=fdr.stated_sensitivity(0.08),
                       cutoff=10, labels=[hostile(i) for i in range(60)])


RELEASES = {"survival": _survival, "robust private LR": _robust_lr, "AdaSSP": _adassp,
            "sparse peeling": lambda: _sparse("peeling"), "sparse peeling (logistic)": lambda: _sparse("peeling",
                                                                                                      "logistic"),
            "sparse KT with private support": lambda: _sparse("private_support"), "online FDR": _fdr}


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


@pytest.mark.parametrize("name", list(RELEASES))
def test_every_csv_of_every_release_zip_is_spreadsheet_safe(name):
    bundle = RELEASES[name]()
    with zipfile.ZipFile(io.BytesIO(bundle.to_zip())) as archive:
        written = {n.removesuffix(".csv"): archive.read(n).decode() for n in archive.namelist() if n.endswith(".csv")}
    # the figures' text alternatives (their plotted numbers, beside each figure) are written by the same rule
    figure_tables = {n: written.pop(n) for n in list(written) if n.startswith("figures/")}
    for n, text in figure_tables.items():
        assert not [c for row in _cells(text) for c in row if c.startswith(FORMULA_STARTS) and not _number(c)], n
    assert set(written) == set(bundle.tables)
    quoted = 0
    for table_name, text in written.items():
        table, rows = bundle.tables[table_name], _cells(text)
        assert len(rows[0]) == table.shape[1]
        for j, column in enumerate(table.columns):
            cells = [r[j] for r in rows]  # the header's, then the rows'
            numbers = pd.api.types.is_numeric_dtype(table[column]) and not pd.api.types.is_bool_dtype(table[column])
            if numbers:  # written as they are, negative ones included
                got = np.array([float(c) if c else math.nan for c in cells[1:]])
                np.testing.assert_allclose(got, table[column].to_numpy(dtype=float), rtol=1e-12, equal_nan=True)
            for cell in cells[:1] if numbers else cells:
                assert not cell.startswith(FORMULA_STARTS), (table_name, cell)
                quoted += cell.startswith("'") and cell[1:].startswith(FORMULA_STARTS)
    assert quoted, "the hostile labels did not reach any CSV"
    assert any(CALC in text for text in written.values()) or name.startswith("sparse")


def test_the_escaping_rule():
    table = pd.DataFrame({"=label": [CALC, "a", "-1", "@x", "\tq", "\rr", "+1", " +ok", "x=1"],
                          "value": [-1.5, 2, 3, 4, 5, 6, 7, 8, 9], "flag": [True] * 9,
                          "level": pd.Categorical(["+a"] + ["b"] * 8)})
    rows = _cells(csv_text(table))
    assert rows[0] == ["'=label", "value", "flag", "level"]
    assert [r[0] for r in rows[1:]] == ["'" + CALC, "a", "'-1", "'@x", "'\tq", "'\rr", "'+1", " +ok", "x=1"]
    assert [r[1] for r in rows[1:3]] == ["-1.5", "2.0"] and rows[1][3] == "'+a"
    assert list(table["=label"])[0] == CALC  # the caller's table is not changed
    safe = spreadsheet_safe(table)
    assert safe["value"].equals(table["value"]) and safe["flag"].equals(table["flag"])
