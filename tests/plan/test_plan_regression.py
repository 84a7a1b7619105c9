"""The regression plan-first library: declared facts are checked by name, the proxy follows them and reads no file,
``read_private`` checks the file against them, and a locked plan releases exactly its settings."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from dpcore import plan as pl
from dpcore import regression as R
from dpcore.plan import common as plan_common
from dpcore.core.validation import InputError

FACTS = pl.RegressionFacts("ic50", ("a", "b", "c"), 150, (0.0, 0.0, -1.0), (1.0, 1.0, 1.0), -5.0, 5.0,
                           unit="patient", r2=0.5, n_test=30, person_column="id")


def _rows(n: int = 120) -> list[tuple]:
    return [(f"P{i:03d}", round(-4 + (37 * i) % 80 / 10, 1), (i % 7) / 7, (i % 3) / 3, round(((i * 11) % 20) / 10 - 1, 1))
            for i in range(n)]


def _csv(rows: list[tuple]) -> bytes:
    return ("id,ic50,a,b,c\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n").encode()


@pytest.mark.parametrize("change, words", [
    (dict(response_column=" "), "response column's name"),
    (dict(feature_columns=()), "at least one feature column"),
    (dict(feature_columns=("a", "", "c")), "one of the declared feature columns is empty"),
    (dict(feature_columns=("a", "a", "c")), "Feature column 'a' is declared twice"),
    (dict(feature_columns=("a", "ic50", "c")), "both 'ic50'"),
    (dict(person_column="b"), "both 'b'"),
    (dict(feature_columns=tuple(f"x{j}" for j in range(65)), feature_lower=(0.0,) * 65,
          feature_upper=(1.0,) * 65), "at most 64"),
    (dict(unit=" "), "unit of privacy"),
    (dict(n_max=59), "between 60"),
    (dict(n_test=19), "held-out rows"),
    (dict(n_test=130), "held-out rows"),
    (dict(feature_lower=(0.0, 0.0)), "one public feature minimum and maximum per feature column (3)"),
    (dict(feature_upper=(1.0, 0.0, 1.0)), "Feature 'b'"),
    (dict(feature_upper=(1.0, float("nan"), 1.0)), "Feature 'b'"),
    (dict(response_upper=-5.0), "public response maximum"),
    (dict(response_lower=float("-inf")), "public response maximum"),
    (dict(r2=1.0), "expected R²"),
    (dict(r2=-0.1), "expected R²"),
    (dict(seed=-1), "seed"),
])
def test_facts_refuse_what_cannot_be_used_naming_the_field(change, words):
    with pytest.raises(InputError) as err:
        replace(FACTS, **change)
    assert words in str(err.value), str(err.value)


@pytest.mark.parametrize("change, words", [
    (dict(epsilon=0.0), "needs a positive finite ε"),
    (dict(method="OLS"), "The method must be one of"),
    (dict(y_centre="median"), "response centre"),
    (dict(sigma_y="mad"), "response scale"),
    (dict(prep_share=1.0), "share of ε for the DP centre/scale"),
    (dict(split=(0.5, 0.5, 0.0)), "budget split"),
])
def test_plans_refuse_settings_that_cannot_be_released(change, words):
    with pytest.raises(InputError, match=words):
        replace(pl.RegressionPlan(FACTS, 1.0), **change)


def test_proxy_follows_the_declared_facts_and_reads_no_file(monkeypatch):
    monkeypatch.setattr(plan_common, "read_csv", lambda *a, **k: pytest.fail("the proxy read a file"))
    facts = replace(FACTS, n_max=10_000, n_test=100)
    X, y = pl.simulate_regression_proxy(facts)
    assert X.shape == (10_000, 3) and y.shape == (10_000,)
    assert np.all(X >= np.array(facts.feature_lower)) and np.all(X <= np.array(facts.feature_upper))
    assert np.all((y >= -5.0) & (y <= 5.0)) and abs(np.median(y)) < 0.05  # the declared range's midpoint
    design = np.column_stack([X, np.ones(len(y))])
    fitted = design @ np.linalg.lstsq(design, y, rcond=None)[0]
    assert abs(1.0 - np.var(y - fitted) / np.var(y) - 0.5) < 0.03  # the declared R² (clipping at 3σ moves it little)
    assert abs(np.std(y) - 10.0 / 6.0) < 0.05  # σ = range / 6, the public σy rule
    again = pl.simulate_regression_proxy(facts)
    assert np.array_equal(again[1], y)  # a public seed: the same proxy every time
    assert not np.array_equal(pl.simulate_regression_proxy(replace(facts, seed=1))[1], y)
    no_signal = pl.simulate_regression_proxy(replace(facts, r2=0.0))
    design = np.column_stack([no_signal[0], np.ones(len(y))])
    fitted = design @ np.linalg.lstsq(design, no_signal[1], rcond=None)[0]
    assert 1.0 - np.var(no_signal[1] - fitted) / np.var(no_signal[1]) < 0.01


def test_read_private_checks_the_file_against_the_declared_facts():
    cohort = pl.read_private_regression(_csv(_rows()), "cells.csv", FACTS)
    assert cohort.X.shape == (120, 3) and cohort.y[1] == pytest.approx(-0.3)
    assert cohort.persons.source == "column 'id'" and cohort.label == "cells.csv (uploaded, plan first)"
    with pytest.raises(InputError, match="Column 'c' was declared but is not in cells.csv"):
        pl.read_private_regression(b"id,ic50,a,b\nP1,3,1,0\nP2,4,0,1\n", "cells.csv", FACTS)
    with pytest.raises(InputError, match="more rows than the declared 100 people"):
        pl.read_private_regression(_csv(_rows()), "cells.csv", replace(FACTS, n_max=100))
    rows = _rows()
    rows[4] = (*rows[4][:3], "high", rows[4][4])
    with pytest.raises(InputError, match="Column 'b', row 6"):  # the header is row 1
        pl.read_private_regression(_csv(rows), "cells.csv", FACTS)
    rows = _rows()
    rows[7] = ("P004", *rows[7][1:])
    with pytest.raises(InputError, match="same person in column 'id'"):
        pl.read_private_regression(_csv(rows), "cells.csv", FACTS)
    with pytest.raises(InputError, match="The file has 59 rows; at least 60"):  # the release script's rule
        pl.read_private_regression(_csv(_rows(59)), "cells.csv", FACTS)
    with pytest.raises(InputError, match="The file has 70 rows; at least 81"):  # 30 held out, > 20 to train
        pl.read_private_regression(_csv(_rows(70)), "cells.csv", replace(FACTS, n_test=60))


def test_a_locked_adassp_plan_releases_exactly_its_settings():
    plan = pl.RegressionPlan(FACTS, 2.0)  # AdaSSP, the default; DP centre and scale at 10 % of ε
    cohort = pl.read_private_regression(_csv(_rows()), "cells.csv", FACTS)
    test, private = plan.rows(120)
    assert test.size == 30 and private.size == 90 and not set(test) & set(private)
    bundle = plan.release(cohort)
    assert bundle.method == R.ADASSP and bundle.epsilon == plan.total_epsilon == 2.0
    assert bundle.delta == plan.delta == 1.0 / 120**2  # 1/n² at the declared bound less the held-out rows
    assert bundle.public_params["n_private"] == 90 and bundle.unit == "patient"
    assert sorted(bundle.parts.values()) == pytest.approx(sorted(plan.parts().values()))
    assert set(plan.parts()) == {"λ_min", "XᵀX", "Xᵀy", "response centre", "response scale"}
    assert plan.params(cohort) == {"method": R.ADASSP, "n_private": 90, "n_public_not_protected": 0, "d": 3,
                                   "delta": plan.delta}
    assert plan.persons(cohort).rows.tolist() == private.tolist()  # charged: the rows the release reads
    config = plan.config(cohort)
    assert (config.n_test, config.n_private, config.seed, config.delta) == (30, 90, 0, plan.delta)
    assert config.features == ("a", "b", "c") and config.x_bounds == ([0.0, 0.0, -1.0], [1.0, 1.0, 1.0])


def test_a_locked_robust_plan_releases_exactly_its_settings():
    plan = pl.RegressionPlan(FACTS, 1.5, R.METHOD, y_centre="public", sigma_y="public", split=(0.3, 0.6, 0.1),
                             priors=False, omegas=(0.2, 0.7))
    cohort = pl.read_private_regression(_csv(_rows()), "cells.csv", FACTS)
    bundle = plan.release(cohort)
    assert bundle.method == R.METHOD and bundle.epsilon == plan.total_epsilon == 1.5 and bundle.delta == 0.0
    assert plan.parts() == pytest.approx({"nxx": 0.45, "nxy": 0.9, "nyy": 0.15})
    assert bundle.public_params["omega_x"] == 0.2 and bundle.public_params["omega_y"] == 0.7
    assert bundle.public_params["split (nxx, nxy, nyy)"] == [0.3, 0.6, 0.1]
    assert plan.params(cohort)["omega"] == (0.2, 0.7) and plan.params(cohort)["priors"] is False
    tuned = replace(plan, omegas=None)
    assert tuned.thresholds() in {(float(a), float(b)) for a in R.OMEGA_GRID for b in R.OMEGA_GRID}
    assert tuned.release(cohort).public_params["threshold tuning"]["n"] == FACTS.n_fit
    assert math.isclose(replace(plan, y_centre="dp", prep_share=0.2).parts()["response centre"], 0.3)
