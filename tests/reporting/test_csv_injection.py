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

from dpcore.reporting import release as release_module
from dpcore.reporting.release import FORMULA_STARTS, csv_text, spreadsheet_safe
from tests.support.release_cases import CALC, PREFIXES, RELEASES

def test_the_hostile_labels_start_with_every_formula_start():
    assert set(PREFIXES) == set(FORMULA_STARTS)


@pytest.fixture(autouse=True)
def _no_figure_files(monkeypatch):
    monkeypatch.setattr(release_module, "export", lambda figures: {})


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
