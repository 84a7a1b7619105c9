"""The FDR page's session without Streamlit (``dpcore.fdr.session``): its named seed streams (the page's and the
notebook's numbers), the work behind the views, the sentences and the release's blockers."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dpcore import fdr, notebooks
from dpcore.fdr import session
from dpcore.notebooks.fdr import FdrConfig, page_config


def _simulated(**changes) -> session.Page:
    """A small Bernoulli page at the releasable configuration's η (exact, at the design floor)."""
    page = session.Page(source="bernoulli", runs=6, T=200, seed=3, label="Simulated", fingerprint="fp", n_obs=1000,
                        pi1=0.05, theta=0.75, eta_how="binomial",
                        sens=fdr.binomial_sensitivity(1000, fdr.design_floor(1000, 0.75)))
    streams = session.simulated_streams(*page.design())
    page.p_runs, page.truth_runs = streams.pvalues, streams.truth
    return dataclasses.replace(page, **changes)


def _settings(page: session.Page, **changes) -> fdr.Settings:
    return fdr.Settings(eta=page.sens.eta, floor=page.sens.floor, shift=fdr.STREAM, **changes)


# ---- seed streams ------------------------------------------------------------------------------------------------


def test_seed_streams_keep_the_offsets_the_page_always_used():
    """Old links keep their previews: each named use draws from the seed plus the offset it had when numbered."""
    assert {name: session.stream(10, name) for name in session.SEED_STREAMS} == {
        "streams": 10, "frontier": 10, "summary": 11, "pi1 sweep": 12, "eps sweep": 13, "shift cost": 14,
        "one stream": 15}
    preview = {name: offset for name, offset in session.SEED_STREAMS.items() if name not in ("streams", "frontier")}
    assert len(set(preview.values())) == len(preview) and 0 not in preview.values()  # no two preview uses share draws
    with pytest.raises(KeyError):
        session.stream(0, "utility")  # a name is defined once, in SEED_STREAMS


def test_the_notebook_seeds_each_use_from_the_same_named_stream(monkeypatch):
    config = FdrConfig(source="bernoulli", epsilon=5.0, seed=2, truth_col="truth")
    code = "\n".join(c.code for c in notebooks.fdr.cells(config))
    assert "rng=np.random.default_rng(SEED + 5)" in code and "rng = np.random.default_rng(SEED + 3)" in code
    assert "theta=0.75, seed=SEED)" in code
    # the generator reads the names: moving a stream moves the notebook's seed with it
    monkeypatch.setitem(session.SEED_STREAMS, "one stream", 9)
    code = "\n".join(c.code for c in notebooks.fdr.cells(config))
    assert "default_rng(SEED + 9)" in code and "default_rng(SEED + 5)" not in code


def test_the_one_stream_is_the_notebooks_draw():
    page = _simulated()
    s = _settings(page, epsilon=7.0)
    one, base = session.one_stream(page.p_runs, s, "PAPRIKA", page.seed)
    again = fdr.run_method("PAPRIKA", page.p_runs[:1], s, rng=np.random.default_rng(page.seed + 5),
                           keep_threshold=True).squeeze()
    np.testing.assert_array_equal(one.noisy_logp, again.noisy_logp)  # the same noise draws
    np.testing.assert_array_equal(one.rejections, again.rejections)
    assert base.method == "SAFFRON" and one.rejections.shape == (page.T,)
    assert session.one_stream(page.p_runs, s, "PAPRIKA AI", page.seed)[1].method == "SAFFRON AI"


# ---- the work behind the views -------------------------------------------------------------------------------------


def test_the_summary_in_one_call_equals_each_method_run_alone():
    """An upload's summary used to run the six methods one by one: one kernel call gives the same table."""
    page = _simulated()
    s = fdr.Settings(eta=fdr.eta_paper(1000), epsilon=1.0)  # the paper's η and shift: noisy enough to tell draws apart
    rng = np.random.default_rng(page.seed + 1)
    alone = fdr.summary_table([fdr.run_method(m, page.p_runs, s, rng=rng) for m in fdr.METHODS], page.truth_runs)
    together = session.summary(page.p_runs, page.truth_runs, s, page.seed)
    assert together.equals(alone)
    assert list(together["method"]) == list(fdr.METHODS)


def test_discovery_counts_summarise_each_method_over_the_runs():
    page = _simulated()
    counts = session.discovery_counts(page.p_runs, _settings(page), page.seed)
    assert list(counts.columns) == list(fdr.METHODS) and list(counts.index) == ["mean", "5 %", "95 %"]
    assert ((counts.loc["5 %"] <= counts.loc["mean"]) & (counts.loc["mean"] <= counts.loc["95 %"])).all()


def test_the_eps_sweep_draws_the_private_curves_and_flat_non_private_lines():
    page = _simulated()
    table, curves = session.eps_sweep(page.p_runs, page.truth_runs, _settings(page), page.seed)
    assert [c.method for c in curves] == ["PAPRIKA", "PAPRIKA AI"]
    assert len(table) == len(session.EPS_GRID) * len(fdr.METHODS)
    for method, rows in table.groupby("method"):
        assert sorted(rows["x"]) == sorted(session.EPS_GRID)
        if method not in session.PRIVATE_METHODS:
            assert rows["power"].nunique() == 1 and rows["FDR"].nunique() == 1


def test_an_uploads_runs_are_bounded_and_its_stream_repeated():
    assert session.upload_runs(50, 1000) == 50
    assert session.upload_runs(100, 5000) == 50
    assert session.upload_runs(20, 200_000) == 2
    p, truth = np.array([0.01, 0.5, 0.2]), np.array([1, 0, 0])
    p_runs, truth_runs = session.stacked(p, truth, 4)
    assert p_runs.shape == truth_runs.shape == (4, 3) and p_runs.flags.writeable
    np.testing.assert_array_equal(p_runs[3], p)
    assert session.stacked(p, None, 2)[1] is None


# ---- tables and sentences ----------------------------------------------------------------------------------------


def test_cells_say_when_power_is_undefined():
    assert session.mean_se([0.5, np.nan], [0.01, np.nan]) == ["0.500 ± 0.010", "— (no true effects)"]


def test_discoveries_are_listed_by_label_and_counted_past_the_first_ones():
    labels = np.array([f"g{i}" for i in range(40)])
    assert session.labelled(np.zeros(40, bool), labels) == "none"
    hits = np.zeros(40, bool)
    hits[[1, 5]] = True
    assert session.labelled(hits, labels) == "t = 2 (g1), t = 6 (g5)"
    assert session.labelled(np.ones(40, bool), labels).endswith("t = 30 (g29) and 10 more")


def test_the_answer_line_follows_what_the_truth_labels_allow():
    page = _simulated()
    s = _settings(page, epsilon=20.0)
    one, base = session.one_stream(page.p_runs, s, "PAPRIKA", page.seed)
    blind = session.answer(one, base, None, page.T)
    assert blind.measure == "Discoveries in this stream (PAPRIKA vs SAFFRON)" and blind.verdict == ""
    assert blind.private == str(int(one.rejections.sum()))
    told = session.answer(one, base, page.truth_runs[0], page.T)
    assert told.measure == "Real effects found (power)" and "200 hypotheses" in told.verdict
    none = session.answer(one, base, np.zeros(page.T, int), page.T)
    assert none.verdict == "Power: — (no true effects)"


def test_the_noise_sentence_gives_the_scales_and_calls_a_vacuous_bound_so():
    s = fdr.Settings(epsilon=5.0, eta=fdr.eta_paper(1000), cutoff=40)
    said = session.noise_text(s, 800)
    assert "Laplace(1.33)" in said and "Laplace(2.66)" in said and "FDR ≤ α + δT = 0.25." in said
    assert "which is above 1 and so says nothing" in session.noise_text(dataclasses.replace(s, delta=1e-3), 1600)


def test_the_frontier_cell_is_found_only_on_the_grid():
    table = fdr.power_frontier(records=[1000, 5000], cutoffs=[40], epsilons=(1.0, 5.0), T=200, pi1=0.05, theta=0.75,
                               settings=fdr.Settings(), runs=4, seed=0)
    s = fdr.Settings(epsilon=5.0, cutoff=40)
    cell = session.frontier_cell(table, s, 5000)
    assert cell is not None and cell["records"] == 5000 and cell["epsilon"] == 5.0
    assert session.frontier_cell(table, s, 2000) is None
    assert session.frontier_shown(table, dataclasses.replace(s, cutoff=7), 5000) == (40, (5000, 5.0))
    assert session.frontier_shown(table, s, 2000) == (40, None)
    assert session.frontier_text(table, s, "PAPRIKA", 5000).startswith("**Release path** (PAPRIKA ")


def test_the_paprika_label_reads_the_settings_the_controls_hold():
    assert session.paprika_summary({}.get) == (f"PAPRIKA · α = 0.05 · δ = 0.00025 · c = 40 · shift "
                                           f"{fdr.shift_label(fdr.STREAM)} · λ = 0.2 · paper rule")
    s = fdr.Settings(alpha=0.1, cutoff=20, shift=1.0, rule="code")
    shown = session.paprika_summary(session.settings_values(s, "PAPRIKA AI").get)
    assert shown.startswith("PAPRIKA AI · α = 0.1 ·") and "c = 20" in shown and shown.endswith("code rule")


# ---- the release -------------------------------------------------------------------------------------------------


def _quoted(text: str) -> str:
    return f"<{text}>"


def test_the_releasable_configuration_has_no_blocker_and_each_gap_is_named():
    page = _simulated()
    s = _settings(page)
    assert session.release_blockers(page, s, _quoted) == []
    assert session.release_params(page, s)["shift"] == fdr.STREAM
    (shift,) = session.release_blockers(page, dataclasses.replace(s, shift=1.0), _quoted)
    assert shift.startswith("Set the shift to")
    trunc = dataclasses.replace(page, source="truncexp", sens=fdr.paper_sensitivity(1000))
    assert session.release_blockers(trunc, s, _quoted) == [
        "No η is proven for the truncated-exponential z-test here, so this simulation can be previewed but not "
        "released."]
    upload = dataclasses.replace(page, source="upload", eta_how="stated", sens=fdr.stated_sensitivity(0.1),
                                 eta_confirmed=False, lattice_problem="Row 2 is off the lattice.")
    reasons = session.release_blockers(upload, s, _quoted)
    assert reasons[0].startswith("Tick the box under the stated η")
    assert reasons[1] == "<Row 2 is off the lattice. Choose 'a value I state' for η to release these p-values.>"
    assert reasons[2].startswith("Name the cohort")
    assert session.release_blockers(dataclasses.replace(upload, eta_confirmed=True, lattice_problem=None,
                                                        cohort=object()), s, _quoted) == []


def test_the_utility_note_reads_the_summary_of_the_released_method():
    page = _simulated()
    s = _settings(page)
    table = session.summary(page.p_runs, page.truth_runs, s, page.seed)
    note = session.utility_note(table, s, "PAPRIKA AI", page)
    assert note.startswith("PAPRIKA AI at ε = 5 over 6 simulated streams: FDR ")
    assert session.utility_note(None, s, "PAPRIKA", page) == ""


def test_the_notebook_config_carries_the_pages_public_settings_only():
    page = _simulated()
    s = _settings(page, epsilon=3.0)
    config = page_config(page, s, "PAPRIKA")
    assert (config.source, config.runs, config.T, config.seed, config.epsilon) == ("bernoulli", 6, 200, 3, 3.0)
    assert config.floor_exp == round(-np.log10(page.sens.floor)) and config.sweep == session.EPS_GRID
    upload = dataclasses.replace(page, source="upload", pcol="p", tcol="(none)", eta_how="stated",
                                 sens=fdr.stated_sensitivity(0.05), p=page.p_runs[0])
    config = page_config(upload, dataclasses.replace(s, eta=0.05), "PAPRIKA AI")
    assert (config.p_col, config.truth_col, config.eta_from, config.eta) == ("p", None, "stated", 0.05)
