"""ui.fragments: a session's page namespaces are emptied when Streamlit releases the session's resources; a
fragment run's elements reach the browser together."""

from __future__ import annotations

import numpy as np
import pytest

from ui.fragments import PageNamespaces, _Burst


def test_release_empties_every_tracked_page_namespace_and_forgets_them():
    held = PageNamespaces()
    survival = {"__file__": "app_pages/survival.py", "counts": np.zeros(10**6)}
    sparse_old = {"__file__": "app_pages/sparse.py", "data": np.zeros(10**6)}
    sparse_new = {"__file__": "app_pages/sparse.py", "data": np.ones(10)}
    for namespace in (survival, sparse_old, sparse_new):
        held.track(namespace)
    held.release()
    assert survival == {} and sparse_new == {}
    assert sparse_old["data"].size == 10**6  # a page's older run was replaced by its newer one, not kept
    held.release()  # nothing left to release


def test_view_switch_compute_only_the_open_tab():
    from streamlit.testing.v1 import AppTest

    def page():
        import streamlit as st

        import ui

        st.session_state.setdefault("computed", [])
        first, second = ui.view_switch(["First", "Second"], key="view")
        with first:
            if first.open:
                st.session_state["computed"].append("first")
                st.markdown("first view")
        with second:
            if second.open:
                st.session_state["computed"].append("second")
                st.markdown("second view")

    at = AppTest.from_function(page)
    at.run()
    assert at.session_state["computed"] == ["first"]
    assert [m.value for m in at.markdown] == ["first view"]
    at.session_state["view"] = "Second"
    at.run()
    assert at.session_state["computed"] == ["first", "second"]
    assert [m.value for m in at.markdown] == ["second view"]


def test_a_page_file_imported_outside_a_session_does_not_fail():
    """A process spawned by a test's Dask cluster re-imports the main module, which an AppTest may have left
    pointing at a page file: a live fragment outside any session must not touch the session-scoped cache."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = f"import runpy, sys; sys.path.insert(0, {str(root)!r}); runpy.run_path({str(root / 'app_pages' / 'audit.py')!r})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


def test_view_switch_keep_the_open_view_across_a_run_without_them_and_drop_a_view_that_is_gone():
    from streamlit.testing.v1 import AppTest

    def page():
        import streamlit as st

        import ui

        if not st.session_state.get("stop_early"):
            labels = ["First", "Second"] + (["Third"] if st.session_state.get("third", True) else [])
            tabs = ui.view_switch(labels, key="view")
            st.markdown(f"open: {[label for label, tab in zip(labels, tabs) if tab.open]}")

    at = AppTest.from_function(page)
    at.run()
    at.session_state["view"] = "Second"
    at.run()
    at.session_state["stop_early"] = True  # a run that does not draw the tabs: Streamlit forgets their state
    at.run()
    at.session_state["stop_early"] = False
    at.run()
    assert at.markdown[-1].value == "open: ['Second']"
    at.session_state["view"] = "Third"
    at.run()
    at.session_state["third"] = False  # the open view no longer exists
    at.run()
    assert at.markdown[-1].value == "open: ['First']"


def test_an_explanation_sends_its_text_only_while_open():
    """``ui.explain`` inside a fragment: collapsed, only its title is sent on each rerun; opened (by the reader, or
    ``expanded=True``), its text is there."""
    from streamlit.testing.v1 import AppTest

    def page():
        import ui

        ui.explain("**Why.** Because.", title="Why this works")
        ui.explain("Open from the start.", title="Already open", expanded=True)

    at = AppTest.from_function(page)
    at.run()
    assert [e.label for e in at.expander] == ["Why this works", "Already open"]
    assert [m.value for m in at.markdown] == ["Open from the start."]
    at.session_state["explain Why this works"] = True  # what opening the box in the browser sets
    at.run()
    assert [m.value for m in at.markdown] == ["**Why.** Because.", "Open from the start."]


def test_a_burst_holds_messages_in_order_until_released_then_passes_them_on():
    sent = []
    burst = _Burst(sent.append, patience=60.0)
    burst("a")
    burst("b")
    assert sent == [] and burst.waiting == 2
    burst.release()
    assert sent == ["a", "b"] and burst.waiting == 0
    burst("c")
    assert sent == ["a", "b", "c"]
    burst.release()  # a second release sends nothing again
    assert sent == ["a", "b", "c"]


def test_a_run_interrupted_while_its_messages_go_out_drops_the_rest_for_good():
    """Streamlit raises a rerun request out of the first send of a run a newer move replaced: the messages after
    it belong to the stale run and must not reach the browser later (say from the patience timer)."""
    import time

    sent = []

    def send(msg):
        if msg == "b":
            raise RuntimeError("rerun requested")
        sent.append(msg)

    burst = _Burst(send, patience=0.05)
    for msg in "abc":
        burst(msg)
    with pytest.raises(RuntimeError):
        burst.release()
    time.sleep(0.2)  # past the patience: the alarm's late release finds nothing held
    assert sent == ["a"] and burst.waiting == 0


def test_a_slow_run_sends_what_it_holds_once_its_patience_has_passed():
    import threading

    arrived = threading.Event()
    sent = []

    def send(msg):
        sent.append(msg)
        arrived.set()

    burst = _Burst(send, patience=0.05)
    burst("spinner")
    assert arrived.wait(timeout=30)  # the timer released it without the run ending
    burst("chart")
    assert sent == ["spinner", "chart"]
    burst.release()


def test_bursts_share_one_alarm_thread():
    """A thread per fragment run (a ``threading.Timer``) cost every slider move about 1.5 ms of server time."""
    import threading

    bursts = [_Burst(lambda msg: None, patience=60.0) for _ in range(20)]
    # by name, not by a count of all threads: other tests' background threads may start meanwhile
    assert [t.name for t in threading.enumerate()].count("dpcore-burst-alarm") == 1
    for burst in bursts:
        burst.release()


def test_a_live_fragment_holds_its_elements_until_it_ends():
    """Streamlit routes every element of a run through ``ScriptRunContext._enqueue``; if a new version stops
    doing so, nothing is held here and this fails."""
    from streamlit.testing.v1 import AppTest

    def page():
        import streamlit as st
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        import ui

        @ui.live_fragment
        def part():
            st.markdown("first")
            st.session_state["waiting"] = getattr(get_script_run_ctx()._enqueue, "waiting", None)
            st.markdown("second")

        part()
        st.markdown("after")

    at = AppTest.from_function(page)
    at.run()
    assert not at.exception
    assert at.session_state["waiting"] >= 1
    assert [m.value for m in at.markdown] == ["first", "second", "after"]
