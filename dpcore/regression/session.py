"""The drug-sensitivity page's session: what the page computes between its controls and its figures.

The page (``app_pages/regression.py``) draws controls, makes one call here for the preview at ε, and draws the
figures and the release panel. Everything that needs no Streamlit lives here as plain functions and dataclasses,
so that tests reach it without a browser and the notebook generator (:mod:`dpcore.notebooks.regression`) uses the
same seeds as the page: its numbers are the page's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcore import regression as R
from dpcore.core.datasets import GDSC_LEDGER_KEY, gdsc_persons, load_gdsc
from dpcore.core.persons import Persons, fingerprint
from dpcore.core.seeds import SeedStreams
from dpcore.regression import evaluation  # called through the module: tests count its CV runs
from dpcore.regression import page_text as T
from dpcore.regression.tuning import split_grid, split_search

EPS_SWEEP = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
OMEGAS = [float(v) for v in R.OMEGA_GRID]
REPEATS = [5, 10, 20, 50]  # CV repeats offered
MIN_RECORDS = 60  # 20 held out for testing, > 20 for private training (a slider), room for both to move
MAX_UPLOAD_FEATURES = 64  # an upload's default features: every other column, up to this many
#: The bundled drug and number of features the page opens on: those whose non-private model predicts held-out cell
#: lines best among the bundled drugs (held-out R² 0.31, ρ 0.31 over 8 random splits), chosen on the bundled public
#: data so that moving ε has an answer worth approaching (docs/regression.md).
DEFAULT_DRUG = "Drug_1373_IC50"
DEFAULT_FEATURES = 48
#: noise draws of the preview (its histogram and the release's utility note)
PREVIEW_DRAWS = 200
METHODS = {"adassp": R.ADASSP, "robust": R.METHOD}  # the link's value → the method
METHOD_LABELS = {R.ADASSP: "AdaSSP (default)", R.METHOD: "robust private LR (Honkela et al.)"}

#: Named seed streams: what each random draw of the page (and of its notebook) is seeded with, as an offset from the
#: preview seed. "preview" splits the records and draws the preview's noise; "sweep" is the cross-validation over
#: the ε sweep; "sizes" the cross-validation over private sizes at the chosen ε. The offsets are those the page has
#: always used (a saved link shows the same numbers).
SEED_STREAMS = SeedStreams(preview=0, sweep=0, sizes=1)
stream = SEED_STREAMS


@dataclass(frozen=True)
class Source:
    """A data set as the page uses it: the records, their public ranges and how the release names them."""

    label: str
    fp: str
    X: np.ndarray
    y: np.ndarray
    names: tuple[str, ...]
    x_bounds: tuple[float, float]
    y_bounds: tuple[float, float]
    x_centre: object  # "public" midpoint, or a public number
    y_label: str
    kind: str  # "gdsc" | "synthetic" | "upload"
    key: tuple  # public description for caches (never the data of an upload)
    ids: tuple[str, ...]  # how a record is named in the release notes
    public: np.ndarray  # bool per record: public (added without noise, not protected)
    public_basis: str  # why those records are public
    beta: np.ndarray | None = None
    unit: str = "one cell line"  # the unit of privacy shown on the page
    blocked: str | None = None  # why a release is not offered yet (an upload's unconfirmed ranges or unnamed unit)
    persons: Persons | None = None  # who each record is, for the privacy ledger (None: synthetic, nobody)

    def public_rows(self) -> R.PublicRows:
        return R.PublicRows(self.X[self.public], self.y[self.public],
                            tuple(np.asarray(self.ids)[self.public]), self.public_basis)

    @property
    def rest(self) -> np.ndarray:
        """The private records: the test and private training sets are drawn from these."""
        return np.flatnonzero(~self.public)


def gdsc_source(drug: str, d: int, k: int) -> Source:
    """The bundled GDSC data for one drug: its first ``d`` features, ``k`` public cell lines by the fixed rule."""
    g = load_gdsc()
    X, y = g.drug_data(drug, d)
    cells = g.drug_cell_lines(drug)
    public = np.isin(cells, R.fixed_public_ids(g.features.index, k))
    return Source(f"GDSC: {g.drug_label(drug)} (bundled)", fingerprint(GDSC_LEDGER_KEY), X, y,
                  tuple(g.features.columns[:d]), (0.0, 1.0), tuple(g.response_range), "public", "observed ln IC50",
                  "gdsc", ("gdsc", drug, d, k), tuple(f"COSMIC {c}" for c in cells), public,
                  T.gdsc_basis(k, len(g.features), R.PUBLIC_RULE_SEED), persons=gdsc_persons(cells))


def synthetic_source(n: int, d: int, noise: float, seed: int, k: int) -> Source:
    """Synthetic data with a known β; its response range follows from the generator's public parameters."""
    rng = np.random.default_rng(seed)
    X = R.normalise_rows(rng.standard_normal((n, d)))
    beta = rng.standard_normal(d) * 2.0
    y = X @ beta + noise * rng.standard_normal(n)
    bound = float(2.0 * np.sqrt(d) + 4.0 * noise + 1.0)  # public: known from the generator's parameters
    public = np.isin(np.arange(n), R.fixed_public_ids(np.arange(n), k))
    basis = f"the fixed public rule: the first {k} record numbers in a permutation seeded with {R.PUBLIC_RULE_SEED}"
    return Source(f"Synthetic (n = {n}, d = {d}, noise sd {noise:g}, seed {seed})",
                  fingerprint("synthetic-regression", n, d, noise, seed), X, y,
                  tuple(f"x{j + 1}" for j in range(d)), (-1.0, 1.0), (-bound, bound), 0.0, "observed y", "synthetic",
                  ("synthetic", n, d, noise, seed, k), tuple(f"record {i + 1}" for i in range(n)), public, basis, beta,
                  unit="one record")


def upload_source(*, name: str, fp: str, X, y, public, response: str, features, mark: str | None, x_bounds,
                  y_bounds, unit: str, confirmed: bool, persons: Persons | None) -> Source:
    """An upload mapped to ``(X, y)``; a release is blocked until its unit is named and its ranges confirmed."""
    missing = [what for what, ok in (("name the unit of privacy", unit), ("confirm the public ranges", confirmed))
               if not ok]
    return Source(f"{name} (uploaded)", fp, X, y, tuple(features), x_bounds, y_bounds, "public",
                  f"observed {response}", "upload", ("upload",), tuple(f"row {i + 2}" for i in range(len(y))),
                  public, f"marked 1 in column {mark!r} by the user" if mark else "",
                  unit=f"one {unit}" if unit else "one row (not named yet)", persons=persons,
                  blocked=("Before a release, " + " and ".join(missing) + " (above the charts).") if missing else None)


def rebuild(key: tuple) -> Source:
    """A public source from its cache key (bundled or synthetic data; never an upload)."""
    return gdsc_source(*key[1:]) if key[0] == "gdsc" else synthetic_source(*key[1:])


class MethodChoice:
    """What a page's settings and a plan-first plan both read off their ``method``, ``y_centre`` and ``sigma_y``."""

    method: str
    y_centre: str
    sigma_y: str

    @property
    def robust(self) -> bool:
        return self.method == R.METHOD

    @property
    def uses_dp(self) -> bool:
        return "dp" in (self.y_centre, self.sigma_y)


@dataclass(frozen=True)
class Settings(MethodChoice):
    """The page's public settings other than ε: sizes, method, preparation, preview seed, budget split."""

    n_test: int
    n_priv: int
    method: str
    priors: bool
    y_centre: str
    sigma_y: str
    prep_share: float  # 0 unless the centre or scale is a DP estimate
    seed: int
    split: tuple[float, float, float]
    manual_omegas: tuple[float, float] | None = None

    @property
    def delta(self) -> float:
        return 0.0 if self.robust else R.adassp_delta(self.n_priv)

    @property
    def prep(self) -> tuple[str, str, float]:
        return self.y_centre, self.sigma_y, self.prep_share

    def budget(self, epsilon: float) -> tuple[float, float]:
        """``(eps_prep, eps_stat)``: the share of ε for a DP centre and scale, and the rest for the statistics."""
        eps_prep = self.prep_share * epsilon if self.uses_dp else 0.0
        return eps_prep, epsilon - eps_prep


def omegas(n, d, e, sp) -> tuple[float, float]:
    """The quick free search's (ωx, ωy) for public inputs (5 data sets × 5 draws)."""
    return evaluation.tuned_omegas(int(n), int(d), float(e), tuple(sp), 5, 5)


def budget_split_search(n: int, d: int, eps: float):
    """The free search of the budget split (36 splits, each with its own coarse (ωx, ωy) search)."""
    grid = split_grid(step=0.1, low=0.1, high=0.8, min_p3=0.05)
    return split_search(n, d, epsilon=eps, splits=grid, n_sets=4, n_draws=4, grid_x=R.OMEGA_GRID[::2],
                        grid_y=R.OMEGA_GRID[::2])


@dataclass(frozen=True)
class Preview:
    """One seeded split of the private records and the preview releases on it (nothing charged)."""

    test: np.ndarray
    priv: np.ndarray
    fit: object  # :func:`dpcore.regression.evaluation.preview_fit`'s result


def preview(src: Source, s: Settings, *, epsilon: float, omegas: tuple[float, float]) -> Preview:
    """Split the private records with stream "preview" and draw :data:`PREVIEW_DRAWS` preview releases at ε."""
    eps_prep, eps_stat = s.budget(epsilon)
    rest = src.rest
    rng = np.random.default_rng(stream(s.seed, "preview"))
    perm = rest[rng.permutation(rest.size)]
    test, priv = perm[:s.n_test], perm[s.n_test:s.n_test + s.n_priv]
    fit = evaluation.preview_fit(src.X, src.y, private=priv, public=np.flatnonzero(src.public), test=test,
                                 x_bounds=src.x_bounds, y_bounds=src.y_bounds, x_centre=src.x_centre,
                                 y_centre=s.y_centre, sigma_y=s.sigma_y, eps_prep=eps_prep, eps_stat=eps_stat,
                                 omegas=omegas, split=s.split, priors=s.priors, rng=rng, draws=PREVIEW_DRAWS,
                                 method=s.method, delta=s.delta)
    return Preview(test, priv, fit)


def answer(pv) -> tuple[float, float, str]:
    """``(median ρ, non-private ρ, verdict)`` of the answer line."""
    rho, rho_np = float(np.median(pv.rho)), pv.rho_nonprivate
    share = rho / rho_np if rho_np > 0 else float("nan")
    return rho, rho_np, T.verdict(share, rho_np)


def cv_sizes(n_priv: int) -> tuple[int, ...]:
    """The private sizes of the CV over sizes: six steps up to ``n_priv``, in tens, at least 20."""
    return tuple(sorted({int(v) for v in (np.linspace(min(50, n_priv), n_priv, 6) // 10 * 10) if 20 <= v <= n_priv}
                        | {n_priv}))


def cv_runs(s: Settings, *, epsilon: float, repeats: int, over_sizes: bool) -> list[dict]:
    """The Monte-Carlo CVs a view needs, as :func:`cv`'s arguments: ρ over the ε sweep at the chosen size (stream
    "sweep") and, with ``over_sizes``, over private sizes at the chosen ε (stream "sizes")."""
    kw = dict(n_test=s.n_test, repeats=repeats, split=s.split, priors=s.priors, prep=s.prep)
    runs = [dict(epsilons=EPS_SWEEP, sizes=(s.n_priv,), seed=stream(s.seed, "sweep"), **kw)]
    if over_sizes:
        runs.append(dict(epsilons=(epsilon,), sizes=cv_sizes(s.n_priv), seed=stream(s.seed, "sizes"), **kw))
    return runs


def cv(src: Source, *, epsilons, sizes, n_test, repeats, split, priors, prep, seed):
    """Monte-Carlo CV of the five models on the private records, the public ones in every training set."""
    rest, pub = ~src.public, src.public
    return evaluation.monte_carlo_cv(src.X[rest], src.y[rest], epsilons=epsilons, sizes=sizes, rng=seed,
                                     repeats=repeats, n_test=n_test, n_nonprivate=0,
                                     public=(src.X[pub], src.y[pub]) if pub.any() else None, x_bounds=src.x_bounds,
                                     y_bounds=src.y_bounds, x_centre=src.x_centre, y_centre=prep[0], sigma_y=prep[1],
                                     prep_share=prep[2], split=split, priors=priors, omegas=omegas)


def charged_parts(s: Settings, epsilon: float) -> dict[str, float]:
    """The release's charged pieces and their ε: the noised statistics, then any DP centre and scale."""
    eps_prep, eps_stat = s.budget(epsilon)
    p1, p2, p3 = s.split
    parts = ({"nxx": p1 * eps_stat, "nxy": p2 * eps_stat, "nyy": p3 * eps_stat} if s.robust else
             {k: share * eps_stat for k, share in zip(("λ_min", "XᵀX", "Xᵀy"), R.ADASSP_SPLIT)})
    if s.uses_dp:
        parts.update({k: eps_prep / (int(s.y_centre == "dp") + int(s.sigma_y == "dp"))
                      for k, on in (("response centre", s.y_centre == "dp"), ("response scale", s.sigma_y == "dp"))
                      if on})
    return parts


def total_epsilon(parts: dict[str, float]) -> float:
    return round(float(math.fsum(parts.values())), 12)


def release_params(src: Source, s: Settings, *, omegas: tuple[float, float]) -> dict:
    """The release's public parameters (an upload's ranges are added by the page, as the private choice records
    them)."""
    params = {"method": s.method, "n_private": s.n_priv, "n_public_not_protected": int(src.public.sum()),
              "d": src.X.shape[1]}
    params.update({"omega": omegas, "split": s.split, "priors": s.priors} if s.robust else {"delta": s.delta})
    return params


def release(src: Source, s: Settings, *, epsilon: float, priv: np.ndarray, omegas: tuple[float, float],
            tuning: dict | None):
    """The charged release on the private training records of the current split (OS-seeded noise).
    ``tuning``: how the robust fit's thresholds were chosen (None for AdaSSP)."""
    if src.blocked:
        raise ValueError(src.blocked)
    eps_prep, eps_stat = s.budget(epsilon)
    prep = R.prepare(src.X[priv], src.y[priv], x_bounds=src.x_bounds, y_bounds=src.y_bounds, x_centre=src.x_centre,
                     y_centre=s.y_centre, sigma_y=s.sigma_y, epsilon=eps_prep, release=True)
    common = dict(prep=prep, public=src.public_rows(), dataset=src.label, fingerprint=src.fp, feature_names=src.names,
                  unit=src.unit.removeprefix("one ").strip(), source_notes=T.GDSC_RULES if src.kind == "gdsc" else ())
    if not s.robust:
        return R.release_adassp(src.X[priv], src.y[priv], epsilon=eps_stat, delta=s.delta, **common)
    return R.release(src.X[priv], src.y[priv], epsilon=eps_stat, omega_x=omegas[0], omega_y=omegas[1],
                     split=s.split, priors=s.priors, tuning=tuning, **common)


def notebook_source(src: Source, *, response: str | None = None, public_col: str | None = None) -> dict:
    """The data source's public settings for the notebook (an upload: its column choices, never its data)."""
    if src.kind == "gdsc":
        return dict(drug=src.key[1], k_public=src.key[3])
    if src.kind == "synthetic":
        return dict(n=src.key[1], noise_sd=src.key[3], data_seed=src.key[4], k_public=src.key[5])
    return dict(response=response, features=src.names, public_col=public_col,
                x_bounds=tuple(np.asarray(b, dtype=float).tolist() for b in src.x_bounds), y_bounds=src.y_bounds)
