"""Figures for a paper: PNG at 300 dpi for the stated print width, SVG and PDF, from the system Chromium; in the ZIP."""

from __future__ import annotations

import html
import io
import re
import struct
import zipfile
import zlib
from pathlib import Path
from unittest import mock

import numpy as np
import plotly.graph_objects as go
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from conftest import _skip_outside_ci
from dpcore.reporting import alt_text
from dpcore.core import datasets
from dpcore import notebooks
from dpcore.reporting import figure_export as fe
from dpcore import survival as sv
from dpcore.reporting.release_figures import figures_for
from tests.support.figure_cases import cases
from ui.exports import release_with_script

CASES = cases()


@pytest.fixture
def _chromium():
    if not Path(fe.chromium_path()).is_file():
        _skip_outside_ci(f"no Chromium at {fe.chromium_path()}")


needs_chromium = pytest.mark.usefixtures("_chromium")  # a skip outside CI, a failure under CI=true


def _png_chunks(png: bytes) -> dict[bytes, bytes]:
    chunks, at = {}, 8
    while at < len(png):
        (length,), kind = struct.unpack(">I", png[at:at + 4]), png[at + 4:at + 8]
        data = png[at + 8:at + 8 + length]
        assert struct.unpack(">I", png[at + 8 + length:at + 12 + length])[0] == zlib.crc32(kind + data)
        chunks.setdefault(kind, data)
        at += 12 + length
    return chunks


@pytest.fixture(scope="module")
def release():
    vet = datasets.load_survival("veteran")
    grid = sv.make_grid(vet.horizon, data_unit=vet.time_unit, grid_unit="months")
    return sv.release(vet.time, vet.event, grid=grid, epsilon=1.0, group=vet.group, groups=vet.groups,
                      dataset="Veteran (bundled)")


def test_print_sizing_is_300_dpi_at_the_stated_width():
    assert fe.print_scale() * fe.LAYOUT_WIDTH == fe.DPI * fe.PRINT_WIDTH_INCHES
    fig = fe.for_print(go.Figure(go.Scatter(y=[1, 2]), layout=dict(title="t", font=dict(size=9))))
    assert fig.layout.width == fe.LAYOUT_WIDTH and fig.layout.font.size >= fe.MIN_FONT  # 13 px = 9.4 pt in print
    assert fig.layout.title.font.size >= fe.TITLE_FONT


@needs_chromium
def test_every_release_figure_exports_as_png_svg_and_pdf(release):
    files = fe.export(figures_for(release))
    summaries = {fe.slug(name): alt_text.summary(fig) for name, fig in figures_for(release).items()}
    stems = {name.rsplit(".", 1)[0] for name in files}
    assert stems and {f"{s}.{fmt}" for s in stems for fmt in fe.FORMATS} == set(files)
    for name, data in files.items():
        if name.endswith(".png"):
            assert data[:8] == b"\x89PNG\r\n\x1a\n"
            chunks = _png_chunks(data)
            width, height = struct.unpack(">II", chunks[b"IHDR"][:8])
            assert width == round(fe.PRINT_WIDTH_INCHES * fe.DPI) and height > 1000
            x, y, unit = struct.unpack(">IIB", chunks[b"pHYs"])
            assert unit == 1 and round(x * 0.0254) == round(y * 0.0254) == fe.DPI
            assert chunks[b"iTXt"] == b"Description\0\0\0\0\0" + summaries[name[:-4]].encode()  # its alt text
        elif name.endswith(".svg"):
            assert b"<svg" in data[:200] and b"Differentially private" in data  # titles are text, not paths
            assert f"<title>{html.escape(summaries[name[:-4]])}</title>".encode() in data[:2000]
        else:
            assert data[:5] == b"%PDF-"


@needs_chromium
def test_the_release_zip_holds_the_figures_and_the_script(release):
    config = notebooks.SurvivalConfig(dataset="veteran", horizon=1000.0, grid_unit="months", epsilon=1.0, seed=0)
    bundle = release_with_script(release, config)
    archive = zipfile.ZipFile(io.BytesIO(bundle.to_zip()))
    names = set(archive.namelist())
    assert {"figures/kaplan-meier-dp.png", "figures/kaplan-meier-dp.svg", "figures/kaplan-meier-dp.pdf"} <= names
    # each figure's text alternative beside it: its summary, its plotted numbers and its numbers at risk
    figure = figures_for(release)["Kaplan–Meier (DP)"]
    assert archive.read("figures/kaplan-meier-dp.txt").decode() == alt_text.summary(figure) + "\n"
    assert {"figures/kaplan-meier-dp-plotted-values.csv", "figures/kaplan-meier-dp-number-at-risk-noisy-released.csv"} \
        <= names
    script = archive.read("reproduce.py").decode()
    assert "MAKE_RELEASE = False" in script and "EPSILON = 1.0" in script
    compile(script, "reproduce.py", "exec")


def test_without_chromium_the_message_says_what_to_install(monkeypatch, release):
    monkeypatch.setenv("DPCORE_CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(fe.ExportUnavailable, match="apt-get install chromium"):
        fe.export({"a figure": go.Figure()})
    archive = zipfile.ZipFile(io.BytesIO(release.to_zip()))  # the rest of the release is still exported
    assert "release.json" in archive.namelist()
    assert "apt-get install chromium" in archive.read("figures/README.txt").decode()


def test_png_dpi_chunk_is_valid_and_sits_after_the_header():
    one_pixel = (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
                 + _chunk(b"IDAT", zlib.compress(b"\x00\x00")) + _chunk(b"IEND", b""))
    out = fe.with_dpi(one_pixel, 300)
    assert out[33:37] == struct.pack(">I", 9) and out[37:41] == b"pHYs"
    assert np.isclose(struct.unpack(">I", _png_chunks(out)[b"pHYs"][:4])[0] * 0.0254, 300, atol=0.01)
    with pytest.raises(ValueError):
        fe.with_dpi(b"GIF89a")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


@needs_chromium
def test_the_release_panel_offers_each_figure_in_three_formats(tmp_path):
    """``ui.exports.figure_downloads``: one button per figure and format; a click renders that file."""
    page = tmp_path / "panel.py"
    page.write_text("import numpy as np\nfrom dpcore import survival as sv\nfrom dpcore.core import datasets\nfrom ui.exports import "
                    "figure_downloads\nvet = datasets.load_survival('gehan')\n"
                    "grid = sv.make_grid(vet.horizon, data_unit=vet.time_unit, grid_unit='weeks')\n"
                    "figure_downloads(sv.release(vet.time, vet.event, grid=grid, epsilon=1.0, dataset='Gehan'))\n")
    files = {}
    original = MediaFileManager.add_deferred

    def capture(self, data_callable, mimetype, coordinates, file_name=None, **kw):
        files[file_name] = data_callable
        return original(self, data_callable, mimetype, coordinates, file_name, **kw)

    at = AppTest.from_file(str(page), default_timeout=60)
    with mock.patch.object(MediaFileManager, "add_deferred", capture):
        at.run()
    assert not at.exception
    assert [b.label for b in at.get("download_button")] == ["PNG (300 dpi)", "SVG", "PDF"] * 2  # KM, Nelson–Aalen
    assert sorted(name.rsplit(".", 1)[1] for name in files) == ["pdf"] * 2 + ["png"] * 2 + ["svg"] * 2
    png = files[next(n for n in files if n.endswith(".png"))]()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and b"pHYs" in png[:64]


def test_a_title_too_long_for_the_print_width_is_wrapped_at_spaces():
    long = "Differentially private Kaplan–Meier (released) · log-rank p = 0.123 (noise-aware)"
    assert fe.wrap(long, 16) == ["Differentially private Kaplan–Meier (released) · log-rank p = 0.123", "(noise-aware)"]
    assert fe.wrap("short<br>second line", 16) == ["short", "second line"]
    printed = fe.for_print(go.Figure(layout=dict(title=long, height=500, margin=dict(t=100))))
    assert printed.layout.title.text.count("<br>") == 1
    assert printed.layout.margin.t > 100 and printed.layout.height > 500  # the second line gets its room


def _title_and_axis_texts(fig: go.Figure) -> list[tuple[str, float]]:
    """Every title line and axis title of a printed figure, with its font size."""
    layout = fig.layout
    out = [(line, layout.title.font.size) for line in (layout.title.text or "").split("<br>") if line]
    for name in [k for k in fig.to_dict()["layout"] if k.startswith(("xaxis", "yaxis"))]:
        axis = layout[name]
        if axis.title and axis.title.text and axis.domain in (None, (0, 1), [0, 1]):
            out.append((axis.title.text, layout.font.size or fe.MIN_FONT))
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_figure_fits_its_text_at_the_printed_size(case, release):
    """Titles and full-width axis titles of every figure at the size it is exported: no line longer than the
    printed width holds (Plotly neither wraps nor shortens them; they ran off the page)."""
    for fig in [CASES[case]()] + (list(figures_for(release).values()) if case == sorted(CASES)[0] else []):
        for text, size in _title_and_axis_texts(fe.for_print(fig)):
            width = len(re.sub(r"<[^>]+>", "", text)) * fe.CHAR_WIDTH_EM * size
            assert width <= fe.LAYOUT_WIDTH, f"{text!r} needs {width:.0f} px of {fe.LAYOUT_WIDTH}"
