"""Hostile links: every URL-bound control of every page takes any text a link can carry.

A link is anyone's text. Each page is opened (through app.py, as a visitor would) with every one of its URL
parameters set to hostile values — empty, nan, ±inf, 1e999, negative, fractional, 10,000 characters,
non-ASCII, Markdown links and images, HTML, repeated keys — and must run without an exception, fall back to
valid values, and never render the link's text as Markdown (an unescaped ``evil.example`` would be a link,
an autolink or an image fetch in the browser).
"""

from __future__ import annotations

import math
from pathlib import Path
from urllib.parse import urlparse

import pytest
from streamlit.testing.v1 import AppTest

from tests.support.page_views import unfold_settings

from ui.widgets import _bool_from_text, _number_from_text, _option_from_text

APP = str(Path(__file__).resolve().parents[2] / "app.py")

HOSTILE = [
    "",
    "nan",
    "inf",
    "-inf",
    "1e999",
    "1e309",
    "-1",
    "-7.5",
    "0.5",
    "2.5",
    "9" * 10_000,
    "x" * 10_000,
    "ümlaut ✓ 日本語 \u202e",
    "[Click to verify your account](https://evil.example/login)",
    "![x](http://evil.example/pixel.png)",
    "<img src=http://evil.example/pixel.png> www.evil.example",
    ["3", "inf", "[x](https://evil.example)"],  # a repeated key
]

#: (page, parameters choosing a branch of the page): together they draw every URL-bound control.
CONFIGS = [
    ("app_pages/home.py", {}),
    ("app_pages/survival.py", {}),
    ("app_pages/survival.py", {"sv_data": "pbc", "sv_est": "cif"}),
    ("app_pages/regression.py", {}),
    ("app_pages/regression.py", {"rg_src": "synthetic", "rg_tmode": "manual"}),
    ("app_pages/sparse.py", {}),
    ("app_pages/sparse.py", {"sp_src": "gdsc", "sp_loss": "logistic"}),
    ("app_pages/fdr.py", {}),
    ("app_pages/fdr.py", {"fdr_src": "truncexp"}),
    ("app_pages/audit.py", {"method": "sparse"}),
    ("app_pages/ledger.py", {}),
]

WIDGETS = ("select_slider", "selectbox", "radio", "number_input", "slider", "toggle", "multiselect")
TEXT_ELEMENTS = ("markdown", "caption", "info", "warning", "error", "success", "title", "header", "subheader")


def _open(page: str, params: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    unfold_settings(at)
    at.switch_page(page)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def _bound_keys(at: AppTest) -> set[str]:
    return {w.key for kind in WIDGETS for w in getattr(at, kind) if w.key}


def _plain(markdown: str) -> str:
    """What a reader sees of an escaped text (escapes and word joiners are invisible)."""
    return markdown.replace("\\", "").replace("\u2060", "")


def _rendered_text(at: AppTest) -> list[str]:
    texts = [e.value for kind in TEXT_ELEMENTS for e in getattr(at, kind)]
    return texts + [w.label for kind in WIDGETS for w in getattr(at, kind)]


@pytest.mark.parametrize("page, base", CONFIGS, ids=[f"{p.split('/')[-1][:-3]}-{i}" for i, (p, _) in enumerate(CONFIGS)])
def test_every_control_of_the_page_survives_hostile_links(page, base):
    clean = _open(page, base)
    assert not clean.exception, clean.exception
    keys = sorted(_bound_keys(clean) - set(base))
    assert keys, "no URL-bound control found"
    for shift in range(len(HOSTILE)):
        # every key gets every hostile value once; in one run the keys get different values
        params = dict(base) | {key: HOSTILE[(shift + j) % len(HOSTILE)] for j, key in enumerate(keys)}
        at = _open(page, params)
        assert not at.exception, (params, at.exception)
        for text in _rendered_text(at):
            assert "evil.example" not in text, text  # escaped as evil\.example: shown, never a link or image
            if "evil" in text:  # no autolink either: www., :// and @ are broken by an invisible word joiner
                assert "://" not in text and "www." not in text.lower() and "@" not in text.replace("\u2060@", ""), text
            assert len(text) < 5_000, text[:200]  # a note quotes a link's value cut short


def test_a_note_names_what_the_link_asked_for_as_literal_text():
    at = _open("app_pages/survival.py", {"sv_seed": "1e309", "eps": "[Click](https://evil.example)", "sv_R": "inf",
                                         "sv_cmp": "maybe", "sv_hor": "-5", "teach": "x" * 10_000})
    assert not at.exception
    assert at.number_input(key="sv_seed").value == 0 and at.select_slider(key="eps").value == 1.0
    assert at.number_input(key="sv_hor").value == 0.001 and at.toggle(key="sv_cmp").value is True
    notes = [c.value for c in at.caption if c.value.startswith("Link:")]
    assert any("'1e309' is not a usable number; showing the default 0" in _plain(n) for n in notes), notes
    assert any("'[Click](https://evil.example)' is not offered here" in _plain(n) for n in notes), notes
    assert any("asked for '-5'; the nearest value allowed here is 0.001" in _plain(n) for n in notes), notes
    assert "teach" not in at.query_params  # the unusable value is dropped from the URL


@pytest.mark.parametrize(
    "raw, lo, hi, integer, step, expected, noted",
    [
        ("7", 0, 10, True, None, 7, False),
        ("7.6", 0, 10, True, None, 8, True),  # fractional for a whole-number field: rounded, said
        ("-3", 0, 10, True, None, 0, True),
        ("1e999", 0, 10, True, None, 5, True),  # not finite: the default
        ("inf", 0.1, 100.0, False, None, 5, True),
        ("-inf", 0.1, 100.0, False, None, 5, True),
        ("nan", 0, 10, True, None, 5, True),
        ("", 0, 10, True, None, 5, True),
        ("9" * 10_000, 0, 10, True, None, 5, True),  # beyond any float: not a usable number
        ("٣", 0, 10, True, None, 3, False),  # Unicode digits are digits
        ("0.37", 0.05, 0.9, False, 0.05, 0.35, True),  # a slider: onto its steps
        (" 0.35 ", 0.05, 0.9, False, 0.05, 0.35, False),
    ],
)
def test_number_from_link_text(raw, lo, hi, integer, step, expected, noted):
    value, note = _number_from_text(raw, 5 if integer else 5.0, lo, hi, integer=integer, step=step)
    assert value == expected and isinstance(value, int) == integer and math.isfinite(value)
    assert (note is not None) == noted
    assert note is None or len(note) < 200


@pytest.mark.parametrize("raw, expected, noted", [("true", True, False), ("FALSE", False, False), ("1", False, True),
                                                  ("", False, True)])
def test_switch_from_link_text(raw, expected, noted):
    value, note = _bool_from_text(raw, False)
    assert value is expected and (note is not None) == noted


def test_choice_notes_quote_long_values_short():
    option, note = _option_from_text("y" * 10_000, ["a", "b"], "a")
    assert option == "a" and len(note) < 200


BROWSER_LINKS = [
    "/survival?eps=[Click to verify your account](https://evil.example/login)&sv_seed=1e309&sv_R=inf"
    "&sv_hor=www.evil.example&teach=![x](http://evil.example/pixel.png)",
    "/fdr?eps=![x](http://evil.example/pixel.png)&fdr_seed=inf&fdr_R=-1&fdr_T=1e999",
    "/sparse?eps=<img src=http://evil.example/p.png>&sp_s=1e309&sp_T2=-inf&sp_seed=nan&sp_sstar=2.5",
    "/regression?eps=[x](https://evil.example)&rg_seed=1e309&rg_d=1e999&rg_p1=0.37&rg_priors=maybe",
    "/audit?eps=[Click](https://evil.example)&runs=inf&method=%E2%9C%93&bug=1",
]


@pytest.mark.browser
def test_hostile_links_in_chromium_show_literal_notes_and_fetch_nothing(app_server, chromium_page, streamlit_idle,
                                                                         page_screenshot):
    page = chromium_page
    fetched = []
    page.on("request", lambda request: fetched.append(request.url) if "evil" in (urlparse(request.url).hostname or "")
            else None)
    for link in BROWSER_LINKS:
        page.goto(f"{app_server}{link}")
        streamlit_idle(page)
        page.get_by_text("Link:").first.wait_for()
        assert page.locator('[data-testid="stException"]').count() == 0, link
        targets = page.evaluate("() => [...document.querySelectorAll('a[href], img[src]')].map(e => e.href || e.src)")
        assert not [t for t in targets if "evil" in (urlparse(t).hostname or "")], link  # no link or image out
        assert "evil.example" in page.locator('[data-testid="stMain"]').inner_text(), link  # shown, as text
    page_screenshot(page, "hostile-link-audit")
    assert not fetched, fetched
