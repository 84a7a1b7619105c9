"""Controls whose values live in the URL, so a teacher can share an exact configuration.

Thin wrappers over Streamlit's native ``bind="query-params"``: the widget
key is the query-parameter name, a value equal to the default is dropped
from the URL, and an invalid value in a link is ignored. Every control of
every page goes through here, which is what makes links reproducible.
"""

from __future__ import annotations

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


def url_select_slider(label: str, *, key: str, **kwargs):
    return _bound(st.select_slider, label, key, **kwargs)


def url_selectbox(label: str, *, key: str, **kwargs):
    return _bound(st.selectbox, label, key, **kwargs)


def url_radio(label: str, *, key: str, **kwargs):
    return _bound(st.radio, label, key, **kwargs)


def url_toggle(label: str, *, key: str, **kwargs):
    return _bound(st.toggle, label, key, **kwargs)


def url_checkbox(label: str, *, key: str, **kwargs):
    return _bound(st.checkbox, label, key, **kwargs)


def url_number(label: str, *, key: str, **kwargs):
    return _bound(st.number_input, label, key, **kwargs)


def url_multiselect(label: str, *, key: str, **kwargs):
    return _bound(st.multiselect, label, key, **kwargs)


def url_segmented(label: str, *, key: str, **kwargs):
    return _bound(st.segmented_control, label, key, **kwargs)


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
