"""Streamlit-side helpers shared by every page (dpcore itself never imports Streamlit)."""

from ui.cache import public_cache
from ui.cohort import cohort_behind_stream
from ui.data import UploadedTable, upload_csv
from ui.errors import show_errors
from ui.first_screen import (FIGURE_HEIGHT, answer, details_at_epsilon, first_screen, plan_first_link,
                             question_row, settings_group, what_this_page_shows)
from ui.fragments import live_fragment, view_switch
from ui.chart import chart
from ui.live_chart import live_chart
from ui.prefetch import head_start, steps_around
from ui.layout import explain, literal, note, page_header, preview_notice, teaching, teaching_mode
from ui.release import records_read, release_panel
from ui.state import audits, current_dataset, get_ledger, release_notes, releases, session_id, session_memo, \
    set_current_dataset
from ui.widgets import (
    CONTROL_WIDTH,
    epsilon_slider,
    follow_default,
    held,
    kept_value,
    reset_when_changed,
    url_multiselect,
    url_number,
    url_radio,
    url_select_slider,
    url_selectbox,
    url_slider,
    url_text,
    url_toggle,
)

__all__ = [
    "FIGURE_HEIGHT", "answer", "details_at_epsilon", "first_screen", "plan_first_link", "question_row", "settings_group", "what_this_page_shows",
    "public_cache", "cohort_behind_stream", "UploadedTable", "upload_csv", "show_errors", "live_fragment", "view_switch", "chart", "live_chart", "head_start", "steps_around", "explain", "literal", "note", "page_header", "preview_notice", "teaching",
    "teaching_mode", "records_read", "release_panel", "audits", "current_dataset", "get_ledger", "release_notes", "releases",
    "session_id", "session_memo", "set_current_dataset",
    "CONTROL_WIDTH", "epsilon_slider", "follow_default", "held", "kept_value", "reset_when_changed", "url_multiselect", "url_number", "url_radio", "url_select_slider", "url_selectbox", "url_slider", "url_text", "url_toggle",
]
