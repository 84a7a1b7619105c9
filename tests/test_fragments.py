"""ui.fragments: a session's page namespaces are emptied when Streamlit releases the session's resources."""

from __future__ import annotations

import numpy as np

from ui.fragments import PageNamespaces


def test_release_empties_every_tracked_page_namespace_and_forgets_them():
    held = PageNamespaces()
    survival = {"__file__": "app_pages/survival.py", "counts": np.zeros(10**6)}
    sparse_old = {"__file__": "app_pages/sparse.py", "data": np.zeros(10**6)}
    sparse_new = {"__file__": "app_pages/sparse.py", "data": np.ones(10)}
    for namespace in (survival, sparse_old, sparse_new):
        held.track(namespace)
    held.release()
    assert survival == {} and sparse_new == {}
    assert sparse_old["data"].size == 10**6  # a page's older run was replaced by its newer one, not kept
    held.release()  # nothing left to release
