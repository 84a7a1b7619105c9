"""Method side: the privacy events of a release, from the public parameters the pages charge it with.

:func:`events_for_release` takes what ``ui.release_panel`` passes to ``ledger.charge`` — the method's name,
``(ε, δ)``, ``parts`` and ``params`` — and returns the events of the mechanisms that release ran, rebuilt from
each method's own calibration (the same functions the release calls), never from the data. An additive
mechanism's privacy loss depends only on ``scale/sensitivity``, so a part's ε (and δ) fixes it: a Laplace part
at ε is ``Laplace(1/ε, 1)``; a Gaussian part at ``(ε_i, δ_i)`` is the analytic σ of
:func:`dpcore.mechanisms.analytic_gaussian_sigma` per unit sensitivity. The events' basic composition is the
charged ``(ε, δ)`` (``tests/test_accounting_releases.py`` checks it method by method).

Which part maps to which event:

* ``DP survival analysis`` — one discrete Laplace on the counts, scale ``Δ1/ε`` with
  ``Δ1 = params["sensitivity_l1"]`` (else :func:`dpcore.survival.sensitivity` of ``params["groups"]``); with
  ``params["noise_kind"] == "gaussian"`` one analytic Gaussian at ``(ε, δ)``.
* ``DP hazard ratios (grouped Cox)`` — the same, on its one histogram (``sensitivity_l1`` 2; Gaussian at
  ``(ε, δ)`` when ``noise_kind`` is ``"gaussian"``).
* ``AdaSSP`` — parts ``λ_min``, ``XᵀX``, ``Xᵀy`` (with or without the bundle's ``(10%)`` suffix): three
  analytic Gaussians at ``(ε_i, δ·ε_i/Σε)`` (the split shares ε and δ alike, :data:`ADASSP_SPLIT`); any other
  part (``response centre``, ``response scale``) a Laplace at its ε.
* ``Robust private linear regression`` — every part (``nxx``, ``nxy``, ``nyy``, DP centre / scale) a Laplace.
* ``Sparse regression: peeling + private fit`` — one :class:`ZcdpGroup` claiming ``(ε, δ)``: ``s`` Gumbel
  selections (exponential mechanisms, bounded range) at ``ε0 = 2Δ∞/β`` and the fit's Gaussians (``ZᵀZ``,
  ``Zᵀy`` for the linear loss; ``fit_T`` gradients for the logistic), from :func:`dpcore.sparse.peel_plan`.
* ``Sparse regression by knowledge transfer (private support)`` — ``support selection (Laplace)``: a Laplace
  on the block votes; ``synthetic responses (Gaussian)``: an analytic Gaussian at ``(ε_2, δ)``.
* ``PAPRIKA discovery list``, ``PAPRIKA AI discovery list`` — one ``(ε, δ)`` event (the sparse-vector
  technique has no tighter description in the library).
* any other method — one ``(ε, δ)`` event: what is charged is all that is known.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from dpcore.accounting.events import ApproxDP, DiscreteLaplace, Gaussian, Laplace, Selection, ZcdpGroup
from dpcore.mechanisms import analytic_gaussian_sigma
from dpcore.regression import ADASSP, ADASSP_SPLIT
from dpcore.regression import METHOD as ROBUST_LR
from dpcore.sparse import SparseParams, peel_plan
from dpcore.survival import sensitivity as survival_sensitivity
from dpcore.survival.cox import METHOD as COX_HAZARD_RATIOS

SURVIVAL = "DP survival analysis"
PEELING = "Sparse regression: peeling + private fit"
KT_PRIVATE_SUPPORT = "Sparse regression by knowledge transfer (private support)"
ADASSP_PARTS = ("λ_min", "XᵀX", "Xᵀy")


def _part_name(key: str) -> str:
    """``"XᵀX (45%)"`` (the bundle's key) → ``"XᵀX"`` (the page's)."""
    return key.split(" (")[0]


def _laplace(epsilon: float) -> Laplace:
    return Laplace(1.0 / epsilon, 1.0)


def _gaussian(epsilon: float, delta: float) -> Gaussian:
    return Gaussian(analytic_gaussian_sigma(1.0, epsilon, delta), 1.0, epsilon, delta)


def _regression(method: str, delta: float, parts: Mapping[str, float]) -> list:
    gaussian = {k: v for k, v in parts.items() if method == ADASSP and _part_name(k) in ADASSP_PARTS}
    if method == ADASSP and len(gaussian) != len(ADASSP_SPLIT):
        raise ValueError(f"AdaSSP is charged with the parts {ADASSP_PARTS}, got {list(parts)}")
    eps_gauss = sum(gaussian.values())
    return [_gaussian(eps, delta * eps / eps_gauss) if k in gaussian else _laplace(eps) for k, eps in parts.items()]


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


def events_for_release(method: str, epsilon: float, delta: float = 0.0, parts: Mapping[str, float] | None = None,
                       params: Mapping[str, Any] | None = None) -> list:
    """The privacy events of one release, from what the page charges (see the module doc for the mapping)."""
    params = dict(params or {})
    parts = dict(parts or {})
    if method in (SURVIVAL, COX_HAZARD_RATIOS):
        if params.get("noise_kind") == "gaussian":  # the analytic σ at (ε, δ): its loss depends on σ/Δ2 alone
            return [_gaussian(epsilon, delta)]
        sens = int(params.get("sensitivity_l1") or survival_sensitivity(len(params.get("groups") or [None])))
        return [DiscreteLaplace(sens / epsilon, sens)]
    if method in (ADASSP, ROBUST_LR):
        return _regression(method, delta, parts or {"statistics": epsilon})
    if method == PEELING:
        return _peeling(epsilon, delta, params)
    if method == KT_PRIVATE_SUPPORT:
        return [_laplace(parts["support selection (Laplace)"]),
                _gaussian(parts["synthetic responses (Gaussian)"], delta)]
    return [ApproxDP(epsilon, delta)]
