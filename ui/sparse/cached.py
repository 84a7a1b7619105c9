"""The Sparse page's computations: cached across sessions on public data (:mod:`ui.cache`) and computed ahead.

Public inputs (synthetic data, the bundled GDSC subset) are cached; an upload's fits call
:mod:`dpcore.sparse.session` directly, in its own run: uploads are never cached, written or logged.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import ui
from dpcore import sparse as sp
from dpcore.core.datasets import load_gdsc
from dpcore.sparse import session
from dpcore.sparse.session import Setup
from ui.widgets import epsilon_options

#: the ε slider's options (the page's slider runs from 0.1 to 20)
EPSILONS = epsilon_options(0.1, 20.0)


@ui.public_cache("sparse data", max_entries=8)
def synthetic(n: int, d: int, s_star: int, loss: str, noise: float, seed: int) -> sp.SparseData:
    return sp.make_synthetic(n, d, s_star, loss=loss, noise=noise, rng=np.random.default_rng(seed))


@ui.public_cache("sparse GDSC", max_entries=16)
def gdsc(drug: str, d: int, loss: str, threshold: float) -> sp.SparseData:
    return sp.gdsc_problem(drug, d, loss=loss, threshold=threshold)


@st.cache_data(show_spinner=False)
def drugs() -> dict[str, str]:
    """The bundled drugs' labels, the default drug first, then by how many cell lines have a response."""
    g = load_gdsc()
    counts = g.ic50.notna().sum()
    ids = sorted(g.drugs.DRUG_ID, key=lambda i: (i != session.DEFAULT_DRUG, -int(counts.get(i, 0))))
    return {i: f"{g.drug_label(i)} — {int(counts.get(i, 0))} cell lines" for i in ids}


def _public_data(key: tuple) -> sp.SparseData:
    return synthetic(*key[1:]) if key[0] == "synthetic" else gdsc(*key[1:])


@ui.public_cache("sparse previews", max_entries=32)
def _preview_public(part: str, key: tuple, s, eps, delta, methods, R, seed, params_items):
    """At one ε on public data: the preview's fits (``part`` "fits") or the convergence paths ("paths")."""
    if part == "paths":
        return session.paths(_public_data(key), s, eps, delta, seed, dict(params_items))
    return session.preview(_public_data(key), s, eps, delta, methods, R, seed, dict(params_items))


@ui.public_cache("sparse sweeps", max_entries=16)
def _sweep_public(key: tuple, s, delta, methods, R, seed, params_items):
    return session.sweep(_public_data(key), s, delta, methods, R, seed, dict(params_items))


def fits(setup: Setup, epsilon: float, delta: float, R: int, seed: int) -> session.Preview:
    """The preview at ``epsilon``: every fitted method, ``R`` draws."""
    if setup.public_key is not None:
        return _preview_public("fits", setup.public_key, setup.s, epsilon, delta, setup.fitted, R, seed,
                               setup.params_items)
    return session.preview(setup.data, setup.s, epsilon, delta, setup.fitted, R, seed, setup.params)


def paths(setup: Setup, epsilon: float, delta: float, seed: int) -> dict:
    """The convergence paths at ``epsilon`` (computed only while their view is open)."""
    if setup.public_key is not None:
        return _preview_public("paths", setup.public_key, setup.s, epsilon, delta, setup.methods, 0, seed,
                               setup.params_items)
    return session.paths(setup.data, setup.s, epsilon, delta, seed, setup.params)


def sweep(setup: Setup, delta: float, R: int, seed: int, progress=None) -> sp.SparseUtilityCurve:
    """The curves over ε (``progress`` reports an upload's sweep; a public one is cached)."""
    if setup.public_key is not None:
        return _sweep_public(setup.public_key, setup.s, delta, setup.methods, R, seed, setup.params_items)
    return session.sweep(setup.data, setup.s, delta, setup.methods, R, seed, setup.params, progress=progress)


def prefetch(setup: Setup, epsilon: float, delta_choice: str, R: int, seed: int) -> None:
    """Compute ahead the previews one step away on the ε, δ and repeats sliders (public data only,
    :mod:`ui.prefetch`), so that a slider's first move finds its preview cached: the slider moved last first
    (0.3 s after this run, once the browser has drawn it), the others from 1 s on.

    Seeded like any preview (the same function and arguments), so a preview computed ahead is the one a link shows.
    """
    current = (epsilon, delta_choice, R)
    last = st.session_state.get("_sp_prefetch_last", current)
    st.session_state["_sp_prefetch_last"] = current
    n, d = setup.n, setup.d
    calls = []
    for axis, options in enumerate((EPSILONS, session.DELTAS, session.REPEATS)):
        moved = current[axis] != last[axis] or current == last
        for value in ui.steps_around(options, current[axis]):
            eps, choice, draws = (*current[:axis], value, *current[axis + 1:])
            if n * d * draws <= session.PREFETCH_CELLS:
                calls.append((0.3 if moved else 1.0, lambda e=eps, c=choice, r=draws: _preview_public(
                    "fits", setup.public_key, setup.s, e, session.delta_value(c, n), setup.fitted, r, seed,
                    setup.params_items)))
    ui.head_start("sparse previews", sorted(calls, key=lambda call: call[0]))
