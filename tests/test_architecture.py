"""Standing rules of the design: dpcore is UI-free, nothing leaks uploads, pages are thin."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_dpcore_never_imports_streamlit():
    offenders = [p.name for p in (ROOT / "dpcore").glob("*.py") if "streamlit" in _imports(p)]
    assert offenders == []


def test_nothing_writes_uploads_to_disk_or_logs_them():
    """Pages and UI helpers never open files for writing or log data (uploads stay in memory)."""
    for folder in ("ui", "app_pages"):
        for path in (ROOT / folder).glob("*.py"):
            text = path.read_text(encoding="utf-8")
            for forbidden in (r"\bopen\(", r"\.to_csv\(['\"]", r"\bto_parquet\(", r"\blogging\.info\(", r"\bprint\("):
                assert not re.search(forbidden, text), f"{path.name} matches {forbidden}"


def test_no_cross_session_cache_of_uploads():
    """st.cache_data/cache_resource are shared across sessions: never on a function taking uploaded data."""
    for path in (ROOT / "app_pages").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                cached = any("cache" in ast.unparse(d) for d in node.decorator_list)
                args = " ".join(a.arg for a in node.args.args)
                if cached:
                    assert not any(w in args for w in ("upload", "frame", "raw_bytes")), (path.name, node.name)
