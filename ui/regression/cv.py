"""The drug-sensitivity page's two views on the Monte-Carlo cross-validation: ρ over ε and size, and the smallest ε
for a target. Bundled and synthetic data are public, so their CVs are cached for every session; an upload's stay
in this session's state only, computed when its button is pressed."""

from __future__ import annotations

import streamlit as st

import ui
from dpcore import regression as R
from dpcore.core.persons import fingerprint
from dpcore.regression import figures as rf
from dpcore.regression import page_text as T
from dpcore.regression import session as S
from dpcore.regression.evaluation import equivalent_sample_size
from ui.accuracy import accuracy_first


@ui.public_cache("regression cv", max_entries=64)
def _public_cv(key: tuple, **kw):
    """CV on bundled / synthetic (public) data, shared by every session: its inputs are public."""
    return S.cv(S.rebuild(key), **kw)


def _warm_repeats(key: tuple, *runs: dict) -> None:
    """Run the same CVs for the neighbouring repeats options ahead of time (public data only)."""
    ui.head_start("rg_cv", [(0.3, lambda r=r, kw=kw: _public_cv(key, **{**kw, "repeats": r}))
                            for kw in runs for r in ui.steps_around(S.REPEATS, kw["repeats"])])


def _curves(src: S.Source, runs: list[dict], progress):
    """``(by_eps, by_size)`` of :func:`dpcore.regression.session.cv_runs`'s runs (``by_size`` None without the
    second)."""
    public = src.kind != "upload"
    run = (lambda **a: _public_cv(src.key, **a)) if public else (lambda **a: S.cv(src, **a))
    by_eps = run(**runs[0])
    progress(0.5)
    by_size = run(**runs[1]) if len(runs) > 1 else None
    progress(1.0)
    if public:  # so that moving the repeats slider one step does not wait for the CV
        _warm_repeats(src.key, *runs)
    return by_eps, by_size


def _repeats() -> int:
    """The CV repeats, drawn in whichever of the two views that use the CV is open (one per run)."""
    return int(ui.url_select_slider("CV repeats (random splits)", key="rg_R", options=S.REPEATS, value=10,
                                    help=T.REPEATS_HELP))


def _cv_curves(src: S.Source, s: S.Settings, *, epsilon: float, over_sizes: bool):
    """``(by_eps, by_size, repeats)`` of the Monte-Carlo CV (``by_size`` None unless ``over_sizes``), or None while
    an upload's curves have not been computed (its button is in the CV view)."""
    repeats = _repeats()
    if src.kind != "upload":
        with st.spinner("Cross-validating five models over ε" + (" and sample size" if over_sizes else "")
                        + " (cached after the first run)…"), ui.show_errors("Cross-validation failed"):
            runs = S.cv_runs(s, epsilon=epsilon, repeats=repeats, over_sizes=over_sizes)
            return (*_curves(src, runs, progress=lambda f: None), repeats)
        return None
    # what the curves read (the file's fingerprint stays the same when another response or feature set is chosen);
    # both views read the curves over sizes' key
    runs = S.cv_runs(s, epsilon=epsilon, repeats=repeats, over_sizes=True)
    ckey = ("rg_curves", fingerprint(src.fp, src.X, src.y, src.public), src.public_basis, int(src.public.sum()),
            repr(runs))
    if over_sizes and st.button("Compute the curves on the uploaded data", key="rg_curves_btn"):
        bar = st.progress(0.0, text="Cross-validating…")
        with ui.show_errors("Cross-validation failed"):
            st.session_state[ckey] = _curves(src, runs, progress=lambda f: bar.progress(f))
        bar.empty()
    curves = st.session_state.get(ckey)
    if curves is None:
        st.info(T.NO_UPLOAD_CURVES if over_sizes else T.CURVES_FIRST)
        return None
    return (*curves, repeats)


def cv_view(src: S.Source, s: S.Settings, *, epsilon: float) -> None:
    """ρ of the five models over the ε sweep and over private sizes (Monte-Carlo CV): computed only while this
    view is open (a new ε needs a CV over sizes)."""
    curves = _cv_curves(src, s, epsilon=epsilon, over_sizes=True)
    if curves is None:
        return
    by_eps, by_size, repeats = curves
    shown = ui.url_multiselect("Models shown", key="rg_models", options=list(R.MODELS), default=list(R.MODELS))
    rho_np_size = by_size.rho[0, :, 0].mean(-1)
    rho_rp = float(by_size.rho[1, -1, 0].mean())
    equiv = equivalent_sample_size(by_size.sizes, rho_np_size, rho_rp)
    ui.live_chart(rf.rho_panels(by_eps.epsilons, by_eps.rho[:, 0], by_size.sizes, by_size.rho[:, :, 0],
                                epsilon=epsilon, n_private=s.n_priv, equivalent=equiv, shown=shown), key="rg_curves")
    st.caption(T.cv_caption(repeats=repeats, n_test=s.n_test, n_public=int(src.public.sum()), epsilon=epsilon,
                            n_private=s.n_priv, equivalent=equiv))
    ui.teaching(T.CV_TEACHING)


def target_view(src: S.Source, s: S.Settings, *, epsilon: float) -> None:
    """Accuracy first on the CV's ε sweep (which does not depend on the chosen ε)."""
    curves = _cv_curves(src, s, epsilon=epsilon, over_sizes=False)
    if curves is None:
        return
    by_eps = curves[0]
    st.caption(T.target_caption(s.n_priv, curves[2]))
    accuracy_first(key="rg_acc", grid=by_eps.epsilons, draws=by_eps.rho[1, 0], metric_label="Spearman ρ",
                   default_threshold=round(max(0.5 * float(by_eps.rho[0, 0].mean()), 0.01), 3),
                   larger_is_better=True, basis=src.label, expanded=True)  # its own view: open
