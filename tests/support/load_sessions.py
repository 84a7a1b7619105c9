"""Many browser sessions at once against one real app server: every page visited, a slider moved, errors collected.

Shared by the load test (``tests/app/test_load_browser.py``, a few sessions, in the suite) and the load benchmark
(``bench/bench_load.py``, twenty, on demand). One ``streamlit run app.py`` on loopback with its own ledger folder,
one Chromium with a context per session (one Streamlit session each), driven concurrently. Each session opens the
home page, then follows the sidebar to every other page (sessions start at different pages): it waits until the
script is done, presses ArrowRight on the page's ε slider where it has one, and waits again. A watcher installed in
every page before Streamlit loads records the text of every exception box, error alert and error dialog
("Connection error") that is *ever* shown, even one replaced by the next rerun. The server's log is kept; its
tracebacks and the pages' "unexpected …" lines are reported with the shown errors.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
         "--disable-component-update", "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
         "--disable-backgrounding-occluded-windows"]
#: every page of the app (``app.py``'s navigation), by its URL path; "" is home
PAGES = ["", "survival", "regression", "sparse", "fdr", "audit", "ledger", "plan-first"]
#: the page's own ε slider (not e.g. "Share of ε …")
EPSILON = 'input[type="range"][aria-label^="Privacy budget ε"], input[type="range"][aria-label^="Claimed ε"]'
SCRIPT_DONE = ("() => !['initial', 'running', 'rerunRequested'].includes(document.querySelector("
               "'[data-testid=\"stApp\"]')?.getAttribute('data-test-script-state'))")
#: records every error element the page ever shows (page path and text), before Streamlit's own scripts run
WATCHER = r"""
window.__shown = [];
(() => {
  const seen = new Set();
  const selector = '[data-testid="stException"], [data-testid="stAlertContentError"], [role="dialog"]';
  const scan = () => {
    for (const el of document.querySelectorAll(selector)) {
      const text = (el.innerText || '').trim();
      if (el.getAttribute('role') === 'dialog' && !/error|exception|traceback/i.test(text)) continue;
      const kind = el.getAttribute('data-testid') || 'dialog';
      const key = `${location.pathname} ${kind}: ${text.slice(0, 600)}`;
      if (!seen.has(key)) { seen.add(key); window.__shown.push(key); }
    }
  };
  new MutationObserver(scan).observe(document, {childList: true, subtree: true, characterData: true});
})();
"""


@dataclass
class LoadRun:
    """What the sessions saw: visits completed, errors shown, waits that failed, the server's complaints."""

    sessions: int
    seconds: float = 0.0
    visits: dict[str, list[float]] = field(default_factory=dict)  # page → seconds per completed visit
    shown: list[str] = field(default_factory=list)  # every error element shown, "session n /page kind: text"
    problems: list[str] = field(default_factory=list)  # a wait that timed out, a crash, a session not finished
    server_log: list[str] = field(default_factory=list)  # tracebacks and "unexpected …" lines of the server
    load_average: tuple[float, float, float] = (0.0, 0.0, 0.0)

    @property
    def visit_count(self) -> int:
        return sum(len(v) for v in self.visits.values())

    def report(self) -> str:
        lines = [f"{self.sessions} sessions × {len(PAGES)} pages: {self.visit_count} visits done in {self.seconds:.0f} s "
                 f"(load average {self.load_average[0]:.1f}); errors shown: {len(self.shown)}; "
                 f"waits failed: {len(self.problems)}; server tracebacks: {len(self.server_log)}"]
        for page, seconds in self.visits.items():
            if seconds:
                lines.append(f"  /{page}: {len(seconds)} visits, median {sorted(seconds)[len(seconds) // 2]:.1f} s, "
                             f"max {max(seconds):.1f} s")
        lines += [f"  shown: {s}" for s in self.shown] + [f"  problem: {p}" for p in self.problems]
        lines += [f"  server: {s}" for s in self.server_log]
        return "\n".join(lines)


def start_server(data_dir: Path, log: Path) -> tuple[subprocess.Popen, str]:
    """``streamlit run app.py`` on a free loopback port with its ledger in ``data_dir``, its output in ``log``."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPCORE_")}  # this run's own ledger only
    env.update(PYTHONPATH=str(ROOT), DPCORE_DATA_DIR=str(data_dir), PYTHONUNBUFFERED="1")
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port",
                                 str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
                                 "--browser.gatherUsageStats", "false"], cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return proc, url
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError(f"the app server did not start:\n{log.read_text(errors='replace')[-3000:]}")


def _complaints(log: str) -> list[str]:
    """The server log's tracebacks (last line, the exception) and the pages' "unexpected …" lines."""
    found = [m.group(0).strip() for m in re.finditer(r"^.*unexpected \w+ on a page.*$", log, re.M)]
    for block in re.findall(r"Traceback \(most recent call last\):\n(?:[ \t].*\n|\n)*.*", log):
        found.append(" ⏎ ".join(block.strip().splitlines()[-4:])[:800])
    return found


async def _idle(page, timeout_ms: int) -> None:
    await page.wait_for_timeout(300)
    await page.wait_for_function(SCRIPT_DONE, timeout=timeout_ms, polling=250)
    await page.wait_for_timeout(300)


async def _visit(page, url: str, name: str, timeout_ms: int) -> None:
    """Arrive on ``name`` (home by address, the others by the sidebar), move its ε slider one step if it has one."""
    if name:
        await page.locator(f'[data-testid="stSidebarNav"] a[href$="/{name}"]').click()
        await page.wait_for_function(f"() => location.pathname.endsWith('/{name}')", timeout=timeout_ms)
    else:
        await page.goto(url)
    await page.wait_for_selector('[data-testid="stMain"] [data-testid="stElementContainer"]', timeout=timeout_ms)
    await _idle(page, timeout_ms)
    slider = page.locator('[data-testid="stMain"]').locator(EPSILON).first
    if not await slider.count():
        return
    before = await page.evaluate("() => location.search")
    await slider.focus()
    await page.keyboard.press("ArrowRight")
    await page.wait_for_function(f"() => location.search !== {before!r}", timeout=timeout_ms)
    await _idle(page, timeout_ms)


async def _shown(page) -> list[str]:
    """The error elements shown since last asked (none if the page itself is gone: that failure is reported)."""
    try:
        return await page.evaluate("() => window.__shown.splice(0)")
    except Exception:  # noqa: BLE001 - a closed or crashed page
        return []


async def _session(browser, url: str, index: int, timeout_ms: int, run: LoadRun) -> None:
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    await context.add_init_script(WATCHER)
    page = await context.new_page()
    page.set_default_timeout(timeout_ms)
    order = PAGES[:1] + PAGES[1:][index % (len(PAGES) - 1):] + PAGES[1:][:index % (len(PAGES) - 1)]
    try:
        for name in order:
            start = time.monotonic()
            try:
                await _visit(page, url, name, timeout_ms)
            except Exception as err:  # noqa: BLE001 - a failed wait is a finding, reported with its session
                run.problems.append(f"session {index} /{name}: {type(err).__name__}: {str(err).splitlines()[0][:300]}")
                break
            finally:
                run.shown += [f"session {index} {s}" for s in await _shown(page)]
            run.visits[name].append(time.monotonic() - start)
    finally:
        await context.close()


async def _drive(url: str, sessions: int, timeout_ms: int, budget: float, run: LoadRun) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            tasks = [asyncio.create_task(_session(browser, url, i, timeout_ms, run)) for i in range(sessions)]
            _, pending = await asyncio.wait(tasks, timeout=budget)
            for task in pending:
                task.cancel()
            run.problems += [f"a session had not finished after {budget:.0f} s"] * len(pending)
        finally:
            await browser.close()


def load(sessions: int, data_dir: Path, *, timeout: float = 300.0, budget: float = 1500.0) -> LoadRun:
    """Run ``sessions`` concurrent sessions over every page against a fresh server with its ledger in ``data_dir``;
    ``timeout`` bounds each wait, ``budget`` the whole run (seconds)."""
    run = LoadRun(sessions, visits={name: [] for name in PAGES})
    log = data_dir / "server.log"
    data_dir.mkdir(parents=True, exist_ok=True)
    proc, url = start_server(data_dir, log)
    start = time.monotonic()
    try:
        asyncio.run(_drive(url, sessions, int(timeout * 1000), budget, run))
    finally:
        run.seconds = time.monotonic() - start
        run.load_average = os.getloadavg()
        proc.kill()  # a throw-away server: its log is unbuffered, so nothing is lost
        proc.wait()
    run.server_log = _complaints(log.read_text(errors="replace"))
    return run
