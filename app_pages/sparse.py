"""Sparse-learning page: DP sparse linear / logistic regression — peeling + private fit (the default release),
knowledge transfer, DP-IGHT, DP Frank–Wolfe and two-stage.

Thin: controls → dpcore.sparse → dpcore.sparse.figures. Public inputs (synthetic data, the bundled GDSC
subset) are cached; uploads are never cached, written or logged.
"""

from __future__ import annotations


import numpy as np
import pandas as pd
import streamlit as st

import ui
from dpcore.core import columns
from dpcore import sparse as sp
from dpcore.sparse import figures as sf
from dpcore.sparse.events import KT_PRIVATE_SUPPORT, PEELING
from dpcore.ledger import fingerprint
from dpcore.core.datasets import GDSC_LEDGER_KEY, GDSC_LEDGER_LABEL, gdsc_persons, load_gdsc
from ui.accuracy import accuracy_first
from ui.exports import code_downloads, release_with_script  # notebook, script
from dpcore.notebooks import SparseConfig
from ui.attacker import attacker_panel  # teaching mode: what ε means for one patient
from ui import private_bounds  # an upload's K and r chosen by a charged DP quantile
from ui.layout import literal
from dpcore.core.utility import describe_draws
from ui.widgets import epsilon_options

LABELS = {"peel": "peeling + private fit", "kt": "knowledge transfer (student)", "nonprivate": "teacher (non-private)", "dp_ight": "DP-IGHT",
          "frank_wolfe": "DP Frank–Wolfe", "two_stage": "two-stage", "kt_ps": "KT with private support"}
SWEEP = np.array([e for e in epsilon_options(0.1, 20.0) if e in (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0)])
MAX_CELLS = 20_000_000  # n·d cap: the data and the synthetic features must fit comfortably in memory
DEFAULT_DRUG = "Drug_1047_IC50"  # Nutlin-3a (MDM2 inhibitor): TP53 status is the known biomarker
EPSILONS = epsilon_options(0.1, 20.0)
DELTAS = ["1/n²", "1e-5", "1e-6", "1e-8"]
REPEATS = [5, 10, 20, 50]
#: uploads with more feature columns preselect this many (named on the page, never silently)
MAX_DEFAULT_FEATURES = 50
#: the methods a release can use: the default first
RELEASES = {"peel": "peeling + private fit (default)", "kt_ps": "KT with private support"}
#: previews up to this n·d·R (about a second) are computed ahead for the next step of each slider
PREFETCH_CELLS = 10_000_000



# --------------------------------------------------------------------------
# Data (public inputs cached)
# --------------------------------------------------------------------------


@ui.public_cache("sparse data", max_entries=8)
def _synthetic(n: int, d: int, s_star: int, loss: str, noise: float, seed: int) -> sp.SparseData:
    return sp.make_synthetic(n, d, s_star, loss=loss, noise=noise, rng=np.random.default_rng(seed))


@ui.public_cache("sparse GDSC", max_entries=16)
def _gdsc(drug: str, d: int, loss: str, threshold: float) -> sp.SparseData:
    return sp.gdsc_problem(drug, d, loss=loss, threshold=threshold)


@st.cache_data(show_spinner=False)
def _drugs() -> dict[str, str]:
    g = load_gdsc()
    counts = g.ic50.notna().sum()
    ids = sorted(g.drugs.DRUG_ID, key=lambda i: (i != DEFAULT_DRUG, -int(counts.get(i, 0))))
    return {i: f"{g.drug_label(i)} — {int(counts.get(i, 0))} cell lines" for i in ids}


def _run_preview(data: sp.SparseData, s: int, eps: float, delta: float, methods: tuple, R: int, seed: int,
                 params: dict):
    """One batched run per method at the chosen ε with R draws: coefficients (R, d) and per-draw metrics."""
    rng = np.random.default_rng(seed)
    Xc, yc = sp.prepare(data.X, data.y, data.loss, sp.SparseParams(**params))
    teacher = sp.teacher_fit(Xc, yc, sparsity=s, lam=0.0, loss=data.loss, p=sp.SparseParams(**params))
    coefs, metrics, noises, intercepts = {"nonprivate": teacher[None]}, {}, {}, {}
    for m in methods:
        if m == "nonprivate":
            continue
        fit = sp.BATCH[m](data.X, data.y, sparsity=s, epsilons=[eps], delta=delta, loss=data.loss, rng=rng,
                          draws=R, **params)
        coefs[m] = fit.coef[0]
        noises[m] = [nz.describe() for nz in fit.noise]
        if "intercept" in fit.details:
            intercepts[m] = fit.details["intercept"][0]
        if m == "kt":
            noises["kt_lambda"] = float(fit.details["lam"][0])
        if m == "peel":
            noises["peel"] = fit.details["plans"][0].describe()
    for m, c in coefs.items():
        metrics[m] = sp.metrics(c, theta=data.theta, X_test=data.X_test, y_test=data.y_test, loss=data.loss,
                                teacher=teacher, intercept=intercepts.get(m))
    return coefs, metrics, noises


def _run_paths(data: sp.SparseData, s: int, eps: float, delta: float, seed: int, params: dict) -> dict:
    """The teacher's and one student's optimisation paths at ε (computed only while their view is open)."""
    return sp.convergence(data, sparsity=s, epsilon=eps, delta=delta, rng=np.random.default_rng(seed + 1), **params)


def _run_sweep(data, s, delta, methods, R, seed, params, progress=None):
    return sp.utility_curve(data, sparsity=s, epsilons=SWEEP, delta=delta, methods=methods, repeats=R,
                            rng=np.random.default_rng(seed + 2), progress=progress, **params)


@ui.public_cache("sparse previews", max_entries=32)
def _preview_public(part: str, key: tuple, s, eps, delta, methods, R, seed, params_items):
    """At one ε on public data: the preview's fits (``part`` "fits") or the convergence paths ("paths")."""
    if part == "paths":
        return _run_paths(_public_data(key), s, eps, delta, seed, dict(params_items))
    return _run_preview(_public_data(key), s, eps, delta, methods, R, seed, dict(params_items))


@ui.public_cache("sparse sweeps", max_entries=16)
def _sweep_public(key: tuple, s, delta, methods, R, seed, params_items):
    return _run_sweep(_public_data(key), s, delta, methods, R, seed, dict(params_items))


def _public_data(key: tuple) -> sp.SparseData:
    return _synthetic(*key[1:]) if key[0] == "synthetic" else _gdsc(*key[1:])


def _delta(choice: str, n: int) -> float:
    return 1.0 / n**2 if choice == "1/n²" else float(choice)


def _prefetch(public_key: tuple, s: int, epsilon: float, delta_choice: str, methods: tuple, R: int, seed: int,
              params_items: tuple, n: int, d: int) -> None:
    """Compute ahead the previews one step away on the ε, δ and repeats sliders (public data only,
    :mod:`ui.prefetch`), so that a slider's first move finds its preview cached: the slider moved last first
    (0.3 s after this run, once the browser has drawn it), the others from 1 s on.

    Seeded like any preview (the same function and arguments), so a preview computed ahead is the one a link shows.
    """
    current = (epsilon, delta_choice, R)
    last = st.session_state.get("_sp_prefetch_last", current)
    st.session_state["_sp_prefetch_last"] = current
    calls = []
    for axis, options in enumerate((EPSILONS, DELTAS, REPEATS)):
        moved = current[axis] != last[axis] or current == last
        for value in ui.steps_around(options, current[axis]):
            eps, choice, draws = (*current[:axis], value, *current[axis + 1:])
            if n * d * draws <= PREFETCH_CELLS:
                calls.append((0.3 if moved else 1.0, lambda e=eps, c=choice, r=draws: _preview_public(
                    "fits", public_key, s, e, _delta(c, n), methods, r, seed, params_items)))
    ui.head_start("sparse previews", sorted(calls, key=lambda call: call[0]))


# --------------------------------------------------------------------------
# Page: the question (data set, drug, s) on top, expert settings folded, then the first screen (ε beside the
# private-vs-non-private coefficients, the answer and the Release button), then everything else
# --------------------------------------------------------------------------

ui.page_header(
    "Sparse regression with differential privacy",
    "Which genomic features predict a drug's response, found with privacy: the private model picks s features and "
    "fits them; the non-private model on the same data is the reference.",
)

SOURCES = {"gdsc": "GDSC cell lines (bundled)", "synthetic": "synthetic (known θ*)", "upload": "upload a CSV"}
q_data, q_drug, q_s = ui.question_row(1.2, 2.2, 1)
with q_data:
    source = ui.url_selectbox("Data set", key="sp_src", options=list(SOURCES), format_func=SOURCES.get)
data_note = st.container()  # one note under the question: where the data come from
upload_slot = st.container()  # an upload's file and columns, under the question
settings_slot = st.container()

data: sp.SparseData | None = None
public_key = None
with settings_slot, ui.settings_group("sp_settings") as settings:
    loss = ui.url_radio("Model", key="sp_loss", options=list(sp.LOSSES), horizontal=True,
                        format_func=lambda s: {"linear": "sparse linear regression",
                                               "logistic": "sparse logistic regression"}[s])
    settings.shows({"linear": "linear", "logistic": "logistic"}[loss])
    if source == "synthetic":
        with q_drug:
            n = int(ui.url_select_slider("Records n", key="sp_n", options=[200, 500, 1000, 2000, 5000, 10000],
                                         value=1000))
        c1, c2, c3 = st.columns(3)
        with c1:
            d = int(ui.url_select_slider("Features d", key="sp_d",
                                         options=[50, 100, 200, 500, 1000, 2000, 5000, 10000], value=500))
        with c2:
            s_star = int(ui.url_number("True sparsity s*", key="sp_sstar", min_value=1, max_value=50, value=5))
        with c3:
            noise_sd = float(ui.url_number("Response noise σ", key="sp_noise", min_value=0.0, max_value=5.0,
                                           value=0.5, step=0.1, disabled=loss == "logistic"))
        settings.shows(f"d = {d}, s* = {s_star}")
        if n * d > MAX_CELLS:
            st.error(f"n·d = {n * d:,} is above this page's limit of {MAX_CELLS:,} (memory for the data and the "
                     "synthetic features); lower n or d.")
            st.stop()
        public_key = ("synthetic", n, d, s_star, loss, noise_sd, 0)
        data = _synthetic(*public_key[1:])
        persons = None  # synthetic records are nobody: the release is recorded and charges nobody
        label, fp = f"synthetic n={n}, d={d}, s*={s_star} ({loss})", fingerprint("synthetic-sparse", *public_key)
        ui.note(into=data_note, markdown="x ~ N(0, I) clipped to [−K, K] with K = 1; θ* has s* entries ±1 at random "
                "positions; " + ("y = xᵀθ* + N(0, σ²)." if loss == "linear" else "P(y = 1) = sigmoid(xᵀθ*).")
                + " 1,000 extra records are held out for the test error.")
    elif source == "gdsc":
        drugs = _drugs()
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
                                            disabled=loss == "linear",
                                            help="Must not come from the private labels (their median is private). "
                                                 "Default: the midpoint of the public response range."))
        settings.shows(f"{d} features" + (f", sensitive below {threshold:g}" if loss == "logistic" else ""))
        public_key = ("gdsc", drug, d, loss, threshold)
        data = _gdsc(*public_key[1:])
        label, fp = f"GDSC {g.drug_label(drug)} ({loss})", fingerprint(GDSC_LEDGER_KEY)
        # every cell line with an IC50 for this drug (the held-out ones too: charged, though the release reads only
        # the training split, which is fixed inside dpcore.sparse.gdsc_problem)
        persons = gdsc_persons(g.drug_cell_lines(drug))
        ui.note(into=data_note, markdown=
            f"{data.X.shape[0]} training / {data.X_test.shape[0]} held-out cell lines · binary mutation / copy-number "
            "features · "
            + (f"response: ln IC50 minus the public centre {(lo + hi) / 2:g}" if loss == "linear" else
               f"label: sensitive (+1) when ln IC50 < {threshold:g}; {np.mean(data.y > 0):.0%} of training cell "
               f"lines are sensitive (always saying 'resistant' errs on {np.mean(data.y_test > 0):.0%} of the "
               "held-out lines)")
            + " · source: GDSC, via gdsctools.")
    else:
        with upload_slot:
            ui.plan_first_link("sparse")  # where a private file is about to be read: the path that fixes settings first
            table = ui.upload_csv("sp_upload", label="Upload a CSV (one row per person; numeric columns)",
                                  hint="Upload a CSV with a response column and at least two numeric feature columns, "
                                       "e.g. `y,g1,g2,g3,…`. Features are clipped to [−K, K] and responses to [−r, r] "
                                       "(public bounds you set under Settings); for the logistic model the response "
                                       "is a 0/1 label or is thresholded at a public value.")
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
                st.info(f"The file has {len(candidates):,} candidate feature columns; the first {MAX_DEFAULT_FEATURES} "
                        f"(in file order) are preselected to keep previews fast. Add or remove columns under 'Feature "
                        "columns'; every method sees exactly the columns listed there.", icon=":material/info:")
        thr_text = st.text_input("Public threshold for a continuous response (logistic; blank = 0/1 labels)",
                                 key="sp_uthr", disabled=loss == "linear")
        with upload_slot, ui.show_errors("The uploaded file cannot be used"):
            thr = None
            if loss == "logistic" and thr_text.strip():
                try:
                    thr = float(thr_text)
                except ValueError:
                    raise ValueError(f"The public threshold {thr_text.strip()!r} is not a number.") from None
            X, y = sp.sparse_from_frame(frame, response, feats, loss=loss, threshold=thr)
            tr, te = sp.upload_split(len(y))
            data = sp.SparseData(X[tr], y[tr], X[te], y[te], None, loss, name, tuple(feats))
            persons = table.persons.subset(tr)
            label = f"{name} (uploaded)"
        if data is None:
            st.stop()

    n, d = data.X.shape
    c1, c2, c3 = st.columns(3)
    limits = (0.1, 100.0)  # K's and r's public range (a private choice picks inside it)
    with c1:
        K = float(ui.url_number("Feature bound K (|x| ≤ K)", key="sp_K", min_value=limits[0], max_value=limits[1],
                                value=1.0))
    with c2:
        r = float(ui.url_number("Response bound r (|y| ≤ r)", key="sp_r", min_value=limits[0], max_value=limits[1],
                                value=5.0, disabled=loss == "logistic"))
    with c3:
        B_default = float(public_key[3]) if source == "synthetic" else 10.0
        ui.follow_default("sp_B", B_default)
        B = float(ui.url_number("ℓ1 radius B of the coefficients", key="sp_B", min_value=0.1, max_value=1000.0,
                                value=B_default,
                                help="Public bound ‖θ‖1 ≤ B; every iterate is rescaled into this ball. It sets the "
                                     "gradient bound γ = K(KB + r) that all methods' noise grows with."))
    settings.shows(f"K = {K:g}" + ("" if loss == "logistic" else f", r = {r:g}") + f", B = {B:g}")
    if source == "upload":  # K and r chosen from the rows by a charged DP quantile (custodians)
        private_bounds.private_sparse_bounds("sp", X=data.X, y=data.y, response=loss == "linear", fingerprint=fp,
                                             label=label, persons=persons, bound_keys=("sp_K", "sp_r"), limits=limits)
    release_variant = ui.url_radio("What the Release button releases", key="sp_release", options=list(RELEASES),
                                   format_func=RELEASES.get, horizontal=True,
                                   help="Peeling + private fit finds the support at the ε users accept "
                                        "(docs/sparse.md); KT with private support stays available as a comparison.")
    settings.shows(LABELS[release_variant])
    # full width: six method names do not fit as chips in a third of the page
    methods = tuple(ui.url_multiselect("Methods compared in the other views", key="sp_methods",
                                       options=list(sp.METHODS), default=list(sp.METHODS),
                                       format_func=lambda m: LABELS[m]))
    settings.shows(f"{len(methods)} methods compared")
    st.markdown("**Constants of the compared methods (public)**")
    a1, a2, a3 = st.columns(3)
    with a1:
        lam_rule = ui.url_radio("Teacher's ridge λ", key="sp_lamrule", options=list(sp.LAMBDA_RULES),
                                format_func=sp.LAMBDA_RULES.get,
                                help="u(ε, δ) is the Gaussian noise per unit of sensitivity; it shrinks as ε grows. "
                                     "Under the paper's rule the knowledge-transfer noise stays the same at any ε.")
        c_lam = float(ui.url_number("Constant c_λ (balanced rule)", key="sp_clam", min_value=1e-3, max_value=1e6,
                                    value=sp.SparseParams.c_lam, format="%g", disabled=lam_rule != "balanced"))
        c1_const = float(ui.url_number("Constant c1 (paper's rule)", key="sp_c1", min_value=1e-3,
                                       max_value=1e6, value=sp.SparseParams.c1, format="%g",
                                       disabled=lam_rule != "paper"))
    with a2:
        T2 = int(ui.url_number("Student steps T2", key="sp_T2", min_value=5, max_value=500, value=60))
        dp_T = int(ui.url_number("DP-IGHT steps T", key="sp_dpT", min_value=2, max_value=200, value=30))
    with a3:
        m_default = min(max(n, 50), 20_000)  # m = n, inside the widget's range
        ui.follow_default("sp_m", m_default)
        m_syn = int(ui.url_number("Synthetic points m", key="sp_m", min_value=50, max_value=20_000, value=m_default,
                                  help="The student's error hardly depends on m: σ grows like √m."))

ui.set_current_dataset(label, fp)
records = ui.records_read([data.y], exchangeable=data.X) if source == "upload" else None  # outside the ε fragment
with q_s:
    s_default = min(int(public_key[3]) if source == "synthetic" else 5, d)
    ui.follow_default("sp_s", s_default)
    s = int(ui.url_number("Features kept s", key="sp_s", min_value=1, max_value=min(100, d), value=s_default,
                          help="Sparsity: how many coefficients each model keeps (the rest are 0)."))
if not methods:
    st.warning("Choose at least one method under Settings.")
    st.stop()
if m_syn * d > MAX_CELLS:
    st.error(f"m·d = {m_syn * d:,} synthetic feature values is above the limit {MAX_CELLS:,}; lower m.")
    st.stop()
# peeling fits its own unpenalised intercept unless the data already carry one (GDSC's '(intercept)' feature)
params = dict(K=K, r=r, B=B, lam_rule=lam_rule, c_lam=c_lam, c1=c1_const, T2=T2, dp_T=dp_T, m=m_syn,
              intercept="(intercept)" not in data.feature_names)
params_items = tuple(sorted(params.items()))
fitted = tuple(dict.fromkeys((*methods, release_variant)))  # the methods compared, and always the one released
clipped_share, clipped_cols = sp.clipping_report(np.vstack([data.X, data.X_test]), K,
                                                 data.feature_names or [f"x{j + 1}" for j in range(d)])
if clipped_cols:
    worst = ", ".join(f"{literal(c)} (up to {v:,.4g})" for c, v in clipped_cols[:5])
    st.warning(
        f"{clipped_share:.1%} of the feature values lie outside the public bound [−K, K] = [−{K:g}, {K:g}] and are "
        f"clipped to it, in {len(clipped_cols)} of {d} features: {worst}{' …' if len(clipped_cols) > 5 else ''}. "
        "Clipping that much distorts every method. Standardise each feature with public ranges before uploading — "
        "(x − public centre)/(public half-range), from domain knowledge, never from these data — or raise K "
        "(all noise grows with K).", icon=":material/content_cut:")

#: the views of the live part; only the open one is computed and drawn (fixed labels: they render as Markdown)
VIEWS = ["Coefficients", "Utility over the draws", "Convergence", "Privacy–utility over ε"]


KT_CAVEAT = (
    "**Caveat found by our audit (the paper's knowledge transfer, shown here for comparison).** Assumption (1) of "
    "its proof fails for the hard-thresholded teacher: when one record tips which features the teacher keeps, the "
    "teacher jumps by O(1), not O(1/n). On such a neighbouring pair the audit (Privacy audit page; "
    "`dpcore.sparse.known_violation_scenarios`) shows ε ≥ 9 for a claimed ε = 1 — all that 10⁵ runs can show; the "
    "true privacy loss on that pair is ε ≈ 690. The knowledge-transfer guarantee therefore holds only when the "
    "teacher's support is stable under any one-record change, which no public check here can certify. The default "
    "release (**peeling + private fit**), DP-IGHT, Frank–Wolfe, two-stage and **KT with private support** do not "
    "rely on that assumption.")


def _kt_caveat() -> None:
    """The caveat of the paper's knowledge transfer, beside results that show it (never about the release)."""
    if "kt" in methods:
        st.warning(KT_CAVEAT, icon=":material/warning:")


def _coefficients_view(coefs: dict) -> None:
    """The first screen's figure: the released model's coefficients (one preview draw) against the non-private
    model's (and the true ones for synthetic data)."""
    ui.live_chart(sf.release_stem_figure(coefs["nonprivate"][0], coefs[release_variant][0], variant=release_variant,
                                         theta=data.theta, feature_names=data.feature_names or None,
                                         height=ui.FIGURE_HEIGHT), key="sp_stem")  # real data: no θ* to show
    ui.teaching(
        "Each stem is one coefficient; only features that one of the models kept are shown. A dot marks a "
        "coefficient a model kept (its s features); outside them a model's coefficient is 0 and has no stem. "
        "Peeling + private fit (the release) picks s features from noisy scores of all records, then fits them from "
        "noisy sums. The other methods (knowledge transfer, DP-IGHT, Frank–Wolfe, two-stage) are compared in the "
        "other views."
    )


def _answer(coefs: dict, metrics: dict, epsilon: float, R: int) -> None:
    """The one line to take away: held-out error private vs non-private, and whether the private model keeps the
    non-private model's features, over the R simulated releases."""
    private, teacher = coefs[release_variant], coefs["nonprivate"][0]
    kept = teacher != 0
    shared = (private[:, kept] != 0).sum(axis=1)
    same = int(np.all((private != 0) == kept, axis=1).sum())
    errors, reference = np.asarray(metrics[release_variant]["test_error"]), float(metrics["nonprivate"]["test_error"][0])
    shown = (lambda v: f"{v:.0%}") if loss == "logistic" else (lambda v: f"{v:.3g}")
    lo, hi = np.quantile(errors, [0.1, 0.9])
    ui.answer(
        "Held-out lines misclassified" if loss == "logistic" else "Held-out prediction error (MSE)",
        f"{shown(errors.mean())} ({shown(lo)}–{shown(hi)})", shown(reference),
        verdict=f"It keeps {shared.mean():.1f} of the non-private model's {int(kept.sum())} features on average "
                f"(all {int(kept.sum())} in {same} of {R} simulated releases).")


def _draws_view(metrics: dict, epsilon: float, R: int) -> None:
    st.header(f"Utility over {R} noise draws at ε = {epsilon:g}")
    rows = []
    for m in ("nonprivate",) + tuple(x for x in sp.METHODS if x != "nonprivate"):
        if m not in metrics or m not in methods + ("nonprivate",):
            continue
        row = {"method": LABELS[m]}
        for key, title in [("l2_error", "‖θ − θ*‖₂"), ("f1", "support F1"), ("test_error", "test MSE" if loss == "linear"
                                                                                 else "misclassification"),
                           ("teacher_overlap", "overlap with teacher (F1)")]:
            if key in metrics[m]:
                v = np.asarray(metrics[m][key], dtype=float)
                row[title] = f"{v.mean():.3g}  [{np.quantile(v, 0.1):.3g}, {np.quantile(v, 0.9):.3g}]"
        rows.append(row)
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption("Mean and 10–90 % range over the preview draws (the teacher is deterministic). "
               + ("θ* is known for synthetic data." if data.theta is not None else
                  "No true θ* for real data: compare the test error and the overlap of each support with the teacher's."))
    _kt_caveat()


def _convergence_view(epsilon: float, delta: float, seed: int) -> None:
    paths = None
    with ui.show_errors("Could not fit"):
        if public_key is not None:
            paths = _preview_public("paths", public_key, s, epsilon, delta, methods, 0, seed, params_items)
        else:
            paths = _run_paths(data, s, epsilon, delta, seed, params)
    if paths is None:
        return
    ui.chart(sf.convergence_figure(paths), key="sp_conv")
    st.markdown("**Convergence.** Both the teacher and the student are IGHT runs: a gradient step, then keep the s "
                "largest coefficients. On a log axis, linear convergence is a straight line. The dotted line is the "
                "student's distance to the teacher: it levels off at the error the privacy noise leaves.")
    ui.teaching("The teacher runs on the private data (no noise). The student runs on public synthetic features "
                "and the noisy teacher answers; everything it does is post-processing and costs no extra privacy.")


def _sweep_view(delta: float, R: int, seed: int) -> None:
    """The privacy–utility curves over the ε grid: independent of the chosen ε (a move of ε leaves them as drawn)."""
    sweep_key = ("sweep", public_key, s, delta, methods, R, seed, params_items)
    curve = None
    # automatic only while it takes about a second (cost grows with n·d·R, and with s² for the two-stage fits);
    # larger sweeps wait for the button so that moving a control never blocks for long
    if public_key is not None and n * d * R <= 5_000_000 and s <= 20:
        with st.spinner("Sweeping ε for every method…"):
            curve = _sweep_public(public_key, s, delta, methods, R, seed, params_items)
    elif st.session_state.get("_sp_sweep_key") == (sweep_key if public_key is not None else (fp, sweep_key)):
        curve = st.session_state["_sp_sweep"]
    else:
        st.caption(f"{len(SWEEP)} values of ε × {R} draws × {len(methods)} methods on n·d = {n * d:,}: press to run.")
        if st.button("Compute the curves", key="sp_sweep_btn"):
            bar = st.progress(0.0, text="Running every method over the ε grid…")
            with ui.show_errors("Sweep failed"):
                if public_key is not None:
                    curve = _sweep_public(public_key, s, delta, methods, R, seed, params_items)
                else:
                    curve = _run_sweep(data, s, delta, methods, R, seed, params,
                                       progress=lambda f: bar.progress(f, text=f"{f:.0%} of the methods done"))
                st.session_state["_sp_sweep_key"] = sweep_key if public_key is not None else (fp, sweep_key)
                st.session_state["_sp_sweep"] = curve
            bar.empty()
    if curve is None:
        return
    err_metric = "l2_error" if data.theta is not None else "test_error"
    err_title = {"l2_error": "estimation error ‖θ − θ*‖₂",
                 "test_error": "test MSE" if loss == "linear" else "misclassification rate"}[err_metric]
    sup_metric = "f1" if data.theta is not None else "teacher_overlap"
    sup_title = "support F1 vs θ*" if data.theta is not None else "support overlap with the teacher (F1)"
    left, right = st.columns(2)
    with left:
        ui.chart(sf.utility_figure(curve, err_metric, labels=LABELS, y_title=err_title), key="sp_err")
    with right:
        ui.chart(sf.utility_figure(curve, sup_metric, labels=LABELS, y_title=sup_title), key="sp_f1")
    _kt_caveat()
    st.caption(f"Lines: mean over {R} draws; bands: 10–90 %. The dotted line is the non-private teacher (no ε). "
               "These curves do not depend on the chosen ε: moving ε leaves them as they are.")
    st.info("As ε grows, every method approaches its own noise-free version, not necessarily the teacher. "
            "Peeling + private fit scores every feature on all n records, so it finds the support at far smaller ε "
            "than methods that vote over blocks. "
            "Frank–Wolfe takes T = max(s, 10) steps and can add only one coordinate per step, so even without noise "
            "it finds only part of the support. Two-stage and KT with private support choose the support by "
            "votes of LASSO fits on blocks of about √n records; even without noise those votes can miss true "
            "features (logistic loss especially). Those curves flatten below the teacher's.",
            icon=":material/info:")
    headline = next((m for m in ("peel", "kt") if m in curve.methods), None)
    if headline is not None:
        accuracy_first(key="sp_acc", grid=curve.epsilons, draws=curve.values[headline][err_metric],
                       metric_label=f"{err_title} of {LABELS[headline]}",
                       default_threshold=float(np.round(np.median(curve.values[headline][err_metric]), 2)),
                       basis=label)


def _notebook_source() -> dict:
    """The data source's public settings for the notebook (an upload: its column choices, never its data)."""
    if source == "synthetic":
        return dict(zip(("n", "d", "s_star", "noise_sd", "data_seed"), public_key[1:4] + public_key[5:]))
    if source == "gdsc":
        return dict(drug=public_key[1], d=public_key[2], threshold=public_key[4])
    return dict(response=st.session_state.get("sp_ycol"), features=tuple(data.feature_names), threshold=thr)


def _noise_label() -> str:
    """The folded preview settings' label, with their values (as the last run left them, or a link's)."""
    def value(key: str, default) -> str:
        return str(st.session_state.get(key, st.query_params.get(key, default)))
    return literal(f"Preview noise: δ = {value('sp_delta', '1/n²')} · {value('sp_R', 10)} draws · "
                   f"seed {value('sp_seed', 0)}")


@ui.live_fragment
def _live() -> None:
    """Everything that depends on ε, δ, the repeats or the preview seed: moving one of them reruns only this, and
    of its views only the open one is computed and drawn. The first screen: ε, the answer and the Release button
    beside the figure, so a move of ε redraws the figure where the reader is looking."""
    controls, figure = ui.first_screen()
    with controls:
        epsilon = ui.epsilon_slider("Privacy budget ε", key="eps", default=2.0, min_value=0.1, max_value=20.0)
        answer_slot = st.container()
        with st.expander(_noise_label(), key="sp_noise_box"):
            delta_choice = ui.url_select_slider("δ", key="sp_delta", options=DELTAS, value="1/n²")
            R = int(ui.url_select_slider("Repeats (noise draws)", key="sp_R", options=REPEATS, value=10))
            seed = int(ui.url_number("Preview seed", key="sp_seed", min_value=0, max_value=10_000, value=0, step=1,
                                     help="Seeds the preview only; a release is seeded by the operating system."))
        delta = _delta(delta_choice, n)
    result = None
    with figure, ui.show_errors("Could not fit"):
        with st.spinner("Fitting…"):
            if public_key is not None:
                result = _preview_public("fits", public_key, s, epsilon, delta, fitted, R, seed, params_items)
            else:
                result = _run_preview(data, s, epsilon, delta, fitted, R, seed, params)
    if result is None:
        return
    coefs, metrics, noises = result
    with answer_slot:
        _answer(coefs, metrics, epsilon, R)
    with figure:
        coef_tab, draws_tab, conv_tab, sweep_tab = ui.view_switch(VIEWS, key="sp_view")
        with coef_tab:
            if coef_tab.open:
                _coefficients_view(coefs)
        with draws_tab:
            if draws_tab.open:
                _draws_view(metrics, epsilon, R)
        with conv_tab:
            if conv_tab.open:
                _convergence_view(epsilon, delta, seed)
        with sweep_tab:
            if sweep_tab.open:
                _sweep_view(delta, R, seed)

    if release_variant == "peel":
        method_name, parts = PEELING, sp.peel_parts(epsilon)
        release_params = {"variant": "peeling", "loss": loss, "sparsity": s, "K": K, "r": r,
                          "intercept": params["intercept"], "select_share": 0.5}
    else:
        method_name = KT_PRIVATE_SUPPORT
        parts = {"support selection (Laplace)": epsilon / 2, "synthetic responses (Gaussian)": epsilon / 2}
        release_params = {"variant": "private_support", "loss": loss, "sparsity": s, "K": K, "r": r, "B": B,
                          "m": m_syn, "lambda": sp.SparseParams(**params).ridge(n, d, s, epsilon / 2, delta, loss),
                          "T2": T2, "synthetic_seed": sp.DEFAULT_SYNTHETIC_SEED}
    released = metrics.get(release_variant, {})
    utility_note = ("; ".join(f"{name} {describe_draws(released[key])}"
                              for key, name in (("l2_error", "‖θ − θ*‖₂"), ("f1", "support F1"), ("test_error", "test error"))
                              if key in released)
                    + f" — over {R} simulated releases of {RELEASES[release_variant]} at ε = {epsilon:g}."
                    if released else "")
    config = SparseConfig(source=source, loss=loss, sparsity=s, epsilon=epsilon, delta=delta, seed=seed, repeats=R,
                          methods=fitted, variant=release_variant, params=params, sweep=tuple(SWEEP), **_notebook_source())
    ui.release_panel(  # the button beside the figure, what a release costs and reads under the first screen
        key="sparse", dataset_label=label, fingerprint=fp, utility_note=utility_note,
        persons=persons, records=records,
        ledger_label=GDSC_LEDGER_LABEL if source == "gdsc" else None, simulated=source == "synthetic",
        method=method_name,
        epsilon=epsilon, delta=delta, parts=parts,
        params=release_params, button_at=controls,
        make_bundle=lambda: release_with_script(sp.release_sparse(
            data.X, data.y, sparsity=s, epsilon=epsilon, delta=delta, loss=loss, dataset=label, fingerprint=fp,
            feature_names=data.feature_names or None,
            variant="peeling" if release_variant == "peel" else "private_support", **params), config),
    )

    noised = []
    if "peel" in noises:
        noised.append("**What is noised (peeling + private fit):** " + "; ".join(noises["peel"]) + ". Every record "
                      "counts in every score; the fit reads only the peeled features"
                      + (" and an intercept." if params["intercept"] else "."))
    if "kt" in noises:
        noised.append(f"**What is noised (knowledge transfer):** the teacher's answers ⟨θ̂, x̃_i⟩ on m = {m_syn} "
                      f"public synthetic points x̃_i ~ Uniform[−K, K]^d get {noises['kt'][0]}; the teacher's ridge "
                      f"λ = {noises['kt_lambda']:.3g}. The student only ever sees those noisy answers.")
    if noised:
        st.markdown("\n\n".join(noised))  # one element: it is resent on every move of ε
    code_downloads(config)
    attacker_panel("sparse", epsilon, delta)
    if public_key is not None:
        _prefetch(public_key, s, epsilon, delta_choice, fitted, R, seed, params_items, n, d)


# ---- the first screen, then what the page shows and how it works (static: outside the live part) ---------------
_live()
ui.preview_notice("One view at a time: only the open view is computed, and moving ε, δ or the repeats redraws "
                  "just that view.")
ui.what_this_page_shows(
    "**The question.** Which of the genomic features predict a drug's response (ln IC50), and how well — found "
    "with differential privacy, so that the result does not reveal any one cell line (or, on your own data, any "
    "one person). The **non-private model** is ordinary sparse regression on the same data: the answer privacy "
    "costs you something against.\n\n"
    "**The figure.** One simulated private release at the chosen ε beside the non-private model: each stem is a "
    "coefficient of a feature one of them kept (a dot marks it). Small ε: the private model often keeps other "
    "features than the non-private one, with noisy coefficients; large ε: it keeps the same ones.\n\n"
    "**The answer line.** The error on held-out cell lines (or records) the models never saw, over the simulated "
    "releases (mean and 10–90 % range), and how many of the non-private model's features the private one keeps.\n\n"
    "**The release** (peeling + private fit) picks the s most informative features from scores that every record "
    "contributes to (Gumbel noise: the exponential mechanism s times), then fits them with Gaussian noise. The "
    "other views compare it with knowledge transfer (Wang & Gu, AAAI 2020), DP-IGHT, DP Frank–Wolfe and "
    "two-stage.\n\n"
    f"**Unit of privacy:** one person / cell line (replace-one neighbours; n = {n} is public)."
    + (f"\n\n**Data:** {g.provenance['source']}." if source == "gdsc" else ""))

ui.explain(
    "**Why a teacher and a student?** DP-IGHT and Frank–Wolfe add noise at every one of their T training steps, "
    "and the budget is shared among the steps. Here the private data are touched once, by the teacher, and "
    "the privacy cost is paid once, on the teacher's answers to m public questions.\n\n"
    "**What the synthetic features are.** x̃_i are drawn uniformly from [−K, K]^d with a public seed, without "
    "looking at the data; anyone can regenerate them. Only the noisy responses ⟨θ̂, x̃_i⟩ + ξ_i depend on the "
    "private data.\n\n"
    "**How much noise.** σ² = 8·m·β·s·γ²·log(2.5/δ)/(n²ε²λ²) with β = K²/3 and γ = K(KB + r) (linear) or K "
    "(logistic). λ is the teacher's ridge: a larger λ makes the teacher more stable (less noise) but more "
    "shrunk towards 0 (more bias). The paper sets λ ∝ 1/(nε), which makes σ the same at every ε: more budget "
    "never brings the student closer to the teacher. The default balances the two, λ ∝ √(u(ε, δ)/n) with "
    "u(ε, δ) the noise per unit of sensitivity, so both the shrinkage and the noise vanish as ε grows.\n\n"
    "**Which assumptions the privacy proof makes.** (1) The teacher moves by at most 2√s·γ/(nλ) when one record "
    "changes — true for the minimiser of a λ-strongly convex problem on a fixed support; (2) the public synthetic "
    "features do not stretch that change by more than √(mβ) (an event of probability ≥ 1 − δ/2, hence half of δ); "
    "(3) the textbook Gaussian σ, which we replace by the exact (analytic) σ whenever that is larger (ε > 1).",
    title="How knowledge transfer works, and what its guarantee assumes",
)

# ---- what a release exports (static) ---------------------------------------------------------------------
st.caption("Peeling + private fit (default) or KT with private support can be released; the paper's knowledge "
           "transfer cannot: it fails the audit (docs/sparse.md; the caveat is shown with its results).")
st.caption("Peeling exports the peeled features in order, the coefficients with the intercept, and the noisy "
           "statistics they were computed from (ZᵀZ and Zᵀy, or the noisy gradients); KT with private support exports "
           f"the student's coefficients, the m = {m_syn} noisy synthetic responses and the noisy votes. Never the data.")
ui.explain(
    "**Scores.** For every feature j, u_j = |Σ_i x_ij·y_i|/n on the clipped data (|x| ≤ K; |y| ≤ r, or labels "
    "±1). Replacing one record moves every score by at most 2Kr/n (2K/n for labels) — all of them at once.\n\n"
    "**Peeling.** Gumbel noise on every score, keep the s largest: the same as running the exponential mechanism s "
    "times, removing each winner (Durfee & Rogers 2019; Cai, Wang & Zhang 2021). The s selections are composed in "
    "zero-concentrated DP (ρ = s·Δ²/(2β²)), with half of the budget.\n\n"
    "**Fit on the peeled features** with the other half: linear — Gaussian noise on ZᵀZ and Zᵀy with z = (1, x_S) "
    "(sensitivities √2·(1 + sK²) and 2r·√(1 + sK²)), then least squares with the ridge read off the noisy matrix "
    "(AdaSSP); logistic — 30 gradient steps, Gaussian noise on each mean gradient (sensitivity 2√(1 + sK²)/n). "
    "The total ρ is converted to (ε, δ) by ε = ρ + 2√(ρ ln(1/δ)). Every noise scale depends on n, s, K, r, ε and "
    "δ only. The audit page checks it on a record that tips the selection and on records at every bound.",
    title="How peeling + private fit works (the default release)",
)
ui.explain(
    "**KT with private support** spends half of ε choosing the s features by noisy block votes (as two-stage "
    "does), then fits the teacher as a ridge regression on that now-public support — a λ-strongly convex problem, "
    "so the paper's sensitivity argument holds — and computes the sensitivity of X̃_Sθ̂ exactly with the largest "
    "singular value of X̃_S (no probabilistic event). The other half of ε (and δ) pays for the Gaussian noise on "
    "the synthetic responses. The audit page's 'support flip' pair, which breaks the paper's version, passes.",
    title="How the private-support variant fixes the caveat",
)
