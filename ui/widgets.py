"""Controls whose values live in the URL, so a teacher can share an exact configuration.

Thin wrappers over Streamlit's native ``bind="query-params"``: the widget
key is the query-parameter name, a value equal to the default is dropped
from the URL, and an invalid value in a link is ignored. Every control of
every page goes through here, which is what makes links reproducible.
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np
import streamlit as st

#: ε values offered on every page: roughly log-spaced, readable numbers.
EPSILON_STEPS = (0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0)


def _bound(widget, label, key, **kwargs):
    if not key:
        raise ValueError("URL-bound widgets need a key (it becomes the query-parameter name)")
    return widget(label, key=key, bind="query-params", **kwargs)


def url_slider(label: str, *, key: str, **kwargs):
    return _bound(st.slider, label, key, **kwargs)


def _is_number(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


def _option_from_text(raw: str, options: list, default):
    """``(option, note)`` for a value read from a link.

    The option whose text is ``raw``; numbers are compared as numbers (``2`` finds ``2.0``), and a
    number between or beyond the offered ones snaps to the nearest (on a log scale when all are
    positive, as for ε) with a note saying so, since pages offer different ranges. Anything else
    gives the default and a note.
    """
    for option in options:
        if str(option) == raw:
            return option, None
    numeric = [o for o in options if _is_number(o)]
    try:
        number = float(raw)
    except ValueError:
        number = math.nan
    if not numeric or not math.isfinite(number):
        return default, f"the link's value {raw!r} is not offered here; showing the default {default}"
    for option in numeric:
        if option == number:
            return option, None
    log_scale = number > 0 and all(o > 0 for o in numeric)
    nearest = min(numeric, key=lambda o: abs(math.log(o / number)) if log_scale else abs(o - number))
    return nearest, f"the link asked for {raw}; the nearest value offered here is {nearest:g}"


def _last(key: str) -> str:
    """Session-state key remembering a choice widget's value across runs in which it is not drawn."""
    return f"_url_last_{key}"


def set_control(key: str, value) -> None:
    """Set a URL-bound control's value for this run (through its state, which also moves the URL)."""
    st.session_state[key] = value
    st.session_state.pop(_last(key), None)


def forget_control(key: str) -> None:
    """Drop a custom-bound control's value everywhere (state, memory, URL): it starts from its default."""
    st.session_state.pop(key, None)
    st.session_state.pop(_last(key), None)
    if key in st.query_params:
        del st.query_params[key]


def _choice_bound(widget, label: str, key: str, options, default, format_func, *, seed_arg: str, **kwargs):
    """URL binding by the option's own value (``?method=survival``), not its display label.

    Streamlit's native binding writes ``format_func(option)`` into the URL,
    which makes links long and breaks when a label is reworded, and ignores
    ``?s=4`` for an option ``4.0``; choice widgets with a ``format_func`` or
    numeric options are bound here instead. The widget's starting value is
    passed as its default (``seed_arg``: ``value`` or ``index``; the key is
    the widget's identity, so this never resets it): the last value it had in
    this session, else the link's (with a note under the widget when it had
    to be adjusted), else ``default``. Seeding through ``st.session_state``
    instead left a widget that reappears after a run without it (e.g. while
    an upload is pending) showing its first option while keeping another
    value. The value is written back to the URL (or dropped when it equals
    ``default``) after each run.
    """
    if not key:
        raise ValueError("URL-bound widgets need a key (it becomes the query-parameter name)")
    options = list(options)
    last = _last(key)  # survives the runs in which the widget is not drawn (widget state does not)
    note = None
    if key in st.session_state:
        start = st.session_state[key]
    elif last in st.session_state:
        start = st.session_state[last]
    elif (raw := st.query_params.get(key)) is not None:
        start, note = _option_from_text(raw, options, default)
    else:
        start = default
    if start not in options:
        start = default
    seed = start if seed_arg == "value" else options.index(start)
    value = widget(label, options=options, key=key, format_func=format_func, **{seed_arg: seed}, **kwargs)
    st.session_state[last] = value
    if note:
        st.caption(f"Link: {note}.")
    if value == default:
        if key in st.query_params:
            del st.query_params[key]
    else:
        st.query_params[key] = str(value)
    return value


def reset_when_changed(marker: str, identity, defaults: Mapping[str, object]) -> None:
    """Put URL-bound widgets back to ``defaults`` when ``identity`` (a data set, a file's columns)
    differs from the previous run's; the first run of a session keeps what a link asked for.

    For controls whose defaults come from the data (horizon, grid unit, sizes, columns). The value is
    set through the widget's state: popping the state would let the old value come straight back from
    the URL, and Streamlit refuses to delete a query parameter bound to a widget.
    """
    if st.session_state.get(marker) != identity:
        if marker in st.session_state:
            for key, value in defaults.items():
                set_control(key, value)
        st.session_state[marker] = identity


def follow_default(key: str, default) -> None:
    """Call before a control whose default derives from other controls (sparsity from s*, m from n, …).

    A link omits values equal to the default, so a control left at an *old* default would show another
    value when the link is opened. While the user has not changed it (its value is still the previous
    default), it follows the new default instead; a value the user chose stays.
    """
    marker = f"_url_default_{key}"
    if marker in st.session_state and key in st.session_state and st.session_state[key] == st.session_state[marker]:
        set_control(key, default)
    st.session_state[marker] = default


def url_select_slider(label: str, *, key: str, options, value=None, format_func=None, **kwargs):
    options = list(options)
    if format_func is None and not all(_is_number(o) for o in options):
        return _bound(st.select_slider, label, key, options=options, value=value, **kwargs)
    return _choice_bound(st.select_slider, label, key, options, options[0] if value is None else value,
                         format_func or str, seed_arg="value", **kwargs)


def url_selectbox(label: str, *, key: str, options, index: int = 0, format_func=None, **kwargs):
    if format_func is None:
        return _bound(st.selectbox, label, key, options=options, index=index, **kwargs)
    options = list(options)
    return _choice_bound(st.selectbox, label, key, options, options[index], format_func, seed_arg="index", **kwargs)


def url_radio(label: str, *, key: str, options, index: int = 0, format_func=None, **kwargs):
    if format_func is None:
        return _bound(st.radio, label, key, options=options, index=index, **kwargs)
    options = list(options)
    return _choice_bound(st.radio, label, key, options, options[index], format_func, seed_arg="index", **kwargs)


def url_toggle(label: str, *, key: str, **kwargs):
    return _bound(st.toggle, label, key, **kwargs)


def url_number(label: str, *, key: str, **kwargs):
    return _bound(st.number_input, label, key, **kwargs)


def url_multiselect(label: str, *, key: str, **kwargs):
    return _bound(st.multiselect, label, key, **kwargs)


def epsilon_options(min_value: float = 0.05, max_value: float = 20.0) -> list[float]:
    return [e for e in EPSILON_STEPS if min_value - 1e-12 <= e <= max_value + 1e-12]


def epsilon_slider(
    label: str = "Privacy budget ε",
    *,
    key: str = "eps",
    default: float = 1.0,
    min_value: float = 0.05,
    max_value: float = 20.0,
    help: str | None = None,
) -> float:
    """ε on a log-spaced slider (equal steps multiply ε), bound to the URL as ``?eps=…``."""
    options = epsilon_options(min_value, max_value)
    default = min(options, key=lambda e: abs(np.log(e) - np.log(default)))
    return float(
        url_select_slider(
            label,
            key=key,
            options=options,
            value=default,
            format_func=lambda e: f"{e:g}",
            help=help
            or "Smaller ε = stronger privacy and more noise. The slider steps are roughly logarithmic: each step "
            "multiplies ε by about 1.5.",
        )
    )
