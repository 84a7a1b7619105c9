"""Spend in plain words: one number to check against the cap, the releases' ε added up beside it where it differs."""

from dpcore.ledger import Budget, Ledger
from dpcore.ledger.records import SPEND_EXPLAINED, spend_in_words


def _most(ledger: Ledger, key: str):
    cap = ledger.budget(key)
    return ledger.most_charged(ledger.standing(key).groups, cap)


def test_one_release_leads_with_the_figure_the_cap_checks_and_gives_the_sum_beside_it():
    ledger = Ledger(default_cap=Budget(10.0, 1e-3))
    ledger.charge("cohort", "DP survival analysis", 1.0, params={"noise_kind": "discrete_laplace"})
    words = spend_in_words(_most(ledger, "cohort"))
    assert words.startswith("ε 0.99") and words.endswith("of 10 (their ε add up to 1)"), words
    assert "tight" not in words and "basic" not in words


def test_a_sum_alone_reads_as_one_number_against_the_cap():
    ledger = Ledger(default_cap=Budget(2.0, 0.0))  # no δ: the cap is checked on the sum
    ledger.charge("cohort", "KM", 0.5)
    ledger.charge("cohort", "KM", 0.75)
    assert spend_in_words(_most(ledger, "cohort")) == "ε 1.25 of 2"


def test_the_explanation_is_one_plain_sentence_pair_without_jargon_first():
    assert SPEND_EXPLAINED.startswith("Spend is the number the cap is checked on")
    assert "never more than the releases' ε added up" in SPEND_EXPLAINED
