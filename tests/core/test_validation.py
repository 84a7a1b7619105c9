"""Uploaded CSVs: every problem is refused with the column, row and reason."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.core.validation import (
    InputError,
    Limits,
    category_column,
    coded_column,
    distinct_columns,
    numeric_column,
    read_csv,
    require_columns,
)

GOOD = b"time,event,group\n5,1,a\n7,0,b\n9,1,a\n"


def test_good_file_parses():
    frame = read_csv(GOOD)
    assert list(frame.columns) == ["time", "event", "group"]
    assert numeric_column(frame, "time").tolist() == [5.0, 7.0, 9.0]


def test_bom_and_spaces_are_tolerated():
    frame = read_csv(b"\xef\xbb\xbf time , event\n1, 0\n2, 1\n")
    assert list(frame.columns) == ["time", "event"]
    assert coded_column(frame, "event", [0, 1]).tolist() == [0, 1]


@pytest.mark.parametrize(
    "data, pattern",
    [
        (b"", "empty"),
        (b"   \n\n", "empty"),
        (b"time,event\n\xff\xfe1,2\n", "not UTF-8"),
        (b"time;event\n1;0\n2;1\n", "semicolons"),
        (b"time\tevent\n1\t0\n2\t1\n", "tabs"),
        (b"time,time\n1,0\n2,1\n", "Duplicate column"),
        (b"time,\n1,0\n2,1\n", "Column 2 of the header has no name"),
        (b"time,event\n1,0\n", "at least 2"),
        # one extra cell on every row would otherwise turn the first column into row labels, silently
        (b"p,truth\n0.1,0,1\n0.2,1,0\n", r"Row 2 has 3 cells but the header names 2 columns \(a trailing comma"),
        (b"p,truth\n0.1,0,\n0.2,1,\n", "Row 2 has 3 cells"),
        (b"p,truth\n0.1,0\n0.2\n0.3,1\n", "Row 3 has 1 cell but"),
    ],
)
def test_bad_files_are_named(data, pattern):
    with pytest.raises(InputError, match=pattern):
        read_csv(data)


def test_quoted_commas_and_blank_lines_are_not_miscounted():
    frame = read_csv(b'label,p\r\n"a, b",0.1\r\n\r\nc,0.2\r\n')
    assert frame.to_dict("list") == {"label": ["a, b", "c"], "p": ["0.1", "0.2"]}


def test_size_and_row_limits():
    with pytest.raises(InputError, match="limit is"):
        read_csv(GOOD, limits=Limits(max_bytes=10))
    with pytest.raises(InputError, match="3 rows; the limit is 2"):
        read_csv(GOOD, limits=Limits(max_rows=2))


def test_missing_column_lists_what_exists():
    with pytest.raises(InputError, match=r"Missing column\(s\) 'status'; the file has 'time', 'event', 'group'"):
        require_columns(read_csv(GOOD), ["time", "status"])


@pytest.mark.parametrize(
    "cell, pattern",
    [("abc", "row 3: the time is 'abc', not a finite number"), ("", "row 3: the time is empty"),
     ("inf", "'inf', not a finite number"), ("nan", "'nan', not a finite number"), ("-2", "row 3: the time -2 is negative")],
)
def test_bad_numeric_cells_name_column_and_row(cell, pattern):
    frame = read_csv(f"time,event\n1,0\n{cell},1\n3,1\n".encode())
    with pytest.raises(InputError, match=f"Column 'time', {pattern}" if "row" in pattern else pattern):
        numeric_column(frame, "time", minimum=0, what="time")


def test_event_codes_outside_declared_set():
    frame = read_csv(b"time,event\n1,0\n2,3\n")
    with pytest.raises(InputError, match=r"Column 'event', row 3: the event code 3 is not one of the declared codes \[0, 1\]"):
        coded_column(frame, "event", [0, 1], what="event code")
    with pytest.raises(InputError, match="not a whole number"):
        coded_column(read_csv(b"time,event\n1,0\n2,0.5\n"), "event", [0, 1])


def test_single_group_where_two_needed():
    frame = read_csv(b"time,group\n1,a\n2,a\n")
    with pytest.raises(InputError, match="single group"):
        category_column(frame, "group", min_levels=2)


def test_same_column_for_two_roles():
    with pytest.raises(InputError, match="more than one role"):
        distinct_columns("time", "time", None)


def test_range_maximum():
    with pytest.raises(InputError, match="above 1"):
        numeric_column(read_csv(b"p\n0.5\n1.5\n"), "p", minimum=0, maximum=1, what="p-value")


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=40))
def test_round_trip_of_valid_numbers(values):
    data = pd.DataFrame({"x": values}).to_csv(index=False).encode()
    parsed = numeric_column(read_csv(data), "x")
    np.testing.assert_allclose(parsed, values, rtol=1e-12)


def test_many_bad_rows_are_counted_and_the_first_few_named():
    """FDR p-values: how many rows are bad, and which ones first (not only the first)."""
    from dpcore.fdr import pvalues_from_frame

    frame = pd.DataFrame({"p": ["0.01", "1.5", "-0.2", "x", "0.3", "7", "", "2", "9"]})
    with pytest.raises(InputError, match=r"Column 'p': 2 rows have no finite p-value: rows 5 \('x'\), 8 \(empty\)"):
        pvalues_from_frame(frame, "p", None)
    frame.loc[frame.p.isin(["x", ""]), "p"] = "0.5"
    with pytest.raises(InputError) as err:
        pvalues_from_frame(frame, "p", None)
    assert str(err.value) == "Column 'p': 5 rows have a p-value outside [0, 1]: rows 3 (1.5), 4 (-0.2), 7 (7) and 2 more."


def test_a_text_column_mapped_to_events_says_no_event_column_was_found():
    from dpcore.survival import survival_from_frame

    frame = pd.DataFrame({"time": ["5", "7"], "group": ["a", "b"], "age": ["61", "70"]})
    with pytest.raises(InputError) as err:
        survival_from_frame(frame, time_col="time", event_col="group")
    assert str(err.value) == ("Column 'group' holds text (row 2: 'a'), not event codes [0, 1]; no event column was "
                              "found: no column holds only such codes. The file's columns are 'time', 'group', 'age'.")
    frame["status"] = ["1", "0"]
    with pytest.raises(InputError, match="column\\(s\\) 'status' hold only such codes: choose one as the event column"):
        survival_from_frame(frame, time_col="time", event_col="group")
    frame.loc[0, "status"] = "3"  # numbers outside the declared codes: the row is named as before
    with pytest.raises(InputError, match=r"Column 'status', row 2: the event code 3 is not one of the declared codes"):
        survival_from_frame(frame, time_col="time", event_col="status")
