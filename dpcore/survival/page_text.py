"""The survival page's prose: labels, help texts, captions and explanations, as plain strings.

Why a file of its own: the page and its sections (``ui/survival/``) arrange controls and figures; the paragraphs
that explain them are read and reviewed as text, here, without the layout around them. A function takes the few
numbers a paragraph quotes. Names read from a link or an upload are never put in here unescaped: the caller wraps
the returned text in ``ui.literal`` where the page did.
"""

from __future__ import annotations

HEADER = ("How long patients survive, estimated from noisy counts: move ε and compare the private curve with the one "
          "computed without privacy.")

# ---- the question: data source and an upload's columns ------------------------------------------------------------
UPLOAD_HINT = ("Upload a CSV with a time column and an event column (0 = censored, 1..K = event type); optionally a "
               "group column. Example: `time,event,arm` with rows like `12.5,1,A`.")
TIME_UNIT_HELP = ("Sets the grid unit and the horizon's unit below (both can be changed). Guessed from the column's "
                  "name only (e.g. 'week'); check it.")
GROUP_LABELS_HELP = ("Which groups exist must be declared, not read off the file: a lone person in a rare group would "
                     "otherwise reveal themselves through the list of groups. Rows with other labels are refused.")


def groups_not_declared(group_column: str) -> str:
    """Why the curves pool everyone while an upload's group labels are not declared (wrap in ``ui.literal``)."""
    return (f"To compare groups by {group_column!r}, declare its labels above (as the study design fixes them). Until "
            "then the curves pool everyone.")


COMPARE_HELP = ("Per-group curves and a log-rank test; the groups' counts are released together (sensitivity 2; 4 with "
                "the paper's rule, which also releases each group's number at the start).")

# ---- the expert settings: labels, the short words of the folded label, help texts ----------------------------------
#: The noise choices (``?sv_noise=``): what each is for, shortly.
NOISE_LABELS = {"discrete_laplace": "discrete Laplace (one release)", "gaussian": "Gaussian (several releases)",
                "laplace": "Laplace (preview only)"}
#: The band between grid edges (``?sv_band=``): the default first.
BAND_LABELS = {"half": "half-way to the monotone envelope (default)",
               "envelope": "full envelope (times in whole grid units)"}
RULE_LABELS = {"isotonic": "both ends + monotone fit (default)", "bridge": "both ends, unclipped",
               "running": "running sum", "spec": "the paper's release and rule"}
#: Each setting's value as the folded settings label says it (short: the label is one line).
ESTIMATOR_WORDS = {"km": "Kaplan–Meier", "na": "Nelson–Aalen", "cif": "competing risks"}
BAND_WORDS = {"half": "half band", "envelope": "envelope band"}
NOISE_WORDS = {"discrete_laplace": "discrete Laplace", "gaussian": "Gaussian", "laplace": "Laplace (preview)"}
RULE_WORDS = {"isotonic": "monotone fit", "bridge": "unclipped", "running": "running sum", "spec": "the paper's rule"}

BAND_HELP = ("Between two edges the curve follows a constant hazard. The band there is the edges' band on that path, "
             "widened half-way to what a never-increasing curve allows (measured to cover on continuous times). Where "
             "times are recorded in whole units (e.g. whole years), declare it under 'Times recorded in': the curve is "
             "then read as their staircase. The full envelope covers wherever the edges do.")
HORIZON_HELP = ("Public, chosen from domain knowledge, not from the data (e.g. the trial's planned follow-up): times "
                "after H count as censored at H.")
WHOLE_HELP = ("Your statement, as the data's custodian, of how the study recorded its times: 'whole years' if every "
              "follow-up time is a whole number of years. The exact curve then steps only at those multiples, and the "
              "page, its tables, figures and the release read it as that staircase. The release prints the "
              "declaration and its reading rests on it; the privacy guarantee does not. Never set from the data: "
              "leave 'continuous' unless the study recorded the times so.")
AWARE_HELP = ("Recommended (on by default). Adds the variance of the known noise in every released count — events, "
              "censorings and the starting count, which move the risk sets — to the test (delta method; free "
              "post-processing). The plain test treats noisy counts as real people and rejects far too often at small "
              "ε; the noise-aware one keeps false positives at or below about 5 % but has less power. Report the "
              "noise-aware p-value.")
NOISE_HELP = ("Discrete Laplace (the default) is the most accurate for one release. Gaussian noise costs a small δ as "
              "well, and several Gaussian releases of the same people add up to far less than their sum under the "
              "ledger's tight accounting: from about five releases on one budget it gives each curve less noise (see "
              "'Several releases on one budget' below). Laplace is the paper's continuous noise, for previews only: a "
              "release with it uses discrete Laplace.")
DELTA_HELP = "The small probability with which the Gaussian's guarantee may fail; keep it well below 1/n."
RULE_HELP = ("All are free post-processing of the released counts. Default: the counts are made consistent (everyone "
             "leaves by the horizon, so all exits add up to the known n), nothing is clipped before the hazard, and "
             "each count's running total gets a monotone least-squares fit. The paper also releases each group's "
             "number at the start (twice the noise with groups) and clips every noisy count at 0 first, which adds "
             "about b/2 phantom deaths to every quiet bin and pulls the curve down. Measured on every bundled set: "
             "docs/survival.md.")
SEED_HELP = "Seeds the preview only; a release is seeded by the operating system."


def whole_units_word(unit: str, continuous: str) -> str:
    """How the 'Times recorded in' control names a choice."""
    return "continuous (default)" if unit == continuous else f"whole {unit}"


def upload_horizon_note(horizon: float, unit: str) -> str:
    """Why an upload's starting horizon must be set by the user (the last follow-up time is private)."""
    return (f"The horizon H = {horizon:g} {unit} is only the starting value for times in {unit}; it is not read from "
            "your file (the last follow-up time is private). Set H to your study's planned follow-up in Settings: if "
            "follow-up ended earlier, the bins after it hold noise only.")


def about(data_note: str, grid_note: str) -> str:
    """The page's prose for "What this page shows": the data, the grid's public rule, what a preview is."""
    return ((f"**The data.** {data_note}\n\n" if data_note else "") + f"{grid_note}\n\n"
            "**Preview and release.** The noisy results on this page are simulated in your session with a seeded "
            "generator to show what a release *would* look like; nothing is charged. Only the Release button makes a "
            "real, charged release that may leave the session. The views above the chart are the same preview: only "
            "the open one is computed, so moving ε redraws just that one.")


# ---- at this ε ------------------------------------------------------------------------------------------------------
#: The ε section's views (their labels are Markdown: fixed text only, never a name read from data).
VIEWS = ["Private vs non-private", "Over R noise draws", "Groups and log-rank"]
#: What the chosen post-processing does, in words (the teaching note under the headline).
TEACHING = {rule: "1. People are put in public time bins. 2. The counts per bin get noise. 3. " + step + " 4. The "
            "usual formulas run on these counts. The dark curve uses the same formulas on the true counts."
            for rule, step in {
                "isotonic": "Nothing is clipped yet: the noisy counts are first made consistent (everyone leaves by "
                            "the horizon, so all exits add up to the number of people n, which is known, and the "
                            "difference is shared out equally; the number at risk is the sum of the exits still to "
                            "come, so it shrinks to nothing at the horizon instead of drifting), "
                            "then each count's running total gets the closest never-decreasing fit, so no count is "
                            "negative without a one-sided clip that would add phantom deaths. People censored in a "
                            "bin count as at risk for half of it (the life-table rule).",
                "bridge": "The noisy counts are made consistent (everyone leaves by the horizon, so all exits add up "
                          "to the known n); negative counts are kept (clipping them would add "
                          "phantom deaths), and the curve is clipped to [0, 1] only when shown.",
                "running": "The number at risk is the noisy start minus everyone who left earlier (negative counts "
                           "kept in that sum), never below 0 nor rising; events are clipped at 0.",
                "spec": "The paper's release also noises the number at the start of each group. Negative counts are "
                        "set to 0, the number at risk is rebuilt bin by bin (start minus everyone "
                        "who had an event or was censored earlier), and a bin cannot have more events than people at "
                        "risk (the paper's rule).",
            }.items()}


def what_is_noised(noised: str, noise) -> str:
    """The first paragraph of the details at this ε: which counts get noise, and how much."""
    return (f"**What is noised:** {noised}. Each count gets independent {noise.describe()} — that is **each count ± "
            f"{noise.std:.2g} people** (standard deviation). Everything else is computed from those noisy counts.")


def intervals_explained(n_groups: int, statistic: str, noise) -> str:
    """Why the grid is public, what the two intervals cover, and the sensitivity behind the noise's scale."""
    return (
        "**Why the grid must be public.** The set of distinct event times is itself private: adding one person "
        "can add a time point. So the bins come from a unit and a horizon chosen without looking at the data."
        "\n\n**What the intervals cover.** The darker Greenwood interval treats the noisy counts as if "
        "they were real people; it covers sampling error only. The lighter 95 % interval — the one a release "
        "reports as ci_lower, ci_upper — is recomputed from the released counts alone (redrawing the known "
        "noise and re-running the post-processing, a parametric bootstrap, with each redraw's sampling "
        "error) and covers both sources; it costs no extra privacy.\n\n"
        "**Sensitivity.** Replacing one person moves them from one cell to another: 2 counts change by 1"
        + ((", even when they switch group, since only the cells are released (the number at the start is "
            "their sum, and the total n is the same for both data sets)" if statistic == "histogram"
            else "; with the paper's release each group's number at the start is noised too, so a person "
                 "who switches group changes 4 counts") if n_groups > 1 else "")
        + (f". The noise scale is sensitivity / ε = {noise.scale:g}." if noise.kind != "gaussian" else
           f". Gaussian noise is calibrated on the L2 norm of that change, √(counts changed) = "
           f"{noise.sensitivity:.3g}: σ = {noise.scale:.3g} is the smallest σ that is (ε, δ)-DP at it "
           "(the analytic Gaussian mechanism)."))


def km_note(minimum: float, read: str) -> str:
    """The key under the Kaplan–Meier headline."""
    return (f"The private curve is one preview draw, read {read}; dotted where fewer than {minimum:.3g} people are at "
            "risk. Shading: the released 95 % band (noise and sampling). Under the chart: the number at risk, noisy "
            "(what a release shows) and true (never released).")


def step_costs(binning: float, noise_cost: float) -> str:
    """What the grid and the noise each cost the Kaplan–Meier curve."""
    return (f"**What each step costs** (largest gap where ≥ 10 % are at risk): binning alone **{binning:.3f}** (the "
            f"rule on the true binned counts against lifelines on the exact times) · noise **{noise_cost:.3f}** (this "
            "preview against the rule on the true binned counts).")


KM_SUMMARY_CAPTION = (
    "Every private value is read off the released curve and band by the same rule (a release exports them as "
    "'survival_at_times', 'rmst' and, with groups, 'differences'); the restricted mean's interval comes from the "
    "band's redraws. The private median is where the curve reaches 0.5; its interval inverts the band at 0.5 "
    "(Brookmeyer–Crowley), so it covers the noise as well as sampling error. \"Not reached\": the curve or a band "
    "edge stays above 0.5 up to the horizon.")
YEARS_HELP = "Public times a paper quotes, e.g. 1, 2 and 5 years; those past the horizon are left out."
TAU_HELP = "The horizon of the restricted mean survival time (public; at most the grid's horizon)."


def other_note(minimum: float) -> str:
    """The key under the Nelson–Aalen and competing-risk headline."""
    return (f"The private curve is one preview draw, dotted where fewer than {minimum:.3g} people are at risk. Lighter "
            "shading: the released 95 % interval (noise and sampling); darker: the Greenwood interval (sampling "
            "only). Under the chart: the number at risk, noisy (what a release shows) and true (never released).")


DRAWS_HELP = "How many simulated releases at this ε the chart and the table below summarise."


def utility_caption(grid_unit: str, draws: int, exact_p_value: float | None) -> str:
    """What the table of the draws view measures."""
    return (f"Errors in {grid_unit} (integrated) or probability (sup). Mean and 5–95 % of {draws} preview releases. "
            "Coverage: share of grid points where an interval contains the non-private curve — the released interval "
            "is the one a release exports (noise and sampling), Greenwood's treats the noisy counts as real people; "
            "log-rank decision at α = 0.05" + (f"; non-private p = {exact_p_value:.3g}." if exact_p_value is not None
                                                else "."))


DRAWS_TEACHING = ("Each thin line is one possible release. One lucky draw can look perfect; the band shows what to "
                  "expect.")
DIFFERENCES_CAPTION = (
    "Differences between groups (this preview draw), each with its 95 % interval from the band's redraws (noise and "
    "sampling), read by the within-bin rule; a release exports them as 'differences'. A median difference is 'not "
    "estimable' where a group's median is not reached in more than 2.5 % of the redraws.")
LOGRANK_TEACHING = (
    "The log-rank test compares observed and expected events per group in every bin; here it runs on the noisy "
    "per-group counts, so its p-value is private too. The plain version forgets that the counts carry noise, so at "
    "small ε it often 'finds' differences that are only noise; the noise-aware version adds the noise's variance and "
    "is more cautious.")
LOGRANK_WHY_AWARE = (
    "The plain test treats the noisy counts as real people, so at small ε it finds differences that are only noise; "
    "the noise-aware test adds the variance of the known noise in every released count (events, censorings and the "
    "starting count, which move the risk sets too) and keeps false positives at or below about 5 %. A release carries "
    "both and marks the noise-aware one as recommended.")

# ---- several releases on one budget ---------------------------------------------------------------------------------
PLAN_HELP = ("Plan k releases of these people that together spend the ε above (and a total δ), and measure which "
             "noise gives each release the smaller error.")


def plan_caption(epsilon: float, total_delta: float) -> str:
    """How to read the table of several releases on one budget."""
    return (f"Each row: k releases of these people that together spend ε = {epsilon:g}, δ = {total_delta:g} under the "
            "tight accounting the ledger checks caps on. Discrete Laplace: the largest ε per release whose k releases "
            "stay within the total. Gaussian: k Gaussians of σ·√k compose to exactly the one Gaussian that spends the "
            "total, so noise grows like √k instead of k; each release is charged the (ε, δ) shown. Sup error: median "
            "over 100 preview releases of the largest gap to the non-private curve. To follow a Gaussian row, choose "
            "Noise = Gaussian, its δ, and the largest ε step at or below its ε.")


PLAN_TEACHING = ("One release: discrete Laplace is the better noise. Many releases of the same people: each Gaussian "
                 "release costs less of the shared budget, so from about five releases on one budget each curve gets "
                 "less noise with Gaussian noise.")

# ---- the trade-off over ε ---------------------------------------------------------------------------------------
SWEEP_DRAWS_HELP = ("Simulated releases at each ε of the curve below. The release's internal note quotes the curve at "
                    "the chosen ε.")
#: the trade-off figure's teaching note, naming each of its panels (a third one when the data have groups)
TRADE_OFF_NOTE = ("Each point repeats the whole release many times at one ε and measures how far the private curve "
                  "lands from the non-private one ({panels}). Moving right (larger ε) means less noise and weaker "
                  "privacy. Read the ε chosen above off the horizontal axis.")
TRADE_OFF_PANELS = {False: "left: the largest gap; right: the gap summed over time",
                    True: "left: the largest gap; middle: the gap summed over time; right: how often the private "
                          "log-rank test between the groups decides as the non-private one does"}
