"""The runnable examples in the one-call functions' docstrings run and print what they say."""

from __future__ import annotations

import doctest
import importlib

import pytest

#: modules whose docstrings carry ``>>>`` examples (a new example elsewhere joins this list)
MODULES = ["dpcore.survival.one_call", "dpcore.fdr.one_call", "dpcore.regression.bundle", "dpcore.sparse.bundle"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0, result


def test_every_module_with_examples_is_listed():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    found = {".".join(p.relative_to(root).with_suffix("").parts) for p in (root / "dpcore").rglob("*.py")
             if ">>> " in p.read_text(encoding="utf-8")}
    assert found == set(MODULES)
