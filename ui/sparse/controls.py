"""The Sparse page's controls at page level: the question row (data set; n, the drug or the response; s), where the
data come from, and the folded settings (model, bounds, the release, the methods compared and their constants).

:func:`controls` draws them in the page's order and returns the :class:`~dpcore.sparse.session.Setup` the live part
reads. It stops the page (``st.stop``) where it cannot go on: no file yet, an unusable file, too much data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

import ui
from dpcore import sparse as sp
from dpcore.core import columns
from dpcore.core.datasets import GDSC_LEDGER_KEY, gdsc_persons, load_gdsc
from dpcore.ledger import fingerprint
from dpcore.sparse import page_text as text
from dpcore.sparse.session import LABELS, MAX_CELLS, MAX_DEFAULT_FEATURES, RELEASES, SOURCES, Setup
from ui import private_bounds  # an upload's K and r chosen by a charged DP quantile
from ui.layout import literal
from ui.sparse import cached

#: K's and r's public range (a private choice picks inside it)
BOUND_LIMITS = (0.1, 100.0)


@dataclass(frozen=True)
class _Source:
    """The data one source gave, and what the release and the notebook need to know of it."""

    data: sp.SparseData
    public_key: tuple | None
    label: str
    fingerprint: str
    persons: object
    threshold: float | None = None
    response: str | None = None
    data_source: str = ""


def controls() -> Setup:
    """The question row, the data and the folded settings, in the page's order (see the module docstring)."""
    q_data, q_drug, q_s = ui.question_row(1.2, 2.2, 1)
    with q_data:
        source = ui.url_selectbox("Data set", key="sp_src", options=list(SOURCES), format_func=SOURCES.get)
    data_note = st.container()  # one note under the question: where the data come from
    upload_slot = st.container()  # an upload's file and columns, under the question
    settings_slot = st.container()
    with settings_slot, ui.settings_group("sp_settings") as settings:
        loss = ui.url_radio("Model", key="sp_loss", options=list(sp.LOSSES), horizontal=True,
                            format_func=lambda s: {"linear": "sparse linear regression",
                                                   "logistic": "sparse logistic regression"}[s])
        settings.shows({"linear": "linear", "logistic": "logistic"}[loss])
        if source == "synthetic":
            got = _synthetic(loss, settings, q_drug, data_note)
        elif source == "gdsc":
            got = _gdsc(loss, settings, q_drug, data_note)
        else:
            got = _upload(loss, q_drug, upload_slot)
        bounds = _bounds(source, loss, got, settings)
        variant, methods = _methods(settings)
        constants = _constants(got.data.X.shape[0])

    data = got.data
    d = data.X.shape[1]
    ui.set_current_dataset(got.label, got.fingerprint)
    records = ui.records_read([data.y], exchangeable=data.X) if source == "upload" else None  # outside the ε fragment
    with q_s:
        s_default = min(int(got.public_key[3]) if source == "synthetic" else 5, d)
        ui.follow_default("sp_s", s_default)
        s = int(ui.url_number("Features kept s", key="sp_s", min_value=1, max_value=min(100, d), value=s_default,
                              help="Sparsity: how many coefficients each model keeps (the rest are 0)."))
    if not methods:
        st.warning("Choose at least one method under Settings.")
        st.stop()
    if constants["m"] * d > MAX_CELLS:
        st.error(f"m·d = {constants['m'] * d:,} synthetic feature values is above the limit {MAX_CELLS:,}; lower m.")
        st.stop()
    # peeling fits its own unpenalised intercept unless the data already carry one (GDSC's '(intercept)' feature)
    params = dict(**bounds, **constants, intercept="(intercept)" not in data.feature_names)
    _clipping_warning(data, bounds["K"])
    return Setup(source=source, loss=loss, data=data, public_key=got.public_key, label=got.label,
                 fingerprint=got.fingerprint, persons=got.persons, records=records, s=s, methods=methods,
                 variant=variant, params=params, threshold=got.threshold, response=got.response,
                 data_source=got.data_source)


def _synthetic(loss: str, settings, q_drug, data_note) -> _Source:
    with q_drug:
        n = int(ui.url_select_slider("Records n", key="sp_n", options=[200, 500, 1000, 2000, 5000, 10000], value=1000))
    c1, c2, c3 = st.columns(3)
    with c1:
        d = int(ui.url_select_slider("Features d", key="sp_d", options=[50, 100, 200, 500, 1000, 2000, 5000, 10000],
                                     value=500))
    with c2:
        s_star = int(ui.url_number("True sparsity s*", key="sp_sstar", min_value=1, max_value=50, value=5))
    with c3:
        noise_sd = float(ui.url_number("Response noise σ", key="sp_noise", min_value=0.0, max_value=5.0, value=0.5,
                                       step=0.1, disabled=loss == "logistic"))
    settings.shows(f"d = {d}, s* = {s_star}")
    if n * d > MAX_CELLS:
        st.error(text.too_many_cells(n, d, MAX_CELLS))
        st.stop()
    public_key = ("synthetic", n, d, s_star, loss, noise_sd, 0)
    ui.note(into=data_note, markdown=text.synthetic_note(loss))
    # synthetic records are nobody: the release is recorded and charges nobody
    return _Source(cached.synthetic(*public_key[1:]), public_key, f"synthetic n={n}, d={d}, s*={s_star} ({loss})",
                   fingerprint("synthetic-sparse", *public_key), persons=None)


def _gdsc(loss: str, settings, q_drug, data_note) -> _Source:
    drugs = cached.drugs()
    with q_drug:
        drug = ui.url_selectbox("Drug (response: ln IC50)", key="sp_drug", options=list(drugs),
                                format_func=lambda i: drugs[i])
    c1, c2 = st.columns(2)
    with c1:
        # 400: the first 400 in the file's own order include TP53, Nutlin-3a's known biomarker (feature 250)
        d = int(ui.url_select_slider("Genomic features (the first, in the file's order)", key="sp_gd",
                                     options=[50, 100, 200, 400, 677], value=400))
    g = load_gdsc()
    lo, hi = g.response_range
    with c2:
        threshold = float(ui.url_number("Public threshold (ln IC50) for 'sensitive'", key="sp_thr",
                                        value=float((lo + hi) / 2), min_value=float(lo), max_value=float(hi),
                                        disabled=loss == "linear", help=text.THRESHOLD_HELP))
    settings.shows(f"{d} features" + (f", sensitive below {threshold:g}" if loss == "logistic" else ""))
    public_key = ("gdsc", drug, d, loss, threshold)
    data = cached.gdsc(*public_key[1:])
    ui.note(into=data_note, markdown=text.gdsc_note(data.X.shape[0], data.X_test.shape[0], loss, (lo + hi) / 2,
                                                    threshold, np.mean(data.y > 0), np.mean(data.y_test > 0)))
    # every cell line with an IC50 for this drug (the held-out ones too: charged, though the release reads only
    # the training split, which is fixed inside dpcore.sparse.gdsc_problem)
    return _Source(data, public_key, f"GDSC {g.drug_label(drug)} ({loss})", fingerprint(GDSC_LEDGER_KEY),
                   gdsc_persons(g.drug_cell_lines(drug)), data_source=g.provenance["source"])


def _upload(loss: str, q_drug, upload_slot) -> _Source:
    with upload_slot:
        ui.plan_first_link("sparse")  # where a private file is about to be read: the path that fixes settings first
        table = ui.upload_csv("sp_upload", label="Upload a CSV (one row per person; numeric columns)",
                              hint=text.UPLOAD_HINT)
        if table is None:
            st.stop()
        frame, fp, name = table
        cols = list(frame.columns)
        response_guess = columns.guess(frame, "response")  # by name, then type; said below
        guessed, why = cols[response_guess.index_in(cols)], response_guess.reason
        ui.reset_when_changed("_sp_upload_columns", tuple(cols),
                              dict(sp_ycol=guessed, sp_xcols=[c for c in cols if c != guessed][:MAX_DEFAULT_FEATURES]))
        with q_drug:
            response = ui.url_selectbox("Response column", key="sp_ycol", options=cols, index=cols.index(guessed))
        if response == guessed:
            st.caption(f"Guessed: {literal(why)}.")
        candidates = [c for c in cols if c != response]
        default_feats = candidates[:MAX_DEFAULT_FEATURES]
        # a new response hands its old column back to the features (never dropped silently)
        ui.reset_when_changed("_sp_upload_response", (tuple(cols), response), dict(sp_xcols=default_feats))
        feats = ui.url_multiselect("Feature columns", key="sp_xcols", options=candidates, default=default_feats)
        shown = ", ".join(feats[:40]) + (f", … ({len(feats) - 40} more)" if len(feats) > 40 else "")
        n_used, n_candidates = len(feats), len(candidates)
        st.caption(f"Features used: {n_used} of the {n_candidates} columns besides the response"
                   + (f": {literal(shown)}." if n_used else "."))
        if len(candidates) > MAX_DEFAULT_FEATURES and feats == default_feats:
            st.info(text.many_features(len(candidates), MAX_DEFAULT_FEATURES), icon=":material/info:")
    thr_text = st.text_input("Public threshold for a continuous response (logistic; blank = 0/1 labels)",
                             key="sp_uthr", disabled=loss == "linear")
    got = None
    with upload_slot, ui.show_errors("The uploaded file cannot be used"):
        thr = None
        if loss == "logistic" and thr_text.strip():
            try:
                thr = float(thr_text)
            except ValueError:
                raise ValueError(f"The public threshold {thr_text.strip()!r} is not a number.") from None
        X, y = sp.sparse_from_frame(frame, response, feats, loss=loss, threshold=thr)
        tr, te = sp.upload_split(len(y))
        got = _Source(sp.SparseData(X[tr], y[tr], X[te], y[te], None, loss, name, tuple(feats)), None,
                      f"{name} (uploaded)", fp, table.persons.subset(tr), threshold=thr, response=response)
    if got is None:
        st.stop()
    return got


def _bounds(source: str, loss: str, got: _Source, settings) -> dict:
    """The public bounds K, r and B (an upload's K and r may be chosen by a charged private quantile)."""
    c1, c2, c3 = st.columns(3)
    with c1:
        K = float(ui.url_number("Feature bound K (|x| ≤ K)", key="sp_K", min_value=BOUND_LIMITS[0],
                                max_value=BOUND_LIMITS[1], value=1.0))
    with c2:
        r = float(ui.url_number("Response bound r (|y| ≤ r)", key="sp_r", min_value=BOUND_LIMITS[0],
                                max_value=BOUND_LIMITS[1], value=5.0, disabled=loss == "logistic"))
    with c3:
        B_default = float(got.public_key[3]) if source == "synthetic" else 10.0
        ui.follow_default("sp_B", B_default)
        B = float(ui.url_number("ℓ1 radius B of the coefficients", key="sp_B", min_value=0.1, max_value=1000.0,
                                value=B_default, help=text.B_HELP))
    settings.shows(f"K = {K:g}" + ("" if loss == "logistic" else f", r = {r:g}") + f", B = {B:g}")
    if source == "upload":  # K and r chosen from the rows by a charged DP quantile (custodians)
        private_bounds.private_sparse_bounds("sp", X=got.data.X, y=got.data.y, response=loss == "linear",
                                             fingerprint=got.fingerprint, label=got.label, persons=got.persons,
                                             bound_keys=("sp_K", "sp_r"), limits=BOUND_LIMITS)
    return dict(K=K, r=r, B=B)


def _methods(settings) -> tuple[str, tuple[str, ...]]:
    """What the Release button releases, and the methods the other views compare."""
    variant = ui.url_radio("What the Release button releases", key="sp_release", options=list(RELEASES),
                           format_func=RELEASES.get, horizontal=True, help=text.RELEASE_HELP)
    settings.shows(LABELS[variant])
    # full width: six method names do not fit as chips in a third of the page
    methods = tuple(ui.url_multiselect("Methods compared in the other views", key="sp_methods",
                                       options=list(sp.METHODS), default=list(sp.METHODS),
                                       format_func=lambda m: LABELS[m]))
    settings.shows(f"{len(methods)} methods compared")
    return variant, methods


def _constants(n: int) -> dict:
    """The compared methods' public constants: the teacher's ridge, the numbers of steps, the synthetic points."""
    st.markdown("**Constants of the compared methods (public)**")
    a1, a2, a3 = st.columns(3)
    with a1:
        lam_rule = ui.url_radio("Teacher's ridge λ", key="sp_lamrule", options=list(sp.LAMBDA_RULES),
                                format_func=sp.LAMBDA_RULES.get, help=text.LAMBDA_HELP)
        c_lam = float(ui.url_number("Constant c_λ (balanced rule)", key="sp_clam", min_value=1e-3, max_value=1e6,
                                    value=sp.SparseParams.c_lam, disabled=lam_rule != "balanced"))
        c1 = float(ui.url_number("Constant c1 (paper's rule)", key="sp_c1", min_value=1e-3, max_value=1e6,
                                 value=sp.SparseParams.c1, disabled=lam_rule != "paper"))
    with a2:
        T2 = int(ui.url_number("Student steps T2", key="sp_T2", min_value=5, max_value=500, value=60))
        dp_T = int(ui.url_number("DP-IGHT steps T", key="sp_dpT", min_value=2, max_value=200, value=30))
    with a3:
        m_default = min(max(n, 50), 20_000)  # m = n, inside the widget's range
        ui.follow_default("sp_m", m_default)
        m = int(ui.url_number("Synthetic points m", key="sp_m", min_value=50, max_value=20_000, value=m_default,
                              help="The student's error hardly depends on m: σ grows like √m."))
    return dict(lam_rule=lam_rule, c_lam=c_lam, c1=c1, T2=T2, dp_T=dp_T, m=m)


def _clipping_warning(data: sp.SparseData, K: float) -> None:
    """Name the features clipping distorts most, with their largest values (training and held-out rows)."""
    d = data.X.shape[1]
    share, clipped = sp.clipping_report(np.vstack([data.X, data.X_test]), K,
                                        data.feature_names or [f"x{j + 1}" for j in range(d)])
    if clipped:
        worst = ", ".join(f"{literal(c)} (up to {v:,.4g})" for c, v in clipped[:5])
        st.warning(text.clipping_warning(share, K, len(clipped), d, worst), icon=":material/content_cut:")
