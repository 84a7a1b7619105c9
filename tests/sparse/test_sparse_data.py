"""Upload helpers of the sparse page: the response guessed by name, the share of clipped cells."""

import numpy as np
import pandas as pd

from dpcore.core import columns
from dpcore import sparse as sp


def test_the_response_is_guessed_by_the_shared_column_guess():
    """The sparse page uses ``dpcore.core.columns`` like every upload page (one guesser, not one per method)."""
    frame = pd.DataFrame({"mean radius": [1.0, 2.0], "mean area": [3.0, 4.0], "target": [0, 1]})
    assert columns.guess(frame, "response").column == "target"
    drug = pd.DataFrame({"g1": [0, 1], "LN_IC50_drug7": [0.5, -1.2], "g2": [1, 0]})
    assert columns.guess(drug, "response").column == "LN_IC50_drug7"


def test_clipping_report_counts_cells_and_names_the_worst_columns():
    X = np.array([[0.5, 3.0, -0.2], [0.1, 2501.0, -4.0], [0.0, 0.9, 0.3], [-0.9, 1.0, 0.0]])
    share, cols = sp.clipping_report(X, 1.0, ["ok", "area", "neg"])
    assert share == 3 / 12  # |x| = K is inside the bound, not clipped
    assert cols == [("area", 2501.0), ("neg", 4.0)]
    assert sp.clipping_report(X, 5000.0, ["ok", "area", "neg"]) == (0.0, [])
