"""Survival page: DP Kaplan–Meier, Nelson–Aalen, competing-risk incidence and log-rank tests.

Thin: controls → dpcore.survival → dpcore.survival.figures. Bundled (public)
inputs are cached; uploads are never cached, written or logged.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property, partial

import numpy as np
import pandas as pd
import streamlit as st

import ui
from dpcore.core import columns
from dpcore import survival as sv
from dpcore.survival import figures as sf
from dpcore.survival import resolution as recorded
from dpcore.ledger import Persons, fingerprint
from dpcore.core.datasets import UNIT_DAYS, load_survival, manifest, survival_names, survival_persons, survival_title
from ui.accuracy import accuracy_first
from ui.private_choice import RowsForChoice
from ui.private_grid import private_grid
from dpcore.private_choice.grid_selection import ReleaseSetting as GridRelease
from ui.exports import code_downloads, release_with_script  # notebook, script
from dpcore.notebooks import SurvivalConfig
from dpcore.core.utility import describe_draws
from dpcore.survival.planning import survival_plan
from ui.attacker import attacker_panel  # teaching mode: what ε means for one patient
from ui.hazard_ratio import hazard_ratio_section
from ui.widgets import EPSILON_STEPS

UNITS = list(UNIT_DAYS)
#: Starting horizon for uploads, in the file's time unit: one year of follow-up (five for data in years, so the
#: grid has more than one bin). A public choice; the Horizon control changes it.
UPLOAD_HORIZON = {"days": 365.0, "weeks": 52.0, "months": 12.0, "years": 5.0}
SWEEP = np.array(EPSILON_STEPS)
#: Noise draws offered for the utility view at ε (``?sv_R=``) and per ε of the trade-off curve (``?sv_Rc=``).
DRAW_OPTIONS = [50, 100, 200, 500]
SWEEP_DRAWS = 200
#: The ε section's views (their labels are Markdown: fixed text only, never a name read from data).
VIEWS = ["Private vs non-private", "Over R noise draws", "Groups and log-rank"]
#: What the chosen post-processing does, in words (the teaching note under the headline).
TEACHING = {rule: "1. People are put in public time bins. 2. The counts per bin get noise. 3. " + step + " 4. The "
            "usual formulas run on these counts. The dark curve uses the same formulas on the true counts."
            for rule, step in {
                "isotonic": "Nothing is clipped yet: the noisy counts are first made consistent (everyone leaves by "
                            "the horizon, so all exits add up to the number of people n, which is known, and the "
                            "difference is shared out equally; the number at risk is the sum of the exits still to "
                            "come, so it shrinks to nothing at the horizon instead of drifting), "
                            "then each count's running total gets the closest never-decreasing fit, so no count is "
                            "negative without a one-sided clip that would add phantom deaths. People censored in a "
                            "bin count as at risk for half of it (the life-table rule).",
                "bridge": "The noisy counts are made consistent (everyone leaves by the horizon, so all exits add up "
                          "to the known n); negative counts are kept (clipping them would add "
                          "phantom deaths), and the curve is clipped to [0, 1] only when shown.",
                "running": "The number at risk is the noisy start minus everyone who left earlier (negative counts "
                           "kept in that sum), never below 0 nor rising; events are clipped at 0.",
                "spec": "The paper's release also noises the number at the start of each group. Negative counts are "
                        "set to 0, the number at risk is rebuilt bin by bin (start minus everyone "
                        "who had an event or was censored earlier), and a bin cannot have more events than people at "
                        "risk (the paper's rule).",
            }.items()}
#: The noise choices (``?sv_noise=``): what each is for, shortly.
NOISE_LABELS = {"discrete_laplace": "discrete Laplace (one release)", "gaussian": "Gaussian (several releases)",
                "laplace": "Laplace (preview only)"}
#: The Gaussian's δ per release (``?sv_delta=``; the default is the second).
DELTA_OPTIONS = [1e-5, 1e-6, 1e-7, 1e-8]
#: The band between grid edges (``?sv_band=``): the default first.
BAND_LABELS = {"half": "half-way to the monotone envelope (default)",
               "envelope": "full envelope (times in whole grid units)"}
RULE_LABELS = {"isotonic": "both ends + monotone fit (default)", "bridge": "both ends, unclipped",
               "running": "running sum", "spec": "the paper's release and rule"}
#: Each setting's value as the folded settings label says it (short: the label is one line).
ESTIMATOR_WORDS = {"km": "Kaplan–Meier", "na": "Nelson–Aalen", "cif": "competing risks"}
BAND_WORDS = {"half": "half band", "envelope": "envelope band"}
NOISE_WORDS = {"discrete_laplace": "discrete Laplace", "gaussian": "Gaussian", "laplace": "Laplace (preview)"}
RULE_WORDS = {"isotonic": "monotone fit", "bridge": "unclipped", "running": "running sum", "spec": "the paper's rule"}


@dataclass(frozen=True)
class Source:
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

    @cached_property
    def content(self) -> str:
        """What the page reads of the data set (its times, events and groups as mapped), for session memos: the
        table's own fingerprint stays the same when another column is chosen as the time."""
        groups = () if self.group is None else (np.asarray(self.group, dtype=str), tuple(self.groups or ()))
        return fingerprint(self.fp, self.time, self.event, *groups)


def _bundled(name: str) -> Source:
    d = load_survival(name)
    meta = manifest()["survival"][name]
    groups = tuple(meta["groups"]) or None
    labels = tuple(d.event_labels[k] for k in sorted(d.event_labels))
    return Source(f"{d.title} (bundled)", fingerprint("bundled-survival", name), d.time, d.event, d.group, groups,
                  d.group_label, labels, d.time_unit, d.horizon, d.default_grid_unit, True, survival_persons(name, d))


@st.cache_data(show_spinner=False, max_entries=64)
def _bundled_sweep(name: str, horizon: float, grid_unit: str, width: float, compare: bool, estimator: str, draws: int,
                   seed: int, kind: str, delta: float, event_type: int, risk_set: str, aware: bool) -> sv.UtilityCurve:
    src = _bundled(name)
    return _sweep(src, horizon, grid_unit, width, compare, estimator, draws, seed, kind, delta, event_type, risk_set,
                  aware)


@ui.public_cache("survival sweep figures", max_entries=128)  # shared, not unpickled on every rerun
def _bundled_sweep_figure(name: str, horizon: float, grid_unit: str, width: float, compare: bool, estimator: str,
                          draws: int, seed: int, kind: str, delta: float, event_type: int, risk_set: str, aware: bool):
    uc = _bundled_sweep(name, horizon, grid_unit, width, compare, estimator, draws, seed, kind, delta, event_type,
                        risk_set, aware)
    return sf.utility_figure(uc, None, time_unit=grid_unit)


def _sweep_and_figure(src: Source, horizon, grid_unit, width, *args):
    uc = _sweep(src, horizon, grid_unit, width, *args)
    return uc, sf.utility_figure(uc, None, time_unit=grid_unit)


def _sweep(src: Source, horizon, grid_unit, width, compare, estimator, draws, seed, kind, delta, event_type,
           risk_set, aware) -> sv.UtilityCurve:
    grid = sv.make_grid(horizon, data_unit=src.time_unit, grid_unit=grid_unit, width=width)
    counts = _counts(src, grid, compare, risk_set)
    return sv.utility_curve(counts, SWEEP, draws=draws, rng=np.random.default_rng(seed + 1), estimator=estimator,
                            kind=kind, delta=delta, event_type=event_type, risk_set=risk_set,
                            noise_aware_logrank=aware)


def _subset(rows: np.ndarray) -> Source:
    """The current source's rows at these positions (the private choice of ε judges blocks of them)."""
    return replace(src, time=src.time[rows], event=src.event[rows],
                   group=None if src.group is None else src.group[rows])


def _counts(src: Source, grid: sv.Grid, compare: bool, risk_set: str) -> sv.Counts:
    """The counts as the chosen rule's release noises them (the paper's rule: the paper's matrix)."""
    return sv.count_matrix(src.time, src.event, grid, group=src.group if compare else None,
                           groups=src.groups if compare else None, n_types=len(src.event_labels),
                           event_labels=src.event_labels, statistic=sv.statistic_for(risk_set))


def _upload() -> Source | None:
    table = ui.upload_csv("sv_upload", label="Upload a CSV (one row per person)",
                          hint="Upload a CSV with a time column and an event column (0 = censored, 1..K = event type); "
                               "optionally a group column. Example: `time,event,arm` with rows like `12.5,1,A`.")
    if table is None:
        return None
    frame, fp, name = table
    persons = table.persons
    cols = list(frame.columns)
    none = "(none)"
    guessed = columns.survival_roles(frame)
    tguess, eguess, gguess = guessed["time"], guessed["event"], guessed["group"]
    unit_guess = columns.time_unit(tguess.column) or "days"
    ui.reset_when_changed("_sv_upload_columns", tuple(cols),
                          dict(sv_tcol=cols[tguess.index_in(cols)], sv_ecol=cols[eguess.index_in(cols, min(1, len(cols) - 1))],
                               sv_gcol=gguess.column or none, sv_glabels="", sv_tunit=unit_guess))
    if columns.describe(guessed.values()):
        st.caption(ui.literal(columns.describe(guessed.values())))
    m1, m2, m3 = st.columns(3)
    with m1:
        tcol = ui.url_selectbox("Time column", key="sv_tcol", options=cols, index=tguess.index_in(cols))
    with m2:
        ecol = ui.url_selectbox("Event column (0 = censored, 1..K)", key="sv_ecol", options=cols,
                                index=eguess.index_in(cols, min(1, len(cols) - 1)))
    with m3:
        gcol = ui.url_selectbox("Group column (optional)", key="sv_gcol", options=[none] + cols,
                                index=gguess.index_in([none] + cols))
    c1, c2 = st.columns(2)
    with c1:
        unit = ui.url_selectbox("Unit of the time column", key="sv_tunit", options=UNITS, index=UNITS.index(unit_guess),
                                help="Sets the grid unit and the horizon's unit below (both can be changed). Guessed "
                                     "from the column's name only (e.g. 'week'); check it.")
    with c2:
        n_types = int(ui.url_number("Number of event types K (2+ = competing risks)", key="sv_k", min_value=1,
                                    max_value=5, value=1, step=1))
    labels = None
    if gcol != none:
        labels = st.text_input(
            f"Group labels in {ui.literal(repr(gcol))} (public: as fixed by the study design, comma-separated)", key="sv_glabels",
            placeholder="e.g. control, treatment",
            help="Which groups exist must be declared, not read off the file: a lone person in a rare group would "
                 "otherwise reveal themselves through the list of groups. Rows with other labels are refused.")
        labels = [g.strip() for g in labels.split(",") if g.strip()]
        if not labels:
            st.info(ui.literal(f"To compare groups by {gcol!r}, declare its labels above (as the study design fixes "
                               "them). Until then the curves pool everyone."), icon=":material/info:")
            gcol = none
    with ui.show_errors("The uploaded file cannot be used"):
        m = sv.survival_from_frame(frame, time_col=tcol, event_col=ecol, group_col=None if gcol == none else gcol,
                                   group_labels=labels, n_types=n_types)
        warning = sv.time_unit_warning(m.time, unit, columns.time_unit(tcol))
        if warning:
            st.warning(warning, icon=":material/warning:")
        return Source(f"{name} (uploaded)", fp, m.time, m.event, m.group, m.groups,
                      None if gcol == none else gcol, m.event_labels, unit, UPLOAD_HORIZON[unit], unit, False,
                      persons, frame)
    return None


def _upload_columns() -> dict:
    """How the upload's columns map to the roles, for the notebook (it reads the user's CSV from a path)."""
    get, gcol = st.session_state.get, st.session_state.get("sv_gcol", "(none)")
    labels = tuple(g.strip() for g in get("sv_glabels", "").split(",") if g.strip())  # ' 1' is the label '1'
    grouped = gcol != "(none)" and bool(labels)  # without declared labels the page pools everyone
    return dict(time_col=get("sv_tcol"), event_col=get("sv_ecol"), group_col=gcol if grouped else None,
                group_labels=labels if grouped else None,
                n_types=int(get("sv_k", 1)), time_unit=get("sv_tunit", UNITS[0]))


# --------------------------------------------------------------------------

ui.page_header("Survival curves with differential privacy",
               "How long patients survive, estimated from noisy counts: move ε and compare the private curve with "
               "the one computed without privacy.")

q_source, q_data, q_compare = ui.question_row(1.4, 2.1, 1.0)
with q_source:
    source_kind = ui.url_radio("Data source", key="sv_src", options=["bundled", "upload"], horizontal=True,
                               format_func=lambda s: {"bundled": "bundled data", "upload": "upload a CSV"}[s])
if source_kind == "bundled":
    with q_data:
        name = ui.url_selectbox("Data set", key="sv_data", options=survival_names(), format_func=survival_title)
    src = _bundled(name)
    prov = load_survival(name).provenance
    data_note = (f"Source: {prov['source']} · licence: {prov['licence']} · {prov['rows']} people · public metadata: "
                 f"time in {src.time_unit}, horizon {src.horizon:g} {src.time_unit}"
                 + (f", groups by {ui.literal(src.group_label)}: {ui.literal(', '.join(src.groups))}"
                    if src.groups else "")
                 + (f", event types: {', '.join(src.event_labels)}" if len(src.event_labels) > 1 else "") + ". ")
else:
    with q_source:  # where a custodian is about to read a private file: the path that fixes settings first
        ui.plan_first_link("survival")
    name = None
    src = _upload()
    if src is None:
        st.stop()
    data_note = ""

ui.set_current_dataset(src.label, src.fp)


def _rule_inputs() -> dict:
    """The public inputs of the default grid besides the horizon: n, the chosen ε and the number of groups compared
    (read from the controls' state: the ε slider sits in the fragment below, which reruns the page when its ε
    moves the default grid)."""
    compared = bool(src.groups) and bool(st.session_state.get("sv_cmp", True))
    return dict(n=int(src.time.size), epsilon=float(st.session_state.get("eps", 1.0)),
                n_groups=len(src.groups) if compared else 1)


def _default_grid(horizon: float, resolution: float | None = None) -> tuple[int, str]:
    """(bin width, unit) by default: the public rule balancing binning error against noise (sv.GRID_RULE), with
    bins of the declared ``resolution`` (times recorded in whole units of it, data units) where the noise allows."""
    return sv.default_bin_width(horizon, src.time_unit, **_rule_inputs(), resolution=resolution)


# a new data set (or time unit) brings its own public metadata: reset the grid controls to it
start_width, start_unit = _default_grid(src.horizon)
ui.reset_when_changed("_sv_last_source", (src.fp, src.time_unit),
                      dict(sv_hor=float(src.horizon), sv_unit=start_unit, sv_width=start_width,
                           sv_etype=src.event_labels[0], sv_whole=recorded.CONTINUOUS))
with q_compare:  # the question's second half: one curve, or one per group and a log-rank test
    compare = bool(src.groups) and ui.url_toggle(
        f"Compare by {ui.literal(src.group_label or 'group')}", key="sv_cmp", value=True,
        help="Per-group curves and a log-rank test; the groups' counts are released together (sensitivity 2; 4 "
             "with the paper's rule, which also releases each group's number at the start).")

# ---- expert settings: one folded group, its label lists their values ----------------------------------------
with ui.settings_group("sv_settings") as settings:
    c1, c2, c3 = st.columns([1.3, 1, 1])
    with c1:
        estimators = ["km", "na"] + (["cif"] if len(src.event_labels) > 1 else [])
        estimator = ui.url_radio("Estimator", key="sv_est", options=estimators, horizontal=True,
                                 format_func=lambda e: sv.ESTIMATORS[e])
        settings.shows(ESTIMATOR_WORDS[estimator])
        event_type = 1
        if estimator == "cif":
            event_type = 1 + src.event_labels.index(
                ui.url_selectbox("Event type of interest", key="sv_etype", options=list(src.event_labels)))
            settings.shows(f"event: {src.event_labels[event_type - 1]}")
        band_rule = sv.DEFAULT_BAND
        if estimator == "km":
            band_rule = ui.url_radio(
                "Band between grid edges", key="sv_band", options=list(BAND_LABELS), format_func=BAND_LABELS.get,
                help="Between two edges the curve follows a constant hazard. The band there is the edges' band on "
                     "that path, widened half-way to what a never-increasing curve allows (measured to cover on "
                     "continuous times). Where times are recorded in whole units (e.g. whole years), declare it under "
                     "'Times recorded in': the curve is then read as their staircase. The full envelope covers "
                     "wherever the edges do.")
            settings.shows(BAND_WORDS[band_rule])
    with c2:
        horizon = float(ui.url_number(f"Horizon H ({src.time_unit})", key="sv_hor", min_value=0.001, format="%g",
                                      value=float(src.horizon),
                                      help="Public, chosen from domain knowledge, not from the data (e.g. the trial's "
                                           "planned follow-up): times after H count as censored at H."))
        whole = ui.url_selectbox(
            "Times recorded in", key="sv_whole", options=[recorded.CONTINUOUS, *recorded.whole_units(src.time_unit)],
            format_func=lambda u: "continuous (default)" if u == recorded.CONTINUOUS else f"whole {u}",
            help="Your statement, as the data's custodian, of how the study recorded its times: 'whole years' if "
                 "every follow-up time is a whole number of years. The exact curve then steps only at those "
                 "multiples, and the page, its tables, figures and the release read it as that staircase. The release "
                 "prints the declaration and its reading rests on it; the privacy guarantee does not. Never set "
                 "from the data: leave 'continuous' unless the study recorded the times so.")
        resolution = recorded.declared_resolution(whole, src.time_unit)  # in the data's unit; None: continuous
        if whole != recorded.CONTINUOUS:
            settings.shows(f"times in whole {whole}")
        elif hint := recorded.recorded_hint(src.time, src.time_unit, whole):  # a proposal to confirm, not a setting
            st.caption(ui.literal(hint))
        rule_width, rule_unit = _default_grid(horizon, resolution)
        ui.follow_default("sv_unit", rule_unit)  # the grid follows the horizon until the user sets it
        ui.follow_default("sv_width", rule_width)
        u1, u2 = st.columns(2)
        with u1:
            grid_unit = ui.url_selectbox("Grid unit", key="sv_unit", options=UNITS, index=UNITS.index(rule_unit))
        with u2:
            width = int(ui.url_number(f"Bin width ({grid_unit})", key="sv_width", min_value=1, max_value=1000,
                                      value=rule_width, step=1))
        settings.shows(f"{horizon:g} {src.time_unit} in bins of {width} {grid_unit}")
        aware = False
        if compare:
            aware = ui.url_toggle("Noise-aware log-rank", key="sv_aware", value=True,
                                  help="Recommended (on by default). Adds the variance of the known noise in every "
                                       "released count — events, censorings and the starting count, which move the "
                                       "risk sets — to the test (delta method; free post-processing). The plain test "
                                       "treats noisy counts as real people and rejects far too often at small ε; the "
                                       "noise-aware one keeps false positives at or below about 5 % but has less "
                                       "power. Report the noise-aware p-value.")
            settings.shows("noise-aware test" if aware else "plain test")
    with c3:
        kind = ui.url_radio("Noise", key="sv_noise", options=list(NOISE_LABELS), format_func=NOISE_LABELS.get,
                            help="Discrete Laplace (the default) is the most accurate for one release. Gaussian noise "
                                 "costs a small δ as well, and several Gaussian releases of the same people add up to "
                                 "far less than their sum under the ledger's tight accounting: from about five "
                                 "releases on one budget it gives each curve less noise (see 'Several releases on one "
                                 "budget' below). Laplace is the paper's continuous noise, for previews only: a "
                                 "release with it uses discrete Laplace.")
        delta = 0.0
        if kind == "gaussian":
            delta = float(ui.url_selectbox("δ of this release", key="sv_delta", options=DELTA_OPTIONS, index=1,
                                           format_func=lambda d: f"{d:g}",
                                           help="The small probability with which the Gaussian's guarantee may "
                                                "fail; keep it well below 1/n."))
        settings.shows(NOISE_WORDS[kind] + (f" (δ {delta:g})" if delta else ""))
        risk_set = ui.url_radio("Post-processing of the noisy counts", key="sv_rs", options=list(sv.RISK_SETS),
                                format_func=lambda r: RULE_LABELS[r],
                                help="All are free post-processing of the released counts. Default: the counts are "
                                     "made consistent (everyone leaves by the horizon, so all exits add up to the "
                                     "known n), nothing is clipped before the hazard, and each count's running total "
                                     "gets a monotone least-squares fit. The paper also releases each group's number "
                                     "at the start (twice the noise with groups) and clips every noisy count at 0 "
                                     "first, which adds about b/2 phantom deaths to every quiet bin and pulls the "
                                     "curve down. Measured on every bundled set: docs/survival.md.")
        settings.shows(RULE_WORDS[risk_set])
        seed = int(ui.url_number("Preview seed", key="sv_seed", min_value=0, max_value=10_000, value=0, step=1,
                                 help="Seeds the preview only; a release is seeded by the operating system."))
        settings.shows(f"seed {seed}")
    private_grid("sv", time=src.time, event=src.event, group=src.group if compare else None, fingerprint=src.fp,
                 label=src.label, persons=src.persons, controls=("sv_unit", "sv_width"), grid_setting="grid",
                 setting=GridRelease(horizon, src.time_unit, _rule_inputs()["epsilon"], src.groups if compare else None,
                                     len(src.event_labels), "gaussian" if kind == "gaussian" else "discrete_laplace",
                                     delta, risk_set, resolution))  # a charged choice among the rule's neighbours

grid = None
with ui.show_errors("Cannot build the grid"):
    grid = sv.make_grid(horizon, data_unit=src.time_unit, grid_unit=grid_unit, width=width, max_bins=2_000)
if grid is None:
    st.stop()
_inputs = _rule_inputs()
#: The declared resolution in the grid's unit, for every reading of the curve (None: continuous times).
read_resolution = None if resolution is None else resolution / grid.step
if resolution is not None and (mismatch := recorded.recorded_hint(src.time, src.time_unit, whole)):
    st.warning(ui.literal(mismatch), icon=":material/warning:")  # outside the fold: the declaration is public
grid_note = (f"**The time grid.** {grid.describe()}. By default the bin width follows a public rule from the horizon, "
             f"n = {_inputs['n']}, ε = {_inputs['epsilon']:g} and {_inputs['n_groups']} group(s) released together "
             f"(target k* ≈ {sv.target_bins(**_inputs):.0f} bins): {sv.GRID_RULE}. Change the unit or width in "
             "Settings to override it.")
if not src.bundled:
    if horizon == UPLOAD_HORIZON[src.time_unit]:
        st.info(f"The horizon H = {horizon:g} {src.time_unit} is only the starting value for times in "
                f"{src.time_unit}; it is not read from your file (the last follow-up time is private). Set H to your "
                "study's planned follow-up in Settings: if follow-up ended earlier, the bins after it hold noise only.",
                icon=":material/schedule:")

counts = _counts(src, grid, compare, risk_set)
records = ui.records_read([src.time, src.event])  # the ledger's key for these people, outside the ε fragment
G = counts.n_groups
time_label = f"time ({grid.grid_unit})"
collapse = estimator != "cif"


def _table(c: sv.Counts) -> sv.RiskTable:
    return sv.postprocess(c.collapse_types() if collapse else c, risk_set=risk_set)


def _curves(c: sv.Counts) -> sv.CurveSet:
    return sv.curve_for(_table(c), estimator, event_type=event_type)


exact_table = _table(counts.pooled())
exact_pooled = sv.curve_for(exact_table, estimator, event_type=event_type)


def _years_to_times(text: str) -> tuple[float, ...]:
    """Comma-separated years → times in the grid's unit, inside the horizon (unreadable parts are skipped)."""
    per_year = UNIT_DAYS["years"] / UNIT_DAYS[grid.grid_unit]
    years = []
    for part in text.split(","):
        try:
            years.append(float(part))
        except ValueError:
            continue
    return tuple(y * per_year for y in years if 0 < y * per_year <= grid.display[-1] + 1e-9)


def _references(grouped: bool = False) -> list:
    """lifelines on the exact times, pooled or per group (non-private: shown beside the private curves, never
    exported). It does not depend on ε, so a session computes it once per data set, grouping and grid."""
    by_group = dict(group=src.group, groups=src.groups) if grouped else {}
    key = (src.content, grid.describe(), tuple(grid.display))
    return ui.session_memo("sv_reference_groups" if grouped else "sv_reference", key,
                           lambda: sv.lifelines_reference(src.time, src.event, grid, **by_group))


def _group_references() -> list[tuple[np.ndarray, np.ndarray]]:
    """lifelines on each group's exact times (non-private: drawn beside the private curves, never exported)."""
    return [(r.times, r.survival) for r in _references(grouped=True)]


def _group_differences(noisy: sv.Counts, noise) -> None:
    """Each group against the first: survival at the chosen times, the median and the restricted mean, with the
    intervals a release exports ('differences'), read by the within-bin rule from the preview's released values."""
    all_cause = noisy.collapse_types()
    curves = sv.km(sv.postprocess(all_cause, risk_set=risk_set))
    redraws = sv.bootstrap_curves(all_cause, noise, draws=200, rng=np.random.default_rng(seed + 17),
                                  risk_set=risk_set)
    lo, hi = np.quantile(redraws, [0.025, 0.975], axis=0)
    times = _years_to_times(str(st.session_state.get("sv_years", "1, 2, 5")))
    tau = float(st.session_state.get("sv_tau", grid.display[-1]))
    diff = sv.read_tables(grid.display, curves.estimate, lo, hi, redraws, counts.groups, times=times,
                          tau=min(tau, float(grid.display[-1])), unit=grid.grid_unit,
                          widen=sv.BAND_RULES[st.session_state.get("sv_band", sv.DEFAULT_BAND)],
                          resolution=read_resolution)["differences"]
    st.table(diff[["comparison", "measure", "reported"]].set_index(["comparison", "measure"]))
    st.caption("Differences between groups (this preview draw), each with its 95 % interval from the band's redraws "
               "(noise and sampling), read by the within-bin rule; a release exports them as 'differences'. A "
               "median difference is 'not estimable' where a group's median is not reached in more than 2.5 % of "
               "the redraws.")


def _read_times() -> tuple[tuple[float, ...], float]:
    """The times (in the grid's unit) the summary table reads the curve at, and the restricted mean's horizon: public
    choices (``?sv_years=``, ``?sv_tau=``), never read off the data."""
    c1, c2 = st.columns(2)
    with c1:
        text = st.text_input("Survival at (years, comma-separated)", key="sv_years", value="1, 2, 5",
                             help="Public times a paper quotes, e.g. 1, 2 and 5 years; those past the horizon are "
                                  "left out.")
    times = _years_to_times(text)
    with c2:
        tau = float(ui.url_number(f"Restricted mean up to ({grid.grid_unit})", key="sv_tau", min_value=0.001,
                                  max_value=float(grid.display[-1]), value=float(grid.display[-1]), format="%g",
                                  help="The horizon of the restricted mean survival time (public; at most the "
                                       "grid's horizon)."))
    return times, tau


def _km_headline(noisy: sv.Counts, noise, rng: np.random.Generator, minimum: float, *, figure, details) -> None:
    """The Kaplan–Meier answer: the median of the preview read between edges by the release's rule beside
    lifelines' on the exact times (the answer line, drawn here in every view). With ``figure`` (the headline view is
    open) the curve goes there (drawn from ``survival_at`` on the table a release would export), and into
    ``details`` what the grid and the noise cost, survival at chosen times and the restricted mean."""
    widen = sv.BAND_RULES[band_rule]
    all_cause = noisy.collapse_types()
    private_table = sv.postprocess(all_cause.pooled(), risk_set=risk_set)
    private = sv.km(private_table)
    redraws = sv.bootstrap_curves(all_cause, noise, draws=200, rng=rng, pool_groups=True, risk_set=risk_set)
    lo, hi = np.quantile(redraws, [0.025, 0.975], axis=0)
    released = sv.curve_table(grid.display, private.estimate, lo, hi, ("all",))
    ref = _references()[0]  # non-private: shown here, never exported
    unit = grid.grid_unit
    median = sv.median_table(released, unit, widen=widen, resolution=read_resolution)["reported"].iloc[0]
    ui.answer("Median survival" + (", all groups pooled" if G > 1 else ""), median,
              sv.describe_read(ref.median, *ref.median_ci, unit))
    if figure is None:
        return
    with figure:
        ui.live_chart(sf.read_figure(released, reference=(ref.times, ref.survival), reference_band=(ref.ci_lower,
                                     ref.ci_upper), binned=(grid.display, exact_pooled.estimate[0]),
                                     time_label=time_label, title="all groups pooled" if G > 1 else None, legend=False,
                                     at_risk=private_table.at_risk[0], exact_at_risk=exact_table.at_risk[0],
                                     min_at_risk=minimum, widen=widen, resolution=read_resolution,
                                     height=ui.FIGURE_HEIGHT), key="sv_headline")
    binning, noise_cost = sv.costs(grid.display, private.estimate[0], exact_pooled.estimate[0], ref,
                                   resolution=read_resolution)
    with details:
        read = ("as the staircase of times declared recorded in whole " + whole if resolution is not None
                else "between grid edges")
        ui.note(f"The private curve is one preview draw, read {read}; dotted where fewer than "
                   f"{minimum:.3g} people are at risk. Shading: the released 95 % band (noise and sampling). Under "
                   "the chart: the number at risk, noisy (what a release shows) and true (never released).")
        st.markdown(f"**What each step costs** (largest gap where ≥ 10 % are at risk): binning alone "
                    f"**{binning:.3f}** (the rule on the true binned counts against lifelines on the exact times) · "
                    f"noise **{noise_cost:.3f}** (this preview against the rule on the true binned counts).")
        times, tau = _read_times()
        summary = sv.read_tables(grid.display, private.estimate, lo, hi, redraws, ("all",), times=times, tau=tau,
                                 unit=unit, widen=widen, resolution=read_resolution)
        at = summary["survival_at_times"]
        ref_lo, ref_hi = ref.band_at(at["time"].to_numpy())
        rows = [{"summary": f"survival at {t:g} {unit}", "private (95 % CI)": r,
                 "lifelines, exact times (95 % CI)": f"{s:.2f} ({a:.2f} to {b:.2f})"}
                for t, r, s, a, b in zip(at["time"], at["reported"], ref.at(at["time"].to_numpy()), ref_lo, ref_hi)]
        rm = summary["rmst"].iloc[0]
        rows.append({"summary": f"restricted mean to {rm['horizon']:.4g} {unit}", "private (95 % CI)": rm["reported"],
                     "lifelines, exact times (95 % CI)": f"{ref.rmst(rm['horizon']):.3g} {unit} (no interval)"})
        st.table(pd.DataFrame(rows).set_index("summary"))
        st.caption("Every private value is read off the released curve and band by the same rule (a release exports "
                   "them as 'survival_at_times', 'rmst' and, with groups, 'differences'); the restricted mean's "
                   "interval comes from the band's redraws. The private median is where the curve reaches 0.5; its "
                   "interval inverts the band at 0.5 (Brookmeyer–Crowley), so it covers the noise as well as "
                   "sampling error. \"Not reached\": the curve or a band edge stays above 0.5 up to the horizon.")
        ui.explain(sv.READ_FRONTIER, title="How well does the curve read between edges? (measured)")


def _other_headline(noisy: sv.Counts, noise, rng: np.random.Generator, minimum: float, *, figure, details) -> None:
    """The Nelson–Aalen or competing-risk answer: the curve's value at the horizon, private (with its noise-aware
    band) against non-private, in every view; with ``figure`` (the headline view is open) the curves go there."""
    private_table = _table(noisy.pooled())
    private_pooled = sv.curve_for(private_table, estimator, event_type=event_type)
    band_lo, band_hi = sv.noise_band(noisy.collapse_types() if collapse else noisy, noise, draws=200, rng=rng,
                                     estimator=estimator, event_type=event_type, pool_groups=True, risk_set=risk_set)
    end = float(grid.display[-1])
    ui.answer(f"{ {'na': 'Cumulative hazard', 'cif': 'Cumulative incidence'}[estimator]} at {end:.3g} {grid.grid_unit}" + (", all groups pooled" if G > 1 else ""),
              f"{private_pooled.estimate[0][-1]:.3g} (noise band {band_lo[0][-1]:.3g} to {band_hi[0][-1]:.3g})",
              f"{exact_pooled.estimate[0][-1]:.3g}")
    if figure is None:
        return
    with figure:
        ui.live_chart(sf.headline_figure(private_pooled, exact_pooled, estimator=estimator,
                                         noise_band=(band_lo, band_hi), time_label=time_label,
                                         title="all groups pooled" if G > 1 else None, legend=False,
                                         at_risk=private_table.at_risk[0], exact_at_risk=exact_table.at_risk[0],
                                         min_at_risk=minimum, height=ui.FIGURE_HEIGHT),
                      key="sv_headline")
    with details:
        ui.note(f"The private curve is one preview draw, dotted where fewer than {minimum:.3g} people are at risk. "
                "Lighter shading: the released 95 % interval (noise and sampling); darker: the Greenwood interval "
                "(sampling only). Under the chart: the number at risk, noisy (what a release shows) and true (never "
                "released).")


def _sweep_at(sweep_draws: int) -> tuple[sv.UtilityCurve, object]:
    """The privacy–utility sweep over ε and its figure, for this configuration and ``sweep_draws`` draws per ε.

    Cached for bundled data; for an upload memoised in the session (never in a cache shared by sessions).
    """
    args = (horizon, grid_unit, width, compare, estimator, sweep_draws, seed, kind, delta, event_type, risk_set, aware)
    if src.bundled:
        return _bundled_sweep(name, *args), _bundled_sweep_figure(name, *args)
    return ui.session_memo("sv_sweep", (src.content, *args), lambda: _sweep_and_figure(src, *args))


def _utility_note(epsilon: float) -> str:
    """The release's custodian note: the sweep's row at ``epsilon`` (no simulation of its own on an ε move)."""
    uc = _sweep_at(int(st.session_state.get("sv_Rc", SWEEP_DRAWS)))[0]
    i = int(np.argmin(np.abs(np.log(uc.epsilons) - np.log(epsilon))))  # the slider's options are the sweep's ε
    return (f"Over {uc.sup_error.shape[1]} simulated releases at ε = {uc.epsilons[i]:g} (the privacy–utility "
            f"curve's draws at this ε): sup-norm error {describe_draws(uc.sup_error[i])}, integrated absolute error "
            f"{describe_draws(uc.integrated_error[i])} ({grid.grid_unit})"
            + (f"; the log-rank decision at α = 0.05 agrees with the non-private test in "
               f"{np.mean(uc.logrank_agree[i]):.0%} of releases" if uc.logrank_agree is not None else "") + ".")


def _several_releases(epsilon: float) -> None:
    """Discrete Laplace or Gaussian when several releases share this ε: each noise's plan, measured on these counts
    (preview simulation, on demand: a toggle, off by default)."""
    if not ui.url_toggle("Several releases on one budget: discrete Laplace or Gaussian?", key="sv_plan", value=False,
                         help="Plan k releases of these people that together spend the ε above (and a total δ), "
                              "and measure which noise gives each release the smaller error."):
        return
    total_delta = float(ui.url_selectbox("Total δ of the planned releases", key="sv_plan_delta",
                                         options=DELTA_OPTIONS, index=1, format_func=lambda d: f"{d:g}"))
    plan = survival_plan(counts, epsilon, total_delta, draws=100, rng=np.random.default_rng(seed + 13),
                         estimator=estimator, event_type=event_type, risk_set=risk_set)
    shown = pd.DataFrame({
        "releases": plan["releases"],
        "discrete Laplace: ε each": plan["dl_epsilon_each"].map("{:.3g}".format),
        "discrete Laplace: ± per count": plan["dl_sd_per_count"].map("{:.3g}".format),
        "Gaussian: ε, δ each": [f"{e:.3g}, {d:.2g}" for e, d in zip(plan["gaussian_epsilon_each"],
                                                                  plan["gaussian_delta_each"])],
        "Gaussian: ± per count": plan["gaussian_sd_per_count"].map("{:.3g}".format),
        "sup error, discrete Laplace": plan["dl_sup_error_median"].map("{:.3f}".format),
        "sup error, Gaussian": plan["gaussian_sup_error_median"].map("{:.3f}".format),
        "less noise": plan["less_noise"]}).set_index("releases")
    st.table(shown)
    st.caption(f"Each row: k releases of these people that together spend ε = {epsilon:g}, δ = {total_delta:g} under "
               "the tight accounting the ledger checks caps on. Discrete Laplace: the largest ε per release whose k "
               "releases stay within the total. Gaussian: k Gaussians of σ·√k compose to exactly the one Gaussian "
               "that spends the total, so noise grows like √k instead of k; each release is charged the (ε, δ) shown. "
               "Sup error: median over 100 preview releases of the largest gap to the non-private curve. To follow a "
               "Gaussian row, choose Noise = Gaussian, its δ, and the largest ε step at or below its ε.")
    ui.teaching("One release: discrete Laplace is the better noise. Many releases of the same people: each "
                "Gaussian release costs less of the shared budget, so from about five releases on one budget each "
                "curve gets less noise with Gaussian noise.")


@ui.live_fragment
def _at_epsilon() -> None:
    """Everything that depends on ε: moving the ε slider reruns only this (the sweep over ε below stays).

    The first screen: ε, the answer and the Release button beside the open view's figure, so a move redraws the
    figure where the reader looks; the details at this ε under them. The views are a switch of which only the open
    one is computed and drawn: a move redraws one chart.
    """
    controls, figure = ui.first_screen()
    details = st.container()
    with controls:
        epsilon = ui.epsilon_slider("Privacy budget ε", key="eps", default=1.0)
        answer = st.container()  # the open view's answer, above the unit of privacy and the Release button
        ui.note(f"Unit of privacy: one person (replace-one neighbours; n = {src.time.size} is public).")
    if (width, grid_unit) == (rule_width, rule_unit) and _default_grid(horizon, resolution) != (rule_width, rule_unit):
        st.rerun(scope="app")  # the default grid depends on ε: rebuild the counts on it (the grid follows the rule)
    noise = sv.noise_for(counts, epsilon, kind=kind, delta=delta)
    rng = np.random.default_rng(seed)
    noisy = sv.noisy_counts(counts, noise, rng=rng)  # the preview release every view shows
    minimum = sv.min_at_risk(noise.std)  # public (ε and Δ1 only): below it the curves are faded

    events_text = f"the number of events{' of each type' if len(src.event_labels) > 1 else ''} and of censorings"
    noised = (f"per {'group' if G > 1 else 'data set'}, the number of people at time 0 and, in each of the {grid.k} "
              f"bins, {events_text} (the paper's release)" if counts.statistic == "matrix" else
              f"in each of the {grid.k} bins{' of each group' if G > 1 else ''}, {events_text}; the number at time 0 "
              f"is their sum{' per group' if G > 1 else ''}, pinned to the total n = {src.time.size:,}")
    with figure:
        tabs = ui.view_switch(VIEWS if G > 1 else VIEWS[:2], key="sv_view")
    with details:
        st.header("At this ε")
        ui.what_this_page_shows(_about())
        st.markdown(f"**What is noised:** {noised}. Each count gets independent {noise.describe()} — that is **each "
                    f"count ± {noise.std:.2g} people** (standard deviation). Everything else is computed from those "
                    "noisy counts.")

    # ---- the headline: its answer beside ε, the curves in the figure column ------------------------------------------
    if tabs[0].open:
        with answer:
            (_km_headline if estimator == "km" else _other_headline)(noisy, noise, rng, minimum, figure=figure,
                                                                     details=details)
        with details:
            ui.teaching(TEACHING[risk_set])
            ui.explain(sv.MEASURED_FRONTIER, title="How accurate is the default? (measured)")
            ui.explain(
                "**Why the grid must be public.** The set of distinct event times is itself private: adding one person "
                "can add a time point. So the bins come from a unit and a horizon chosen without looking at the data."
                "\n\n**What the intervals cover.** The darker Greenwood interval treats the noisy counts as if "
                "they were real people; it covers sampling error only. The lighter 95 % interval — the one a release "
                "reports as ci_lower, ci_upper — is recomputed from the released counts alone (redrawing the known "
                "noise and re-running the post-processing, a parametric bootstrap, with each redraw's sampling "
                "error) and covers both sources; it costs no extra privacy.\n\n"
                "**Sensitivity.** Replacing one person moves them from one cell to another: 2 counts change by 1"
                + ((", even when they switch group, since only the cells are released (the number at the start is "
                    "their sum, and the total n is the same for both data sets)" if counts.statistic == "histogram"
                    else "; with the paper's release each group's number at the start is noised too, so a person "
                         "who switches group changes 4 counts") if G > 1 else "")
                + (f". The noise scale is sensitivity / ε = {noise.scale:g}." if noise.kind != "gaussian" else
                   f". Gaussian noise is calibrated on the L2 norm of that change, √(counts changed) = "
                   f"{noise.sensitivity:.3g}: σ = {noise.scale:.3g} is the smallest σ that is (ε, δ)-DP at it "
                   "(the analytic Gaussian mechanism)."),
                title="What was noised, and what the intervals mean",
            )

    # ---- utility over draws: the slider and the chart beside ε, the table under them ------------------------------
    if tabs[1].open:
        with figure:
            draws = int(ui.url_select_slider(
                "Noise draws for the utility panel", key="sv_R", options=DRAW_OPTIONS, value=200,
                help="How many simulated releases at this ε the chart and the table below summarise.",
                width=ui.CONTROL_WIDTH))
        many = sv.noisy_counts(counts, noise, rng=np.random.default_rng(seed + 7), draws=draws)
        draw_curves = _curves(many.pooled()).estimate[:, 0]
        reference = None
        if estimator == "km":  # lifelines on the exact times (non-private, never exported)
            ref = _references()[0]
            reference = (ref.times, ref.survival)
        with figure:
            ui.live_chart(sf.draws_figure(exact_pooled.times, draw_curves, exact_pooled.estimate[0],
                                          estimator=estimator, time_label=time_label, reference=reference,
                                          resolution=read_resolution),
                          key="sv_draws")
        util = sv.utility(counts, epsilon, draws=draws, rng=np.random.default_rng(seed + 11), estimator=estimator,
                          kind=kind, delta=delta, event_type=event_type, risk_set=risk_set,
                          noise_aware_logrank=aware)
        summary = util.summary()
        summary["mean [5 %, 95 %]"] = [f"{m:.3g} [{lo:.2g}, {hi:.2g}]"
                                       for m, lo, hi in zip(summary["mean"], summary["q05"], summary["q95"])]
        with answer:
            gap = summary.set_index("measure").loc["sup-norm error"]
            ui.answer(f"Largest gap to the non-private curve, {draws} draws",
                      f"{gap['mean']:.2f} on average (5–95 %: {gap['q05']:.2f} to {gap['q95']:.2f})")
        with details:
            st.subheader(f"Utility over {draws} noise draws")
            st.table(summary[["measure", "mean [5 %, 95 %]"]].set_index("measure"))
            st.caption(f"Errors in {grid.grid_unit} (integrated) or probability (sup). Mean and 5–95 % of {draws} "
                       "preview releases. Coverage: share of grid points where an interval contains the non-private "
                       "curve — the released interval is the one a release exports (noise and sampling), "
                       "Greenwood's treats the noisy counts as real people; log-rank decision at α = 0.05"
                       + (f"; non-private p = {util.exact_p_value:.3g}." if util.exact_p_value is not None else "."))
            ui.teaching("Each thin line is one possible release. One lucky draw can look perfect; the band shows what "
                        "to expect.")

    # ---- groups: the chart beside ε, the differences and the log-rank test under it --------------------------------
    if G > 1 and tabs[2].open:
        lr_exact = sv.logrank_test(sv.postprocess(counts.collapse_types(), risk_set=risk_set))
        noisy_table = sv.postprocess(noisy.collapse_types(), risk_set=risk_set)
        lr_table = sv.logrank_table(noisy.collapse_types(), noise.std, risk_set=risk_set)
        lr_plain = sv.logrank_test(lr_table)
        lr_aware = sv.logrank_test(lr_table, noise_var=noise.std**2, n_types=len(src.event_labels))
        lr_priv = lr_aware if aware else lr_plain
        with figure:
            ui.chart(sf.groups_figure(_curves(noisy), _curves(counts), estimator=estimator,
                                             time_label=time_label, p_private=float(lr_priv.p_value),
                                             p_exact=float(lr_exact.p_value), at_risk=noisy_table.at_risk,
                                             min_at_risk=minimum, group_column=src.group_label,
                                             references=_group_references() if estimator == "km" else None,
                                             resolution=read_resolution),
                            key="sv_groups")
        agree = (lr_priv.p_value < 0.05) == (lr_exact.p_value < 0.05)
        with answer:
            ui.answer("Log-rank p-value", f"{float(lr_priv.p_value):.3g}" + (" (noise-aware)" if aware else ""),
                      f"{float(lr_exact.p_value):.3g}", verdict="The decision at α = 0.05 " + (
                          "agrees." if agree else "differs in this draw."))
        with details:
            st.subheader(f"Groups: {ui.literal(src.group_label or 'group')}")
            if estimator == "km":
                _group_differences(noisy, noise)
            st.markdown(f"Log-rank χ² = {float(lr_priv.statistic):.2f} (private{', noise-aware' if aware else ''}) "
                        f"vs {float(lr_exact.statistic):.2f} (non-private), {lr_exact.dof} df. Decision at "
                        "α = 0.05 " + ("**agrees**." if agree else "**differs** in this draw.")
                        + f" Private p-values: **noise-aware {float(lr_aware.p_value):.3g} (report this one)**; "
                          f"plain {float(lr_plain.p_value):.3g}. The plain test treats the noisy counts as real "
                          "people, so at small ε it finds differences that are only noise; the noise-aware test "
                          "adds the variance of the known noise in every released count (events, censorings and "
                          "the starting count, which move the risk sets too) and keeps false positives at or "
                          "below about 5 %. A release carries "
                          "both and marks the noise-aware one as recommended.")
            ui.teaching("The log-rank test compares observed and expected events per group in every bin; here it "
                        "runs on the noisy per-group counts, so its p-value is private too. The plain version "
                        "forgets that the counts carry noise, so at small ε it often 'finds' differences that are "
                        "only noise; the noise-aware version adds the noise's variance and is more cautious.")

    with details:
        _several_releases(epsilon)

    # ---- release: the button beside ε, the panel at the end of the details ------------------------------------------
    released_noise = "gaussian" if kind == "gaussian" else "discrete_laplace"  # Laplace is for previews only
    params = {"grid": grid.describe(), "groups": list(counts.groups), "estimators": "KM, NA, CIF, log-rank",
              "risk_set": risk_set, "statistic": counts.statistic, "noise_kind": released_noise,
              "times_recorded_in": whole,
              "sensitivity_l1": sv.sensitivity(G, statistic=counts.statistic)}
    config = SurvivalConfig(
        dataset=name, horizon=horizon, grid_unit=grid_unit, width=width, epsilon=epsilon, seed=seed,
        estimator=estimator, event_type=event_type, compare=compare, noise_aware=aware, kind=kind, delta=delta,
        risk_set=risk_set,
        sweep=tuple(SWEEP), sweep_draws=int(st.session_state.get("sv_Rc", SWEEP_DRAWS)),
        **_release_reads(), **({} if src.bundled else _upload_columns()))
    with details:
        code_downloads(config)
        ui.release_panel(
            key="survival", dataset_label=src.label, fingerprint=src.fp, persons=src.persons, records=records,
            method="DP survival analysis", epsilon=epsilon, delta=delta,
            params=params, utility_note=partial(_utility_note, epsilon), button_at=controls,
            make_bundle=lambda: release_with_script(sv.release(
                src.time, src.event, grid=grid, epsilon=epsilon, group=src.group if compare else None,
                groups=src.groups if compare else None, n_types=len(src.event_labels), event_labels=src.event_labels,
                dataset=src.label, fingerprint=src.fp, risk_set=risk_set, statistic=counts.statistic,
                noise_kind=released_noise, delta=delta, group_column=src.group_label if compare else None,
                **_release_reads()), config),
        )
        attacker_panel("survival", epsilon)


def _about() -> str:
    """The page's prose for "What this page shows": the data, the grid's public rule, what a preview is."""
    return ((f"**The data.** {data_note}\n\n" if data_note else "") + f"{grid_note}\n\n"
            "**Preview and release.** The noisy results on this page are simulated in your session with a seeded "
            "generator to show what a release *would* look like; nothing is charged. Only the Release button makes a "
            "real, charged release that may leave the session. The views above the chart are the same preview: only "
            "the open one is computed, so moving ε redraws just that one.")


def _release_reads() -> dict:
    """The summary times and the restricted mean's horizon the Kaplan–Meier view shows, for the release."""
    times = _years_to_times(str(st.session_state.get("sv_years", "1, 2, 5")))
    tau = st.session_state.get("sv_tau")
    return {"read_times": times, "rmst_horizon": None if tau is None else min(float(tau), float(grid.display[-1])),
            "band_rule": st.session_state.get("sv_band", sv.DEFAULT_BAND), "time_resolution": resolution}


#: the trade-off figure's teaching note, naming each of its panels (a third one when the data have groups)
TRADE_OFF_NOTE = ("Each point repeats the whole release many times at one ε and measures how far the private curve "
                  "lands from the non-private one ({panels}). Moving right (larger ε) means less noise and weaker "
                  "privacy. Read the ε chosen above off the horizontal axis.")
TRADE_OFF_PANELS = {False: "left: the largest gap; right: the gap summed over time",
                    True: "left: the largest gap; middle: the gap summed over time; right: how often the private "
                          "log-rank test between the groups decides as the non-private one does"}


@ui.live_fragment
def _trade_off() -> None:
    """The privacy–utility curve over ε (independent of the chosen ε: not redrawn when ε moves); its own control
    of the draws per ε reruns only this."""
    st.header("Privacy–utility trade-off over ε")
    sweep_draws = int(ui.url_select_slider(
        "Noise draws per ε for the trade-off curve", key="sv_Rc", options=DRAW_OPTIONS, value=SWEEP_DRAWS,
        help="Simulated releases at each ε of the curve below. The release's internal note quotes the curve at "
             "the chosen ε.", width=ui.CONTROL_WIDTH))
    uc, utility_fig = _sweep_at(sweep_draws)
    ui.live_chart(utility_fig, key="sv_curve")
    if src.bundled:  # a head start for the draws one step either side (public data only: a shared cache)
        args = (horizon, grid_unit, width, compare, estimator)
        rest = (seed, kind, delta, event_type, risk_set, aware)
        ui.head_start("sv_Rc", [(0.3, lambda r=r: _bundled_sweep_figure(name, *args, r, *rest))
                                for r in ui.steps_around(DRAW_OPTIONS, sweep_draws)])
    ui.teaching(TRADE_OFF_NOTE.format(panels=TRADE_OFF_PANELS[uc.logrank_agree is not None]))
    options = dict(estimator=estimator, kind=kind, delta=delta, event_type=event_type, risk_set=risk_set)
    accuracy_first(key="sv_acc", grid=uc.epsilons, draws=uc.sup_error, metric_label="sup-norm error",
                   default_threshold=0.1, basis=src.label, public_data=src.bundled,  # only bundled data may go to Dask
                   simulate=partial(sv.metric_draws, counts, "sup_error", **options),
                   private_rows=RowsForChoice(  # the charged private choice judges blocks of these rows
                       lambda rows: partial(sv.metric_draws, _counts(_subset(rows), grid, compare, risk_set),
                                            "sup_error", **options),
                       n=int(src.time.size), fingerprint=src.fp, label=src.label, persons=src.persons,
                       records=records))


# The ε section (the first screen and the details at this ε) is drawn above the trade-off curve but runs after it:
# its release note reads the curve's draws.
at_epsilon = st.container()
_trade_off()
with at_epsilon:
    _at_epsilon()
hazard_ratio_section(src, horizon=horizon, records=records, upload_columns=None if src.bundled else _upload_columns())
