"""The drug-sensitivity page's controls above the ε fragment: the drug, an upload's columns and ranges, and the
expert settings (data, sizes, method). Each returns what it chose; the page arranges them."""

from __future__ import annotations

import hashlib

import streamlit as st

import ui
from dpcore import regression as R
from dpcore.core import columns
from dpcore.core.datasets import load_gdsc
from dpcore.regression import page_text as T
from dpcore.regression import session as S
from ui import private_bounds  # an upload's ranges chosen by a charged DP quantile
from ui.widgets import set_control


@st.cache_data(show_spinner=False, max_entries=32)
def _drug_options() -> tuple[list[str], dict[str, str]]:
    g = load_gdsc()
    counts = g.ic50.notna().sum()
    ids = list(counts.sort_values(ascending=False).index)
    return ids, {i: f"{g.drug_label(i)} — {int(counts[i])} cell lines" for i in ids}


def drug() -> str:
    """The bundled drug (link-bound), the default the one the non-private model predicts best."""
    ids, labels = _drug_options()
    return ui.url_selectbox("Drug", key="rg_drug", options=ids, index=ids.index(S.DEFAULT_DRUG),
                            format_func=lambda i: labels[i], help=T.DRUG_HELP)


def _ranges_key(feats, lo: float, hi: float) -> str:
    """The ranges table's key: a new feature list or default rule starts a new table (edits of the old one dropped)."""
    return "rg_xranges_" + hashlib.sha256(repr((list(feats), float(lo), float(hi))).encode()).hexdigest()[:16]


def upload() -> S.Source | None:
    """An uploaded CSV: its response, features, public-rows column, unit of privacy and public ranges (confirmed,
    or set by the charged private choice); None until a usable file is mapped."""
    table = ui.upload_csv("rg_upload", label="Upload a CSV (one row per cell line / person)", hint=T.UPLOAD_HINT)
    if table is None:
        return None
    frame, fp, name = table
    cols = list(frame.columns)
    guess = columns.guess(frame, "response")  # by name, then type; said below
    ui.reset_when_changed("_rg_upload_columns", tuple(cols), dict(rg_ycol=cols[guess.index_in(cols)], rg_pubcol=None))
    c1, c2, c7 = st.columns([1, 2, 1])
    with c1:
        resp = ui.url_selectbox("Response column", key="rg_ycol", options=cols, index=guess.index_in(cols))
        st.caption(ui.literal(columns.describe([guess])))
    others = [c for c in cols if c != resp]
    default_feats = others[:S.MAX_UPLOAD_FEATURES]
    # a new response: every other column is a feature again (the old response among them), none dropped silently
    ui.reset_when_changed("_rg_upload_response", (tuple(cols), resp), dict(rg_xcols=default_feats))
    with c2:
        feats = ui.url_multiselect("Feature columns", key="rg_xcols", options=others, default=default_feats)
        st.caption(T.features_caption(len(feats), len(others), ui.literal(", ".join(feats) or "none"),
                                      S.MAX_UPLOAD_FEATURES))
    with c7:
        mark = st.selectbox("Public-rows column (optional)", [None] + [c for c in cols if c != resp and c not in feats],
                            key="rg_pubcol", format_func=lambda c: "none: every row is private" if c is None else c,
                            help=T.PUBLIC_COLUMN_HELP)
    unit = st.text_input("Unit of privacy: what one row is (e.g. patient, cell line)", key="rg_unit", max_chars=60,
                         help="Shown on the page and in the release: the guarantee protects one such unit.").strip()
    c3, c4, c5, c6 = st.columns(4)
    ylo = float(c3.number_input("Public response minimum", key="rg_ylo", value=-10.0))
    yhi = float(c4.number_input("Public response maximum", key="rg_yhi", value=13.0))
    xlo = float(c5.number_input("Default feature minimum", key="rg_xlo", value=0.0,
                                help="The public rule every feature starts from; edit single features in the table."))
    xhi = float(c6.number_input("Default feature maximum", key="rg_xhi", value=1.0))
    st.markdown("**Public range of each feature** (edit a row for a feature measured on another scale)")
    rows, table_key = private_bounds.feature_table("rg", fp, resp, feats, table_key=_ranges_key(feats, xlo, xhi),
                                                   lo=xlo, hi=xhi)  # the private choice's ranges, once made
    ranges = st.data_editor(rows, key=table_key, disabled=["feature"], hide_index=True, num_rows="fixed",
                            width="stretch")
    confirmed = st.checkbox(T.RANGES_CONFIRM, key="rg_ranges_ok")
    st.caption(T.RANGES_CAPTION)
    with ui.show_errors("The uploaded file cannot be used"):
        if not yhi > ylo:
            raise ValueError("The public response maximum must be larger than its minimum.")
        x_bounds = R.feature_ranges(ranges, feats) if feats else (xlo, xhi)
        X, y, public = R.regression_from_frame(frame, response=resp, features=feats, public=mark,
                                               min_rows=S.MIN_RECORDS)
        private_bounds.private_ranges("rg", X=X, y=y, response=resp, features=feats, fingerprint=fp, label=f"{name} "
                                      "(uploaded)", persons=table.persons, table_key=table_key,
                                      response_keys=("rg_ylo", "rg_yhi"), outer=(ylo, yhi, xlo, xhi))
        confirmed = confirmed or private_bounds.in_force("rg", fp, resp, feats, (ylo, yhi), x_bounds)
        return S.upload_source(name=name, fp=fp, X=X, y=y, public=public, response=resp, features=feats, mark=mark,
                               x_bounds=x_bounds, y_bounds=(ylo, yhi), unit=unit, confirmed=confirmed,
                               persons=table.persons)
    return None


def _public_records(label: str) -> int:
    return int(ui.url_slider(label, key="rg_npub", min_value=0, max_value=50, value=10, step=5, help=T.PUBLIC_HELP))


def data(kind: str, settings, *, drug: str | None, uploaded: S.Source | None) -> tuple[S.Source, str]:
    """The settings' data part: the bundled data's features or the generator's parameters, and the public
    records. Returns the source and the note on the data for "What this page shows"."""
    st.markdown("**Data**")
    if kind == "gdsc":
        c1, c2 = st.columns(2)
        with c1:
            d = int(ui.url_slider("Genomic features d (the source file's order)", key="rg_d", min_value=2,
                                  max_value=64, value=S.DEFAULT_FEATURES))
        with c2:
            k_pub = _public_records("Public cell lines (not protected)")
        src = S.gdsc_source(drug, d, k_pub)
        settings.shows(f"{d} features, {k_pub} public lines")
        return src, T.gdsc_note(load_gdsc().provenance, src.y_bounds[1])
    if kind == "synthetic":
        c1, c2, c3, c4, c0 = st.columns(5)
        with c1:
            n_syn = int(ui.url_number("Records", key="rg_syn_n", min_value=200, max_value=5000, value=1000, step=100))
        with c2:
            d_syn = int(ui.url_number("Features d", key="rg_syn_d", min_value=2, max_value=64, value=10))
        with c3:
            noise_syn = float(ui.url_number("Noise sd", key="rg_syn_s", min_value=0.05, max_value=5.0, value=1.0))
        with c4:
            seed_syn = int(ui.url_number("Generator seed", key="rg_syn_seed", min_value=0, max_value=10_000, value=1,
                                         step=1))
        with c0:
            k_pub = _public_records("Public records (not protected)")
        src = S.synthetic_source(n_syn, d_syn, noise_syn, seed_syn, k_pub)
        settings.shows(f"n {n_syn}, d {d_syn}, noise sd {noise_syn:g}, data seed {seed_syn}, {k_pub} public")
        return src, T.synthetic_note(src.y_bounds)
    return uploaded, ""


def _clamp(key: str, lo, hi, *, digits: int | None = None) -> None:
    """Keep a slider's remembered value inside its new range when the data set or another control changes it
    (sizes as integers, shares rounded to ``digits``)."""
    if key in st.session_state:
        value = st.session_state[key] if digits is None else float(st.session_state[key])
        clamped = int(min(max(value, lo), hi)) if digits is None else round(min(max(value, lo), hi), digits)
        if clamped != value:
            st.session_state[key] = clamped


def sizes(src: S.Source, settings) -> tuple[int, int] | str:
    """``(n_test, n_priv)`` from the two size sliders, or why the page cannot go on with these data and sizes."""
    n_rest = src.rest.size
    if n_rest < S.MIN_RECORDS:
        return T.too_few_records(n_rest, S.MIN_RECORDS)
    max_test = max(30, n_rest // 4)  # a slider needs max > min
    test_default = max(20, min(100, n_rest // 4))
    ui.reset_when_changed("_rg_last_source", (src.fp, src.label, n_rest),  # sizes default from the data's size
                          dict(rg_ntest=test_default, rg_npriv=int(min(800, n_rest - test_default))))
    s1, s3 = st.columns(2)
    _clamp("rg_ntest", 20, max_test)
    ui.follow_default("rg_ntest", test_default)
    with s1:
        n_test = int(ui.url_slider("Test set size", key="rg_ntest", min_value=20, max_value=max_test,
                                   value=test_default, step=10))
    avail = n_rest - n_test
    if avail <= 20:
        return T.too_few_for_training(avail)
    _clamp("rg_npriv", 20, int(avail))
    ui.follow_default("rg_npriv", int(min(800, avail)))
    with s3:
        n_priv = int(ui.url_slider("Private training records", key="rg_npriv", min_value=20,
                                   max_value=int(avail), value=int(min(800, avail)), step=10))
    settings.shows(f"{n_test} held out, {n_priv} private")
    return n_test, n_priv


def _paper_method() -> None:
    """The paper's robust private LR as the paper specifies it: fixed precisions, no ridge (a button's callback)."""
    set_control("rg_method", "robust")
    set_control("rg_priors", False)


def method(settings, n_test: int, n_priv: int) -> S.Settings:
    """The settings' method part: the release method, the response's centre and scale, the preview seed and, for
    robust private LR, the budget split and the thresholds."""
    st.markdown("**Method**")
    m1, m2, m3 = st.columns(3)
    with m1:
        chosen = S.METHODS[ui.url_radio("Release method", key="rg_method", options=list(S.METHODS),
                                        format_func=lambda m: S.METHOD_LABELS[S.METHODS[m]], help=T.METHOD_HELP)]
        robust = chosen == R.METHOD
        settings.shows(S.METHOD_LABELS[chosen].removesuffix(" (default)"))
        priors = ui.url_toggle("Gamma priors and a ridge (VB)", key="rg_priors", value=True, help=T.PRIORS_HELP)
        if robust:
            settings.shows("Gamma priors + ridge" if priors else "fixed precisions")
        st.button("The paper's method", key="rg_paper", on_click=_paper_method, icon=":material/article:",
                  help=T.PAPER_HELP)
    with m2:
        y_centre = ui.url_radio("Response centre", key="rg_yc", options=["dp", "public"], horizontal=True,
                                format_func=lambda v: {"dp": "DP mean (charged)", "public": "public midpoint"}[v])
        sigma_y = ui.url_radio("Response scale σy", key="rg_sy", options=["dp", "public"], horizontal=True,
                               format_func=lambda v: {"dp": "DP estimate (charged)", "public": "range / 6"}[v])
        uses_dp = "dp" in (y_centre, sigma_y)
        # a budget split like p1, p2
        prep_share = float(ui.url_slider("Share of ε for the DP centre/scale", key="rg_pshare", min_value=0.02,
                                         max_value=0.3, value=R.DEFAULT_PREP_SHARE, step=0.01)) if uses_dp else 0.0
        settings.shows(f"DP centre/scale ({prep_share:.0%} of ε)" if uses_dp else "public centre and scale")
    with m3:
        seed = int(ui.url_number("Preview seed", key="rg_seed", min_value=0, max_value=10_000, value=0, step=1,
                                 help="Seeds the preview only; a release is seeded by the operating system."))
        split, manual_omegas = _robust_split(settings) if robust else (R.DEFAULT_SPLIT, None)
        settings.shows(f"seed {seed}")
    return S.Settings(n_test=n_test, n_priv=n_priv, method=chosen, priors=priors, y_centre=y_centre, sigma_y=sigma_y,
                      prep_share=prep_share, seed=seed, split=tuple(split), manual_omegas=manual_omegas)


def _robust_split(settings) -> tuple[tuple[float, float, float], tuple[float, float] | None]:
    """Robust private LR's budget split p1 : p2 : p3 and its thresholds, manual or None (tuned for free)."""
    p1 = float(ui.url_slider("p1 → nxx", key="rg_p1", min_value=0.05, max_value=0.90, value=0.35, step=0.05))
    p2_max = round(0.95 - p1, 2)  # p3 = 1 − p1 − p2 keeps at least 0.05, so no state of the two is invalid
    _clamp("rg_p2", 0.05, p2_max, digits=2)
    if p2_max > 0.05:
        p2 = min(float(ui.url_slider("p2 → nxy", key="rg_p2", min_value=0.05, max_value=p2_max,
                                     value=min(0.60, p2_max), step=0.05)), p2_max)
    else:
        p2 = 0.05
    p3 = round(1.0 - p1 - p2, 10)
    st.caption(f"p3 → nyy = {p3:.2f} (budget split nxx : nxy : nyy; p2 is at most 0.95 − p1)")
    mode = ui.url_radio("Thresholds (ωx, ωy)", key="rg_tmode", options=["tuned", "manual"], horizontal=True,
                        format_func=lambda m: {"tuned": "tuned (free)", "manual": "manual"}[m])
    manual_omegas = None
    if mode == "manual":
        manual_omegas = (float(ui.url_select_slider("ωx (Bx = ωx σx)", key="rg_wx", options=S.OMEGAS, value=0.1)),
                         float(ui.url_select_slider("ωy (By = ωy σy)", key="rg_wy", options=S.OMEGAS, value=0.5)))
    settings.shows(f"split {p1:.2f} : {p2:.2f} : {p3:.2f}, "
                   + (f"ω {manual_omegas[0]:g}, {manual_omegas[1]:g}" if manual_omegas else "tuned ω"))
    return (p1, p2, p3), manual_omegas
