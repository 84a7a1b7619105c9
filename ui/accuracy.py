"""Accuracy first: state a target, get the smallest ε that meets it (with its uncertainty)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from dpcore.figures import epsilon_choice_figure
from dpcore.utility import smallest_epsilon
from ui.widgets import url_number, url_radio, url_slider


def accuracy_first(
    *,
    key: str,
    grid,
    draws,
    metric_label: str,
    default_threshold: float,
    larger_is_better: bool = False,
    basis: str = "the custodian's data",
    allow_probability: bool = True,
) -> None:
    """Expander where a user states a target on ``metric_label`` and reads off the smallest ε.

    ``draws`` has shape ``(len(grid), R)`` (one metric value per ε and noise
    draw). The result is labelled as an estimate on ``basis``: computing it
    touches the private data and is not itself a release.
    """
    with st.expander("Accuracy first — find the smallest ε that meets a target", expanded=False):
        kinds = ["probability", "mean"] if allow_probability else ["mean"]
        kind = url_radio(
            "Target type", key=f"{key}_kind", options=kinds, horizontal=True,
            format_func=lambda k: {"probability": "a draw meets the bound with probability …",
                                   "mean": "the average meets the bound"}[k],
        )
        relation = "at least" if larger_is_better else "at most"
        threshold = url_number(f"{metric_label}: {relation}", key=f"{key}_thr", value=float(default_threshold),
                               format="%.4g")
        probability = 0.9
        if kind == "probability":
            probability = url_slider("with probability at least", key=f"{key}_prob", min_value=0.5,
                                     max_value=0.99, value=0.9, step=0.01)
        choice = smallest_epsilon(grid, np.asarray(draws), threshold=threshold, kind=kind, probability=probability,
                                  larger_is_better=larger_is_better)
        (st.success if choice.met else st.warning)(choice.summary())
        st.caption(
            f"Estimated from {np.asarray(draws).shape[1]} simulated releases per ε on {basis}. This estimate is "
            "for planning only: it used the data without noise, is not differentially private, and is not part of "
            "any release. The range reflects Monte-Carlo uncertainty (95% intervals at each ε)."
        )
        y_title = "P(target met)" if kind == "probability" else metric_label
        st.plotly_chart(epsilon_choice_figure(choice, metric_label=y_title), key=f"{key}_fig")
