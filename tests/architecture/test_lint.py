"""Static checks: no unused imports or variables, no undefined names, no syntax errors (pyflakes rules)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_pyflakes_rules_pass():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "F,E9", "--no-cache", "app.py", "app_pages", "ui",
         "dpcore", "tests", "scripts", "bench"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
