"""Slider latency and first visits in Chromium, against the bare page, same machine, same run.

For every method page and the audit page:

- **slider → idle** for the ε slider and for the page's other sliders (``SLIDERS``): press ArrowRight on the
  slider and time until the page stops changing (a MutationObserver records the last DOM change; "idle" = no
  change for 1.5 s). Six moves (right, left, right, …); the median and the worst are reported, as ratios
  against the bare page's ε slider (bench/bare_page.py: one slider, one Plotly chart). The bare page is timed
  again before every page (six moves each time) and its median is taken over the whole run: a baseline taken
  once, at the start, moved every ratio by ±30 % with the machine's minute-to-minute speed.
- **first visit**: from a fresh session on the home page, click the page's navigation link and time until the
  page's main figure (``MAIN_FIGURE``) has been drawn, and until idle (the server's caches are warm: the slider
  phase visited the page before). The bare page's first visit is a
  reload of it (it has no navigation), timed before each page's; the median is the baseline.
- **where the time goes**, per ε move (medians): *server* = key press → last websocket message of the rerun
  (script + serialisation + wire), *browser* = last message → idle (Plotly and React), *wire* = bytes received,
  *Plotly passes* = full draws of a chart (Streamlit mounts a changed chart anew and draws it twice: once before
  its container's width is known, hidden, and again with it), *markers* = point markers drawn over those passes.
  And from an in-process run of the page (AppTest, the whole script): the script's time and, of it, the time
  spent serialising figures (``plotly.io.to_json``). And the browser's main thread during one more ε move
  (Chrome's sampling profiler): CPU in Plotly, in the rest of the JavaScript, in native work (layout, paint and other non-JS work; the bare page shows its baseline), in GC.
- **the main figure alone**: the bare page drawing a method page's main figure as that page last drew it, the way
  the pages draw it (bench/figure_page.py), six ε moves: the part of the page's ε move its figure alone takes (a
  floor under the ε target that no change outside the figure can lower; reported, not a target).
- **React's work** in one more ε move, counted (not timed, so it does not vary with the machine's speed): the
  commits, and the components rendered over them (React's devtools hook, a component counted when its props or
  state changed in the commit), beside the components on the page.

Targets: median ≤ 2.5×, worst ≤ 4× on every method page and slider; audit ≤ 1.5×; first visit ≤ 3×.
Moving ε on a method page: median ≤ 1.5×; the main figure drawn within 2 s of the click (warm server).
Results: bench/results/pages.{json,md}.

Run: .venv/bin/python bench/bench_pages.py [page …] [--repeat 3]   (needs Debian's chromium at /usr/bin/chromium)
"""

from __future__ import annotations

import argparse
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
#: the sliders timed on each page besides ε (their label's start, or (view, label) for a slider in a view that
#: is opened first); ε is always timed
SLIDERS = {
    "survival": ["Noise draws per ε for the trade-off curve", ("Over R noise draws", "Noise draws for the utility panel")],
    "regression": [("ρ over ε and size (CV)", "CV repeats")],  # the other sliders are settings, folded, page-level
    "sparse": ["δ", "Repeats (noise draws)"],  # folded (unfolded first, by ``_slider``), as are FDR's
    "fdr": ["Target FDR α", "Cutoff c"],
    "audit": ["Runs per data set"],
}
NAV_TITLES = {"survival": "Survival curves", "regression": "Drug sensitivity", "sparse": "Sparse learning",
              "fdr": "Online FDR", "audit": "Privacy audit"}
#: the targets above, and moving ε on a method page within 2× the bare page (median)
TARGETS = {"median": 2.5, "worst": 4.0, "audit": 1.5, "first_visit": 3.0, "epsilon": 1.5, "first_chart_s": 2.0}
#: each method page's main private-vs-non-private figure (its element key): the chart the first screen answers with
MAIN_FIGURE = {"survival": "sv_headline", "regression": "rg_headline", "sparse": "sp_stem", "fdr": "fdr_fig_stream"}
MOVES = 6
#: the row of a method page's figure floor: the bare page drawing that page's main figure (reported, not a target)
FIGURE_ALONE = "ε, its main figure alone (bare page + that figure)"

#: records the last DOM change, every websocket message (time, bytes) the page receives, and every Plotly draw
#: (``plotly_afterplot`` of each chart Streamlit mounts: one per pass over a chart, with the markers it drew)
INIT = """(() => {
  window.__passes = [];
  window.__msgs = [];
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Native(...args);
    ws.addEventListener('message', (e) => {
      const n = e.data.byteLength ?? e.data.size ?? e.data.length ?? 0;
      window.__msgs.push([performance.now(), n]);
    });
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  const start = () => {
    window.__last = performance.now();
    new MutationObserver((records) => {
      window.__last = performance.now();
      for (const r of records) for (const n of r.addedNodes) {
        const gd = n.classList && n.classList.contains('plot-container') ? n.parentElement : null;
        if (gd && gd.on && !gd.__counted) {
          gd.__counted = true;
          gd.on('plotly_afterplot', () => window.__passes.push(gd.querySelectorAll('path.point').length));
        }
      }
    }).observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
  };
  if (document.body) start(); else document.addEventListener('DOMContentLoaded', start);
  // React's devtools hook (React looks for it when it loads): while ``__countRenders`` is set, each commit records
  // the components it rendered (props or state changed) and the components in the tree
  window.__commits = [];
  const rendered = (f) => !f.alternate || f.memoizedProps !== f.alternate.memoizedProps
    || f.memoizedState !== f.alternate.memoizedState;
  window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {supportsFiber: true, renderers: new Map(), inject: () => 1,
    checkDCE() {}, onScheduleFiberRoot() {}, onCommitFiberUnmount() {}, onPostCommitFiberRoot() {},
    onCommitFiberRoot(id, root) {
      if (!window.__countRenders) return;
      let components = 0, renders = 0;
      const stack = [root.current.child];
      while (stack.length) {
        const f = stack.pop();
        if (!f) continue;
        if (f.type && typeof f.type !== 'string') { components++; if (rendered(f)) renders++; }
        stack.push(f.child, f.sibling);
      }
      window.__commits.push([renders, components]);
    }};
})()"""


def _serve(script: Path, **env_vars: str) -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(ROOT), **env_vars)
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


def _settle(page, quiet_ms: float = 1500, timeout_s: float = 180) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if page.evaluate("() => performance.now() - window.__last") > quiet_ms:
            return
        page.wait_for_timeout(100)
    raise TimeoutError("page never settled")


EPSILON = 'input[type="range"][aria-label^="Privacy budget ε"], input[type="range"][aria-label^="Claimed ε"]'


def _slider(page, label: str):
    """The page's ε slider (``label`` "ε"; not e.g. "Share of ε …"), or the slider whose label starts with ``label``;
    unfolded first if it sits in a folded box (a page's settings)."""
    selector = EPSILON if label == "ε" else f'input[type="range"][aria-label^="{label}"]'
    slider = page.locator('[data-testid="stMain"]').locator(selector).first
    closed = page.locator('[data-testid="stMain"] [data-testid="stExpander"] details:not([open]) > summary')
    for _ in range(closed.count() if not slider.count() else 0):  # a settings box draws its controls when open
        closed.first.click()
        _settle(page)
        if slider.count():
            break
    slider.wait_for(state="attached", timeout=60_000)
    if not slider.is_visible():
        page.locator('[data-testid="stMain"] [data-testid="stExpander"]').filter(
            has=page.locator(selector)).locator("summary").first.click()
        slider.wait_for(timeout=60_000)
        _settle(page)
    return slider


def _open_tab(page, tab: str) -> None:
    page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"]').get_by_role("radio", name=tab).first.click()
    _settle(page)


def _moves(page, label: str) -> dict:
    """Six moves of one slider: the raw per-move records (seconds to idle, server, browser, bytes, Plotly passes
    and the markers they drew); ``_summary`` turns them into the reported figures."""
    slider = _slider(page, label)
    raw = {"times": [], "server": [], "browser": [], "wire": [], "passes": [], "points": []}
    for i in range(MOVES):
        slider.focus()
        start = page.evaluate("() => { window.__msgs.length = 0; window.__passes.length = 0; return performance.now(); }")
        page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
        _settle(page)
        last, msgs, drawn = page.evaluate("() => [window.__last, window.__msgs, window.__passes]")
        raw["times"].append((last - start) / 1000.0)
        raw["passes"].append(len(drawn))
        raw["points"].append(sum(drawn))
        if msgs:
            raw["server"].append((msgs[-1][0] - start) / 1000.0)
            raw["browser"].append(max(last - msgs[-1][0], 0.0) / 1000.0)
            raw["wire"].append(sum(n for _, n in msgs))
    return raw


def _pool(records: list[dict]) -> dict:
    """Several ``_moves`` records of the same slider as one."""
    return {k: [v for r in records for v in r[k]] for k in records[0]}


def _summary(raw: dict) -> dict:
    med = statistics.median
    times = raw["times"]
    return {"times": [round(t, 3) for t in times], "median_s": round(med(times), 3), "max_s": round(max(times), 3),
            "server_s": round(med(raw["server"]), 3) if raw["server"] else None,
            "browser_s": round(med(raw["browser"]), 3) if raw["browser"] else None,
            "wire_kB": round(med(raw["wire"]) / 1000, 1) if raw["wire"] else None,
            "plotly_passes": med(raw["passes"]), "markers_drawn": med(raw["points"])}


def _browser_cpu(page, label: str = "ε") -> dict:
    """Where the browser's main thread spends one slider move (ms, Chrome's sampling profiler, idle excluded):
    Plotly's chunk, the rest of the app's JavaScript (React, Streamlit), native work (style, layout, paint and other non-JS work,
    reported by Chrome as "(program)") and garbage collection."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 500})
    cdp.send("Profiler.start")
    slider = _slider(page, label)
    slider.focus()
    page.keyboard.press("ArrowRight")
    # wait inside the page (a timer, not the bench's polling through the DevTools protocol, which would count)
    page.evaluate("""() => new Promise((done) => { const check = () =>
      (performance.now() - window.__last > 1500 ? done() : setTimeout(check, 100)); check(); })""")
    profile = cdp.send("Profiler.stop")["profile"]
    cdp.detach()
    frames = {n["id"]: n["callFrame"] for n in profile["nodes"]}
    spent = {"plotly": 0.0, "other JS": 0.0, "native": 0.0, "GC": 0.0}
    for node, micros in zip(profile["samples"], profile["timeDeltas"]):
        frame = frames[node]
        name = frame["functionName"]
        if name == "(idle)":
            continue
        kind = ("plotly" if "plotly" in frame["url"].lower() else "GC" if name == "(garbage collector)"
                else "native" if name == "(program)" or not frame["url"] else "other JS")
        spent[kind] += micros / 1000.0
    return {k: round(v) for k, v in spent.items()}


def _react_work(page, label: str = "ε") -> dict:
    """React's work in one more move of the slider: commits, components rendered over them, components on the page."""
    slider = _slider(page, label)
    slider.focus()
    page.evaluate("() => { window.__commits.length = 0; window.__countRenders = true; }")
    page.keyboard.press("ArrowLeft")
    _settle(page)
    commits = page.evaluate("() => { window.__countRenders = false; return window.__commits; }")
    return {"commits": len(commits), "renders": sum(r for r, _ in commits),
            "components": max((c for _, c in commits), default=0)}


def _open(browser, url: str):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.add_init_script(INIT)
    page.goto(url)
    page.wait_for_selector('[data-testid="stSlider"], [data-testid="stSidebarNav"]', timeout=180_000)
    _settle(page, quiet_ms=3000)
    return page


def _first_visit(browser, app_url: str, name: str) -> tuple[float | None, float]:
    """A fresh session on the home page; click the page's navigation link: seconds until the main figure has
    been drawn (``None`` for a page without one) and seconds until idle."""
    page = _open(browser, app_url)
    link = page.locator('[data-testid="stSidebarNav"] a').filter(has_text=NAV_TITLES[name]).first
    start = page.evaluate("() => performance.now()")
    link.click()
    chart = None
    if name in MAIN_FIGURE:  # drawn: Plotly's SVG is in the figure's element (a locator: it pierces shadow roots)
        page.locator(f".st-key-{MAIN_FIGURE[name]} .js-plotly-plot .main-svg").first.wait_for(timeout=180_000)
        chart = round((page.evaluate("() => performance.now()") - start) / 1000.0, 3)
    # until the ε slider shows (sliders folded away under a page's settings come earlier and stay hidden)
    page.locator('[data-testid="stMain"] [data-testid="stSlider"]').filter(has=page.locator(EPSILON)).first.wait_for(
        timeout=180_000)
    _settle(page)
    seconds = (page.evaluate("() => window.__last") - start) / 1000.0
    page.close()
    return chart, round(seconds, 3)


def _bare_first_visit(browser, url: str) -> float:
    """A reload of the bare page (the clock restarts at the navigation): seconds until idle."""
    page = _open(browser, url)
    page.reload()
    page.wait_for_selector('[data-testid="stSlider"]')
    _settle(page)
    seconds = page.evaluate("() => window.__last") / 1000.0
    page.close()
    return round(seconds, 3)


def _script_profile(name: str) -> dict:
    """The whole page script in-process (AppTest, default controls, then ε one step): seconds, and serialisation."""
    code = f"""
import json, sys, time
sys.path.insert(0, {str(ROOT)!r})
from dpcore.core.threads import bound_threads
bound_threads()  # as app.py does: OpenBLAS's default threads spin against each other (a page alone skips app.py)
import plotly.io
import streamlit.elements.plotly_chart as pc
from streamlit.testing.v1 import AppTest
from tests.support.page_views import chart_keys  # Plotly charts and live charts alike
spent = [0.0]
native = plotly.io.to_json
def timed(*a, **k):
    t = time.perf_counter(); out = native(*a, **k); spent[0] += time.perf_counter() - t; return out
plotly.io.to_json = timed
at = AppTest.from_file({str(ROOT / "app_pages" / f"{name}.py")!r}, default_timeout=600)
at.run(); at.run()
eps = at.select_slider(key="eps")
values = [float(o) for o in eps.options]  # the options as shown ("1", "1.5"): the nearest is the value's step
here = min(range(len(values)), key=lambda i: abs(values[i] - float(eps.value)))
spent[0] = 0.0
t = time.perf_counter(); eps.set_value(values[min(here + 1, len(values) - 1)]); at.run(); total = time.perf_counter() - t
print(json.dumps({{"script_s": round(total, 3), "serialise_s": round(spent[0], 3),
                   "figures": len(chart_keys(at)), "exceptions": len(at.exception)}}))
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=900)
    try:
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"error": out.stderr[-500:]}


def _drawn_figure(page, name: str) -> str:
    """The page's main figure as the browser last drew it: its traces and layout as JSON (typed arrays as lists)."""
    return page.locator(f".st-key-{MAIN_FIGURE[name]} .js-plotly-plot").first.evaluate(
        "(gd) => JSON.stringify({data: gd.data, layout: gd.layout}, (k, v) => ArrayBuffer.isView(v) ? Array.from(v) : v)")


def _figure_alone(browser, name: str, drawn: str) -> dict:
    """Six ε moves of the bare page drawing ``drawn`` (the page's main figure) as the method pages do
    (bench/figure_page.py): what the figure alone adds to a move."""
    path = ROOT / "bench" / "results" / f"figure-{name}.tmp"
    path.write_text(drawn)
    proc, url = _serve(ROOT / "bench" / "figure_page.py", DPCORE_BENCH_FIGURE=str(path))
    try:
        page = _open(browser, url)
        page.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=180_000)
        raw = _moves(page, "ε")
        page.close()
    finally:
        proc.terminate()
        path.unlink()
    return raw


def _bare_moves(browser, url: str) -> dict:
    page = _open(browser, url)
    raw = _moves(page, "ε")
    page.close()
    return raw


def _measure(pages: list[str]) -> dict:
    """One run: fresh servers and browser, every page's sliders and first visit. The bare page is measured again
    before each page (its slider, then its first visit before the page's): the baseline is the median over the
    whole run, taken at the same times as the pages, not six moves at its start that a quiet or busy minute
    would skew."""
    results: dict = {"bare page": {}}
    servers = [_serve(ROOT / "bench" / "bare_page.py"), _serve(ROOT / "app.py")]
    bare_url, app_url = servers[0][1], servers[1][1]
    bare_moves, bare_firsts = [], []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
            page = _open(browser, bare_url)
            results["bare page"]["browser_cpu_ms"] = _browser_cpu(page)
            results["bare page"]["react"] = _react_work(page)
            page.close()
            for name in pages:
                bare_moves.append(_bare_moves(browser, bare_url))
                page = _open(browser, f"{app_url}/{name}")
                sliders = {"ε": _moves(page, "ε")}
                drawn = _drawn_figure(page, name) if name in MAIN_FIGURE else None
                cpu = _browser_cpu(page)
                react = _react_work(page)
                for entry in SLIDERS[name]:
                    tab, label = entry if isinstance(entry, tuple) else (None, entry)
                    if tab:
                        _open_tab(page, tab)
                    sliders[f"{label} (view “{tab}”)" if tab else label] = _moves(page, label)
                page.close()
                if drawn is not None:
                    sliders[FIGURE_ALONE] = _figure_alone(browser, name, drawn)
                bare_firsts.append(_bare_first_visit(browser, bare_url))
                chart, idle = _first_visit(browser, app_url, name)
                results[name] = {"sliders": {label: _summary(raw) for label, raw in sliders.items()},
                                 "first_chart_s": chart, "first_visit_s": idle, "browser_cpu_ms": cpu,
                                 "react": react}
            browser.close()
    finally:
        for proc, _ in servers:
            proc.terminate()
    results["bare page"]["sliders"] = {"ε": _summary(_pool(bare_moves))}
    results["bare page"]["first_visit_s"] = round(statistics.median(bare_firsts), 3)
    results["bare page"]["first_visits_s"] = bare_firsts
    _score(results)
    return results


def main(pages: list[str], repeat: int) -> None:
    runs = [_measure(pages) for _ in range(repeat)]
    for name in pages:
        runs[-1][name]["script"] = _script_profile(name)
    _report(runs)


def _score(results: dict) -> None:
    """Ratios against the bare page of the same run, and whether every target is met (``results["met"]``)."""
    bare = results["bare page"]["sliders"]["ε"]["median_s"]
    bare_first = results["bare page"]["first_visit_s"]
    met = True
    for name, r in results.items():
        limit_med = TARGETS["audit"] if name == "audit" else TARGETS["median"]
        for label, s in r["sliders"].items():
            s["median_x"] = round(s["median_s"] / bare, 2)
            s["worst_x"] = round(s["max_s"] / bare, 2)
            if name != "bare page" and label != FIGURE_ALONE:
                limit = TARGETS["epsilon"] if label == "ε" and name != "audit" else limit_med
                s["meets"] = s["median_x"] <= limit and (name == "audit" or s["worst_x"] <= TARGETS["worst"])
                met &= s["meets"]
        r["first_visit_x"] = round(r["first_visit_s"] / bare_first, 2)
        if name != "bare page":
            r["first_visit_meets"] = r["first_visit_x"] <= TARGETS["first_visit"]
            met &= r["first_visit_meets"]
        if r.get("first_chart_s") is not None:
            r["first_chart_meets"] = r["first_chart_s"] <= TARGETS["first_chart_s"]
            met &= r["first_chart_meets"]
    results["met"] = met


def _report(runs: list[dict]) -> None:
    results = runs[-1]
    met = results.pop("met")
    met_runs = [r.pop("met") for r in runs[:-1]] + [met]
    bare = results["bare page"]["sliders"]["ε"]["median_s"]
    bare_first = results["bare page"]["first_visit_s"]
    load = os.getloadavg()
    out = ROOT / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "pages.json").write_text(json.dumps({"moves_per_slider": MOVES, "load_average": load, "targets": TARGETS,
                                                "all_targets_met_per_run": met_runs, "runs": runs}, indent=2,
                                               ensure_ascii=False) + "\n")
    lines = ["# Slider latency and first visits in Chromium (bench/bench_pages.py)", "",
             f"{MOVES} moves per slider (right, left, …) until the page is idle; ratios against the bare page's "
             f"slider ({bare:.3f} s) and first visit ({bare_first:.3f} s) in the same run (medians over the run: "
             f"the bare page is timed again before each page, {len(results['bare page']['sliders']['ε']['times'])} "
             f"moves in all). Load average at the end "
             f"{load[0]:.1f} (2 cores). Targets: ε on a method page median ≤ {TARGETS['epsilon']}×, other sliders median ≤ {TARGETS['median']}×, worst ≤ {TARGETS['worst']}× "
             f"(audit ≤ {TARGETS['audit']}×), first visit ≤ {TARGETS['first_visit']}×, main figure drawn ≤ "
             f"{TARGETS['first_chart_s']} s after the click. All met: "
             f"{'yes' if met else 'no'} in this run (the tables below); in {sum(met_runs)} of {len(met_runs)} consecutive "
             "runs (each with fresh servers and browser).", "",
             "| page | slider | median (s) | worst (s) | median × bare | worst × bare | server (s) | browser (s) | "
             "wire (kB) | Plotly passes | markers drawn |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, r in results.items():
        for label, s in r["sliders"].items():
            lines.append(f"| {name} | {label} | {s['median_s']} | {s['max_s']} | {s['median_x']} | {s['worst_x']} | "
                         f"{s['server_s']} | {s['browser_s']} | {s['wire_kB']} | {s['plotly_passes']} | "
                         f"{s['markers_drawn']} |")
    lines += ["", "| page | main figure drawn (s) | first visit, idle (s) | × bare | whole script in-process, ε step (s) "
              "| of it figure serialisation (s) | figures |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, r in results.items():
        sc = r.get("script", {})
        lines.append(f"| {name} | {r.get('first_chart_s') or ''} | {r['first_visit_s']} | {r['first_visit_x']} | "
                     f"{sc.get('script_s', '')} | "
                     f"{sc.get('serialise_s', '')} | {sc.get('figures', '')} |")
    lines += ["", "Browser main thread during one ε move (ms of CPU, Chrome's sampling profiler, idle excluded):", "",
              "| page | Plotly | other JS (React, Streamlit) | native (layout, paint, other non-JS) | GC |", "| --- | --- | --- | --- | --- |"]
    for name, r in results.items():
        c = r.get("browser_cpu_ms", {})
        lines.append(f"| {name} | {c.get('plotly', '')} | {c.get('other JS', '')} | {c.get('native', '')} | "
                     f"{c.get('GC', '')} |")
    lines += ["", "React's work in one ε move (counted: commits, components rendered over them, components on the "
              "page):", "", "| page | commits | components rendered | components on the page |", "| --- | --- | --- | --- |"]
    for name, r in results.items():
        w = r.get("react", {})
        lines.append(f"| {name} | {w.get('commits', '')} | {w.get('renders', '')} | {w.get('components', '')} |")
    lines += ["", "*server*: key press → last websocket message of the rerun (script, serialisation, wire; on the "
              "method pages only the ε fragment reruns for ε); *browser*: last message → idle (React, Plotly); "
              "*wire*: bytes received per move; *Plotly passes*: full draws of a chart per move (Streamlit mounts a "
              "changed chart anew and draws it twice: hidden before its container's width is known, then with it); "
              "*markers drawn*: point markers over those passes (Plotly's time grows with them). The in-process column runs the whole page script (AppTest), an upper "
              "bound for a fragment rerun."]
    if len(runs) > 1:
        lines += ["", "Every run, each ratio against that run's bare page (median × bare / worst × bare; first visit × bare):",
                  "", "| page | slider | " + " | ".join(f"run {i + 1}" for i in range(len(runs))) + " |",
                  "| --- | --- | " + " | ".join("---" for _ in runs) + " |"]
        for name, r in results.items():
            for label in r["sliders"]:
                cells = [f"{run[name]['sliders'][label]['median_x']} / {run[name]['sliders'][label]['worst_x']}"
                         for run in runs]
                lines.append(f"| {name} | {label} | " + " | ".join(cells) + " |")
            lines.append(f"| {name} | first visit | " + " | ".join(str(run[name]["first_visit_x"]) for run in runs)
                         + " |")
    (out / "pages.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", help=f"any of {', '.join(PAGES)} (default: every page)")
    parser.add_argument("--repeat", type=int, default=1, help="consecutive runs (the issue's 'done' needs three)")
    args = parser.parse_args()
    if unknown := set(args.pages) - set(PAGES):
        parser.error(f"unknown page(s): {', '.join(sorted(unknown))}")
    main(args.pages or PAGES, args.repeat)
