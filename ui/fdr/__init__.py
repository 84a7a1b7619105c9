"""The FDR page's sections (``app_pages/fdr.py`` arranges them): its controls, the views of its ε fragment, its
release panel and the shared caches of its simulations. The work is :mod:`dpcore.fdr.session`'s, the words
:mod:`dpcore.fdr.page_text`'s.

The page's fragments stay in the page file: ``ui.live_fragment`` releases the namespace of the function it wraps
when a session disconnects, which must be the page script's, never a module's.
"""

from ui.fdr import cached, controls, release_panel, views
from ui.fdr.release_panel import release

__all__ = ["cached", "controls", "release", "release_panel", "views"]
