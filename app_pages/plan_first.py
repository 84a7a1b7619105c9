"""Plan first: a method's settings fixed on a simulated proxy before the private file is read.

Thin: the method's module in ui.plan_first draws its steps; dpcore.plan declares the facts, simulates the proxy and
reads the file at Release.
"""

from __future__ import annotations

import ui
from ui.plan_first import fdr, regression, sparse, survival

#: the methods with a plan-first path: URL value → (label, the module drawing its steps)
METHODS = {"survival": ("Survival curves", survival), "regression": ("Drug sensitivity (regression)", regression),
           "sparse": ("Sparse learning", sparse), "fdr": ("Online FDR", fdr)}

ui.page_header("Plan first: fix the settings without looking at the data",
               "Declare what the study design makes public, try the settings on simulated data, lock them, and only "
               "then let the release read your file.")
ui.what_this_page_shows(
    "**Why plan first.** A release's (ε, δ) is proved for settings that do not depend on the private rows. Settings "
    "tuned while watching previews of those rows can leak through the choice itself, and no audit can see it. Here "
    "every setting is fixed before your file is read, so each release made here is recorded as *fixed before the "
    "private rows were read*.")
method = ui.url_radio("Method", key="plan_method", options=list(METHODS), format_func=lambda m: METHODS[m][0],
                      horizontal=True)
METHODS[method][1].page()
