"""Several people using the app at once see no error: sessions that visit every page together and move a slider.

Six Chromium sessions against one real ``streamlit run app.py`` (``tests/support/load_sessions.py``): each opens the home
page, follows the sidebar to every other page and moves the page's ε slider one step. Every exception box, error
alert and error dialog ever shown is collected with its text (a failure prints them, with the server's
tracebacks). The twenty-session run is ``bench/bench_load.py`` (on demand, with ``--busy N`` for a busier CPU):
under load a race shows as an error on some page, and the suite keeps the smaller run within its time.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from conftest import _require_chromium
from tests.support.load_sessions import PAGES, load

SESSIONS = 6


def test_sessions_visiting_every_page_at_once_and_moving_a_slider_are_shown_no_error(tmp_path):
    _require_chromium()
    # in a thread of its own: the suite's Playwright pages keep an event loop running in this one
    with ThreadPoolExecutor(1) as pool:
        run = pool.submit(load, SESSIONS, tmp_path / "data", timeout=300, budget=900).result()
    print(run.report())
    assert not run.shown, run.report()
    assert not run.problems and not run.server_log, run.report()
    assert run.visit_count == SESSIONS * len(PAGES), run.report()
