"""The ledger: composition, caps that refuse, content-keyed fingerprints."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.ledger import BudgetExceeded, Ledger, fingerprint, table_fingerprint
from dpcore.core.validation import read_csv


def test_basic_composition_per_dataset():
    ledger = Ledger()
    ledger.charge("a", "KM", 1.0, params={"grid": "months"})
    ledger.charge("a", "log-rank", 0.5, 1e-6)
    ledger.charge("b", "KM", 2.0)
    assert ledger.spent("a") == pytest.approx((1.5, 1e-6))
    assert ledger.spent("b") == pytest.approx((2.0, 0.0))
    assert [r.method for r in ledger.records("a")] == ["KM", "log-rank"]
    assert ledger.records("a")[0].params == {"grid": "months"}
    assert ledger.records("a")[0].time.endswith("+00:00")


def test_cap_refuses_a_release_that_would_exceed_it_and_records_nothing():
    ledger = Ledger()
    ledger.label("a", "Veteran (bundled)")
    ledger.set_budget("a", 2.0)
    ledger.charge("a", "KM", 1.5)
    with pytest.raises(BudgetExceeded, match=r"reads 1 person of Veteran \(bundled\).*the most-charged has ε = 0.5, "
                                             r"δ = 0 left"):
        ledger.charge("a", "KM", 1.0)
    assert ledger.spent("a") == (1.5, 0.0)
    ledger.charge("a", "KM", 0.5)  # exactly reaching the cap is allowed
    assert ledger.remaining("a") == pytest.approx((0.0, 0.0))


def test_delta_cap_is_enforced_too():
    ledger = Ledger()
    ledger.set_budget("a", 10.0, 1e-6)
    with pytest.raises(BudgetExceeded):
        ledger.charge("a", "sparse", 1.0, 1e-5)


def test_cap_below_spent_is_refused():
    ledger = Ledger()
    ledger.charge("a", "KM", 3.0)
    with pytest.raises(BudgetExceeded):
        ledger.set_budget("a", 2.0)


def test_parts_must_sum_to_total():
    ledger = Ledger()
    ledger.charge("a", "robust LR", 1.0, parts={"nxx": 0.35, "nxy": 0.6, "nyy": 0.05})
    with pytest.raises(ValueError, match="parts sum"):
        ledger.charge("a", "robust LR", 1.0, parts={"nxx": 0.5, "nxy": 0.6})


@pytest.mark.parametrize("eps", [0.0, -1.0, float("inf"), float("nan")])
def test_invalid_costs_refused(eps):
    with pytest.raises(ValueError):
        Ledger().charge("a", "x", eps)


@settings(max_examples=80, deadline=None)
@given(cap=st.floats(0.1, 10.0), costs=st.lists(st.floats(0.01, 3.0), max_size=30))
def test_spending_never_exceeds_cap_whatever_is_attempted(cap, costs):
    ledger = Ledger()
    ledger.set_budget("d", cap)
    accepted = []
    for c in costs:
        fits = sum(accepted) + c <= cap - 1e-9  # (a cost within rounding of the cap may go either way)
        try:
            ledger.charge("d", "m", c)
            accepted.append(c)
        except BudgetExceeded:
            assert not fits, "a release that fits under the cap was refused"
            continue
        assert sum(accepted) <= cap + 1e-9
    assert ledger.spent("d")[0] == pytest.approx(sum(accepted))
    assert ledger.spent("d")[0] <= cap + 1e-9


def test_fingerprint_is_content_keyed():
    a = np.arange(5.0)
    assert fingerprint(a) == fingerprint(a.copy())
    assert fingerprint(a) != fingerprint(a + 1)
    assert fingerprint(b"1,2\n") == fingerprint(b"1,2\n") != fingerprint(b"1,3\n")
    frame = pd.DataFrame({"t": [1, 2]})
    assert fingerprint(frame) == fingerprint(frame.copy())
    assert len(fingerprint("x")) == 16


def test_an_upload_re_saved_differently_keeps_its_fingerprint_and_budget():
    """Same table: BOM, CRLF, other column and row order, 2.50 for 2.5 → one budget; one changed cell → another."""
    original = table_fingerprint(read_csv(b"time,event,arm\n1,0,A\n2.5,1,B\n3,1,A\n"))
    resaved = table_fingerprint(read_csv(b"\xef\xbb\xbfarm,event,time\r\nA,1,3.0\r\nA,0,1\r\nB,1,2.50\r\n"))
    changed = table_fingerprint(read_csv(b"time,event,arm\n1,0,A\n2.5,1,B\n3,0,A\n"))
    assert original == resaved != changed
    # a duplicated row is a different data set (one more person), not the same one
    assert table_fingerprint(read_csv(b"time,event,arm\n1,0,A\n1,0,A\n2.5,1,B\n3,1,A\n")) != original


def test_summary_rows():
    ledger = Ledger()
    ledger.label("fp", "Gehan (bundled)")
    ledger.set_budget("fp", 5.0)
    ledger.charge("fp", "KM", 1.0)
    (row,) = ledger.summary()
    assert row["data set"] == "Gehan (bundled)" and row["releases"] == 1 and row["ε cap"] == 5.0


@pytest.mark.parametrize("epsilon, delta", [(0.0, 0.0), (-1.0, 0.0), (float("inf"), 0.0), (float("nan"), 0.0),
                                            (1.0, -1e-9), (1.0, 1.0)])
def test_a_cost_or_cap_outside_the_budget_space_is_refused_and_records_nothing(epsilon, delta):
    """ε must be positive and finite and δ in [0, 1), for a release, its check and a cap alike."""
    ledger = Ledger()
    for step in (lambda: ledger.check("a", epsilon, delta, method="KM"),
                 lambda: ledger.charge("a", "KM", epsilon, delta),
                 lambda: ledger.set_budget("a", epsilon, delta)):
        with pytest.raises(ValueError, match="needs a positive finite ε|needs 0 ≤ δ < 1"):
            step()
    assert ledger.records("a") == [] and ledger.spent("a") == pytest.approx((0.0, 0.0))


@settings(max_examples=40, deadline=None)
@given(costs=st.lists(st.tuples(st.sampled_from([0.0, 1e-7, 1e-6]), st.floats(0.05, 1.5)), max_size=12))
def test_the_tight_accountant_runs_only_where_basic_composition_would_refuse(costs):
    """A release that fits by basic composition of the proved (ε, δ) fits (the tight ε is the smallest proven, never
    above a basic sum that holds at the cap's δ), so the PLD is composed only for releases basic would refuse —
    and the verdict is the tight accountant's, exactly as when it always ran."""
    from unittest import mock

    from dpcore.ledger import rules

    ledger = Ledger()
    ledger.set_budget("d", 3.0, 1e-5)
    for delta, epsilon in costs:
        before = ledger.spent("d")
        basic_fits = before[0] + epsilon <= 3.0 + 1e-12 and before[1] + delta <= 1e-5 + 1e-15
        history = rules.chain(*(r.events for r in ledger.records("d")))
        tight_after = rules._tight_epsilon(history, Ledger.events_of("m", epsilon, delta, None, None), 1e-5)
        with mock.patch.object(rules, "_tight_epsilon", wraps=rules._tight_epsilon) as tight:
            try:
                ledger.charge("d", "m", epsilon, delta)
                accepted = True
            except BudgetExceeded:
                accepted = False
        assert accepted == (tight_after <= 3.0 + 1e-12)  # the tight verdict, as before the shortcut
        if basic_fits:
            assert accepted and tight.call_count == 0
