"""Black-box audits through the OpenDP release path: one per method, with the planted bug caught.

The preview audits (``tests/core/test_audit_scenarios.py``) run the NumPy samplers with 2·10⁵ seeded runs; these run
the same worst-case pairs with the noise drawn by the method's release code (OpenDP, seeded by the operating
system), so they use fewer runs and cannot be seeded.

False alarm: the audit's bound holds with confidence ``1 − 10⁻⁵`` (one-sided Clopper–Pearson bounds union-bounded
over every candidate event), so the correct mechanism is flagged with probability at most 10⁻⁵ per audit, 6·10⁻⁵
for the whole file. Misses: the bug's bound over 12 seeded preview audits of the same law and run count (mean, sd;
claim 1 unless stated): survival 1.785, 0.027; survival with Gaussian noise (σ × 0.25, claim (1, 10⁻⁶)) 1.481,
0.066; robust LR nxy 1.766, 0.026; AdaSSP λ_min 1.310, 0.054; peeling with
clipping skipped 5.524, 0.005; PAPRIKA at ε = 3 with 5 hypotheses 3.505, 0.092 (claim 3). The closest margin is
5.5 standard deviations (PAPRIKA), a miss probability of about 2·10⁻⁸ in the normal approximation.
"""

from __future__ import annotations

import pytest

from dpcore import registry
from dpcore.fdr.audit import svt_scenario
from dpcore.sparse.audit import AUDIT_DELTA
from dpcore.sparse.peeling_audit import peel_audit_scenarios

CONFIDENCE = 1 - 1e-5


def _scenario(method: str, name_start: str):
    return next(s for s in registry.audit_scenarios(method, 1.0) if s.name.startswith(name_start))


CASES = {
    "survival": (lambda: _scenario("survival", "record moved from the first"), 10_000),
    "survival-gaussian": (lambda: _scenario("survival", "record moved between groups, Gaussian"), 10_000),
    "regression": (lambda: _scenario("regression", "nxy release"), 10_000),
    "adassp": (lambda: _scenario("regression", "AdaSSP λ_min"), 20_000),
    "sparse": (lambda: peel_audit_scenarios(1.0, AUDIT_DELTA)[0], 5_000),  # the selection tipped; clipping skipped
    "fdr": (lambda: svt_scenario(3.0, m=5), 14_000),
}


@pytest.mark.parametrize("case", list(CASES))
def test_release_path_audit_passes_and_catches_the_planted_bug(case):
    make, runs = CASES[case]
    scenario = make()
    good, _, _ = scenario.run(runs, path="release", confidence=CONFIDENCE)
    assert not good.violation, good.describe()
    assert "OpenDP release path" in good.subject
    bad, _, _ = scenario.run(runs, planted_bug=True, path="release", confidence=CONFIDENCE)
    assert bad.violation, f"planted bug ({scenario.planted_bug_label}) not caught on the release path: {bad.describe()}"


def test_every_method_can_be_audited_on_the_release_path():
    for key in registry.METHODS:
        assert any(s.release_sampler is not None for s in registry.audit_scenarios(key, 1.0)), key
    preview_only = peel_audit_scenarios(1.0, AUDIT_DELTA)[2]  # the logistic fit: preview only
    with pytest.raises(ValueError, match="no release-path sampler"):
        preview_only.run(100, path="release")
