"""Load check: 20 browser sessions at once, each visiting every page and moving its ε slider; no error anywhere.

One server (``app.py``) on loopback, one Chromium with 20 contexts (20 Streamlit sessions) driven concurrently.
Each session visits home, then every method page and the audit page: waits for the page, presses ArrowRight
on the ε slider, waits until the script is done, and records any exception box or error alert shown, and the
time each page took. Bounded: every wait has a timeout and the whole run stops after ``--budget`` seconds.

Run: .venv/bin/python bench/bench_load.py [--sessions 20] [--budget 1200]
Writes bench/results/load.{json,md}; exits non-zero if any session saw an error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

from playwright.async_api import async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pages import EPSILON, FLAGS, ROOT, _serve  # noqa: E402

PAGES = ["survival", "regression", "sparse", "fdr", "audit"]
#: true once the script is done: the app root's script state (a page whose first part is drawn may still be computing)
SCRIPT_DONE = ("() => !['initial', 'running', 'rerunRequested'].includes(document.querySelector("
           "'[data-testid=\"stApp\"]')?.getAttribute('data-test-script-state'))")


async def _idle(page, timeout_ms: int) -> None:
    await page.wait_for_timeout(300)
    await page.wait_for_function(SCRIPT_DONE, timeout=timeout_ms, polling=250)
    await page.wait_for_timeout(300)


async def _errors(page) -> list[str]:
    return await page.evaluate("""() => Array.from(document.querySelectorAll(
        '[data-testid="stException"], [data-testid="stAlertContentError"]')).map(e => e.innerText.slice(0, 200))""")


async def _session(browser, url: str, index: int, timeout_ms: int) -> dict:
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    page.set_default_timeout(timeout_ms)
    out = {"session": index, "pages": {}, "errors": []}
    try:
        await page.goto(url)
        await page.wait_for_selector('[data-testid="stSidebarNav"]')
        for name in PAGES[index % len(PAGES):] + PAGES[:index % len(PAGES)]:  # sessions start on different pages
            start = time.monotonic()
            await page.goto(f"{url}/{name}")
            slider = page.locator(EPSILON).first  # the page's ε slider (not "Share of ε …")
            await slider.wait_for()
            await _idle(page, timeout_ms)
            await slider.focus()
            await page.keyboard.press("ArrowRight")
            await page.wait_for_function("() => window.location.search.includes('eps=')", timeout=timeout_ms)
            await _idle(page, timeout_ms)
            out["pages"][name] = round(time.monotonic() - start, 2)
            out["errors"] += [f"{name}: {e}" for e in await _errors(page)]
    except Exception as err:  # noqa: BLE001 - a timeout or a crash is a finding, reported per session
        out["errors"].append(f"{type(err).__name__}: {str(err)[:200]}")
    finally:
        await context.close()
    return out


async def _run(sessions: int, budget: float, timeout_ms: int) -> list[dict]:
    proc, url = _serve(ROOT / "app.py")
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
            tasks = [asyncio.create_task(_session(browser, url, i, timeout_ms)) for i in range(sessions)]
            done, pending = await asyncio.wait(tasks, timeout=budget)
            for task in pending:
                task.cancel()
            results = [t.result() for t in done]
            results += [{"session": None, "pages": {}, "errors": ["not finished within the budget"]}] * len(pending)
            await browser.close()
    finally:
        proc.terminate()
    return results


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--budget", type=float, default=1200.0, help="seconds for the whole run")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds for any one wait")
    args = parser.parse_args()
    start = time.monotonic()
    results = asyncio.run(_run(args.sessions, args.budget, int(args.timeout * 1000)))
    errors = [e for r in results for e in r["errors"]]
    per_page = {p: [r["pages"][p] for r in results if p in r["pages"]] for p in PAGES}
    summary = {"sessions": args.sessions, "seconds": round(time.monotonic() - start, 1), "errors": errors,
               "load_average": os.getloadavg(),
               "page_seconds": {p: {"visits": len(v), "median": round(statistics.median(v), 2) if v else None,
                                    "max": max(v) if v else None} for p, v in per_page.items()}}
    out = ROOT / "bench" / "results"
    (out / "load.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    lines = [f"# Load: {args.sessions} concurrent sessions, every page, ε one step (bench/bench_load.py)", "",
             f"Whole run {summary['seconds']} s; errors: {len(errors)}.", "",
             "| page | visits done | median (s) | max (s) |", "| --- | --- | --- | --- |"]
    lines += [f"| {p} | {s['visits']} | {s['median']} | {s['max']} |" for p, s in summary["page_seconds"].items()]
    lines += [""] + [f"- {e}" for e in errors[:50]]
    (out / "load.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
