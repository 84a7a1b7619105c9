"""Where a page's ε move spends the server's time: its fragments' runs, profiled in-process.

Moving ε on a method page reruns the page's fragments only (``ui.live_fragment``); ``bench_pages.py`` times the
whole move in Chromium. This runs each page under AppTest with the server's thread limits (``app.py``'s
``bound_threads``), moves ε six times (right, left, …: the bench's moves) and profiles what runs inside the
fragments (every run passes through ``ui.fragments._sent_together``), then lists the project's functions by their
time per move. AppTest reruns the whole script on a move, so a page's other fragments are counted too.

"survival-hr" moves the survival page's hazard-ratio ε (``hr_on=true``) and times that section's runs (its own
fragment, called as the page calls it), to compare with the survival page's own ε move in the same process.

Results: bench/results/pages-fragments.md (each run appends a dated section).
Run: .venv/bin/python bench/bench_fragments.py [page …]
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpcore.core.threads import bound_threads  # noqa: E402

#: entry → (page script, its link's query, the ε slider moved, the section timed: None for the page's live fragments)
PAGES = {"survival": ("survival", {}, "eps", None), "regression": ("regression", {}, "eps", None),
         "sparse": ("sparse", {}, "eps", None), "fdr": ("fdr", {}, "eps", None),
         "survival-hr": ("survival", {"hr_on": "true"}, "hr_eps", "hazard_ratio_section")}
MOVES = 6
TOP = 12


def profile(name: str) -> tuple[list[float], list[tuple[str, float]]]:
    """Seconds in the timed code per ε move, and the project's functions by cumulative seconds per move."""
    import ui.fragments
    import ui.hazard_ratio
    from streamlit.testing.v1 import AppTest

    script, query, slider_key, section = PAGES[name]
    profiler, spent, moving = cProfile.Profile(), [], [False]
    plain = ui.fragments._sent_together  # noqa: SLF001 - the one path of every fragment run

    @contextlib.contextmanager
    def timing():
        if not moving[0]:
            yield
            return
        start = time.perf_counter()
        profiler.enable()
        try:
            yield
        finally:
            profiler.disable()
            spent[-1] += time.perf_counter() - start

    @contextlib.contextmanager
    def profiled():
        with timing(), plain():
            yield

    original = getattr(ui.hazard_ratio, section) if section else None

    def timed_section(*args, **kwargs):  # the page imports the section on every run, so it finds this one
        with timing():
            return original(*args, **kwargs)

    if section:
        setattr(ui.hazard_ratio, section, timed_section)
    else:
        ui.fragments._sent_together = profiled  # noqa: SLF001
    try:
        at = AppTest.from_file(str(ROOT / "app_pages" / f"{script}.py"), default_timeout=600)
        at.query_params.update(query)
        at.run()
        at.run()
        slider = at.select_slider(key=slider_key)
        values = [float(o) for o in slider.options]  # the options as shown ("1", "1.5")
        here = min(range(len(values)), key=lambda i: abs(values[i] - float(slider.value)))
        for move in range(MOVES):
            at.select_slider(key=slider_key).set_value(values[here + 1 if move % 2 == 0 else here])
            spent.append(0.0)
            moving[0] = True
            at.run()
            moving[0] = False
            if at.exception:
                raise RuntimeError(f"{name}: {at.exception[0].value}")
    finally:
        ui.fragments._sent_together = plain  # noqa: SLF001
        if section:
            setattr(ui.hazard_ratio, section, original)
    stats = pstats.Stats(profiler, stream=io.StringIO()).stats
    own = {}
    for (path, line, func), (_, _, _, cumulative, _) in stats.items():
        if path.startswith(str(ROOT)) and "/bench/" not in path and "/.venv/" not in path and func != "profiled":
            own[f"{Path(path).relative_to(ROOT)}:{line} {func}"] = cumulative / MOVES
    top = sorted(own.items(), key=lambda kv: -kv[1])[:TOP]
    return spent, top


def main(pages: list[str]) -> None:
    bound_threads()
    load = os.getloadavg()
    lines = [f"## {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: {', '.join(pages)}", "",
             f"In-process (AppTest, threads bounded as in app.py), {MOVES} ε moves per page (right, left, …); "
             f"load average at the start {load[0]:.1f} (2 cores): times are inflated by the load, compare within "
             "a table.", ""]
    medians = {}
    for name in pages:
        spent, top = profile(name)
        medians[name] = statistics.median(spent)
        timed = "the hazard-ratio section" if PAGES[name][3] else "fragments"
        lines += [f"### {name}: {timed} {medians[name] * 1000:.0f} ms per move (median; each: "
                  f"{', '.join(f'{s * 1000:.0f}' for s in spent)})", "",
                  "| function (cumulative, per move) | ms |", "| --- | --- |"]
        lines += [f"| {where} | {seconds * 1000:.1f} |" for where, seconds in top] + [""]
    if {"survival", "survival-hr"} <= set(medians):
        lines += [f"The hazard-ratio section's ε move takes {medians['survival-hr'] / medians['survival']:.2f}× the "
                  "survival page's own ε move (medians, same process).", ""]
    out = ROOT / "bench" / "results" / "pages-fragments.md"
    with out.open("a") as results:
        results.write("\n" + "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", help=f"any of {', '.join(PAGES)} (default: all)")
    args = parser.parse_args()
    if unknown := set(args.pages) - set(PAGES):
        parser.error(f"unknown page(s): {', '.join(sorted(unknown))}")
    main(args.pages or PAGES)
