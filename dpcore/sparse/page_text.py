"""The Sparse page's prose: what it says beside its controls and figures, as plain strings (Markdown).

Why a file of its own: the page reads as controls and figures, and the explanations can be read (and corrected) in
one place. Names read from a link or an uploaded file reach these functions already passed through
``ui.layout.literal`` by the caller; everything else here is fixed text and numbers.
"""

from __future__ import annotations

TITLE = "Sparse regression with differential privacy"
SUBTITLE = ("Which genomic features predict a drug's response, found with privacy: the private model picks s features "
            "and fits them; the non-private model on the same data is the reference.")

# ---- the data and the settings ------------------------------------------------------------------------------


def synthetic_note(loss: str) -> str:
    return ("x ~ N(0, I) clipped to [−K, K] with K = 1; θ* has s* entries ±1 at random positions; "
            + ("y = xᵀθ* + N(0, σ²)." if loss == "linear" else "P(y = 1) = sigmoid(xᵀθ*).")
            + " 1,000 extra records are held out for the test error.")


def gdsc_note(n_train: int, n_test: int, loss: str, centre: float, threshold: float, sensitive_train: float,
              sensitive_test: float) -> str:
    """Where the GDSC problem comes from; ``sensitive_*``: the shares of sensitive cell lines (logistic)."""
    return (f"{n_train} training / {n_test} held-out cell lines · binary mutation / copy-number features · "
            + (f"response: ln IC50 minus the public centre {centre:g}" if loss == "linear" else
               f"label: sensitive (+1) when ln IC50 < {threshold:g}; {sensitive_train:.0%} of training cell "
               f"lines are sensitive (always saying 'resistant' errs on {sensitive_test:.0%} of the "
               "held-out lines)")
            + " · source: GDSC, via gdsctools.")


def too_many_cells(n: int, d: int, limit: int) -> str:
    return (f"n·d = {n * d:,} is above this page's limit of {limit:,} (memory for the data and the synthetic "
            "features); lower n or d.")


THRESHOLD_HELP = ("Must not come from the private labels (their median is private). Default: the midpoint of the "
                  "public response range.")
UPLOAD_HINT = ("Upload a CSV with a response column and at least two numeric feature columns, e.g. `y,g1,g2,g3,…`. "
               "Features are clipped to [−K, K] and responses to [−r, r] (public bounds you set under Settings); for "
               "the logistic model the response is a 0/1 label or is thresholded at a public value.")


def many_features(n_candidates: int, preselected: int) -> str:
    return (f"The file has {n_candidates:,} candidate feature columns; the first {preselected} (in file order) are "
            "preselected to keep previews fast. Add or remove columns under 'Feature columns'; every method sees "
            "exactly the columns listed there.")


B_HELP = ("Public bound ‖θ‖1 ≤ B; every iterate is rescaled into this ball. It sets the gradient bound γ = K(KB + r) "
          "that all methods' noise grows with.")
RELEASE_HELP = ("Peeling + private fit finds the support at the ε users accept (docs/sparse.md); KT with private "
                "support stays available as a comparison.")
LAMBDA_HELP = ("u(ε, δ) is the Gaussian noise per unit of sensitivity; it shrinks as ε grows. Under the paper's rule "
               "the knowledge-transfer noise stays the same at any ε.")


def clipping_warning(share: float, K: float, n_clipped: int, d: int, worst: str) -> str:
    """``worst``: the most clipped features and their largest values, names already made literal."""
    return (f"{share:.1%} of the feature values lie outside the public bound [−K, K] = [−{K:g}, {K:g}] and are "
            f"clipped to it, in {n_clipped} of {d} features: {worst}{' …' if n_clipped > 5 else ''}. Clipping that "
            "much distorts every method. Standardise each feature with public ranges before uploading — "
            "(x − public centre)/(public half-range), from domain knowledge, never from these data — or raise K "
            "(all noise grows with K).")


# ---- the views of the live part -----------------------------------------------------------------------------

KT_CAVEAT = (
    "**Caveat found by our audit (the paper's knowledge transfer, shown here for comparison).** Assumption (1) of "
    "its proof fails for the hard-thresholded teacher: when one record tips which features the teacher keeps, the "
    "teacher jumps by O(1), not O(1/n). On such a neighbouring pair the audit (Privacy audit page; "
    "`dpcore.sparse.known_violation_scenarios`) shows ε ≥ 9 for a claimed ε = 1 — all that 10⁵ runs can show; the "
    "true privacy loss on that pair is ε ≈ 690. The knowledge-transfer guarantee therefore holds only when the "
    "teacher's support is stable under any one-record change, which no public check here can certify. The default "
    "release (**peeling + private fit**), DP-IGHT, Frank–Wolfe, two-stage and **KT with private support** do not "
    "rely on that assumption.")
STEMS_TEACHING = (
    "Each stem is one coefficient; only features that one of the models kept are shown. A dot marks a coefficient a "
    "model kept (its s features); outside them a model's coefficient is 0 and has no stem. Peeling + private fit "
    "(the release) picks s features from noisy scores of all records, then fits them from noisy sums. The other "
    "methods (knowledge transfer, DP-IGHT, Frank–Wolfe, two-stage) are compared in the other views.")


def draws_caption(known_truth: bool) -> str:
    return ("Mean and 10–90 % range over the preview draws (the teacher is deterministic). "
            + ("θ* is known for synthetic data." if known_truth else
               "No true θ* for real data: compare the test error and the overlap of each support with the teacher's."))


CONVERGENCE = ("**Convergence.** Both the teacher and the student are IGHT runs: a gradient step, then keep the s "
               "largest coefficients. On a log axis, linear convergence is a straight line. The dotted line is the "
               "student's distance to the teacher: it levels off at the error the privacy noise leaves.")
CONVERGENCE_TEACHING = ("The teacher runs on the private data (no noise). The student runs on public synthetic "
                        "features and the noisy teacher answers; everything it does is post-processing and costs no "
                        "extra privacy.")


def sweep_caption(repeats: int) -> str:
    return (f"Lines: mean over {repeats} draws; bands: 10–90 %. The dotted line is the non-private teacher (no ε). "
            "These curves do not depend on the chosen ε: moving ε leaves them as they are.")


SWEEP_LIMITS = (
    "As ε grows, every method approaches its own noise-free version, not necessarily the teacher. Peeling + private "
    "fit scores every feature on all n records, so it finds the support at far smaller ε than methods that vote over "
    "blocks. Frank–Wolfe takes T = max(s, 10) steps and can add only one coordinate per step, so even without noise "
    "it finds only part of the support. Two-stage and KT with private support choose the support by votes of LASSO "
    "fits on blocks of about √n records; even without noise those votes can miss true features (logistic loss "
    "especially). Those curves flatten below the teacher's.")


def noised(noises: dict, intercept: bool, m: int) -> str:
    """What the previewed peeling and knowledge transfer noised ("" when neither was fitted)."""
    parts = []
    if "peel" in noises:
        parts.append("**What is noised (peeling + private fit):** " + "; ".join(noises["peel"]) + ". Every record "
                     "counts in every score; the fit reads only the peeled features"
                     + (" and an intercept." if intercept else "."))
    if "kt" in noises:
        parts.append(f"**What is noised (knowledge transfer):** the teacher's answers ⟨θ̂, x̃_i⟩ on m = {m} public "
                     f"synthetic points x̃_i ~ Uniform[−K, K]^d get {noises['kt'][0]}; the teacher's ridge "
                     f"λ = {noises['kt_lambda']:.3g}. The student only ever sees those noisy answers.")
    return "\n\n".join(parts)


# ---- what the page shows and how it works (under the first screen) ------------------------------------------

VIEWS_NOTICE = "One view at a time: only the open view is computed, and moving ε, δ or the repeats redraws just that view."


def what_this_page_shows(n: int, data_source: str = "") -> str:
    """``data_source``: where bundled data come from ("" for others)."""
    return (
        "**The question.** Which of the genomic features predict a drug's response (ln IC50), and how well — found "
        "with differential privacy, so that the result does not reveal any one cell line (or, on your own data, any "
        "one person). The **non-private model** is ordinary sparse regression on the same data: the answer privacy "
        "costs you something against.\n\n"
        "**The figure.** One simulated private release at the chosen ε beside the non-private model: each stem is a "
        "coefficient of a feature one of them kept (a dot marks it). Small ε: the private model often keeps other "
        "features than the non-private one, with noisy coefficients; large ε: it keeps the same ones.\n\n"
        "**The answer line.** The error on held-out cell lines (or records) the models never saw, over the simulated "
        "releases (mean and 10–90 % range), and how many of the non-private model's features the private one keeps."
        "\n\n"
        "**The release** (peeling + private fit) picks the s most informative features from scores that every record "
        "contributes to (Gumbel noise: the exponential mechanism s times), then fits them with Gaussian noise. The "
        "other views compare it with knowledge transfer (Wang & Gu, AAAI 2020), DP-IGHT, DP Frank–Wolfe and "
        "two-stage.\n\n"
        f"**Unit of privacy:** one person / cell line (replace-one neighbours; n = {n} is public)."
        + (f"\n\n**Data:** {data_source}." if data_source else ""))


KT_TITLE = "How knowledge transfer works, and what its guarantee assumes"
KT_EXPLAINED = (
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
    "(3) the textbook Gaussian σ, which we replace by the exact (analytic) σ whenever that is larger (ε > 1).")
RELEASABLE = ("Peeling + private fit (default) or KT with private support can be released; the paper's knowledge "
              "transfer cannot: it fails the audit (docs/sparse.md; the caveat is shown with its results).")


def exports(m: int) -> str:
    return ("Peeling exports the peeled features in order, the coefficients with the intercept, and the noisy "
            "statistics they were computed from (ZᵀZ and Zᵀy, or the noisy gradients); KT with private support "
            f"exports the student's coefficients, the m = {m} noisy synthetic responses and the noisy votes. Never the "
            "data.")


PEEL_TITLE = "How peeling + private fit works (the default release)"
PEEL_EXPLAINED = (
    "**Scores.** For every feature j, u_j = |Σ_i x_ij·y_i|/n on the clipped data (|x| ≤ K; |y| ≤ r, or labels "
    "±1). Replacing one record moves every score by at most 2Kr/n (2K/n for labels) — all of them at once.\n\n"
    "**Peeling.** Gumbel noise on every score, keep the s largest: the same as running the exponential mechanism s "
    "times, removing each winner (Durfee & Rogers 2019; Cai, Wang & Zhang 2021). The s selections are composed in "
    "zero-concentrated DP (ρ = s·Δ²/(2β²)), with half of the budget.\n\n"
    "**Fit on the peeled features** with the other half: linear — Gaussian noise on ZᵀZ and Zᵀy with z = (1, x_S) "
    "(sensitivities √2·(1 + sK²) and 2r·√(1 + sK²)), then least squares with the ridge read off the noisy matrix "
    "(AdaSSP); logistic — 30 gradient steps, Gaussian noise on each mean gradient (sensitivity 2√(1 + sK²)/n). "
    "The total ρ is converted to (ε, δ) by ε = ρ + 2√(ρ ln(1/δ)). Every noise scale depends on n, s, K, r, ε and "
    "δ only. The audit page checks it on a record that tips the selection and on records at every bound.")
PRIVATE_SUPPORT_TITLE = "How the private-support variant fixes the caveat"
PRIVATE_SUPPORT_EXPLAINED = (
    "**KT with private support** spends half of ε choosing the s features by noisy block votes (as two-stage "
    "does), then fits the teacher as a ridge regression on that now-public support — a λ-strongly convex problem, "
    "so the paper's sensitivity argument holds — and computes the sensitivity of X̃_Sθ̂ exactly with the largest "
    "singular value of X̃_S (no probabilistic event). The other half of ε (and δ) pays for the Gaussian noise on "
    "the synthetic responses. The audit page's 'support flip' pair, which breaks the paper's version, passes.")
