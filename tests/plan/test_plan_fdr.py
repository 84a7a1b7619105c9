"""The online-FDR plan-first library: declared facts are checked by name, the proxy follows them, the uploaded stream
is read and checked only by ``read_private_fdr``, and a locked plan releases exactly its settings and η statement."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from dpcore import fdr
from dpcore import plan as pl
from dpcore.core.validation import InputError

RECORDS = 200
FACTS = pl.FdrFacts("p", 60, records=RECORDS, theta=0.75, label_column="gene")
STATED = replace(FACTS, eta_from="stated", eta=0.05, eta_confirmed=True)


def _pvalues(T: int = 50, seed: int = 3) -> np.ndarray:
    """Exact one-sided binomial p-values for RECORDS records per test (on the lattice the binomial η is proven for)."""
    rng = np.random.default_rng(seed)
    return fdr._binomial_tail_table(RECORDS)[rng.binomial(RECORDS, np.where(rng.random(T) < 0.2, 0.8, 0.5))]


def _csv(p: np.ndarray) -> bytes:
    return ("gene,p\n" + "\n".join(f"G{i},{v:.17g}" for i, v in enumerate(p)) + "\n").encode()


@pytest.mark.parametrize("change, words", [
    ({"p_column": " "}, "p-value column"),
    ({"label_column": "p"}, "both 'p'"),
    ({"hypotheses": 0}, "number of hypotheses"),
    ({"hypotheses": 100_001}, "number of hypotheses"),
    ({"eta_from": "paper"}, "the paper's η is for previews only"),
    ({"records": 5}, "records per test"),
    ({"theta": 0.5}, "design's alternative θ"),
    ({"theta": float("nan")}, "design's alternative θ"),
    ({"eta_from": "stated", "eta": 0.0, "eta_confirmed": True}, "stated η must be a positive"),
    ({"eta_from": "stated", "eta": 0.05}, "Tick the statement under the stated η"),
    ({"alpha": 1.0}, "target FDR α"),
    ({"signals": 1.5}, "share of true signals"),
    ({"signal_theta": 1.0}, "true signals' strength θ"),
    ({"seed": -1}, "proxy seed"),
])
def test_facts_refuse_what_cannot_be_used_naming_the_field(change, words):
    with pytest.raises(InputError) as err:
        replace(FACTS, **change)
    assert words in str(err.value), str(err.value)


@pytest.mark.parametrize("change, words", [
    ({"epsilon": 0.0}, "positive finite ε"), ({"epsilon": float("inf")}, "positive finite ε"), ({"delta": 0.0}, "0 < δ < 1"),
    ({"method": "SAFFRON"}, "method must be one of PAPRIKA"), ({"cutoff": 0}, "cutoff c"),
    ({"lam": 0.5}, "λ must be"), ({"gamma": "linear"}, "γ sequence"), ({"floor_exp": 0}, "floor's exponent"),
])
def test_plan_refuses_settings_naming_the_field(change, words):
    with pytest.raises(InputError) as err:
        replace(pl.FdrPlan(FACTS, 2.0), **change)
    assert words in str(err.value), str(err.value)


def test_a_stated_eta_needs_no_design_theta_and_its_floor_is_the_smallest():
    plan = pl.FdrPlan(replace(STATED, theta=0.2), 2.0, floor_exp=9)  # θ and the floor only matter for the binomial η
    assert plan.floor == fdr.P_FLOOR and plan.sensitivity().eta == 0.05 and plan.sensitivity().source == "stated"


def test_proxy_follows_the_declared_stream_signals_strength_and_seed():
    facts = replace(FACTS, hypotheses=20_000, signals=0.1, signal_theta=0.6)
    proxy = pl.simulate_fdr_proxy(facts, runs=3)
    assert proxy.pvalues.shape == (3, 20_000) and proxy.truth.shape == (3, 20_000)
    assert abs(proxy.truth.mean() - 0.1) < 0.006  # 0.1 ± ~3 standard errors (60,000 draws)
    assert fdr.on_binomial_lattice(proxy.pvalues.ravel(), RECORDS, fdr.P_FLOOR)[1] is None  # exact binomial tails
    weak = np.median(proxy.pvalues[proxy.truth])
    strong = pl.simulate_fdr_proxy(replace(facts, signal_theta=0.8), runs=3)
    assert np.median(strong.pvalues[strong.truth]) < weak < np.median(proxy.pvalues[~proxy.truth])
    assert np.array_equal(pl.simulate_fdr_proxy(facts, runs=3).pvalues, proxy.pvalues)  # a public seed
    assert not np.array_equal(pl.simulate_fdr_proxy(replace(facts, seed=1), runs=3).pvalues, proxy.pvalues)
    assert pl.simulate_fdr_proxy(replace(facts, signals=0.0)).truth.sum() == 0


def test_read_private_checks_the_stream_against_the_declared_facts():
    p = _pvalues()
    plan = pl.FdrPlan(FACTS, 2.0)
    stream = pl.read_private_fdr(_csv(p), "stream.csv", FACTS, floor=plan.floor)
    assert np.allclose(stream.pvalues, p, rtol=1e-15) and stream.hypotheses == 50 and stream.labels[7] == "G7"
    assert stream.label == "stream.csv (uploaded, plan first)" and stream.fingerprint
    with pytest.raises(InputError, match="Column 'gene' was declared but is not in stream.csv"):
        pl.read_private_fdr(b"p\n0.5\n0.25\n", "stream.csv", FACTS, floor=plan.floor)
    with pytest.raises(InputError, match=r"more rows than the declared 40 hypotheses \(row 42 onwards"):
        pl.read_private_fdr(_csv(p), "stream.csv", replace(FACTS, hypotheses=40), floor=plan.floor)
    wrong = p.copy()
    wrong[4] = 1.5
    with pytest.raises(InputError, match="Column 'p', row 6"):  # the header is row 1
        pl.read_private_fdr(_csv(wrong), "stream.csv", FACTS, floor=plan.floor)
    wrong[4] = 0.3  # in [0, 1] but no binomial tail value for 200 records: the binomial η is not proven for it
    with pytest.raises(InputError, match="Column 'p', row 6: p = 0.3 is not a one-sided binomial tail value"):
        pl.read_private_fdr(_csv(wrong), "stream.csv", FACTS, floor=plan.floor)
    assert pl.read_private_fdr(_csv(wrong), "stream.csv", STATED, floor=fdr.P_FLOOR).pvalues[4] == pytest.approx(0.3)
    repeated = np.full(50, p[0])  # rows are hypotheses, not people: identical rows are no problem
    assert pl.read_private_fdr(_csv(repeated).replace(b"G", b""), "s.csv", replace(FACTS, label_column=""),
                               floor=plan.floor).hypotheses == 50


def test_a_locked_plan_releases_exactly_its_settings_and_the_eta_statement():
    plan = pl.FdrPlan(FACTS, 3.0, 1e-4, "PAPRIKA AI", cutoff=20, lam=0.1, gamma="constant")
    stream = pl.read_private_fdr(_csv(_pvalues()), "stream.csv", FACTS, floor=plan.floor)
    bundle = plan.release(stream)
    sens = plan.sensitivity()
    assert plan.floor == fdr.design_floor(RECORDS, 0.75) and sens.source == "binomial"
    assert (bundle.method, bundle.epsilon, bundle.delta) == ("PAPRIKA AI", 3.0, 1e-4)
    assert bundle.public_params["eta"] == sens.eta and bundle.public_params["records_per_test"] == RECORDS
    assert bundle.public_params["cutoff"] == 20 and bundle.public_params["lam"] == 0.1
    assert bundle.public_params["p_value_floor"] == plan.floor and bundle.dataset == stream.label
    assert sens.basis in bundle.notes  # the η statement, as on the FDR page
    assert list(bundle.tables["rejections"]["label"][:2]) == ["G0", "G1"]
    assert plan.release_method == "PAPRIKA AI discovery list"
    assert plan.params(50) == {"alpha": 0.05, "eta": sens.eta, "eta_source": "binomial", "cutoff": 20, "lam": 0.1,
                                   "shift": fdr.STREAM, "gamma": "constant", "rule": "paper", "T": 50, "floor": plan.floor}
    config = plan.config()
    assert (config.source, config.p_col, config.eta_from, config.n_obs, config.epsilon) == (
        "upload", "p", "binomial", RECORDS, 3.0)
    assert 10.0 ** -config.floor_exp == plan.floor and config.method == "PAPRIKA AI"
    lower = replace(plan, floor_exp=plan.facts.design_floor_exp + 3)
    assert lower.floor < plan.floor and lower.sensitivity().eta > sens.eta and lower.config().floor_exp > 0
    stated = pl.FdrPlan(STATED, 2.0)
    notes = " ".join(stated.release(stream).notes)
    assert "rests on the user-stated η = 0.05" in notes and stated.params(50)["eta_source"] == "stated"
    assert stated.config().eta == 0.05 and stated.config().eta_from == "stated"
