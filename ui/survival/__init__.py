"""The survival page's sections (Streamlit): ``app_pages/survival.py`` arranges them, ``dpcore.survival.session``
computes what they show and ``dpcore.survival.page_text`` holds their prose.

The files, in the order the page draws them: ``question.py`` (the data and whether to compare groups),
``settings.py`` (the folded expert settings and the default grid), ``views.py`` (the views at ε), ``release.py``
(the notebook, the release panel and the attacker's view), ``trade_off.py`` (the trade-off over ε).

The page keeps its fragments (``ui.live_fragment``) itself: a fragment holds the namespace of the file that
defines it, and only a page's namespace may be emptied when its session disconnects.
"""

from ui.survival.question import compare_toggle, data_source, upload_columns
from ui.survival.release import release
from ui.survival.settings import Chosen, expert_settings, reset_for, rule_inputs
from ui.survival.trade_off import trade_off
from ui.survival.views import Place, groups, headline, over_draws, several_releases

__all__ = ["compare_toggle", "data_source", "upload_columns", "release", "Chosen", "expert_settings", "reset_for",
           "rule_inputs", "trade_off", "Place", "groups", "headline", "over_draws", "several_releases"]
