"""Shared fixtures: a live Streamlit server and a Playwright page on Debian's Chromium."""

from __future__ import annotations

import contextlib
import importlib
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


if _in_ci():
    # CI tries the examples every local CI=true run tried (a hash of each test picks them), so what passed here passes
    # there; a plain local run keeps drawing new ones, which is where hypothesis finds what no one thought to try
    from hypothesis import settings

    settings.register_profile("ci", derandomize=True)
    settings.load_profile("ci")


def _skip_outside_ci(message: str) -> None:
    """Skip with ``message``; under ``CI=true``, where the dependency is installed on purpose, fail."""
    if _in_ci():
        pytest.fail(message)
    pytest.skip(message)


def import_outside_ci(name: str):
    """``pytest.importorskip(name)``, except under ``CI=true``, where a missing module fails the test file."""
    return importlib.import_module(name) if _in_ci() else pytest.importorskip(name)


def _require_chromium() -> None:
    if not CHROMIUM.exists():
        _skip_outside_ci(f"Browser tests need Debian's Chromium at {CHROMIUM} (apt-get install chromium); "
                         "`playwright install` cannot download browsers here.")


LEDGER_ENV = ("DPCORE_DATA_DIR", "DPCORE_LEDGER_URL", "DPCORE_CONFIG", "DPCORE_DEFAULT_EPSILON_CAP",
              "DPCORE_DEFAULT_DELTA_CAP", "DPCORE_ACCOUNTANT", "DPCORE_LEDGER_SECRET", "DPCORE_LEDGER_SECRET_FILE")
#: the HMAC secret the tests give a shared deployment (PostgreSQL or sign-in), which keeps it outside its data folder
SHARED_SECRET = bytes(range(32))


@pytest.fixture(autouse=True)
def _private_ledger(tmp_path, monkeypatch):
    """Every test's app ledger is a fresh SQLite file under its tmp folder (never the repo's .dpcore-data)."""
    for name in LEDGER_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DPCORE_DATA_DIR", str(tmp_path / "dpcore-data"))


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """URL of the PostgreSQL server for ledger tests (``DPCORE_TEST_POSTGRES_URL``, set by ``.ci/run``)."""
    url = os.environ.get("DPCORE_TEST_POSTGRES_URL", "")
    if not url:
        _skip_outside_ci("PostgreSQL ledger tests need a server: set DPCORE_TEST_POSTGRES_URL "
                         "(.ci/run starts a throw-away cluster and sets it).")
    return url


@contextlib.contextmanager
def postgres_schema(server: str):
    """A URL whose connections work in a fresh, private schema of ``server``; dropped afterwards."""
    import psycopg

    schema = f"test_{secrets.token_hex(6)}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    separator = "&" if "?" in server else "?"
    try:
        yield f"{server}{separator}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def postgres_url(postgres_server):
    """A private schema on the test PostgreSQL server, for one test."""
    with postgres_schema(postgres_server) as url:
        yield url


def start_app(data_dir: Path, *, ledger_url: str = "", extra_env: dict | None = None,
              address: str = "127.0.0.1") -> tuple[subprocess.Popen, str]:
    """``streamlit run app.py`` on a free port (listening on ``address``; the URL is the loopback one) with its
    ledger in ``data_dir`` (or ``ledger_url``).

    The server's output goes to a file beside ``data_dir``, never to an unread pipe: a server that logs more than
    the pipe holds (64 KiB; each Session-State warning Streamlit logs carries a 3 KB stack) would block in its next write and stop answering."""
    port = _free_port()
    log = data_dir.parent / f"streamlit-{port}.log"
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in LEDGER_ENV}
    env.update(PYTHONPATH=str(ROOT), DPCORE_DATA_DIR=str(data_dir), **(extra_env or {}))
    if ledger_url:
        env["DPCORE_LEDGER_URL"] = ledger_url
        env.setdefault("DPCORE_LEDGER_SECRET", SHARED_SECRET.hex())  # a shared deployment: its secret from outside
    with log.open("wb") as output:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port", str(port),
             "--server.address", address, "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    break
        except OSError:
            time.sleep(0.5)
        if proc.poll() is not None:
            pytest.fail(f"streamlit exited early:\n{log.read_text(errors='replace')[-5000:]}")
    else:
        proc.kill()
        pytest.fail("streamlit did not become healthy within 90 s")
    return proc, url


def stop_app(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class ServerURL(str):
    """The app server's base URL (a ``str``), which also carries the server process's ``pid``."""

    pid: int

    def __new__(cls, url: str, pid: int):
        obj = super().__new__(cls, url)
        obj.pid = pid
        return obj


@pytest.fixture(scope="session")
def app_server(tmp_path_factory):
    """Run ``streamlit run app.py`` on a free loopback port for the whole session; yield its URL
    (a :class:`ServerURL`: ``app_server.pid`` is the server's process id, e.g. to read its memory)."""
    _require_chromium()
    proc, url = start_app(tmp_path_factory.mktemp("app-ledger"))
    yield ServerURL(url, proc.pid)
    stop_app(proc)


@pytest.fixture(scope="session")
def _browser():
    _require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def chromium_page(_browser):
    """A fresh browser context and page (1400×1000) on Debian's Chromium."""
    context = _browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    context.close()


def unfold(page, element) -> None:
    """Open the folded box ``element`` sits in, if it is folded (a page's expert settings start folded).

    A settings box draws its controls only while open, so until then there is nothing in it to find: the main
    area's folded boxes are opened one by one (each a rerun) until ``element`` is there."""
    if element.is_visible():
        return
    boxes = page.locator('[data-testid="stMain"] [data-testid="stExpander"]')
    if boxes.filter(has=element).count():
        boxes.filter(has=element).locator("summary").first.click()
    else:
        closed = boxes.locator("details:not([open]) > summary")
        for _ in range(closed.count()):
            closed.first.click()
            wait_for_idle(page)
            if element.count():
                break
    element.wait_for(state="visible")


#: records the time of the page's last DOM change (``window.__dpLastChange``), from the first idle check on a document
_WATCH_CHANGES = """() => {
  if (window.__dpLastChange === undefined) {
    window.__dpLastChange = performance.now();
    new MutationObserver(() => { window.__dpLastChange = performance.now(); }).observe(
      document.documentElement, {subtree: true, childList: true, attributes: true, characterData: true});
  }
}"""
#: the app root's script state says a run is under way (or about to start)
_RUNNING = ("['initial', 'running', 'rerunRequested'].includes("
            "document.querySelector('[data-testid=\"stApp\"]')?.getAttribute('data-test-script-state'))")
#: idle once the script has finished and the page has not changed for this long (ms)
QUIET_MS = 250
#: a page still changing after this long past its script's end (an animation) counts as idle (ms)
QUIET_PATIENCE_MS = 5_000


def wait_for_idle(page, timeout_ms: int = 90_000) -> None:
    """Wait until Streamlit has rendered the app and finished running the script, and the page has stopped changing.

    The end is the page falling quiet (``QUIET_MS`` without a DOM change), not a fixed pause: a fixed 500 ms after
    the script's end was most of the wait on most calls, and too short for a slow redraw under load. When no run
    shows as under way, 300 ms first let an action's rerun begin (the script state only shows it then); a run that
    already shows (a page still loading) is simply waited for."""
    # any visible element: the first element container is app.py's style element, 0 px tall, and a page that has
    # drawn its content below it can keep it first, which a wait on the first match would wait on until it fails
    page.locator('[data-testid="stMain"] [data-testid="stElementContainer"]:visible').first.wait_for(timeout=timeout_ms)
    page.evaluate(_WATCH_CHANGES)
    if page.evaluate(f"() => !{_RUNNING}"):
        page.wait_for_timeout(300)
    # the app root's script state: a page whose first part is drawn may still be computing the rest
    page.wait_for_function(f"() => !{_RUNNING}", timeout=timeout_ms)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')",
        timeout=timeout_ms,
    )
    wait_for_quiet(page)


def wait_for_quiet(page) -> None:
    """Wait until the page has not changed for ``QUIET_MS`` (at most ``QUIET_PATIENCE_MS``: a page that keeps
    changing, a spinner or a transition, is let be)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:  # a document loaded since the first check starts being watched now
        page.wait_for_function(f"() => ({_WATCH_CHANGES})() || performance.now() - window.__dpLastChange > {QUIET_MS}",
                               timeout=QUIET_PATIENCE_MS, polling=50)
    except PlaywrightTimeout:
        pass


@pytest.fixture
def streamlit_idle():
    """The :func:`wait_for_idle` helper, as a fixture for test modules."""
    return wait_for_idle


@pytest.fixture
def page_screenshot(tmp_path):
    """``take(page, name)``: whole-page PNG under the test's tmp folder (to look at), returned as a Path.

    Streamlit scrolls inside its main container, so the viewport is first
    grown to the content's height. Set ``DP_SCREENSHOT_DIR`` to also keep a
    copy there (handy when reviewing pages by eye).
    """

    def take(page, name: str) -> Path:
        main = page.locator('[data-testid="stMain"]')
        if main.count():
            height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
            page.evaluate(_WATCH_CHANGES)
            page.set_viewport_size({"width": 1400, "height": min(int(height) + 100, 9000)})
            page.wait_for_timeout(300)  # the resize's relayout (Plotly's is debounced) has begun
            wait_for_quiet(page)
        shot = tmp_path / f"{name}.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000, "screenshot looks empty"
        keep = os.environ.get("DP_SCREENSHOT_DIR")
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(shot, Path(keep) / shot.name)
        return shot

    return take


@pytest.fixture(scope="module")
def one_blas_thread():
    """One BLAS thread for a module of small mat-vecs: multi-threaded BLAS on a shared 2-core machine is slower."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover
        yield
        return
    with threadpool_limits(limits=1):
        yield


@pytest.fixture
def parses(monkeypatch):
    """Every call of the CSV parser a plan-first file reader uses (a plan-first page must make none before
    Release): the lengths of the bytes it was handed."""
    from dpcore.plan import common as plan_common

    calls = []
    real = plan_common.read_csv
    monkeypatch.setattr(plan_common, "read_csv", lambda data, **kw: calls.append(len(data)) or real(data, **kw))
    return calls


def pytest_collection_modifyitems(items):
    """Browser test files first, each file's tests kept together and in order.

    A local run on two workers (``-n 2 --dist loadfile --no-loadscope-reorder``, docs/deploy.md) hands out a file
    per worker at a time in this order (xdist would otherwise hand out the files with the most tests first); the
    browser files are the long ones (a server, a browser, minutes each), and handing out the longest work first
    keeps one worker from finishing its short files while the other still has a long one to start.
    """
    browser_files = {item.path for item in items if item.get_closest_marker("browser")}
    items.sort(key=lambda item: item.path not in browser_files)  # stable: the files' and tests' order is kept
