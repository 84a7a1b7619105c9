"""A method page's configuration as a notebook (``.ipynb``) or a script (``.py``) a person could have written.

Each method has a configuration dataclass holding the page's public settings (a bundled data set's name, or how
the columns of the user's CSV map to the method's roles; ε, the seed and the method's controls) and the cells
that rebuild the page's preview from it with dpcore's public API: the same calls and seeds as the page, so the
numbers are the page's (``tests/notebooks/test_notebooks.py`` runs every page's notebook in a fresh kernel and compares).
A release at the end runs only when its switch is set, after charging a ledger.

How a value gets into the code: :mod:`dpcore.notebooks.code` (``repr()`` of validated literals; the Markdown
is fixed text). The user's CSV is read from a path they fill in: no upload, no file name is ever embedded.
"""

from __future__ import annotations

from typing import Callable, Union

from dpcore.notebooks import fdr as _fdr
from dpcore.notebooks import hazard_ratio as _hazard_ratio
from dpcore.notebooks import regression as _regression
from dpcore.notebooks import render
from dpcore.notebooks import sparse as _sparse
from dpcore.notebooks import survival as _survival
from dpcore.notebooks.code import Cell, code, literal  # noqa: F401
from dpcore.notebooks.common import CSV_PLACEHOLDER  # noqa: F401
from dpcore.notebooks.fdr import FdrConfig
from dpcore.notebooks.hazard_ratio import HazardRatioConfig
from dpcore.notebooks.regression import RegressionConfig
from dpcore.notebooks.sparse import SparseConfig
from dpcore.notebooks.survival import SurvivalConfig

Config = Union[SurvivalConfig, RegressionConfig, SparseConfig, FdrConfig, HazardRatioConfig]

#: configuration type → (file stem, title, the cells of its notebook)
_METHODS: dict[type, tuple[str, str, Callable]] = {
    SurvivalConfig: ("survival", _survival.TITLE, _survival.cells),
    RegressionConfig: ("regression", _regression.TITLE, _regression.cells),
    SparseConfig: ("sparse", _sparse.TITLE, _sparse.cells),
    FdrConfig: ("fdr", _fdr.TITLE, _fdr.cells),
    HazardRatioConfig: ("hazard-ratio", _hazard_ratio.TITLE, _hazard_ratio.cells),
}


def _method(config: Config) -> tuple[str, str, Callable]:
    try:
        return _METHODS[type(config)]
    except KeyError:
        raise TypeError(f"no notebook for {type(config).__name__}") from None


def notebook(config: Config) -> str:
    """The page's configuration as a Jupyter notebook (JSON text, not executed)."""
    _, title, cells = _method(config)
    return render.notebook(title, cells(config))


def script(config: Config) -> str:
    """The page's configuration as a Python script (the notebook's cells; figures written to HTML files)."""
    _, title, cells = _method(config)
    return render.script(title, cells(config))


def file_stem(config: Config) -> str:
    """A file name for the downloads: the method only (never a data set's or a file's name)."""
    return _method(config)[0] + "-preview"

__all__ = ["render", "Cell", "code", "literal", "CSV_PLACEHOLDER", "FdrConfig", "HazardRatioConfig",
    "RegressionConfig", "SparseConfig", "SurvivalConfig", "Config", "notebook", "script", "file_stem"]
