"""Drug-sensitivity page: robust private Bayesian linear regression (Honkela et al. 2018).

Thin: controls → dpcore.regression* → dpcore.regression.figures. Bundled GDSC and synthetic data are
public, so their sweeps are cached; uploads are never cached, written or logged (their sweeps live in
this session's state only).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np
import streamlit as st

import ui
from dpcore.core import columns
from dpcore import regression as R
from dpcore.regression import figures as rf
from dpcore.ledger import Persons, fingerprint
from dpcore.core.datasets import GDSC_LEDGER_KEY, GDSC_LEDGER_LABEL, gdsc_persons, load_gdsc
from dpcore.regression.evaluation import equivalent_sample_size, monte_carlo_cv, preview_fit, tuned_omegas
from dpcore.regression.tuning import ThresholdSearch, split_grid, split_search, threshold_search
from ui.accuracy import accuracy_first
from ui.exports import code_downloads, release_with_script  # notebook, script
from dpcore.notebooks import RegressionConfig
from ui.widgets import epsilon_options, set_control
from ui.attacker import attacker_panel  # teaching mode: what ε means for one patient
from ui import private_bounds  # an upload's ranges chosen by a charged DP quantile
from dpcore.core.utility import describe_draws

EPS_SWEEP = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
OMEGAS = [float(v) for v in R.OMEGA_GRID]
REPEATS = [5, 10, 20, 50]  # CV repeats offered
MIN_RECORDS = 60  # 20 held out for testing, > 20 for private training (a slider), room for both to move
MAX_UPLOAD_FEATURES = 64  # an upload's default features: every other column, up to this many
#: The bundled drug and number of features the page opens on: those whose non-private model predicts held-out cell
#: lines best among the bundled drugs (held-out R² 0.31, ρ 0.31 over 8 random splits), chosen on the bundled public
#: data so that moving ε has an answer worth approaching (docs/regression.md).
DEFAULT_DRUG = "Drug_1373_IC50"
DEFAULT_FEATURES = 48


@dataclass(frozen=True)
class Source:
    label: str
    fp: str
    X: np.ndarray
    y: np.ndarray
    names: tuple[str, ...]
    x_bounds: tuple[float, float]
    y_bounds: tuple[float, float]
    x_centre: object  # "public" midpoint, or a public number
    y_label: str
    kind: str  # "gdsc" | "synthetic" | "upload"
    key: tuple  # public description for caches (never the data of an upload)
    ids: tuple[str, ...]  # how a record is named in the release notes
    public: np.ndarray  # bool per record: public (added without noise, not protected)
    public_basis: str  # why those records are public
    beta: np.ndarray | None = None
    unit: str = "one cell line"  # the unit of privacy shown on the page
    blocked: str | None = None  # why a release is not offered yet (an upload's unconfirmed ranges or unnamed unit)
    persons: Persons | None = None  # who each record is, for the privacy ledger (None: synthetic, nobody)

    def public_rows(self) -> R.PublicRows:
        return R.PublicRows(self.X[self.public], self.y[self.public],
                            tuple(np.asarray(self.ids)[self.public]), self.public_basis)


@st.cache_data(show_spinner=False, max_entries=32)
def _drug_options() -> tuple[list[str], dict[str, str]]:
    g = load_gdsc()
    counts = g.ic50.notna().sum()
    ids = list(counts.sort_values(ascending=False).index)
    return ids, {i: f"{g.drug_label(i)} — {int(counts[i])} cell lines" for i in ids}


def _gdsc(drug: str, d: int, k: int) -> Source:
    g = load_gdsc()
    X, y = g.drug_data(drug, d)
    names = tuple(g.features.columns[:d])
    cells = g.drug_cell_lines(drug)
    public = np.isin(cells, R.fixed_public_ids(g.features.index, k))
    basis = (f"the fixed public rule: the first {k} of all {len(g.features)} bundled cell lines in a permutation "
             f"of their COSMIC IDs seeded with {R.PUBLIC_RULE_SEED}, whatever the drug; those with a measured IC50 "
             "for this drug")
    return Source(f"GDSC: {g.drug_label(drug)} (bundled)", fingerprint(GDSC_LEDGER_KEY), X, y, names,
                  (0.0, 1.0), tuple(g.response_range), "public", "observed ln IC50", "gdsc", ("gdsc", drug, d, k),
                  tuple(f"COSMIC {c}" for c in cells), public, basis, persons=gdsc_persons(cells))


def _synthetic(n: int, d: int, noise: float, seed: int, k: int) -> Source:
    rng = np.random.default_rng(seed)
    X = R.normalise_rows(rng.standard_normal((n, d)))
    beta = rng.standard_normal(d) * 2.0
    y = X @ beta + noise * rng.standard_normal(n)
    bound = float(2.0 * np.sqrt(d) + 4.0 * noise + 1.0)  # public: known from the generator's parameters
    public = np.isin(np.arange(n), R.fixed_public_ids(np.arange(n), k))
    basis = f"the fixed public rule: the first {k} record numbers in a permutation seeded with {R.PUBLIC_RULE_SEED}"
    return Source(f"Synthetic (n = {n}, d = {d}, noise sd {noise:g}, seed {seed})",
                  fingerprint("synthetic-regression", n, d, noise, seed), X, y,
                  tuple(f"x{j + 1}" for j in range(d)), (-1.0, 1.0), (-bound, bound), 0.0, "observed y", "synthetic",
                  ("synthetic", n, d, noise, seed, k), tuple(f"record {i + 1}" for i in range(n)), public, basis, beta,
                  unit="one record")


def _ranges_key(feats, lo: float, hi: float) -> str:
    """The ranges table's key: a new feature list or default rule starts a new table (edits of the old one dropped)."""
    return "rg_xranges_" + hashlib.sha256(repr((list(feats), float(lo), float(hi))).encode()).hexdigest()[:16]


def _upload() -> Source | None:
    table = ui.upload_csv("rg_upload", label="Upload a CSV (one row per cell line / person)",
                          hint="Upload a CSV with one numeric response column and numeric feature columns, e.g. "
                               "`ln_ic50,TP53,KRAS,…`. You then choose the columns and the public ranges.")
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
    default_feats = others[:MAX_UPLOAD_FEATURES]
    # a new response: every other column is a feature again (the old response among them), none dropped silently
    ui.reset_when_changed("_rg_upload_response", (tuple(cols), resp), dict(rg_xcols=default_feats))
    with c2:
        feats = ui.url_multiselect("Feature columns", key="rg_xcols", options=others, default=default_feats)
        used, offered = len(feats), len(others)
        st.caption(f"{used} of {offered} other columns used as features: " + ui.literal(", ".join(feats) or "none")
                   + (f" (at most {MAX_UPLOAD_FEATURES} by default: the statistics grow as d²)"
                      if offered > MAX_UPLOAD_FEATURES else ""))
    with c7:
        mark = st.selectbox("Public-rows column (optional)", [None] + [c for c in cols if c != resp and c not in feats],
                            key="rg_pubcol", format_func=lambda c: "none: every row is private" if c is None else c,
                            help="A 0/1 column: 1 marks a row whose data are already public. Those rows enter the "
                                 "release without noise and are not protected; the guarantee rests on your statement.")
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
    confirmed = st.checkbox("These ranges come from domain knowledge (e.g. the assay's measurable range, clinical "
                            "limits), not from this file", key="rg_ranges_ok")
    st.caption("They set the public centres and scales; values outside are clipped. The page fills them from the data "
               "only by a charged private choice (below): a release needs the box ticked, or that choice's ranges, and "
               "the unit of privacy named.")
    with ui.show_errors("The uploaded file cannot be used"):
        if not yhi > ylo:
            raise ValueError("The public response maximum must be larger than its minimum.")
        x_bounds = R.feature_ranges(ranges, feats) if feats else (xlo, xhi)
        X, y, public = R.regression_from_frame(frame, response=resp, features=feats, public=mark,
                                               min_rows=MIN_RECORDS)
        private_bounds.private_ranges("rg", X=X, y=y, response=resp, features=feats, fingerprint=fp, label=f"{name} "
                                      "(uploaded)", persons=table.persons, table_key=table_key,
                                      response_keys=("rg_ylo", "rg_yhi"), outer=(ylo, yhi, xlo, xhi))
        confirmed = confirmed or private_bounds.in_force("rg", fp, resp, feats, (ylo, yhi), x_bounds)
        missing = [what for what, ok in (("name the unit of privacy", unit), ("confirm the public ranges", confirmed))
                   if not ok]
        return Source(f"{name} (uploaded)", fp, X, y, tuple(feats), x_bounds, (ylo, yhi), "public",
                      f"observed {resp}", "upload", ("upload",), tuple(f"row {i + 2}" for i in range(len(y))),
                      public, f"marked 1 in column {mark!r} by the user" if mark else "",
                      unit=f"one {unit}" if unit else "one row (not named yet)", persons=table.persons,
                      blocked=("Before a release, " + " and ".join(missing) + " (above the charts).") if missing else None)
    return None


# ---- cached sweeps (public inputs only) ----------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=64)
def _quick_search(n: int, d: int, eps: float, split: tuple) -> ThresholdSearch:
    return threshold_search(n, d, epsilon=eps, split=split, n_sets=5, n_draws=5)


def _omegas(n, d, e, sp):
    return tuned_omegas(int(n), int(d), float(e), tuple(sp), 5, 5)


def _warm_neighbours(n: int, d: int, epsilon: float, split: tuple, share: float) -> None:
    """Tune (ωx, ωy) for the ε steps either side of ``epsilon`` ahead of time (public inputs only: n, d, ε, the
    split; the same process-wide cache as :func:`_omegas`), so that moving ε one step does not wait for the search."""
    steps = epsilon_options()
    here = min(steps, key=lambda e: abs(e - epsilon))
    ui.head_start("rg_eps", [(0.3, lambda e=e: _omegas(n, d, float(e - share * e), split))
                             for e in ui.steps_around(steps, here)])


def _cv(src: Source, *, epsilons, sizes, n_test, repeats, split, priors, prep, seed):
    rest, pub = ~src.public, src.public
    return monte_carlo_cv(src.X[rest], src.y[rest], epsilons=epsilons, sizes=sizes, rng=seed, repeats=repeats,
                          n_test=n_test, n_nonprivate=0, public=(src.X[pub], src.y[pub]) if pub.any() else None,
                          x_bounds=src.x_bounds, y_bounds=src.y_bounds, x_centre=src.x_centre,
                          y_centre=prep[0], sigma_y=prep[1], prep_share=prep[2], split=split, priors=priors,
                          omegas=_omegas)


@ui.public_cache("regression cv", max_entries=64)
def _public_cv(key: tuple, **kw):
    """CV on bundled / synthetic (public) data, shared by every session: its inputs are public."""
    return _cv(_rebuild(key), **kw)


def _warm_repeats(key: tuple, *runs: dict) -> None:
    """Run the same CVs for the neighbouring repeats options ahead of time (public data only)."""
    ui.head_start("rg_cv", [(0.3, lambda r=r, kw=kw: _public_cv(key, **{**kw, "repeats": r}))
                            for kw in runs for r in ui.steps_around(REPEATS, kw["repeats"])])


def _curves(src: Source, *, epsilon, n_priv, sizes, progress, over_sizes=True, **kw):
    """ρ over the ε sweep at the chosen size (independent of the chosen ε) and, with ``over_sizes``, over sizes at
    the chosen ε (else None)."""
    public = src.kind != "upload"
    run = (lambda **a: _public_cv(src.key, **a)) if public else (lambda **a: _cv(src, **a))
    by_eps = run(epsilons=EPS_SWEEP, sizes=(n_priv,), **kw)
    progress(0.5)
    by_size = run(epsilons=(epsilon,), sizes=sizes, **{**kw, "seed": kw["seed"] + 1}) if over_sizes else None
    progress(1.0)
    if public:  # so that moving the repeats slider one step does not wait for the CV
        _warm_repeats(src.key, dict(epsilons=EPS_SWEEP, sizes=(n_priv,), **kw),
                      *([dict(epsilons=(epsilon,), sizes=sizes, **{**kw, "seed": kw["seed"] + 1})] if over_sizes else []))
    return by_eps, by_size


def _rebuild(key: tuple) -> Source:
    return _gdsc(*key[1:]) if key[0] == "gdsc" else _synthetic(*key[1:])


@st.cache_data(show_spinner=False, max_entries=16)
def _split_search(n: int, d: int, eps: float):
    grid = split_grid(step=0.1, low=0.1, high=0.8, min_p3=0.05)
    return split_search(n, d, epsilon=eps, splits=grid, n_sets=4, n_draws=4, grid_x=R.OMEGA_GRID[::2],
                        grid_y=R.OMEGA_GRID[::2])


# ==================================================================================================

METHODS = {"adassp": R.ADASSP, "robust": R.METHOD}  # the link's value → the method
METHOD_LABELS = {R.ADASSP: "AdaSSP (default)", R.METHOD: "robust private LR (Honkela et al.)"}
METHOD_HELP = ("AdaSSP (Wang 2018): Gaussian noise on XᵀX and Xᵀy with a privately chosen ridge; (ε, δ)-DP. It predicts "
               "on the response's scale best at the ε measured (docs/regression.md: diabetes held-out R² 0.30 at ε = 10 "
               "against 0.29). Robust private LR (Honkela et al. 2018): clipped, Laplace-noised statistics and a Bayesian "
               "posterior; pure ε-DP; it ranks better at ε ≤ 2 (Spearman ρ). With the Gamma priors (default) VB adds "
               "a ridge of the noise's scale, a repair the paper does not have; the paper's model is the priors off "
               "(the button 'The paper's method').")

ui.page_header("Drug sensitivity: private linear regression",
               "Predict a cell line's response to a drug from its genomic features: move ε and compare the private "
               "model's predictions with the non-private model's.")

q_source, q_drug = ui.question_row(2.0, 2.6)
with q_source:
    kind = ui.url_radio("Data source", key="rg_src", options=["gdsc", "synthetic", "upload"], horizontal=True,
                        format_func=lambda s: {"gdsc": "bundled GDSC", "synthetic": "synthetic",
                                               "upload": "upload a CSV"}[s])
GDSC_RULES = ("Bundled GDSC: the features are the first d of the source file's columns (MSI, then mutations as the "
              "file lists them, then copy-number segments by number) and the response range is ln IC50 (µM) within "
              "±13.8156, IC50 from 1 pM to 1 M; both rules are fixed without looking at the cell lines.",)
PUBLIC_HELP = ("Chosen by a fixed public rule (a seeded order of the record identifiers), never from the data. These "
               "records enter the release without noise and are not protected; the release notes list them.")
if kind == "gdsc":
    ids, labels = _drug_options()
    with q_drug:
        drug = ui.url_selectbox("Drug", key="rg_drug", options=ids, index=ids.index(DEFAULT_DRUG),
                                format_func=lambda i: labels[i],
                                help="The default is the bundled drug whose response the non-private model predicts "
                                     "best on held-out cell lines (docs/regression.md), so that moving ε has "
                                     "something to approach.")
elif kind == "upload":
    ui.plan_first_link("regression")  # where a custodian is about to read a private file: fix the settings first
    src = _upload()  # its column choices, ranges and unit, full width under the question
    if src is None:
        st.stop()


def _paper_method() -> None:
    """The paper's robust private LR as the paper specifies it: fixed precisions, no ridge (a button's callback)."""
    set_control("rg_method", "robust")
    set_control("rg_priors", False)


def _clamp(key: str, lo: int, hi: int) -> None:
    """Keep a size slider's remembered value inside its new range when the data set changes."""
    if key in st.session_state:
        value = st.session_state[key]
        clamped = int(min(max(value, lo), hi))
        if clamped != value:
            st.session_state[key] = clamped


def _clamp_float(key: str, lo: float, hi: float) -> None:
    """Keep a share slider's remembered value inside its new range when the range follows another control."""
    if key in st.session_state:
        value = float(st.session_state[key])
        clamped = round(min(max(value, lo), hi), 2)
        if clamped != value:
            st.session_state[key] = clamped


# ---- expert settings: one folded group, its label lists their values ----------------------------------------------
#: why the page cannot go on with these data and sizes (said above the first screen, not inside the folded group)
problem = ""
with ui.settings_group("rg_settings") as settings:
    st.markdown("**Data**")
    if kind == "gdsc":
        c1, c2 = st.columns(2)
        with c1:
            d = int(ui.url_slider("Genomic features d (the source file's order)", key="rg_d", min_value=2,
                                  max_value=64, value=DEFAULT_FEATURES))
        with c2:
            k_pub = int(ui.url_slider("Public cell lines (not protected)", key="rg_npub", min_value=0, max_value=50,
                                      value=10, step=5, help=PUBLIC_HELP))
        src = _gdsc(drug, d, k_pub)
        settings.shows(f"{d} features, {k_pub} public lines")
        prov = load_gdsc().provenance
        data_note = (f"Source: {prov['source']} · licence: {prov['licence']} · features: binary MSI, mutation and "
                     "copy-number calls, the first d in the source file's order · public response range ln IC50 "
                     f"within ±{src.y_bounds[1]:g} (IC50 from 1 pM to 1 M): both fixed without looking at the cell "
                     "lines.")
    elif kind == "synthetic":
        c1, c2, c3, c4, c0 = st.columns(5)
        n_syn = int(c1.number_input("Records", key="rg_syn_n", min_value=200, max_value=5000, value=1000, step=100))
        d_syn = int(c2.number_input("Features d", key="rg_syn_d", min_value=2, max_value=64, value=10))
        noise_syn = float(c3.number_input("Noise sd", key="rg_syn_s", min_value=0.05, max_value=5.0, value=1.0))
        seed_syn = int(c4.number_input("Generator seed", key="rg_syn_seed", min_value=0, value=1, step=1))
        with c0:
            k_pub = int(ui.url_slider("Public records (not protected)", key="rg_npub", min_value=0, max_value=50,
                                      value=10, step=5, help=PUBLIC_HELP))
        src = _synthetic(n_syn, d_syn, noise_syn, seed_syn, k_pub)
        settings.shows(f"n {n_syn}, d {d_syn}, noise sd {noise_syn:g}, data seed {seed_syn}, {k_pub} public")
        data_note = ("x: Gaussian rows scaled to unit length (public centre 0); β ~ N(0, 4 I); y = xβ + noise. The "
                     f"public response range {tuple(round(v, 2) for v in src.y_bounds)} follows from the generator's "
                     "parameters.")
    else:
        data_note = ""
    N, d = src.X.shape
    n_pub = int(src.public.sum())
    rest = np.flatnonzero(~src.public)  # the private records: test and private training sets are drawn from these
    n_rest = rest.size
    if n_rest < MIN_RECORDS:
        problem = (f"The data have {n_rest} private records; this page needs at least {MIN_RECORDS} (20 held out for "
                   "testing and more than 20 for private training).")
    else:
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
            problem = (f"Only {avail} records are left for private training (more than 20 are needed); reduce the "
                       "test set in Settings.")
        else:
            _clamp("rg_npriv", 20, int(avail))
            ui.follow_default("rg_npriv", int(min(800, avail)))
            with s3:
                n_priv = int(ui.url_slider("Private training records", key="rg_npriv", min_value=20,
                                           max_value=int(avail), value=int(min(800, avail)), step=10))
            settings.shows(f"{n_test} held out, {n_priv} private")
    if not problem:
        st.markdown("**Method**")
        m1, m2, m3 = st.columns(3)
        with m1:
            method = METHODS[ui.url_radio("Release method", key="rg_method", options=list(METHODS),
                                          format_func=lambda m: METHOD_LABELS[METHODS[m]], help=METHOD_HELP)]
            robust = method == R.METHOD
            settings.shows(METHOD_LABELS[method].removesuffix(" (default)"))
            priors = ui.url_toggle("Gamma priors and a ridge (VB)", key="rg_priors", value=True,
                                   help="Robust private LR only. On (the default, not the paper's): λ ~ Γ(2, 2), λ0 ~ "
                                        "Γ(2, 2) fitted by closed-form mean-field VB, with a ridge 2b (b: the noise's "
                                        "scale on XᵀX) added to the noisy XᵀX, a repair that keeps VB's fits on the "
                                        "response's scale (docs/regression.md). Off: the paper's model, fixed λ = λ0 "
                                        "= 1 in closed form and no ridge.")
            if robust:
                settings.shows("Gamma priors + ridge" if priors else "fixed precisions")
            st.button("The paper's method", key="rg_paper", on_click=_paper_method, icon=":material/article:",
                      help="Robust private LR with fixed λ = λ0 = 1 and no ridge: Honkela et al. 2018 as the paper "
                           "specifies it (the spec's fixed precisions), which reproduces the paper's numbers "
                           "(docs/regression.md). AdaSSP and the priors are one click back.")
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
            manual_omegas = None
            if robust:
                p1 = float(ui.url_slider("p1 → nxx", key="rg_p1", min_value=0.05, max_value=0.90, value=0.35,
                                         step=0.05))
                p2_max = round(0.95 - p1, 2)  # p3 = 1 − p1 − p2 keeps at least 0.05, so no state of the two is invalid
                _clamp_float("rg_p2", 0.05, p2_max)
                if p2_max > 0.05:
                    p2 = min(float(ui.url_slider("p2 → nxy", key="rg_p2", min_value=0.05, max_value=p2_max,
                                                 value=min(0.60, p2_max), step=0.05)), p2_max)
                else:
                    p2 = 0.05
                p3 = round(1.0 - p1 - p2, 10)
                st.caption(f"p3 → nyy = {p3:.2f} (budget split nxx : nxy : nyy; p2 is at most 0.95 − p1)")
                mode = ui.url_radio("Thresholds (ωx, ωy)", key="rg_tmode", options=["tuned", "manual"],
                                    horizontal=True, format_func=lambda m: {"tuned": "tuned (free)",
                                                                            "manual": "manual"}[m])
                if mode == "manual":
                    manual_omegas = (float(ui.url_select_slider("ωx (Bx = ωx σx)", key="rg_wx", options=OMEGAS,
                                                                value=0.1)),
                                     float(ui.url_select_slider("ωy (By = ωy σy)", key="rg_wy", options=OMEGAS,
                                                                value=0.5)))
                settings.shows(f"split {p1:.2f} : {p2:.2f} : {p3:.2f}, "
                               + (f"ω {manual_omegas[0]:g}, {manual_omegas[1]:g}" if manual_omegas else "tuned ω"))
            else:
                p1, p2, p3 = R.DEFAULT_SPLIT  # the robust fit's split: used by the CV's comparison curves only
                mode = "tuned"
            settings.shows(f"seed {seed}")
if problem:
    st.error(problem)
    st.stop()

ui.set_current_dataset(src.label, src.fp)
records = ui.records_read([src.y], exchangeable=src.X) if src.kind == "upload" else None  # outside the ε fragment
split = (p1, p2, p3)
delta = 0.0 if robust else R.adassp_delta(n_priv)
data_note += (f" {N} records, d = {d} features; " + (f"{n_pub} public ({ui.literal(src.public_basis)}): added without noise and not protected."
                              if n_pub else "no public records: every record is private."))

#: noise draws of the preview (its histogram and the release's utility note)
PREVIEW_DRAWS = 200
#: the views of the ε fragment; only the open one is computed and drawn (fixed labels: rendered as Markdown)
VIEWS = ["Predicted vs observed", "Noise draws", "Coefficients", "ρ over ε and size (CV)", "Smallest ε for a target",
         "Clipping thresholds", "Budget split"]
CV_VIEW, TARGET_VIEW = VIEWS[3], VIEWS[4]


def _repeats() -> int:
    """The CV repeats, drawn in whichever of the two views that use the CV is open (one per run)."""
    return int(ui.url_select_slider("CV repeats (random splits)", key="rg_R", options=REPEATS, value=10,
                                    help="Random splits of the private records per point of the curves."))


def _cv_curves(*, epsilon: float, split: tuple, prep_share: float, n_test: int, over_sizes: bool):
    """``(by_eps, by_size, repeats)`` of the Monte-Carlo CV (``by_size`` None unless ``over_sizes``), or None while
    an upload's curves have not been computed (its button is in the CV view)."""
    repeats = _repeats()
    sizes = sorted({int(v) for v in (np.linspace(min(50, n_priv), n_priv, 6) // 10 * 10) if 20 <= v <= n_priv}
                   | {n_priv})
    kw = dict(epsilon=epsilon, n_priv=n_priv, n_test=n_test, repeats=repeats, split=split, priors=priors,
              prep=(y_centre, sigma_y, prep_share), seed=seed, sizes=tuple(sizes))
    if src.kind != "upload":
        with st.spinner("Cross-validating five models over ε" + (" and sample size" if over_sizes else "")
                        + " (cached after the first run)…"), ui.show_errors("Cross-validation failed"):
            return (*_curves(src, progress=lambda f: None, over_sizes=over_sizes, **kw), repeats)
        return None
    # what the curves read (the file's fingerprint stays the same when another response or feature set is chosen)
    ckey = ("rg_curves", fingerprint(src.fp, src.X, src.y, src.public), src.public_basis, n_pub,
            tuple(sorted(kw.items())))
    if over_sizes and st.button("Compute the curves on the uploaded data", key="rg_curves_btn"):
        bar = st.progress(0.0, text="Cross-validating…")
        with ui.show_errors("Cross-validation failed"):
            st.session_state[ckey] = _curves(src, progress=lambda f: bar.progress(f), **kw)
        bar.empty()
    curves = st.session_state.get(ckey)
    if curves is None:
        st.info("Press the button to run the cross-validation on your upload (kept in this session only)."
                if over_sizes else "Compute the curves on your upload in the “ρ over ε and size (CV)” view first.")
        return None
    return (*curves, repeats)


@ui.live_fragment
def _cv_view(*, epsilon: float, split: tuple, prep_share: float, n_test: int) -> None:
    """ρ of the five models over the ε sweep and over private sizes (Monte-Carlo CV): computed only while this
    view is open (a new ε needs a CV over sizes). A fragment of its own inside the ε fragment: its controls (the
    repeats, the models shown) rerun only this view."""
    curves = _cv_curves(epsilon=epsilon, split=split, prep_share=prep_share, n_test=n_test, over_sizes=True)
    if curves is None:
        return
    by_eps, by_size, repeats = curves
    shown = ui.url_multiselect("Models shown", key="rg_models", options=list(R.MODELS), default=list(R.MODELS))
    rho_np_size = by_size.rho[0, :, 0].mean(-1)
    rho_rp = float(by_size.rho[1, -1, 0].mean())
    equiv = equivalent_sample_size(by_size.sizes, rho_np_size, rho_rp)
    ui.live_chart(rf.rho_panels(by_eps.epsilons, by_eps.rho[:, 0], by_size.sizes, by_size.rho[:, :, 0],
                                epsilon=epsilon, n_private=n_priv, equivalent=equiv, shown=shown), key="rg_curves")
    eq_text = (f"robust private LR with {n_priv} private records reaches the mean ρ of non-private LR with about "
               f"**{equiv:.0f}** records" if np.isfinite(equiv) else
               "the private mean ρ is below the non-private curve's smallest size (or above its largest), so no "
               "equivalent size can be read off in this range")
    st.caption(f"Monte-Carlo CV: {repeats} random splits of the private records (test {n_test}; the {n_pub} public "
               f"records in every training set); bands 10–90% over "
               f"repeats; thresholds re-tuned for every size and ε (5 × 5 synthetic search). At ε = {epsilon:g}, "
               f"{eq_text}.")
    ui.teaching("Each repeat re-splits the data, runs the whole private pipeline (including a DP centre and scale "
                "when they are charged) and "
                "scores Spearman's ρ on held-out records. Output perturbation and the functional mechanism add noise "
                "calibrated to much larger worst cases, so their ρ stays near 0 at realistic ε.")


@ui.live_fragment
def _target_view(*, epsilon: float, split: tuple, prep_share: float, n_test: int) -> None:
    """Accuracy first on the CV's ε sweep (which does not depend on the chosen ε); its controls rerun only this."""
    curves = _cv_curves(epsilon=epsilon, split=split, prep_share=prep_share, n_test=n_test, over_sizes=False)
    if curves is None:
        return
    by_eps = curves[0]
    st.caption(f"From the Monte-Carlo CV over ε at {n_priv} private records ({curves[2]} random splits): the robust "
               "private fit's ρ on held-out records.")
    accuracy_first(key="rg_acc", grid=by_eps.epsilons, draws=by_eps.rho[1, 0], metric_label="Spearman ρ",
                   default_threshold=round(max(0.5 * float(by_eps.rho[0, 0].mean()), 0.01), 3),
                   larger_is_better=True, basis=src.label, expanded=True)  # its own view: open


def _notebook_source() -> dict:
    """The data source's public settings for the notebook (an upload: its column choices, never its data)."""
    if src.kind == "gdsc":
        return dict(drug=src.key[1], k_public=src.key[3])
    if src.kind == "synthetic":
        return dict(n=src.key[1], noise_sd=src.key[3], data_seed=src.key[4], k_public=src.key[5])
    return dict(response=st.session_state.get("rg_ycol"), features=src.names, public_col=st.session_state.get("rg_pubcol"),
                x_bounds=tuple(np.asarray(b, dtype=float).tolist() for b in src.x_bounds), y_bounds=src.y_bounds)


def _med(values: np.ndarray) -> str:
    lo, mid, hi = np.quantile(values, [0.05, 0.5, 0.95])
    return f"{mid:.3g} ({lo:.3g} to {hi:.3g})"


def _request_full_search() -> None:
    st.session_state["_rg_full_requested"] = True


@ui.live_fragment
def _at_epsilon() -> None:
    """Everything that depends on ε (the tuned thresholds, the preview, the views at ε, the release): moving the ε
    slider reruns only this. The first screen: ε, the answer and the Release button beside the open view's figure,
    so a move redraws the figure where the reader looks; the details at this ε under them. The seven views' switch
    spans the page above them (beside ε it would be cut at laptop widths)."""
    v_fit, v_draws, v_coef, v_cv, v_target, v_heat, v_split = ui.view_switch(VIEWS, key="rg_view")
    controls, figure = ui.first_screen()
    details = st.container()
    with controls:
        epsilon = ui.epsilon_slider("Privacy budget ε (total)", key="eps", default=1.0)
    eps_prep = prep_share * epsilon if uses_dp else 0.0
    eps_stat = epsilon - eps_prep

    # ---- thresholds --------------------------------------------------------------------------------------
    n_fit = n_priv + n_pub
    full_key = ("rg_full_search", n_fit, d, float(eps_stat), split)
    if st.session_state.pop("_rg_full_requested", False) and full_key not in st.session_state:
        with figure:
            bar = st.progress(0.0, text=f"Searching {R.OMEGA_GRID.size ** 2} (ωx, ωy) pairs on synthetic data…")
        st.session_state[full_key] = threshold_search(n_fit, d, epsilon=eps_stat, split=split,
                                                      progress=lambda f: bar.progress(f))
        bar.empty()
    full = st.session_state.get(full_key)

    def search() -> ThresholdSearch:  # the (ωx, ωy) search in use, for the views and the release that show it
        return full if full is not None else _quick_search(n_fit, d, float(eps_stat), split)

    if not robust:
        wx, wy = 0.1, 0.5  # unused by AdaSSP; the thresholds views describe the robust fit
        thresholds = (f"δ = 1/n² = {delta:.2g} for n = {n_priv} private records. Split of (ε, δ): λ_min 10 %, XᵀX 45 %, "
                      "Xᵀy 45 %. Responses clipped at By = ωy σy, ωy = 2·max(1, √(ε/10)); features are not clipped "
                      "(each record has length ≤ 1 after scaling). AdaSSP needs no clipping thresholds or budget-split "
                      "search: its ridge is chosen privately from a noisy smallest eigenvalue of XᵀX (Wang 2018).")
    elif manual_omegas is not None:
        wx, wy = manual_omegas
        thresholds = f"Thresholds in use: ωx = {wx:g}, ωy = {wy:g} (manual)."
    else:
        # the quick search's choice (the same search, cached process-wide), or the full search's
        wx, wy = (full.omega_x, full.omega_y) if full is not None else _omegas(n_fit, d, eps_stat, split)
        _warm_neighbours(n_fit, d, epsilon, split, prep_share if uses_dp else 0.0)
        thresholds = (f"Thresholds in use: ωx = {wx:g}, ωy = {wy:g}, tuned for free on synthetic data of the same size "
                      "(see the “Clipping thresholds” view).")

    # ---- preview fit on one split (the views, the answer, the release's utility note) ---------------------------------
    rng = np.random.default_rng(seed)
    perm = rest[rng.permutation(n_rest)]
    test, priv, pub = perm[:n_test], perm[n_test:n_test + n_priv], np.flatnonzero(src.public)
    with ui.show_errors("Preview failed"):
        pv = preview_fit(src.X, src.y, private=priv, public=pub, test=test, x_bounds=src.x_bounds, y_bounds=src.y_bounds,
                         x_centre=src.x_centre, y_centre=y_centre, sigma_y=sigma_y, eps_prep=eps_prep, eps_stat=eps_stat,
                         omegas=(wx, wy), split=split, priors=priors, rng=rng, draws=PREVIEW_DRAWS, method=method,
                         delta=delta)
    prep, bx, by, noise, yt = pv.prep, pv.bx, pv.by, pv.noise, src.y[test]
    pred_draws, rho_draws, pred_np, rho_np = pv.pred, pv.rho, pv.pred_nonprivate, pv.rho_nonprivate
    with controls:
        _answer(pv)
        ui.note(f"Unit of privacy: {ui.literal(src.unit)} (replace-one neighbours; n is public).")

    if robust:
        noised = (f"clipping features at ±Bx = {bx:.3g} and responses at ±By = {by:.3g}: the {d * (d + 1) // 2} "
                  f"distinct entries of nxx = Σxxᵀ, the {d} entries of nxy = Σxy and nyy = Σy²")
    else:
        noised = (f"appending a constant 1 (the intercept) and clipping responses at ±By = {by:.3g}: the smallest "
                  f"eigenvalue of XᵀX, the {(d + 1) * (d + 2) // 2} distinct entries of XᵀX and the {d + 1} of Xᵀy")
    with details:
        st.header("At this ε")
        ui.what_this_page_shows(_about())
        st.markdown(
            f"**What is noised ({METHOD_LABELS[method]}):** after centring ({'; '.join(prep.describe())}), scaling each "
            f"record to length 1 and {noised}. Noise: {'; '.join(noise.describe())}. "
            + (f"The DP centre/scale took ε = {eps_prep:.3g}. " if uses_dp else "")
            + (f"{n_pub} public records are added without noise and are not protected." if n_pub else "")
        )
        st.caption(thresholds)

    if v_fit.open:
        with figure:
            ui.live_chart(rf.predicted_vs_observed(yt, pred_draws[0], pred_np, rho_private=float(rho_draws[0]),
                                                   rho_nonprivate=rho_np, y_label=src.y_label,
                                                   r2_private=float(pv.r2[0]), r2_nonprivate=pv.r2_nonprivate,
                                                   rmse_private=float(pv.rmse[0]), rmse_nonprivate=pv.rmse_nonprivate),
                          key="rg_headline")
        with details:
            st.caption(f"Held-out scores over {pv.rho.size} preview draws (median, 5–95%): ρ {_med(pv.rho)}, "
                       f"R² {_med(pv.r2)}, RMSE {_med(pv.rmse)}; non-private ρ {rho_np:.3f}, R² {pv.r2_nonprivate:.3f}, "
                       f"RMSE {pv.rmse_nonprivate:.3g}. R² below 0 means worse than predicting the mean."
                       + (" The paper's mode scores the test records unclipped, as the authors' code: it ranks them "
                          "(ρ) as the paper did, but coefficients fitted on features clipped at ±Bx put unclipped "
                          "records on too large a scale, so R² can fall far below 0 (the default, with the priors, "
                          "clips them)." if robust and not priors else "")
                       + (" Each draw is a whole release: it redraws the DP centre and σy too, which at small ε move "
                          "R² more than the noise on the statistics does. The plot and the text above show the first "
                          "draw." if eps_prep else ""))
            ui.teaching("1. Centre and scale each record (free, or a small charged DP mean). 2. Clip. 3. Add noise to "
                        "the sums (Laplace for robust private LR, Gaussian for AdaSSP). 4. Repair the noisy matrix to be "
                        "positive semi-definite and solve (a Bayesian posterior, or a ridge chosen from the noisy "
                        "smallest eigenvalue) — all post-processing. This plot is one preview draw; the “Noise draws” "
                        "view shows how much a single release can vary.")
    with figure:
        if v_draws.open:
            ui.chart(rf.rho_draws_histogram(rho_draws, rho_np), key="rg_draws")
            st.caption(f"Utility over {rho_draws.size} preview noise draws on this split: mean ρ = {rho_draws.mean():.3f} "
                       f"(5–95%: {np.quantile(rho_draws, 0.05):.3f} to {np.quantile(rho_draws, 0.95):.3f}); "
                       f"non-private ρ = {rho_np:.3f}.")
        if v_coef.open:
            lo, hi = np.quantile(pv.coef, [0.05, 0.95], axis=0)
            ui.chart(rf.coefficient_bars(src.names, pv.coef_nonprivate, pv.coef.mean(0), lo, hi, truth=src.beta),
                            key="rg_coef")
            st.caption(("Synthetic data: the true β is known. " if src.beta is not None else "")
                       + f"Private coefficients (mean and 5–95% over {pv.coef.shape[0]} preview draws) shrink towards "
                       + ("0 — clipping and the prior trade bias for much less noise." if robust else
                          "0 — the private ridge trades bias for less noise.")
                       + f" Intercept (prediction for a record at the public midpoints): {_med(pv.intercept)}; "
                       f"non-private {pv.intercept_nonprivate:.3g}. A release reports each coefficient with its "
                       "standard deviation and the intercept as a row of its table.")
        if v_cv.open:
            _cv_view(epsilon=epsilon, split=split, prep_share=prep_share, n_test=n_test)
        if v_target.open:
            _target_view(epsilon=epsilon, split=split, prep_share=prep_share, n_test=n_test)
        if v_heat.open:
            search_ = search()
            # runs at the top of the next run of this fragment, so that the preview above uses its thresholds
            st.button("Run the full search (20 data sets × 20 draws)", key="rg_full_btn",
                      disabled=full_key in st.session_state, on_click=_request_full_search)
            st.caption(f"Search: {search_.n_sets} synthetic data sets × {search_.n_draws} noise draws per pair at n = "
                       f"{n_fit}, d = {d}, ε = {eps_stat:.3g} (the statistics' share), split {split}. It uses only these "
                       "public numbers, so it costs nothing. It takes the least clipping among the pairs within 0.002 "
                       "(or two standard errors) of the best mean ρ, so that at large ε it stops clipping. In use: "
                       + f"ωx = {wx:g}, ωy = {wy:g}" + (" (manual)." if manual_omegas is not None else ".")
                       + f" Coarse to fine: {search_.pairs_scored} of {search_.scores.size} pairs scored (every third ω, "
                       "then the neighbours of the best and of the chosen pair until none is left); blank cells were "
                       "not needed for the choice.")
            ui.chart(rf.tuning_heatmap(search_.grid_x, search_.grid_y, search_.scores,
                                              chosen=(search_.omega_x, search_.omega_y), used=(wx, wy)), key="rg_heat")
            ui.teaching("Each cell is one pair of clipping thresholds. For each pair we clip synthetic data of the same "
                        "size, add the same noise, fit, and score how well the fit ranks the synthetic responses. "
                        "Darker = better. Small ωx (hard clipping of x) almost always wins: it cuts the noise on nxx "
                        "and nxy far more than the signal it removes.")
        if v_split.open:
            split_key = ("rg_split", n_fit, d, float(eps_stat))
            st.markdown("Search the split on synthetic data (free): every split gets its own (ωx, ωy) search; 4 data "
                        "sets × 4 draws on a 10 × 10 ω grid, 36 splits in steps of 0.1.")
            if st.button("Search the budget split", key="rg_split_btn"):
                with st.spinner("Searching 36 splits…"):
                    st.session_state[split_key] = _split_search(n_fit, d, float(eps_stat))
            sres = st.session_state.get(split_key)
            ui.chart(rf.ternary_split(None if sres is None else sres.splits,
                                             None if sres is None else sres.scores, chosen=split,
                                             best=None if sres is None else sres.best), key="rg_ternary")
            if sres is not None:
                st.caption(f"Best split (nxx, nxy, nyy) = {tuple(round(v, 2) for v in sres.best)} with mean ρ "
                           f"{sres.scores.max():.3f}; the split in use scores as the × marks. With fixed precisions "
                           "nyy never enters the fit, so the search gives it the minimum.")

    with details:
        ui.explain(
            "**What is clipped and why projection wins.** Noise is scaled to the worst case a single record can cause, "
            "which grows with the bounds (Bx² for nxx, Bx·By for nxy). After row scaling, a feature can be as large as "
            f"1; clipping at Bx = ωx/√d = {bx:.3g} cuts the nxx noise by a factor ~{(1 / bx) ** 2:.0f} while most "
            "records are barely changed. The no-projection baseline uses the public worst-case bounds instead and "
            "drowns in noise.\n\n"
            f"**What each budget share buys.** nxx gets {p1:.0%} (its {d * (d + 1) // 2} entries share that budget), "
            f"nxy {p2:.0%} (it carries the drug-response signal), nyy {p3:.0%} (used only to learn the noise precision "
            "when priors are on).\n\n"
            "**What is public and what was charged.** Public: n, d, the feature and response ranges, the feature "
            "centre (midpoint of the feature range), σx = 1/√d, the thresholds (tuned on synthetic data), the split. "
            + ("Charged: " + ", ".join(f"{k} (ε = {v:.3g})" for k, v in prep.parts.items())
               + ", and the three statistics." if prep.parts else
               "Charged: the three statistics only (the response centre and scale are public).")
            + "\n\n**Sensitivities (replace one record).** nxx: d(d+1)·Bx², nxy: 2d·Bx·By, nyy: By².",
            title="What was noised, what is public, and why clipping helps",
        )

    # ---- release: the button beside ε, the panel at the end of the details --------------------------------------------
    parts = ({"nxx": p1 * eps_stat, "nxy": p2 * eps_stat, "nyy": p3 * eps_stat} if robust else
             {k: share * eps_stat for k, share in zip(("λ_min", "XᵀX", "Xᵀy"), R.ADASSP_SPLIT)})
    if uses_dp:
        parts.update({k: eps_prep / (int(y_centre == "dp") + int(sigma_y == "dp"))
                      for k, on in (("response centre", y_centre == "dp"), ("response scale", sigma_y == "dp")) if on})
    params = {"method": method, "n_private": n_priv, "n_public_not_protected": n_pub, "d": d}
    params.update({"omega": (wx, wy), "split": split, "priors": priors} if robust else {"delta": delta})
    if src.kind == "upload":  # an upload's ranges are settings its release records how were chosen
        params.update(private_bounds.range_settings(src.y_bounds, src.x_bounds, len(src.names)))
    unit = src.unit.removeprefix("one ").strip()

    def _bundle():
        if src.blocked:
            raise ValueError(src.blocked)
        prep_rel = R.prepare(src.X[priv], src.y[priv], x_bounds=src.x_bounds, y_bounds=src.y_bounds,
                             x_centre=src.x_centre, y_centre=y_centre, sigma_y=sigma_y, epsilon=eps_prep, release=True)
        common = dict(prep=prep_rel, public=src.public_rows(), dataset=src.label, fingerprint=src.fp,
                      feature_names=src.names, unit=unit, source_notes=GDSC_RULES if src.kind == "gdsc" else ())
        if not robust:
            return R.release_adassp(src.X[priv], src.y[priv], epsilon=eps_stat, delta=delta, **common)
        tuning = search().describe() if manual_omegas is None else {"source": "manual ω (public)"}
        return R.release(src.X[priv], src.y[priv], epsilon=eps_stat, omega_x=wx, omega_y=wy, split=split,
                         priors=priors, tuning=tuning, **common)

    utility_note = (f"{METHOD_LABELS[method]} on {yt.size} held-out records over {rho_draws.size} simulated releases: "
                    f"Spearman ρ {describe_draws(rho_draws)}, R² {describe_draws(pv.r2)}; loss of ρ against the "
                    f"non-private fit on the same split: {describe_draws(rho_np - rho_draws)}.")
    config = RegressionConfig(
        source=src.kind, epsilon=epsilon, seed=seed, n_test=n_test, n_private=n_priv, omegas=(wx, wy), split=split,
        priors=priors, y_centre=y_centre, sigma_y=sigma_y, prep_share=prep_share, draws=PREVIEW_DRAWS, d=d,
        repeats=int(st.session_state.get("rg_R", 10)), sweep=EPS_SWEEP, method=method, delta=delta,
        **_notebook_source())
    with details:
        st.caption("The release uses the private training records of the current split"
                   + (f" and the {n_pub} public records (listed in its notes; not protected)" if n_pub else "")
                   + "; the bundle's parts name each charged piece (the noised statistics and any DP centre / scale).")
        code_downloads(config)
        ui.release_panel(key="regression", dataset_label=src.label, fingerprint=src.fp, method=method,
                         persons=None if src.persons is None else src.persons.subset(priv), records=records,
                         ledger_label=GDSC_LEDGER_LABEL if src.kind == "gdsc" else None,
                         simulated=src.kind == "synthetic",
                         epsilon=round(float(math.fsum(parts.values())), 12), delta=delta, parts=parts, params=params,
                         make_bundle=lambda: release_with_script(_bundle(), config), utility_note=utility_note,
                         blocked=src.blocked, button_at=controls)
        attacker_panel("regression", epsilon)


def _answer(pv) -> None:
    """The answer line: how well the private model ranks the held-out rows against the non-private one (median over
    the preview's draws), and in words whether ε is large enough to come close."""
    rho, rho_np = float(np.median(pv.rho)), pv.rho_nonprivate
    share = rho / rho_np if rho_np > 0 else float("nan")
    verdict = ("The private model ranks the held-out rows about as well as the non-private one." if share >= 0.9 else
               "The private model ranks the held-out rows less well: a larger ε brings it closer." if share >= 0.5 else
               "At this ε the noise hides most of what the non-private model finds: move ε up to approach it."
               if rho_np > 0 else "The non-private model does not predict these held-out rows either.")
    ui.answer("Held-out prediction (Spearman ρ)", f"{rho:.2f} (R² {float(np.median(pv.r2)):.2f}; median of "
              f"{pv.rho.size} draws)",
              f"{rho_np:.2f} (R² {pv.r2_nonprivate:.2f})", verdict=verdict)


def _about() -> str:
    """The page's prose for "What this page shows": the method, the data and what a preview is."""
    return ("**The method.** AdaSSP (Wang 2018: Gaussian-noised sufficient statistics with a private ridge) by default, "
            "and the paper's robust private Bayesian linear regression (Honkela et al. 2018: clipped, Laplace-noised "
            "statistics, thresholds tuned for free on synthetic data) one click away in Settings, with four "
            f"baselines in the cross-validation view.\n\n**The data.** {data_note}\n\n**Preview and release.** The "
            "noisy results on this page are simulated in your session with a seeded generator to show what a release "
            "*would* look like; nothing is charged. Only the Release button makes a real, charged release that may "
            "leave the session. Only the open view is computed, so moving ε redraws just that one; the "
            "cross-validation runs only while its view is open.")


_at_epsilon()
