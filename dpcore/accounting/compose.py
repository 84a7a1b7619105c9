"""Tight composition of a history's privacy events: PLD, RDP as a check, basic composition beside them.

A *history* is the multiset of events of the releases that read a person (order does not matter: composition
is commutative). Persons with the same releases share one history, so the accountant works per history:
:func:`history` and :func:`compose_incremental` return a light, hashable :class:`History` (its canonical key)
and keep its composed PLD in a bounded cache; :meth:`History.composition` is memoised per total δ.

The guarantee (:class:`Composition`). At the deployment's total ``δ`` three figures are computed, each a
proven upper bound on the history's ε at that δ:

* **PLD** — dp-accounting's privacy-loss distributions with pessimistic discretisation (every event's PLD
  rounds losses upwards, Meiser & Mohammadi 2018; Doroshenko et al. 2022, connect-the-dots), composed by
  convolution; ``get_epsilon_for_delta`` of a pessimistic PLD is an upper bound. (ε, δ) events enter as the
  dominating pair with ``+∞`` loss of mass δ, so their δ is spent out of the total δ inside the PLD.
* **RDP** — dp-accounting's Rényi accountant over the δ-free events (Gaussian and Laplace exactly; pure-ε and
  selection events through zCDP), converted at ``δ_total − Σδ_(ε,δ) events``; the (ε, δ) events with δ > 0
  are added to that by basic composition (two groups, each with its own guarantee).
* **basic** — the sum of each event's own claim ``(Σε, Σδ)``; it is a guarantee at ``δ_total`` only when
  ``Σδ ≤ δ_total``, and only then is it a candidate.

``epsilon_tight`` is the smallest candidate — the min of upper bounds is an upper bound — so it never exceeds
basic composition wherever basic composition holds at ``δ_total``. (When ``Σδ > δ_total`` the basic sum is a
claim at a larger δ, not comparable; the tight figure may then exceed ``Σε``, and is the one that holds.)
"""

from __future__ import annotations

import math
from collections import Counter, OrderedDict
from dataclasses import dataclass
from functools import lru_cache

import dp_accounting as dpa
import numpy as np
from dp_accounting.pld import privacy_loss_distribution as pld_lib

from dpcore.accounting.events import ZcdpGroup, from_json, to_json

#: PLD loss grid: 10⁻⁴ (dp-accounting's default); pessimistic rounding adds at most about one step per event
DISCRETISATION = 1e-4
#: composed PLDs kept (a few MB each at ε ≈ 10): the ledger's live history prefixes
PLD_CACHE_SIZE = 256

Key = tuple  # sorted ((event JSON, count), ...)


@dataclass(frozen=True)
class Composition:
    """A history's ε at total ``delta`` under each rule, and which rule gave ``epsilon_tight``."""

    epsilon_tight: float
    delta: float
    epsilon_basic: float
    delta_basic: float
    method: str
    epsilon_pld: float
    epsilon_rdp: float

    @property
    def basic_holds(self) -> bool:
        """Whether the basic sum is a guarantee at ``delta`` (its δ sum does not exceed it)."""
        return self.delta_basic <= self.delta

    def describe(self) -> str:
        basic = f"basic composition ε = {self.epsilon_basic:.4g}, δ = {self.delta_basic:.3g}"
        return (f"ε = {self.epsilon_tight:.4g} at δ = {self.delta:.3g} ({self.method}; PLD {self.epsilon_pld:.4g}, "
                f"RDP {self.epsilon_rdp:.4g}); {basic}")


def _key(events) -> Key:
    return tuple(sorted(Counter(to_json(e) for e in events).items()))


def _merge(a: Key, b: Key) -> Key:
    total = Counter(dict(a))
    total.update(dict(b))
    return tuple(sorted(total.items()))


def _flat(key: Key) -> Counter:
    """Event JSON → count with every :class:`ZcdpGroup` opened into its parts (the tight accountants' view)."""
    out: Counter = Counter()
    for text, count in key:
        event = from_json(text)
        parts = event.events if isinstance(event, ZcdpGroup) else (event,)
        for part in parts:
            out[to_json(part)] += count
    return out


@lru_cache(maxsize=4096)
def _event_pld(text: str, count: int, interval: float):
    return from_json(text).pld(interval).self_compose(count)


def _pld_from_scratch(key: Key, interval: float):
    plds = [_event_pld(text, count, interval) for text, count in sorted(_flat(key).items())]
    if not plds:
        return pld_lib.identity(value_discretization_interval=interval)
    out = plds[0]
    for p in plds[1:]:
        out = out.compose(p)
    return out


_PLDS: OrderedDict = OrderedDict()


def _remember(key: Key, interval: float, pld) -> None:
    _PLDS[(key, interval)] = pld
    _PLDS.move_to_end((key, interval))
    while len(_PLDS) > PLD_CACHE_SIZE:
        _PLDS.popitem(last=False)


@dataclass(frozen=True)
class History:
    """One accounting: the canonical multiset of events (``key``) at a PLD grid ``interval``.

    Hashable and small, so the ledger can keep one per history prefix; the composed PLD lives in a bounded
    cache (:data:`PLD_CACHE_SIZE`) and is rebuilt from the key if evicted.
    """

    key: Key
    interval: float = DISCRETISATION

    @property
    def pld(self):
        found = _PLDS.get((self.key, self.interval))
        if found is None:
            found = _pld_from_scratch(self.key, self.interval)
            _remember(self.key, self.interval, found)
        return found

    @property
    def events(self) -> list:
        return [from_json(text) for text, count in self.key for _ in range(count)]

    def composition(self, delta_total: float) -> Composition:
        """The history's ε at ``delta_total`` (memoised per key and δ)."""
        return _composition(self, float(delta_total))


def history(events=(), *, interval: float = DISCRETISATION) -> History:
    """The accounting of ``events`` (any order; equal multisets give the same, cached, history)."""
    return History(_key(events), interval)


def compose_incremental(prefix: History, new_events) -> History:
    """``prefix`` plus ``new_events``: one PLD convolution onto the prefix's cached PLD (cheap), cached in turn.

    The result is the same upper bound as composing from scratch up to the order of pessimistic roundings
    (each order is an upper bound).
    """
    added = _key(new_events)
    key = _merge(prefix.key, added)
    if (key, prefix.interval) not in _PLDS and added:
        new = _pld_from_scratch(added, prefix.interval)
        _remember(key, prefix.interval, prefix.pld.compose(new))
    return History(key, prefix.interval)


def _rdp_epsilon(flat: Counter, delta_total: float) -> float:
    """RDP over the δ-free events at ``δ_total − Σδ`` of the others, plus their ``Σε`` (basic composition)."""
    accountant = dpa.rdp.RdpAccountant()
    eps_extra, delta_extra = 0.0, 0.0
    for text, count in flat.items():
        event = from_json(text)
        rdp_event = event.rdp_event()
        if rdp_event is None:
            eps, delta = event.basic()
            eps_extra, delta_extra = eps_extra + count * eps, delta_extra + count * delta
        else:
            accountant.compose(dpa.SelfComposedDpEvent(rdp_event, count))
    if delta_total <= delta_extra:
        return math.inf
    return float(accountant.get_epsilon(delta_total - delta_extra)) + eps_extra


@lru_cache(maxsize=65536)
def _composition(hist: History, delta_total: float) -> Composition:
    if not 0.0 < delta_total < 1.0:
        raise ValueError("the total δ must lie in (0, 1)")
    claims = [(from_json(text).basic(), count) for text, count in hist.key]
    eps_basic = math.fsum(c * e for (e, _), c in claims)
    delta_basic = math.fsum(c * d for (_, d), c in claims)
    if not hist.key:
        return Composition(0.0, delta_total, 0.0, 0.0, "empty", 0.0, 0.0)
    eps_pld = float(hist.pld.get_epsilon_for_delta(delta_total))
    eps_rdp = _rdp_epsilon(_flat(hist.key), delta_total)
    candidates = {"PLD": eps_pld, "RDP": eps_rdp}
    if delta_basic <= delta_total:
        candidates["basic"] = eps_basic
    method = min(candidates, key=candidates.get)
    return Composition(candidates[method], delta_total, eps_basic, delta_basic, method, eps_pld, eps_rdp)


def compose(events, delta_total: float, *, interval: float = DISCRETISATION) -> Composition:
    """Tight ε of ``events`` at total δ ``delta_total`` with basic composition beside it (see the module doc)."""
    return history(events, interval=interval).composition(delta_total)


def spend_after(histories, new_events, delta_total: float) -> np.ndarray:
    """Tight ε of each history in ``histories`` once ``new_events`` are added (one incremental step each).

    A cap check over persons: ``spend_after(histories, events, δ)[person_history] <= cap``, with
    ``person_history`` each person's index into ``histories`` — one accounting per distinct history.
    """
    return np.array([compose_incremental(h, new_events).composition(delta_total).epsilon_tight for h in histories])
