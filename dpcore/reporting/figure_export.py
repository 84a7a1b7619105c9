"""Figures for a paper: Plotly figures as PNG (300 dpi at a stated print width), SVG and PDF files.

Static export is Plotly's, through kaleido, which drives a Chromium browser. We point it at the system's
Chromium (``/usr/bin/chromium``, or ``DPCORE_CHROMIUM``) rather than letting kaleido look for or download
a Chrome of its own; without one, :class:`ExportUnavailable` says what to install instead of a stack trace.

Print sizing: a figure is laid out at :data:`LAYOUT_WIDTH` CSS pixels and printed :data:`PRINT_WIDTH_INCHES`
wide (a journal's full text width), so one CSS pixel is 0.01 inch and a 13 px label prints at 9.4 pt; PNGs
are rendered at ``scale = PRINT_WIDTH_INCHES · DPI / LAYOUT_WIDTH`` and say 300 dpi in their ``pHYs`` chunk.
"""

from __future__ import annotations

import asyncio
import html
import os
import re
import struct
import unicodedata
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Mapping, Sequence

import kaleido
import plotly.graph_objects as go

from dpcore.reporting import alt_text

DPI = 300
PRINT_WIDTH_INCHES = 7.0
LAYOUT_WIDTH = 700
#: smallest font in a printed figure (CSS px; 13 px prints at 9.4 pt at the width above), and a title's
MIN_FONT, TITLE_FONT = 13, 16
FORMATS = {"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf"}
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_TAGS = re.compile(r"<[^>]+>")
_END_OF_HEADER = 8 + 4 + 4 + 13 + 4  # signature, then the header chunk: length, type, data, CRC


class ExportUnavailable(RuntimeError):
    """Figure files cannot be made here (no browser, or the browser failed); the message says what to do."""


def chromium_path() -> str:
    """The browser kaleido drives: ``DPCORE_CHROMIUM`` or Debian's ``/usr/bin/chromium``."""
    return os.environ.get("DPCORE_CHROMIUM", "/usr/bin/chromium")


def print_scale() -> float:
    """Kaleido's ``scale`` for :data:`DPI` at :data:`PRINT_WIDTH_INCHES` (3.0 for 700 px laid out, 2100 px out)."""
    return PRINT_WIDTH_INCHES * DPI / LAYOUT_WIDTH


def for_print(fig: go.Figure) -> go.Figure:
    """A copy laid out for paper: the print width, white background, no font smaller than :data:`MIN_FONT`."""
    out = go.Figure(fig)
    layout = out.layout
    size = max(MIN_FONT, (layout.font.size or 12) if layout.font else 12)
    out.update_layout(width=LAYOUT_WIDTH, height=layout.height or 450, paper_bgcolor="white", plot_bgcolor="white",
                      font=dict(size=size), legend=dict(font=dict(size=size)))
    if layout.title and layout.title.text:
        title_size = max(TITLE_FONT, layout.title.font.size or 0)
        lines = wrap(layout.title.text, title_size)
        extra = (len(lines) - len(layout.title.text.split("<br>"))) * round(1.3 * title_size)  # room for the lines
        margin_top = (layout.margin.t if layout.margin.t is not None else 100) + extra
        out.update_layout(title=dict(text="<br>".join(lines), font=dict(size=title_size), xref="paper", x=0),
                          margin=dict(t=margin_top), height=out.layout.height + extra)
    for annotation in out.layout.annotations:  # subplot titles and labels
        annotation.font.size = max(MIN_FONT, annotation.font.size or 0)
    return out


#: width of an average character in ems (Open Sans and DejaVu Sans set ordinary text narrower)
CHAR_WIDTH_EM = 0.6


def wrap(text: str, size: float, width: float = LAYOUT_WIDTH - 40) -> list[str]:
    """``text`` (a title: lines split at ``<br>``) broken at spaces into lines that fit ``width`` pixels at font
    ``size``: Plotly never wraps a title, so a long one ran off the printed figure ("noise-aw…")."""
    fits = max(10, int(width / (CHAR_WIDTH_EM * size)))
    out = []
    for line in text.split("<br>"):
        words, current = line.split(" "), ""
        for word in words:
            if current and len(_TAGS.sub("", current + " " + word)) > fits:
                out.append(current)
                current = word
            else:
                current = f"{current} {word}" if current else word
        out.append(current)
    return out


def slug(name: str) -> str:
    """A file name from a figure's (fixed) name: ASCII letters, digits and hyphens only."""
    text = "".join(ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch)).lower()
    return "-".join(filter(None, re.split(r"[^a-z0-9]+", text))) or "figure"


def _chunk(kind: bytes, body: bytes) -> bytes:
    """A PNG chunk: length, type, data, CRC of type and data."""
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _after_header(png: bytes, chunk: bytes) -> bytes:
    """``png`` with ``chunk`` inserted right after its header chunk."""
    if png[:8] != _PNG_SIGNATURE or png[12:16] != b"IHDR":
        raise ValueError("not a PNG file")
    return png[:_END_OF_HEADER] + chunk + png[_END_OF_HEADER:]


def with_dpi(png: bytes, dpi: int = DPI) -> bytes:
    """``png`` with a ``pHYs`` chunk saying ``dpi`` (Chromium writes none), right after the header chunk."""
    per_metre = round(dpi / 0.0254)
    chunk = _chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1))
    return _after_header(png, chunk)


def with_description(png: bytes, text: str) -> bytes:
    """``png`` with an international text chunk ``Description`` holding ``text`` (the figure's one-line summary, for
    readers and tools that cannot see the image), right after the header chunk."""
    body = b"Description\0" + b"\0\0" + b"\0" + b"\0" + text.encode("utf-8")  # uncompressed, no language
    return _after_header(png, _chunk(b"iTXt", body))


def with_title(svg: bytes, text: str) -> bytes:
    """``svg`` with a ``<title>`` (its accessible name: the figure's one-line summary) as the root's first child."""
    start = svg.find(b"<svg")
    end = svg.find(b">", start) + 1
    if start < 0 or end <= 0:
        raise ValueError("not an SVG file")
    return svg[:end] + f"<title>{html.escape(text)}</title>".encode() + svg[end:]


async def _render(figures: Sequence[tuple[str, go.Figure]], formats: Sequence[str]) -> dict[str, bytes]:
    out = {}
    async with kaleido.Kaleido(n=1, path=chromium_path(), mathjax=False) as browser:
        for name, fig in figures:
            printed = for_print(fig)
            for fmt in formats:
                opts = dict(format=fmt, width=LAYOUT_WIDTH, height=printed.layout.height,
                            scale=print_scale() if fmt == "png" else 1)
                data = await browser.calc_fig(printed, opts=opts)
                if fmt == "png":
                    data = with_dpi(with_description(data, alt_text.summary(fig)))  # pHYs first after the header
                elif fmt == "svg":
                    data = with_title(data, alt_text.summary(fig))
                out[f"{name}.{fmt}"] = data
    return out


def export(figures: Mapping[str, go.Figure], formats: Sequence[str] = tuple(FORMATS)) -> dict[str, bytes]:
    """``{"<slug>.<format>": bytes}`` for every figure and format, rendered by one browser.

    Runs in a worker thread with its own event loop, so it works from a page, a script or a notebook (whose
    loop is already running). Raises :class:`ExportUnavailable` with a plain message when it cannot.
    """
    unknown = set(formats) - set(FORMATS)
    if unknown:
        raise ValueError(f"unknown figure formats {sorted(unknown)}; offered: {list(FORMATS)}")
    if not figures:
        return {}
    path = chromium_path()
    if not Path(path).is_file():
        raise ExportUnavailable(f"Figure files need the Chromium browser at {path} (Debian: apt-get install "
                                "chromium), or DPCORE_CHROMIUM naming another Chrome or Chromium.")
    named = [(slug(name), fig) for name, fig in figures.items()]
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, _render(named, formats)).result()
    except Exception as err:  # kaleido and the browser fail in many ways: say so in one line
        raise ExportUnavailable(f"Chromium at {path} could not draw the figures ({type(err).__name__}: "
                                f"{str(err).splitlines()[0] if str(err) else 'no detail'}).") from err
