"""The survival page's hazard-ratio section as a notebook: data, one seeded preview fit, its figures, a guarded release.

The data steps are the survival notebook's (the same bundled data set or the same column mapping of the user's
CSV); the rest are the section's calls with its seeds, so the numbers are the page's.
"""

from __future__ import annotations

from dataclasses import dataclass

from dpcore.notebooks.code import Cell, code, literal
from dpcore.notebooks.common import release_cell
from dpcore.notebooks.survival import CsvColumns, data_cells
from dpcore.survival.cox import CutPoints

TITLE = "Differentially private hazard ratios (grouped Cox)"
METHOD = "DP hazard ratios (grouped Cox)"  # dpcore.survival.cox.METHOD (notebooks import no method package here)


@dataclass(frozen=True)
class HazardRatioConfig(CsvColumns):
    """What the hazard-ratio section shows, in public settings only (``dataset=None``: the user's CSV, columns below).

    ``levels``: the declared groups, the reference first; ``seed``: the page's preview seed. The CSV's columns are
    the survival notebook's; an upload's ``strata`` (column, levels) and ``covariates`` ((column, ``(0, 1)``, a
    :class:`~dpcore.survival.cox.CutPoints` or the
    levels, the reference first), …) are its other columns, declared on the page.
    """

    dataset: str | None
    levels: tuple[str, ...]
    horizon: float
    intervals: int
    epsilon: float
    seed: int
    utility_draws: int = 100  # ui.hazard_ratio.UTILITY_DRAWS
    redraws: int = 50  # ui.hazard_ratio.REDRAWS
    strata: tuple[str, tuple[str, ...]] | None = None
    covariates: tuple[tuple[str, tuple], ...] = ()

    def names(self) -> tuple[str, str, str]:
        """The time, event and group columns' names in the fit: the CSV's own (as on the page), else ``group_frame``'s."""
        return ("T", "E", "group") if self.dataset is not None else (self.time_col, self.event_col, self.group_col)


def cells(c: HazardRatioConfig) -> list[Cell]:
    """The notebook's steps, in the section's order and with its seeds."""
    fitter = "DPCoxPHFitter(epsilon=EPSILON, bounds=BOUNDS, strata=STRATA, horizon=HORIZON, intervals=INTERVALS)"
    extra = [name for name, _ in c.covariates] + ([c.strata[0]] if c.strata else [])
    frame = f"frame[{literal(extra)}]" if extra else "None"
    return [
        Cell("Imports: dpcore's Cox fitter, the non-private reference and the figures.",
             "import numpy as np\n\nfrom dpcore.core import datasets\nfrom dpcore import survival as sv\n"
             "from dpcore.survival import figures as sf\n"
             "from dpcore.survival.cox import DPCoxPHFitter, group_frame, lifelines_reference"),
        *data_cells(c),
        Cell("The section's settings. The groups (reference first), the strata and covariates with their levels, "
             "the horizon and the intervals are public: declared, never read off the data.",
             code("EPSILON = {eps}\nSEED = {seed}  # the preview's seed; a release is seeded by the operating system\n"
                  "LEVELS = {levels}\nHORIZON = {h}\nINTERVALS = {k}\n"
                  "TIME, EVENT, GROUP = NAMES = {names}\n"
                  "COVARIATES = {covariates}  # (column, (0, 1) if binary or its levels, the reference first)\n"
                  "CUTS = {cuts}  # (column, its public cut points): a continuous covariate cut there\n"
                  "STRATA = {strata}  # (column, its levels), or None\n"
                  "BOUNDS = {GROUP: LEVELS, **dict(COVARIATES), **{name: sv.cut_at(*points) for name, points in CUTS}}\n"
                  "STRATA = None if STRATA is None else dict([STRATA])\n\n", eps=c.epsilon, seed=c.seed,
                  levels=tuple(c.levels), h=c.horizon, k=c.intervals, names=c.names(),
                  covariates=tuple((n, b) for n, b in c.covariates if not isinstance(b, CutPoints)),
                  cuts=tuple((n, b.points) for n, b in c.covariates if isinstance(b, CutPoints)), strata=c.strata)
             + f"df = group_frame(time, event, group, {frame}, names=NAMES)"),
        Cell("One preview release: noise on every cell of the histogram (stratum × covariate cell × interval × "
             "outcome), drawn with the page's seed, and the grouped Cox fit with its interval (sampling and privacy "
             "noise together).",
             f"fitter = {fitter}\n"
             "fitter.fit(df, TIME, EVENT, rng=np.random.default_rng(SEED))\n"
             "private = fitter.summary\nprint(private)"),
        Cell("Beside lifelines' CoxPHFitter on the same rows cut at the horizon, with the same covariates and strata "
             "(non-private, Efron ties: for comparison only, never exported).",
             "nonprivate = lifelines_reference(df, TIME, EVENT, fitter)\nprint(nonprivate)\n"
             "forest = sf.forest_figure(private, nonprivate, epsilon=EPSILON,\n"
             "                          title=f'Hazard ratio against {LEVELS[0]}')", figure="forest"),
        *([] if c.covariates else [Cell(
            "Proportional hazards? Each interval's hazard ratio and the test of their trend, from the same released "
            "counts (with one interval there is nothing to compare).",
            "check = fitter.proportional_hazards_check(rng=np.random.default_rng(1))\nprint(check.trend)\n"
            "per_interval = sf.per_interval_figure(check.per_interval, time_label=f'time ({time_unit})')",
            figure="per_interval")]),
        Cell("The utility over many preview releases at this ε (each with its own interval), with the page's seed.",
             code("many = fitter.simulate(df, TIME, EVENT, draws={draws}, rng=np.random.default_rng(7), redraws={redraws})\n"
                  "diff = np.abs(many.coef[:, 0] - nonprivate.iloc[0]['coef'])\n"
                  "print(f'median |Δ log HR| {np.median(diff):.3f}; significant in '\n"
                  "      f'{np.mean(many.p_value[:, 0] < 0.05):.0%} of releases')",
                  draws=c.utility_draws, redraws=c.redraws)),
        release_cell(METHOD, "EPSILON", "0.0", f"bundle = {fitter}.fit(df, TIME, EVENT).release_bundle()",
                     "hazard-ratio"),
    ]
