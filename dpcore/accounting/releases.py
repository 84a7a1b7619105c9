"""The privacy events of a release, from what it is charged with: each method declares its own.

:func:`events_for_release` takes what ``ui.release_panel`` passes to ``ledger.charge`` — the method's name,
``(ε, δ)``, ``parts`` and ``params`` — and hands it to the events module of the method that charges releases under
that name (found through :func:`dpcore.registry.events_module`: ``dpcore.survival.events``,
``dpcore.regression.events``, ``dpcore.sparse.events``). Each rebuilds the mechanisms its release ran from the
method's own calibration, never from the data, and the events' basic composition is the charged ``(ε, δ)``
(``tests/accounting/test_accounting_releases.py`` checks it method by method). The accountant itself only composes events: it
imports no method (dp-accounting's contract: each event documents itself).

A name no method declares (PAPRIKA's discovery lists: the sparse-vector technique has no tighter description in the
library; any other) is one ``(ε, δ)`` event: what is charged is all that is known.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dpcore.accounting.events import ApproxDP
from dpcore.registry import events_module


def events_for_release(method: str, epsilon: float, delta: float = 0.0, parts: Mapping[str, float] | None = None,
                       params: Mapping[str, Any] | None = None) -> list:
    """The privacy events of one release, from what the page charges (the method's events module decides)."""
    module = events_module(method)
    if module is None:
        return [ApproxDP(epsilon, delta)]
    return module.release_events(method, epsilon, delta, dict(parts or {}), dict(params or {}))
