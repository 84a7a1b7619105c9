"""The survival page's hazard-ratio section on a synthetic upload: 240 people, two arms, two sites, sex, stage and a
continuous age, with known effects."""

from __future__ import annotations

from contextlib import contextmanager
from unittest import mock

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.support.pages import SURVIVAL_PAGE, ok
from tests.support.uploads import FakeUpload


def _trial(n: int = 240) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    arm, sex = rng.integers(0, 2, n), rng.integers(0, 2, n)
    site, stage = rng.integers(0, 2, n), rng.integers(0, 3, n)
    hazard = 0.004 * np.exp(-0.6 * arm + 0.5 * sex + 0.4 * site + 0.3 * stage)
    event_time, censor = rng.exponential(1 / hazard), rng.uniform(50, 500, n)
    return pd.DataFrame({"time": np.round(np.minimum(event_time, censor), 1), "event": (event_time <= censor) * 1,
                         "arm": np.array(["A", "B"])[arm], "site": np.array(["north", "south"])[site], "sex": sex,
                         "stage": np.array(["I", "II", "III"])[stage], "age": np.round(rng.uniform(30, 80, n), 1)})


TRIAL = _trial()


@contextmanager
def hazard_ratio_upload(frame: pd.DataFrame = TRIAL, **query):
    """The survival page on ``frame`` as an upload, its groups declared and the hazard-ratio section on."""
    at = AppTest.from_file(SURVIVAL_PAGE, default_timeout=240)
    at.query_params.update({"sv_src": "upload", "hr_on": "true", "hr_k": "2", **query})
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(frame.to_csv(index=False).encode(),
                                                                            "trial.csv")):
        at.run()
        at.text_input(key="sv_glabels").set_value("A, B").run()
        yield at


def stratify_and_adjust(at: AppTest) -> None:
    at.selectbox(key="hr_strata").set_value("site").run()
    at.text_input(key="hr_strata_levels:site").set_value("north, south").run()
    at.multiselect(key="hr_adjust").set_value(["sex"]).run()
    ok(at)
