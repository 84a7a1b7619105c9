"""Privacy events: each mechanism of a release as it actually ran, with its own proof of what it claims.

An event is a frozen dataclass that knows three things about one mechanism run once on the private data:

* :meth:`basic` — the ``(ε, δ)`` it claims on its own, the figure basic composition adds up (the ledger's
  figure today);
* :meth:`pld` — a *pessimistic* privacy-loss distribution (dp-accounting's PLD of a dominating pair,
  discretised so that every ``δ(ε)`` read off it is an upper bound);
* :meth:`rdp_event` — a dp-accounting event the Rényi accountant accepts, or ``None`` when the event has a
  ``δ > 0`` that RDP cannot carry (then :mod:`dpcore.accounting.composition` adds it by basic composition);
* ``dp_event()`` (the three noise kinds) — dp-accounting's own event for the mechanism, which its
  ``PLDAccountant`` takes (the tests compare against it).

Neighbouring relation. Every sensitivity in dpcore is derived for replace-one (docs/privacy.md). A noise
mechanism with sensitivity ``Δ`` and scale ``b`` (or ``σ``) is dominated by the pair "noise centred at 0" vs
"noise centred at Δ" (both orders): under replace-one the statistic moves by at most ``Δ``, and the
likelihood ratio of additive noise only depends on that move. dp-accounting's ``ADD_OR_REMOVE_ONE`` label
means exactly that pair for a unit-sensitivity event (``N(0, m²)`` vs ``N(1, m²)``, ``Lap(0, m)`` vs
``Lap(1, m)``, both orders), so events pass ``m = scale/Δ`` with that label; its ``REPLACE_ONE`` label would
double the shift a second time.

Vector statistics. A vector of counts or sums whose L1 change ``Δ1`` is spread over several coordinates has a
privacy loss that is a sum of one-coordinate Laplace losses with shifts summing to ``Δ1``; the PLD used is the
one-coordinate shift by the whole ``Δ1``. That the single shift is the worst case is checked numerically
(``tests/accounting/test_accounting.py::test_split_laplace_shift_is_dominated``: every δ(ε) of a split shift lies below
the single shift's) rather than proven here; both the basic and the RDP figures beside it do not rely on it.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields
from typing import ClassVar

import dp_accounting as dpa
from dp_accounting import dp_event as dpa_events
from dp_accounting.pld import common as pld_common
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from scipy import optimize

from dpcore.core.mechanisms import analytic_gaussian_sigma, approx_dp_to_zcdp, check_budget, gaussian_privacy_loss_delta

#: one slack for every claim check: calibration nudges and OpenDP's upward rounding are ~1e-9 relative
CLAIM_SLACK = 1e-9


def _positive(name: str, value: float) -> None:
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")


def _positive_int(name: str, value) -> None:
    if int(value) != value or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


class _Json:
    """``to_json()`` / ``from_json(text)`` on every event (the functions at the end of this module)."""

    def to_json(self) -> str:
        return to_json(self)

    @staticmethod
    def from_json(text: str):
        return from_json(text)


def _pure_pld(epsilon: float, count: int, interval: float):
    """PLD of ``count`` runs of any ε-DP mechanism: the pair of randomised response at ε dominates every ε-DP
    mechanism (Kairouz, Oh & Viswanath 2015), so its ``count``-fold composition is an upper bound."""
    params = pld_common.DifferentialPrivacyParameters(epsilon, 0.0)
    return pld_lib.from_privacy_parameters(params, value_discretization_interval=interval).self_compose(count)


@dataclass(frozen=True)
class Laplace(_Json):
    """Laplace noise of scale ``b`` on a statistic of L1 sensitivity ``Δ``: ``(Δ/b, 0)``-DP.

    Proof: the density ratio of ``Lap(b)`` shifted by at most ``Δ`` in L1 is ``≤ exp(Δ/b)`` (Dwork & Roth 3.6).
    """

    scale: float
    sensitivity: float = 1.0
    kind: ClassVar[str] = "laplace"

    def __post_init__(self):
        _positive("scale", self.scale)
        _positive("sensitivity", self.sensitivity)

    def basic(self) -> tuple[float, float]:
        return self.sensitivity / self.scale, 0.0

    def pld(self, interval: float):
        return pld_lib.from_laplace_mechanism(self.scale / self.sensitivity, value_discretization_interval=interval)

    def dp_event(self):
        return dpa.LaplaceDpEvent(self.scale / self.sensitivity)

    def rdp_event(self):
        return self.dp_event()


@dataclass(frozen=True)
class DiscreteLaplace(_Json):
    """Discrete Laplace ``P(k) ∝ exp(−|k|/b)`` on integer counts of integer L1 sensitivity ``Δ``: ``(Δ/b, 0)``-DP.

    Proof: shifting by at most ``Δ`` changes each probability by at most ``exp(Δ/b)`` (Canonne, Kamath &
    Steinke 2020). PLD: dp-accounting's discrete Laplace with parameter ``1/b`` and sensitivity ``Δ`` (exact
    loss values, pessimistic rounding). RDP has no discrete Laplace event: its pure ``Δ/b`` gives
    ``(Δ/b)²/2``-zCDP (Bun & Steinke 2016, Prop. 1.4).
    """

    scale: float
    sensitivity: int = 1
    kind: ClassVar[str] = "discrete_laplace"

    def __post_init__(self):
        _positive("scale", self.scale)
        _positive_int("a discrete Laplace sensitivity", self.sensitivity)

    def basic(self) -> tuple[float, float]:
        return self.sensitivity / self.scale, 0.0

    def pld(self, interval: float):
        return pld_lib.from_discrete_laplace_mechanism(1.0 / self.scale, sensitivity=int(self.sensitivity),
                                                       value_discretization_interval=interval)

    def dp_event(self):
        return dpa_events.DiscreteLaplaceDpEvent(1.0 / self.scale, int(self.sensitivity))

    def rdp_event(self):
        return dpa.ZCDpEvent((self.sensitivity / self.scale) ** 2 / 2.0)


@dataclass(frozen=True)
class Gaussian(_Json):
    """Gaussian noise ``N(0, σ²)`` on a statistic of L2 sensitivity ``Δ``, claiming ``(ε, δ)`` on its own.

    Proof of the claim: checked on construction with the exact privacy profile of the Gaussian mechanism
    (Balle & Wang 2018, Thm. 8; :func:`dpcore.core.mechanisms.gaussian_privacy_loss_delta`), so an event cannot
    claim less than its noise gives. Its PLD and RDP use the noise multiplier ``σ/Δ``.
    """

    sigma: float
    sensitivity: float
    epsilon: float
    delta: float
    kind: ClassVar[str] = "gaussian"

    def __post_init__(self):
        for name in ("sigma", "sensitivity", "epsilon", "delta"):
            _positive(name, getattr(self, name))
        if gaussian_privacy_loss_delta(self.sigma, self.epsilon, self.sensitivity) > self.delta * (1 + CLAIM_SLACK):
            raise ValueError(f"σ/Δ = {self.sigma / self.sensitivity:.6g} is not ({self.epsilon:g}, "
                             f"{self.delta:g})-DP")

    @classmethod
    def analytic(cls, epsilon: float, delta: float) -> Gaussian:
        """The analytic Gaussian a release calibrates to ``(ε, δ)`` at unit sensitivity (its loss depends on σ/Δ
        alone, so a part's ``(ε, δ)`` fixes it)."""
        return cls(analytic_gaussian_sigma(1.0, epsilon, delta), 1.0, epsilon, delta)

    @classmethod
    def at_delta(cls, sigma: float, sensitivity: float, delta: float) -> Gaussian:
        """The event of ``N(0, σ²)`` claiming the smallest ε its exact profile allows at ``delta``."""
        def excess(eps: float) -> float:
            return gaussian_privacy_loss_delta(sigma, eps, sensitivity) - delta

        lo, hi = 1e-12, 1.0
        if excess(lo) <= 0:  # so much noise that (almost) nothing is spent at this δ
            return cls(sigma, sensitivity, lo, delta)
        while excess(hi) > 0:
            hi *= 2.0
        return cls(sigma, sensitivity, optimize.brentq(excess, lo, hi, xtol=1e-12) * (1 + CLAIM_SLACK), delta)

    def basic(self) -> tuple[float, float]:
        return self.epsilon, self.delta

    def pld(self, interval: float):
        return pld_lib.from_gaussian_mechanism(self.sigma / self.sensitivity, value_discretization_interval=interval)

    def dp_event(self):
        return dpa.GaussianDpEvent(self.sigma / self.sensitivity)

    def rdp_event(self):
        """``Δ²/(2σ²)``-zCDP: the Gaussian's Rényi divergence is ``α·Δ²/(2σ²)`` at every order α, the same numbers
        dp-accounting computes for ``GaussianDpEvent`` (without its per-order loop)."""
        return dpa.ZCDpEvent((self.sensitivity / self.sigma) ** 2 / 2.0)


@dataclass(frozen=True)
class Selection(_Json):
    """``count`` selections, each ε-DP: report-noisy-max (Laplace) or the exponential mechanism / Gumbel top-1.

    PLD: each selection is ε-DP, so the randomised-response pair at ε dominates it (:func:`_pure_pld`);
    dp-accounting has nothing tighter for a selection. RDP: an exponential mechanism (Gumbel noise,
    ``bounded_range``) is ``ε²/8``-zCDP (bounded range; Cesar & Rogers 2021); a report-noisy-max
    with Laplace noise is only known to be ``ε²/2``-zCDP (pure DP, Bun & Steinke 2016, Prop. 1.4).
    """

    epsilon: float
    count: int = 1
    bounded_range: bool = True
    kind: ClassVar[str] = "selection"

    def __post_init__(self):
        _positive("epsilon", self.epsilon)
        _positive_int("count", self.count)

    def basic(self) -> tuple[float, float]:
        return self.count * self.epsilon, 0.0

    def pld(self, interval: float):
        return _pure_pld(self.epsilon, int(self.count), interval)

    def rho(self) -> float:
        return self.count * self.epsilon**2 / (8.0 if self.bounded_range else 2.0)

    def rdp_event(self):
        return dpa.ZCDpEvent(self.rho())


@dataclass(frozen=True)
class ApproxDP(_Json):
    """A mechanism known only to be ``(ε, δ)``-DP (PAPRIKA's sparse-vector part, a user's statement).

    PLD: the pair with loss ``+ε``, ``−ε`` and ``+∞`` with probability δ dominates every (ε, δ)-DP mechanism
    (Kairouz, Oh & Viswanath 2015; dp-accounting's ``from_privacy_parameters``), so its δ enters the composed
    PLD as infinite loss and counts against the total δ there. RDP: only for δ = 0 (``ε²/2``-zCDP); with
    δ > 0 :func:`dpcore.accounting.composition.compose` adds ``(ε, δ)`` to the RDP figure by basic composition.
    """

    epsilon: float
    delta: float = 0.0
    kind: ClassVar[str] = "approx_dp"

    def __post_init__(self):
        check_budget(self.epsilon, self.delta, what="an (ε, δ) event")

    def basic(self) -> tuple[float, float]:
        return self.epsilon, self.delta

    def pld(self, interval: float):
        params = pld_common.DifferentialPrivacyParameters(self.epsilon, self.delta)
        return pld_lib.from_privacy_parameters(params, value_discretization_interval=interval)

    def rdp_event(self):
        return dpa.ZCDpEvent(self.epsilon**2 / 2.0) if self.delta == 0 else None


def zcdp_rho(event) -> float:
    """ρ with which a δ-free event is ρ-zCDP (Gaussian ``Δ²/(2σ²)``; pure ε ``ε²/2``; selections as above)."""
    if isinstance(event, Gaussian):
        return (event.sensitivity / event.sigma) ** 2 / 2.0
    if isinstance(event, Selection):
        return event.rho()
    eps, delta = event.basic()
    if delta > 0:
        raise ValueError("an event with δ > 0 has no zCDP ρ")
    return eps**2 / 2.0


@dataclass(frozen=True)
class ZcdpGroup(_Json):
    """Parts of one release whose ``(ε, δ)`` was proven together in zCDP, not by adding the parts' claims.

    Peeling + private fit (:mod:`dpcore.sparse.peeling`) splits ``ρ = approx_dp_to_zcdp(ε, δ)`` between the
    Gumbel selections and the Gaussian fit; no split of ``(ε, δ)`` over the parts holds part by part. Proof of
    the claim, checked on construction: zCDP composes by adding ρ (Bun & Steinke 2016), and
    ``Σρ_i ≤ approx_dp_to_zcdp(ε, δ)`` implies ``(ε, δ)``-DP (their Prop. 1.3, the inverse is exact).
    :meth:`basic` is the group's claim; the tight accountants see the parts (:attr:`events`).
    """

    events: tuple
    epsilon: float
    delta: float
    kind: ClassVar[str] = "zcdp_group"

    def __post_init__(self):
        object.__setattr__(self, "events", tuple(self.events))
        rho = math.fsum(zcdp_rho(e) for e in self.events)
        if rho > approx_dp_to_zcdp(self.epsilon, self.delta) * (1 + CLAIM_SLACK):
            raise ValueError(f"the parts are {rho:.6g}-zCDP, more than ({self.epsilon:g}, {self.delta:g}) allows")

    def basic(self) -> tuple[float, float]:
        return self.epsilon, self.delta


KINDS = {cls.kind: cls for cls in (Laplace, DiscreteLaplace, Gaussian, Selection, ApproxDP, ZcdpGroup)}


def _as_dict(event) -> dict:
    if isinstance(event, ZcdpGroup):
        return {"kind": event.kind, "epsilon": event.epsilon, "delta": event.delta,
                "events": [_as_dict(e) for e in event.events]}
    return {"kind": event.kind, **asdict(event)}


def _from_dict(data: dict):
    data = dict(data)
    cls = KINDS[data.pop("kind")]
    if cls is ZcdpGroup:
        data["events"] = tuple(_from_dict(e) for e in data["events"])
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


def to_json(event) -> str:
    """Canonical text of one event (sorted keys, floats as ``repr``): stored by the ledger, and the cache key."""
    return json.dumps(_as_dict(event), sort_keys=True, ensure_ascii=False)


def from_json(text: str):
    """The event :func:`to_json` wrote (its claim is checked again on the way in)."""
    return _from_dict(json.loads(text))


def events_to_json(events) -> str:
    """A release's events as one JSON array (the ledger stores it beside the charge)."""
    return "[" + ", ".join(to_json(e) for e in events) + "]"


def events_from_json(text: str) -> list:
    return [_from_dict(d) for d in json.loads(text)]
