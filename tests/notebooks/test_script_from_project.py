"""The downloaded ``.py`` runs as written: ``python path/to/script.py`` from the project's folder
imports dpcore from there (Python puts the script's folder on the path, not the current one); run from anywhere
else, it says where to run it instead of raising ModuleNotFoundError."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from dpcore import notebooks

ROOT = Path(__file__).resolve().parents[2]
CONFIG = notebooks.SurvivalConfig(dataset="gehan", horizon=35.0, grid_unit="weeks", epsilon=1.0, seed=0,
                                  sweep=(1.0, 10.0), sweep_draws=20)
ENV = {"PATH": "/usr/bin:/bin"}  # no PYTHONPATH: as a person runs it


def _downloaded(tmp_path: Path) -> Path:
    script = tmp_path / "Downloads" / "survival-preview.py"
    script.parent.mkdir()
    script.write_text(notebooks.script(CONFIG))
    return script


def test_the_script_runs_from_the_project_folder_and_writes_its_figures_beside_itself(tmp_path):
    script = _downloaded(tmp_path)
    before = set(ROOT.glob("*.html"))
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=ENV, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert {p.name for p in script.parent.iterdir()} == {"survival-preview.py", "headline.html", "utility.html"}
    assert set(ROOT.glob("*.html")) == before  # no figure left in the project's folder


def test_elsewhere_the_script_says_where_to_run_it(tmp_path):
    script = _downloaded(tmp_path)
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=ENV, capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.strip() == ("dpcore was not found: run this script from the dashboard project folder, e.g. "
                                   "cd path/to/project && python path/to/this-script.py")
