"""Readable by every reader, without a browser: contrast of the theme and the figures' colours, the release panel's
heading level, the focus sent back to the Release button, every chart with its alt text and its data box, and the
essential notes in the body colour. ``tests/app/test_accessibility_browser.py`` checks the pages in Chromium."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpcore.reporting import alt_text
from dpcore.reporting.figures import NONPRIVATE, PALETTE, PRIVATE, TRUTH, WARNING
from tests.support.figure_cases import cases
from tests.support.pages import toy_release_page

ROOT = Path(__file__).resolve().parents[2]
WHITE, SIDEBAR = "#ffffff", "#f0f2f6"  # Streamlit's page and sidebar backgrounds


def luminance(colour: str) -> float:
    channels = [int(colour.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two colours."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def tint(colour: str, background: str, alpha: float) -> str:
    """``colour`` at ``alpha`` over ``background``: a selected (10 %) or hovered (20 %) control's fill."""
    mix = [round(alpha * int(colour[i:i + 2], 16) + (1 - alpha) * int(background[i:i + 2], 16)) for i in (1, 3, 5)]
    return "#" + "".join(f"{c:02x}" for c in mix)


def test_contrast_is_what_wcag_says():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#1f6fd1", tint("#1f6fd1", WHITE, 0.2)) == pytest.approx(3.75, abs=0.01)  # the old primary


@pytest.mark.parametrize("background", [WHITE, SIDEBAR])
@pytest.mark.parametrize("alpha", [0.0, 0.1, 0.2])
def test_text_in_the_primary_colour_passes_aa_on_every_state(background, alpha):
    primary = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["theme"]["primaryColor"]
    assert contrast(primary, tint(primary, background, alpha) if alpha else background) >= 4.5


@pytest.mark.parametrize("colour", sorted({*PALETTE, PRIVATE, NONPRIVATE, TRUTH, WARNING}))
def test_every_curve_colour_stands_out_from_the_plot_at_3_to_1(colour):
    assert contrast(colour, WHITE) >= 3.0


def test_the_release_panel_heading_is_a_section_of_its_page():
    at = AppTest.from_function(toy_release_page, default_timeout=30).run()
    assert any(m.value.startswith("## Release\n") for m in at.markdown)
    assert not any(re.match(r"#{3,} Release", m.value) for m in at.markdown)


def _focus_targets(at: AppTest) -> list[str]:
    return [c.proto.json for c in at.get("bidi_component") if c.proto.component_name.endswith("dpcore_focus")]


@pytest.mark.parametrize("close", ["release_cancel_toy", "release_confirm_toy"])
def test_the_focus_returns_to_the_release_button_when_the_dialog_closes(close):
    at = AppTest.from_function(toy_release_page, default_timeout=30).run()
    assert not _focus_targets(at)  # nothing moves the focus on a plain run
    at.button(key="release_button_toy").click().run()
    assert not _focus_targets(at)  # nor while the dialog is open
    at.button(key=close).click().run()
    assert [json.loads(t) for t in _focus_targets(at)] == ["release_button_toy"]
    at.run()
    assert not _focus_targets(at)  # once only


def _chart_page():
    import streamlit as st  # noqa: F401  (AppTest runs this function's body as the page)

    from tests.support.figure_cases import cases as figure_cases
    from ui import chart, live_chart

    figures = figure_cases()
    chart(figures["figures.audit_figure"](), key="static")
    live_chart(figures["survival.headline_figure"](), key="live")


def test_every_chart_carries_its_summary_and_a_closed_figure_data_box():
    at = AppTest.from_function(_chart_page, default_timeout=60).run()
    figures = cases()
    (static,) = at.get("plotly_chart")
    assert static.proto.alt == alt_text.summary(figures["figures.audit_figure"]())
    (live,) = [c for c in at.get("bidi_component") if "live_chart" in c.proto.component_name]
    assert json.loads(json.loads(live.proto.json))["summary"] == alt_text.summary(figures["survival.headline_figure"]())
    boxes = [e for e in at.expander if e.label == "Figure data"]
    assert len(boxes) == 2 and not at.dataframe  # tables are built only when a box is opened


def test_the_preview_notice_is_in_the_body_colour_not_caption_grey():
    def page():
        from ui import preview_notice

        preview_notice()

    at = AppTest.from_function(page, default_timeout=30).run()
    assert not at.caption and at.markdown[0].value.startswith(":small[Preview: the noisy results")


def _look(trace: dict) -> tuple:
    """What tells a series apart besides its colour: kind, line style, marker shape, line weight, bar pattern."""
    line, marker = trace.get("line") or {}, trace.get("marker") or {}
    mode = str(trace.get("mode", "lines"))
    symbol = marker.get("symbol", "circle") if "markers" in mode else None
    width = line.get("width", 2)
    return (trace.get("type", "scatter"), line.get("dash", "solid") if "lines" in mode else None,
            tuple(symbol) if isinstance(symbol, (list, tuple)) else symbol,
            0 if width < 1 else 1 if width < 2.5 else 2, (marker.get("pattern") or {}).get("shape", ""))


@pytest.mark.parametrize("case", sorted(cases()))
def test_no_two_series_of_a_figure_differ_by_colour_alone(case):
    """In greyscale or with a colour-vision deficiency every named series of a panel still reads apart: two series
    drawn alike but for their colour fail (a series' faded tail, named after it, is the same series)."""
    traces = [t for t in cases()[case]().to_dict()["data"]
              if t.get("name") and t.get("type", "scatter") in ("scatter", "scattergl", "bar") and not t.get("fill")]
    looks: dict[tuple, set[str]] = {}
    for trace in traces:
        looks.setdefault((trace.get("xaxis", "x"), trace.get("yaxis", "y"), _look(trace)), set()).add(trace["name"])
    alike = [sorted(names) for names in looks.values()
             if len({n for n in names if not any(n != m and n.startswith(m) for m in names)}) > 1]
    assert not alike, alike
