"""The FDR page's prose: paragraphs, captions and help texts (plain strings; the page and ``ui/fdr`` show them).

Why a file of text: the page reads as its controls and figures when the sentences that explain them live here,
and a reviewer checks the wording of the page in one place. Texts that report computed results (the noise, the
power frontier, a release's utility) are built in :mod:`dpcore.fdr.session`; the ones here take at most the
settings they repeat. Everything is Markdown for fixed text: nothing here interpolates a name read from data, a
file or a link (a caller passes such a value through ``ui.literal`` first).
"""

from __future__ import annotations

import math

TITLE = "Online FDR control with differential privacy"
LEAD = ("A stream of hypotheses, each called a discovery or not at once, keeping the share of false discoveries near "
        "a target: PAPRIKA does it with privacy, SAFFRON and its relatives without.")

#: The data sources, as the question's select box names them
SOURCES = {"bernoulli": "Bernoulli simulation", "truncexp": "truncated-exponential simulation",
           "upload": "upload p-values (CSV)"}
#: Where η comes from, as the η radio names it
ETA_LABELS = {"stated": "a value I state", "paper": "sample size (paper: √(ln n / n), preview only)",
              "binomial": "exact one-sided binomial test"}
#: the views of the settings and ε (a view switch: only the open one is computed and drawn); fixed text, shown as
#: Markdown
VIEWS = ["One stream", "All methods over runs", "FDR and power vs π1", "FDR and power vs ε", "Power frontier"]

RELEASABLE_BUTTON = "Releasable configuration: n = 5,000 records per test, exact η, proven shift"
PAPER_BUTTON = "The paper's settings: n = 1,000, the paper's η and shift s = 1 (preview only)"

# ---- the stream ------------------------------------------------------------------------------------------------

SEED_HELP = "Seeds the simulation and the preview noise; a release is seeded by the OS."


def simulation_caption(source: str, runs: int) -> str:
    """How the simulated stream is drawn, for the Bernoulli or the truncated-exponential design."""
    how = ("Each hypothesis: n Bernoulli draws, θ = 0.5 under the null; p-value = exact one-sided binomial tail "
           "P(Bin(n, ½) ≥ Σx)." if source == "bernoulli" else
           "Each hypothesis: n draws of a truncated exponential on [0, 1] (null) or θ times it (alternative); "
           "Z = (Σx − nμ0)/(√n σ0), p = 1 − Φ(Z).")
    return how + (f" Truth labels H_t ~ Bernoulli(π1). Fresh data for each of the {runs} runs; the first run is the "
                  "'one stream' shown.")


UPLOAD_LABEL = "Upload a CSV: one row per hypothesis, in stream order"
UPLOAD_HINT = ("The file needs a column of p-values in [0, 1] in the order the hypotheses arrived; optionally a 0/1 "
               "column of known truth (1 = real effect), e.g. from a simulation study. Example: `p,truth` with rows "
               "like `0.0004,1`.")
LABEL_COLUMN_HELP = ("Names the hypotheses in the results and the released table (e.g. a gene or drug); the labels are "
                     "exported as they are, so they must not describe people.")

# ---- the sensitivity η -----------------------------------------------------------------------------------------

ETA_HEADING = "**Sensitivity η of the p-values** (how much one person can change every log p)."
STATED_THETA_HELP = ("Part of the upload's public design, stated before looking at the data: the effect size the study "
                     "was planned for. It sets the default floor μ and the power the page says a release can reach; it "
                     "is never read off the p-values.")
ETA_STATEMENT = "I state that one person moves every log p by at most this η"
ETA_STATEMENT_HELP = ("A release's guarantee rests on this statement, and its notes say so. The link never sets this "
                      "box.")
FLOOR_HELP = ("The floor μ: below it one record may move log p by more than η, so p-values are raised to μ. A lower μ "
              "lets strong effects count as stronger evidence but raises η. It starts at the p-value of the "
              "alternative's median count for n records per test (the design's, never the data's).")
ETA_CAPTION = ("η must be fixed from the design (test and sample size), never from the data. The exact binomial η is a "
               "proof for p-values above the floor μ, so p-values below μ are raised to μ (in the preview and the "
               "release); a stated η is your claim about your own test, and a release says that it rests on it.")


def below_floor(count: int, column: str, floor: float, zeros: int, first_row: int) -> str:
    """An upload's p-values below the floor μ, counted (``column`` is already shown literally by the caller)."""
    return (f"{count:,} p-value{'s' if count > 1 else ''} in column {column} {'are' if count > 1 else 'is'} below "
            f"the floor μ = {floor:g}" + (f" ({zeros:,} of them equal to 0)" if zeros else "")
            + f" and count as μ (log p is taken of max(p, μ)); the first is in row {first_row}.")


# ---- PAPRIKA's settings ----------------------------------------------------------------------------------------

SHIFT_HELP = ("The paper's A = s·ηc·ln(2/(3δ'))/ε (its experiments use s = 1, Theorem 4 s = 4), or the shift proven "
              "for the whole stream, A = 4ηc/ε·ln(2k/(3δ)) + η − ln 2, which covers all k hypotheses at once. Releases "
              "use the proven one.")
RULE_HELP = ("The authors' code indexes γ by candidate counts, so the threshold depends on unreleased data: not "
             "private (see the audit page). Offered to reproduce their figures only; releases always use the paper "
             "rule.")


def shift_warning(shift: str) -> str:
    """Why a shift other than the stream's leaves the δ of the guarantee unproven (``shift``: its label)."""
    return (f"Shift {shift}: the δ part of the guarantee does not hold. Theorem 4's s = 4 keeps one p-value near the "
            "candidacy boundary 2λ from being rejected by noise except with probability δ, but one person moves every "
            "p-value of the stream, so up to T such events each get δ (measured: P = 0.07 = 280δ with 800 boundary "
            "p-values at ε = 1); with s < 4 even one gets more. The shift proven for the stream covers them all (see "
            "what it costs in the view 'All methods over runs').")


# ---- the views -------------------------------------------------------------------------------------------------

STREAM_TEACHING = (
    "1. Each dot is a hypothesis the private rule tested (a candidate), in arrival order, drawn at height −ln p on a "
    "log axis: higher means a smaller p-value, stronger evidence. The others can never be rejected and are only "
    "counted (the shaded band at the bottom, below the candidacy boundary −ln 2λ, or −ln 2α_t for PAPRIKA AI), and "
    "after the c-th discovery (the dashed line) nothing is tested (the grey strip). 2. The solid blue step line is "
    "the noisy threshold A − log α_t − Z_α: the rule's test level α_t as −log α_t (the dashed blue line), raised by "
    "the shift A, minus threshold noise that is redrawn after every discovery (that is why it jumps at each "
    "diamond). 3. A hypothesis is rejected when it is a candidate (p < 2λ, or 2α_t for PAPRIKA AI) and −ln p − Z_t "
    "lies above the line — Z_t is fresh noise for every test, so dots just above the line can be missed and dots "
    "just below can be hit. 4. The dotted line is what non-private SAFFRON would use, −log α_t: no shift, no noise.")

SPARSE_VECTOR_TITLE = "SparseVector, candidacy, δ and η in plain words"


def sparse_vector_explained(cutoff: int, eta: float) -> str:
    """The explanation under the stream, at the page's cutoff c and η."""
    return (
        "**SparseVector.** Checking 800 p-values against a threshold and revealing every yes/no answer would cost "
        "privacy 800 times. SparseVector adds noise to the threshold once and to each test, and can then reveal all "
        "the 'no' answers for free: only each 'yes' (discovery) uses up budget. That is why PAPRIKA needs a cutoff "
        f"c = {cutoff}: after c discoveries it must stop, and each noise scale grows with c.\n\n"
        "**Reading the noise line under the figure.** The shift A is in log p units: a p-value must be about "
        "e^A times smaller than α_t to be rejected on average, give or take the per-test noise Z_t, so null "
        "p-values near α_t still get through by chance.\n\n"
        "**Why log p.** One person changes a p-value by a *factor* (at most e^η), not by an amount — small p-values "
        "move little in absolute terms. On the log scale that factor is a shift of at most η, which Laplace noise "
        "of scale ∝ η/ε hides.\n\n"
        "**Why candidacy is not noised, and what δ pays for.** SAFFRON only tests *candidates* (p below λ) and its "
        "wealth depends on how many candidates it saw. Noising that too would cost budget at every step. PAPRIKA "
        "keeps the candidate check exact but uses 2λ and caps α_t at λ: a p-value near the candidate boundary is "
        "then at least twice the level, so it could only be rejected if the noise overcomes that gap *and* the "
        "shift A. Every test runs on the same people, so one person can move *all* the p-values at once, and "
        "many of them may sit at the boundary: the proven shift makes each such rejection a δ/k event, so that "
        "all k together stay within δ (Theorem 4's s = 4 makes each one a δ event, k of them up to kδ). The "
        "paper's threshold rule also lets wealth decay at every step (like LORD), so the thresholds depend only "
        "on the released discoveries.\n\n"
        f"**What η means here.** η = {eta:.4g}: replacing one person's record can multiply every p-value by at "
        f"most e^η = {math.exp(eta):.4f}. The paper takes η = √(ln n / n) ≈ 0.083 at n = 1000, but for the "
        "binomial test one record moves a small p-value by much more; the exact η is a proof only above a floor "
        "μ, so the guarantee is 'for p-values above μ' and smaller ones are raised to μ.")


NO_TRUTH_COUNTS = ("Without known truth labels FDR and power cannot be computed; the panel shows the number of "
                   "discoveries instead.")
ERROR_BARS = "Error bars: ±2 standard errors over runs. mFDR = total false / total discoveries."


def floor_caption(floor: float) -> str:
    """Why the exact η caps the strongest evidence at the floor μ."""
    return (f"With the exact η, p-values below μ = {floor:g} count as μ, so even the strongest effect has log p = "
            f"{math.log(floor):.1f}; it is rejected only when that plus noise falls below log α_t − A (α_t ≤ λ). A "
            "lower μ allows stronger evidence but raises η and so A.")


RUNS_TEACHING = ("A single stream can be lucky or unlucky; the bars average the false discovery proportion (FDR) and "
                 "the share of real effects found (power) over many streams.")
PI1_NEEDS_SIMULATION = "The sweep over π1 simulates fresh streams: choose one of the simulations as the data source."
PI1_REFERENCE = ("Reference (authors' code rule, ε = 5, s = 1): SAFFRON power 1.0 with FDR ≤ 0.05, PAPRIKA AI power "
                 "0.78–1.0 with FDR ≤ 0.025, PAPRIKA power 0.73–1.0 with FDR up to ≈ 0.11 at π1 = 0.05.")
NO_TRUTH = "Without known truth labels FDR and power cannot be computed."
EPS_CAPTION = ("Private methods: mean over runs with ±2 SE error bars at each ε; the non-private methods do not depend "
               "on ε (flat). Read the ε chosen above off the horizontal axis.")
FRONTIER_NEEDS_BERNOULLI = ("The frontier simulates the Bernoulli design (the exact binomial test, whose η is proven): "
                            "choose the Bernoulli simulation as the data source.")


def frontier_caption(method: str, runs: int, T: int, pi1: float, theta: float, cutoff: int, shown: int) -> str:
    """What the power frontier simulates (``shown``: the cutoff drawn, 40 when the page's is off the grid)."""
    return (f"{method} as released: η exact for the one-sided binomial test with n records per test above the floor "
            "μ = the p-value of the alternative's median count (hover a cell for μ, η and the shift A), the shift "
            f"proven for the stream, the paper's threshold rule; {runs} simulated streams per cell with T = {T}, "
            f"π1 = {pi1:g}, θ = {theta:g} and this page's α, δ, λ and γ. Only public simulation settings go in, so "
            "the frontier is computed once and shared."
            + ("" if shown == cutoff else f" The cutoff c = {cutoff} is not on the frontier's grid: c = 40 is shown."))


def upload_needs_binomial(eta_source: str) -> str:
    """Why an upload's reachable power cannot be simulated with this η (``eta_source``: its label)."""
    return ("**What a release of this upload can reach** is simulated from its public design: choose the exact "
            "binomial η under Settings and state the records per test and the alternative (with "
            f"{eta_source!r} there is no design to simulate).")


# ---- the release and the page's notes ---------------------------------------------------------------------------

RELEASE_RULE = "Releases always use the paper's threshold rule (the authors' code rule is not private)."
PREVIEW_NOTE = "Of the views, only the open one is computed, and moving ε or a setting redraws only it."
WHAT_THIS_PAGE_SHOWS = (
    "Hypotheses arrive one at a time (e.g. one drug–gene association per week). For each one a rule must decide "
    "*at once* whether to call it a discovery, while keeping the **false discovery rate** (the expected share of "
    "false calls among all calls) near a target α. SAFFRON and its relatives do this with a *test level* α_t that "
    "grows after each discovery (they 'earn wealth') and decays otherwise.\n\n"
    "The p-values are computed from people's data, so the pattern of discoveries can leak information about them. "
    "**PAPRIKA** makes the discovery list differentially private with the *SparseVector* technique: it compares a "
    "noisy log p-value with a noisy, lowered threshold and only reveals yes/no answers. Only the answers 'yes' cost "
    "privacy, so the budget is split over at most **c** discoveries; after c discoveries the stream stops "
    "rejecting.\n\n"
    "**The figure** shows one stream: each dot a hypothesis the private rule tested, higher meaning stronger "
    "evidence; a dot above the private threshold (blue step line) is a discovery. The non-private rule's threshold "
    "is the dotted grey line. **The answer line** says how many of the real effects each rule finds (power) and "
    "what share of its discoveries are false.\n\n"
    "**Unit of privacy:** one person in the data behind the p-values. Replace-one neighbours move every p-value by "
    "at most a factor e^η (η is set under Settings, from the design, never from the data).")
