"""The drug-sensitivity page's configuration as a notebook: data, split, one seeded preview fit, ρ over ε, release."""

from __future__ import annotations

from dataclasses import dataclass

from dpcore.notebooks.code import Cell, code
from dpcore.notebooks.common import READ_CSV, release_cell
from dpcore.regression.session import SEED_STREAMS

TITLE = "Robust private linear regression for drug sensitivity"
METHOD = "Robust private linear regression"


@dataclass(frozen=True)
class RegressionConfig:
    """The page's public settings. ``source``: "gdsc" (``drug``), "synthetic" (``n``, ``noise_sd``,
    ``data_seed``) or "upload" (the user's CSV: ``response``, ``features``, ``public_col`` and the public ranges)."""

    source: str
    epsilon: float
    seed: int
    n_test: int
    n_private: int
    omegas: tuple[float, float]
    split: tuple[float, float, float]
    priors: bool = True
    y_centre: str = "dp"
    sigma_y: str = "dp"
    prep_share: float = 0.05
    draws: int = 200
    repeats: int = 10
    sweep: tuple[float, ...] = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
    d: int = 10
    k_public: int = 10
    drug: str = ""
    n: int = 1000
    noise_sd: float = 1.0
    data_seed: int = 1
    response: str = ""
    features: tuple[str, ...] = ()
    public_col: str | None = None
    x_bounds: tuple[float, float] = (0.0, 1.0)
    y_bounds: tuple[float, float] = (-10.0, 13.0)
    method: str = METHOD  # or "AdaSSP" (the page's default release, (ε, delta)-DP)
    delta: float = 0.0


def _stream(name: str) -> str:
    """A seed stream's name for the notebook's ``stream(SEED, name)``: one the page draws with (KeyError if not)."""
    if name not in SEED_STREAMS:
        raise KeyError(f"no seed stream {name!r}: the page draws with {sorted(SEED_STREAMS)}")
    return name


def _data(c: RegressionConfig) -> list[Cell]:
    if c.source == "gdsc":
        return [Cell("Load the bundled GDSC subset. Public: the feature order, the response range and a fixed, seeded "
                     "rule naming the cell lines treated as public (added without noise, not protected).",
                     code("g = datasets.load_gdsc()\nX, y = g.drug_data({drug}, {d})\n"
                          "public = np.isin(g.drug_cell_lines({drug}), R.fixed_public_ids(g.features.index, {k}))\n"
                          "x_bounds, y_bounds, x_centre = (0.0, 1.0), tuple(g.response_range), 'public'\n"
                          "y_label = 'observed ln IC50'", drug=c.drug, d=c.d, k=c.k_public))]
    if c.source == "synthetic":
        return [Cell("Synthetic data with a known β: unit-length Gaussian rows, y = xβ + noise. The response range "
                     "follows from the generator's parameters, so it is public.",
                     code("data_rng = np.random.default_rng({seed})\n"
                          "X = R.normalise_rows(data_rng.standard_normal(({n}, {d})))\n"
                          "beta = data_rng.standard_normal({d}) * 2.0\n"
                          "y = X @ beta + {sd} * data_rng.standard_normal({n})\n"
                          "bound = float(2.0 * np.sqrt({d}) + 4.0 * {sd} + 1.0)\n"
                          "public = np.isin(np.arange({n}), R.fixed_public_ids(np.arange({n}), {k}))\n"
                          "x_bounds, y_bounds, x_centre = (-1.0, 1.0), (-bound, bound), 0.0\n"
                          "y_label = 'observed y'", seed=c.data_seed, n=c.n, d=c.d, sd=c.noise_sd, k=c.k_public))]
    return [READ_CSV, Cell(
        "Choose the response and the features. The ranges are public (from domain knowledge, not from the file); "
        "rows marked 1 in the public-rows column, if any, are added without noise and are not protected.",
        code("X, y, public = R.regression_from_frame(frame, response={resp}, features={feats}, public={pub},\n"
             "                                        min_rows=60)\n"
             "x_bounds, y_bounds, x_centre = {xb}, {yb}, 'public'\ny_label = 'observed ' + {resp}",
             resp=c.response, feats=list(c.features), pub=c.public_col, xb=c.x_bounds, yb=c.y_bounds))]


def cells(c: RegressionConfig) -> list[Cell]:
    """The notebook's steps, in the page's order and with its seeds (so the numbers are the page's)."""
    uses_dp = "dp" in (c.y_centre, c.sigma_y)
    prep = (dict(y_centre=c.y_centre, sigma_y=c.sigma_y, prep_share=c.prep_share if uses_dp else 0.0))
    bounds = "x_bounds=x_bounds, y_bounds=y_bounds, x_centre=x_centre, y_centre=Y_CENTRE, sigma_y=SIGMA_Y"
    return [
        Cell("Imports: dpcore's regression package, its evaluation helpers and its figures.",
             "import numpy as np\n\nfrom dpcore.core import datasets\nfrom dpcore import regression as R\n"
             "from dpcore.regression import figures as rf\n"
             "from dpcore.regression.evaluation import monte_carlo_cv, preview_fit, tuned_omegas\n"
             "from dpcore.regression.session import stream  # the page's named seed streams"),
        *_data(c),
        Cell("The page's settings: ε and its split between the three statistics, the share for a DP centre and "
             "scale of the response (charged), and the clipping thresholds (tuned for free on synthetic data).",
             code("EPSILON, SEED, PRIORS = {eps}, {seed}, {priors}\nSPLIT = {split}  # nxx : nxy : nyy\n"
                  "Y_CENTRE, SIGMA_Y, PREP_SHARE = {yc}, {sy}, {share}\n"
                  "OMEGA_X, OMEGA_Y = {omegas}\nMETHOD, DELTA = {method}, {delta}\n"
                  "EPS_PREP = PREP_SHARE * EPSILON if 'dp' in (Y_CENTRE, SIGMA_Y) else 0.0\n"
                  "EPS_STAT = EPSILON - EPS_PREP",
                  eps=c.epsilon, seed=c.seed, priors=c.priors, split=c.split, yc=prep["y_centre"],
                  sy=prep["sigma_y"], share=prep["prep_share"], omegas=c.omegas, method=c.method, delta=c.delta)),
        Cell("One split of the private records into a test set and a private training set, with the page's seed.",
             code("rest = np.flatnonzero(~public)\nrng = np.random.default_rng(stream(SEED, {preview}))\n"
                  "perm = rest[rng.permutation(rest.size)]\n"
                  "test, private = perm[:{t}], perm[{t}:{t} + {p}]\npublic_rows = np.flatnonzero(public)",
                  t=c.n_test, p=c.n_private, preview=_stream("preview"))),
        Cell("Preview releases on that split (seeded NumPy noise) and the non-private fit on the same records.",
             code(f"pv = preview_fit(X, y, private=private, public=public_rows, test=test, {bounds},\n"
                  "                 eps_prep=EPS_PREP, eps_stat=EPS_STAT, omegas=(OMEGA_X, OMEGA_Y), split=SPLIT,\n"
                  "                 priors=PRIORS, rng=rng, draws={draws}, method=METHOD, delta=DELTA)\n"
                  "def med(v):  # as the page shows a score over the draws: median (5 to 95 %)\n"
                  "    lo, mid, hi = np.quantile(v, [0.05, 0.5, 0.95])\n"
                  "    return f'{mid:.3g} ({lo:.3g} to {hi:.3g})'\n\n\n"
                  "print(f'Held-out scores over {pv.rho.size} preview draws (median, 5–95%): ρ {med(pv.rho)}, '\n"
                  "      f'R² {med(pv.r2)}, RMSE {med(pv.rmse)}; non-private ρ {pv.rho_nonprivate:.3f}, '\n"
                  "      f'R² {pv.r2_nonprivate:.3f}, RMSE {pv.rmse_nonprivate:.3g}')", draws=c.draws)),
        Cell("Predicted against observed responses on the test set, private and non-private.",
             "headline = rf.predicted_vs_observed(y[test], pv.pred[0], pv.pred_nonprivate, rho_private=float(pv.rho[0]),\n"
             "                                    rho_nonprivate=pv.rho_nonprivate, y_label=y_label)",
             figure="headline"),
        Cell("The privacy–utility trade-off: Monte-Carlo cross-validation of the five models over ε (thresholds "
             "re-tuned for every ε on synthetic data).",
             code("by_eps = monte_carlo_cv(X[rest], y[rest], epsilons={sweep}, sizes=({p},),\n"
                  "                       rng=stream(SEED, {stream}), repeats={r},\n"
                  "                       n_test={t}, n_nonprivate=0, public=(X[public], y[public]) if public.any() "
                  "else None,\n"
                  f"                       {bounds}, prep_share=PREP_SHARE,\n"
                  "                       split=SPLIT, priors=PRIORS,\n"
                  "                       omegas=lambda n, d, e, sp: tuned_omegas(int(n), int(d), float(e), tuple(sp), 5, 5))\n"
                  "utility = rf.rho_vs_epsilon(by_eps.epsilons, by_eps.rho[:, 0], chosen=EPSILON)",
                  sweep=list(c.sweep), p=c.n_private, r=c.repeats, t=c.n_test, stream=_stream("sweep")),
             figure="utility"),
        release_cell(c.method, "EPSILON", "DELTA", (
            f"prep = R.prepare(X[private], y[private], {bounds}, epsilon=EPS_PREP, release=True)\n"
            "rows = R.PublicRows(X[public], y[public], tuple(f'row {i}' for i in public_rows), 'marked public')\n"
            + ("bundle = R.release(X[private], y[private], prep=prep, epsilon=EPS_STAT, omega_x=OMEGA_X, omega_y=OMEGA_Y,\n"
               "                   split=SPLIT, priors=PRIORS, public=rows)" if c.method == METHOD else
               "bundle = R.release_adassp(X[private], y[private], prep=prep, epsilon=EPS_STAT, delta=DELTA, public=rows)")),
            "regression"),
    ]
