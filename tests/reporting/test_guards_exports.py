"""What leaves the app is computed from released values only, and an upload past a limit is refused at the limit.

Released values only: two different private data sets given the same released counts (the OpenDP draw fixed, the
band's redraws seeded alike) export identical tables — curves, bands, medians, tests. A table that moved with the
private rows would carry information no noise covers. Upload limits: a file exactly at a limit is read, one byte,
row or column over it is refused.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.core import datasets

from dpcore import survival
from dpcore.survival import bundle as survival_bundle
from dpcore.core.validation import InputError, Limits, read_csv


def test_survival_tables_depend_on_the_released_counts_only(monkeypatch):
    ds = datasets.load_survival("veteran")
    grid = survival.make_grid(ds.horizon, data_unit=ds.time_unit, grid_unit="months")
    real_release, real_rng = survival_bundle.release_counts, np.random.default_rng
    drawn = {}

    def same_draw(counts, noise):  # the first release's OpenDP draw, handed to every release
        drawn.setdefault("rel", real_release(counts, noise))
        return drawn["rel"]

    monkeypatch.setattr(survival_bundle, "release_counts", same_draw)
    monkeypatch.setattr(np.random, "default_rng", lambda seed=None: real_rng(20260))
    shifted = np.random.RandomState(3).permutation(len(ds.time))
    bundles = [survival.release(time, ds.event, grid=grid, epsilon=1.0, group=ds.group, groups=ds.groups,
                                dataset="Veteran", band_draws=30)
               for time in (ds.time, ds.time[shifted])]
    first, second = ({name: t.to_json() for name, t in b.tables.items()} for b in bundles)
    assert first.keys() == second.keys() and "kaplan_meier" in first
    for name in first:
        assert first[name] == second[name], f"the released table {name!r} moved with the private rows"
    assert bundles[0].public_params == bundles[1].public_params


def _csv(rows: int, columns: int) -> bytes:
    header = ",".join(f"c{j}" for j in range(columns))
    body = "\n".join(",".join(str(i + j) for j in range(columns)) for i in range(rows))
    return f"{header}\n{body}\n".encode()


def test_an_upload_is_refused_one_byte_past_the_size_limit():
    data = _csv(5, 3)
    assert len(read_csv(data, limits=Limits(max_bytes=len(data)))) == 5
    with pytest.raises(InputError, match="the limit is"):
        read_csv(data, limits=Limits(max_bytes=len(data) - 1))


def test_an_upload_is_refused_one_row_past_the_row_limit():
    data = _csv(6, 3)
    assert len(read_csv(data, limits=Limits(max_rows=6))) == 6
    with pytest.raises(InputError, match="6 rows; the limit is 5"):
        read_csv(data, limits=Limits(max_rows=5))


def test_an_upload_is_refused_one_column_past_the_column_limit():
    data = _csv(3, 6)
    assert read_csv(data, limits=Limits(max_columns=6)).shape == (3, 6)
    with pytest.raises(InputError, match="6 columns; at most"):
        read_csv(data, limits=Limits(max_columns=5))
