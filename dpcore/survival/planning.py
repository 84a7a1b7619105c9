"""Planning several releases on one budget: which noise gives each release less error.

k releases of the same people that together may spend ``(ε, δ)`` under the ledger's tight accounting:

* discrete Laplace: each release gets the largest ε whose k-fold composition stays within ``(ε, δ)`` (the PLD
  of :func:`dpcore.accounting.compose`; a little above ε/k once δ > 0), so its noise grows about like k;
* Gaussian: k Gaussians of noise multiplier ``m√k`` compose to exactly one Gaussian of multiplier ``m``, the
  one that is ``(ε, δ)``-DP, so the noise grows like √k. Each release is stated as ``(ε_i, δ/k)`` with ε_i the
  exact ε of that Gaussian at δ/k (:meth:`Gaussian.at_delta`): what the page sets and the ledger charges.

:func:`survival_plan` measures both on a cohort's counts (sd per count and sup-norm error of the curve over
preview draws): for one or two releases discrete Laplace is more accurate, from about five Gaussian noise is.
Everything here is public (ε, δ, k, the grid) or preview simulation on the custodian's own screen.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import optimize

from dpcore.accounting.composition import compose
from dpcore.accounting.events import DiscreteLaplace, Gaussian
from dpcore.core.mechanisms import analytic_gaussian_sigma
from dpcore.survival.estimators import DEFAULT_RISK_SET
from dpcore.survival.mechanism import noise_for
from dpcore.survival.monte_carlo import utility
from dpcore.survival.statistic import Counts, sensitivity

#: The numbers of releases the plan compares by default.
PLANNED_RELEASES = (1, 2, 5, 10, 20)
#: The Gaussian plan's σ is this much above the exact one: the ledger's PLD is pessimistic by about 10⁻⁷ in ε
#: for these histories, so without it k planned releases would compose to a hair above the total.
PLD_MARGIN = 1e-4


def discrete_laplace_share(releases: int, total_epsilon: float, delta: float, l1_sensitivity: float) -> float:
    """The largest per-release ε (to 10⁻⁴, rounded down) whose ``releases`` discrete Laplace releases compose
    (tight) to at most ``total_epsilon`` at ``delta``; ``total/k`` is always allowed (basic composition)."""
    if releases == 1:
        return float(total_epsilon)

    def excess(eps: float) -> float:
        event = DiscreteLaplace(l1_sensitivity / eps, l1_sensitivity)
        return compose([event] * releases, delta).epsilon_tight - total_epsilon

    basic = total_epsilon / releases
    if excess(total_epsilon) <= 0:
        return float(total_epsilon)
    found = optimize.brentq(excess, basic, total_epsilon, xtol=1e-5) - 1e-4
    return float(max(basic, found))


def gaussian_share(releases: int, total_epsilon: float, delta: float) -> Gaussian:
    """Per unit sensitivity: the Gaussian whose ``releases``-fold composition is ``(total, δ)``-DP, stated as the
    event it is at ``δ / releases`` (the per-release (ε_i, δ_i) a page sets)."""
    multiplier = analytic_gaussian_sigma(1.0, total_epsilon, delta) * math.sqrt(releases) * (1.0 + PLD_MARGIN)
    return Gaussian.at_delta(multiplier, 1.0, delta / releases)


def survival_plan(counts: Counts, total_epsilon: float, delta: float, *, releases: Sequence[int] = PLANNED_RELEASES,
                  draws: int = 100, rng: np.random.Generator, estimator: str = "km", event_type: int = 1,
                  risk_set: str = DEFAULT_RISK_SET) -> pd.DataFrame:
    """One row per number of releases k: each noise's per-release setting, its sd per count (which decides
    ``less_noise``), and the sup-norm error of the curve (median and 90th percentile over ``draws`` seeded
    previews of one release). The plan's per-release settings compose to at most ``(total_epsilon, delta)``."""
    rows = []
    for k in releases:
        eps_dl = discrete_laplace_share(int(k), total_epsilon, delta, sensitivity(counts.n_groups,
                                                                                  statistic=counts.statistic))
        gauss = gaussian_share(int(k), total_epsilon, delta)
        dl = noise_for(counts, eps_dl)
        ga = noise_for(counts, gauss.epsilon, kind="gaussian", delta=gauss.delta)
        errors = {}
        for name, noise in (("discrete_laplace", dl), ("gaussian", ga)):
            u = utility(counts, noise.epsilon, draws=draws, rng=rng, estimator=estimator, kind=noise.kind,
                        event_type=event_type, risk_set=risk_set, interval_draws=0, delta=noise.delta)
            errors[name] = np.quantile(u.sup_error, [0.5, 0.9])
        rows.append({
            "releases": int(k), "dl_epsilon_each": eps_dl, "dl_sd_per_count": dl.std,
            "gaussian_epsilon_each": gauss.epsilon, "gaussian_delta_each": gauss.delta,
            "gaussian_sd_per_count": ga.std, "gaussian_sd_ratio": ga.std / dl.std,
            "dl_sup_error_median": errors["discrete_laplace"][0], "dl_sup_error_p90": errors["discrete_laplace"][1],
            "gaussian_sup_error_median": errors["gaussian"][0], "gaussian_sup_error_p90": errors["gaussian"][1],
            "less_noise": "Gaussian" if ga.std < dl.std else "discrete Laplace"})
    return pd.DataFrame(rows)
