"""The survival page's release: the notebook of its configuration, the release panel and the attacker's view."""

from __future__ import annotations

from functools import partial

import ui
from dpcore import survival as sv
from dpcore.notebooks import SurvivalConfig
from dpcore.survival import session as ss
from ui.attacker import attacker_panel  # teaching mode: what ε means for one patient
from ui.exports import code_downloads, release_with_script  # notebook, script
from ui.survival.question import upload_columns
from ui.survival.trade_off import SWEEP, sweep_draws_chosen, utility_note


def release_reads(session: ss.Session) -> dict:
    """The summary times and the restricted mean's horizon the Kaplan–Meier view's details show (kept while they are
    folded, or a link's), for the release."""
    times = session.years_to_times(str(ui.kept_value("sv_years", ss.DEFAULT_YEARS)))
    tau = ui.kept_value("sv_tau", session.end, between=(0.001, session.end))
    return {"read_times": times, "rmst_horizon": min(float(tau), session.end),
            "band_rule": ui.held("sv_band", sv.DEFAULT_BAND),
            "time_resolution": session.settings.resolution}


def config(session: ss.Session, epsilon: float) -> SurvivalConfig:
    """The page's configuration as the notebook repeats it (public settings only)."""
    src, s = session.src, session.settings
    return SurvivalConfig(
        dataset=src.name, horizon=s.horizon, grid_unit=s.grid_unit, width=s.width, epsilon=epsilon, seed=s.seed,
        estimator=s.estimator, event_type=s.event_type, compare=s.compare, noise_aware=s.aware, kind=s.kind,
        delta=s.delta, risk_set=s.risk_set, sweep=tuple(SWEEP), sweep_draws=sweep_draws_chosen(),
        **release_reads(session), **({} if src.bundled else upload_columns()))


def release(session: ss.Session, epsilon: float, records, *, button_at, details) -> None:
    """The release panel (its button at ``button_at``), the notebook downloads in the open ``details`` and the
    attacker's view."""
    src, chosen = session.src, config(session, epsilon)
    if details.open:
        with details:
            code_downloads(chosen)
    ui.release_panel(
        key="survival", dataset_label=src.label, fingerprint=src.fp, persons=src.persons, records=records,
        method="DP survival analysis", epsilon=epsilon, delta=session.settings.delta,
        params=session.release_params(), utility_note=partial(utility_note, session, epsilon), button_at=button_at,
        make_bundle=lambda: release_with_script(session.release(epsilon, release_reads(session)), chosen),
    )
    attacker_panel("survival", epsilon)
