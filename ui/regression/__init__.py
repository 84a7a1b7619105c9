"""The drug-sensitivity page's sections (``app_pages/regression.py`` arranges them): Streamlit code only, the
computation in :mod:`dpcore.regression.session` and the prose in :mod:`dpcore.regression.page_text`.

- ``controls.py`` — the drug, an upload's columns and ranges, the expert settings;
- ``views.py`` — the thresholds at ε, the answer line and the preview's views;
- ``cv.py`` — the two views on the Monte-Carlo cross-validation;
- ``release.py`` — the details at ε and the release panel.

The page's fragments stay in the page: :func:`ui.live_fragment` releases its function's module namespace when the
session disconnects, which must be the page script's, never a shared module's.
"""

from ui.regression import controls, cv, release, views

__all__ = ["controls", "cv", "release", "views"]
