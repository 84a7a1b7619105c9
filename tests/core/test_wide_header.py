"""A header of a million columns: a named error within seconds, and nothing left running.

The duplicate-name check used to count every name against every other (10¹² steps for 10⁶ columns), so such an
upload never returned and went on burning a core after its tab was closed. Every check is linear now and a header
past :data:`dpcore.core.validation.MAX_UPLOAD_COLUMNS` is refused before a name is built.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dpcore.core.validation import MAX_UPLOAD_COLUMNS, InputError, Limits, read_csv
from tests.support.uploads import WIDE

ROOT = Path(__file__).resolve().parents[2]


def test_a_million_columns_are_refused_by_name_within_seconds():
    # in a child with a deadline: the quadratic check never returned, and a test must not hang with it
    code = ("import sys, time; from tests.support.uploads import wide_csv; from dpcore.core.validation import read_csv\n"
            "data = wide_csv(); start = time.perf_counter()\n"
            "try:\n    read_csv(data)\nexcept ValueError as err:\n    print(f'{time.perf_counter() - start:.3f}', err)")
    try:
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    except subprocess.TimeoutExpired:
        pytest.fail("read_csv did not answer a 10⁶-column header within 60 s")
    seconds, message = done.stdout.split(" ", 1)
    assert f"The header names {WIDE:,} columns; at most {MAX_UPLOAD_COLUMNS:,}" in message, done.stdout + done.stderr
    assert float(seconds) < 3.0


def test_the_limit_counts_cells_as_csv_reads_them():
    at_limit = ",".join(f'"name, {i}"' for i in range(10)).encode() + b"\n" + b",".join([b"1"] * 10) + b"\n"
    frame = read_csv(at_limit + b",".join([b"2"] * 10) + b"\n", limits=Limits(max_columns=10))
    assert frame.shape == (2, 10)  # ten quoted names holding commas are ten columns, not twenty
    with pytest.raises(InputError, match="The header names 11 columns; at most 10 are supported"):
        read_csv(b"a,b,c,d,e,f,g,h,i,j,k\n" + b"1,2,3,4,5,6,7,8,9,10,11\n" * 2, limits=Limits(max_columns=10))
