"""The privacy events of the sparse releases, as the ledger composes them (:mod:`dpcore.accounting`).

Rebuilt from what a release is charged with (its method, ``(ε, δ)``, ``parts`` and public ``params``), never from
the data:

* :data:`PEELING` — one :class:`~dpcore.accounting.events.ZcdpGroup` claiming ``(ε, δ)``: ``s`` Gumbel selections
  (exponential mechanisms, bounded range) at ``ε0 = 2Δ∞/β`` and the fit's Gaussians (``ZᵀZ``, ``Zᵀy`` for the linear
  loss; ``fit_T`` gradients for the logistic), from :func:`~dpcore.sparse.peeling.peel_plan`;
* :data:`KT_PRIVATE_SUPPORT` — ``support selection (Laplace)``: a Laplace on the block votes; ``synthetic responses
  (Gaussian)``: an analytic Gaussian at ``(ε_2, δ)``.

The events' basic composition is the charged ``(ε, δ)`` (``tests/accounting/test_accounting_releases.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from dpcore.accounting.events import Gaussian, Laplace, Selection, ZcdpGroup
from dpcore.sparse.params import SparseParams
from dpcore.sparse.peeling import peel_plan

#: the names the sparse releases are charged under (each bundle's ``method``)
PEELING = "Sparse regression: peeling + private fit"
KT_PRIVATE_SUPPORT = "Sparse regression by knowledge transfer (private support)"
CHARGED = (PEELING, KT_PRIVATE_SUPPORT)


def _peeling(epsilon: float, delta: float, params: Mapping[str, Any]) -> list:
    """The peeling release's calibration, rebuilt with :func:`peel_plan` (ratios ``Δ/scale`` do not depend on n)."""
    names = {f.name for f in fields(SparseParams)}
    given = {k: v for k, v in params.items() if k in names}
    if "gradient_steps" in params:  # the bundle's name for fit_T
        given["fit_T"] = int(params["gradient_steps"])
    p = SparseParams(**given)
    s = int(params["sparsity"])
    plan = peel_plan(int(params.get("n", 1)), s, epsilon, delta, params.get("loss", "linear"), p,
                     float(params.get("select_share", 0.5)))
    selection = Selection(2.0 * plan.score_sensitivity / plan.gumbel_scale, s, bounded_range=True)
    # logistic: one Gaussian per gradient step (T Gaussians at ρ_fit/T compose to one Gaussian whatever T, so a
    # page that omits T and gets the default loses nothing)
    steps = 1 if params.get("loss", "linear") == "linear" else p.fit_T
    fit = [Gaussian.at_delta(nz.scale, nz.sensitivity, delta) for nz in plan.noises.values() for _ in range(steps)]
    return [ZcdpGroup((selection, *fit), epsilon, delta)]


def release_events(method: str, epsilon: float, delta: float, parts: Mapping[str, float],
                   params: Mapping[str, Any]) -> list:
    """The events of one release charged as ``method`` (one of :data:`CHARGED`)."""
    if method == PEELING:
        return _peeling(epsilon, delta, params)
    return [Laplace(1.0 / parts["support selection (Laplace)"], 1.0),
            Gaussian.analytic(parts["synthetic responses (Gaussian)"], delta)]
