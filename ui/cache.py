"""A process-wide cache for computations on public inputs, bounded by bytes as well as entries.

``st.cache_data`` bounds a cache by its number of entries only, and hands every caller an unpickled copy:
eight synthetic data sets of 160 MB each, plus a copy per run, took the server past 2.8 GB. Here each
cache has a byte budget too (least recently used entries leave first; a value larger than the budget is
computed and not kept), and callers share the one stored value, whose arrays are made read-only so that
no session can change what another one sees.

Only public inputs (bundled data, synthetic data from a public seed) may be cached here: the cache is
shared by every session of the server. Uploads are never passed to a cached function.

Memory budget of the server (any sequence of links and controls, one visitor): the caches' byte budgets
(:data:`BUDGETS`, 0.62 GB in all) + one page run's working memory at a page's largest settings (the Sparse
page's n·d cap of 20 million cells: about 0.5 GB; its design matrices are built a few supports at a time) + per
session at most one upload of at most 20 MB per page (:mod:`ui.data`) + the baseline of the imported libraries
(NumPy, SciPy, pandas, Streamlit, lifelines, OpenDP, numba: about 0.4 GB): 1.5 GB, checked by
``tests/app/test_memory_browser.py`` after the other browser tests have run in the same server.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import threading
from collections import OrderedDict

import numpy as np
import pandas as pd
from plotly.basedatatypes import BaseFigure

MB = 1024**2
#: Byte budget of every cache (the memory test holds the sum under the server's limit).
BUDGETS = {
    "sparse data": 320 * MB,
    "sparse GDSC": 40 * MB,
    "sparse previews": 100 * MB,
    "sparse sweeps": 20 * MB,
    "regression cv": 20 * MB,
    "regression previews": 20 * MB,
    "fdr streams": 60 * MB,
    "survival sweep figures": 20 * MB,
    "fdr sweep figures": 20 * MB,
    "fdr frontiers": 4 * MB,
}


def nbytes(value, _seen: set | None = None) -> int:
    """Approximate memory held by ``value``: arrays, frames, dataclasses and containers, counted once each."""
    seen = set() if _seen is None else _seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (pd.DataFrame, pd.Series)):
        return int(np.sum(value.memory_usage(deep=True)))
    if isinstance(value, BaseFigure):  # Plotly holds a figure as Python objects: a few times its JSON
        return 3 * len(value.to_json())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(nbytes(getattr(value, f.name), seen) for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return sys.getsizeof(value) + sum(nbytes(k, seen) + nbytes(v, seen) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return sys.getsizeof(value) + sum(nbytes(v, seen) for v in value)
    return sys.getsizeof(value)


def _freeze(value, _seen: set | None = None) -> None:
    """Make every NumPy array reachable from ``value`` read-only (a shared value must not be changed)."""
    seen = set() if _seen is None else _seen
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _freeze(getattr(value, f.name), seen)
    elif isinstance(value, dict):
        for v in value.values():
            _freeze(v, seen)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _freeze(v, seen)


#: budget name → (the function's file and name, its entries). Page scripts run afresh on every rerun, so the
#: entries live here, not in the decorated function.
_CACHES: dict[str, tuple[tuple[str, str], OrderedDict]] = {}
_LOCK = threading.Lock()


def public_cache(budget: str, *, max_entries: int):
    """Cache a function of public, hashable arguments under ``BUDGETS[budget]`` bytes and ``max_entries``.

    Each budget belongs to one function; least recently used entries leave first.
    """
    max_bytes = BUDGETS[budget]

    def decorate(func):
        owner = (func.__code__.co_filename, func.__qualname__)
        with _LOCK:
            if _CACHES.get(budget, (owner,))[0] != owner:
                raise ValueError(f"the cache budget {budget!r} already belongs to {_CACHES[budget][0][1]}")
            entries = _CACHES.setdefault(budget, (owner, OrderedDict()))[1]  # key → (value, bytes)

        @functools.wraps(func)
        def cached(*args, **kwargs):
            key = (args, tuple(sorted(kwargs.items())))
            with _LOCK:
                if key in entries:
                    entries.move_to_end(key)
                    return entries[key][0]
            value = func(*args, **kwargs)  # outside the lock: other sessions keep being served meanwhile
            size = nbytes(value)
            if size <= max_bytes:
                _freeze(value)
                with _LOCK:
                    entries[key] = (value, size)
                    while len(entries) > max_entries or sum(s for _, s in entries.values()) > max_bytes:
                        entries.popitem(last=False)
            return value

        return cached

    return decorate


def held_bytes() -> dict[str, int]:
    """Bytes each cache holds now (for tests and monitoring)."""
    with _LOCK:
        return {budget: sum(s for _, s in entries.values()) for budget, (_, entries) in _CACHES.items()}
