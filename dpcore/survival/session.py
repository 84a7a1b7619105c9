"""The survival page's session: what the page computes between its controls and its figures, without Streamlit.

Why here and not in the page: the page (``app_pages/survival.py``) and its sections (``ui/survival/``) arrange
controls and figures; the numbers they show — the preview release, its reads, the draws and the trade-off sweep,
the tables and the sentences that quote them — are computed here, where a test reaches them without a browser.
The preview's random streams are named once (:data:`SEED_STREAMS`): the notebook a page hands out draws from the same
seeds (``dpcore/notebooks/survival.py``), so it prints the page's numbers.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import pandas as pd

from dpcore import survival as sv
from dpcore.core.datasets import UNIT_DAYS, load_survival, manifest, survival_persons
from dpcore.core.persons import Persons, fingerprint
from dpcore.core.seeds import SeedStreams
from dpcore.core.utility import describe_draws
from dpcore.survival import page_text as text
from dpcore.survival import resolution as recorded
from dpcore.survival.planning import survival_plan

UNITS = list(UNIT_DAYS)
#: Starting horizon for uploads, in the file's time unit: one year of follow-up (five for data in years, so the
#: grid has more than one bin). A public choice; the Horizon control changes it.
UPLOAD_HORIZON = {"days": 365.0, "weeks": 52.0, "months": 12.0, "years": 5.0}
#: Noise draws offered for the utility view at ε (``?sv_R=``) and per ε of the trade-off curve (``?sv_Rc=``).
DRAW_OPTIONS = [50, 100, 200, 500]
SWEEP_DRAWS = 200
#: The Gaussian's δ per release (``?sv_delta=``; the default is the second).
DELTA_OPTIONS = [1e-5, 1e-6, 1e-7, 1e-8]
#: Draws of the band a release exports (its parametric bootstrap), and of the several-releases plan.
BAND_DRAWS, PLAN_DRAWS = 200, 100
#: The default summary times, in years (``?sv_years=``).
DEFAULT_YEARS = "1, 2, 5"

#: The preview's random streams: each draws from ``default_rng(stream(seed, name))``. One name per use, so no two
#: uses share draws and the notebook repeats each use's numbers (it reads the same offsets).
SEED_STREAMS = SeedStreams(preview=0, sweep=1, draws=7, utility=11, plan=13, differences=17)
stream, rng = SEED_STREAMS, SEED_STREAMS.rng


# ---- the data ------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Source:
    """A data set as the page reads it: times, events and declared groups, with its public metadata."""

    label: str
    fp: str
    time: np.ndarray
    event: np.ndarray
    group: np.ndarray | None
    groups: tuple[str, ...] | None
    group_label: str | None
    event_labels: tuple[str, ...]
    time_unit: str
    horizon: float
    grid_unit: str
    bundled: bool
    persons: Persons  # who each row is, for the privacy ledger
    #: an upload's frame as read (the hazard-ratio section's strata and covariates): this session's memory only
    frame: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    #: the bundled data set's name (the key of the caches shared by sessions); None for an upload
    name: str | None = None

    @cached_property
    def content(self) -> str:
        """What the page reads of the data set (its times, events and groups as mapped), for session memos: the
        table's own fingerprint stays the same when another column is chosen as the time."""
        groups = () if self.group is None else (np.asarray(self.group, dtype=str), tuple(self.groups or ()))
        return fingerprint(self.fp, self.time, self.event, *groups)

    def subset(self, rows: np.ndarray) -> Source:
        """These rows of the data set (the private choice of ε judges blocks of them)."""
        return replace(self, time=self.time[rows], event=self.event[rows],
                       group=None if self.group is None else self.group[rows])


def bundled_source(name: str) -> Source:
    """A bundled data set with its public metadata (groups, event types, time unit, horizon)."""
    d = load_survival(name)
    meta = manifest()["survival"][name]
    groups = tuple(meta["groups"]) or None
    labels = tuple(d.event_labels[k] for k in sorted(d.event_labels))
    return Source(f"{d.title} (bundled)", fingerprint("bundled-survival", name), d.time, d.event, d.group, groups,
                  d.group_label, labels, d.time_unit, d.horizon, d.default_grid_unit, True,
                  survival_persons(name, d), name=name)


def upload_source(mapped: sv.MappedData, *, label: str, fp: str, group_column: str | None, unit: str,
                  persons: Persons, frame: pd.DataFrame) -> Source:
    """An upload as mapped to the roles; its starting horizon is :data:`UPLOAD_HORIZON` (never read off the file)."""
    return Source(label, fp, mapped.time, mapped.event, mapped.group, mapped.groups, group_column,
                  mapped.event_labels, unit, UPLOAD_HORIZON[unit], unit, False, persons, frame)


def rule_inputs(src: Source, *, compare: bool, epsilon: float) -> dict:
    """The public inputs of the default grid besides the horizon: n, ε and the number of groups released together."""
    compared = bool(src.groups) and compare
    return dict(n=int(src.time.size), epsilon=epsilon, n_groups=len(src.groups) if compared else 1)


def counts_for(src: Source, grid: sv.Grid, compare: bool, risk_set: str) -> sv.Counts:
    """The counts as the chosen rule's release noises them (the paper's rule: the paper's matrix)."""
    return sv.count_matrix(src.time, src.event, grid, group=src.group if compare else None,
                           groups=src.groups if compare else None, n_types=len(src.event_labels),
                           event_labels=src.event_labels, statistic=sv.statistic_for(risk_set))


# ---- the settings and the session ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Settings:
    """The page's public settings, each a control with its own link key (``?sv_…``)."""

    horizon: float
    grid_unit: str
    width: int
    compare: bool
    estimator: str
    event_type: int
    band_rule: str
    whole: str  # the custodian's declaration, "continuous" or a unit
    resolution: float | None  # the declared resolution in the data's unit; None: continuous
    aware: bool
    kind: str
    delta: float
    risk_set: str
    seed: int

    def sweep_args(self, draws: int) -> tuple:
        """The trade-off sweep's arguments after the data and the ε grid (:func:`sweep`; hashable, for caches)."""
        return (self.horizon, self.grid_unit, self.width, self.compare, self.estimator, draws, self.seed, self.kind,
                self.delta, self.event_type, self.risk_set, self.aware)

    @property
    def released_noise(self) -> str:
        return released_noise(self.kind)


def released_noise(kind: str) -> str:
    """The noise a release draws for the preview's ``kind``: Laplace is for previews only."""
    return "gaussian" if kind == "gaussian" else "discrete_laplace"


def sweep(src: Source, epsilons, horizon, grid_unit, width, compare, estimator, draws, seed, kind, delta,
          event_type, risk_set, aware) -> sv.SurvivalUtilityCurve:
    """The privacy–utility sweep over ``epsilons`` (stream ``"sweep"``), from the data and the settings alone."""
    grid = sv.make_grid(horizon, data_unit=src.time_unit, grid_unit=grid_unit, width=width)
    counts = counts_for(src, grid, compare, risk_set)
    return sv.utility_curve(counts, epsilons, draws=draws, rng=rng(seed, "sweep"), estimator=estimator, kind=kind,
                            delta=delta, event_type=event_type, risk_set=risk_set, noise_aware_logrank=aware)


def utility_note(uc: sv.SurvivalUtilityCurve, epsilon: float, grid_unit: str) -> str:
    """The release's custodian note: the sweep's row at ``epsilon`` (no simulation of its own on an ε move)."""
    i = int(np.argmin(np.abs(np.log(uc.epsilons) - np.log(epsilon))))  # the slider's options are the sweep's ε
    return (f"Over {uc.sup_error.shape[1]} simulated releases at ε = {uc.epsilons[i]:g} (the privacy–utility "
            f"curve's draws at this ε): sup-norm error {describe_draws(uc.sup_error[i])}, integrated absolute error "
            f"{describe_draws(uc.integrated_error[i])} ({grid_unit})"
            + (f"; the log-rank decision at α = 0.05 agrees with the non-private test in "
               f"{np.mean(uc.logrank_agree[i]):.0%} of releases" if uc.logrank_agree is not None else "") + ".")


@dataclass(frozen=True)
class Preview:
    """One preview release at ε: its noise, the noisy counts, and the generator that drew them (the headline's band
    continues on it, as the notebook's does)."""

    epsilon: float
    noise: object
    rng: np.random.Generator
    noisy: sv.Counts
    minimum: float  # public (ε and Δ1 only): below it the curves are faded


@dataclass(frozen=True)
class KmRead:
    """The Kaplan–Meier headline of a preview: the released table and band and the median read off them."""

    private_table: sv.RiskTable
    private: sv.CurveSet
    redraws: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    released: pd.DataFrame
    median: str


@dataclass(frozen=True)
class Logrank:
    """The log-rank tests of the groups view: non-private, private plain and noise-aware (the one shown: ``chosen``)."""

    exact: object
    plain: object
    aware: object
    chosen: object
    noisy_table: sv.RiskTable
    noise_aware: bool

    @property
    def agree(self) -> bool:
        return bool((self.chosen.p_value < 0.05) == (self.exact.p_value < 0.05))

    def sentence(self) -> str:
        """The test's statistics and the decision, private against non-private."""
        return (f"Log-rank χ² = {float(self.chosen.statistic):.2f} (private"
                f"{', noise-aware' if self.noise_aware else ''}) vs {float(self.exact.statistic):.2f} (non-private), "
                f"{self.exact.dof} df. Decision at α = 0.05 " + ("**agrees**." if self.agree else
                                                                 "**differs** in this draw.")
                + f" Private p-values: **noise-aware {float(self.aware.p_value):.3g} (report this one)**; "
                  f"plain {float(self.plain.p_value):.3g}. " + text.LOGRANK_WHY_AWARE)


@dataclass
class Session:
    """The data, the settings, the public grid and the exact counts on it: everything the views at ε share."""

    src: Source
    settings: Settings
    grid: sv.Grid
    counts: sv.Counts
    #: the session's last results at ε (:meth:`remembered`), newest last
    _memo: OrderedDict = field(default_factory=OrderedDict, init=False, repr=False, compare=False)

    #: how many results :meth:`remembered` keeps (a few kinds at each of the last several ε)
    MEMO_SIZE = 40

    @classmethod
    def build(cls, src: Source, settings: Settings) -> Session:
        """The grid (raises ``InputError`` for a grid that cannot be built) and the counts on it."""
        s = settings
        grid = sv.make_grid(s.horizon, data_unit=src.time_unit, grid_unit=s.grid_unit, width=s.width, max_bins=2_000)
        return cls(src, settings, grid, counts_for(src, grid, s.compare, s.risk_set))

    @property
    def n_groups(self) -> int:
        return self.counts.n_groups

    @property
    def time_label(self) -> str:
        return f"time ({self.grid.grid_unit})"

    @property
    def read_resolution(self) -> float | None:
        """The declared resolution in the grid's unit, for every reading of the curve (None: continuous times)."""
        return None if self.settings.resolution is None else self.settings.resolution / self.grid.step

    def declared_mismatch(self) -> str | None:
        """Where times declared recorded in whole units are not whole: the custodian's note to check (None: they
        are, or nothing is declared)."""
        if self.settings.resolution is None:
            return None
        return recorded.recorded_hint(self.src.time, self.src.time_unit, self.settings.whole)

    @property
    def end(self) -> float:
        return float(self.grid.display[-1])

    def table(self, c: sv.Counts) -> sv.RiskTable:
        """The chosen post-processing of counts (all causes together, except for competing risks)."""
        s = self.settings
        return sv.postprocess(c.collapse_types() if s.estimator != "cif" else c, risk_set=s.risk_set)

    def curves(self, c: sv.Counts) -> sv.CurveSet:
        return sv.curve_for(self.table(c), self.settings.estimator, event_type=self.settings.event_type)

    @cached_property
    def exact_table(self) -> sv.RiskTable:
        return self.table(self.counts.pooled())

    @cached_property
    def exact_pooled(self) -> sv.CurveSet:
        return sv.curve_for(self.exact_table, self.settings.estimator, event_type=self.settings.event_type)

    def grid_note(self, inputs: dict) -> str:
        """How the grid was chosen, with the public rule's inputs."""
        return (f"**The time grid.** {self.grid.describe()}. By default the bin width follows a public rule from the "
                f"horizon, n = {inputs['n']}, ε = {inputs['epsilon']:g} and {inputs['n_groups']} group(s) released "
                f"together (target k* ≈ {sv.target_bins(**inputs):.0f} bins): {sv.GRID_RULE}. Change the unit or width "
                "in Settings to override it.")

    def noised(self) -> str:
        """Which counts a release noises, in words."""
        src, grid, G = self.src, self.grid, self.n_groups
        events = f"the number of events{' of each type' if len(src.event_labels) > 1 else ''} and of censorings"
        if self.counts.statistic == "matrix":
            return (f"per {'group' if G > 1 else 'data set'}, the number of people at time 0 and, in each of the "
                    f"{grid.k} bins, {events} (the paper's release)")
        return (f"in each of the {grid.k} bins{' of each group' if G > 1 else ''}, {events}; the number at time 0 is "
                f"their sum{' per group' if G > 1 else ''}, pinned to the total n = {src.time.size:,}")

    def years_to_times(self, years_text: str) -> tuple[float, ...]:
        """Comma-separated years → times in the grid's unit, inside the horizon (unreadable parts are skipped)."""
        per_year = UNIT_DAYS["years"] / UNIT_DAYS[self.grid.grid_unit]
        years = []
        for part in years_text.split(","):
            try:
                years.append(float(part))
            except ValueError:
                continue
        return tuple(y * per_year for y in years if 0 < y * per_year <= self.grid.display[-1] + 1e-9)

    def reference_key(self) -> tuple:
        """What the lifelines reference depends on (not ε): the data read and the grid."""
        return (self.src.content, self.grid.describe(), tuple(self.grid.display))

    def references(self, grouped: bool = False) -> list:
        """lifelines on the exact times, pooled or per group (non-private: shown beside the private curves, never
        exported)."""
        by_group = dict(group=self.src.group, groups=self.src.groups) if grouped else {}
        return sv.lifelines_reference(self.src.time, self.src.event, self.grid, **by_group)

    # ---- at ε --------------------------------------------------------------------------------------------------

    def remembered(self, key: tuple, compute):
        """``compute()``, kept under ``key`` among the session's last :attr:`MEMO_SIZE` results.

        Why: a result at ε depends only on the session and ε (each draws from its own named stream of a fixed
        seed), so moving ε back to a value shown a moment ago — a reader dragging the slider to and fro — shows it
        again without computing it (the Kaplan–Meier headline was 25 of a move's 42 ms of script). The results stay
        in this session's memory with its data; nothing is shared between sessions. Callers must not mutate them.
        """
        if key in self._memo:
            self._memo.move_to_end(key)
            return self._memo[key]
        value = self._memo[key] = compute()
        while len(self._memo) > self.MEMO_SIZE:
            self._memo.popitem(last=False)
        return value

    def preview(self, epsilon: float) -> Preview:
        """The preview release every view shows (stream ``"preview"``). Its generator is a fresh copy on every call,
        at the state the noise left it in: what a view draws from it does not depend on what was drawn before."""
        drawn = self.remembered(("preview", float(epsilon)), lambda: self._draw_preview(epsilon))
        return replace(drawn, rng=copy.deepcopy(drawn.rng))

    def _draw_preview(self, epsilon: float) -> Preview:
        s = self.settings
        noise = sv.noise_for(self.counts, epsilon, kind=s.kind, delta=s.delta)
        generator = rng(s.seed, "preview")
        noisy = sv.noisy_counts(self.counts, noise, rng=generator)
        return Preview(epsilon, noise, generator, noisy, sv.min_at_risk(noise.std))

    def km_read_at(self, epsilon: float) -> KmRead:
        """:meth:`km_read` of the preview at ``epsilon`` (:meth:`remembered`)."""
        return self.remembered(("km read", float(epsilon)), lambda: self.km_read(self.preview(epsilon)))

    def km_read(self, p: Preview) -> KmRead:
        """The Kaplan–Meier preview read as a release reads it: its band redrawn from the noisy counts (continuing
        the preview's generator), the median between edges by the release's rule."""
        s = self.settings
        all_cause = p.noisy.collapse_types()
        private_table = sv.postprocess(all_cause.pooled(), risk_set=s.risk_set)
        private = sv.km(private_table)
        redraws = sv.bootstrap_curves(all_cause, p.noise, draws=BAND_DRAWS, rng=p.rng, pool_groups=True,
                                      risk_set=s.risk_set)
        lo, hi = np.quantile(redraws, [0.025, 0.975], axis=0)
        released = sv.curve_table(self.grid.display, private.estimate, lo, hi, ("all",))
        median = sv.median_table(released, self.grid.grid_unit, widen=sv.BAND_RULES[s.band_rule],
                                 resolution=self.read_resolution)["reported"].iloc[0]
        return KmRead(private_table, private, redraws, lo, hi, released, median)

    def km_summary(self, read: KmRead, reference, times, tau: float) -> pd.DataFrame:
        """Survival at the chosen times and the restricted mean, private (read off the release) beside lifelines."""
        unit = self.grid.grid_unit
        summary = sv.read_tables(self.grid.display, read.private.estimate, read.lo, read.hi, read.redraws, ("all",),
                                 times=times, tau=tau, unit=unit, widen=sv.BAND_RULES[self.settings.band_rule],
                                 resolution=self.read_resolution)
        at = summary["survival_at_times"]
        ref_lo, ref_hi = reference.band_at(at["time"].to_numpy())
        rows = [{"summary": f"survival at {t:g} {unit}", "private (95 % CI)": r,
                 "lifelines, exact times (95 % CI)": f"{s:.2f} ({a:.2f} to {b:.2f})"}
                for t, r, s, a, b in zip(at["time"], at["reported"], reference.at(at["time"].to_numpy()), ref_lo,
                                         ref_hi)]
        rm = summary["rmst"].iloc[0]
        rows.append({"summary": f"restricted mean to {rm['horizon']:.4g} {unit}", "private (95 % CI)": rm["reported"],
                     "lifelines, exact times (95 % CI)": f"{reference.rmst(rm['horizon']):.3g} {unit} (no interval)"})
        return pd.DataFrame(rows).set_index("summary")

    def other_read(self, p: Preview) -> tuple[sv.RiskTable, sv.CurveSet, tuple]:
        """The Nelson–Aalen or competing-risk preview, pooled, with its noise-aware band (continuing the preview's
        generator)."""
        s = self.settings
        private_table = self.table(p.noisy.pooled())
        private_pooled = sv.curve_for(private_table, s.estimator, event_type=s.event_type)
        band = sv.noise_band(p.noisy.collapse_types() if s.estimator != "cif" else p.noisy, p.noise,
                             draws=BAND_DRAWS, rng=p.rng, estimator=s.estimator, event_type=s.event_type,
                             pool_groups=True, risk_set=s.risk_set)
        return private_table, private_pooled, band

    def other_answer(self, private_pooled: sv.CurveSet, band) -> tuple[str, str, str]:
        """The answer line of the Nelson–Aalen or competing-risk headline: measure, private, non-private."""
        measure = {"na": "Cumulative hazard", "cif": "Cumulative incidence"}[self.settings.estimator]
        band_lo, band_hi = band
        return (f"{measure} at {self.end:.3g} {self.grid.grid_unit}" + (", all groups pooled" if self.n_groups > 1
                                                                        else ""),
                f"{private_pooled.estimate[0][-1]:.3g} (noise band {band_lo[0][-1]:.3g} to {band_hi[0][-1]:.3g})",
                f"{self.exact_pooled.estimate[0][-1]:.3g}")

    def draw_curves(self, p: Preview, draws: int) -> np.ndarray:
        """``draws`` preview releases at ε (stream ``"draws"``), pooled: the draws view's thin lines."""
        many = sv.noisy_counts(self.counts, p.noise, rng=rng(self.settings.seed, "draws"), draws=draws)
        return self.curves(many.pooled()).estimate[:, 0]

    def utility(self, epsilon: float, draws: int) -> sv.Utility:
        """The draws view's measures over ``draws`` releases at ε (stream ``"utility"``), :meth:`remembered`: each
        release's interval is redrawn too, so 500 draws take about half a second, and a reader moving the draws or
        ε back to a value just shown should not wait for it again."""
        s = self.settings
        return self.remembered(("utility", float(epsilon), int(draws)), lambda: sv.utility(
            self.counts, epsilon, draws=draws, rng=rng(s.seed, "utility"), estimator=s.estimator, kind=s.kind,
            delta=s.delta, event_type=s.event_type, risk_set=s.risk_set, noise_aware_logrank=s.aware))

    def logrank(self, p: Preview) -> Logrank:
        """The log-rank tests of the groups, on the exact and on the noisy per-group counts."""
        s = self.settings
        exact = sv.logrank_test(sv.postprocess(self.counts.collapse_types(), risk_set=s.risk_set))
        noisy_table = sv.postprocess(p.noisy.collapse_types(), risk_set=s.risk_set)
        lr_table = sv.logrank_table(p.noisy.collapse_types(), p.noise.std, risk_set=s.risk_set)
        plain = sv.logrank_test(lr_table)
        aware = sv.logrank_test(lr_table, noise_var=p.noise.std**2, n_types=len(self.src.event_labels))
        return Logrank(exact, plain, aware, aware if s.aware else plain, noisy_table, s.aware)

    def differences(self, p: Preview, times, tau: float) -> pd.DataFrame:
        """Each group against the first: survival at ``times``, the median and the restricted mean, with the
        intervals a release exports ('differences'), read by the within-bin rule (stream ``"differences"``)."""
        s = self.settings
        all_cause = p.noisy.collapse_types()
        curves = sv.km(sv.postprocess(all_cause, risk_set=s.risk_set))
        redraws = sv.bootstrap_curves(all_cause, p.noise, draws=BAND_DRAWS, rng=rng(s.seed, "differences"),
                                      risk_set=s.risk_set)
        lo, hi = np.quantile(redraws, [0.025, 0.975], axis=0)
        diff = sv.read_tables(self.grid.display, curves.estimate, lo, hi, redraws, self.counts.groups, times=times,
                              tau=min(tau, self.end), unit=self.grid.grid_unit, widen=sv.BAND_RULES[s.band_rule],
                              resolution=self.read_resolution)["differences"]
        return diff[["comparison", "measure", "reported"]].set_index(["comparison", "measure"])

    def plan_table(self, epsilon: float, total_delta: float) -> pd.DataFrame:
        """Several releases on one budget: each noise's plan, measured on these counts (stream ``"plan"``)."""
        s = self.settings
        plan = survival_plan(self.counts, epsilon, total_delta, draws=PLAN_DRAWS, rng=rng(s.seed, "plan"),
                             estimator=s.estimator, event_type=s.event_type, risk_set=s.risk_set)
        return pd.DataFrame({
            "releases": plan["releases"],
            "discrete Laplace: ε each": plan["dl_epsilon_each"].map("{:.3g}".format),
            "discrete Laplace: ± per count": plan["dl_sd_per_count"].map("{:.3g}".format),
            "Gaussian: ε, δ each": [f"{e:.3g}, {d:.2g}" for e, d in zip(plan["gaussian_epsilon_each"],
                                                                      plan["gaussian_delta_each"])],
            "Gaussian: ± per count": plan["gaussian_sd_per_count"].map("{:.3g}".format),
            "sup error, discrete Laplace": plan["dl_sup_error_median"].map("{:.3f}".format),
            "sup error, Gaussian": plan["gaussian_sup_error_median"].map("{:.3f}".format),
            "less noise": plan["less_noise"]}).set_index("releases")

    # ---- the release -------------------------------------------------------------------------------------------

    def release_params(self) -> dict:
        """The public parameters the release panel shows and the ledger records."""
        s, G = self.settings, self.n_groups
        return {"grid": self.grid.describe(), "groups": list(self.counts.groups), "estimators": "KM, NA, CIF, log-rank",
                "risk_set": s.risk_set, "statistic": self.counts.statistic, "noise_kind": s.released_noise,
                "times_recorded_in": s.whole, "sensitivity_l1": sv.sensitivity(G, statistic=self.counts.statistic)}

    def release(self, epsilon: float, reads: dict):
        """One charged release of these settings (OpenDP noise, seeded by the operating system)."""
        src, s = self.src, self.settings
        return sv.release(
            src.time, src.event, grid=self.grid, epsilon=epsilon, group=src.group if s.compare else None,
            groups=src.groups if s.compare else None, n_types=len(src.event_labels), event_labels=src.event_labels,
            dataset=src.label, fingerprint=src.fp, risk_set=s.risk_set, statistic=self.counts.statistic,
            noise_kind=s.released_noise, delta=s.delta, group_column=src.group_label if s.compare else None, **reads)


def utility_summary(util: sv.Utility) -> pd.DataFrame:
    """The draws view's table: each measure's mean with its 5–95 % range."""
    summary = util.summary()
    summary["mean [5 %, 95 %]"] = [f"{m:.3g} [{lo:.2g}, {hi:.2g}]"
                                   for m, lo, hi in zip(summary["mean"], summary["q05"], summary["q95"])]
    return summary


def largest_gap(summary: pd.DataFrame) -> str:
    """The draws view's answer: the sup-norm error's mean and 5–95 % range."""
    gap = summary.set_index("measure").loc["sup-norm error"]
    return f"{gap['mean']:.2f} on average (5–95 %: {gap['q05']:.2f} to {gap['q95']:.2f})"
