"""Static scan: text from links, uploaded file names, column names and cell values reaches Markdown only through
``literal``.

Streamlit renders st.markdown, st.caption, st.info/warning/error/success, headers and widget labels as
Markdown. Every f-string passed to one of them may interpolate only expressions that are not untrusted
names, unless wrapped in ``literal(...)``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ui.layout import literal

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([ROOT / "app.py", *(ROOT / "app_pages").glob("*.py"), *(ROOT / "ui").rglob("*.py")])
MARKDOWN_CALLS = {"markdown", "caption", "info", "warning", "error", "success", "title", "header", "subheader",
                  "text_input", "toggle", "url_toggle", "button", "download_button", "expander", "selectbox",
                  "radio", "multiselect", "checkbox", "number_input", "slider", "url_selectbox", "url_radio",
                  "url_multiselect", "url_slider", "url_number", "toast", "write"}
#: Names that hold text a visitor or an uploaded file chose.
UNTRUSTED = {"name", "label", "gcol", "ecol", "tcol", "pcol", "resp", "response", "feats", "cols", "err", "note",
             "group_label", "dataset_label", "ledger_label", "groups", "raw", "context"}


def _is_literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "literal"


def _names(expr: ast.AST) -> list[str]:
    """Untrusted names an interpolated expression shows, outside ``literal(...)``: a name, an attribute, or
    the arguments of a call (``", ".join(groups)``); ``type(err).__name__`` shows a type's name only."""
    if _is_literal(expr):
        return []
    if isinstance(expr, ast.Name):
        return [expr.id] if expr.id in UNTRUSTED else []
    if isinstance(expr, ast.Attribute):
        return [expr.attr] if expr.attr in UNTRUSTED else []
    if isinstance(expr, ast.Call):
        return [n for a in [expr.func, *expr.args] for n in _names(a)]
    return [n for child in ast.iter_child_nodes(expr) for n in _names(child)]


def _fstrings(node: ast.AST):
    """f-strings in ``node`` that are not inside a ``literal(...)`` call."""
    if _is_literal(node):
        return
    if isinstance(node, ast.JoinedStr):
        yield node
    for child in ast.iter_child_nodes(node):
        yield from _fstrings(child)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_untrusted_text_reaches_markdown_only_through_literal(path):
    problems = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        called = getattr(node.func, "attr", getattr(node.func, "id", ""))
        if called not in MARKDOWN_CALLS or not node.args:
            continue
        for fstring in _fstrings(node.args[0]):
            names = [n for v in fstring.values if isinstance(v, ast.FormattedValue) for n in _names(v.value)]
            if names:
                problems.append(f"{path.name}:{node.lineno} {called}(…{{{names[0]}}}…)")
    assert not problems, problems


@pytest.mark.parametrize("code", [":red[colour]", ":material/warning:", ":smile:", ":blue-background[x]",
                                  "**bold** [link](http://x)", "<b>html</b>"])
def test_literal_keeps_streamlit_codes_as_text(code):
    """Every colon is followed by a word joiner, so no colour, icon or emoji code starts; Markdown is escaped."""
    shown = literal(f"file {code}.csv")
    assert ":" not in shown.replace(":\u2060", "")
    assert all(ch not in shown.replace("\\" + ch, "") for ch in "[]*<>")
    assert shown.replace("\u2060", "").replace("\\", "") == f"file {code}.csv"
