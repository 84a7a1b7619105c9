"""The sparse page's private choice of an upload's bounds K and r (ui.private_bounds.private_sparse_bounds): charged
to the persons of the rows the release reads, it sets K and r, and the release with them says they were chosen by a
charged private selection; a logistic model reads no response, so only K is chosen, with the whole ε."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pandas as pd
import pytest
import streamlit as st

from dpcore import sparse as sp
from dpcore.ledger.config import LedgerConfig, open_ledger
from dpcore.provenance import SELECTED
from tests.support.pages import ok, sparse_upload
from tests.support.uploads import FakeUpload
from ui.state import DEFAULT_DATA_DIR

METHOD = "Private choice of clipping ranges"


def _csv(n: int = 300) -> bytes:
    """Standardised features (|x| mostly below 3) and a response around ±2: K and r well inside (0.1, 100)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 6))
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(6)])
    frame.insert(0, "y", X[:, 0] - X[:, 3] + rng.normal(0, 0.3, n))
    return frame.to_csv(index=False).encode()


def _choose(at, names=("K", "r"), cost: float = 5.0):
    """Declare each bound's largest value (public: typed, not read off the file), set the cost and press."""
    for name in names:
        at.number_input(key=f"sp_pb_{name}max").set_value(20.0)
    at.select_slider(key="sp_pb_eps").set_value(cost)
    at.run()
    at.button(key="sp_pb_choose").click().run()
    ok(at)
    return at.session_state["sp_private_bounds"]["bounds"]


def test_choosing_k_and_r_privately_is_charged_sets_them_and_the_release_says_so(monkeypatch):
    monkeypatch.setenv("DPCORE_DEFAULT_EPSILON_CAP", "100")
    data = _csv()
    n_read = sp.upload_split(300)[0].size  # the release reads the training rows: the choice reads the same
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(data, "mine.csv")):
        at = sparse_upload(data)
        ok(at)
        bounds = _choose(at)
        ledger = open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR))
        (choice,) = ledger.records()
        assert choice.method == METHOD and choice.epsilon == 5.0 and choice.delta == 0.0 and choice.persons == n_read
        assert ledger.summary()[0]["ε spent"] == pytest.approx(5.0)
        assert bounds.names == ("K", "r") and bounds.public_params()["ε per quantile"] == 2.5
        K, r = bounds.bounds
        assert 2.0 < K < 5.0 and 1.5 < r < 6.0  # the 0.9 quantiles of max |x| over 6 normals and of |y|, roughly
        assert (at.number_input(key="sp_K").value, at.number_input(key="sp_r").value) == (K, r)
        assert any("charged ε = 5" in s.value for s in at.success)
        at.button(key="release_button_sparse").click().run()
        at.button(key="release_confirm_sparse").click().run()
    ok(at)
    bundle = at.session_state["_release_last_sparse"]
    assert bundle.settings_choice.how == SELECTED
    assert "chosen by a charged private selection" in bundle.statement and "charged ε = 5" in bundle.statement
    record = ledger.records()[-1]
    assert record.params["K"] == K and record.params["r"] == r and record.persons == n_read
    assert ledger.summary()[0]["ε spent"] > 5.0  # the release composes with the choice for the same persons


def test_a_logistic_model_chooses_k_alone_with_the_whole_epsilon(monkeypatch):
    monkeypatch.setenv("DPCORE_DEFAULT_EPSILON_CAP", "100")
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(200, 4)), columns=["a", "b", "c", "d"])
    frame["target"] = (frame.a + rng.normal(0, 1, 200) > 0).astype(int)
    data = frame.to_csv(index=False).encode()
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(data, "m.csv")):
        at = sparse_upload(data)
        at.radio(key="sp_loss").set_value("logistic").run()
        ok(at)
        assert "sp_pb_rmax" not in [w.key for w in at.number_input]  # no response bound to declare
        bounds = _choose(at, names=("K",), cost=2.0)
    assert bounds.names == ("K",) and bounds.public_params()["ε per quantile"] == 2.0
    assert at.number_input(key="sp_K").value == bounds.bounds[0]
