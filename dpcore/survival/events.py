"""The privacy events of the survival releases, as the ledger composes them (:mod:`dpcore.accounting`).

A release is charged with its method's name, ``(ε, δ)`` and public parameters; this file rebuilds the mechanism it
ran from those alone (never from the data). Both releases here noise one histogram:

* :data:`SURVIVAL` — the curves' counts: one discrete Laplace of scale ``Δ1/ε``, ``Δ1 = params["sensitivity_l1"]``
  (else :func:`~dpcore.survival.statistic.sensitivity` of ``params["groups"]``);
* :data:`COX` — the hazard ratios' histogram (``sensitivity_l1`` 2, ``cox.py``'s proof).

With ``params["noise_kind"] == "gaussian"`` either is one analytic Gaussian at ``(ε, δ)``. The events' basic
composition is the charged ``(ε, δ)`` (``tests/accounting/test_accounting_releases.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dpcore.accounting.events import DiscreteLaplace, Gaussian
from dpcore.survival.statistic import sensitivity

#: the names the survival releases are charged under (each bundle's ``method``)
SURVIVAL = "DP survival analysis"
COX = "DP hazard ratios (grouped Cox)"
CHARGED = (SURVIVAL, COX)


def release_events(method: str, epsilon: float, delta: float, parts: Mapping[str, float],
                   params: Mapping[str, Any]) -> list:
    """The events of one release charged as ``method`` (one of :data:`CHARGED`)."""
    if params.get("noise_kind") == "gaussian":  # the analytic σ at (ε, δ): its loss depends on σ/Δ2 alone
        return [Gaussian.analytic(epsilon, delta)]
    sens = int(params.get("sensitivity_l1") or sensitivity(len(params.get("groups") or [None])))
    return [DiscreteLaplace(sens / epsilon, sens)]
