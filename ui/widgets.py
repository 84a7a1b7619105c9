"""Controls whose values live in the URL, so a teacher can share an exact configuration.

Every control of every page goes through here, which is what makes links reproducible. The widget key is
the query-parameter name and a value equal to the default is dropped from the URL. A link can carry any
text, so the value is read here, not by Streamlit's ``bind="query-params"`` (which crashed on ``1e309`` for
integer fields and replaced out-of-range numbers silently): numbers are parsed, rounded and clamped,
choices matched, switches read as true/false, and anything unusable gives the default; a value that had
to be changed gets a note under the control, shown as literal text. Multiselects keep the native
binding, which only ever keeps offered options.
"""

from __future__ import annotations

import contextlib
import math
from contextvars import ContextVar
from typing import Callable, Mapping

import numpy as np
import streamlit as st
from streamlit.delta_generator_singletons import get_last_dg_added_to_context_stack

from ui.layout import literal

#: ε values offered on every page: roughly log-spaced, readable numbers.
EPSILON_STEPS = (0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0)
#: The width (px) of a slider alone on its row. A fixed width, not a pair of columns, which a fragment would
#: resend as three more elements on every move of its sliders.
CONTROL_WIDTH = 430
#: The largest whole number a browser holds exactly (Streamlit refuses larger integer widget values).
_JS_MAX_INT = 2**53 - 1
#: Characters of a link's value quoted in a note (a link can carry thousands).
_SHOWN_CHARS = 40
#: The longest link value a control reads (longer for a choice with longer option texts, :func:`_link_cap`). A longer
#: value is refused on its length alone, before any parsing, and gives the default with a note: a value that long is
#: never a number or a switch, and nothing in a link's text then costs more than a length check (
#: ``?eps=`` followed by 100,000 characters).
MAX_LINK_CHARS = 200


def _is_number(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


def _shown(raw: str) -> str:
    """A link's value for a note: quoted, cut to a readable length."""
    return repr(raw if len(raw) <= _SHOWN_CHARS else raw[:_SHOWN_CHARS] + "…")


def _link_cap(options=()) -> int:
    """The longest link value a control reads: :data:`MAX_LINK_CHARS`, or a choice's longest option text."""
    return max([MAX_LINK_CHARS, *(len(str(o)) for o in options)])


def _default_text(default) -> str:
    if isinstance(default, (bool, np.bool_)):
        return str(bool(default)).lower()
    return f"{default:g}" if _is_number(default) else str(default)


def _too_long(raw: str, default) -> str:
    """The note for a link value refused on its length alone."""
    return (f"the link's value {_shown(raw)} is {len(raw):,} characters long, too long for this control; showing the "
            f"default {_default_text(default)}")


def _as_number(raw: str) -> float:
    """The number written in ``raw``, or NaN (also for text too long to be a number: read on its length alone)."""
    if len(raw) > MAX_LINK_CHARS:
        return math.nan
    try:
        return float(raw.strip())
    except (ValueError, OverflowError):
        return math.nan


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
    number = _as_number(raw)
    if not numeric or not math.isfinite(number):
        return default, f"the link's value {_shown(raw)} is not offered here; showing the default {default}"
    for option in numeric:
        if option == number:
            return option, None
    log_scale = number > 0 and all(o > 0 for o in numeric)
    nearest = min(numeric, key=lambda o: abs(math.log(o / number)) if log_scale else abs(o - number))
    return nearest, f"the link asked for {_shown(raw)}; the nearest value offered here is {nearest:g}"


def _number_from_text(raw: str, default, lo, hi, *, integer: bool, step=None):
    """``(number, note)`` for a numeric control: on its ``step`` grid, whole when ``integer``, in ``[lo, hi]``.

    Not a finite number (empty, ``nan``, ``inf``, ``1e999``, words): the default, with a note. A number
    the control cannot take (fractional for a whole-number field, out of range, off the slider's steps):
    the nearest one it can, with a note.
    """
    number = _as_number(raw)
    if not math.isfinite(number):
        return default, f"the link's value {_shown(raw)} is not a usable number; showing the default {default:g}"
    value = min(max(number, lo), hi)
    if step:  # on the grid lo + k·step (rounded, so 0.05 + 6·0.05 reads 0.35)
        value = round(min(max(lo + round((value - lo) / step) * step, lo), hi), 12)
    value = int(round(value)) if integer else float(value)
    if value == number:
        return value, None
    return value, f"the link asked for {_shown(raw)}; the nearest value allowed here is {value:g}"


def _fit_number(held, default, lo, hi, *, integer: bool, step=None):
    """A held number moved into ``[lo, hi]`` (and onto the grid) as a link's would be; one in range stays."""
    if _is_number(held) and lo <= held <= hi:
        return held
    return _number_from_text(str(held), default, lo, hi, integer=integer, step=step)[0]


def _bool_from_text(raw: str, default: bool):
    text = raw.strip().lower()
    if text in ("true", "false"):
        return text == "true", None
    return default, f"the link's value {_shown(raw)} is not true or false; showing the default {str(default).lower()}"


def _url_text(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value)).lower()
    return str(value)


def _last(key: str) -> str:
    """Session-state key remembering a control's value across runs in which it is not drawn."""
    return f"_url_last_{key}"


def held(key: str, default=None):
    """A URL-bound control's value in this session, drawn or not (its state, else the value it last had); ``default``
    before it had one."""
    return st.session_state.get(key, st.session_state.get(_last(key), default))


def _noted(key: str) -> str:
    """Session-state key of a link's note and the value the link was moved to (shown while the control keeps it)."""
    return f"_url_note_{key}"


def set_control(key: str, value) -> None:
    """Set a URL-bound control's value for this run (through its state, which also moves the URL)."""
    st.session_state[key] = value
    st.session_state.pop(_last(key), None)
    st.session_state.pop(_noted(key), None)


#: query parameter of an in-app link to a configuration: the page it opens keeps the link's ε (see app.py)
LINKED = "linked"


def forget_control(key: str) -> None:
    """Drop a control's value everywhere (state, memory, URL): it starts from its default."""
    st.session_state.pop(key, None)
    st.session_state.pop(_last(key), None)
    st.session_state.pop(_noted(key), None)
    if key in st.query_params:
        del st.query_params[key]


#: while a folded group of settings is drawn, the link notes its controls raise (shown after the group, not in it)
FOLDED_NOTES = "_link_notes_in_folded_settings"


def link_note(note: str, where: str = "") -> None:
    """The note under a control whose link value had to be changed; literal text (a link is anyone's text).

    Inside a folded settings group the note is kept for the group to show below its label: a note folded away
    with its control would leave the reader of a hostile link unaware that the link asked for something else."""
    folded = st.session_state.get(FOLDED_NOTES)
    if folded is not None:
        folded.append(note)
    else:
        st.caption(literal(f"Link: {note}." + (f" ({where})" if where else "")))


def _start_value(key: str, default, from_text: Callable[[str], tuple], fit: Callable, cap: int) -> tuple:
    """``(value, note)``: where a URL-bound control starts, whether or not this run draws it.

    Its state, else the last value it had in this session (kept across runs in which it is not drawn), else the
    link's (``from_text`` → value and note), else ``default``; ``fit`` moves a held value into the control's
    current range or options (they can depend on the data). A link value longer than ``cap`` characters gives
    ``default`` and a note without being parsed (:data:`MAX_LINK_CHARS`)."""
    for name in (key, _last(key)):
        if name in st.session_state:
            return fit(st.session_state[name]), None
    if raws := st.query_params.get_all(key):
        raw = raws[-1]  # a repeated key: the last one counts, as in Streamlit
        return (default, _too_long(raw, default)) if len(raw) > cap else from_text(raw)
    return default, None


#: the folded settings groups being drawn: a URL-bound control inside one of them gives its value undrawn
_FOLDED_GROUPS: ContextVar[tuple] = ContextVar("folded_settings_groups", default=())


@contextlib.contextmanager
def undrawn_within(container):
    """While open, a URL-bound control drawn into ``container`` (or into columns or boxes inside it) is not drawn
    and gives the value it would show (:func:`_start_value`).

    For a folded group of settings: Streamlit draws a folded expander's widgets into the page, and each move of a
    slider elsewhere made the browser lay all of them out again (a survival page whose 15 folded settings were not
    drawn moved ε about 30 ms faster, of 145). A control drawn into a container made outside the group (the
    question row) is drawn as usual. Other widgets (buttons, uploads) are drawn as usual."""
    token = _FOLDED_GROUPS.set((*_FOLDED_GROUPS.get(), container))
    try:
        yield
    finally:
        _FOLDED_GROUPS.reset(token)


def _undrawn() -> bool:
    groups = _FOLDED_GROUPS.get()
    if not groups:
        return False
    active = get_last_dg_added_to_context_stack()
    return active is not None and any(ancestor is group for ancestor in active._ancestors for group in groups)


def _url_bound(widget, label: str, key: str, default, from_text: Callable[[str], tuple], fit: Callable,
               seed: Callable[[object], dict], cap: int = MAX_LINK_CHARS, **kwargs):
    """Draw ``widget`` bound to ``?key=…``; the one place a link's text becomes a control's value.

    It starts from :func:`_start_value`, passed as the widget's default (``seed``; the key is the widget's
    identity, so this never resets it). Seeding through ``st.session_state`` instead left a widget that reappears
    after a run without it (e.g. while an upload is pending) showing its first option while keeping another value.
    The value is written back to the URL, or dropped when it equals ``default``, after each run. Inside a folded
    settings group (:func:`undrawn_within`) the control is not drawn and gives that start value, which is the value
    it would show: the group costs the page nothing until it is opened.
    """
    if not key:
        raise ValueError("URL-bound widgets need a key (it becomes the query-parameter name)")
    noted = _noted(key)
    start, note = _start_value(key, default, from_text, fit, cap)
    if note:
        st.session_state[noted] = (note, start)
    if _undrawn():  # in a folded settings group: the value it would show, kept as if drawn
        st.session_state.pop(key, None)  # (a state set for it, e.g. by a reset, would fight the seed when drawn)
        value = start
    else:
        if key in st.session_state and st.session_state[key] != start:
            st.session_state[key] = start
        value = widget(label, key=key, **seed(start), **kwargs)
    st.session_state[_last(key)] = value
    # the note stays on every run (a fragment's, another control's) while the control keeps the value the link was
    # moved to: shown only in the run that read the link, a later rerun took it away before it was read
    kept = st.session_state.get(noted)
    if kept is not None and kept[1] == value:
        link_note(kept[0])
    else:
        st.session_state.pop(noted, None)
    if value == default:
        if key in st.query_params:
            del st.query_params[key]
    else:
        st.query_params[key] = _url_text(value)
    return value


def _choice_bound(widget, label: str, key: str, options, default, format_func, *, seed_arg: str, **kwargs):
    """A choice bound by the option's own value (``?method=survival``), not its display label.

    Streamlit's native binding writes ``format_func(option)`` into the URL, which makes links long and
    breaks when a label is reworded, and ignores ``?s=4`` for an option ``4.0``.
    """
    options = list(options)
    return _url_bound(
        widget, label, key, default,
        from_text=lambda raw: _option_from_text(raw, options, default),
        fit=lambda v: v if v in options else default,
        seed=lambda v: {seed_arg: v if seed_arg == "value" else options.index(v)}, cap=_link_cap(options),
        options=options, format_func=_labels(options, format_func or str), **kwargs,
    )


def _labels(options, format_func) -> Callable:
    """``format_func`` as a lookup of its labels, computed now.

    Streamlit keeps a widget's ``format_func`` in the session for as long as the session lives, and a
    page's lambda holds on to every global of the page's run (its data, fitted models, …): a few
    sessions of a heavy page held gigabytes. The lookup holds the labels only.
    """
    return {option: format_func(option) for option in options}.__getitem__


def _numeric_bound(widget, label: str, key: str, *, value, min_value, max_value, step=None, snap: bool, **kwargs):
    """A number input or slider; whole numbers when every numeric argument is one (Streamlit's rule)."""
    integer = all(isinstance(a, (int, np.integer, type(None))) for a in (value, min_value, max_value, step))
    lo = min_value if min_value is not None else (-_JS_MAX_INT if integer else -math.inf)
    hi = max_value if max_value is not None else (_JS_MAX_INT if integer else math.inf)
    grid = step if snap else None
    return _url_bound(
        widget, label, key, value,
        from_text=lambda raw: _number_from_text(raw, value, lo, hi, integer=integer, step=grid),
        fit=lambda v: _fit_number(v, value, lo, hi, integer=integer, step=grid), seed=lambda v: {"value": v},
        min_value=min_value, max_value=max_value, step=step, **kwargs,
    )


def reset_when_changed(marker: str, identity, defaults: Mapping[str, object]) -> None:
    """Put URL-bound widgets back to ``defaults`` when ``identity`` (a data set, a file's columns)
    differs from the previous run's; the first run of a session keeps what a link asked for.

    For controls whose defaults come from the data (horizon, grid unit, sizes, columns). The value is
    set through the widget's state, so the old value cannot come straight back from the URL.
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
    if st.session_state.get(marker) == default:  # unchanged: rewriting the control's state would make Streamlit
        return  # warn on every run (a value set through the state for a widget that also has a default)
    if marker in st.session_state and held(key) == st.session_state[marker]:
        set_control(key, default)
    st.session_state[marker] = default


def url_slider(label: str, *, key: str, min_value, max_value, value=None, step=None, **kwargs):
    """A single-value slider; the link's number is snapped to its steps and range."""
    return _numeric_bound(st.slider, label, key, value=min_value if value is None else value, min_value=min_value,
                          max_value=max_value, step=step, snap=True, **kwargs)


def url_select_slider(label: str, *, key: str, options, value=None, format_func=None, **kwargs):
    options = list(options)
    return _choice_bound(st.select_slider, label, key, options, options[0] if value is None else value,
                         format_func, seed_arg="value", **kwargs)


def url_selectbox(label: str, *, key: str, options, index: int = 0, format_func=None, **kwargs):
    options = list(options)
    return _choice_bound(st.selectbox, label, key, options, options[index], format_func, seed_arg="index", **kwargs)


def url_radio(label: str, *, key: str, options, index: int = 0, format_func=None, **kwargs):
    options = list(options)
    return _choice_bound(st.radio, label, key, options, options[index], format_func, seed_arg="index", **kwargs)


def url_toggle(label: str, *, key: str, value: bool = False, **kwargs):
    return _url_bound(st.toggle, label, key, bool(value), from_text=lambda raw: _bool_from_text(raw, bool(value)),
                      fit=bool, seed=lambda v: {"value": v}, **kwargs)


def kept_value(key: str, default, *, between: tuple[float, float] | None = None):
    """The value of the URL-bound control ``key`` whether or not this run draws it (e.g. one in folded details at
    ε), as :func:`_start_value` gives it: text as given, or a number clamped ``between`` as the control would."""
    if between is None:
        return _start_value(key, default, lambda raw: (raw, None), str, MAX_LINK_CHARS)[0]
    lo, hi = between
    return _start_value(key, default, lambda raw: _number_from_text(raw, default, lo, hi, integer=False),
                        lambda v: _fit_number(v, default, lo, hi, integer=False), MAX_LINK_CHARS)[0]


def url_text(label: str, *, key: str, value: str, max_chars: int = 200, **kwargs) -> str:
    """A one-line text input (shown as typed, never as Markdown); a link's text longer than ``max_chars`` gives
    ``value``. It keeps its value while it is not drawn (e.g. in folded details at ε)."""
    return _url_bound(st.text_input, label, key, value, from_text=lambda raw: (raw, ""), fit=str,
                      seed=lambda v: {"value": v}, cap=max_chars, max_chars=max_chars, **kwargs)


#: how a decimal number field shows its value: six significant digits. Streamlit formats number inputs with
#: sprintf-js, whose ``%g`` without a precision prints every digit a float has (36.139630390143736), and whose
#: default for a float field is a fixed two decimals (0.0001 shows as 0.00)
DECIMAL_FORMAT = "%.6g"


def url_number(label: str, *, key: str, value, min_value=None, max_value=None, step=None, **kwargs):
    """A number input; the link's number is rounded (whole-number fields) and clamped into range. A decimal field
    shows :data:`DECIMAL_FORMAT` unless told otherwise."""
    if not all(isinstance(a, (int, np.integer, type(None))) for a in (value, min_value, max_value, step)):
        kwargs.setdefault("format", DECIMAL_FORMAT)
    return _numeric_bound(st.number_input, label, key, value=value, min_value=min_value, max_value=max_value,
                          step=step, snap=False, **kwargs)


def url_multiselect(label: str, *, key: str, options, format_func=str, **kwargs):
    """Native binding: Streamlit keeps only offered options from a link (repeated keys select several). A link
    value longer than any option's text is dropped from the URL before Streamlit reads it (:data:`MAX_LINK_CHARS`),
    so the control starts from its default, with a note."""
    options = list(options)
    raws = st.query_params.get_all(key) if key not in st.session_state else []
    long_raw = next((raw for raw in raws if len(raw) > _link_cap(options)), None)
    if long_raw is not None:
        del st.query_params[key]
    noted = _noted(key)
    value = st.multiselect(label, key=key, bind="query-params", options=options,
                           format_func=_labels(options, format_func), **kwargs)
    if long_raw is not None:
        st.session_state[noted] = (_too_long(long_raw, "selection"), list(value))
    # the note stays while the selection is the one the link was dropped for (a page that reruns once, e.g. to
    # relabel its folded settings, would otherwise take it away before anyone read it)
    kept = st.session_state.get(noted)
    if kept is not None and kept[1] == list(value):
        link_note(kept[0])
    else:
        st.session_state.pop(noted, None)
    return value


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
    width: int | str = "stretch",
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
            width=width,
        )
    )
