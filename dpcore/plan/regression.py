"""The plan-first path for private linear regression: declare the public facts, explore on a proxy, lock, then read.

As for survival (:mod:`dpcore.plan.survival`): the custodian declares what the study design makes public
(:class:`RegressionFacts`: the response and feature columns, a bound on n, the public ranges the release clips and
centres with), the settings are tried on a **proxy** simulated from those facts and a public seed
(:func:`simulate_proxy`; it reads nobody), and the locked :class:`RegressionPlan` is applied to the private file
only when the release is made (:func:`read_private`, the only function here that touches its bytes). The release is
the regression page's: AdaSSP by default or robust private LR (Honkela et al. 2018), on the file's rows less a
seeded held-out set, so that the release ZIP's script reproduces it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcore import regression as R
from dpcore.ledger import Persons
from dpcore.notebooks import RegressionConfig
from dpcore.plan.common import check_columns, read_declared
from dpcore.regression.evaluation import tuned_omegas
from dpcore.regression.session import MethodChoice
from dpcore.regression.tuning import threshold_search
from dpcore.core.validation import InputError
from dpcore.core.mechanisms import check_budget

#: the largest data set a proxy is simulated for (the page previews and cross-validates it on every change)
MAX_PROXY_N = 10_000
#: the most features (the statistics grow as d², as on the regression page's uploads)
MAX_FEATURES = 64
#: the fewest rows held out for the script's check, and the fewest left for private training (the page's rules)
MIN_TEST = MIN_TRAIN = 20
#: the fewest rows a file may have: the release script maps the CSV with the page's rule (60 records)
MIN_ROWS = 60
#: the largest declared R² of the proxy (R² = 1 would be a proxy without noise)
MAX_R2 = 0.99
#: the release methods a plan may lock (AdaSSP is the page's default)
PLAN_METHODS = (R.ADASSP, R.METHOD)
#: the thresholds recorded for AdaSSP, which does not use them (as the regression page does)
ADASSP_OMEGAS = (0.1, 0.5)
#: the preview draws and ε sweep of the release's script (the regression page's)
SCRIPT_DRAWS, SCRIPT_SWEEP = 200, (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)


@dataclass(frozen=True)
class RegressionFacts:
    """What the study design makes public before any row is read; every field is checked on construction.

    ``feature_lower`` / ``feature_upper`` (one per feature) and ``response_lower`` / ``response_upper`` are the public
    ranges the release centres, scales and clips with: domain knowledge (an assay's range, clinical limits), never
    the file. ``n_max`` bounds the number of people (a file with more rows is refused); ``n_test`` rows are held out
    by the public ``seed``, as on the regression page, so the release's script can check the fit on them. ``r2``
    (the share of the response's variance the features explain) shapes the proxy only. Without a
    ``person_column`` each whole row is a person, and identical rows are refused unless
    ``identical_rows_are_different_people`` is declared.
    """

    response_column: str
    feature_columns: tuple[str, ...]
    n_max: int
    feature_lower: tuple[float, ...]
    feature_upper: tuple[float, ...]
    response_lower: float
    response_upper: float
    unit: str = "person"
    r2: float = 0.3
    n_test: int = MIN_TEST
    person_column: str = ""
    identical_rows_are_different_people: bool = False
    seed: int = 0

    def __post_init__(self) -> None:
        if not self.response_column.strip():
            raise InputError("Declare the response column's name.")
        features = self.feature_columns
        if not features:
            raise InputError("Declare at least one feature column.")
        if len(features) > MAX_FEATURES:
            raise InputError(f"{len(features)} feature columns declared; at most {MAX_FEATURES} are supported.")
        if not all(f.strip() for f in features):
            raise InputError("Every feature column needs a name: one of the declared feature columns is empty.")
        for i, name in enumerate(features):
            if name in features[:i]:
                raise InputError(f"Feature column {name!r} is declared twice.")
        check_columns({"response column": self.response_column, "person column": self.person_column,
                       **{f"feature column {name!r}": name for name in features}})
        if not self.unit.strip():
            raise InputError("Name the unit of privacy: what one row is (e.g. patient).")
        if not MIN_ROWS <= int(self.n_max) <= MAX_PROXY_N:
            raise InputError(f"The number of people (or its bound) must be between {MIN_ROWS} and {MAX_PROXY_N:,}; "
                             f"got {self.n_max}.")
        if not MIN_TEST <= int(self.n_test) < int(self.n_max) - MIN_TRAIN:
            raise InputError(f"The held-out rows must be at least {MIN_TEST} and leave more than {MIN_TRAIN} of the "
                             f"{self.n_max} people for private training; got {self.n_test}.")
        if len(self.feature_lower) != len(features) or len(self.feature_upper) != len(features):
            raise InputError(f"Declare one public feature minimum and maximum per feature column ({len(features)}).")
        R.feature_ranges({"feature": features, "lower": self.feature_lower, "upper": self.feature_upper}, features)
        if not (np.isfinite(self.response_lower) and np.isfinite(self.response_upper)
                and self.response_upper > self.response_lower):
            raise InputError(f"The public response maximum ({self.response_upper:g}) must be a number larger than its "
                             f"minimum ({self.response_lower:g}).")
        if not 0.0 <= self.r2 <= MAX_R2:
            raise InputError(f"The expected R² (for the proxy) must be between 0 and {MAX_R2}; got {self.r2}.")
        if int(self.seed) < 0:
            raise InputError(f"The proxy seed must be a non-negative whole number; got {self.seed}.")

    @property
    def x_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The public per-feature ranges as the regression release takes them."""
        return np.asarray(self.feature_lower, dtype=float), np.asarray(self.feature_upper, dtype=float)

    @property
    def y_bounds(self) -> tuple[float, float]:
        return float(self.response_lower), float(self.response_upper)

    @property
    def n_fit(self) -> int:
        """The bound on the private training records (``n_max`` less the held-out rows): tuning and δ use it."""
        return int(self.n_max) - int(self.n_test)


def simulate_proxy(facts: RegressionFacts) -> tuple[np.ndarray, np.ndarray]:
    """A public stand-in for the file: ``facts.n_max`` rows ``(X, y)`` from ``facts.seed``.

    Each feature is uniform over its declared range (independently); the response is the range's midpoint plus
    σ = (range)/6 (the six-sigma rule the release's public σy uses) times √R² · a standardised linear signal of the
    features (coefficients standard normal from the seed) plus √(1 − R²) · standard normal noise, clipped to the
    declared range. It reads no row of anyone: every input is a declared fact.
    """
    rng = np.random.default_rng(facts.seed)
    n, d = int(facts.n_max), len(facts.feature_columns)
    lo, hi = facts.x_bounds
    X = rng.uniform(lo, hi, size=(n, d))
    linear = ((X - 0.5 * (lo + hi)) / (0.5 * (hi - lo))) @ rng.standard_normal(d)
    signal = (linear - linear.mean()) / linear.std()
    ylo, yhi = facts.y_bounds
    noise = rng.standard_normal(n)
    y = 0.5 * (ylo + yhi) + (yhi - ylo) / 6.0 * (math.sqrt(facts.r2) * signal + math.sqrt(1.0 - facts.r2) * noise)
    return X, np.clip(y, ylo, yhi)


@dataclass(frozen=True)
class PrivateRegression:
    """The private file as read at release time: its features and response, content fingerprint, label and persons."""

    X: np.ndarray
    y: np.ndarray
    fingerprint: str
    label: str
    persons: Persons


@dataclass(frozen=True)
class RegressionPlan(MethodChoice):
    """The locked settings of one regression release, chosen on the proxy: nothing here depends on a private row.

    ``omegas`` None: robust private LR's thresholds are tuned for free on synthetic data of the declared size
    (the regression page's quick search). ``prep_share`` of ε pays for a DP response centre or scale.
    """

    facts: RegressionFacts
    epsilon: float
    method: str = R.ADASSP
    y_centre: str = "dp"
    sigma_y: str = "dp"
    prep_share: float = R.DEFAULT_PREP_SHARE
    split: tuple[float, float, float] = R.DEFAULT_SPLIT
    priors: bool = True
    omegas: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        check_budget(self.epsilon, what="the release")
        if self.method not in PLAN_METHODS:
            raise InputError(f"The method must be one of {', '.join(PLAN_METHODS)}; got {self.method!r}.")
        for what, value in (("response centre", self.y_centre), ("response scale", self.sigma_y)):
            if value not in ("dp", "public"):
                raise InputError(f"The {what} must be 'dp' or 'public'; got {value!r}.")
        if self.uses_dp and not 0.0 < self.prep_share < 1.0:
            raise InputError(f"The share of ε for the DP centre/scale must be between 0 and 1; got {self.prep_share}.")
        if len(self.split) != 3 or min(self.split) <= 0 or abs(sum(self.split) - 1.0) > 1e-9:
            raise InputError(f"The budget split (nxx, nxy, nyy) must be three positive shares summing to 1; got "
                             f"{self.split}.")

    @property
    def eps_prep(self) -> float:
        return self.prep_share * self.epsilon if self.uses_dp else 0.0

    @property
    def eps_stat(self) -> float:
        return self.epsilon - self.eps_prep

    @property
    def delta(self) -> float:
        """AdaSSP's δ = 1/n² at the declared bound on the private training records (at most the page's 1/n² for
        the file); 0 for robust private LR."""
        return R.adassp_delta(self.facts.n_fit) if not self.robust else 0.0

    def thresholds(self) -> tuple[float, float]:
        """``(ωx, ωy)``: the manual pair, or the free search's for the declared size (as the page's quick search)."""
        if not self.robust:
            return ADASSP_OMEGAS
        if self.omegas is not None:
            return self.omegas
        return tuned_omegas(self.facts.n_fit, len(self.facts.feature_columns), float(self.eps_stat),
                            tuple(self.split), 5, 5)

    def parts(self) -> dict[str, float]:
        """The charged pieces of ε, named as the regression page's release names them."""
        names = ("nxx", "nxy", "nyy") if self.robust else ("λ_min", "XᵀX", "Xᵀy")
        shares = self.split if self.robust else R.ADASSP_SPLIT
        parts = {k: share * self.eps_stat for k, share in zip(names, shares)}
        dp = [what for what, v in (("response centre", self.y_centre), ("response scale", self.sigma_y)) if v == "dp"]
        parts.update({what: self.eps_prep / len(dp) for what in dp})
        return parts

    @property
    def total_epsilon(self) -> float:
        return round(float(math.fsum(self.parts().values())), 12)

    def rows(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``(test, private)`` row indices of a file of ``n`` rows: the public seed's permutation, as the page's
        split and the release's script draw it."""
        perm = np.random.default_rng(self.facts.seed).permutation(n)
        return perm[:self.facts.n_test], perm[self.facts.n_test:]

    def persons(self, cohort: PrivateRegression) -> Persons:
        """The people the release reads: the file's private training rows (the held-out rows are not released)."""
        return cohort.persons.subset(self.rows(len(cohort.y))[1])

    def params(self, cohort: PrivateRegression) -> dict:
        """The release's public parameters as the ledger records them (the regression page's keys)."""
        params = {"method": self.method, "n_private": len(cohort.y) - self.facts.n_test, "n_public_not_protected": 0,
                  "d": len(self.facts.feature_columns)}
        params.update({"omega": self.thresholds(), "split": tuple(self.split), "priors": self.priors} if self.robust
                      else {"delta": self.delta})
        return params

    def config(self, cohort: PrivateRegression) -> RegressionConfig:
        """The same settings as a script's configuration (the release's ``reproduce.py`` reads the user's CSV)."""
        facts = self.facts
        return RegressionConfig(
            source="upload", epsilon=self.epsilon, seed=facts.seed, n_test=facts.n_test,
            n_private=len(cohort.y) - facts.n_test, omegas=self.thresholds(), split=tuple(self.split),
            priors=self.priors, y_centre=self.y_centre, sigma_y=self.sigma_y,
            prep_share=self.prep_share if self.uses_dp else 0.0, draws=SCRIPT_DRAWS, sweep=SCRIPT_SWEEP,
            d=len(facts.feature_columns), method=self.method, delta=self.delta, response=facts.response_column,
            features=facts.feature_columns, public_col=None,
            x_bounds=tuple(b.tolist() for b in facts.x_bounds), y_bounds=facts.y_bounds)

    def release(self, cohort: PrivateRegression):
        """One OpenDP release of the private training rows with exactly these settings (a ``ReleaseBundle``)."""
        facts = self.facts
        _, private = self.rows(len(cohort.y))
        X, y = cohort.X[private], cohort.y[private]
        prep = R.prepare(X, y, x_bounds=facts.x_bounds, y_bounds=facts.y_bounds, x_centre="public",
                         y_centre=self.y_centre, sigma_y=self.sigma_y, epsilon=self.eps_prep, release=True)
        common = dict(prep=prep, public=None, dataset=cohort.label, fingerprint=cohort.fingerprint,
                      feature_names=facts.feature_columns, unit=facts.unit)
        if not self.robust:
            return R.release_adassp(X, y, epsilon=self.eps_stat, delta=self.delta, **common)
        wx, wy = self.thresholds()
        tuning = ({"source": "manual ω (public)"} if self.omegas is not None else
                  threshold_search(facts.n_fit, len(facts.feature_columns), epsilon=self.eps_stat, split=self.split,
                                   n_sets=5, n_draws=5).describe())
        return R.release(X, y, epsilon=self.eps_stat, omega_x=wx, omega_y=wy, split=self.split, priors=self.priors,
                         tuning=tuning, **common)


def read_private(data: bytes, name: str, facts: RegressionFacts) -> PrivateRegression:
    """Parse and check the private file against the declared facts (an ``InputError`` naming the column or row).

    The checks every plan-first file gets (:func:`dpcore.plan.common.read_declared`), then the regression page's
    own (:func:`dpcore.regression.regression_from_frame`: numeric columns, enough rows for the held-out split).
    """
    held = read_declared(data, name, columns=[facts.response_column, *facts.feature_columns], n_max=facts.n_max,
                         person_column=facts.person_column,
                         identical_rows_are_different_people=facts.identical_rows_are_different_people)
    X, y, _ = R.regression_from_frame(held.rows, response=facts.response_column, features=facts.feature_columns,
                                      min_rows=max(MIN_ROWS, facts.n_test + MIN_TRAIN + 1))
    return PrivateRegression(X, y, held.fingerprint, held.label, held.persons)
