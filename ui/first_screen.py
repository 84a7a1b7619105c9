"""The first screen every method page shares: the question, ε beside the answer, and everything else folded.

A method page answers one question: what the private result looks like next to the non-private one at the ε
chosen. On a 1366×768 laptop the first screen holds, in this order and without scrolling:

1. the page title (``ui.page_header``) and a :func:`question_row`: the data set and the one or two controls
   that define the question (compare by, the drug, …);
2. the :func:`first_screen` columns, drawn inside the page's ε fragment: on the left the ε slider, the
   :func:`answer` line and the Release button; on the right the main figure, at most :data:`FIGURE_HEIGHT`
   px tall, with a legend in the words a clinician uses;
3. under them, folded, :func:`details_at_epsilon`: what was noised, the tables and notes at this ε, the notebook.

Expert settings go into one folded :class:`settings_group` whose label repeats their current values; prose and
formulas go into :func:`what_this_page_shows` (or teaching mode). Streamlit's own layout (columns,
expanders) only: no CSS, which breaks when Streamlit renames its classes. ``tests/app/test_first_screen_browser.py``
holds every method page to this at 1440×900 and 1366×768.
"""

from __future__ import annotations

import contextlib

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from ui.layout import explain, literal
from ui.widgets import FOLDED_NOTES, link_note, undrawn_within

#: The tallest main figure that still leaves half of it in the first 768 px under the title, the question row
#: and the view switch (measured in Chromium, ``tests/app/test_first_screen_browser.py``).
FIGURE_HEIGHT = 440
#: Widths of the controls column and the figure column of :func:`first_screen`.
FIRST_SCREEN_WIDTHS = (1.0, 2.3)
#: The separator between the values a settings label lists.
SEPARATOR = " · "


def question_row(*widths: float):
    """Columns for the data set and the controls that define the question, bottom-aligned so that a
    selectbox, a toggle and a radio of different heights line up. Page level (a change reruns the page)."""
    return st.columns(list(widths) or [2, 1], vertical_alignment="bottom")


def first_screen(widths: tuple[float, float] = FIRST_SCREEN_WIDTHS):
    """``(controls, figure)``: the ε slider, the answer and the Release button beside the main figure.

    Call it inside the page's ε fragment, which must draw into both columns (a fragment may not write into
    containers made outside it). The figure sits beside the slider, so a keyboard move of ε, which reruns
    the fragment, redraws the figure where the reader is already looking.
    """
    return st.columns(list(widths), gap="medium", vertical_alignment="top")


def answer(measure: str, private: str, nonprivate: str = "", *, verdict: str = "") -> None:
    """The one line a reader takes away: ``measure: private … · non-private …`` and an optional ``verdict``.

    e.g. "Median survival: private 11.8 months (95 % CI 9.6–14.1) · non-private 12.0 (10.6–13.4)". Without
    ``nonprivate`` (a measure that is itself a comparison, like the gap between the two) the private part alone.
    The parts are shown as typed (:func:`ui.layout.literal`): they may carry names read from data.
    """
    line = f"**{literal(measure)}:** private **{literal(private)}**" + (
        f" · non-private {literal(nonprivate)}" if nonprivate else "")
    st.markdown(line + (f"  \n{literal(verdict)}" if verdict else ""))


@contextlib.contextmanager
def _folded(label: str, key: str):
    """A folded expander whose URL-bound controls are drawn only while it is open: folded, they give the
    values they would show (:func:`ui.widgets.undrawn_within`), and opening it reruns to draw them.

    Streamlit names a stateful expander by its label too, so a new label (a setting just changed, listed in it) is
    a new expander, which starts folded unless told otherwise: it remembers whether it was open and starts there.
    A new expander is also mounted anew with all it holds: fine for a page-level group (a change reruns the page),
    too slow for a box whose sliders rerun only a fragment (docs/architecture.md)."""
    was_open = f"_{key}_open"
    box = st.expander(label, expanded=st.session_state.get(was_open, False), key=key, on_change="rerun")
    st.session_state[was_open] = bool(box.open)
    with box, (contextlib.nullcontext() if box.open else undrawn_within(box)):
        yield box


class settings_group:  # lower case: used like st.expander, ``with ui.settings_group(...) as settings:``
    """One folded expander of expert settings whose label lists their current values on one line.

    ``with settings_group("sv_settings") as settings:`` draw the widgets, and after each call
    ``settings.shows("Kaplan–Meier")`` (the value as a reader says it). The label must exist before the widgets
    inside it, so it repeats what the previous run showed; when that differs from what this run shows (the
    session's first run, a setting just changed, a value that follows ε) the page reruns once at the end of
    the block, before any heavy work below it, so the label is never stale. Page level only, not in a fragment.

    Folded, its URL-bound controls are not drawn (:func:`_folded`).
    """

    def __init__(self, key: str, title: str = "Settings") -> None:
        self._key, self._title, self._parts = key, title, []
        self._memory = f"_{key}_summary"
        self._folded = None

    def shows(self, text: str) -> None:
        """Add ``text`` to the label (shown as typed)."""
        self._parts.append(str(text))

    @property
    def summary(self) -> str:
        return SEPARATOR.join(self._parts)

    def _label(self, summary: str | None) -> str:
        return f"{self._title}: {literal(summary)}" if summary else self._title

    def __enter__(self) -> settings_group:
        self._shown = st.session_state.get(self._memory)
        self._folded = _folded(self._label(self._shown), self._key)
        self._folded.__enter__()
        st.session_state[FOLDED_NOTES] = []
        return self

    def __exit__(self, *exc) -> None:
        self._folded.__exit__(*exc)
        notes = st.session_state.pop(FOLDED_NOTES, None) or []
        for note in notes:  # a link's refused value, shown where the folded group cannot hide it
            link_note(note, where=f"under {self._title}")
        if exc[0] is None and self.summary != self._shown:
            st.session_state[self._memory] = self.summary
            st.rerun(scope="app")


#: the label of every method page's folded details at ε, under its first screen
DETAILS_LABEL = "Details at this ε: what was noised, tables, notebook and script"


def details_at_epsilon(key: str):
    """The details at this ε under the first screen: folded, and computed and sent only while open (``.open``).

    Every element of the ε fragment is resent and redrawn on each move of ε, and the browser's time grows with
    their number: the bare page plus 27 small elements (a heading, paragraphs, six folded boxes, a table, two
    inputs, a button) took a move 2× the bare page's time in Chromium. Folded, the details cost a move one
    element; opening them reruns the fragment to fill them, and later moves redraw them as the reader asked.
    Draw into it with ``if details.open:`` then ``with details:``. A widget drawn only in it is forgotten while it
    is folded unless it keeps its value (the ``ui.url_*`` controls do)."""
    return st.expander(DETAILS_LABEL, key=key, on_change="rerun", icon=":material/table_view:")


def what_this_page_shows(markdown: str) -> None:
    """The page's prose and formulas, folded under one title: the first screen keeps the answer only."""
    explain(markdown, title="What this page shows")


#: the plan-first page (settings fixed on a public proxy before the file is read); its ``plan_method`` picks the method
PLAN_FIRST_PAGE = "app_pages/plan_first.py"
PLAN_FIRST_LABEL = "Plan first: fix the settings on simulated data, then read your file"


def plan_first_link(method: str) -> None:
    """One click from a method page's first screen to its plan-first path: declare the public facts, explore on
    simulated data, lock the settings, and only then read the private file (its releases' settings are "fixed
    before the private rows were read"). A page run on its own, outside the app's navigation (as its AppTests run
    it), has no page to link to: it names the page instead."""
    try:
        st.page_link(PLAN_FIRST_PAGE, query_params={"plan_method": method}, label=PLAN_FIRST_LABEL,
                     icon=":material/lock_clock:")
    except StreamlitPageNotFoundError:
        st.caption(PLAN_FIRST_LABEL + ": the page “Plan first” in the navigation.")
