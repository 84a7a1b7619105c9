"""The online-FDR page's configuration as a notebook: streams, η, one seeded private stream, FDR and power over ε."""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpcore import fdr
from dpcore.fdr.session import EPS_GRID, SEED_STREAMS, Page
from dpcore.notebooks.code import Cell, code
from dpcore.notebooks.common import READ_CSV, release_cell

TITLE = "Private online false-discovery-rate control (PAPRIKA)"


@dataclass(frozen=True)
class FdrConfig:
    """The page's public settings. ``source``: "bernoulli" or "truncexp" (a simulation: ``runs``, ``T``, ``pi1``,
    ``n_obs``, ``theta``) or "upload" (the user's CSV: ``p_col``, ``truth_col``). ``eta_from``: "paper", "binomial"
    (with ``floor_exp``: μ = 10^−floor_exp) or "stated" (``eta``). ``shift``: a scale or ``"stream"``."""

    source: str
    epsilon: float
    seed: int
    method: str = "PAPRIKA"
    alpha: float = 0.05
    delta: float = 2.5e-4
    cutoff: int = 40
    shift: float | str = "stream"
    lam: float = 0.2
    gamma: str = "power"
    rule: str = "paper"
    eta_from: str = "binomial"
    eta: float = 0.0831
    floor_exp: int = 6
    n_obs: int = 1000
    runs: int = 100
    T: int = 800
    pi1: float = 0.05
    theta: float = 0.75
    p_col: str = ""
    truth_col: str | None = None
    sweep: tuple[float, ...] = EPS_GRID


def page_config(page: Page, s: fdr.Settings, method: str) -> FdrConfig:
    """The page's public settings (its session, PAPRIKA's settings ``s`` and the private ``method``) for the
    notebook; an upload gives its column choices, never its data."""
    data = (dict(runs=page.runs, T=page.T, pi1=page.pi1, theta=page.theta, n_obs=page.n_obs) if page.simulated else
            dict(runs=page.runs, p_col=page.pcol, truth_col=None if page.tcol == "(none)" else page.tcol))
    eta = (dict(eta=s.eta) if page.eta_how == "stated" else
           dict(n_obs=page.n_obs, floor_exp=round(-math.log10(page.sens.floor))))
    return FdrConfig(source=page.source, epsilon=s.epsilon, seed=page.seed, method=method, alpha=s.alpha,
                     delta=s.delta, cutoff=s.cutoff, shift=s.shift, lam=s.lam_paprika, gamma=s.gamma, rule=s.rule,
                     eta_from=page.eta_how, sweep=EPS_GRID, **{**data, **eta})




def _data(c: FdrConfig) -> list[Cell]:
    if c.source != "upload":
        return [Cell("Simulated streams with fresh data for every run; the first run is the one stream shown below.",
                     code("streams = fdr.page_streams({kind}, {runs}, {T}, pi1={pi1}, n={n}, theta={theta}, seed="
                          + SEED_STREAMS.code("streams") + ")\n"
                          "p_runs, truth_runs = streams.pvalues, streams.truth",
                          kind=c.source, runs=c.runs, T=c.T, pi1=c.pi1, n=c.n_obs, theta=c.theta))]
    return [READ_CSV, Cell(
        "The p-values in stream order (and the known truth, if the file has it); the panels redraw the noise on "
        "the same stream.",
        code("p, truth = fdr.pvalues_from_frame(frame, {pcol}, {tcol})\n"
             "p_runs = np.broadcast_to(p, ({runs}, p.size)).copy()\n"
             "truth_runs = None if truth is None else np.broadcast_to(truth, ({runs}, p.size)).copy()",
             pcol=c.p_col, tcol=c.truth_col, runs=c.runs))]


def _sensitivity(c: FdrConfig) -> str:
    if c.eta_from == "paper":
        return code("sens = fdr.paper_sensitivity({n})  # the paper's η: previews only", n=c.n_obs)
    if c.eta_from == "binomial":
        return code("sens = fdr.binomial_sensitivity({n}, 10.0 ** -{k})  # exact for p-values above the floor μ",
                    n=c.n_obs, k=c.floor_exp)
    return code("sens = fdr.stated_sensitivity({eta})  # your statement: a release rests on it", eta=c.eta)


def cells(c: FdrConfig) -> list[Cell]:
    """The notebook's steps, in the page's order and with its seeds (so the numbers are the page's)."""
    baseline = "SAFFRON AI" if c.method == "PAPRIKA AI" else "SAFFRON"
    steps = [
        Cell("Imports: dpcore's online-FDR package and its figures.",
             "import numpy as np\n\nfrom dpcore import fdr\nfrom dpcore.fdr import figures as ff"),
        Cell("The page's seed (simulation and preview noise; a release is seeded by the operating system).",
             code("SEED = {seed}", seed=c.seed)),
        *_data(c),
        Cell("The sensitivity η: how much one person can move every log p-value at once.", _sensitivity(c)),
        Cell("PAPRIKA's settings and ε.",
             code("EPSILON, METHOD = {eps}, {method}\n"
                  "settings = fdr.Settings(alpha={alpha}, delta={delta}, eta=sens.eta, cutoff={c}, lam_paprika={lam},\n"
                  "                        shift={shift}, gamma={gamma}, rule={rule}, floor=sens.floor, epsilon=EPSILON)",
                  eps=c.epsilon, method=c.method, alpha=c.alpha, delta=c.delta, c=c.cutoff, lam=c.lam, shift=c.shift,
                  gamma=c.gamma, rule=c.rule)),
        Cell("One stream: the private method (one seeded preview draw) against its non-private counterpart.",
             code("one = fdr.run_method(METHOD, p_runs[:1], settings, rng=" + SEED_STREAMS.rng_code("one stream") + ",\n"
                  "                     keep_threshold=True).squeeze()\n"
                  "base = fdr.run_method({base}, p_runs[:1], settings).squeeze()\n"
                  "print(METHOD, int(one.rejections.sum()), 'discoveries;', {base}, int(base.rejections.sum()))",
                  base=baseline)),
        Cell("The stream, its candidates and discoveries.",
             "stream = ff.stream_figure(one, p_runs[0], truth=None if truth_runs is None else truth_runs[0],\n"
             "                          nonprivate=base, cutoff=settings.cutoff)", figure="stream"),
    ]
    if c.source != "upload" or c.truth_col is not None:
        steps.append(Cell(
            "The privacy–utility trade-off: FDR and power of both private methods over ε, over the runs.",
            code("rng = " + SEED_STREAMS.rng_code("eps sweep") + "\n"
                 "curves = [fdr.utility_curve(p_runs, truth_runs, {sweep}, settings=settings, ai=ai, rng=rng)\n"
                 "          for ai in (False, True)]\n"
                 "utility = ff.utility_figure(curves, EPSILON, alpha=settings.alpha,\n"
                 "                            bound=settings.alpha + settings.delta * p_runs.shape[1])",
                 sweep=list(c.sweep)), figure="utility"))
    steps.append(release_cell(f"{c.method} discovery list", "EPSILON", "settings.delta", code(
        "bundle = fdr.release(p_runs[0], alpha=settings.alpha, epsilon=EPSILON, delta=settings.delta,\n"
        "                     sensitivity=sens, cutoff=settings.cutoff, lam=settings.lam_paprika,\n"
        "                     gamma=settings.gamma, ai={ai})", ai=c.method == "PAPRIKA AI"), "fdr"))
    return steps
