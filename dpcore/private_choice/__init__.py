"""Charged private choices of settings, each a release of its own with a proved cost: the smallest ε meeting a target (``selection.py``), clipping ranges and bounds by DP quantiles (``private_bounds.py``) and the survival grid (``grid_selection.py``).
"""

__all__: list[str] = []
