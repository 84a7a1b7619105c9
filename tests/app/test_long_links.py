"""Long link values: ``?eps=`` followed by 100,000 characters, on any page, gives the default.

A link is anyone's text, of any length. A control reads a value no longer than ``MAX_LINK_CHARS`` (or its longest
option's text); a longer one is refused on its length alone, before any parsing, so it costs a length check
whatever it holds, and the control shows its default with a note that quotes the value cut short (literal text).
"""

from __future__ import annotations

import time
from pathlib import Path
from unittest import mock

import pytest
from streamlit.testing.v1 import AppTest

from tests.support.page_views import unfold_settings

from ui import widgets

APP = str(Path(__file__).resolve().parents[2] / "app.py")
LONG = 100_000
#: a number a parser would read (0.111…, which snaps to ε = 0.1) if it read the whole value
LONG_NUMBER = "0." + "1" * (LONG - 2)
#: page: its ε default
EPS_PAGES = {"app_pages/survival.py": 1.0, "app_pages/regression.py": 1.0, "app_pages/sparse.py": 2.0,
             "app_pages/fdr.py": 5.0, "app_pages/audit.py": 1.0}
WIDGETS = ("select_slider", "selectbox", "radio", "number_input", "slider", "toggle")


def _open(page: str, params: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    unfold_settings(at)
    at.switch_page(page)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def _plain(markdown: str) -> str:
    return markdown.replace("\\", "").replace("\u2060", "")


def _notes(at: AppTest) -> list[str]:
    return [_plain(c.value) for c in at.caption if c.value.startswith("Link:")]


def _values(at: AppTest) -> dict:
    return {w.key: w.value for kind in WIDGETS for w in getattr(at, kind) if w.key}


@pytest.mark.parametrize("page", list(EPS_PAGES), ids=[p.split("/")[-1][:-3] for p in EPS_PAGES])
def test_a_100000_character_eps_gives_the_default_with_a_short_note(page):
    at = _open(page, {"eps": LONG_NUMBER})
    assert not at.exception, at.exception
    assert at.select_slider(key="eps").value == EPS_PAGES[page]  # not 0.1, the number the whole text spells
    notes = _notes(at)
    assert any("is 100,000 characters long, too long for this control; showing the default" in n for n in notes), notes
    assert all(len(n) < 200 for n in notes)
    assert "eps" not in at.query_params  # the default leaves the URL clean


def test_every_control_of_the_survival_page_refuses_a_long_value_and_keeps_its_default():
    clean = _open("app_pages/survival.py", {})
    assert not clean.exception, clean.exception
    defaults = _values(clean)
    assert len(defaults) >= 5, defaults

    def padded(value):  # the text of another value the control takes, padded to 100,000 characters
        if isinstance(value, str):
            return LONG_NUMBER
        text = ("false" if value else "true") if isinstance(value, bool) else str(value * 2 + 1)
        return text + " " * (LONG - len(text))

    keys = sorted(defaults)
    for group in (keys[i:i + 4] for i in range(0, len(keys), 4)):  # Streamlit ignores query strings over 512 KiB
        params = {key: padded(defaults[key]) for key in group}
        started = time.perf_counter()
        at = _open("app_pages/survival.py", params)
        elapsed = time.perf_counter() - started
        assert not at.exception, at.exception
        assert _values(at) == defaults, group
        assert not set(params) & set(at.query_params), group
        assert all(len(n) < 200 for n in _notes(at))
        assert elapsed < 120, elapsed  # a page run, not minutes


def test_no_parser_sees_more_than_the_cap():
    """The length is checked before any parsing: every reader gets at most ``MAX_LINK_CHARS`` (200) characters."""
    seen = []

    def spy(real):
        def wrapped(raw, *args, **kwargs):
            seen.append(len(raw))
            return real(raw, *args, **kwargs)
        return wrapped

    with mock.patch.object(widgets, "_option_from_text", spy(widgets._option_from_text)), \
            mock.patch.object(widgets, "_number_from_text", spy(widgets._number_from_text)), \
            mock.patch.object(widgets, "_bool_from_text", spy(widgets._bool_from_text)):
        at = _open("app_pages/survival.py", {"eps": LONG_NUMBER, "sv_width": "7" * LONG, "teach": "true" * (LONG // 4),
                                             "sv_seed": "5"})
    assert not at.exception, at.exception
    assert at.number_input(key="sv_seed").value == 5
    assert seen and max(seen) <= 200, seen  # "5" was read; the long values never were


def test_a_long_multiselect_value_is_dropped_with_a_note():
    at = _open("app_pages/sparse.py", {"sp_methods": "x" * LONG})
    assert not at.exception, at.exception
    clean = _open("app_pages/sparse.py", {})
    assert at.multiselect(key="sp_methods").value == clean.multiselect(key="sp_methods").value
    assert any("100,000 characters long" in n for n in _notes(at)), _notes(at)
    assert "sp_methods" not in at.query_params


@pytest.mark.parametrize("raw", ["1" + " " * LONG, " " * LONG + "1", "0." + "1" * LONG, "9" * 10_000_000])
def test_a_number_longer_than_the_cap_is_not_a_number_and_costs_a_length_check(raw):
    started = time.perf_counter()
    assert widgets._as_number(raw) != widgets._as_number(raw)  # NaN
    assert time.perf_counter() - started < 0.01
