"""The survival page's configuration as a notebook: data, grid, one seeded preview, figures, a guarded release."""

from __future__ import annotations

from dataclasses import dataclass

from dpcore.notebooks.code import Cell, code
from dpcore.notebooks.common import READ_CSV, release_cell
from dpcore.survival.session import SEED_STREAMS

TITLE = "Differentially private survival curves"
METHOD = "DP survival analysis"


@dataclass(frozen=True, kw_only=True)
class CsvColumns:
    """The user's CSV: how its columns map to the roles (names as chosen on the page); unused for bundled data."""

    time_col: str = ""
    event_col: str = ""
    group_col: str | None = None
    group_labels: tuple[str, ...] | None = None
    n_types: int = 1
    time_unit: str = "days"


@dataclass(frozen=True)
class SurvivalConfig(CsvColumns):
    """What the survival page shows, in public settings only (``dataset=None``: the user's CSV, columns below)."""

    dataset: str | None
    horizon: float
    grid_unit: str
    epsilon: float
    seed: int
    estimator: str = "km"
    event_type: int = 1
    compare: bool = False
    noise_aware: bool = False
    kind: str = "discrete_laplace"
    delta: float = 0.0  # the Gaussian's δ (kind "gaussian")
    risk_set: str = "isotonic"  # dpcore.survival.DEFAULT_RISK_SET (a plain value: the settings the notebook prints)
    sweep: tuple[float, ...] = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
    sweep_draws: int = 200
    width: float = 1.0  # bin width in grid units (the page's default grid rule for uploads)
    band_draws: int = 200
    # how the Kaplan–Meier curve is read, as the page reads it (public: the custodian's choices, never the data's)
    read_times: tuple[float, ...] | None = None  # grid units; None: 1, 2 and 5 years inside the horizon
    rmst_horizon: float | None = None  # grid units; None: the grid's horizon
    band_rule: str = "half"  # dpcore.survival.DEFAULT_BAND
    time_resolution: float | None = None  # data units: times declared recorded in whole units of it; None: continuous


def data_cells(c: CsvColumns) -> list[Cell]:
    """Load the data: the bundled set ``c.dataset``, or (``None``) the user's CSV with its column mapping."""
    if c.dataset is not None:
        return [Cell("Load the bundled data set: its time unit, horizon, group labels and event coding are public "
                     "metadata.",
                     code("data = datasets.load_survival({name})\n"
                          "time, event, group = data.time, data.event, data.group\n"
                          "groups = data.groups or None  # the declared group labels\n"
                          "event_labels = tuple(data.event_labels[k] for k in sorted(data.event_labels))\n"
                          "time_unit = data.time_unit", name=c.dataset))]
    return [READ_CSV, Cell(
        "Map the columns to time, event and group. The group labels are declared, never read off the file.",
        code("mapped = sv.survival_from_frame(frame, time_col={t}, event_col={e}, group_col={g},\n"
             "                                group_labels={labels}, n_types={k})\n"
             "time, event, group, groups = mapped.time, mapped.event, mapped.group, mapped.groups\n"
             "event_labels = mapped.event_labels\n"
             "time_unit = {unit}", t=c.time_col, e=c.event_col, g=c.group_col,
             labels=None if c.group_labels is None else list(c.group_labels), k=c.n_types, unit=c.time_unit))]


def _curves_code(c: SurvivalConfig) -> str:
    collapse = ".collapse_types()" if c.estimator != "cif" else ""
    return (f"def curves(c):\n"
            f"    return sv.curve_for(sv.postprocess(c{collapse}, risk_set=RISK_SET), ESTIMATOR, "
            f"event_type=EVENT_TYPE)\n\n\n"
            f"private, exact = curves(noisy.pooled()), curves(counts.pooled())\n"
            + code(f"band = sv.noise_band(noisy{collapse}, noise, draws={{draws}}, rng=rng, estimator=ESTIMATOR,\n"
                   "                     event_type=EVENT_TYPE, pool_groups=True, risk_set=RISK_SET)\n",
                   draws=c.band_draws)
            + "print('private:', private.estimate[0].round(3))\nprint('non-private:', exact.estimate[0].round(3))")


def _read_cells(c: SurvivalConfig) -> list[Cell]:
    """The headline figure: for Kaplan–Meier the curve read between edges by the release's rule, beside lifelines on
    the exact times (as the page draws it); the other estimators' curves as before."""
    if c.estimator != "km":
        return [Cell("Private versus non-private curve.",
                     "headline = sf.headline_figure(private, exact, estimator=ESTIMATOR, noise_band=band,\n"
                     "                              time_label=f'time ({grid.grid_unit})')", figure="headline")]
    return [Cell(
        "Read the private curve where a clinician reads it: between grid edges by one rule (a constant hazard inside "
        "a bin, as the actuarial estimator assumes), the median with its interval (the band inverted at 0.5), "
        "survival at 1, 2 and 5 years. The reference is lifelines on the exact times (non-private: for comparison "
        "only, never exported). The figure is the page's headline.",
        "READ = dict(widen=sv.BAND_RULES[BAND_RULE],\n"
        "            resolution=None if RESOLUTION is None else RESOLUTION / grid.step)  # the reading, in grid units\n"
        "released = sv.curve_table(grid.display, private.estimate, band[0], band[1], ('all',))\n"
        "times = sv.default_read_times(grid) if READ_TIMES is None else READ_TIMES\n"
        "print(sv.survival_at(released, times, **READ))\n"
        "print(sv.median_table(released, grid.grid_unit, **READ)['reported'].iloc[0])\n"
        "reference = sv.lifelines_reference(time, event, grid)[0]\n"
        "print('lifelines on the exact times:', sv.describe_read(reference.median, *reference.median_ci, "
        "grid.grid_unit))\n"
        "binning, noise_cost = sv.costs(grid.display, private.estimate[0], exact.estimate[0], reference,\n"
        "                               resolution=READ['resolution'])\n"
        "print(f'binning alone: sup {binning:.3f}; noise: sup {noise_cost:.3f}')\n"
        "headline = sf.read_figure(released, reference=(reference.times, reference.survival),\n"
        "                          binned=(grid.display, exact.estimate[0]), time_label=f'time ({grid.grid_unit})',\n"
        "                          **READ)",
        figure="headline")]




def cells(c: SurvivalConfig) -> list[Cell]:
    """The notebook's steps, in the page's order and with its seeds (so the numbers are the page's)."""
    grouped = "group=group, groups=groups" if c.compare else "group=None, groups=None"
    return [
        Cell("Imports: dpcore's survival package and its figures.",
             "import numpy as np\n\nfrom dpcore.core import datasets\nfrom dpcore import survival as sv\n"
             "from dpcore.survival import figures as sf"),
        *data_cells(c),
        Cell("The page's settings. The grid (unit and horizon) is public: chosen without looking at the data.",
             code("EPSILON = {eps}\nSEED = {seed}  # the preview's seed; a release is seeded by the operating system\n"
                  "ESTIMATOR, EVENT_TYPE, RISK_SET, NOISE, DELTA = {est}, {etype}, {rs}, {kind}, {delta}\n\n"
                  "grid = sv.make_grid({h}, data_unit=time_unit, grid_unit={unit}, width={w}, max_bins=2000)\n"
                  "READ_TIMES, RMST_HORIZON, BAND_RULE = {times}, {tau}, {band}  # how the curve is read (grid units)\n"
                  "RESOLUTION = {res}  # the custodian's declaration: times recorded in whole units of it\n"
                  f"counts = sv.count_matrix(time, event, grid, {grouped}, n_types=len(event_labels),\n"
                  "                         event_labels=event_labels, statistic=sv.statistic_for(RISK_SET))",
                  eps=c.epsilon, seed=c.seed, est=c.estimator, etype=c.event_type, rs=c.risk_set, kind=c.kind,
                  delta=c.delta,
                  h=c.horizon, unit=c.grid_unit, w=c.width, times=None if c.read_times is None else list(c.read_times),
                  tau=c.rmst_horizon, band=c.band_rule, res=c.time_resolution)),
        Cell("One preview release: noise on every released count, drawn with the page's seed.",
             "noise = sv.noise_for(counts, EPSILON, kind=NOISE, delta=DELTA)\n"
             "RELEASED_NOISE = 'gaussian' if NOISE == 'gaussian' else 'discrete_laplace'  # Laplace: previews only\n"
             f"rng = {SEED_STREAMS.rng_code('preview')}\n"
             "noisy = sv.noisy_counts(counts, noise, rng=rng)\n"
             "print(noise.describe())"),
        Cell("Post-processing (free): the same estimator on the noisy and on the exact counts, all groups pooled, "
             "and the noise-aware band redrawn from the noisy counts alone.", _curves_code(c)),
        *_read_cells(c),
        Cell("The privacy–utility trade-off: many simulated releases at each ε of a grid, with the page's seed.",
             code("trade_off = sv.utility_curve(counts, {sweep}, draws={draws}, "
                  f"rng={SEED_STREAMS.rng_code('sweep')},\n"
                  "                             estimator=ESTIMATOR, kind=NOISE, delta=DELTA, event_type=EVENT_TYPE,\n"
                  "                             risk_set=RISK_SET, noise_aware_logrank={aware})\n"
                  "utility = sf.utility_figure(trade_off, EPSILON, time_unit=grid.grid_unit)",
                  sweep=list(c.sweep), draws=c.sweep_draws, aware=c.noise_aware), figure="utility"),
        release_cell(METHOD, "EPSILON", "DELTA", (
            f"bundle = sv.release(time, event, grid=grid, epsilon=EPSILON, {grouped},\n"
            "                    n_types=len(event_labels), event_labels=event_labels, risk_set=RISK_SET,\n"
            "                    statistic=counts.statistic, noise_kind=RELEASED_NOISE, delta=DELTA,\n"
            "                    read_times=READ_TIMES, rmst_horizon=RMST_HORIZON, band_rule=BAND_RULE,\n"
            "                    time_resolution=RESOLUTION)"),
            "survival", params="{'noise_kind': RELEASED_NOISE}"),
    ]
