"""What the Sparse page computes, without Streamlit: the preview at one ε, the convergence paths, the curves over ε,
the release it would make, and the tables and sentences that report them.

Why a file of its own: the page (``app_pages/sparse.py``) and its sections (``ui/sparse/``) only arrange controls and
figures, so everything here can be tested without a browser session; and the notebook generator
(:mod:`dpcore.notebooks.sparse`) reads the same :data:`SEED_STREAMS`, so a downloaded notebook prints the page's
numbers. The methods are called through the package face (``sp.convergence``, ``sp.BATCH``…), as a page would.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore import sparse as sp
from dpcore.core.seeds import SeedStreams
from dpcore.core.utility import describe_draws
from dpcore.sparse.events import KT_PRIVATE_SUPPORT, PEELING

#: the page's name of each method (figure legends, tables, the settings label)
LABELS = {"peel": "peeling + private fit", "kt": "knowledge transfer (student)", "nonprivate": "teacher (non-private)",
          "dp_ight": "DP-IGHT", "frank_wolfe": "DP Frank–Wolfe", "two_stage": "two-stage",
          "kt_ps": "KT with private support"}
#: the methods a release can use: the default first
RELEASES = {"peel": "peeling + private fit (default)", "kt_ps": "KT with private support"}
SOURCES = {"gdsc": "GDSC cell lines (bundled)", "synthetic": "synthetic (known θ*)", "upload": "upload a CSV"}
#: the ε grid of the privacy–utility curves: values of the ε slider, so a curve's point is a preview one can open
SWEEP = np.array([0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0])
DELTAS = ["1/n²", "1e-5", "1e-6", "1e-8"]
REPEATS = [5, 10, 20, 50]
#: n·d cap: the data and the synthetic features must fit comfortably in memory
MAX_CELLS = 20_000_000
DEFAULT_DRUG = "Drug_1047_IC50"  # Nutlin-3a (MDM2 inhibitor): TP53 status is the known biomarker
#: uploads with more feature columns preselect this many (named on the page, never silently)
MAX_DEFAULT_FEATURES = 50
#: previews up to this n·d·R (about a second) are computed ahead for the next step of each slider
PREFETCH_CELLS = 10_000_000
#: the curves over ε run without a button while they take about a second: n·d·R up to this, and s up to
#: :data:`AUTO_SWEEP_SPARSITY` (the two-stage fits grow with s²)
AUTO_SWEEP_CELLS = 5_000_000
AUTO_SWEEP_SPARSITY = 20

#: Each part of the preview draws from its own generator, seeded ``preview seed + offset``: opening a view never
#: changes another view's numbers, and a link or a notebook with the same seed shows the same ones. The offsets
#: are fixed forever (changing one changes every link's preview).
SEED_STREAMS = SeedStreams(fits=0, paths=1, sweep=2)
stream = SEED_STREAMS


def delta_value(choice: str, n: int) -> float:
    """δ from the slider's choice: ``"1/n²"`` follows the data's size."""
    return 1.0 / n**2 if choice == "1/n²" else float(choice)


@dataclass(frozen=True)
class Setup:
    """The page's settings once its controls are drawn: the data and every public constant a fit needs.

    ``public_key`` names bundled or synthetic data (its previews are cached across sessions); ``None`` for an upload.
    ``persons`` and ``records`` are what a release charges and reads (the ledger's business, passed through).
    """

    source: str
    loss: str
    data: sp.SparseData
    public_key: tuple | None
    label: str
    fingerprint: str
    persons: object
    records: object
    s: int
    methods: tuple[str, ...]
    variant: str
    params: dict
    threshold: float | None = None
    response: str | None = None
    data_source: str = ""

    @property
    def n(self) -> int:
        return self.data.X.shape[0]

    @property
    def d(self) -> int:
        return self.data.X.shape[1]

    @property
    def params_items(self) -> tuple:
        """The constants as a hashable key (cache keys)."""
        return tuple(sorted(self.params.items()))

    @property
    def fitted(self) -> tuple[str, ...]:
        """The methods compared, and always the one released."""
        return tuple(dict.fromkeys((*self.methods, self.variant)))

    def sweep_runs_at_once(self, repeats: int) -> bool:
        """Whether the curves over ε run without a button (public data, about a second of work)."""
        return (self.public_key is not None and self.n * self.d * repeats <= AUTO_SWEEP_CELLS
                and self.s <= AUTO_SWEEP_SPARSITY)

    def notebook_source(self) -> dict:
        """The data source's public settings for the notebook (an upload: its column choices, never its data)."""
        if self.source == "synthetic":
            return dict(zip(("n", "d", "s_star", "noise_sd", "data_seed"), self.public_key[1:4] + self.public_key[5:]))
        if self.source == "gdsc":
            return dict(drug=self.public_key[1], d=self.public_key[2], threshold=self.public_key[4])
        return dict(response=self.response, features=tuple(self.data.feature_names), threshold=self.threshold)


@dataclass(frozen=True)
class Preview:
    """One batched run per method at one ε: coefficients ``(R, d)`` (the teacher's ``(1, d)``), per-draw metrics, and
    what each method noised (described for the page)."""

    coefs: dict
    metrics: dict
    noises: dict


def preview(data: sp.SparseData, s: int, epsilon: float, delta: float, methods: tuple, R: int, seed: int,
            params: dict) -> Preview:
    """The teacher, then ``R`` draws of every private method in ``methods`` at ``epsilon`` (the "fits" stream)."""
    rng = np.random.default_rng(stream(seed, "fits"))
    Xc, yc = sp.prepare(data.X, data.y, data.loss, sp.SparseParams(**params))
    teacher = sp.teacher_fit(Xc, yc, sparsity=s, lam=0.0, loss=data.loss, p=sp.SparseParams(**params))
    coefs, metrics, noises, intercepts = {"nonprivate": teacher[None]}, {}, {}, {}
    for m in methods:
        if m == "nonprivate":
            continue
        fit = sp.BATCH[m](data.X, data.y, sparsity=s, epsilons=[epsilon], delta=delta, loss=data.loss, rng=rng,
                          draws=R, **params)
        coefs[m] = fit.coef[0]
        noises[m] = [nz.describe() for nz in fit.noise]
        if "intercept" in fit.details:
            intercepts[m] = fit.details["intercept"][0]
        if m == "kt":
            noises["kt_lambda"] = float(fit.details["lam"][0])
        if m == "peel":
            noises["peel"] = fit.details["plans"][0].describe()
    for m, c in coefs.items():
        metrics[m] = sp.metrics(c, theta=data.theta, X_test=data.X_test, y_test=data.y_test, loss=data.loss,
                                teacher=teacher, intercept=intercepts.get(m))
    return Preview(coefs, metrics, noises)


def paths(data: sp.SparseData, s: int, epsilon: float, delta: float, seed: int, params: dict) -> dict:
    """The teacher's and one student's optimisation paths at ``epsilon`` (the "paths" stream)."""
    return sp.convergence(data, sparsity=s, epsilon=epsilon, delta=delta,
                          rng=np.random.default_rng(stream(seed, "paths")), **params)


def sweep(data: sp.SparseData, s: int, delta: float, methods: tuple, R: int, seed: int, params: dict,
          progress=None) -> sp.SparseUtilityCurve:
    """Every method in ``methods`` over :data:`SWEEP`, ``R`` draws each (the "sweep" stream)."""
    return sp.utility_curve(data, sparsity=s, epsilons=SWEEP, delta=delta, methods=methods, repeats=R,
                            rng=np.random.default_rng(stream(seed, "sweep")), progress=progress, **params)


@dataclass(frozen=True)
class Answer:
    """The first screen's line: the held-out error private against non-private, and the features kept."""

    measure: str
    private: str
    nonprivate: str
    verdict: str


def answer(result: Preview, variant: str, loss: str, R: int) -> Answer:
    """Held-out error of the release's ``R`` simulated draws (mean and 10–90 % range) against the non-private model's,
    and how many of the non-private model's features the private model keeps."""
    private, teacher = result.coefs[variant], result.coefs["nonprivate"][0]
    kept = teacher != 0
    shared = (private[:, kept] != 0).sum(axis=1)
    same = int(np.all((private != 0) == kept, axis=1).sum())
    errors = np.asarray(result.metrics[variant]["test_error"])
    reference = float(result.metrics["nonprivate"]["test_error"][0])
    shown = (lambda v: f"{v:.0%}") if loss == "logistic" else (lambda v: f"{v:.3g}")
    lo, hi = np.quantile(errors, [0.1, 0.9])
    return Answer("Held-out lines misclassified" if loss == "logistic" else "Held-out prediction error (MSE)",
                  f"{shown(errors.mean())} ({shown(lo)}–{shown(hi)})", shown(reference),
                  f"It keeps {shared.mean():.1f} of the non-private model's {int(kept.sum())} features on average "
                  f"(all {int(kept.sum())} in {same} of {R} simulated releases).")


def draws_table(metrics: dict, methods: tuple, loss: str) -> pd.DataFrame:
    """One row per method shown (the teacher first): each metric's mean and 10–90 % range over the draws."""
    columns = [("l2_error", "‖θ − θ*‖₂"), ("f1", "support F1"),
               ("test_error", "test MSE" if loss == "linear" else "misclassification"),
               ("teacher_overlap", "overlap with teacher (F1)")]
    rows = []
    for m in ("nonprivate",) + tuple(x for x in sp.METHODS if x != "nonprivate"):
        if m not in metrics or m not in methods + ("nonprivate",):
            continue
        row = {"method": LABELS[m]}
        for key, title in columns:
            if key in metrics[m]:
                v = np.asarray(metrics[m][key], dtype=float)
                row[title] = f"{v.mean():.3g}  [{np.quantile(v, 0.1):.3g}, {np.quantile(v, 0.9):.3g}]"
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class CurveAxes:
    """What the two privacy–utility panels plot: the error and the support recovery, by what the data let us know
    (with θ* its distance and F1; without, the test error and the overlap with the teacher)."""

    error: str
    error_title: str
    support: str
    support_title: str


def curve_axes(known_truth: bool, loss: str) -> CurveAxes:
    if known_truth:
        return CurveAxes("l2_error", "estimation error ‖θ − θ*‖₂", "f1", "support F1 vs θ*")
    return CurveAxes("test_error", "test MSE" if loss == "linear" else "misclassification rate", "teacher_overlap",
                     "support overlap with the teacher (F1)")


def accuracy_headline(curve: sp.SparseUtilityCurve, metric: str) -> tuple[str, float] | None:
    """The method whose error a target is stated on (the release's, else the paper's student), and the default
    target: its median error over the grid, rounded."""
    headline = next((m for m in ("peel", "kt") if m in curve.methods), None)
    if headline is None:
        return None
    return headline, float(np.round(np.median(curve.values[headline][metric]), 2))


def utility_note(metrics: dict, variant: str, epsilon: float, R: int) -> str:
    """The release panel's note on what the preview shows of the release's utility ("" without its draws)."""
    released = metrics.get(variant, {})
    if not released:
        return ""
    return ("; ".join(f"{name} {describe_draws(released[key])}"
                      for key, name in (("l2_error", "‖θ − θ*‖₂"), ("f1", "support F1"), ("test_error", "test error"))
                      if key in released)
            + f" — over {R} simulated releases of {RELEASES[variant]} at ε = {epsilon:g}.")


@dataclass(frozen=True)
class ReleaseTerms:
    """What the ledger records of a release: the method charged, its ε split and its public parameters."""

    method: str
    parts: dict
    params: dict


def release_terms(setup: Setup, epsilon: float, delta: float) -> ReleaseTerms:
    p = setup.params
    if setup.variant == "peel":
        return ReleaseTerms(PEELING, sp.peel_parts(epsilon),
                            {"variant": "peeling", "loss": setup.loss, "sparsity": setup.s, "K": p["K"], "r": p["r"],
                             "intercept": p["intercept"], "select_share": 0.5})
    ridge = sp.SparseParams(**p).ridge(setup.n, setup.d, setup.s, epsilon / 2, delta, setup.loss)
    return ReleaseTerms(KT_PRIVATE_SUPPORT,
                        {"support selection (Laplace)": epsilon / 2, "synthetic responses (Gaussian)": epsilon / 2},
                        {"variant": "private_support", "loss": setup.loss, "sparsity": setup.s, "K": p["K"],
                         "r": p["r"], "B": p["B"], "m": p["m"], "lambda": ridge, "T2": p["T2"],
                         "synthetic_seed": sp.DEFAULT_SYNTHETIC_SEED})


def release(setup: Setup, epsilon: float, delta: float):
    """The release the Release button makes (seeded by the operating system, never by the preview seed)."""
    data = setup.data
    return sp.release_sparse(data.X, data.y, sparsity=setup.s, epsilon=epsilon, delta=delta, loss=setup.loss,
                             dataset=setup.label, fingerprint=setup.fingerprint,
                             feature_names=data.feature_names or None,
                             variant="peeling" if setup.variant == "peel" else "private_support", **setup.params)
