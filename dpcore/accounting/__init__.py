# ruff: noqa: I001  (imports in data-flow order, not alphabetical)
"""Tight privacy accounting: privacy events of releases, composed with dp-accounting's PLD and RDP.

The files, in the order data flows:

1. ``events.py`` — one frozen dataclass per mechanism as it ran (Laplace, discrete Laplace, Gaussian,
   selections, (ε, δ), and a zCDP group for parts proven together), each with its claim's proof, its
   pessimistic PLD and its RDP event, and JSON for the ledger;
2. ``composition.py`` — :func:`compose` / :func:`history` / :func:`compose_incremental`: a history's ε at the
   deployment's total δ (PLD, RDP, basic; the smallest proven bound), memoised per history;
3. ``releases.py`` — :func:`events_for_release`: a release's events from the parameters pages charge it with,
   rebuilt by the events module of the method that declares its name (:func:`dpcore.registry.events_module`):
   this package imports no method.

What the ledger calls: store ``events_to_json(events_for_release(method, ε, δ, parts, params))`` beside each
charge; per history keep ``compose_incremental(prefix, events)``; check caps with
``within_cap(histories, events, cap, δ_total)`` (the verdict of ``History.composition(δ_total).epsilon_tight``,
faster) and show ``epsilon_tight`` with ``epsilon_basic`` beside it.
"""

from dpcore.accounting.events import (  # noqa: F401
    ApproxDP, DiscreteLaplace, Gaussian, Laplace, Selection, ZcdpGroup, events_from_json, events_to_json,
    from_json, to_json,
)
from dpcore.accounting.composition import (  # noqa: F401
    DISCRETISATION, Composition, History, compose, compose_incremental, history, spend_after, within_cap,
)
from dpcore.accounting.releases import events_for_release  # noqa: F401

__all__ = ["ApproxDP", "DiscreteLaplace", "Gaussian", "Laplace", "Selection", "ZcdpGroup", "events_from_json",
    "events_to_json", "from_json", "to_json", "DISCRETISATION", "Composition", "History", "compose",
    "compose_incremental", "history", "spend_after", "within_cap", "events_for_release"]
