"""Uploaded data: a CSV's columns mapped to ``(X, y)`` and optional public rows, with named errors."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from dpcore.core.validation import InputError, coded_column, distinct_columns, numeric_column


def regression_from_frame(frame, *, response: str, features: Sequence[str], public: str | None = None,
                          min_rows: int = 30):
    """Validated ``(X, y, is_public)`` from an uploaded frame: named numeric columns, distinct, enough rows.

    ``public`` optionally names a 0/1 column in which the user marks the rows
    whose data are public (1); without it no row is public. Messages name the
    column, the row and the problem (``dpcore.core.validation``).
    """
    features = list(features)
    if not features:
        raise InputError("Choose at least one feature column.")
    if response in features:
        raise InputError(f"Column {response!r} is the response; it cannot also be a feature.")
    distinct_columns(response, *features, public)
    y = numeric_column(frame, response, what="response")
    X = np.column_stack([numeric_column(frame, c, what="feature value") for c in features])
    if len(y) < min_rows:
        raise InputError(f"The file has {len(y)} rows; at least {min_rows} records are needed for a train/test split.")
    is_public = (coded_column(frame, public, [0, 1], what="public mark (1 = public, 0 = private)") == 1
                 if public else np.zeros(len(y), dtype=bool))
    return X, y, is_public


def feature_ranges(table, features: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature public ranges ``(lo, hi)`` from a table with columns ``feature``, ``lower``, ``upper`` (the page's
    editable table), in the order of ``features``; a missing, non-numeric or empty range names its feature."""
    rows = {str(f): (lo, hi) for f, lo, hi in zip(table["feature"], table["lower"], table["upper"])}
    lo, hi = np.empty(len(features)), np.empty(len(features))
    for j, name in enumerate(features):
        if name not in rows:
            raise InputError(f"Feature {name!r} has no public range.")
        try:
            lo[j], hi[j] = (float(v) for v in rows[name])
        except (TypeError, ValueError):
            raise InputError(f"Feature {name!r}: the public range must be two numbers.") from None
        if not (np.isfinite(lo[j]) and np.isfinite(hi[j]) and hi[j] > lo[j]):
            raise InputError(f"Feature {name!r}: the public maximum {hi[j]:g} must be larger than the minimum "
                             f"{lo[j]:g}.")
    return lo, hi
