"""Accuracy first: state a target, get the smallest ε that meets it (with its uncertainty)."""

from __future__ import annotations

import hashlib
from contextlib import nullcontext

import numpy as np
import streamlit as st

from dpcore.core import distributed
from dpcore.reporting.figures import epsilon_choice_figure
from dpcore.core.utility import Simulator, simulate_draws, smallest_epsilon
from ui.chart import chart
from dpcore.provenance import FINDER
from ui import provenance
from ui.private_choice import RowsForChoice, private_choice
from ui.state import current_dataset, current_holding, get_ledger, session_memo
from ui.widgets import url_number, url_radio, url_slider

REFINE_DRAWS = [1_000, 5_000]
CLUSTER_REFINE_DRAWS = [20_000, 100_000]


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
    simulate: Simulator | None = None,
    public_data: bool = False,
    expanded: bool = False,
    private_rows: RowsForChoice | None = None,
) -> None:
    """Expander (open at first with ``expanded``) where a user states a target on ``metric_label`` and reads off the smallest ε.

    ``draws`` has shape ``(len(grid), R)`` (one metric value per ε and noise
    draw). The result is labelled as an estimate on ``basis``: computing it
    touches the private data and is not itself a release. With ``simulate``
    (see :func:`dpcore.core.utility.simulate_draws`) the user can refine the
    estimate with many more draws, with a progress bar and a cancel button;
    they run on the configured Dask cluster only when ``public_data`` (a
    bundled data set): uploaded data never leaves this server process. ``private_rows`` (the page's simulator on
    any subset of its rows, and who they are) offers the charged private choice of ε under the estimate
    (:mod:`ui.private_choice`).
    """
    opened = f"{key}_open"
    if opened not in st.session_state and any(k.startswith(f"{key}_") for k in st.query_params):
        st.session_state[opened] = True  # a link that configures it opens it
    # computed and drawn only while open: its figure is not redrawn on every move of the page's other sliders
    box = st.expander("Accuracy first — find the smallest ε that meets a target", key=opened, on_change="rerun",
                      expanded=expanded)
    with box:
        if box.open:
            _target(key=key, grid=grid, draws=draws, metric_label=metric_label, default_threshold=default_threshold,
                    larger_is_better=larger_is_better, basis=basis, allow_probability=allow_probability,
                    simulate=simulate, public_data=public_data, private_rows=private_rows)


def _target(*, key, grid, draws, metric_label, default_threshold, larger_is_better, basis, allow_probability,
            simulate, public_data, private_rows=None) -> None:
    """The expander's content: the target's controls, the smallest ε meeting it, and its figure."""
    provenance.viewed(FINDER)  # computed from the rows: an ε chosen after it is recorded as such
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
    if simulate is not None:
        draws = _refined(key, simulate, grid, draws, public_data)
    choice = smallest_epsilon(grid, np.asarray(draws), threshold=threshold, kind=kind, probability=probability,
                              larger_is_better=larger_is_better)
    (st.success if choice.met else st.warning)(choice.summary())
    if choice.met:
        _beyond_the_cap(choice.epsilon)
    st.caption(
        f"Estimated from {np.asarray(draws).shape[1]} simulated releases per ε on {basis}. This estimate is "
        "for planning only: it used the data without noise, is not differentially private, and is not part of "
        "any release. The range reflects Monte-Carlo uncertainty (95% intervals at each ε)."
    )
    y_title = "P(target met)" if kind == "probability" else metric_label
    values = np.ascontiguousarray(draws, dtype=float)
    identity = (tuple(np.asarray(grid, dtype=float)), hashlib.sha256(values.tobytes()).hexdigest(), values.shape,
                kind, threshold, probability, larger_is_better, y_title)
    figure = session_memo(f"accuracy_first_{key}", identity,  # rebuilt only when its inputs change
                          lambda: epsilon_choice_figure(choice, metric_label=y_title))
    chart(figure, key=f"{key}_fig")
    if private_rows is not None:
        private_choice(private_rows, key=key, grid=grid, threshold=threshold, kind=kind, probability=probability,
                       larger_is_better=larger_is_better)


def _beyond_the_cap(epsilon: float) -> None:
    """Say plainly when the smallest ε that meets the target is more than this data set may spend.

    The limit is what is left of the per-person cap for the most-charged person a release would read, once the
    release panel has keyed them (``remaining``), else the cap (``ceiling``: the deployment's default).
    """
    ledger = get_ledger()
    current = current_dataset()
    key = current[2] if current else ""
    holding = current_holding()
    left = ledger.remaining(holding) if holding is not None else None
    cap = ledger.ceiling(key)
    limit, what = ((left[0], "what is left of this data set's cap") if left is not None else
                   (cap.epsilon, "this data set's cap") if cap is not None else (None, ""))
    if limit is not None and epsilon > limit + 1e-12:
        st.warning(f"The smallest ε that meets the target, ≈ {epsilon:.3g}, is above {what}: ε = {limit:g}. A "
                   "release at that ε would be refused: relax the target, or raise the cap on the Ledger page if "
                   "the deployment allows it.", icon=":material/block:")


def _refined(key: str, simulate: Simulator, grid, draws, public_data: bool):
    """The page's draws, or many more when the user asks (shown for this run of the page only)."""
    scheduler = distributed.configured_scheduler() if public_data else None
    options = REFINE_DRAWS + (CLUSTER_REFINE_DRAWS if scheduler else [])
    cols = st.columns([3, 1])
    n = cols[0].select_slider("Refine with more simulated releases per ε", options=options, key=f"{key}_refine_n",
                              format_func=lambda v: f"{v:,}")
    if not cols[1].button("Refine", key=f"{key}_refine"):
        return draws
    running = st.empty()
    running.button("Cancel", key=f"{key}_refine_cancel", icon=":material/cancel:")  # reruns the page: stops this
    bar = st.progress(0.0)
    with distributed.executor(scheduler=scheduler) if scheduler else nullcontext(distributed.Executor()) as ex:
        where = ex.where
        refined = simulate_draws(simulate, grid, n, executor=ex,
                                 progress=lambda f: bar.progress(f, text=f"{f:.0%} of {n:,} draws per ε, {where}"))
    bar.empty()
    running.empty()
    return refined
