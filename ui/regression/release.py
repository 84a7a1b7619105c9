"""The drug-sensitivity page's release panel (its Release button drawn beside ε) and attacker's view, and its details
at ε: what is noised, why clipping helps, what a release reads, the notebook and script downloads."""

from __future__ import annotations

import streamlit as st

import ui
from dpcore.core.datasets import GDSC_LEDGER_LABEL
from dpcore.notebooks import RegressionConfig
from dpcore.regression import page_text as T
from dpcore.regression import session as S
from ui import private_bounds
from ui.attacker import attacker_panel  # teaching mode: what ε means for one patient
from ui.exports import code_downloads, release_with_script  # notebook, script
from ui.regression.views import Thresholds


def what_is_noised(src: S.Source, s: S.Settings, run: S.Preview, *, epsilon: float, thresholds: Thresholds) -> None:
    """The preview's pipeline and the thresholds in use."""
    pv = run.fit
    st.markdown(T.what_is_noised(method_label=S.METHOD_LABELS[s.method], robust=s.robust, prep=pv.prep,
                                 noise=pv.noise, bx=pv.bx, by=pv.by, d=src.X.shape[1], eps_prep=s.budget(epsilon)[0],
                                 uses_dp=s.uses_dp, n_public=int(src.public.sum())))
    st.caption(thresholds.text)


def explained(src: S.Source, s: S.Settings, run: S.Preview, config: RegressionConfig) -> None:
    """Why clipping helps, what a release reads, and the notebook and script of this configuration."""
    ui.explain(T.clipping_explained(bx=run.fit.bx, d=src.X.shape[1], split=s.split, parts=run.fit.prep.parts),
               title="What was noised, what is public, and why clipping helps")
    st.caption(T.release_caption(int(src.public.sum())))
    code_downloads(config)


def _config(src: S.Source, s: S.Settings, *, epsilon: float, omegas) -> RegressionConfig:
    """The notebook's and the release script's settings: the page's, with its seed (same numbers)."""
    return RegressionConfig(
        source=src.kind, epsilon=epsilon, seed=s.seed, n_test=s.n_test, n_private=s.n_priv, omegas=omegas,
        split=s.split, priors=s.priors, y_centre=s.y_centre, sigma_y=s.sigma_y, prep_share=s.prep_share,
        draws=S.PREVIEW_DRAWS, d=src.X.shape[1], repeats=int(ui.held("rg_R", 10)), sweep=S.EPS_SWEEP,
        method=s.method, delta=s.delta,
        **S.notebook_source(src, response=ui.held("rg_ycol"),
                            public_col=ui.held("rg_pubcol")))


def release_panel(src: S.Source, s: S.Settings, run: S.Preview, *, epsilon: float, thresholds: Thresholds,
                  records, button_at) -> RegressionConfig:
    """The release panel (its button in ``button_at``) and the attacker's view; the configuration a release's
    script (and the notebook) repeats."""
    parts = S.charged_parts(s, epsilon)
    params = S.release_params(src, s, omegas=thresholds.omegas)
    if src.kind == "upload":  # an upload's ranges are settings its release records how were chosen
        params.update(private_bounds.range_settings(src.y_bounds, src.x_bounds, len(src.names)))
    pv = run.fit
    utility_note = T.utility_note(S.METHOD_LABELS[s.method], run.test.size, pv.rho, pv.r2, pv.rho_nonprivate)
    config = _config(src, s, epsilon=epsilon, omegas=thresholds.omegas)

    def bundle():
        tuning = None
        if s.robust:
            tuning = (thresholds.search().describe() if s.manual_omegas is None else
                      {"source": "manual ω (public)"})
        return S.release(src, s, epsilon=epsilon, priv=run.priv, omegas=thresholds.omegas, tuning=tuning)

    ui.release_panel(key="regression", dataset_label=src.label, fingerprint=src.fp, method=s.method,
                     persons=None if src.persons is None else src.persons.subset(run.priv), records=records,
                     ledger_label=GDSC_LEDGER_LABEL if src.kind == "gdsc" else None,
                     simulated=src.kind == "synthetic", epsilon=S.total_epsilon(parts), delta=s.delta, parts=parts,
                     params=params, make_bundle=lambda: release_with_script(bundle(), config),
                     utility_note=utility_note, blocked=src.blocked, button_at=button_at)
    attacker_panel("regression", epsilon)
    return config
