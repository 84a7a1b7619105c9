"""The sparse plan-first library: declared facts are checked by name, the proxy follows them, the file is read and
checked only by ``read_private``, and a locked plan releases exactly its settings."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from dpcore import notebooks
from dpcore import plan as pl
from dpcore import sparse as sp
from dpcore.plan import sparse as ps
from dpcore.core.validation import InputError

FEATURES = tuple(f"g{j + 1}" for j in range(6))
FACTS = pl.SparseFacts("y", 80, FEATURES, person_column="id", s_star=2)


def _rows(n: int = 60) -> list[list]:
    """A linear problem on g1 and g3, one person per row (the same rows every time)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, len(FEATURES))).clip(-1, 1).round(4)
    y = (2 * X[:, 0] - X[:, 2] + 0.3 * rng.normal(size=n)).round(4)
    return [[f"P{i:03d}", y[i], *X[i]] for i in range(n)]


def _csv(rows: list[list], header: str = "id,y," + ",".join(FEATURES)) -> bytes:
    return (header + "\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n").encode()


@pytest.mark.parametrize("change, words", [
    (dict(response_column=" "), "response column's name"),
    (dict(person_column="y"), "both 'y'"),
    (dict(feature_columns=("g1", "g2", "g1")), "'g1' is declared twice"),
    (dict(feature_columns=("g1", "y")), "response column 'y' is also declared as a feature"),
    (dict(feature_columns=("g1", "id")), "person column 'id' is also declared as a feature"),
    (dict(feature_columns=("g1", " ")), "feature column's name is blank"),
    (dict(n_features=5), "differs from the 6 feature columns"),
    (dict(feature_columns=("g1",)), "number of features must be between 2"),
    (dict(feature_columns=(), n_features=0), "number of features must be between 2"),
    (dict(loss="poisson"), "model must be one of linear, logistic"),
    (dict(threshold=0.5), "logistic model only"),
    (dict(loss="logistic", threshold=float("inf")), "threshold must be a number"),
    (dict(n_max=9), "at least 10"),
    (dict(n_max=4_000_000), "at most 20,000,000"),
    (dict(K=0.0), "feature bound K"),
    (dict(r=float("nan")), "response bound r"),
    (dict(B=-1.0), "ℓ1 radius B"),
    (dict(signal=0.0), "signal size"),
    (dict(noise=-0.1), "response noise σ"),
    (dict(s_star=7), "sparsity s* must be between 1 and the 6 features"),
    (dict(seed=-1), "proxy seed"),
])
def test_facts_refuse_what_cannot_be_used_naming_the_field(change, words):
    with pytest.raises(InputError) as err:
        replace(FACTS, **change)
    assert words in str(err.value), str(err.value)


@pytest.mark.parametrize("change, words", [
    (dict(epsilon=0.0), "needs a positive finite ε"),
    (dict(epsilon=float("inf")), "needs a positive finite ε"),
    (dict(delta=0.0), "needs 0 < δ < 1"),
    (dict(delta=1.0), "needs 0 < δ < 1"),
    (dict(sparsity=7), "features kept s must be between 1 and the 6"),
    (dict(variant="kt"), "release must be one of peel, kt_ps"),
])
def test_a_plan_refuses_settings_naming_them(change, words):
    with pytest.raises(InputError) as err:
        replace(pl.SparsePlan(FACTS, 1.0, 1e-5, 2), **change)
    assert words in str(err.value), str(err.value)


def test_proxy_follows_the_declared_facts_and_seed():
    facts = pl.SparseFacts("y", 2_000, n_features=20, K=1.5, s_star=3, signal=2.0, noise=0.5, seed=4)
    proxy = pl.simulate_sparse_proxy(facts)
    assert proxy.X.shape == (1_600, 20) and proxy.X_test.shape == (ps.PROXY_TEST, 20)  # the released 80 %
    assert np.abs(proxy.X).max() <= 1.5 and np.abs(proxy.X).max() == 1.5  # clipped to the declared K
    assert np.count_nonzero(proxy.theta) == 3 and set(np.abs(proxy.theta[proxy.theta != 0])) == {2.0}
    assert proxy.feature_names == tuple(f"x{j + 1}" for j in range(20)) and proxy.loss == "linear"
    residual = proxy.y - proxy.X @ proxy.theta
    assert abs(residual.std() - 0.5) < 0.05  # the declared σ, ± ~6 standard errors
    again = pl.simulate_sparse_proxy(facts)
    assert np.array_equal(again.X, proxy.X) and np.array_equal(again.theta, proxy.theta)  # a public seed
    assert not np.array_equal(pl.simulate_sparse_proxy(replace(facts, seed=5)).X, proxy.X)
    logistic = pl.simulate_sparse_proxy(replace(FACTS, loss="logistic"))
    assert set(np.unique(logistic.y)) == {-1.0, 1.0} and logistic.feature_names == FEATURES


def test_read_private_checks_the_file_against_the_declared_facts():
    cohort = pl.read_private_sparse(_csv(_rows()), "genes.csv", FACTS)
    assert cohort.X.shape == (48, 6) and cohort.feature_names == FEATURES  # the page's 80 % training split
    assert np.array_equal(cohort.y, np.array([r[1] for r in _rows()])[sp.upload_split(60)[0]])
    assert cohort.persons.source == "column 'id'" and len(cohort.persons.read()) == 48
    assert cohort.label == "genes.csv (uploaded, plan first)"
    with pytest.raises(InputError, match="Column 'g6' was declared but is not in genes.csv"):
        pl.read_private_sparse(_csv([r[:-1] for r in _rows()], "id,y," + ",".join(FEATURES[:-1])), "genes.csv",
                               FACTS)
    with pytest.raises(InputError, match="more rows than the declared 50 people"):
        pl.read_private_sparse(_csv(_rows()), "genes.csv", replace(FACTS, n_max=50))
    rows = _rows()
    rows[4][3] = "n/a"
    with pytest.raises(InputError, match="Column 'g2', row 6"):  # the header is row 1
        pl.read_private_sparse(_csv(rows), "genes.csv", FACTS)
    rows = _rows()
    rows[7][0] = "P004"
    with pytest.raises(InputError, match="same person in column 'id'"):
        pl.read_private_sparse(_csv(rows), "genes.csv", FACTS)
    with pytest.raises(InputError, match=r"Column 'y', row 2: the label .* is not 0/1"):
        pl.read_private_sparse(_csv(_rows()), "genes.csv", replace(FACTS, loss="logistic"))


def test_counted_features_are_every_other_column_and_their_number_is_checked():
    counted = replace(FACTS, feature_columns=(), n_features=6)
    cohort = pl.read_private_sparse(_csv(_rows()), "genes.csv", counted)
    assert cohort.feature_names == FEATURES  # the person column is not a feature
    with pytest.raises(InputError, match="has 6 columns besides the response and the person column, and 5 features"):
        pl.read_private_sparse(_csv(_rows()), "genes.csv", replace(counted, n_features=5))
    alone = replace(counted, person_column="", n_features=7)  # without a person column, the id column is a feature…
    with pytest.raises(InputError, match=r"Column 'id': 60 rows have no finite feature value: rows 2 \('P000'\)"):  # …and must be a number
        pl.read_private_sparse(_csv(_rows()), "genes.csv", alone)


def test_a_locked_plan_releases_exactly_its_settings():
    cohort = pl.read_private_sparse(_csv(_rows()), "genes.csv", FACTS)
    plan = pl.SparsePlan(FACTS, 4.0, 1e-4, 2)
    bundle = plan.release(cohort)
    assert (bundle.epsilon, bundle.delta, bundle.method) == (4.0, 1e-4, "Sparse regression: peeling + private fit")
    assert bundle.parts == plan.parts() and sum(plan.parts().values()) == pytest.approx(4.0)
    assert bundle.public_params["sparsity"] == 2 and bundle.public_params["n"] == 48 and bundle.dataset == cohort.label
    assert len(bundle.derived_params["support (in the order peeled)"]) == 2
    assert plan.params(48) == {"variant": "peeling", "loss": "linear", "sparsity": 2, "K": 1.0, "r": 5.0,
                               "intercept": True, "select_share": 0.5}
    script = notebooks.script(plan.config(cohort.feature_names, repeats=20))
    assert "EPSILON, DELTA, SPARSITY, SEED, REPEATS = 4.0, 0.0001, 2, 0, 20" in script
    assert "'y'" in script and "'g6'" in script  # it reads the declared columns of the user's CSV
    kt = replace(plan, variant="kt_ps")
    kt_bundle = kt.release(cohort)
    assert kt_bundle.method == kt.method == "Sparse regression by knowledge transfer (private support)"
    assert kt_bundle.parts == kt.parts() and kt_bundle.public_params["m"] == kt.params(48)["m"] == 64
    assert kt.params(48)["lambda"] == pytest.approx(kt_bundle.public_params["lambda"])
