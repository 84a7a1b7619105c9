"""Generated notebooks, run as a user would: a fresh kernel from the project folder, and the pages' downloads."""

from __future__ import annotations

import ast
import base64
import json
from pathlib import Path

import nbformat
import numpy as np
from nbclient import NotebookClient
from streamlit.testing.v1 import AppTest

from tests.support.page_views import DETAILS, captured_downloads

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "app_pages"
#: names an upload could carry: quotes, newlines, a docstring's end, Markdown and HTML
HOSTILE = ['x"); import os; os.system("echo pwned"); ("', "a'b\nc = 1", 'end"""; raise SystemExit', ":red[x]",
           "<script>alert(1)</script>", "tab\there\\", "${{ }} {0} %s", "\r\n# %%\nimport os"]


def run_notebook(text: str, probe: str) -> dict:
    """Execute the notebook in a fresh kernel from the project folder, then ``probe`` (code printing JSON)."""
    nb = nbformat.reads(text, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(probe))
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    out = nb.cells[-1].outputs
    return json.loads("".join(o.get("text", "") for o in out if o.get("name") == "stdout"))


def page_downloads(page: str, query: dict | None = None) -> tuple[AppTest, dict[str, str]]:
    """Run ``page`` with its details at ε open (where the downloads are); return it and the text of every deferred
    download it offers, by file name."""
    at = AppTest.from_file(str(PAGES / page), default_timeout=180)
    at.query_params.update(query or {})
    at.session_state[DETAILS[Path(page).stem]] = True
    with captured_downloads() as files:
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at, {name: make() for name, make in files.items() if name and name.endswith((".ipynb", ".py"))}


def figure_values(values) -> np.ndarray:
    """An array of a figure's JSON (Plotly writes arrays as base64 ``{"dtype", "bdata"}``)."""
    if isinstance(values, dict):
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"]).astype(float)
    return np.asarray(values, dtype=float)


def trace(spec: dict, name: str, axis: str = "y") -> np.ndarray:
    """The values of the trace whose name starts with ``name``."""
    return figure_values(next(t for t in spec["data"] if t.get("name", "").startswith(name))[axis])


def string_constants(tree: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
