"""Page fragments that do not outlive their session's memory budget.

A method page puts everything that depends on ε in an ``st.fragment`` so that moving the ε slider reruns only
that part. Streamlit keeps a session's fragments (the page function, hence the page script's whole namespace:
data sets, fits, sweeps) after its browser disconnects, for ``server.disconnectedSessionTTL`` (two minutes), so
that a reconnect can resume it. Visiting a heavy page by link after link then held every earlier page's data
at once: 5 GB instead of 1 GB in ``tests/app/test_memory_browser.py``.

:func:`live_fragment` releases a page's namespace when its session disconnects (a session-scoped
``st.cache_resource`` whose ``on_release`` Streamlit calls on disconnect). A fragment rerun that finds its
namespace released (a resumed session) asks for a full rerun, which rebuilds it.

It also sends a fragment run's elements to the browser together, at its end (:class:`_Burst`). Streamlit sends
each element as the script reaches it, and the browser redraws the whole page for each batch that arrives: a
fragment that computes between its elements cost a move two or three page redraws where one does (about 7 ms of a
move's 130 on the FDR and sparse pages, ``bench/bench_pages.py``). A run slower than ``BURST_PATIENCE_S`` sends what
it holds then, and everything after as it comes, so a slow view's spinner still shows. Sending an element is also
where Streamlit stops a run that a newer move has replaced; while messages are held that happens when they are
released, at most ``BURST_PATIENCE_S`` later than before.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import logging
import threading
import time
from dataclasses import dataclass
from functools import wraps

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

_log = logging.getLogger(__name__)


class PageNamespaces:
    """The page-script namespaces of one session's latest runs, one per page file; emptied on release."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_page: dict[str, dict] = {}

    def track(self, namespace: dict) -> None:
        with self._lock:
            self._by_page[str(namespace.get("__file__", ""))] = namespace

    def release(self) -> None:
        """Drop everything the tracked namespaces hold (Streamlit may still hold the functions defined in them)."""
        with self._lock:
            for namespace in self._by_page.values():
                namespace.clear()
            self._by_page.clear()


@st.cache_resource(scope="session", on_release=PageNamespaces.release, show_spinner=False)
def _session_namespaces() -> PageNamespaces:
    return PageNamespaces()


def live_fragment(page_function):
    """``st.fragment(page_function)`` for a function of a page script that reads the page's globals.

    The page's namespace is released when the session disconnects (see the module docstring); if the session
    is later resumed and the fragment reruns on its own, it reruns the whole page instead.
    """
    namespace = page_function.__globals__
    if get_script_run_ctx() is not None:  # not when the page file is merely imported (e.g. by a spawned process)
        _session_namespaces().track(namespace)

    @st.fragment
    @wraps(page_function)
    def run(*args, **kwargs):
        if not namespace:  # released on disconnect: rebuild the page
            st.rerun(scope="app")
        with _sent_together():
            return page_function(*args, **kwargs)

    return run


@dataclass(frozen=True)
class View(contextlib.AbstractContextManager):
    """One view of :func:`view_switch`: ``open`` while it is the one chosen; ``with view:`` reads as a tab's
    block (the views draw in place, under the switch, and only the open one draws anything)."""

    label: str
    open: bool

    def __exit__(self, *exc) -> None:
        return None


def view_switch(labels: list[str], *, key: str) -> list[View]:
    """A row of view buttons (``st.segmented_control``) of which only the chosen view is computed and drawn.

    Inside a :func:`live_fragment`, a slider move then redraws one chart instead of every view of the page: the
    browser rebuilds each changed Plotly chart from scratch, so each chart drawn costs about as much as the whole
    bare page (``bench/bench_pages.py``). Open a view with ``if view.open:`` inside ``with view:``. Choosing a
    view reruns only the enclosing fragment. It is one element where ``st.tabs`` was a block per tab: every
    element of a fragment is resent and redrawn on each move of its sliders, and five tabs cost a move about
    14 ms in Chromium against 1 ms for the switch (measured beside the bare page). Labels are rendered
    as Markdown: pass fixed text, never a value read from data, a file name or a URL.

    The open view survives a run that did not draw the switch (Streamlit then forgets a widget's state, e.g.
    after a setting that stops the page early). A remembered view this configuration does not have opens the
    first (tests/app/test_fragments.py checks both).
    """
    remembered = f"_{key}_last_open"
    if st.session_state.get(key) not in labels:
        last = st.session_state.get(remembered)
        st.session_state[key] = last if last in labels else labels[0]
    chosen = st.segmented_control("View", labels, key=key, required=True, label_visibility="collapsed")
    st.session_state[remembered] = chosen
    return [View(label, label == chosen) for label in labels]


#: how long a fragment's messages may be held back (s): a slow rerun's spinners and first elements still show
BURST_PATIENCE_S = 0.15


class _Alarm:
    """One daemon thread that calls each burst's release when its patience has passed. A ``threading.Timer`` per
    fragment run started a thread on every slider move, about 1.5 ms of the move's server time (py-spy); a
    release that is due after its run already ended does nothing, so nothing is ever cancelled."""

    def __init__(self) -> None:
        self._due: list = []  # heap of (deadline, sequence number, callback)
        self._order = itertools.count()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def call_later(self, delay: float, callback) -> None:
        with self._wake:
            heapq.heappush(self._due, (time.monotonic() + delay, next(self._order), callback))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="dpcore-burst-alarm", daemon=True)
                self._thread.start()
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._due or self._due[0][0] > time.monotonic():
                    self._wake.wait(self._due[0][0] - time.monotonic() if self._due else None)
                callback = heapq.heappop(self._due)[2]
            try:
                callback()
            except Exception:  # noqa: BLE001 - one failed release must not stop the alarm for every later run
                _log.exception("releasing a fragment's held messages failed")


_ALARM = _Alarm()


class _Burst:
    """Holds the messages of one fragment run and sends them together, in order, when it ends or once
    ``patience`` has passed, whichever comes first; after that it passes every message straight on."""

    def __init__(self, send, patience: float) -> None:
        self._send = send
        self._held: list = []
        self._lock = threading.Lock()
        self._holding = True
        _ALARM.call_later(patience, self.release)

    def __call__(self, msg) -> None:
        with self._lock:
            if self._holding:
                self._held.append(msg)
                return
        self._send(msg)

    @property
    def waiting(self) -> int:
        """How many messages are held."""
        return len(self._held)

    def release(self) -> None:
        """Send what is held. Sending is where Streamlit interrupts a run that a newer move has replaced (it
        raises in the script thread); the rest of the held messages are then dropped, never sent later. The alarm
        calling it after the run has released it finds nothing held and sends nothing."""
        with self._lock:
            self._holding = False
            held, self._held = self._held, []
            for msg in held:
                self._send(msg)


@contextlib.contextmanager
def _sent_together():
    """Routes the run's messages through a :class:`_Burst` (Streamlit 1.67's ``ScriptRunContext._enqueue``, the
    one path every element of the run takes; ``tests/app/test_fragments.py`` fails if that changes)."""
    ctx = get_script_run_ctx()
    if ctx is None:
        yield
        return
    previous = ctx._enqueue
    burst = _Burst(previous, BURST_PATIENCE_S)
    ctx._enqueue = burst
    try:
        yield
    finally:
        ctx._enqueue = previous
        burst.release()
