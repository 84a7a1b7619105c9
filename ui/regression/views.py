"""The drug-sensitivity page's views at ε: the thresholds in use, the preview's figures (predicted against observed,
noise draws, coefficients) and the free searches (clipping thresholds, budget split). Only the open view draws."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import streamlit as st

import ui
from dpcore import regression as R
from dpcore.regression import figures as rf
from dpcore.regression import page_text as T
from dpcore.regression import session as S
from dpcore.regression.tuning import ThresholdSearch, threshold_search
from ui.widgets import epsilon_options

#: the views of the ε fragment; only the open one is computed and drawn (fixed labels: rendered as Markdown)
VIEWS = ["Predicted vs observed", "Noise draws", "Coefficients", "ρ over ε and size (CV)", "Smallest ε for a target",
         "Clipping thresholds", "Budget split"]
_FULL_REQUESTED = "_rg_full_requested"


@st.cache_data(show_spinner=False, max_entries=64)
def _quick_search(n: int, d: int, eps: float, split: tuple) -> ThresholdSearch:
    return threshold_search(n, d, epsilon=eps, split=split, n_sets=5, n_draws=5)


@st.cache_data(show_spinner=False, max_entries=16)
def _split_search(n: int, d: int, eps: float):
    return S.budget_split_search(n, d, eps)


def _warm_neighbours(n: int, d: int, epsilon: float, split: tuple, share: float) -> None:
    """Tune (ωx, ωy) for the ε steps either side of ``epsilon`` ahead of time (public inputs only: n, d, ε, the
    split; the same process-wide cache as :func:`dpcore.regression.session.omegas`), so that moving ε one step does
    not wait for the search."""
    ui.head_start("rg_eps", [(0.3, lambda e=e: S.omegas(n, d, float(e - share * e), split))
                             for e in _epsilon_steps_around(epsilon)])


def _epsilon_steps_around(epsilon: float) -> list[float]:
    """The ε slider's steps either side of ``epsilon`` (the step nearest it: a link can carry any ε)."""
    steps = epsilon_options()
    return ui.steps_around(steps, min(steps, key=lambda e: abs(e - epsilon)))


@ui.public_cache("regression previews", max_entries=48)
def _public_preview(key: tuple, s: S.Settings, epsilon: float, omegas: tuple[float, float]) -> S.Preview:
    """A preview on bundled or synthetic (public) data, shared by every session: its inputs are public."""
    return S.preview(S.rebuild(key), s, epsilon=epsilon, omegas=omegas)


def preview(src: S.Source, s: S.Settings, *, epsilon: float, thresholds: Thresholds) -> S.Preview:
    """The preview releases at ε (200 draws: about 50 ms of a move's work). On public data they are cached for every
    session and, when the thresholds do not depend on ε (AdaSSP, manual ω), the ε steps either side are computed
    ahead; an upload's are kept in this session for its last few ε, so moving back costs nothing."""
    omegas = tuple(map(float, thresholds.omegas))
    if src.kind == "upload":
        # what the rows, the columns, the public rows and the ranges are (bounds may be arrays: compared as tuples)
        key = (src.fp, src.names, src.y_label, src.public_basis, *(tuple(np.ravel(b).tolist()) for b in
               (src.x_bounds, src.y_bounds)), s, float(epsilon), omegas)
        return ui.session_memo("rg_preview", key, lambda: S.preview(src, s, epsilon=epsilon, omegas=omegas), keep=8)
    run = _public_preview(src.key, s, float(epsilon), omegas)
    if not s.robust or s.manual_omegas is not None:
        ui.head_start("rg_preview", [(0.3, lambda e=e: _public_preview(src.key, s, float(e), omegas))
                                     for e in _epsilon_steps_around(epsilon)])
    return run


def _request_full_search() -> None:
    st.session_state[_FULL_REQUESTED] = True


@dataclass(frozen=True)
class Thresholds:
    """The clipping thresholds in use at ε, how they were chosen (a caption), and the search behind them."""

    omegas: tuple[float, float]
    text: str
    search: Callable[[], ThresholdSearch]  # the (ωx, ωy) search in use, for the views and the release that show it
    full_key: tuple  # where the full search is kept once run
    n_fit: int
    eps_stat: float


def thresholds(src: S.Source, s: S.Settings, *, epsilon: float, figure) -> Thresholds:
    """The thresholds at ε: manual, the quick free search's (cached process-wide) or the full search's, which
    runs here, at the top of the fragment's run after its button was pressed (its progress bar in ``figure``)."""
    d = src.X.shape[1]
    n_fit = s.n_priv + int(src.public.sum())
    eps_stat = s.budget(epsilon)[1]
    full_key = ("rg_full_search", n_fit, d, float(eps_stat), s.split)
    if st.session_state.pop(_FULL_REQUESTED, False) and full_key not in st.session_state:
        with figure:
            bar = st.progress(0.0, text=f"Searching {R.OMEGA_GRID.size ** 2} (ωx, ωy) pairs on synthetic data…")
        st.session_state[full_key] = threshold_search(n_fit, d, epsilon=eps_stat, split=s.split,
                                                      progress=lambda f: bar.progress(f))
        bar.empty()
    full = st.session_state.get(full_key)

    def search() -> ThresholdSearch:
        return full if full is not None else _quick_search(n_fit, d, float(eps_stat), s.split)

    if not s.robust:
        omegas, text = (0.1, 0.5), T.adassp_thresholds(s.delta, s.n_priv)  # unused by AdaSSP's fit
    elif s.manual_omegas is not None:
        omegas = s.manual_omegas
        text = f"Thresholds in use: ωx = {omegas[0]:g}, ωy = {omegas[1]:g} (manual)."
    else:
        # the quick search's choice (the same search, cached process-wide), or the full search's
        omegas = (full.omega_x, full.omega_y) if full is not None else S.omegas(n_fit, d, eps_stat, s.split)
        _warm_neighbours(n_fit, d, epsilon, s.split, s.prep_share)
        text = T.tuned_thresholds(*omegas)
    return Thresholds(omegas, text, search, full_key, n_fit, eps_stat)


def fit_view(src: S.Source, s: S.Settings, run: S.Preview) -> None:
    """Predicted against observed responses on the held-out records (the first preview draw)."""
    pv = run.fit
    ui.live_chart(rf.predicted_vs_observed(src.y[run.test], pv.pred[0], pv.pred_nonprivate,
                                           rho_private=float(pv.rho[0]), rho_nonprivate=pv.rho_nonprivate,
                                           y_label=src.y_label, r2_private=float(pv.r2[0]),
                                           r2_nonprivate=pv.r2_nonprivate, rmse_private=float(pv.rmse[0]),
                                           rmse_nonprivate=pv.rmse_nonprivate),
                  key="rg_headline")


def fit_details(s: S.Settings, run: S.Preview, *, epsilon: float) -> None:
    """The scores of the predictions the fit view draws (in the details at ε)."""
    st.caption(T.scores_caption(run.fit, paper_scoring=s.robust and not s.priors, eps_prep=s.budget(epsilon)[0]))
    ui.teaching(T.PIPELINE_TEACHING)


def draws_view(run: S.Preview) -> None:
    pv = run.fit
    ui.chart(rf.rho_draws_histogram(pv.rho, pv.rho_nonprivate), key="rg_draws")
    st.caption(T.draws_caption(pv.rho, pv.rho_nonprivate))


def coefficients_view(src: S.Source, s: S.Settings, run: S.Preview) -> None:
    pv = run.fit
    lo, hi = np.quantile(pv.coef, [0.05, 0.95], axis=0)
    ui.chart(rf.coefficient_bars(src.names, pv.coef_nonprivate, pv.coef.mean(0), lo, hi, truth=src.beta),
             key="rg_coef")
    st.caption(T.coefficients_caption(pv, synthetic_truth=src.beta is not None, robust=s.robust))


def heatmap_view(src: S.Source, s: S.Settings, th: Thresholds) -> None:
    """The free (ωx, ωy) search's scores, and the button that runs the full search."""
    search = th.search()
    # runs at the top of the next run of this fragment, so that the preview above uses its thresholds
    st.button("Run the full search (20 data sets × 20 draws)", key="rg_full_btn",
              disabled=th.full_key in st.session_state, on_click=_request_full_search)
    wx, wy = th.omegas
    st.caption(T.search_caption(search, n_fit=th.n_fit, d=src.X.shape[1], eps_stat=th.eps_stat, split=s.split,
                                wx=wx, wy=wy, manual=s.manual_omegas is not None))
    ui.chart(rf.tuning_heatmap(search.grid_x, search.grid_y, search.scores,
                               chosen=(search.omega_x, search.omega_y), used=(wx, wy)), key="rg_heat")
    ui.teaching(T.HEATMAP_TEACHING)


def split_view(src: S.Source, s: S.Settings, th: Thresholds) -> None:
    """The free search of the budget split, run on its button and kept in the session."""
    d = src.X.shape[1]
    split_key = ("rg_split", th.n_fit, d, float(th.eps_stat))
    st.markdown(T.SPLIT_INTRO)
    if st.button("Search the budget split", key="rg_split_btn"):
        with st.spinner("Searching 36 splits…"):
            st.session_state[split_key] = _split_search(th.n_fit, d, float(th.eps_stat))
    sres = st.session_state.get(split_key)
    ui.chart(rf.ternary_split(None if sres is None else sres.splits, None if sres is None else sres.scores,
                              chosen=s.split, best=None if sres is None else sres.best), key="rg_ternary")
    if sres is not None:
        st.caption(T.split_caption(sres))


def answer(src: S.Source, run: S.Preview) -> None:
    """The answer line: how well the private model ranks the held-out rows against the non-private one (median over
    the preview's draws), in words whether ε is large enough to come close."""
    pv = run.fit
    rho, rho_np, verdict = S.answer(pv)
    ui.answer("Held-out prediction (Spearman ρ)", f"{rho:.2f} (R² {float(np.median(pv.r2)):.2f}; median of "
              f"{pv.rho.size} draws)", f"{rho_np:.2f} (R² {pv.r2_nonprivate:.2f})", verdict=verdict)
