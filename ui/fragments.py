"""Page fragments that do not outlive their session's memory budget.

A method page puts everything that depends on ε in an ``st.fragment`` so that moving the ε slider reruns only
that part. Streamlit keeps a session's fragments (the page function, hence the page script's whole namespace:
data sets, fits, sweeps) after its browser disconnects, for ``server.disconnectedSessionTTL`` (two minutes), so
that a reconnect can resume it. Visiting a heavy page by link after link then held every earlier page's data
at once: 5 GB instead of 1 GB in ``tests/test_memory_browser.py``.

:func:`live_fragment` releases a page's namespace when its session disconnects (a session-scoped
``st.cache_resource`` whose ``on_release`` Streamlit calls on disconnect). A fragment rerun that finds its
namespace released (a resumed session) asks for a full rerun, which rebuilds it.
"""

from __future__ import annotations

import threading
from functools import wraps

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx


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
        return page_function(*args, **kwargs)

    return run


def view_tabs(labels: list[str], *, key: str) -> list:
    """Tabs of which only the open one is computed and drawn (``st.tabs(on_change="rerun")``).

    Inside a :func:`live_fragment`, a slider move then redraws one chart instead of every view of the page: the
    browser rebuilds each changed Plotly chart from scratch (a new spec is a new element), so each chart drawn
    costs about as much as the whole bare page (``bench/bench_pages.py``). Open a tab with ``if tab.open:``
    inside ``with tab:``. Switching tabs reruns only the enclosing fragment. Labels are rendered as Markdown:
    pass fixed text, never a value read from data, a file name or a URL.

    The open view survives a run that did not draw the tabs (Streamlit then forgets a widget's state, e.g. after
    a setting that stops the page early). A remembered view this configuration does not have opens the first
    (Streamlit's own fallback; tests/test_fragments.py checks it).
    """
    remembered = f"_{key}_last_open"
    if key not in st.session_state and st.session_state.get(remembered) in labels:
        st.session_state[key] = st.session_state[remembered]
    tabs = st.tabs(labels, key=key, on_change="rerun")
    st.session_state[remembered] = st.session_state.get(key)
    return tabs
