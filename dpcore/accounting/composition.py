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

import copy
import math
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass
from functools import lru_cache

import dp_accounting as dpa
import numpy as np
from dp_accounting.pld import privacy_loss_distribution as pld_lib

from dpcore.accounting.events import ZcdpGroup, from_json, to_json

#: PLD loss grid: 10⁻⁴ (dp-accounting's default); pessimistic rounding adds at most about one step per event
DISCRETISATION = 1e-4
#: composed PLDs kept (about 1 MB per unit of ε spread at 10⁻⁴, a tenth at 10⁻³): the ledger's live prefixes
PLD_CACHE_SIZE = 128

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


_event = lru_cache(maxsize=8192)(from_json)  # events are frozen: parse each stored text once


@lru_cache(maxsize=1024)
def _flat(key: Key) -> tuple:
    """``(event JSON, count)`` with every :class:`ZcdpGroup` opened into its parts (the tight accountants' view)."""
    out: Counter = Counter()
    for text, count in key:
        event = _event(text)
        for part in event.events if isinstance(event, ZcdpGroup) else (event,):
            out[to_json(part)] += count
    return tuple(sorted(out.items()))


@lru_cache(maxsize=4096)
def _event_pld(text: str, count: int, interval: float):
    return _event(text).pld(interval).self_compose(count)


def _pld(flat: tuple, interval: float):
    if not flat:
        return pld_lib.identity(value_discretization_interval=interval)
    first, *rest = (_event_pld(text, count, interval) for text, count in flat)
    for factor in rest:
        first = first.compose(factor)
    return first


#: one release's PLD, composed onto every history that release reads (a cap check builds it once)
_release_pld = lru_cache(maxsize=64)(_pld)


class _State:
    """A history's composed PLD; its Rényi accountant over the δ-free events; ``Σ(ε, δ)`` of the others.

    The PLD of an extended state is composed on first use: a cap check that basic composition or RDP already
    decides never pays for the convolution.
    """

    def __init__(self, pld_factors: tuple, rdp, eps_extra: float = 0.0, delta_extra: float = 0.0):
        self._factors, self._pld = pld_factors, None
        self.rdp, self.eps_extra, self.delta_extra = rdp, eps_extra, delta_extra

    @property
    def pld(self):
        if self._pld is None:
            first, *rest = (f.pld if isinstance(f, _State) else f for f in self._factors)
            for factor in rest:
                first = first.compose(factor)
            self._pld, self._factors = first, ()
        return self._pld

    def extended(self, flat: tuple, pld) -> "_State":
        """This state with the events ``flat`` (whose composed PLD is ``pld``) added."""
        return _State((self, pld), *_rdp_extended(self, flat))


def _rdp_extended(state, flat: tuple) -> tuple:
    """``state``'s Rényi accountant (a copy) and its ``Σ(ε, δ)`` of (ε, δ) events, with the events ``flat`` added."""
    rdp = copy.deepcopy(state.rdp) if state else dpa.rdp.RdpAccountant()
    eps_extra, delta_extra = (state.eps_extra, state.delta_extra) if state else (0.0, 0.0)
    for text, count in flat:
        event = _event(text)
        rdp_event = event.rdp_event()
        if rdp_event is None:
            eps, delta = event.basic()
            eps_extra, delta_extra = eps_extra + count * eps, delta_extra + count * delta
        else:
            rdp.compose(dpa.SelfComposedDpEvent(rdp_event, count))
    return rdp, eps_extra, delta_extra


_STATES: OrderedDict = OrderedDict()


_STATES_LOCK = threading.Lock()  # sessions run in threads: insert, refresh and evict as one step


def _remember(key: Key, interval: float, state: _State) -> _State:
    with _STATES_LOCK:
        _STATES[(key, interval)] = state
        _STATES.move_to_end((key, interval))
        while len(_STATES) > PLD_CACHE_SIZE:
            _STATES.popitem(last=False)
    return state


def _state(key: Key, interval: float) -> _State:
    found = _STATES.get((key, interval))
    if found is None:
        flat = _flat(key)
        found = _remember(key, interval, _State((_pld(flat, interval),), *_rdp_extended(None, flat)))
    return found


@dataclass(frozen=True)
class History:
    """One accounting: the canonical multiset of events (``key``) at a PLD grid ``interval``.

    Hashable and small, so the ledger can keep one per history prefix; the composed PLD and Rényi accountant
    live in a bounded cache (:data:`PLD_CACHE_SIZE`) and are rebuilt from the key if evicted.
    """

    key: Key
    interval: float = DISCRETISATION

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
    if (key, prefix.interval) not in _STATES and added:
        flat = _flat(added)
        _remember(key, prefix.interval,
                  _state(prefix.key, prefix.interval).extended(flat, _release_pld(flat, prefix.interval)))
    return History(key, prefix.interval)


@lru_cache(maxsize=65536)
def _composition(hist: History, delta_total: float) -> Composition:
    if not 0.0 < delta_total < 1.0:
        raise ValueError("the total δ must lie in (0, 1)")
    if not hist.key:
        return Composition(0.0, delta_total, 0.0, 0.0, "empty", 0.0, 0.0)
    claims = [(_event(text).basic(), count) for text, count in hist.key]
    eps_basic = math.fsum(c * e for (e, _), c in claims)
    delta_basic = math.fsum(c * d for (_, d), c in claims)
    state = _state(hist.key, hist.interval)
    eps_pld = float(state.pld.get_epsilon_for_delta(delta_total))
    # RDP over the δ-free events at δ_total − Σδ of the others, plus their Σε (basic composition of the two groups)
    eps_rdp = (math.inf if delta_total <= state.delta_extra else
               float(state.rdp.get_epsilon(delta_total - state.delta_extra)) + state.eps_extra)
    candidates = {"PLD": eps_pld, "RDP": eps_rdp}
    if delta_basic <= delta_total:
        candidates["basic"] = eps_basic
    method = min(candidates, key=candidates.get)
    eps = candidates[method]
    if math.isinf(eps):
        method = "none"  # the (ε, δ) events' δ alone exceeds the total: no guarantee at this δ
    return Composition(eps, delta_total, eps_basic, delta_basic, method, eps_pld, eps_rdp)


def compose(events, delta_total: float, *, interval: float = DISCRETISATION) -> Composition:
    """Tight ε of ``events`` at total δ ``delta_total`` with basic composition beside it (see the module doc)."""
    return history(events, interval=interval).composition(delta_total)


def spend_after(histories, new_events, delta_total: float) -> np.ndarray:
    """Tight ε of each history in ``histories`` once ``new_events`` are added (one incremental step each).

    A cap check over persons: ``spend_after(histories, events, δ)[person_history] <= cap``, with
    ``person_history`` each person's index into ``histories`` — one accounting per distinct history.
    """
    return np.array([compose_incremental(h, new_events).composition(delta_total).epsilon_tight for h in histories])


def _within(hist: History, cap_epsilon: float, delta_total: float) -> bool:
    key_basic = [(_event(text).basic(), count) for text, count in hist.key]
    if (math.fsum(c * d for (_, d), c in key_basic) <= delta_total
            and math.fsum(c * e for (e, _), c in key_basic) <= cap_epsilon):
        return True
    state = _state(hist.key, hist.interval)
    if (state.delta_extra < delta_total
            and state.rdp.get_epsilon(delta_total - state.delta_extra) + state.eps_extra <= cap_epsilon):
        return True
    return bool(state.pld.get_delta_for_epsilon(cap_epsilon) <= delta_total)


def within_cap(histories, new_events, cap_epsilon: float, delta_total: float) -> np.ndarray:
    """Per history: whether adding ``new_events`` keeps it within ``(cap_epsilon, delta_total)``.

    The same verdict as ``compose_incremental(h, new_events).composition(delta_total).epsilon_tight <=
    cap_epsilon`` — the min of three upper bounds is within the cap iff one of them is — without searching for
    ε: basic composition first, then RDP, then the PLD's δ at ε = cap (``ε_PLD(δ) ≤ cap`` iff ``δ_PLD(cap) ≤ δ``,
    δ(ε) being non-increasing), one vectorised pass. Index the result by each person's history.
    """
    return np.array([_within(compose_incremental(h, new_events), cap_epsilon, delta_total) for h in histories])
