"""Page furniture shared by every page: header, explanations, teaching notes."""

from __future__ import annotations

import re

import streamlit as st

TEACHING_KEY = "teach"
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$])")


_WORD_JOINER = "\u2060"
_AUTOLINK = re.compile(r"(?i)(?<=www)(?=\.)|(?=@)")  # "://" is broken at its colon below
#: Streamlit's colon codes (``:red[…]``, ``:material/warning:``, ``:smile:``, ``:+1:``) start with a colon that
#: is followed by a character; a colon before a space or the end ("A: the stream") starts none and stays as typed
_COLON = re.compile(r":(?=\S)")


def literal(text: str) -> str:
    """``text`` shown as typed by st.markdown/caption/error/…: for names and values from links and uploads.

    Markdown characters are escaped, and an invisible word joiner breaks the ``www.``, ``://`` and ``@``
    that GitHub-flavoured Markdown would turn into links even when escaped, and follows every colon that could
    open one of Streamlit's colour, icon and emoji codes (``:red[…]``, ``:material/warning:``, ``:smile:``), so
    that they stay text.
    """
    text = _COLON.sub(":" + _WORD_JOINER, _AUTOLINK.sub(_WORD_JOINER, str(text)))
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def page_header(title: str, subtitle: str = "") -> None:
    st.title(title)
    if subtitle:
        st.caption(subtitle)


def note(markdown: str, *, into=None) -> None:
    """Text a reader needs (a colour key, where the data come from, the unit of privacy, a ledger's standing), set
    small but in the body's colour: ``st.caption``'s grey is 3.8:1 on white, below the 4.5:1 WCAG AA asks of text.
    ``markdown`` is one paragraph; names from links and uploads go through :func:`literal`. ``into``: a container
    drawn earlier (default: here)."""
    (into or st).markdown(f":small[{markdown}]")


def explain(markdown: str, *, title: str = "How this works", expanded: bool = False) -> None:
    """Plain-language explanation in a collapsible box whose text is sent only while it is open.

    Every element of a fragment is resent and redrawn on each slider move (``bench/bench_pages.py``), so a
    collapsed box sends its title alone; opening it reruns the enclosing fragment (or page) to fill it. The
    title is the box's identity: unique on its page.
    """
    with st.expander(title, expanded=expanded, key=f"explain {title}", on_change="rerun") as box:
        if box.open:
            st.markdown(markdown)


def teaching_mode() -> bool:
    return bool(st.session_state.get(TEACHING_KEY, False))


_INLINE_STEP = re.compile(r"(?<=[.!?)])\s+(?=\d{1,2}\.\s)")


def teaching(markdown: str) -> None:
    """A step-by-step note shown beside a figure only when teaching mode is on.

    Notes written as "1. … 2. … 3. …" in one paragraph are split into a numbered list (markdown only
    starts a new item on a new line).
    """
    if teaching_mode():
        if markdown.startswith("1. "):
            markdown = _INLINE_STEP.sub("\n", markdown)
        st.info(markdown, icon=":material/school:")


def preview_notice(views: str = "") -> None:
    """What a preview is, and ``views`` (how the page's view tabs are drawn), as one caption.

    Drawn once above a page's ε fragment, not in it: fixed text inside a fragment is resent and redrawn on
    every move of its sliders.
    """
    note(
        "Preview: the noisy results on this page are simulated in your browser session with a seeded generator to "
        "show what a release *would* look like; nothing is charged. The charts' and tables' own download buttons "
        "save a preview for your own review as the data's custodian only: a preview shows non-private values and "
        "must not be shared. Only the Release button makes a real, charged release that may leave the session."
        + (f" {views}" if views else "")
    )
