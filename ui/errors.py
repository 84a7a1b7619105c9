"""Turn expected failures into plain messages on the page (never a stack trace)."""

from __future__ import annotations

import contextlib
import logging

import streamlit as st

from dpcore.ledger import BudgetExceeded
from dpcore.core.validation import InputError
from ui.layout import literal

_log = logging.getLogger(__name__)


@contextlib.contextmanager
def show_errors(context: str = ""):
    """Show InputError / BudgetExceeded / ValueError as ``st.error``; hide anything else's details.

    Messages name columns and quote cells of uploaded files, so they are shown as literal text.

    Unexpected exceptions are logged by type only (never their message or
    arguments, which could contain uploaded values) and shown as a short
    apology. Streamlit's own control flow (``st.stop``, reruns) derives
    from ``BaseException`` and passes through untouched.
    """
    prefix = f"{literal(context)}: " if context else ""
    try:
        yield
    except BudgetExceeded as err:
        st.error(f"{prefix}{literal(err)}", icon=":material/lock:")
    except (InputError, ValueError) as err:
        st.error(f"{prefix}{literal(err)}", icon=":material/warning:")
    except Exception as err:  # noqa: BLE001 - last line of defence for the page
        _log.error("unexpected %s on a page", type(err).__name__)
        st.error(f"{prefix}Something went wrong ({type(err).__name__}). Nothing was released or charged.", icon=":material/warning:")
