"""Downloads that take the page elsewhere: its configuration as a notebook or a script, a release's figures as files.

Everything is built when clicked (deferred callables): a notebook is a few milliseconds, a figure file starts a
browser (about a second or three), and neither should be paid on every slider move.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import streamlit as st

from dpcore import notebooks
from dpcore.reporting.figure_export import DPI, FORMATS, PRINT_WIDTH_INCHES, chromium_path, export, slug
from dpcore.reporting.release_figures import figures_for
from ui.layout import literal

_LABELS = {"png": f"PNG ({DPI} dpi)", "svg": "SVG", "pdf": "PDF"}


def code_downloads(config: notebooks.Config) -> None:
    """"Download notebook (.ipynb)" and "Download script (.py)" of the page's current configuration.

    ``config`` holds public settings only (a bundled data set's name, or the user's column mapping; an upload's
    file is read from a path the user fills in, never embedded). The preview numbers the notebook prints are
    the page's: same calls, same seed.
    """
    stem = notebooks.file_stem(config)
    with st.container(horizontal=True, gap="small"):
        st.download_button("Download notebook (.ipynb)", lambda: notebooks.notebook(config), f"{stem}.ipynb",
                           mime="application/x-ipynb+json", key=f"dl_notebook_{stem}", on_click="ignore",
                           icon=":material/code:", help="This configuration as a Jupyter notebook on dpcore's API: "
                           "the same preview (same seed), its figures, and a release behind a switch that is off.")
        st.download_button("Download script (.py)", lambda: notebooks.script(config), f"{stem}.py",
                           mime="text/x-python", key=f"dl_script_{stem}", on_click="ignore", icon=":material/terminal:",
                           help="The same steps as a Python script (figures written to HTML files).")


def release_with_script(bundle, config: notebooks.Config):
    """``bundle`` carrying the script of the configuration that made it (``reproduce.py`` in its ZIP)."""
    return dataclasses.replace(bundle, script=notebooks.script(config))


def figure_downloads(bundle) -> None:
    """Each figure of a release as PNG (300 dpi), SVG and PDF, for a paper: the report's figures, drawn for print."""
    figures = figures_for(bundle)
    if not figures:
        return
    st.markdown(f"**Figures for a paper** (laid out {PRINT_WIDTH_INCHES:g} inches wide; PNG at {DPI} dpi)")
    if not Path(chromium_path()).is_file():
        st.info(f"Figure files need the Chromium browser on the server ({chromium_path()}); the report (HTML) has "
                "the figures meanwhile.", icon=":material/info:")
        return
    stem = bundle.file_stem()
    for i, (name, fig) in enumerate(figures.items()):
        with st.container(horizontal=True, gap="small", vertical_alignment="center"):
            st.caption(literal(name))
            for fmt in FORMATS:
                st.download_button(_LABELS[fmt], lambda f=fig, fmt=fmt: _file(f, fmt), f"{stem}-{slug(name)}.{fmt}",
                                   mime=FORMATS[fmt], key=f"dl_fig_{stem}_{i}_{fmt}", on_click="ignore")


def _file(fig, fmt: str) -> bytes:
    return next(iter(export({"figure": fig}, [fmt]).values()))
