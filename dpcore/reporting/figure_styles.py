"""What tells a figure's series apart besides colour: marker shapes, line styles, and words for an empty panel.

Readers in greyscale print, with a colour-vision deficiency or with a screen reader do not get meaning from colour
alone (WCAG 1.4.1): groups and methods carry a marker shape each, private and non-private a line style, and a
panel with nothing to mark says so. Re-exported by :mod:`dpcore.reporting.figures`, the shared look of every figure.
"""

from __future__ import annotations


#: Marker shapes that tell groups and methods apart without their colour (greyscale, colour-vision deficiency)
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "cross", "triangle-down", "star")
#: each of :data:`SYMBOLS` as a character, for legends drawn as text (:func:`dpcore.reporting.figures.text_legend`)
GLYPHS = ("●", "■", "◆", "▲", "✕", "✚", "▼", "★")
#: line styles that tell series apart without their colour, in order of use
DASHES = ("solid", "dot", "dash", "dashdot", "longdash", "longdashdot")


def series_marks(i: int, *, colour: str, hollow: bool = False, size: int = 7, shown: int = 12) -> dict:
    """Properties of a line that carries the ``i``-th marker shape (``hollow``: its open variant) at ``shown``
    evenly spaced points: series of different colours then differ in shape too, in the legend and on the curve."""
    symbol = SYMBOLS[i % len(SYMBOLS)] + ("-open" if hollow else "")
    return dict(mode="lines+markers", marker=dict(symbol=symbol, size=size, color=colour, maxdisplayed=shown))


def no_discoveries(fig, tested: int) -> None:
    """Say in words, over the plot, that a stream has no discovery: its panel would otherwise show no mark at all."""
    fig["layout"].setdefault("annotations", []).append(dict(
        text=f"No discoveries: none of the {tested:,} hypotheses was rejected.", xref="paper", yref="paper", x=0.5,
        y=0.5, xanchor="center", yanchor="middle", showarrow=False, font=dict(size=14),
        bgcolor="rgba(255,255,255,0.85)"))
