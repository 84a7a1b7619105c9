"""dpcore.sparse.session: what the Sparse page computes, without Streamlit — its seed streams (shared with the
notebook), the preview, the curves over ε, the release's terms and the sentences that report them."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore import notebooks
from dpcore import sparse as sp
from dpcore.notebooks import sparse as notebook
from dpcore.sparse import page_text, session
from dpcore.sparse.events import KT_PRIVATE_SUPPORT, PEELING
from ui.widgets import epsilon_options

pytestmark = pytest.mark.usefixtures("one_blas_thread")  # small mat-vecs

PARAMS = dict(K=1.0, r=5.0, B=3.0, lam_rule="balanced", c_lam=sp.SparseParams.c_lam, c1=sp.SparseParams.c1, T2=20,
              dp_T=10, m=60, intercept=True)


@pytest.fixture(scope="module")
def data() -> sp.SparseData:
    return sp.make_synthetic(120, 20, 3, loss="linear", noise=0.5, rng=np.random.default_rng(0))


def _setup(data, variant="peel", methods=("peel", "dp_ight")) -> session.Setup:
    return session.Setup(source="synthetic", loss="linear", data=data, public_key=("synthetic", 120, 20, 3, "linear",
                         0.5, 0), label="synthetic", fingerprint="fp", persons=None, records=None, s=3,
                         methods=methods, variant=variant, params=PARAMS)


def test_seed_streams_keep_the_offsets_every_link_was_made_with():
    """Links and notebooks made before the streams had names must still show the same preview."""
    assert [session.stream(7, name) for name in ("fits", "paths", "sweep")] == [7, 8, 9]
    with pytest.raises(KeyError):
        session.stream(7, "other")


def test_the_notebook_seeds_its_generators_by_the_pages_streams(monkeypatch):
    config = notebooks.SparseConfig(source="synthetic", loss="linear", sparsity=3, epsilon=1.0, delta=1e-6, seed=4,
                                    repeats=2, methods=("peel",), n=120, d=20)
    code = "\n".join(c.code for c in notebook.cells(config))
    assert "rng = np.random.default_rng(SEED)\n" in code and "rng=np.random.default_rng(SEED + 2)" in code
    monkeypatch.setitem(session.SEED_STREAMS, "sweep", 5)  # the generator reads the names, not its own numbers
    assert "rng=np.random.default_rng(SEED + 5)" in "\n".join(c.code for c in notebook.cells(config))
    assert config.sweep == tuple(session.SWEEP)


def test_the_sweep_grid_is_made_of_epsilon_slider_values():
    assert set(session.SWEEP) <= set(epsilon_options(0.1, 20.0)) and list(session.SWEEP) == sorted(session.SWEEP)


def test_delta_follows_n_unless_chosen():
    assert session.delta_value("1/n²", 200) == 1 / 200**2 and session.delta_value("1e-6", 200) == 1e-6


def test_preview_draws_from_the_fits_stream_and_reports_every_fitted_method(data):
    got = session.preview(data, 3, 2.0, 1e-5, ("peel", "dp_ight"), 4, 11, PARAMS)
    assert set(got.coefs) == set(got.metrics) == {"nonprivate", "peel", "dp_ight"}
    assert got.coefs["nonprivate"].shape == (1, 20) and got.coefs["peel"].shape == (4, 20)
    rng = np.random.default_rng(session.stream(11, "fits"))
    peel = sp.BATCH["peel"](data.X, data.y, sparsity=3, epsilons=[2.0], delta=1e-5, loss="linear", rng=rng, draws=4,
                            **PARAMS)
    np.testing.assert_array_equal(got.coefs["peel"], peel.coef[0])
    assert got.noises["peel"] and page_text.noised(got.noises, True, 60).startswith("**What is noised (peeling")
    again = session.preview(data, 3, 2.0, 1e-5, ("peel", "dp_ight"), 4, 11, PARAMS)
    np.testing.assert_array_equal(again.coefs["dp_ight"], got.coefs["dp_ight"])


def test_the_curves_draw_from_the_sweep_stream(data):
    got = session.sweep(data, 3, 1e-5, ("peel",), 2, 5, PARAMS)
    direct = sp.utility_curve(data, sparsity=3, epsilons=session.SWEEP, delta=1e-5, methods=("peel",), repeats=2,
                              rng=np.random.default_rng(session.stream(5, "sweep")), **PARAMS)
    np.testing.assert_array_equal(got.values["peel"]["f1"], direct.values["peel"]["f1"])
    headline, threshold = session.accuracy_headline(got, "l2_error")
    assert headline == "peel" and threshold == round(float(np.median(got.values["peel"]["l2_error"])), 2)


def test_the_answer_counts_the_non_private_models_features_kept():
    teacher = np.array([[1.0, -1.0, 0.0, 0.0]])
    private = np.array([[0.9, -0.8, 0.0, 0.0], [0.7, 0.0, 0.2, 0.0]])  # the same support, then one of two
    preview = session.Preview({"nonprivate": teacher, "peel": private},
                              {"nonprivate": {"test_error": np.array([0.5])},
                               "peel": {"test_error": np.array([1.0, 3.0])}}, {})
    line = session.answer(preview, "peel", "linear", 2)
    assert line.measure == "Held-out prediction error (MSE)" and line.nonprivate == "0.5"
    assert line.private == "2 (1.2–2.8)"
    assert line.verdict == ("It keeps 1.5 of the non-private model's 2 features on average (all 2 in 1 of 2 "
                            "simulated releases).")
    assert session.answer(preview, "peel", "logistic", 2).private == "200% (120%–280%)"


def test_the_draws_table_puts_the_teacher_first_and_only_the_methods_compared():
    metrics = {m: {"f1": np.array([0.5, 1.0]), "test_error": np.array([1.0, 2.0])}
               for m in ("kt_ps", "peel", "nonprivate", "dp_ight")}
    table = session.draws_table(metrics, ("peel", "dp_ight"), "logistic")
    assert list(table["method"]) == ["teacher (non-private)", "peeling + private fit", "DP-IGHT"]
    assert list(table.columns) == ["method", "support F1", "misclassification"]
    assert table["support F1"][0] == "0.75  [0.55, 0.95]"


def test_the_release_terms_charge_the_variant_released(data):
    peel = session.release_terms(_setup(data), 2.0, 1e-5)
    assert peel.method == PEELING and sum(peel.parts.values()) == pytest.approx(2.0)
    assert peel.params["variant"] == "peeling" and peel.params["intercept"] is True
    kt_ps = session.release_terms(_setup(data, "kt_ps"), 2.0, 1e-5)
    assert kt_ps.method == KT_PRIVATE_SUPPORT and list(kt_ps.parts.values()) == [1.0, 1.0]
    assert kt_ps.params["lambda"] == sp.SparseParams(**PARAMS).ridge(120, 20, 3, 1.0, 1e-5, "linear")


def test_setup_fits_the_release_once_and_names_its_source_for_the_notebook(data):
    setup = _setup(data, "kt_ps", methods=("peel", "kt_ps"))
    assert setup.fitted == ("peel", "kt_ps") and _setup(data, "kt_ps").fitted == ("peel", "dp_ight", "kt_ps")
    assert setup.notebook_source() == dict(n=120, d=20, s_star=3, noise_sd=0.5, data_seed=0)
    assert setup.sweep_runs_at_once(10) and not _setup(data).sweep_runs_at_once(10**4)


def test_the_utility_note_names_the_release_and_its_draws():
    metrics = {"peel": {"f1": np.array([0.5, 1.0])}}
    note = session.utility_note(metrics, "peel", 2.0, 2)
    assert note.startswith("support F1 ") and note.endswith(
        " — over 2 simulated releases of peeling + private fit (default) at ε = 2.")
    assert session.utility_note(metrics, "kt_ps", 2.0, 2) == ""


def test_the_curves_plot_what_the_data_let_us_know():
    assert session.curve_axes(True, "logistic").error == "l2_error"
    unknown = session.curve_axes(False, "logistic")
    assert (unknown.error, unknown.error_title, unknown.support) == ("test_error", "misclassification rate",
                                                                     "teacher_overlap")
