"""The drug-sensitivity page's prose: help texts, captions and explanations, as plain strings.

Kept apart from the page (``app_pages/regression.py``) so that the page reads as its controls and figures, and the
wording can be reviewed in one place. Nothing here imports Streamlit. Every name or value that came from a visitor
or an uploaded file reaches these functions already made literal by the caller (``ui.literal``): the text is
rendered as Markdown.
"""

from __future__ import annotations

import numpy as np

from dpcore.core.utility import describe_draws

SUBTITLE = ("Predict a cell line's response to a drug from its genomic features: move ε and compare the private "
            "model's predictions with the non-private model's.")
METHOD_HELP = ("AdaSSP (Wang 2018): Gaussian noise on XᵀX and Xᵀy with a privately chosen ridge; (ε, δ)-DP. It "
               "predicts on the response's scale best at the ε measured (docs/regression.md: diabetes held-out R² "
               "0.30 at ε = 10 against 0.29). Robust private LR (Honkela et al. 2018): clipped, Laplace-noised "
               "statistics and a Bayesian posterior; pure ε-DP; it ranks better at ε ≤ 2 (Spearman ρ). With the Gamma "
               "priors (default) VB adds a ridge of the noise's scale, a repair the paper does not have; the paper's "
               "model is the priors off (the button 'The paper's method').")
PRIORS_HELP = ("Robust private LR only. On (the default, not the paper's): λ ~ Γ(2, 2), λ0 ~ Γ(2, 2) fitted by "
               "closed-form mean-field VB, with a ridge 2b (b: the noise's scale on XᵀX) added to the noisy XᵀX, a "
               "repair that keeps VB's fits on the response's scale (docs/regression.md). Off: the paper's model, "
               "fixed λ = λ0 = 1 in closed form and no ridge.")
PAPER_HELP = ("Robust private LR with fixed λ = λ0 = 1 and no ridge: Honkela et al. 2018 as the paper specifies it "
              "(the spec's fixed precisions), which reproduces the paper's numbers (docs/regression.md). AdaSSP and "
              "the priors are one click back.")
DRUG_HELP = ("The default is the bundled drug whose response the non-private model predicts best on held-out cell "
             "lines (docs/regression.md), so that moving ε has something to approach.")
PUBLIC_HELP = ("Chosen by a fixed public rule (a seeded order of the record identifiers), never from the data. These "
               "records enter the release without noise and are not protected; the release notes list them.")
#: the bundled data's fixed rules, in a GDSC release's notes
GDSC_RULES = (("Bundled GDSC: the features are the first d of the source file's columns (MSI, then mutations as the "
               "file lists them, then copy-number segments by number) and the response range is ln IC50 (µM) within "
               "±13.8156, IC50 from 1 pM to 1 M; both rules are fixed without looking at the cell lines."),)

# ---- an upload's controls ---------------------------------------------------------------------------------------
UPLOAD_HINT = ("Upload a CSV with one numeric response column and numeric feature columns, e.g. "
               "`ln_ic50,TP53,KRAS,…`. You then choose the columns and the public ranges.")
PUBLIC_COLUMN_HELP = ("A 0/1 column: 1 marks a row whose data are already public. Those rows enter the release "
                      "without noise and are not protected; the guarantee rests on your statement.")
RANGES_CONFIRM = ("These ranges come from domain knowledge (e.g. the assay's measurable range, clinical limits), not "
                  "from this file")
RANGES_CAPTION = ("They set the public centres and scales; values outside are clipped. The page fills them from the "
                  "data only by a charged private choice (below): a release needs the box ticked, or that choice's "
                  "ranges, and the unit of privacy named.")
NO_UPLOAD_CURVES = "Press the button to run the cross-validation on your upload (kept in this session only)."
CURVES_FIRST = "Compute the curves on your upload in the “ρ over ε and size (CV)” view first."


def features_caption(used: int, offered: int, shown: str, most: int) -> str:
    """Which columns are features; ``shown``: their names, made literal by the caller."""
    return (f"{used} of {offered} other columns used as features: " + shown
            + (f" (at most {most} by default: the statistics grow as d²)" if offered > most else ""))


# ---- the data ---------------------------------------------------------------------------------------------------
def gdsc_basis(k: int, n_lines: int, seed: int) -> str:
    return (f"the fixed public rule: the first {k} of all {n_lines} bundled cell lines in a permutation of their "
            f"COSMIC IDs seeded with {seed}, whatever the drug; those with a measured IC50 for this drug")


def gdsc_note(provenance: dict, bound: float) -> str:
    """Where the bundled data come from and which of their rules are public."""
    return (f"Source: {provenance['source']} · licence: {provenance['licence']} · features: binary MSI, mutation and "
            "copy-number calls, the first d in the source file's order · public response range ln IC50 within "
            f"±{bound:g} (IC50 from 1 pM to 1 M): both fixed without looking at the cell lines.")


def synthetic_note(y_bounds) -> str:
    return ("x: Gaussian rows scaled to unit length (public centre 0); β ~ N(0, 4 I); y = xβ + noise. The public "
            f"response range {tuple(round(v, 2) for v in y_bounds)} follows from the generator's parameters.")


def records_note(n: int, d: int, n_public: int, basis: str) -> str:
    """How many records and which are public; ``basis`` made literal by the caller."""
    return (f" {n} records, d = {d} features; " + (f"{n_public} public ({basis}): added without noise and not "
                                                   "protected." if n_public else
                                                   "no public records: every record is private."))


def too_few_records(n_rest: int, needed: int) -> str:
    return (f"The data have {n_rest} private records; this page needs at least {needed} (20 held out for testing and "
            "more than 20 for private training).")


def too_few_for_training(avail: int) -> str:
    return (f"Only {avail} records are left for private training (more than 20 are needed); reduce the test set in "
            "Settings.")


def about(data_note: str) -> str:
    """The page's prose for "What this page shows": the method, the data and what a preview is."""
    return ("**The method.** AdaSSP (Wang 2018: Gaussian-noised sufficient statistics with a private ridge) by "
            "default, and the paper's robust private Bayesian linear regression (Honkela et al. 2018: clipped, "
            "Laplace-noised statistics, thresholds tuned for free on synthetic data) one click away in Settings, with four "
            f"baselines in the cross-validation view.\n\n**The data.** {data_note}\n\n**Preview and release.** The "
            "noisy results on this page are simulated in your session with a seeded generator to show what a release "
            "*would* look like; nothing is charged. Only the Release button makes a real, charged release that may "
            "leave the session. Only the open view is computed, so moving ε redraws just that one; the "
            "cross-validation runs only while its view is open.")


# ---- at this ε ---------------------------------------------------------------------------------------------------
def adassp_thresholds(delta: float, n_private: int) -> str:
    return (f"δ = 1/n² = {delta:.2g} for n = {n_private} private records. Split of (ε, δ): λ_min 10 %, XᵀX 45 %, "
            "Xᵀy 45 %. Responses clipped at By = ωy σy, ωy = 2·max(1, √(ε/10)); features are not clipped "
            "(each record has length ≤ 1 after scaling). AdaSSP needs no clipping thresholds or budget-split "
            "search: its ridge is chosen privately from a noisy smallest eigenvalue of XᵀX (Wang 2018).")


def tuned_thresholds(wx: float, wy: float) -> str:
    return (f"Thresholds in use: ωx = {wx:g}, ωy = {wy:g}, tuned for free on synthetic data of the same size "
            "(see the “Clipping thresholds” view).")


def verdict(share: float, rho_nonprivate: float) -> str:
    """In words, whether the private model's ρ (``share`` of the non-private one's) comes close."""
    return ("The private model ranks the held-out rows about as well as the non-private one." if share >= 0.9 else
            "The private model ranks the held-out rows less well: a larger ε brings it closer." if share >= 0.5 else
            "At this ε the noise hides most of what the non-private model finds: move ε up to approach it."
            if rho_nonprivate > 0 else "The non-private model does not predict these held-out rows either.")


def what_is_noised(*, method_label: str, robust: bool, prep, noise, bx: float, by: float, d: int, eps_prep: float,
                   uses_dp: bool, n_public: int) -> str:
    """The preview's pipeline in one paragraph: the centring, the clipping, the noised statistics and their noise."""
    if robust:
        noised = (f"clipping features at ±Bx = {bx:.3g} and responses at ±By = {by:.3g}: the {d * (d + 1) // 2} "
                  f"distinct entries of nxx = Σxxᵀ, the {d} entries of nxy = Σxy and nyy = Σy²")
    else:
        noised = (f"appending a constant 1 (the intercept) and clipping responses at ±By = {by:.3g}: the smallest "
                  f"eigenvalue of XᵀX, the {(d + 1) * (d + 2) // 2} distinct entries of XᵀX and the {d + 1} of Xᵀy")
    return (f"**What is noised ({method_label}):** after centring ({'; '.join(prep.describe())}), scaling each "
            f"record to length 1 and {noised}. Noise: {'; '.join(noise.describe())}. "
            + (f"The DP centre/scale took ε = {eps_prep:.3g}. " if uses_dp else "")
            + (f"{n_public} public records are added without noise and are not protected." if n_public else ""))


def spread(values: np.ndarray) -> str:
    """A score over the preview draws as the page shows it: median (5 to 95 %)."""
    lo, mid, hi = np.quantile(values, [0.05, 0.5, 0.95])
    return f"{mid:.3g} ({lo:.3g} to {hi:.3g})"


def scores_caption(pv, *, paper_scoring: bool, eps_prep: float) -> str:
    """The preview's held-out scores; ``paper_scoring``: the paper's mode, which scores unclipped test records."""
    return (f"Held-out scores over {pv.rho.size} preview draws (median, 5–95%): ρ {spread(pv.rho)}, "
            f"R² {spread(pv.r2)}, RMSE {spread(pv.rmse)}; non-private ρ {pv.rho_nonprivate:.3f}, R² "
            f"{pv.r2_nonprivate:.3f}, RMSE {pv.rmse_nonprivate:.3g}. R² below 0 means worse than predicting the mean."
            + (" The paper's mode scores the test records unclipped, as the authors' code: it ranks them "
               "(ρ) as the paper did, but coefficients fitted on features clipped at ±Bx put unclipped "
               "records on too large a scale, so R² can fall far below 0 (the default, with the priors, "
               "clips them)." if paper_scoring else "")
            + (" Each draw is a whole release: it redraws the DP centre and σy too, which at small ε move "
               "R² more than the noise on the statistics does. The plot and the text above show the first "
               "draw." if eps_prep else ""))


PIPELINE_TEACHING = ("1. Centre and scale each record (free, or a small charged DP mean). 2. Clip. 3. Add noise to "
                     "the sums (Laplace for robust private LR, Gaussian for AdaSSP). 4. Repair the noisy matrix to be "
                     "positive semi-definite and solve (a Bayesian posterior, or a ridge chosen from the noisy "
                     "smallest eigenvalue) — all post-processing. This plot is one preview draw; the “Noise draws” "
                     "view shows how much a single release can vary.")


def draws_caption(rho_draws: np.ndarray, rho_nonprivate: float) -> str:
    return (f"Utility over {rho_draws.size} preview noise draws on this split: mean ρ = {rho_draws.mean():.3f} "
            f"(5–95%: {np.quantile(rho_draws, 0.05):.3f} to {np.quantile(rho_draws, 0.95):.3f}); "
            f"non-private ρ = {rho_nonprivate:.3f}.")


def coefficients_caption(pv, *, synthetic_truth: bool, robust: bool) -> str:
    return (("Synthetic data: the true β is known. " if synthetic_truth else "")
            + f"Private coefficients (mean and 5–95% over {pv.coef.shape[0]} preview draws) shrink towards "
            + ("0 — clipping and the prior trade bias for much less noise." if robust else
               "0 — the private ridge trades bias for less noise.")
            + f" Intercept (prediction for a record at the public midpoints): {spread(pv.intercept)}; "
            f"non-private {pv.intercept_nonprivate:.3g}. A release reports each coefficient with its "
            "standard deviation and the intercept as a row of its table.")


# ---- the cross-validation views ----------------------------------------------------------------------------------
REPEATS_HELP = "Random splits of the private records per point of the curves."


def cv_caption(*, repeats: int, n_test: int, n_public: int, epsilon: float, n_private: int, equivalent: float) -> str:
    eq_text = (f"robust private LR with {n_private} private records reaches the mean ρ of non-private LR with about "
               f"**{equivalent:.0f}** records" if np.isfinite(equivalent) else
               "the private mean ρ is below the non-private curve's smallest size (or above its largest), so no "
               "equivalent size can be read off in this range")
    return (f"Monte-Carlo CV: {repeats} random splits of the private records (test {n_test}; the {n_public} public "
            f"records in every training set); bands 10–90% over "
            f"repeats; thresholds re-tuned for every size and ε (5 × 5 synthetic search). At ε = {epsilon:g}, "
            f"{eq_text}.")


CV_TEACHING = ("Each repeat re-splits the data, runs the whole private pipeline (including a DP centre and scale "
               "when they are charged) and "
               "scores Spearman's ρ on held-out records. Output perturbation and the functional mechanism add noise "
               "calibrated to much larger worst cases, so their ρ stays near 0 at realistic ε.")


def target_caption(n_private: int, repeats: int) -> str:
    return (f"From the Monte-Carlo CV over ε at {n_private} private records ({repeats} random splits): the robust "
            "private fit's ρ on held-out records.")


# ---- the thresholds and the budget split -------------------------------------------------------------------------
def search_caption(search, *, n_fit: int, d: int, eps_stat: float, split, wx: float, wy: float, manual: bool) -> str:
    return (f"Search: {search.n_sets} synthetic data sets × {search.n_draws} noise draws per pair at n = "
            f"{n_fit}, d = {d}, ε = {eps_stat:.3g} (the statistics' share), split {split}. It uses only these "
            "public numbers, so it costs nothing. It takes the least clipping among the pairs within 0.002 "
            "(or two standard errors) of the best mean ρ, so that at large ε it stops clipping. In use: "
            + f"ωx = {wx:g}, ωy = {wy:g}" + (" (manual)." if manual else ".")
            + f" Coarse to fine: {search.pairs_scored} of {search.scores.size} pairs scored (every third ω, "
            "then the neighbours of the best and of the chosen pair until none is left); blank cells were "
            "not needed for the choice.")


HEATMAP_TEACHING = ("Each cell is one pair of clipping thresholds. For each pair we clip synthetic data of the same "
                    "size, add the same noise, fit, and score how well the fit ranks the synthetic responses. "
                    "Darker = better. Small ωx (hard clipping of x) almost always wins: it cuts the noise on nxx "
                    "and nxy far more than the signal it removes.")
SPLIT_INTRO = ("Search the split on synthetic data (free): every split gets its own (ωx, ωy) search; 4 data "
               "sets × 4 draws on a 10 × 10 ω grid, 36 splits in steps of 0.1.")


def split_caption(result) -> str:
    return (f"Best split (nxx, nxy, nyy) = {tuple(round(v, 2) for v in result.best)} with mean ρ "
            f"{result.scores.max():.3f}; the split in use scores as the × marks. With fixed precisions "
            "nyy never enters the fit, so the search gives it the minimum.")


def clipping_explained(*, bx: float, d: int, split, parts: dict) -> str:
    """Why clipping helps, what each budget share buys, what is public and what was charged (``parts``: the
    preparation's charged items and their ε)."""
    p1, p2, p3 = split
    return (
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
        + ("Charged: " + ", ".join(f"{k} (ε = {v:.3g})" for k, v in parts.items())
           + ", and the three statistics." if parts else
           "Charged: the three statistics only (the response centre and scale are public).")
        + "\n\n**Sensitivities (replace one record).** nxx: d(d+1)·Bx², nxy: 2d·Bx·By, nyy: By².")


# ---- the release -------------------------------------------------------------------------------------------------
def release_caption(n_public: int) -> str:
    return ("The release uses the private training records of the current split"
            + (f" and the {n_public} public records (listed in its notes; not protected)" if n_public else "")
            + "; the bundle's parts name each charged piece (the noised statistics and any DP centre / scale).")


def utility_note(method_label: str, n_test: int, rho_draws: np.ndarray, r2_draws: np.ndarray,
                 rho_nonprivate: float) -> str:
    """The release's utility note over the preview's simulated releases."""
    return (f"{method_label} on {n_test} held-out records over {rho_draws.size} simulated releases: "
            f"Spearman ρ {describe_draws(rho_draws)}, R² {describe_draws(r2_draws)}; loss of ρ against the "
            f"non-private fit on the same split: {describe_draws(rho_nonprivate - rho_draws)}.")
