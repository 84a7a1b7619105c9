"""The plan-first path for sparse regression: declare the public facts, explore on a proxy, lock, then read the file.

A release's (ε, δ) is proved for settings that do not depend on the private rows (``docs/privacy.md``). Here every
setting is chosen before those rows are read: the custodian declares what the study design makes public
(:class:`SparseFacts`: the response and feature columns, the model, n or a bound on it, the public bounds K, r and B
the release clips to), the settings are tried on a **proxy** simulated from those facts and a public seed
(:func:`simulate_proxy`, the sparse simulator with a declared θ*; it reads nobody), and the locked
:class:`SparsePlan` is applied to the private file only when the release is made (:func:`read_private`, the only
function here that touches its bytes). Such a release's settings were, by construction, "fixed before the private
rows were read" (:data:`dpcore.provenance.FIXED`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from dpcore import sparse as sp
from dpcore.ledger import Persons
from dpcore.notebooks import SparseConfig
from dpcore.plan.common import check_columns, read_declared
from dpcore.sparse.events import KT_PRIVATE_SUPPORT, PEELING
from dpcore.core.validation import InputError
from dpcore.core.mechanisms import check_budget

#: the largest n·d a proxy is simulated for (the sparse page's memory cap on the data)
MAX_CELLS = 20_000_000
#: the most features a plan declares (KT with private support draws m·d public synthetic values, m ≤ 20,000)
MAX_FEATURES = 1_000
#: held-out proxy records for the test error (simulated, so they cost nobody anything)
PROXY_TEST = 1_000
#: the sparse page's and its script's split: this share of the rows, chosen by a public seed, is released
#: the releases a plan can lock (the page's choice) → ``dpcore.sparse.release_sparse``'s variant
VARIANTS = {"peel": "peeling", "kt_ps": "private_support"}
#: the sparse page's ε grid for its trade-off curves
SWEEP = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0)
#: the method name each variant is charged under in the ledger (as on the sparse page)
METHOD_NAMES = {"peel": PEELING, "kt_ps": KT_PRIVATE_SUPPORT}


def _positive(value: float, what: str) -> None:
    if not (math.isfinite(value) and value > 0):
        raise InputError(f"The {what} must be a positive number; got {value}.")


@dataclass(frozen=True)
class SparseFacts:
    """What the study design makes public before any row is read; every field is checked on construction.

    The features are named (``feature_columns``) or counted (``n_features``: then every column besides the response
    and the person column is a feature, and a file with another number of them is refused). ``n_max``: the number of
    people, or an upper bound on it (a file with more rows is refused). ``K``, ``r`` and ``B`` are the public bounds
    the release clips to and calibrates its noise with; ``threshold`` (logistic only) turns a continuous response
    into labels. ``s_star``, ``signal`` and ``noise`` shape the proxy only (how many features matter, their size,
    the response noise): expected values from the protocol or the literature, never read off the file.
    """

    response_column: str
    n_max: int
    feature_columns: tuple[str, ...] = ()
    n_features: int = 0
    loss: str = "linear"
    threshold: float | None = None
    K: float = 1.0
    r: float = 5.0
    B: float = 10.0
    person_column: str = ""
    identical_rows_are_different_people: bool = False
    s_star: int = 5
    signal: float = 1.0
    noise: float = 0.5
    seed: int = 0

    def __post_init__(self) -> None:
        if not self.response_column.strip():
            raise InputError("Declare the response column's name.")
        check_columns({"response column": self.response_column, "person column": self.person_column})
        features = self.feature_columns
        if any(not f.strip() for f in features):
            raise InputError("A feature column's name is blank: name every feature column.")
        seen = set()
        for name in features:
            if name in seen:
                raise InputError(f"The feature column {name!r} is declared twice.")
            seen.add(name)
            for what, other in (("response column", self.response_column), ("person column", self.person_column)):
                if name == other:
                    raise InputError(f"The {what} {name!r} is also declared as a feature column: each role needs "
                                     "its own column.")
        if features and self.n_features not in (0, len(features)):
            raise InputError(f"The number of features ({self.n_features}) differs from the {len(features)} feature "
                             "columns named: name them or count them.")
        if not 2 <= self.d <= MAX_FEATURES:
            raise InputError(f"The number of features must be between 2 and {MAX_FEATURES:,}; got {self.d}.")
        if self.loss not in sp.LOSSES:
            raise InputError(f"The model must be one of {', '.join(sp.LOSSES)}; got {self.loss!r}.")
        if self.threshold is not None and (self.loss != "logistic" or not math.isfinite(self.threshold)):
            raise InputError("The threshold must be a number, and applies to the logistic model only.")
        if int(self.n_max) < 10 or int(self.n_max) * self.d > MAX_CELLS:
            raise InputError(f"The number of people (or its bound) must be at least 10, and times the number of "
                             f"features at most {MAX_CELLS:,}; got {self.n_max} × {self.d}.")
        for value, what in ((self.K, "feature bound K"), (self.r, "response bound r"), (self.B, "ℓ1 radius B"),
                            (self.signal, "signal size")):
            _positive(value, what)
        if not (math.isfinite(self.noise) and self.noise >= 0):
            raise InputError(f"The response noise σ must be zero or a positive number; got {self.noise}.")
        if not 1 <= int(self.s_star) <= self.d:
            raise InputError(f"The declared sparsity s* must be between 1 and the {self.d} features; "
                             f"got {self.s_star}.")
        if int(self.seed) < 0:
            raise InputError(f"The proxy seed must be a whole number ≥ 0; got {self.seed}.")

    @property
    def d(self) -> int:
        """The number of features, named or counted."""
        return len(self.feature_columns) or int(self.n_features)

    @property
    def n_train(self) -> int:
        """The rows a release of ``n_max`` people reads (the page's training split)."""
        return int(sp.TRAIN_SHARE * self.n_max)

    def names(self) -> tuple[str, ...]:
        """The feature names a figure shows: the declared ones, or x1…xd when they were only counted."""
        return self.feature_columns or tuple(f"x{j + 1}" for j in range(self.d))


def simulate_proxy(facts: SparseFacts) -> sp.SparseData:
    """A public stand-in for the data: ``facts.n_train`` training records and :data:`PROXY_TEST` held-out ones.

    Features ``N(0, 1)`` clipped to ``[−K, K]``; θ* has ``s*`` entries ±``signal`` at positions from the seed;
    the response is linear with noise σ or a logistic label (:func:`dpcore.sparse.make_synthetic`). It reads no
    row of anyone: every input is a declared fact.
    """
    data = sp.make_synthetic(facts.n_train, facts.d, int(facts.s_star), loss=facts.loss, noise=facts.noise,
                             K=facts.K, magnitude=facts.signal, n_test=PROXY_TEST,
                             rng=np.random.default_rng(int(facts.seed)))
    return replace(data, label="proxy", feature_names=facts.names())


@dataclass(frozen=True)
class SparsePlan:
    """The locked settings of one sparse release, chosen on the proxy: nothing here depends on a private row.

    ``delta`` is fixed before the file is read (the page offers 1/n² with n the declared bound, which is at most
    1/n² for any file that meets it); ``variant``: a key of :data:`VARIANTS`.
    """

    facts: SparseFacts
    epsilon: float
    delta: float
    sparsity: int
    variant: str = "peel"

    def __post_init__(self) -> None:
        check_budget(self.epsilon, self.delta, delta_needed=True, what="the release")
        if not 1 <= int(self.sparsity) <= self.facts.d:
            raise InputError(f"The features kept s must be between 1 and the {self.facts.d} features; "
                             f"got {self.sparsity}.")
        if self.variant not in VARIANTS:
            raise InputError(f"The release must be one of {', '.join(VARIANTS)}; got {self.variant!r}.")

    @property
    def method(self) -> str:
        return METHOD_NAMES[self.variant]

    def constants(self) -> dict:
        """The public constants every sparse method takes (the sparse page's defaults; m from the declared n)."""
        return dict(K=self.facts.K, r=self.facts.r, B=self.facts.B, lam_rule="balanced", c_lam=sp.SparseParams.c_lam,
                    c1=sp.SparseParams.c1, T2=sp.SparseParams.T2, dp_T=sp.SparseParams.dp_T,
                    m=min(max(self.facts.n_train, 50), 20_000),
                    intercept="(intercept)" not in self.facts.feature_columns)

    def parts(self) -> dict[str, float]:
        """The budget parts the release is charged under (as the sparse page's)."""
        if self.variant == "peel":
            return sp.peel_parts(self.epsilon)
        return {"support selection (Laplace)": self.epsilon / 2, "synthetic responses (Gaussian)": self.epsilon / 2}

    def params(self, n: int) -> dict:
        """The release's public parameters as the ledger records them (as the sparse page's releases do). ``n``:
        the rows released, public under replace-one; the KT ridge λ follows it."""
        c, s, loss = self.constants(), int(self.sparsity), self.facts.loss
        if self.variant == "peel":
            return {"variant": "peeling", "loss": loss, "sparsity": s, "K": c["K"], "r": c["r"],
                    "intercept": c["intercept"], "select_share": 0.5}
        return {"variant": "private_support", "loss": loss, "sparsity": s, "K": c["K"], "r": c["r"], "B": c["B"],
                "m": c["m"], "lambda": sp.SparseParams(**c).ridge(n, self.facts.d, s, self.epsilon / 2, self.delta,
                                                                  loss),
                "T2": c["T2"], "synthetic_seed": sp.DEFAULT_SYNTHETIC_SEED}

    def config(self, features: tuple[str, ...], *, repeats: int) -> SparseConfig:
        """The same settings as a script's configuration (its ``reproduce.py`` reads the user's CSV). ``features``:
        the columns read (the declared ones, or the file's when only their number was declared); ``repeats``: the
        preview draws the proxy's views used."""
        return SparseConfig(source="upload", loss=self.facts.loss, sparsity=int(self.sparsity), epsilon=self.epsilon,
                            delta=self.delta, seed=int(self.facts.seed), repeats=repeats,
                            methods=("nonprivate", self.variant), variant=self.variant, params=self.constants(),
                            sweep=SWEEP,
                            response=self.facts.response_column, features=tuple(features),
                            threshold=self.facts.threshold)

    def release(self, cohort: PrivateSparse):
        """One OpenDP release of the private rows with exactly these settings (a ``ReleaseBundle``)."""
        return sp.release_sparse(cohort.X, cohort.y, sparsity=int(self.sparsity), epsilon=self.epsilon,
                                 delta=self.delta, loss=self.facts.loss, dataset=cohort.label,
                                 fingerprint=cohort.fingerprint, feature_names=cohort.feature_names,
                                 variant=VARIANTS[self.variant], **self.constants())


@dataclass(frozen=True)
class PrivateSparse:
    """The private file as read at release time: the released (training) rows, the feature names read, content
    fingerprint, label and the persons of those rows."""

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    fingerprint: str
    label: str
    persons: Persons


def read_private(data: bytes, name: str, facts: SparseFacts) -> PrivateSparse:
    """Parse and check the private file against the declared facts (an ``InputError`` naming the column or row).

    The checks every plan-first file gets (:func:`dpcore.plan.common.read_declared`), the declared number of
    features when they were only counted, then the sparse page's own (:func:`dpcore.sparse.sparse_from_frame`).
    """
    held = read_declared(data, name, columns=[facts.response_column, *facts.feature_columns], n_max=facts.n_max,
                         person_column=facts.person_column,
                         identical_rows_are_different_people=facts.identical_rows_are_different_people)
    features = facts.feature_columns or tuple(c for c in held.rows.columns if c != facts.response_column)
    if len(features) != facts.d:
        raise InputError(f"{name} has {len(features)} columns besides the response"
                         + (" and the person column" if facts.person_column else "")
                         + f", and {facts.d} features were declared: name the feature columns, or count them again.")
    X, y = sp.sparse_from_frame(held.rows, facts.response_column, features, loss=facts.loss,
                                threshold=facts.threshold)
    train, _ = sp.upload_split(len(y))
    return PrivateSparse(X[train], y[train], tuple(features), held.fingerprint, held.label,
                         held.persons.subset(train))
