"""Head starts: compute in the background what the next step of a slider will need (public inputs only).

A slider's first move to a value nobody has asked for yet waits for the fits behind it (Sparse: the methods'
fits at the new ε; Drug sensitivity: the threshold search and the cross-validation). Right after a run, the
page queues the same cached calls for the options one step away; by the time the user moves, the result is
usually in the shared cache (:mod:`ui.cache`, or the function's own process-wide cache).

Only calls on public inputs (bundled or synthetic data, public settings) may be queued: the results land in
caches shared by every session, and uploaded data never leaves its session's run. One thread serves the whole
server, at the lowest scheduling priority (on Linux a thread has its own nice value), so a head start takes
only the CPU that the sessions' runs and the browser leave; a session's newer run abandons whatever its older
head start has not begun.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import streamlit as st


def _lowest_priority() -> None:
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except (AttributeError, OSError):  # not Linux, or not allowed: a head start at normal priority
        pass


@st.cache_resource(show_spinner=False)
def _executor() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="head-start", initializer=_lowest_priority)


def steps_around(options: Sequence, value) -> list:
    """The options one step either side of ``value`` (none if ``value`` is not an option)."""
    options = list(options)
    if value not in options:
        return []
    i = options.index(value)
    return [options[j] for j in (i - 1, i + 1) if 0 <= j < len(options)]


def run_ahead(calls: Sequence[tuple[float, Callable[[], object]]], *, token: list[bool]) -> None:
    """Run ``calls`` (seconds after now, a call whose result is cached) in order while ``token[0]`` holds."""
    start = time.monotonic()
    for delay, call in calls:
        if token[0]:
            time.sleep(max(0.0, start + delay - time.monotonic()))
        if not token[0]:
            return
        try:
            call()
        except Exception:  # noqa: BLE001 - only a head start: the run that needs the value computes it again
            return


def head_start(name: str, calls: Sequence[tuple[float, Callable[[], object]]]) -> None:
    """Queue ``calls`` for this session under ``name``, abandoning what its previous head start has not begun.

    Each call is ``(delay in seconds after now, a zero-argument call of a cached function on public inputs)``;
    the delay leaves the browser time to draw this run before the background thread takes a core.
    """
    held = f"_head_start_{name}"
    if (stale := st.session_state.get(held)) is not None:
        stale[0] = False
    token = st.session_state[held] = [True]
    if calls:
        _executor().submit(run_ahead, list(calls), token=token)
