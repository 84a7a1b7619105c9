"""The survival page's expert settings: one folded group whose label lists their values, and the default grid that
follows the public rule until the user sets it."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import ui
from dpcore import survival as sv
from dpcore.private_choice.grid_selection import ReleaseSetting as GridRelease
from dpcore.survival import page_text as text
from dpcore.survival import resolution as recorded
from dpcore.survival import session as ss
from ui.private_grid import private_grid


def rule_inputs(src: ss.Source) -> dict:
    """The default grid's public inputs, read from the controls' state: the ε slider sits in the fragment below,
    which reruns the page when its ε moves the default grid."""
    return ss.rule_inputs(src, compare=bool(ui.held("sv_cmp", True)),
                          epsilon=float(ui.held("eps", 1.0)))


def default_grid(src: ss.Source, horizon: float, resolution: float | None = None) -> tuple[int, str]:
    """(bin width, unit) by default: the public rule balancing binning error against noise (sv.GRID_RULE), with
    bins of the declared ``resolution`` (times recorded in whole units of it, data units) where the noise allows."""
    return sv.default_bin_width(horizon, src.time_unit, **rule_inputs(src), resolution=resolution)


def reset_for(src: ss.Source) -> None:
    """A new data set (or time unit) brings its own public metadata: reset the grid controls to it."""
    start_width, start_unit = default_grid(src, src.horizon)
    ui.reset_when_changed("_sv_last_source", (src.fp, src.time_unit),
                          dict(sv_hor=float(src.horizon), sv_unit=start_unit, sv_width=start_width,
                               sv_etype=src.event_labels[0], sv_whole=recorded.CONTINUOUS))


@dataclass(frozen=True)
class Chosen:
    """The settings and the default grid they were drawn against (the ε fragment reruns the page when ε moves it)."""

    settings: ss.Settings
    rule: tuple[int, str]

    def follows_rule(self, src: ss.Source) -> bool:
        """Whether the grid is the default one and ε has since moved the default."""
        s = self.settings
        return (s.width, s.grid_unit) == self.rule and default_grid(src, s.horizon, s.resolution) != self.rule


def expert_settings(src: ss.Source, compare: bool) -> Chosen:
    """The folded group of expert settings (estimator, grid, noise, post-processing, seed) and the private choice
    of the grid."""
    with ui.settings_group("sv_settings") as settings:
        c1, c2, c3 = st.columns([1.3, 1, 1])
        with c1:
            estimator, event_type, band_rule = _estimator(src, settings)
        with c2:
            horizon, whole, resolution, grid_unit, width, rule = _grid(src, settings)
            aware = False
            if compare:
                aware = ui.url_toggle("Noise-aware log-rank", key="sv_aware", value=True, help=text.AWARE_HELP)
                settings.shows("noise-aware test" if aware else "plain test")
        with c3:
            kind, delta, risk_set, seed = _noise(settings)
        private_grid("sv", time=src.time, event=src.event, group=src.group if compare else None,
                     fingerprint=src.fp, label=src.label, persons=src.persons, controls=("sv_unit", "sv_width"),
                     grid_setting="grid",
                     setting=GridRelease(horizon, src.time_unit, rule_inputs(src)["epsilon"],
                                         src.groups if compare else None, len(src.event_labels),
                                         ss.released_noise(kind), delta, risk_set,
                                         resolution))  # a charged choice among the rule's neighbours
    return Chosen(ss.Settings(horizon, grid_unit, width, compare, estimator, event_type, band_rule, whole, resolution,
                              aware, kind, delta, risk_set, seed), rule)


def _estimator(src: ss.Source, settings) -> tuple[str, int, str]:
    estimators = ["km", "na"] + (["cif"] if len(src.event_labels) > 1 else [])
    estimator = ui.url_radio("Estimator", key="sv_est", options=estimators, horizontal=True,
                             format_func=lambda e: sv.ESTIMATORS[e])
    settings.shows(text.ESTIMATOR_WORDS[estimator])
    event_type = 1
    if estimator == "cif":
        event_type = 1 + src.event_labels.index(
            ui.url_selectbox("Event type of interest", key="sv_etype", options=list(src.event_labels)))
        settings.shows(f"event: {src.event_labels[event_type - 1]}")
    band_rule = sv.DEFAULT_BAND
    if estimator == "km":
        band_rule = ui.url_radio("Band between grid edges", key="sv_band", options=list(text.BAND_LABELS),
                                 format_func=text.BAND_LABELS.get, help=text.BAND_HELP)
        settings.shows(text.BAND_WORDS[band_rule])
    return estimator, event_type, band_rule


def _grid(src: ss.Source, settings):
    horizon = float(ui.url_number(f"Horizon H ({src.time_unit})", key="sv_hor", min_value=0.001,
                                  value=float(src.horizon), help=text.HORIZON_HELP))
    whole = ui.url_selectbox(
        "Times recorded in", key="sv_whole", options=[recorded.CONTINUOUS, *recorded.whole_units(src.time_unit)],
        format_func=lambda u: text.whole_units_word(u, recorded.CONTINUOUS), help=text.WHOLE_HELP)
    resolution = recorded.declared_resolution(whole, src.time_unit)  # in the data's unit; None: continuous
    if whole != recorded.CONTINUOUS:
        settings.shows(f"times in whole {whole}")
    elif hint := recorded.recorded_hint(src.time, src.time_unit, whole):  # a proposal to confirm, not a setting
        st.caption(ui.literal(hint))
    rule_width, rule_unit = default_grid(src, horizon, resolution)
    ui.follow_default("sv_unit", rule_unit)  # the grid follows the horizon until the user sets it
    ui.follow_default("sv_width", rule_width)
    u1, u2 = st.columns(2)
    with u1:
        grid_unit = ui.url_selectbox("Grid unit", key="sv_unit", options=ss.UNITS, index=ss.UNITS.index(rule_unit))
    with u2:
        width = int(ui.url_number(f"Bin width ({grid_unit})", key="sv_width", min_value=1, max_value=1000,
                                  value=rule_width, step=1))
    settings.shows(f"{horizon:g} {src.time_unit} in bins of {width} {grid_unit}")
    return horizon, whole, resolution, grid_unit, width, (rule_width, rule_unit)


def _noise(settings) -> tuple[str, float, str, int]:
    kind = ui.url_radio("Noise", key="sv_noise", options=list(text.NOISE_LABELS), format_func=text.NOISE_LABELS.get,
                        help=text.NOISE_HELP)
    delta = 0.0
    if kind == "gaussian":
        delta = float(ui.url_selectbox("δ of this release", key="sv_delta", options=ss.DELTA_OPTIONS, index=1,
                                       format_func=lambda d: f"{d:g}", help=text.DELTA_HELP))
    settings.shows(text.NOISE_WORDS[kind] + (f" (δ {delta:g})" if delta else ""))
    risk_set = ui.url_radio("Post-processing of the noisy counts", key="sv_rs", options=list(sv.RISK_SETS),
                            format_func=lambda r: text.RULE_LABELS[r], help=text.RULE_HELP)
    settings.shows(text.RULE_WORDS[risk_set])
    seed = int(ui.url_number("Preview seed", key="sv_seed", min_value=0, max_value=10_000, value=0, step=1,
                             help=text.SEED_HELP))
    settings.shows(f"seed {seed}")
    return kind, delta, risk_set, seed
