"""Entry point: navigation, and the sidebar every page shares (data set, ledger, teaching mode).

The page scripts live in ``app_pages/``, not ``pages/``: a folder named ``pages`` next to the entry point switches
Streamlit into its legacy multipage mode, where a deep link such as ``/survival`` runs the page file without this
script (no navigation titles, sidebar ledger, teaching toggle or wide layout).
"""

from pathlib import Path

import streamlit as st

from dpcore.core.threads import bound_threads

# Before the pages' libraries load (their thread pools read their settings then), and on every run: numba's count
# is per thread, and each run is a thread of its own.
bound_threads()

from ui import current_dataset, get_ledger, session_id, url_toggle
from dpcore.access import CUSTODIAN, VISITOR
from dpcore.ledger.records import SPEND_EXPLAINED, spend_in_words
from ui.identity import account_panel, current_person
from ui.state import current_holding, forget_current_dataset, on_status_redraw, readable_scopes, standing_of
from ui.widgets import LINKED, forget_control
from ui.layout import TEACHING_KEY, literal, note

ROOT = Path(__file__).resolve().parent

# The favicon is a file served by this server: a ":material/…:" page icon makes every browser fetch it from a public
# font server, and a clinical tool on a hospital network must not call out (tests/app/test_offline_browser.py).
st.set_page_config(page_title="DP trade-offs for clinical data", page_icon=str(ROOT / "assets" / "favicon.png"),
                   layout="wide")

METHOD_PAGES = [
    ("app_pages/survival.py", "Survival curves", ":material/monitoring:", "survival"),
    ("app_pages/regression.py", "Drug sensitivity", ":material/medication:", "regression"),
    ("app_pages/sparse.py", "Sparse learning", ":material/scatter_plot:", "sparse"),
    ("app_pages/fdr.py", "Online FDR", ":material/rule:", "fdr"),
    ("app_pages/plan_first.py", "Plan first", ":material/lock_clock:", "plan-first"),
]
REVIEW_PAGES = [
    ("app_pages/audit.py", "Privacy audit", ":material/policy:", "audit"),
    ("app_pages/ledger.py", "Ledger & report", ":material/receipt_long:", "ledger"),
]


def _pages(specs):
    return [st.Page(str(ROOT / path), title=title, icon=icon, url_path=url) for path, title, icon, url in specs]


navigation = st.navigation(
    {
        "Overview": [st.Page(str(ROOT / "app_pages/home.py"), title="Home", icon=":material/home:", default=True)],
        "Methods": _pages(METHOD_PAGES),
        "Review": _pages(REVIEW_PAGES),
    }
)

# A keyboard user must see where they are: the slider thumb's own focus shadow is the primary colour at half
# strength (2.3:1 against white), under the 3:1 WCAG 1.4.11 asks of a focus indicator; this outline is 6.9:1.
st.html("<style>[data-testid='stSlider'] [data-focus-visible='true']{outline:3px solid #1558b0;outline-offset:3px}"
        "</style>")
account_panel()  # who is signed in (shared deployments); stops here for anyone not admitted
get_ledger()  # opened before any page: a refused ledger (a shared deployment without its secret) stops every page

with st.sidebar:
    url_toggle("Teaching mode", key=TEACHING_KEY, help="Show step-by-step explanations beside each figure.")
    status = st.empty()


def _session_status() -> None:
    """Current data set (and its most-charged person), and the ledger (every session) with this session's releases
    counted. Budgets are per person: each data set shows the most-charged person it has read, by the figure its cap
    is checked on (tight accounting where it applies) with basic composition beside it."""
    current = current_dataset()
    st.markdown("**Current data set**")
    note(literal(current[0]) if current else "none chosen yet")
    person = current_person()
    if person.role == VISITOR:  # nothing of anyone's ledger: not even that it is empty
        return
    ledger = get_ledger()
    holding = current_holding()
    if holding is not None and holding.nobody and person.role == CUSTODIAN:
        note("Simulated from a public seed: nobody real is read, so releases on it are recorded and charge "
                   "nobody.")
    elif holding is not None and person.role == CUSTODIAN:
        standing = standing_of(ledger, holding)
        most = ledger.most_charged(standing.groups, ledger.budget(holding.key))
        read = (f"{standing.seen:,} of its {standing.persons:,} people were read before" if standing.persons != 1
                else f"its one person was {'' if standing.seen else 'not '}read before")  # never "1 people"
        note(f"Its most-charged person has spent {spend_in_words(most)}; {read}.")
    st.markdown("**Privacy ledger (your data sets, all sessions)**" if person.role == CUSTODIAN
                else "**Privacy ledger (data sets granted to you)**", help=SPEND_EXPLAINED)
    summary = ledger.summary(session=session_id(), scopes=readable_scopes(person))
    if summary:
        for row in summary:
            mine = f" ({row['this session']} in this session)" if row["this session"] else ""
            also = "".join(f"  \nalso read as {literal(f)}" for f in row["also read as"])
            st.markdown(f"**{literal(row['data set'])}**{also}  \nmost-charged person: {spend_in_words(row)} spent · "
                        f"{row['releases']} release{'s' if row['releases'] != 1 else ''}{mine}")
    else:
        note("No release yet: previews are free, releases are charged here." if person.role == CUSTODIAN
                   else "No release on the data sets granted to you yet.")


# Each page opens at its own ε (its default, or a link's): the widget key "eps" is shared by every page (one URL
# parameter for links), so without this a value chosen on one page would carry over to the next, and into its
# Release button, depending on which pages were visited before.
if st.session_state.get("_page") != navigation.url_path:
    if "_page" in st.session_state:
        # an in-app link to a configuration (``ui.widgets.LINKED``, e.g. the attacker panel's) keeps the ε it
        # carries; any other ε left in the URL by a page switch is the previous page's
        linked = st.query_params.get("eps") if st.query_params.get(LINKED) == "1" else None
        forget_control("eps")
        if linked is not None:
            st.query_params["eps"] = linked
        forget_current_dataset()  # the sidebar names the data set of the page shown
    st.session_state["_page"] = navigation.url_path
    if LINKED in st.query_params:  # read once, on arrival
        del st.query_params[LINKED]

# Drawn before the page (kept when the page stops early with st.stop, which drops anything drawn after
# it) and again after it, replacing the first, so a release made in this run shows at once; an upload that fails
# redraws it at once (ui.data), before its page stops.


def _draw_status() -> None:
    with status.container():
        _session_status()


on_status_redraw(_draw_status)
_draw_status()
try:
    navigation.run()
finally:
    _draw_status()
