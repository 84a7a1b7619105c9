"""Cells of generated code, and how values get into them safely.

A generated notebook or script is built from :class:`Cell`\\ s: a sentence of fixed Markdown (written in this
package, never holding a value from the page) and a few lines of code. Values reach the code only through
:func:`literal`, which accepts plain Python literals (numbers, strings, booleans, ``None`` and tuples / lists of
them) and writes their ``repr()``: a column named ``x"); import os; ("`` becomes the string literal
``'x"); import os; ("'``, never code. Nothing from a link, a file name or a cell is pasted as text.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass

import numpy as np

#: what a template's placeholders look like: ``{name}``, filled by :func:`code` with literals only
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def literal(value) -> str:
    """``repr(value)`` for a plain Python literal; anything else (an object, NaN, ∞) is refused.

    NumPy scalars are taken as the Python numbers they hold. The result is checked to read back as the same
    value (``ast.literal_eval``), so no input can make it anything but one literal.
    """
    value = _plain(value)
    text = repr(value)
    if ast.literal_eval(text) != value:
        raise ValueError(f"{text} does not read back as the value it stands for")
    return text


def _plain(value):
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not a finite number")
        return float(value)
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(v) for v in value) if isinstance(value, list) else tuple(_plain(v) for v in value)
    raise TypeError(f"a generated notebook takes plain literals only, not {type(value).__name__}")


def code(template: str, **values) -> str:
    """``template`` with each ``{name}`` replaced by ``literal(values[name])`` (every placeholder must be given)."""
    names = set(_PLACEHOLDER.findall(template))
    if names != set(values):
        raise KeyError(f"placeholders {sorted(names)} but values for {sorted(values)}")
    return _PLACEHOLDER.sub(lambda m: literal(values[m.group(1)]), template)


@dataclass(frozen=True)
class Cell:
    """One step: a sentence of fixed Markdown, then its code; ``figure`` names a figure the step shows.

    In a notebook the figure is the cell's last expression (Jupyter draws it); in a script it is written
    to ``<figure>.html`` beside the script.
    """

    markdown: str
    code: str
    figure: str | None = None
