"""A real-data example with public per-feature ranges: scikit-learn's diabetes data (442 patients, 10 features).

The ranges below are written from clinical knowledge of each measurement (adult age, body-mass index,
mean arterial pressure, serum lipids in mg/dL, log triglycerides, fasting glucose), wide enough for any
adult patient, and were not read off the data; they are what a custodian would type into the upload
page. scikit-learn is a test / benchmark dependency only, so it is imported when the example is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: feature: (public minimum, public maximum), in scikit-learn's raw units (``load_diabetes(scaled=False)``).
DIABETES_FEATURE_RANGES = {
    "age": (18.0, 90.0),  # years, adults
    "sex": (1.0, 2.0),  # coded 1 / 2
    "bmi": (15.0, 50.0),  # kg/m²
    "bp": (50.0, 150.0),  # mean arterial pressure, mmHg
    "s1": (80.0, 350.0),  # total serum cholesterol, mg/dL
    "s2": (30.0, 260.0),  # LDL, mg/dL
    "s3": (15.0, 110.0),  # HDL, mg/dL
    "s4": (1.0, 10.0),  # total cholesterol / HDL
    "s5": (3.0, 7.0),  # ln serum triglycerides (20 to 1,100 mg/dL)
    "s6": (40.0, 200.0),  # blood glucose, mg/dL
}
#: disease progression one year after baseline: a score documented as positive and below 400
DIABETES_RESPONSE_RANGE = (0.0, 400.0)


@dataclass(frozen=True)
class Example:
    X: np.ndarray
    y: np.ndarray
    names: tuple[str, ...]
    x_bounds: tuple[np.ndarray, np.ndarray]
    y_bounds: tuple[float, float]


def diabetes_example() -> Example:
    """scikit-learn's diabetes data in raw units with the public ranges above."""
    from sklearn.datasets import load_diabetes

    data = load_diabetes(scaled=False)
    names = tuple(DIABETES_FEATURE_RANGES)
    lo = np.array([DIABETES_FEATURE_RANGES[n][0] for n in names])
    hi = np.array([DIABETES_FEATURE_RANGES[n][1] for n in names])
    return Example(np.asarray(data.data, dtype=float), np.asarray(data.target, dtype=float), names, (lo, hi),
                   DIABETES_RESPONSE_RANGE)
