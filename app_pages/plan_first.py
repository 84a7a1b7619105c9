"""Plan-first survival curves: settings fixed on a simulated proxy before the private file is read.

Thin: ui.plan_first draws the four steps; dpcore.plan declares the facts, simulates the proxy and reads the file.
"""

from __future__ import annotations

import ui
from ui import plan_first as steps

ui.page_header("Plan first: survival curves without looking at the data",
               "Declare what the study design makes public, try the settings on simulated patients, lock them, and "
               "only then let the release read your file.")
ui.what_this_page_shows(
    "**Why plan first.** A release's (ε, δ) is proved for settings that do not depend on the private rows. Settings "
    "tuned while watching previews of those rows can leak through the choice itself, and no audit can see it. Here "
    "every setting is fixed before your file is read, so each release made here is recorded as *fixed before the "
    "private rows were read*.\n\n"
    "**The steps.** 1. Declare the public facts: the column names, the number of people (or a bound on it), the time "
    "unit, the planned follow-up (the horizon) and the groups as the design fixes them; and, for the proxy only, the "
    "expected median survival per group and share censored, from the protocol or the literature. 2. Explore: every "
    "figure of the survival page is drawn on a **proxy**, patients simulated from those facts and a public seed "
    "(exponential survival with the declared medians, exponential censoring at the declared share); nobody real is "
    "read and nothing is charged. 3. Lock ε, the estimator, the grid and the groups. 4. Upload the file: the uploader "
    "only holds it. Its bytes are read when you press Release, checked against the declared facts (a problem is "
    "named by column or row and charges nothing), and the release is charged to the people in it like every other "
    "release, with exactly the locked settings.\n\n"
    "**What the proxy cannot tell you.** How far the private curve lands from your patients' true curve depends on "
    "the real counts; the proxy shows it for patients like the declared ones. To explore on the real file instead, "
    "use the Survival curves page: its releases say which settings changed after its previews.")

facts = steps.declare_facts()
if facts is None:
    ui.note("Declare the facts above to see the figures on simulated patients.")
else:
    plan = steps.explore_and_lock(facts)
    if plan is not None:
        steps.release_step(plan)
