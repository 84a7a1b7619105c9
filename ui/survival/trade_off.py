"""The survival page's privacy–utility trade-off over ε: the sweep (cached for bundled data, memoised in the session
for an upload), its figure, the accuracy-first choice of ε, and the release's note quoting it."""

from __future__ import annotations

from functools import partial

import numpy as np
import streamlit as st

import ui
from dpcore import survival as sv
from dpcore.survival import figures as sf
from dpcore.survival import page_text as text
from dpcore.survival import session as ss
from ui.accuracy import accuracy_first
from ui.private_choice import RowsForChoice
from ui.widgets import EPSILON_STEPS

SWEEP = np.array(EPSILON_STEPS)


@st.cache_data(show_spinner=False, max_entries=64)
def _bundled_sweep(name: str, horizon: float, grid_unit: str, width: float, compare: bool, estimator: str, draws: int,
                   seed: int, kind: str, delta: float, event_type: int, risk_set: str,
                   aware: bool) -> sv.SurvivalUtilityCurve:
    return ss.sweep(ss.bundled_source(name), SWEEP, horizon, grid_unit, width, compare, estimator, draws, seed, kind,
                    delta, event_type, risk_set, aware)


@ui.public_cache("survival sweep figures", max_entries=128)  # shared, not unpickled on every rerun
def _bundled_sweep_figure(name: str, horizon: float, grid_unit: str, width: float, compare: bool, estimator: str,
                          draws: int, seed: int, kind: str, delta: float, event_type: int, risk_set: str, aware: bool):
    uc = _bundled_sweep(name, horizon, grid_unit, width, compare, estimator, draws, seed, kind, delta, event_type,
                        risk_set, aware)
    return sf.utility_figure(uc, None, time_unit=grid_unit)


def _sweep_and_figure(src: ss.Source, *args):
    uc = ss.sweep(src, SWEEP, *args)
    return uc, sf.utility_figure(uc, None, time_unit=args[1])


def sweep_at(session: ss.Session, sweep_draws: int) -> tuple[sv.SurvivalUtilityCurve, object]:
    """The privacy–utility sweep over ε and its figure, for this configuration and ``sweep_draws`` draws per ε.

    Cached for bundled data; for an upload memoised in the session (never in a cache shared by sessions).
    """
    src, args = session.src, session.settings.sweep_args(sweep_draws)
    if src.bundled:
        return _bundled_sweep(src.name, *args), _bundled_sweep_figure(src.name, *args)
    return ui.session_memo("sv_sweep", (src.content, *args), lambda: _sweep_and_figure(src, *args))


def sweep_draws_chosen() -> int:
    """The draws per ε of the trade-off curve as last chosen (``?sv_Rc=``)."""
    return int(ui.held("sv_Rc", ss.SWEEP_DRAWS))


def utility_note(session: ss.Session, epsilon: float) -> str:
    """The release's custodian note: the sweep's row at ``epsilon`` (no simulation of its own on an ε move)."""
    return ss.utility_note(sweep_at(session, sweep_draws_chosen())[0], epsilon, session.grid.grid_unit)


def trade_off(session: ss.Session, records) -> None:
    """The privacy–utility curve over ε (independent of the chosen ε); its own control of the draws per ε."""
    src, s = session.src, session.settings
    st.header("Privacy–utility trade-off over ε")
    sweep_draws = int(ui.url_select_slider(
        "Noise draws per ε for the trade-off curve", key="sv_Rc", options=ss.DRAW_OPTIONS, value=ss.SWEEP_DRAWS,
        help=text.SWEEP_DRAWS_HELP, width=ui.CONTROL_WIDTH))
    uc, utility_fig = sweep_at(session, sweep_draws)
    ui.live_chart(utility_fig, key="sv_curve")
    if src.bundled:  # a head start for the draws one step either side (public data only: a shared cache)
        args = s.sweep_args(sweep_draws)
        ui.head_start("sv_Rc", [(0.3, lambda r=r: _bundled_sweep_figure(src.name, *args[:5], r, *args[6:]))
                                for r in ui.steps_around(ss.DRAW_OPTIONS, sweep_draws)])
    ui.teaching(text.TRADE_OFF_NOTE.format(panels=text.TRADE_OFF_PANELS[uc.logrank_agree is not None]))
    options = dict(estimator=s.estimator, kind=s.kind, delta=s.delta, event_type=s.event_type, risk_set=s.risk_set)
    accuracy_first(key="sv_acc", grid=uc.epsilons, draws=uc.sup_error, metric_label="sup-norm error",
                   default_threshold=0.1, basis=src.label, public_data=src.bundled,  # only bundled data may go to Dask
                   simulate=partial(sv.metric_draws, session.counts, "sup_error", **options),
                   private_rows=RowsForChoice(  # the charged private choice judges blocks of these rows
                       lambda rows: partial(sv.metric_draws,
                                            ss.counts_for(src.subset(rows), session.grid, s.compare, s.risk_set),
                                            "sup_error", **options),
                       n=int(src.time.size), fingerprint=src.fp, label=src.label, persons=src.persons,
                       records=records))
