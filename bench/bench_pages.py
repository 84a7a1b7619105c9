"""Slider latency in Chromium: ε one step right on each method page vs the bare page, same machine, same run.

For every page: open it, let it settle, then press ArrowRight on the ε slider and time until the page stops
changing (a MutationObserver records the last DOM change; "idle" = no change for 1.5 s). Each move is repeated
with fresh values (right, left, right, …) and the median is reported, as a ratio against the bare page
(bench/bare_page.py: one slider, one Plotly chart). Results: bench/results/pages.{json,md}.

Run: .venv/bin/python bench/bench_pages.py   (needs Debian's chromium at /usr/bin/chromium)
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--disable-quic", "--no-first-run"]
PAGES = ["survival", "regression", "sparse", "fdr", "audit"]
MOVES = 6

OBSERVER = """() => { window.__last = performance.now();
  new MutationObserver(() => { window.__last = performance.now(); })
    .observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true}); }"""


def _serve(script: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--server.headless", "true"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            urllib.request.urlopen(f"{url}/_stcore/health", timeout=2)
            return proc, url
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError(f"{script} did not start")


def _settle(page, quiet_ms: float = 1500, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if page.evaluate("() => performance.now() - window.__last") > quiet_ms:
            return
        page.wait_for_timeout(100)
    raise TimeoutError("page never settled")


def _moves(page, url: str) -> list[float]:
    page.goto(url)
    page.wait_for_selector('[data-testid="stSlider"]', timeout=120_000)
    page.evaluate(OBSERVER)
    _settle(page, quiet_ms=3000)
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="ε").first.locator("input").first
    times = []
    for i in range(MOVES):
        slider.focus()
        start = page.evaluate("() => performance.now()")
        page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
        _settle(page)
        times.append((page.evaluate("() => window.__last") - start) / 1000.0)
    return times


def main() -> None:
    results = {}
    servers = [_serve(ROOT / "bench" / "bare_page.py"), _serve(ROOT / "app.py")]
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            results["bare page"] = _moves(page, servers[0][1])
            for name in PAGES:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                results[name] = _moves(page, f"{servers[1][1]}/{name}")
                page.close()
            browser.close()
    finally:
        for proc, _ in servers:
            proc.terminate()
    base = statistics.median(results["bare page"])
    rows = {name: {"median_s": round(statistics.median(t), 3), "max_s": round(max(t), 3),
                   "ratio_to_bare": round(statistics.median(t) / base, 1)} for name, t in results.items()}
    out = ROOT / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "pages.json").write_text(json.dumps({"moves_per_page": MOVES, "load_average": os.getloadavg(),
                                                "pages": rows}, indent=2) + "\n")
    lines = ["# Slider latency in Chromium (ε one step, until the page is idle)", "",
             f"{MOVES} moves per page, median; load average at the end {os.getloadavg()[0]:.1f} (2 cores).", "",
             "| page | median (s) | max (s) | × bare page |", "| --- | --- | --- | --- |"]
    lines += [f"| {n} | {r['median_s']} | {r['max_s']} | {r['ratio_to_bare']} |" for n, r in rows.items()]
    (out / "pages.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
