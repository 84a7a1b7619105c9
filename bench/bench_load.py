"""Load check: 20 browser sessions at once, each visiting every page and moving its ε slider; no error shown.

The driver is ``tests/support/load_sessions.py`` (the suite's ``tests/app/test_load_browser.py`` runs it with 6 sessions): one
``streamlit run app.py`` with a fresh ledger, one Chromium with a context per session, every page by the sidebar,
the ε slider one step where a page has one; every exception box, error alert and error dialog ever shown is
recorded with its text, with the server's tracebacks. Bounded: every wait has a timeout (``--timeout``), the whole
run a budget (``--budget``). ``--busy N`` also runs N busy-loop processes for the run (the CPU deliberately busier
than the other work on the machine), stopped afterwards.

Run: .venv/bin/python bench/bench_load.py [--sessions 20] [--busy 0] [--budget 1500]
Writes bench/results/load.{json,md} (load-busy.* with --busy); exits non-zero if any error was shown or a wait
failed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.support.load_sessions import load  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--busy", type=int, default=0, help="busy-loop processes running beside the load")
    parser.add_argument("--budget", type=float, default=1500.0, help="seconds for the whole run")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds for any one wait")
    args = parser.parse_args()
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    try:
        with tempfile.TemporaryDirectory(prefix="dpcore-load-") as tmp:
            run = load(args.sessions, Path(tmp), timeout=args.timeout, budget=args.budget)
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()
    text = run.report()
    heading = (f"# Load: {args.sessions} concurrent sessions, every page, ε one step"
               f"{f', {args.busy} busy-loop processes beside' if args.busy else ''} (bench/bench_load.py)")
    name = "load-busy" if args.busy else "load"
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.md").write_text(f"{heading}\n\n```\n{text}\n```\n")
    (out / f"{name}.json").write_text(json.dumps({
        "sessions": run.sessions, "busy_processes": args.busy, "seconds": round(run.seconds, 1),
        "visits": run.visit_count, "shown": run.shown, "problems": run.problems, "server_log": run.server_log,
        "load_average": run.load_average,
        "page_seconds": {f"/{p}": [round(s, 2) for s in v] for p, v in run.visits.items()}},
        indent=2, ensure_ascii=False) + "\n")
    print(heading + "\n" + text)
    return 1 if run.shown or run.problems else 0


if __name__ == "__main__":
    sys.exit(main())
