"""Black-box audit of the hazard-ratio release: cox.md's worst pairs, each with one of its planted bugs.

The released statistic is :class:`dpcore.survival.cox.DPCoxPHFitter`'s histogram; the pairs are cox.md's (a person
at the bounds leaving early, the last event at a risk set of one, an out-of-box value) and the bugs its three (a
sensitivity too small, a noise scale read off the data's cumulative hazard, values not clipped so that the
covariate's levels follow the data). Every sampler recomputes the histogram from the records, so a wrong cell map
is caught as well as a wrong scale.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpcore.core.audit import AuditScenario, release_path
from dpcore.core.mechanisms import _opendp_release
from dpcore.survival.cox import BINARY, Covariate, CoxDesign, cox_noise, cut_points, level_codes, release_histogram
from dpcore.survival.cox_score import cut_at_horizon, design, statistics

# --------------------------------------------------------------------------

#: The audit's cohort: 12 people, a binary arm, two intervals up to a horizon of 10.
_AUDIT_TIME = np.array([1.0, 2, 3, 4, 5, 6, 7, 8, 9, 3, 6, 12])
_AUDIT_EVENT = np.array([1, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 0])
_AUDIT_ARM = np.array([0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1])
_AUDIT_HORIZON = 10.0


def _audit_pair(kind: str) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    base = pd.DataFrame({"T": _AUDIT_TIME, "E": _AUDIT_EVENT, "arm": _AUDIT_ARM})

    def extra(t, e, arm):
        return pd.concat([base, pd.DataFrame({"T": [t], "E": [e], "arm": [arm]})], ignore_index=True)

    if kind == "bounds-early":
        return extra(0.5, 1, 1), extra(20.0, 0, 0), (
            "A: one extra person at the upper bound (arm 1) has the first event; B: that person is replaced by one at "
            "the lower bound (arm 0) followed past the horizon (cox.md's worst pair for the score).")
    if kind == "risk-set-one":
        return extra(9.9, 1, 1), extra(9.9, 0, 1), (
            "A: the last event, at a risk set of one (everyone else has left); B: the same person censored instead "
            "(the cohort's cumulative hazard moves by 1).")
    return extra(0.5, 1, 1), extra(0.5, 1, 5), (
        "A: a person at the upper bound (arm 1) has the first event; B: the same person with an out-of-box value "
        "(arm 5), which clipping maps to the bound.")


def _nelson_aalen_at_horizon(frame: pd.DataFrame) -> float:
    """The data's own cumulative hazard at the horizon: what a wrong noise scale would read (a planted bug)."""
    t = np.minimum(frame["T"].to_numpy(float), _AUDIT_HORIZON)
    e = frame["E"].to_numpy() * (frame["T"].to_numpy(float) <= _AUDIT_HORIZON)
    times = np.unique(t[e == 1])
    return float(sum(((t == s) & (e == 1)).sum() / (t >= s).sum() for s in times))


#: The planted bugs of the audit (cox.md's three, on this release): what each gets wrong.
AUDIT_BUGS = {
    "halved": "sensitivity taken as 1 (one count moves), so the noise scale is halved",
    "data-scale": "noise scale read off the data: 2/ε times the cohort's cumulative hazard at the horizon",
    "observed-levels": "no clipping: the covariate's levels read off the data, so an out-of-box value is a new cell",
}


def _audit_histogram(frame: pd.DataFrame, bug: str | None) -> np.ndarray:
    """The exact histogram of ``frame`` through the fitter's cell map (levels read off the data with that bug)."""
    arm = Covariate("arm", BINARY, True)
    if bug == "observed-levels":
        arm = Covariate("arm", tuple(sorted({str(v) for v in frame["arm"]})), False)
    design = CoxDesign((arm,), ("all",), None, cut_points(_AUDIT_HORIZON, 2))
    codes, missing = level_codes(frame, arm)
    index = design.cell_index(frame["T"].to_numpy(float), frame["E"].to_numpy(int), codes[:, None],
                              np.zeros(len(frame), np.int64), missing)
    return np.bincount(index, minlength=design.size)


def _audit_release(frame: pd.DataFrame, epsilon: float, bug: str | None, rng, draws: int) -> np.ndarray:
    """``draws`` released histograms of ``frame`` (with ``bug`` planted): a preview with ``rng``, else OpenDP."""
    noise = cox_noise(epsilon)
    if bug == "halved":
        noise = noise.with_scale_factor(0.5)
    elif bug == "data-scale":
        noise = noise.with_scale_factor(_nelson_aalen_at_horizon(frame))
    return release_histogram(np.repeat(_audit_histogram(frame, bug)[None], draws, axis=0), noise, rng)


def _sided_summary(released: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How many changed cells lie on A's side (the most powerful event for Laplace-type noise), plus a small
    term in the spread of the unchanged cells, which exposes a noise scale that differs between A and B."""
    diff = a - b
    changed = np.flatnonzero(diff)
    side = np.where(diff[changed] > 0, released[:, changed] >= a[changed], released[:, changed] <= a[changed])
    same = np.flatnonzero(diff == 0)
    spread = np.abs(released[:, same] - a[same]).mean(1)
    return side.sum(1) + np.minimum(spread, 99.0) / 100.0


def audit_scenarios(epsilon: float) -> list[AuditScenario]:
    """Worst-case pairs of the hazard-ratio release, each with one of cox.md's planted bugs (:data:`AUDIT_BUGS`).

    The summary is :func:`_sided_summary`; a histogram whose shape depends on the data (observed levels) is
    summarised by its number of cells, which tells A from B with certainty.
    """
    scenarios = []
    for kind, bug, title in [("bounds-early", "halved", "person at the bounds leaving early"),
                             ("risk-set-one", "data-scale", "last event at a risk set of one"),
                             ("out-of-box", "observed-levels", "out-of-box value, clipped")]:
        A, B, text = _audit_pair(kind)
        exact_a, exact_b = _audit_histogram(A, None), _audit_histogram(B, None)

        def sampler(which, planted_bug, rng, draws, A=A, B=B, bug=bug, exact_a=exact_a, exact_b=exact_b):
            released = _audit_release(A if which == "A" else B, epsilon, bug if planted_bug else None, rng, draws)
            if released.shape[1] != exact_a.size:
                return np.full(draws, float(released.shape[1]))
            return _sided_summary(released, exact_a, exact_b)

        scenarios.append(AuditScenario(
            method="cox", name=f"hazard ratio: {title}", neighbours=text,
            summary="changed cells on A's side, plus the spread of the unchanged ones (histogram size when it "
                    "differs)",
            claimed_epsilon=float(epsilon), delta=0.0, sampler=sampler, planted_bug_label=AUDIT_BUGS[bug],
            release_sampler=release_path(sampler)))
    return scenarios + score_audit_scenarios(epsilon)


# ---- method C: the padded score with the information from cheap releases (dpcore.survival.cox_score) -----------

#: The padded score's audit pair: 12 people at the lower bound with events at distinct times 1…12, plus one person
#: at the upper bound who is the first event (A) or censored after everyone (B): cox.md Theorem 2's worst pair, where
#: the score moves by its whole bound B* and the event count by 1.
_SCORE_HORIZON = 20.0


def _score_pair() -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    t = np.arange(1.0, 13.0)
    base_e, base_x = np.ones(12), np.zeros(12)
    a = (np.append(t, 0.5), np.append(base_e, 1.0), np.append(base_x, 1.0))
    b = (np.append(t, 25.0), np.append(base_e, 0.0), np.append(base_x, 1.0))
    return a, b


def _score_mechanism(epsilon: float):
    return design(13, {"arm": (0.0, 1.0)}, epsilon=epsilon, primary="arm")


def _score_exact(which: str, epsilon: float):
    m = _score_mechanism(epsilon)
    time, event, arm = _score_pair()[0 if which == "A" else 1]
    t, e = cut_at_horizon(time, event, _SCORE_HORIZON)
    s = statistics(t, e, arm[:, None], m.padding, m.pseudo)
    return np.concatenate([s.score, [s.events], s.cov[np.triu_indices(1)]])


def _score_released(which: str, epsilon: float, planted_bug: bool, rng, draws: int) -> np.ndarray:
    """``draws`` releases (U*, D, Σ₀) of the pair's side ``which``: a seeded preview with ``rng``, OpenDP without."""
    m = _score_mechanism(epsilon)
    scales = m.scales() * (0.5 if planted_bug else 1.0)
    exact = np.repeat(_score_exact(which, epsilon)[None], draws, axis=0)
    if rng is None:
        return np.column_stack([_opendp_release(exact[:, q], m.kind, float(scales[q])) for q in range(exact.shape[1])])
    return exact + rng.laplace(0.0, 1.0, exact.shape) * scales


def score_audit_scenarios(epsilon: float) -> list[AuditScenario]:
    """Method C's worst pair with the noise halved as the planted bug. The summary is the log-likelihood ratio of
    A against B under the claimed Laplace scales (the most powerful test of the pair)."""
    m = _score_mechanism(epsilon)
    a, b = _score_exact("A", epsilon), _score_exact("B", epsilon)
    scales = m.scales()

    def sampler(which, planted_bug, rng, draws):
        y = _score_released(which, epsilon, planted_bug, rng, draws)
        return ((np.abs(y - b) - np.abs(y - a)) / scales).sum(1)

    return [AuditScenario(
        method="cox", name="adjusted hazard ratio by the padded score (method C): first event at the bound",
        neighbours=("A: 12 people at the lower bound with events at times 1–12 and one at the upper bound who is the "
                    "first event; B: that person censored after everyone (the score moves by its bound B*, the "
                    "event count by 1)."),
        summary="log-likelihood ratio of A against B under the claimed Laplace scales",
        claimed_epsilon=float(epsilon), delta=0.0, sampler=sampler,
        planted_bug_label="noise scale halved on the score, the event count and the covariance",
        release_sampler=release_path(sampler))]
