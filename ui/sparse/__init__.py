"""The Sparse page's sections (``app_pages/sparse.py`` arranges them): what it computes lives in
:mod:`dpcore.sparse.session`, what it says in :mod:`dpcore.sparse.page_text`.

1. ``cached.py`` — the data and the previews on public inputs, cached across sessions and computed ahead;
2. ``controls.py`` — the question row, the data and the folded settings, at page level (→ ``Setup``);
3. ``views.py`` — the live part in the ε fragment: ε and the preview's noise, the answer, the four views.
"""

from ui.sparse.cached import fits, prefetch
from ui.sparse.controls import controls
from ui.sparse.views import answer, live_controls, noised, notebook_config, views

__all__ = ["answer", "controls", "fits", "live_controls", "noised", "notebook_config", "prefetch", "views"]
