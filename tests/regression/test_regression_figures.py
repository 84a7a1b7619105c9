"""The predicted-vs-observed figure (built without a browser): scores in the legend, the identity line."""

from __future__ import annotations

import numpy as np

from dpcore.regression.figures import predicted_vs_observed


def test_predicted_vs_observed_shows_r2_rmse_and_the_identity_line():
    y = np.array([1.0, 2.0, 4.0, 8.0])
    fig = predicted_vs_observed(y, y * 0.5, y, rho_private=0.9, rho_nonprivate=1.0, r2_private=-0.25,
                                r2_nonprivate=1.0, rmse_private=2.4, rmse_nonprivate=0.0)
    names = [t.name for t in fig.data]
    assert "prediction = observation" in names
    line = fig.data[names.index("prediction = observation")]
    assert list(line.x) == [1.0, 8.0] and list(line.y) == [1.0, 8.0]
    text = " ".join(a.text for a in fig.layout.annotations)
    assert "R² = -0.25" in text and "RMSE = 2.4" in text and "R² = 1.00" in text
    plain = predicted_vs_observed(y, y, y, rho_private=1.0, rho_nonprivate=1.0)  # scores optional
    assert "R²" not in " ".join(a.text for a in plain.layout.annotations)
