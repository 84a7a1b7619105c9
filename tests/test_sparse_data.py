"""Upload helpers of the sparse page (issue 32): the response guessed by name, the share of clipped cells."""

import numpy as np

from dpcore import sparse as sp


def test_response_is_guessed_by_name_else_the_last_column():
    assert sp.guess_response(["mean radius", "mean area", "target"])[0] == "target"
    assert sp.guess_response(["Y", "g1"])[0] == "Y"
    assert sp.guess_response(["g1", "LN_IC50_drug7", "g2"])[0] == "LN_IC50_drug7"
    column, why = sp.guess_response(["a", "b", "c"])
    assert column == "c" and "last column" in why


def test_clipping_report_counts_cells_and_names_the_worst_columns():
    X = np.array([[0.5, 3.0, -0.2], [0.1, 2501.0, -4.0], [0.0, 0.9, 0.3], [-0.9, 1.0, 0.0]])
    share, cols = sp.clipping_report(X, 1.0, ["ok", "area", "neg"])
    assert share == 3 / 12  # |x| = K is inside the bound, not clipped
    assert cols == [("area", 2501.0), ("neg", 4.0)]
    assert sp.clipping_report(X, 5000.0, ["ok", "area", "neg"]) == (0.0, [])
