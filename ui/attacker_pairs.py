"""The attacker's view, pairs built from a data set: one builder per method (the controls that choose the data,
the record and its alternative), each returning a :class:`dpcore.core.pairs.NeighbourPair` (built by the method's
own ``attack_pair.py``) or, for mechanisms without a closed-form density (PAPRIKA, KT with private support), an
:class:`dpcore.core.audit.AuditScenario` to simulate.

Uploaded data stay in memory for this run (no cache, no disk, no log); values read from data or a URL are shown
through :func:`ui.layout.literal`. Everything is a preview: seeded NumPy noise, never charged or exported.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from dpcore import fdr
from dpcore import regression as R
from dpcore import sparse as sp
from dpcore import survival as sv
from dpcore.core.audit import AuditScenario
from dpcore.core.datasets import UNIT_DAYS, load_gdsc, load_survival, survival_names, survival_title
from dpcore.core.pairs import NeighbourPair
from ui.data import upload_csv
from ui.layout import literal
from ui.widgets import url_number, url_radio, url_select_slider, url_selectbox

GDSC_FEATURES = 3
#: Most p-values (releases × stream length) one FDR view simulates: the draws shrink for long streams.
FDR_CELLS = 20_000_000
#: Most records × support size × releases one sparse view fits teachers for (each release may draw a new support).
SPARSE_WORK = 2_000_000_000
SOURCES = {"bundled": "bundled data set", "upload": "upload a CSV"}


def _upload(key: str, unit: str, hint: str):
    """``(frame, columns)`` of an uploaded CSV, in memory for this run only; ``None`` until one is usable."""
    table = upload_csv(key, label=f"Upload a CSV (one row per {unit})", hint=hint)
    return None if table is None else (table.frame, list(table.frame.columns))


def _capped(draws: int, cells: int, limit: int, what: str) -> int:
    """``draws`` lowered so that ``draws × cells ≤ limit``, saying so under the controls."""
    if draws * cells <= limit:
        return draws
    draws = max(1, limit // cells)
    st.caption(f"{what}: {draws:,} simulated releases per data set (memory and time are capped).")
    return draws


def _survival_pair(epsilon: float) -> NeighbourPair | None:
    kind = url_radio("Survival data", key="atk_src", options=["bundled", "upload"], horizontal=True,
                     format_func=lambda s: {"bundled": "bundled data set", "upload": "upload a CSV"}[s])
    if kind == "bundled":
        name = url_selectbox("Data set", key="atk_data", options=survival_names(), format_func=survival_title)
        d = load_survival(name)
        time, event, unit, horizon, grid_unit = d.time, d.event, d.time_unit, d.horizon, d.default_grid_unit
        labels = tuple(d.event_labels[k] for k in sorted(d.event_labels))
    else:
        upload = _upload("atk_sv_upload", "patient", "A time column and an event column (0 = censored, 1 = event).")
        if upload is None:
            return None
        frame, cols = upload
        c1, c2, c3 = st.columns(3)
        tcol = c1.selectbox("Time column", cols, key="atk_tcol")
        ecol = c2.selectbox("Event column (0 = censored, 1 = event)", cols, index=min(1, len(cols) - 1),
                            key="atk_ecol")
        unit = c3.selectbox("Time unit", list(UNIT_DAYS), key="atk_tunit")
        mapped = sv.survival_from_frame(frame, time_col=tcol, event_col=ecol, n_types=1)
        time, event, labels = mapped.time, mapped.event, mapped.event_labels
        horizon = float(st.number_input(f"Public horizon ({unit})", min_value=0.001, value=365.0 if unit == "days"
                                        else 12.0, key="atk_hor", help="Chosen without looking at the data."))
        grid_unit = unit
    grid = sv.make_grid(horizon, data_unit=unit, grid_unit=grid_unit, max_bins=2_000)
    c1, c2, c3 = st.columns(3)
    with c1:
        index = int(url_number("Patient the attacker does not know (row number)", key="atk_rec", min_value=1,
                               max_value=int(time.size), value=1, step=1)) - 1
    with c2:
        alt_time = float(st.number_input(f"Alternative time ({unit})", min_value=0.0, value=float(0.9 * horizon),
                                         key="atk_alt_t"))
    with c3:
        codes = list(range(len(labels) + 1))
        alt_event = st.selectbox("Alternative status", codes, key="atk_alt_e",
                                 format_func=lambda k: "censored" if k == 0 else f"event: {labels[k - 1]}")
    return sv.survival_pair(time, event, grid, epsilon=epsilon, index=index, alt_time=alt_time,
                            alt_event=int(alt_event), n_types=len(labels), event_labels=labels)


def _regression_pair(epsilon: float) -> NeighbourPair | None:
    kind = url_radio("Regression data", key="atk_src", options=["bundled", "upload"], horizontal=True,
                     format_func=lambda s: {"bundled": f"bundled GDSC (first {GDSC_FEATURES} features)",
                                            "upload": "upload a CSV"}[s])
    if kind == "bundled":
        g = load_gdsc()
        drugs = list(g.ic50.notna().sum().sort_values(ascending=False).index[:20])
        drug = url_selectbox("Drug", key="atk_drug", options=drugs, format_func=g.drug_label)
        X, y = g.drug_data(drug, GDSC_FEATURES)
        x_bounds, y_bounds = (0.0, 1.0), tuple(g.response_range)
    else:
        upload = _upload("atk_rg_upload", "record", "One numeric response column and numeric feature columns.")
        if upload is None:
            return None
        frame, cols = upload
        c1, c2 = st.columns([1, 2])
        resp = c1.selectbox("Response column", cols, key="atk_ycol")
        feats = c2.multiselect("Feature columns", [c for c in cols if c != resp],
                               default=[c for c in cols if c != resp][:3], key="atk_xcols")
        c3, c4, c5, c6 = st.columns(4)
        y_bounds = (float(c3.number_input("Public response minimum", value=-10.0, key="atk_ylo")),
                    float(c4.number_input("Public response maximum", value=13.0, key="atk_yhi")))
        x_bounds = (float(c5.number_input("Public feature minimum", value=0.0, key="atk_xlo")),
                    float(c6.number_input("Public feature maximum", value=1.0, key="atk_xhi")))
        if not (y_bounds[1] > y_bounds[0] and x_bounds[1] > x_bounds[0]):
            raise ValueError("Each public maximum must be larger than its minimum.")
        X, y = R.regression_from_frame(frame, response=resp, features=feats)
    prep = R.prepare(X, y, x_bounds=x_bounds, y_bounds=y_bounds, x_centre="public", y_centre="public",
                     sigma_y="public")
    Xn, yn = prep.transform(X, y)
    c1, c2 = st.columns(2)
    with c1:
        index = int(url_number("Record the attacker does not know (row number)", key="atk_rec", min_value=1,
                               max_value=int(y.size), value=1, step=1)) - 1
    with c2:
        alt_y = float(st.number_input("Alternative response (same features)", value=float(y_bounds[0]),
                                      key="atk_alt_y"))
    st.caption(f"Records are centred at the public midpoints, scaled to unit length and clipped at Bx = σx = "
               f"{prep.sigma_x:.3g}, By = σy = {prep.sigma_y:.3g} (public: range / 6) before the statistics.")
    return R.regression_pair(Xn, yn, epsilon=epsilon, index=index, alt_x=Xn[index],
                             alt_y=alt_y - prep.y_centre, bx=prep.sigma_x, by=prep.sigma_y)


def _fdr_stream() -> tuple[np.ndarray, str, dict] | None:
    """(p-values, where they come from, how B is built: test, n, η) of the stream the attacker's pair starts from."""
    kind = url_radio("Stream", key="atk_fsrc", options=["bernoulli", "truncexp", "upload"], horizontal=True,
                     format_func=lambda s: {"bernoulli": "Bernoulli simulation", "upload": "upload p-values (CSV)",
                                            "truncexp": "truncated-exponential simulation"}[s])
    if kind == "upload":
        table = upload_csv("atk_fdr_upload", label="Upload a CSV of p-values (one row per hypothesis, in stream order)",
                           hint="A column of p-values in [0, 1] in the order the hypotheses arrived.",
                           rows_are_persons=False)  # rows are hypotheses (repeated p-values are not people)
        if table is None:
            return None
        cols = list(table.frame.columns)
        c1, c2, c3 = st.columns(3)
        pcol = c1.selectbox("Column of p-values", cols, key="atk_pcol")
        p, _ = fdr.pvalues_from_frame(table.frame, pcol)
        how = c2.radio("η from", ["stated", "binomial"], key="atk_etahow",
                       format_func={"stated": "a value I state", "binomial": "exact one-sided binomial test"}.get)
        if how == "stated":
            eta = float(c3.number_input("η (stated)", min_value=1e-4, max_value=10.0, value=0.0831, format="%.4f",
                                        key="atk_eta"))
            st.caption(f"The guarantee for these p-values rests on the η you state ({eta:.4g}): one person moves every "
                       "log p-value by at most that much. dpcore did not derive or check it; B is the neighbour "
                       "model itself, every p-value multiplied by e^±η.")
            return p, "uploaded", dict(test="stated", eta=eta, floor=fdr.P_FLOOR)
        n = int(c3.number_input("Observations per hypothesis n", min_value=10, max_value=100_000, value=1000,
                                key="atk_fn"))
        eta = fdr.eta_binomial_exact(n, 1e-6)
        st.caption(f"η = {eta:.4g}: the exact binomial η for n = {n} above μ = 1e-06. Without the raw data, B "
                   "multiplies every p-value by e^±η (the neighbour model itself).")
        basis = (f"the exact binomial η = {eta:.4g} (n = {n}, p-values floored at μ = 1e-06): the guarantee rests on "
                 "your p-values being exact one-sided binomial tails with n records per test")
        return p, "uploaded", dict(test="stated", eta=eta, floor=1e-6, eta_basis=basis)
    c1, c2, c3, c4, c5, c6 = st.columns(6)
    with c1:
        n = int(url_select_slider("Observations per hypothesis n", key="atk_fn", options=[100, 200, 500, 1000, 2000],
                                  value=1000))
    with c2:
        T = int(url_select_slider("Hypotheses", key="atk_fT", options=[200, 400, 800, 1600], value=800))
    with c3:
        pi1 = float(url_select_slider("Share of non-nulls π1", key="atk_fpi1",
                                      options=[0.01, 0.02, 0.03, 0.04, 0.05, 0.1, 0.2], value=0.05))
    with c4:
        options = [0.55, 0.6, 0.65, 0.7, 0.75, 0.8] if kind == "bernoulli" else [1.02, 1.05, 1.1, 1.2, 1.5, 1.8, 1.9, 2.0]
        theta = float(url_select_slider("Alternative θ", key=f"atk_fth_{kind}", options=options,
                                        value=0.75 if kind == "bernoulli" else 1.8))
    with c5:
        seed = int(url_number("Public seed", key="atk_fseed", min_value=0, max_value=10_000, value=0, step=1))
    with c6:
        run = int(url_number("Run of the FDR page", key="atk_frun", min_value=1, max_value=100, value=1, step=1,
                             help="The FDR page simulates 100 runs from the public seed; run 1 is its one-stream view."))
    stream = fdr.page_stream(kind, run, max(run, 100), T, pi1=pi1, n=n, theta=theta, seed=seed)
    where = f"{stream.description}, seed {seed}, run {run}"
    if kind == "bernoulli":
        return stream.pvalues, where, dict(test="binomial", n=n, floor=1e-6)
    # a record is a null value in [0, 1] or a non-null θ·truncexpon in [0, θ]: the public range is [0, max(1, θ)]
    return stream.pvalues, where, dict(test="ztest", n=n, floor=1e-6, record_range=max(1.0, theta))


def fdr_pair(epsilon: float, draws: int) -> tuple[AuditScenario | None, int]:
    """PAPRIKA as released, on a stream and its neighbour (one person replaced), and the draws memory allows."""
    built = _fdr_stream()
    if built is None:
        return None, draws
    p, where, model = built
    T = p.size
    c1, c2, c3 = st.columns(3)
    with c1:
        move = url_radio("How the person moves the p-values in B", key="atk_move", options=list(fdr.MOVES),
                         index=2, format_func=lambda m: fdr.MOVES[m].format(t="t"))
    with c2:
        target = int(url_number("Hypothesis t", key="atk_t", min_value=1, max_value=T, value=1, step=1,
                                disabled=move != "worst")) - 1
    with c3:
        cutoff = int(url_select_slider("Cutoff c (max discoveries)", key="atk_fc", options=[1, 5, 10, 20, 40, 80],
                                       value=40))
    draws = _capped(draws, T, FDR_CELLS, f"Long stream ({T:,} hypotheses)")
    return fdr.data_scenario(p, epsilon, move=move, target=target, cutoff=cutoff, source=where, **model), draws


def _sparse_data(loss: str):
    """(X, y, feature names, what the data are, default ℓ1 radius B) for the sparse attacker's pair."""
    kind = url_radio("Sparse data", key="atk_ssrc", options=["synthetic", "gdsc", "upload"], horizontal=True,
                     format_func=lambda s: {"synthetic": "synthetic (public seed)", "gdsc": "GDSC genomic features",
                                            "upload": "upload a CSV"}[s])
    if kind == "synthetic":
        c1, c2, c3 = st.columns(3)
        with c1:
            n = int(url_select_slider("Records n", key="atk_sn", options=[200, 500, 1000, 2000], value=500))
        with c2:
            d = int(url_select_slider("Features d", key="atk_sd", options=[20, 50, 100, 200, 500], value=50))
        with c3:
            s_star = int(url_number("True sparsity s*", key="atk_sstar", min_value=1, max_value=min(20, d), value=5))
        data = sp.make_synthetic(n, d, s_star, loss=loss, noise=0.5, rng=np.random.default_rng(0))
        return data.X, data.y, None, f"synthetic n = {n}, d = {d}, s* = {s_star} (seed 0)", float(s_star)
    if kind == "gdsc":
        g = load_gdsc()
        drugs = list(g.ic50.notna().sum().sort_values(ascending=False).index[:20])
        c1, c2 = st.columns([2, 1])
        with c1:
            drug = url_selectbox("Drug (response: ln IC50)", key="atk_sdrug", options=drugs, format_func=g.drug_label)
        with c2:
            d = int(url_select_slider("Genomic features", key="atk_sgd", options=[20, 50, 100, 200], value=50))
        data = sp.gdsc_problem(drug, d, loss=loss)
        label = g.drug_label(drug)
        where = label if label.startswith("GDSC") else f"GDSC {label}"
        return data.X, data.y, data.feature_names, f"{where} (training cell lines)", 10.0
    table = upload_csv("atk_sp_upload", label="Upload a CSV (one row per person; numeric columns)",
                       hint="A numeric response column (0/1 or ±1 labels for the logistic model) and at least two "
                            "numeric feature columns.")
    if table is None:
        return None
    cols = list(table.frame.columns)
    c1, c2 = st.columns([1, 2])
    resp = c1.selectbox("Response column", cols, key="atk_sycol")
    feats = c2.multiselect("Feature columns", [c for c in cols if c != resp],
                           default=[c for c in cols if c != resp][:20], key="atk_sxcols")
    X, y = sp.sparse_from_frame(table.frame, resp, feats, loss=loss)
    return X, y, tuple(feats), "uploaded", 10.0


#: The sparse releases the attacker's pair can be seen through (the page's default first).
SPARSE_RELEASES = {"peel": "peeling + private fit (the default release)", "kt_ps": "KT with private support"}


def sparse_pair(epsilon: float, draws: int) -> tuple[AuditScenario | None, int]:
    """A sparse release (the default, peeling + private fit, or KT with private support), on a data set and the
    same with one record replaced (and the draws the work cap allows)."""
    c1, c2 = st.columns(2)
    with c1:
        release = url_radio("Release", key="atk_srel", options=list(SPARSE_RELEASES), horizontal=True,
                            format_func=SPARSE_RELEASES.get)
    with c2:
        loss = url_radio("Model", key="atk_loss", options=list(sp.LOSSES), horizontal=True,
                         format_func=lambda s: {"linear": "sparse linear regression",
                                                "logistic": "sparse logistic regression"}[s])
    built = _sparse_data(loss)
    if built is None:
        return None, draws
    X, y, names, where, radius = built
    n, d = X.shape
    p = sp.SparseParams(B=radius)
    c1, c2, c3, c4 = st.columns(4)
    with c1:
        index = int(url_number("Record the attacker does not know (row number)", key="atk_rec", min_value=1,
                               max_value=n, value=1, step=1)) - 1
    with c2:
        s = int(url_number("Sparsity s", key="atk_ss", min_value=1, max_value=min(20, d), value=min(5, d)))
    yc = sp.prepare(X, y, loss, p)[1][index]  # the record's clipped response (label ±1 for logistic)
    with c3:
        if loss == "linear":
            alt_y = float(st.number_input(f"Alternative response (public bound r = {p.r:g})", value=-p.r if yc >= 0
                                          else p.r, key="atk_salt"))
        else:
            alt_y = -yc
            st.markdown(f"Alternative label: {alt_y:+g} (flipped)")
    with c4:
        zeroed = st.radio("Alternative features", ["same", "zeroed"], key="atk_sfeat", horizontal=True,
                          format_func={"same": "the same", "zeroed": "all set to 0"}.get) == "zeroed"
    delta = 1.0 / n**2
    alt_x = np.zeros(d) if zeroed else None
    if release == "peel":
        st.caption(literal(f"Data: {where}. Public bounds as on the sparse page: K = {p.K:g}, r = {p.r:g}; "
                           f"δ = 1/n² = {delta:.3g}."))
        draws = _capped(draws, n * (s + 1) * (p.fit_T if loss == "logistic" else 1), SPARSE_WORK, f"{n:,} records")
        # as on the sparse page: its own intercept unless the data carry one (GDSC's '(intercept)' feature)
        return sp.peel_data_scenario(X, y, index=index, alt_y=alt_y, alt_x=alt_x, sparsity=s, epsilon=epsilon,
                                     delta=delta, loss=loss, feature_names=names,
                                     intercept=names is None or "(intercept)" not in names), draws
    st.caption(literal(f"Data: {where}. Public bounds as on the sparse page: K = {p.K:g}, "
                       f"r = {p.r:g}, B = {p.radius():g}; δ = 1/n² = {delta:.3g}; m = n synthetic points."))
    draws = _capped(draws, n * s, SPARSE_WORK, f"{n:,} records")
    return sp.data_scenario(X, y, index=index, alt_y=alt_y, alt_x=alt_x, sparsity=s, epsilon=epsilon, delta=delta,
                            loss=loss, feature_names=names, B=radius), draws


def data_pair(method: str, epsilon: float, draws: int):
    """``(pair or scenario or None, draws)`` built from a data set for ``method`` (None until the data are usable)."""
    if method == "survival":
        return _survival_pair(epsilon), draws
    if method == "regression":
        return _regression_pair(epsilon), draws
    if method == "fdr":
        return fdr_pair(epsilon, draws)
    return sparse_pair(epsilon, draws)
