"""The FDR page's work on public (simulated) inputs, cached: streams, summaries, sweeps and frontiers.

Only simulations' public settings go in (their key is :meth:`dpcore.fdr.session.Page.design`), never an upload:
these caches are shared by every session. The work itself is :mod:`dpcore.fdr.session`'s.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui
from dpcore import fdr
from dpcore.fdr import figures as ff
from dpcore.fdr import session


@ui.public_cache("fdr streams", max_entries=32)
def sim_streams(kind: str, R: int, T: int, pi1: float, n: int, theta: float, seed: int) -> fdr.Streams:
    return session.simulated_streams(kind, R, T, pi1, n, theta, seed)


@st.cache_data(show_spinner=False, max_entries=32)
def sim_summary(kind, R, T, pi1, n, theta, seed, settings: fdr.Settings) -> pd.DataFrame:
    s = sim_streams(kind, R, T, pi1, n, theta, seed)
    return session.summary(s.pvalues, s.truth, settings, seed)


@st.cache_data(show_spinner=False, max_entries=32)
def sim_shift_cost(kind, R, T, pi1, n, theta, seed, settings: fdr.Settings) -> pd.DataFrame:
    s = sim_streams(kind, R, T, pi1, n, theta, seed)
    return session.shift_cost(s.pvalues, s.truth, settings, seed)


@st.cache_data(show_spinner=False, max_entries=16)
def sim_pi1_sweep(kind, R, T, n, theta, seed, settings: fdr.Settings) -> pd.DataFrame:
    streams = {pi1: sim_streams(kind, R, T, pi1, n, theta, seed) for pi1 in session.PI1_GRID}
    return session.pi1_sweep(streams, settings, seed)


@st.cache_data(show_spinner=False, max_entries=16)
def sim_eps_sweep(kind, R, T, pi1, n, theta, seed, settings: fdr.Settings):
    s = sim_streams(kind, R, T, pi1, n, theta, seed)
    return session.eps_sweep(s.pvalues, s.truth, settings, seed)


def eps_sweep_figure(table: pd.DataFrame, settings: fdr.Settings, T: int):
    return ff.sweep_figure(table, x_title="privacy budget ε (log scale)", alpha=settings.alpha,
                           bound=settings.alpha + settings.delta * T, log_x=True)


@ui.public_cache("fdr sweep figures", max_entries=16)  # shared, not unpickled on every rerun
def sim_eps_sweep_figure(kind, R, T, pi1, n, theta, seed, settings: fdr.Settings):
    """The sweep over ε as a figure, built once per public configuration (not on every rerun)."""
    return eps_sweep_figure(sim_eps_sweep(kind, R, T, pi1, n, theta, seed, settings)[0], settings, T)


@ui.public_cache("fdr frontiers", max_entries=16)  # process-wide: a head start can fill it from its own thread
def sim_frontier(T, pi1, theta, alpha, delta, lam, gamma, ai, seed) -> pd.DataFrame:
    """The release path's power frontier at the page's simulation settings (public inputs only: shared)."""
    return session.frontier(T, pi1, theta, alpha, delta, lam, gamma, ai, seed)


@st.cache_data(show_spinner=False, max_entries=32)
def design_frontier(n: int, T: int, theta: float, settings: fdr.Settings, ai: bool, epsilons: tuple,
                    seed: int) -> pd.DataFrame:
    """The release path at an upload's public design (n, stated θ, T: no uploaded value goes in)."""
    return session.design_frontier(n, T, theta, settings, ai, epsilons, seed)
