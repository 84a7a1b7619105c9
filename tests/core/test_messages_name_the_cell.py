"""Messages: a NaN/inf time or response is named by its column, role and row (the guesser keeps
the column its name fits), and a link value a page changes keeps its note while the control holds that value."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from tests.support.page_views import unfold_settings

from dpcore.core import columns
from tests.support.pages import regression_upload, survival_upload

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_guesser_keeps_the_named_column_when_a_cell_is_nan_or_inf():
    frame = pd.DataFrame({"time": [1.0, np.nan, 3, np.inf, 2], "event": [1, 0, 1, 1, 0], "arm": list("ababa")})
    roles = columns.survival_roles(frame)
    assert (roles["time"].column, roles["event"].column, roles["group"].column) == ("time", "event", "arm")
    frame = pd.DataFrame({"x1": [1.0, 2, 3], "y": [1.0, np.inf, 2], "x2": [3.0, 4, 5]})
    assert columns.guess(frame, "response").column == "y"
    # a column with nothing usable is not taken by its name; the type fallback still works
    frame = pd.DataFrame({"time": ["nan", "inf", ""], "days": [1.0, 2, 3]})
    assert columns.guess(frame, "time").column == "days"


def test_survival_upload_names_the_nan_and_inf_in_the_time_column():
    rows = ["id,event,time"] + [f"{i},{i % 2},{1 + i}" for i in range(30)]
    rows[4], rows[9] = "3,1,nan", "8,0,inf"
    at = survival_upload("\n".join(rows).encode())
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert not any("more than one role" in e for e in errors), errors
    assert any("'time'" in e and "rows 5" in e and "10" in e and "inf" in e for e in errors), errors


def test_regression_upload_names_an_inf_response_as_the_response():
    rng = np.random.default_rng(0)
    rows = ["a,y,b"] + [f"{rng.normal():.3f},{rng.normal():.3f},{rng.normal():.3f}" for _ in range(60)]
    rows[7] = "0.1,inf,0.2"
    at = regression_upload("\n".join(rows).encode())
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert any("'y', row 8: the response is 'inf'" in e for e in errors), errors
    assert not any("feature value" in e for e in errors), errors


def _notes(at: AppTest) -> list[str]:
    return [c.value.replace("\\", "") for c in at.caption if c.value.startswith("Link:")]


def test_a_clamped_link_value_keeps_its_note_until_the_control_changes():
    at = AppTest.from_file(APP, default_timeout=300)
    unfold_settings(at)
    at.switch_page("app_pages/survival.py")
    at.query_params["sv_width"] = "1e9"
    at.run()
    assert at.number_input(key="sv_width").value == 1000
    assert any("asked for '1e9'; the nearest value allowed here is 1000" in n for n in _notes(at)), _notes(at)
    at.number_input(key="sv_seed").set_value(3).run()  # another control: a rerun that does not read the link
    assert any("asked for '1e9'" in n for n in _notes(at)), _notes(at)
    at.number_input(key="sv_width").set_value(7).run()  # the person chose a value: the note has done its job
    assert not any("'1e9'" in n for n in _notes(at)), _notes(at)
