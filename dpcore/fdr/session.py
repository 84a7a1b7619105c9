"""The FDR page's session without Streamlit: its fixed choices, the seed streams of its previews, the work behind
each view, the tables the views show and the sentences that put their numbers into words.

Why here: the page (``app_pages/fdr.py``) and its sections (``ui/fdr/``) only arrange controls and figures, and
what they compute is tested here without a browser. The notebook a page exports (:mod:`dpcore.notebooks.fdr`)
takes its seeds from :data:`SEED_STREAMS` too, so it prints the page's numbers. The package is called through its
face (``fdr.summary_table``), as a page calls it, so that a test wrapping a function there sees every call.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

from dpcore import fdr
from dpcore.core.seeds import SeedStreams

EPS_GRID = (0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 20.0)
PI1_GRID = (0.01, 0.02, 0.03, 0.04, 0.05)
ALPHAS = [0.01, 0.02, 0.05, 0.1, 0.2]  # the target-FDR slider's options
#: Where η may come from, per data source: only the exact binomial η is proven for a test here (the Bernoulli
#: simulation's); the truncated-exponential z-test has none, so it is preview-only.
ETA_SOURCES = {"bernoulli": ["binomial", "paper"], "truncexp": ["paper"], "upload": ["stated", "paper", "binomial"]}
SHIFTS = (0.5, 1.0, 1.5, 2.0, fdr.THEOREM_4_SHIFT, fdr.STREAM)
PRIVATE_METHODS = ["PAPRIKA", "PAPRIKA AI"]
#: Records per test of the simulations: the frontier's grid (Bernoulli); the truncated-exponential simulation draws
#: every record, so it stays at the paper's sizes
RECORDS = {"bernoulli": list(fdr.FRONTIER_RECORDS), "truncexp": [100, 200, 500, 1000, 2000]}
#: The page opens on a configuration whose release has power: with the paper's other settings, the power
#: frontier (view "Power frontier") finds 5,000 records per test the fewest reaching power 0.8 at ε ≤ 5 with the
#: exact η and the proven shift (tests/fdr/test_fdr_frontier.py checks it). The paper's settings are one click away.
RELEASABLE = {"fdr_n": 5000, "fdr_etahow": "binomial", "fdr_s": fdr.STREAM}
#: The paper's experiments: n = 1000, η = √(ln n / n) and shift s = 1 — previews only (neither may be released)
PAPER = {"fdr_n": 1000, "fdr_etahow": "paper", "fdr_s": 1.0}
#: What both configurations share: the paper's stream, target and PAPRIKA settings, ε = 5
SHARED = {"fdr_src": "bernoulli", "fdr_T": 800, "fdr_pi1": 0.05, "fdr_theta": 0.75, "fdr_alpha": 0.05,
          "fdr_delta": 2.5e-4, "fdr_c": 40, "fdr_lam": 0.2, "fdr_gamma": "power", "fdr_rule": "paper", "eps": 5.0}
#: An upload's stated alternative (success rate per record under the alternative; null 0.5) for the exact binomial
#: η: with the records per test it is the upload's public design, which sets the default floor μ (as
#: :func:`dpcore.fdr.design_floor` does for the simulation) and the power the page says the upload can reach.
#: Never read off the data (the constant μ = 10⁻⁶ left an upload of 5,000 records per test no rejection).
UPLOAD_THETAS = [0.55, 0.6, 0.65, 0.7, 0.75, 0.8]
#: The share of effects the power statement for an upload assumes (the paper's π1), stated beside it
UPLOAD_PI1 = 0.05
#: Noise draws × hypotheses an upload's panels run at most: memory and time per slider move stay bounded
UPLOAD_CELLS = 250_000

#: The preview's random streams, each the page's seed plus a fixed offset, named once so that the page and its
#: notebook draw the same numbers. The offsets are the ones the page has always used (old links keep their
#: previews); the simulated streams and the power frontier read the seed itself (each draws its own streams).
SEED_STREAMS = SeedStreams({"streams": 0, "frontier": 0, "summary": 1, "pi1 sweep": 2, "eps sweep": 3,
                             "shift cost": 4, "one stream": 5})
stream, rng = SEED_STREAMS, SEED_STREAMS.rng


@dataclass
class Page:
    """What the page's question and settings fixed, filled in page order by its controls and read by its views and
    release. ``source`` is "bernoulli", "truncexp" or "upload"; a simulation's design is ``n_obs``, ``pi1`` and
    ``theta``; an upload's values (``p``, ``truth``, ``labels``) stay in this session, never in a shared cache.
    ``p_runs`` and ``truth_runs`` are the (runs, T) streams every preview runs on."""

    source: str
    runs: int = 0
    T: int = 0
    seed: int = 0
    label: str = ""
    fingerprint: str = ""
    n_obs: int | None = None
    pi1: float | None = None
    theta: float | None = None
    p: np.ndarray | None = None
    truth: np.ndarray | None = None
    labels: np.ndarray | None = None
    pcol: str | None = None
    tcol: str | None = None
    cohort: Any = None
    eta_how: str = ""
    sens: fdr.Sensitivity | None = None
    eta_confirmed: bool = True
    lattice_problem: str | None = None
    p_runs: np.ndarray | None = None
    truth_runs: np.ndarray | None = None

    @property
    def simulated(self) -> bool:
        return self.source != "upload"

    def design(self) -> tuple:
        """A simulation's public design, the key of its shared caches: (kind, runs, T, π1, n, θ, seed)."""
        return self.source, self.runs, self.T, self.pi1, self.n_obs, self.theta, self.seed


def upload_runs(runs: int, T: int) -> int:
    """The noise draws an upload's panels use: ``runs``, fewer for a long stream (:data:`UPLOAD_CELLS`)."""
    return max(2, UPLOAD_CELLS // T) if runs * T > UPLOAD_CELLS else runs


def stacked(p: np.ndarray, truth: np.ndarray | None, runs: int) -> tuple[np.ndarray, np.ndarray | None]:
    """An uploaded stream repeated ``runs`` times: the panels redraw the noise on the same p-values."""
    return (np.broadcast_to(p, (runs, p.size)).copy(),
            None if truth is None else np.broadcast_to(truth, (runs, p.size)).copy())


def paprika_summary(read) -> str:
    """The folded PAPRIKA settings' label: their values, ``read(key, default)`` by their controls' keys."""
    shown = (("fdr_method", PRIVATE_METHODS[0], str), ("fdr_alpha", 0.05, lambda a: f"α = {a:g}"),
             ("fdr_delta", 2.5e-4, lambda d: f"δ = {d:g}"), ("fdr_c", 40, lambda c: f"c = {c}"),
             ("fdr_s", RELEASABLE["fdr_s"], lambda s: f"shift {fdr.shift_label(s)}"),
             ("fdr_lam", 0.2, lambda lam: f"λ = {lam:g}"), ("fdr_rule", "paper", lambda r: f"{r} rule"))
    return " · ".join(words(read(key, default)) for key, default, words in shown)


def settings_values(s: fdr.Settings, method: str) -> dict:
    """The PAPRIKA settings by their controls' keys (what :func:`paprika_summary` reads)."""
    return dict(fdr_method=method, fdr_alpha=s.alpha, fdr_delta=s.delta, fdr_c=s.cutoff, fdr_s=s.shift,
                fdr_lam=s.lam_paprika, fdr_rule=s.rule)


# ---------------------------------------------------------------- the work behind the views


def simulated_streams(kind: str, R: int, T: int, pi1: float, n: int, theta: float, seed: int) -> fdr.Streams:
    return fdr.page_streams(kind, R, T, pi1=pi1, n=n, theta=theta, seed=stream(seed, "streams"))


def one_stream(p_runs: np.ndarray, s: fdr.Settings, method: str, seed: int):
    """The private rule and its non-private counterpart on the first stream: the first screen's answer and figure."""
    p1 = p_runs[:1]
    one = fdr.run_method(method, p1, s, rng=rng(seed, "one stream"), keep_threshold=True).squeeze()
    base_one = fdr.run_method("SAFFRON AI" if method == "PAPRIKA AI" else "SAFFRON", p1, s).squeeze()
    return one, base_one


def summary(p_runs: np.ndarray, truth_runs: np.ndarray, s: fdr.Settings, seed: int) -> pd.DataFrame:
    """FDR and power of the six methods over the runs (one kernel call, as :func:`fdr.run_method` each would)."""
    return fdr.summary_table(list(fdr.run_all(p_runs, s, rng=rng(seed, "summary")).values()), truth_runs)


def discovery_counts(p_runs: np.ndarray, s: fdr.Settings, seed: int) -> pd.DataFrame:
    """Without truth labels: each method's discoveries per run (mean, 5 % and 95 %), on the summary's noise."""
    runs = fdr.run_all(p_runs, s, rng=rng(seed, "summary"))
    counts = {m: r.rejections.sum(axis=1) for m, r in runs.items()}
    return pd.DataFrame({m: [v.mean(), np.quantile(v, 0.05), np.quantile(v, 0.95)] for m, v in counts.items()},
                        index=["mean", "5 %", "95 %"]).round(2)


def shift_cost(p_runs: np.ndarray, truth_runs: np.ndarray, s: fdr.Settings, seed: int) -> pd.DataFrame:
    return fdr.shift_cost(p_runs, truth_runs, s, rng=rng(seed, "shift cost"))


def pi1_sweep(streams: dict, s: fdr.Settings, seed: int) -> pd.DataFrame:
    """FDR and power over π1 (``streams``: one simulation per value of :data:`PI1_GRID`)."""
    return fdr.sweep(streams, fdr.METHODS, s, rng=rng(seed, "pi1 sweep"))


def eps_sweep(p, truth, s: fdr.Settings, seed: int) -> tuple[pd.DataFrame, list[fdr.FdrUtilityCurve]]:
    """FDR and power over :data:`EPS_GRID`: both private methods' curves, the non-private methods as flat lines."""
    generator = rng(seed, "eps sweep")
    curves = [fdr.utility_curve(p, truth, EPS_GRID, settings=s, ai=ai, rng=generator) for ai in (False, True)]
    rows = []
    base = fdr.summary_table([fdr.run_method(m, p, s) for m in fdr.METHODS[:4]], truth)
    for c in curves:
        for i, e in enumerate(c.epsilons):
            m = fdr.Metrics(c.fdp[i], c.power[i], c.n_rejections[i])
            rows.append(dict(x=e, method=c.method, FDR=m.fdr, FDR_se=m.fdr_se, power=m.mean_power,
                             power_se=m.power_se))
    for _, r in base.iterrows():  # non-private methods do not depend on ε: flat lines
        for e in EPS_GRID:
            rows.append(dict(x=e, method=r["method"], FDR=r["FDR"], FDR_se=r["FDR_se"], power=r["power"],
                             power_se=r["power_se"]))
    return pd.DataFrame(rows), curves


def frontier(T, pi1, theta, alpha, delta, lam, gamma, ai, seed) -> pd.DataFrame:
    """The release path's power frontier at the page's simulation settings (public inputs only)."""
    settings = fdr.Settings(alpha=alpha, delta=delta, lam_paprika=lam, gamma=gamma)
    return fdr.power_frontier(T=T, pi1=pi1, theta=theta, settings=settings, ai=ai,
                              seed=stream(seed, "frontier"))


def design_frontier(n: int, T: int, theta: float, s: fdr.Settings, ai: bool, epsilons: tuple,
                    seed: int) -> pd.DataFrame:
    """The release path's power at an upload's public design: n records per test, the stated θ, the upload's number
    of hypotheses T (public: the release lists every decision), π1 = :data:`UPLOAD_PI1`, this page's α, δ, λ, γ and
    cutoff, over ``epsilons``. No uploaded value goes in. Long streams use fewer simulated streams (bounded work)."""
    runs = int(np.clip(200_000 // T, 4, fdr.FRONTIER_RUNS))
    return fdr.power_frontier(records=[n], cutoffs=[s.cutoff], epsilons=epsilons, T=T, pi1=UPLOAD_PI1,
                              theta=theta, settings=s, ai=ai, runs=runs, seed=stream(seed, "frontier"))


def design_epsilons(s: fdr.Settings) -> tuple:
    """The ε values an upload's design is simulated at: the frontier's grid and the chosen ε."""
    return tuple(sorted({*fdr.FRONTIER_EPSILONS, s.epsilon}))


# ---------------------------------------------------------------- tables


def mean_se(means, ses) -> list[str]:
    """"mean ± SE" cells; power without true effects is undefined (NaN) and says so."""
    return [f"{m:.3f} ± {e:.3f}" if np.isfinite(m) else "— (no true effects)" for m, e in zip(means, ses)]


def summary_shown(table: pd.DataFrame) -> pd.DataFrame:
    """The summary as the page shows it: mean ± SE cells, mFDR and discoveries rounded."""
    return pd.DataFrame({
        "method": table["method"],
        "FDR ± SE": mean_se(table["FDR"], table["FDR_se"]),
        "power ± SE": mean_se(table["power"], table["power_se"]),
        "mFDR": table["mFDR"].round(3),
        "discoveries": table["rejections"].round(1),
    })


def shift_cost_shown(cost: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "shift": cost["shift"], "A (log p)": cost["A"].round(2), "method": cost["method"],
        "power ± SE": mean_se(cost["power"], cost["power_se"]), "FDR ± SE": mean_se(cost["FDR"], cost["FDR_se"]),
    })


def labelled(rejections: np.ndarray, labels, shown: int = 30) -> str:
    """The discoveries as "t = 12 (label)", the first ``shown`` of them, so a reader sees which hypotheses they are
    (the labels are the file's text: show the result literally)."""
    hits = np.flatnonzero(rejections)
    if not hits.size:
        return "none"
    listed = ", ".join(f"t = {t + 1} ({labels[t]})" for t in hits[:shown])
    return listed + (f" and {hits.size - shown} more" if hits.size > shown else "")


# ---------------------------------------------------------------- sentences


@dataclass(frozen=True)
class Answer:
    """The first screen's one line (``ui.answer``'s arguments)."""

    measure: str
    private: str
    nonprivate: str
    verdict: str = ""


def answer(one, base_one, truth: np.ndarray | None, T: int) -> Answer:
    """Discoveries of the private and the non-private rule on the stream, and with known truth how many of the real
    effects each finds (power) and what share of its calls are false (FDP)."""
    found_p, found_s = int(one.rejections.sum()), int(base_one.rejections.sum())
    if truth is None:
        return Answer(f"Discoveries in this stream ({one.method} vs {base_one.method})", f"{found_p}", f"{found_s}")
    fdp_p, pow_p = (float(v) for v in fdr.fdp_power(one.rejections, truth))
    fdp_s, pow_s = (float(v) for v in fdr.fdp_power(base_one.rejections, truth))
    if not np.isfinite(pow_p):
        return Answer("Discoveries in this stream", f"{found_p} (false share {fdp_p:.2f})",
                      f"{found_s} (false share {fdp_s:.2f})", verdict="Power: — (no true effects)")
    return Answer("Real effects found (power)", f"{pow_p:.0%} ({found_p} discoveries, {fdp_p:.0%} false)",
                  f"{pow_s:.0%} ({found_s}, {fdp_s:.0%} false)",
                  verdict=f"{one.method} against {base_one.method} on this stream of {T:,} hypotheses.")


def noise_text(s: fdr.Settings, T: int) -> str:
    """The noise scales, the shift and the claim at these settings, in one paragraph (what each means is in the
    explanation under the stream: text in the ε fragment is resent and redrawn on every move)."""
    bound = s.alpha + s.delta * T
    z_a, z_t = fdr.paprika_noise_scales(s.epsilon, s.eta, s.cutoff)
    A = fdr.shift_value(s.epsilon, s.delta, s.eta, s.cutoff, T, s.shift)
    return (f"**Noise at these settings:** threshold noise Z_α ~ Laplace({z_a:.3g}), redrawn after every discovery; "
            f"per-test noise Z_t ~ Laplace({z_t:.3g}) on log p; threshold lowered by A = {A:.3g} on the log p scale "
            f"(a p-value must be that many natural-log units below α_t to count). Claimed: ({s.epsilon:g}, "
            f"{s.delta:g})-DP for the discovery list and "
            + (f"FDR ≤ α + δT = {bound:.3g}." if bound < 1 else
               f"an FDR bound α + δT = {bound:.3g}, which is above 1 and so says nothing (lower δ or T)."))


def frontier_cell(table: pd.DataFrame, s: fdr.Settings, n_obs: int) -> pd.Series | None:
    """The frontier's row for the page's records per test, cutoff and ε (None when they are off its grid)."""
    at = np.flatnonzero((table["records"].to_numpy() == n_obs) & (table["cutoff"].to_numpy() == s.cutoff)
                        & np.isclose(table["epsilon"].to_numpy(), s.epsilon))  # NumPy: on every ε move
    return None if at.size == 0 else table.iloc[at[0]]


def frontier_shown(table: pd.DataFrame, s: fdr.Settings, n_obs: int) -> tuple[int, tuple | None]:
    """The cutoff the frontier view draws (the page's, or 40 off the grid) and the page's cell on it, if any."""
    cutoff = s.cutoff if s.cutoff in fdr.FRONTIER_CUTOFFS else 40
    on_grid = frontier_cell(table, dataclasses.replace(s, cutoff=cutoff), n_obs) is not None
    return cutoff, (n_obs, s.epsilon) if on_grid else None


def working_text(table: pd.DataFrame) -> str:
    """Where the release path first reaches the target power at ε ≤ the target ε, in words."""
    best = fdr.smallest_working(table)
    goal = f"power ≥ {fdr.TARGET_POWER:g} at ε ≤ {fdr.TARGET_EPSILON:g}"
    if best is None:
        return f"no configuration of the grid (up to {max(fdr.FRONTIER_RECORDS):,} records per test) reaches {goal}."
    return (f"the fewest records per test reaching {goal} is **{int(best['records']):,}** (c = {int(best['cutoff'])}, "
            f"ε = {best['epsilon']:g}: power {best['power']:.2f}, FDR {best['FDR']:.3f}).")


def frontier_text(table: pd.DataFrame, s: fdr.Settings, method: str, n_obs: int) -> str:
    """One paragraph: what the release path (exact η, proven shift) achieves at these settings, and where it works."""
    cell = frontier_cell(table, s, n_obs)
    here = ("" if cell is None else f"at n = {n_obs:,}, c = {s.cutoff}, ε = {s.epsilon:g} its power is "
            f"{cell['power']:.2f} ± {cell['power_se']:.2f} (FDR {cell['FDR']:.3f}); ")
    return (f"**Release path** ({method} with the exact η at the design floor and the proven shift, simulated): "
            + here + working_text(table) + " See the view 'Power frontier'.")


def frontier_view_text(table: pd.DataFrame, alpha: float) -> str:
    """The paragraph under the frontier: where it works, why small n needs a larger ε, its largest FDR."""
    return ("With the proven η and shift, " + working_text(table) + " Fewer records per test need a larger ε: one "
            "record moves a binomial p-value by relatively more when n is small, and both the noise and the shift "
            f"grow with η. The largest FDR of any cell is {table['FDR'].max():.3f} (target α = {alpha:g}).")


def design_power_text(table: pd.DataFrame, s: fdr.Settings, method: str, page: Page) -> str:
    """What a release of an upload can reach: the release path simulated on its public design (``table``, from
    :func:`design_frontier` over :func:`design_epsilons`), at the chosen ε and over the grid, said before any
    release."""
    n_obs, theta = page.n_obs, page.theta
    epsilons = design_epsilons(s)
    here = table.iloc[int(np.argmin(np.abs(table["epsilon"].to_numpy() - s.epsilon)))]
    design = fdr.design_floor(n_obs, theta)
    reach = table[table["power"] >= fdr.TARGET_POWER]
    first = (f"power ≥ {fdr.TARGET_POWER:g} is first reached at ε = {reach['epsilon'].min():g}" if len(reach) else
             f"no ε up to {max(epsilons):g} reaches power {fdr.TARGET_POWER:g} (the most is "
             f"{table['power'].max():.2f}): a release would find few or none of the effects; more records per test, "
             "a stronger alternative or a larger ε are needed")
    floor = ("" if math.isclose(page.sens.floor, design) else f" The floor set above (μ = {page.sens.floor:g}) is not "
             f"the design's (μ = {design:g}) the simulation uses.")
    return (f"**What a release of this upload can reach** ({method}, the release path simulated on the upload's "
            f"public design only: n = {n_obs:,} records per test, the stated alternative θ = {theta:g}, T = "
            f"{page.T:,} hypotheses of which {UPLOAD_PI1:.0%} are effects, c = {s.cutoff}, the exact η at the design "
            f"floor μ = {design:g} and the proven shift; no uploaded value goes in): at ε = {s.epsilon:g} power "
            f"{here['power']:.2f} ± {here['power_se']:.2f} (FDR {here['FDR']:.3f}); {first}." + floor)


def utility_note(table: pd.DataFrame | None, s: fdr.Settings, method: str, page: Page) -> str:
    """The custodian's note on a release, from the over-runs summary (empty without one)."""
    if table is None or method not in set(table["method"]):
        return ""
    row = table.set_index("method").loc[method]
    return (f"{method} at ε = {s.epsilon:g} over {page.runs} {'simulated streams' if page.simulated else 'noise draws'}"
            f": FDR {row['FDR']:.3f} ± {row['FDR_se']:.3f}, power {row['power']:.3f} ± {row['power_se']:.3f} "
            f"(mean ± SE; the preview's threshold rule and shift, see the page).")


# ---------------------------------------------------------------- the release


def release_params(page: Page, s: fdr.Settings) -> dict:
    """The public parameters a release records (always the proven shift and the paper's rule)."""
    return dict(alpha=s.alpha, eta=s.eta, eta_source=page.sens.source, cutoff=s.cutoff, lam=s.lam_paprika,
                shift=fdr.STREAM, gamma=s.gamma, rule="paper", T=page.T, floor=page.sens.floor)


def release_blockers(page: Page, s: fdr.Settings, literal: Callable[[str], str]) -> list[str]:
    """Why this configuration may be previewed but not released, one sentence each (none: it may be released).
    ``literal`` shows text read from a file as typed (``ui.literal``): a lattice problem quotes a column name."""
    sens = page.sens
    blockers = [reason for reason, applies in (
        (f"Set the shift to '{fdr.shift_label(fdr.STREAM)}' to release: with {fdr.shift_label(s.shift)} the δ part of "
         "the guarantee does not hold (see the warning under the figure).", s.shift != fdr.STREAM),
        ("No η is proven for the truncated-exponential z-test here, so this simulation can be previewed but not "
         "released." if page.source == "truncexp" else sens.refusal, sens.refusal is not None),
        ("Tick the box under the stated η to release: the guarantee rests on your statement.", not page.eta_confirmed),
        (literal(f"{page.lattice_problem} Choose 'a value I state' for η to release these p-values."),
         page.lattice_problem is not None),
    ) if applies]
    if not page.simulated and page.cohort is None:
        blockers.append("Name the cohort the p-values came from (above) to release: its people are charged.")
    return blockers

