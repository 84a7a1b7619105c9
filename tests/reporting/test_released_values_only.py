"""Everything a release exports is computed from its released values only: the same released values on different
private rows give byte-identical exports.

How each test holds the released values fixed while the private rows change (the release path is the one the pages
run, OpenDP draws included):

* every OpenDP draw (:meth:`dpcore.core.mechanisms.Noise.release`) and the peeling's Gumbel top-s
  (:func:`dpcore.sparse.peeling.release_support`) made by the first release is recorded; the second release, on other
  private rows of the same public shape (n, d, groups, grid), gets the recorded *released* values back in the same
  order (its mechanisms must have the same kind, scale and shape: a scale that moved with the rows would itself be a
  leak). The released statistic is then the same, so whatever is computed after it must be too;
* PAPRIKA's released value is the rejection list, which the private p-values decide against the noise. There the
  noise draw is replayed and the second stream of p-values is drawn afresh, each one inside the interval of values
  that gives the same decisions as the first (candidacy and the noisy comparison), so both runs release the same list;
* unseeded NumPy generators (the survival band's parametric bootstrap) are seeded alike in both runs; figure files are
  replaced by their Plotly specs (the ZIP keeps its members, rendering is not what is tested); the creation time and
  Plotly's random element ids are the only text normalised.

Compared byte for byte: the bundle's JSON, every ZIP member (``release.json``, each CSV, ``report.html``, the figure
specs), the HTML report and every report figure's spec. An export that read the private rows directly (an exact
count, an exact coefficient, a p-value) differs between the two runs; ``test_a_table_that_reads_the_private_rows_is_
caught`` shows the comparison catching one.

Deterministic: the data are seeded, and nothing compared depends on the OpenDP draw's value (both runs share it).
"""

from __future__ import annotations

import dataclasses
import html
import io
import re
import zipfile

import numpy as np
import pandas as pd
import pytest

from dpcore.reporting import alt_text

from dpcore import fdr
from dpcore.core import mechanisms as M
from dpcore import regression as R
from dpcore.reporting import release as release_module
from dpcore import sparse as sp
from dpcore import survival as sv
from dpcore.reporting.figure_export import slug
from dpcore.reporting.figures import add_trace, new_spec, to_figure
from dpcore.ledger import Ledger
from dpcore.core.persons import Persons
from dpcore.reporting.release_figures import figures_for
from dpcore.reporting.report import html_report
from dpcore.sparse import bundle as sparse_bundle
from dpcore.survival import bundle as survival_bundle
from ui.release import _with_ledger_note

CREATED = "2026-01-01T00:00:00+00:00"
_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class Replay:
    """Records the released draws of one release and hands them to the next (see the module docstring)."""

    def __init__(self, monkeypatch):
        self.recording, self.draws, self.used, self.unseeded = True, [], 0, 0
        real_release, real_support, real_rng = M.Noise.release, sparse_bundle.release_support, np.random.default_rng
        replay = self

        def release(noise, value):
            shape = np.shape(value)
            if replay.recording:
                out = np.array(real_release(noise, value), copy=True)
                replay.draws.append((("noise", noise.kind, noise.scale, shape), out))
                return out.copy()
            return replay._next(("noise", noise.kind, noise.scale, shape))

        def support(scores, s, plan, draws=None):
            key = ("gumbel top-s", int(s), plan.gumbel_scale, np.shape(scores))
            if replay.recording:
                out = np.array(real_support(scores, s, plan, draws), copy=True)
                replay.draws.append((key, out))
                return out.copy()
            return replay._next(key)

        def default_rng(seed=None):
            if seed is None:  # an unseeded generator (post-processing redraws): the k-th one is seeded alike
                replay.unseeded += 1
                return real_rng([20261206, replay.unseeded])
            return real_rng(seed)

        monkeypatch.setattr(M.Noise, "release", release)
        monkeypatch.setattr(sparse_bundle, "release_support", support)
        monkeypatch.setattr(np.random, "default_rng", default_rng)
        monkeypatch.setattr(release_module, "export",
                            lambda figures: {f"{slug(name)}.json": fig.to_json().encode() for name, fig in figures.items()})

    def _next(self, key):
        assert self.used < len(self.draws), f"the second release drew more than the first ({key})"
        recorded, out = self.draws[self.used]
        assert key == recorded, f"the second release's mechanism {key} is not the first's {recorded}"
        self.used += 1
        return out.copy()

    def record(self, make):
        self.recording, self.draws, self.unseeded = True, [], 0
        return make()

    def replay(self, make):
        self.recording, self.used, self.unseeded = False, 0, 0
        out = make()
        assert self.used == len(self.draws), "the second release drew less than the first"
        return out


@pytest.fixture
def replay(monkeypatch):
    return Replay(monkeypatch)


def exports(bundle) -> dict[str, bytes]:
    """Everything a release exports, as bytes: JSON, ZIP members, the HTML report, each report figure's spec (its
    metadata included) and its text alternative: the summary (also the PNG's description and the SVG's title) and
    the tables of its numbers, which the report and the ZIP carry too."""
    bundle = dataclasses.replace(bundle, created=CREATED)
    out = {"release.json": bundle.to_json().encode()}
    with zipfile.ZipFile(io.BytesIO(bundle.to_zip())) as archive:
        out.update({f"zip:{name}": archive.read(name) for name in archive.namelist()})
    out["report.html"] = html_report([bundle]).encode()
    for name, fig in figures_for(bundle).items():
        summary, tables = alt_text.summary(fig), alt_text.tables(fig)
        assert html.escape(summary) in out["report.html"].decode() and out[f"zip:figures/{slug(name)}.txt"]
        out[f"figure:{name}"] = fig.to_json().encode()
        out[f"figure alt text:{name}"] = summary.encode()
        out.update({f"figure table:{name}:{t}": table.to_csv(index=False).encode() for t, table in tables.items()})
    return {name: _UUID.sub(b"<id>", data) for name, data in out.items()}


def assert_same_exports(first, second) -> None:
    a, b = exports(first), exports(second)
    assert a.keys() == b.keys(), f"the exports hold different files: {sorted(a.keys() ^ b.keys())}"
    for name in a:
        if a[name] != b[name]:
            at = next(i for i, (x, y) in enumerate(zip(a[name], b[name])) if x != y) if len(a[name]) == len(b[name]) \
                else min(len(a[name]), len(b[name]))
            raise AssertionError(f"{name} moved with the private rows, the released values being the same, near byte "
                                 f"{at}: {a[name][max(0, at - 80):at + 80]!r} vs {b[name][max(0, at - 80):at + 80]!r}")


def _differs(first, second) -> None:
    """The two private data sets really differ (else the comparison proves nothing)."""
    assert not all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(first, second))


# ------------------------------------------------------------------ survival


def _cohort(seed: int, n: int, event_types: int = 1, grouped: bool = False):
    rng = np.random.default_rng([7, seed])
    time = rng.exponential(60.0, n) * rng.uniform(0.5, 1.5)
    event = rng.integers(0, event_types + 1, n)
    group = np.where(rng.random(n) < rng.uniform(0.3, 0.7), "a", "b")
    return time, event, (group if grouped else None)


SURVIVAL_CASES = {
    "one group, histogram, discrete Laplace": dict(grouped=False),
    "two groups, histogram, discrete Laplace": dict(grouped=True),
    "two groups, the paper's matrix": dict(grouped=True, statistic="matrix"),
    "two groups, Gaussian": dict(grouped=True, noise_kind="gaussian", delta=1e-6),
    "competing risks": dict(grouped=False, event_types=2),
    "two groups, envelope band, chosen read times": dict(grouped=True, band_rule="envelope", read_times=(3.0, 9.0),
                                                         rmst_horizon=20.0, risk_set="spec"),
}


@pytest.mark.parametrize("case", SURVIVAL_CASES)
def test_survival_exports_depend_on_the_released_counts_only(replay, case):
    """Curves, bands, numbers at risk, medians, summaries, log-rank tests, figures and report: the same for two
    cohorts of the same size given the same released counts (the band's bootstrap seeded alike)."""
    opts = dict(SURVIVAL_CASES[case])
    grouped, types = opts.pop("grouped"), opts.pop("event_types", 1)
    n, grid = 240, sv.make_grid(180.0, data_unit="days", grid_unit="weeks", width=2)
    labels = {"event_labels": ["relapse", "death"]} if types == 2 else {}

    def make(seed):
        time, event, group = _cohort(seed, n, types, grouped)
        return sv.release(time, event, grid=grid, epsilon=1.0, group=group, groups=("a", "b") if grouped else None,
                          n_types=types, dataset="cohort", band_draws=20, group_column="arm" if grouped else None,
                          **labels, **opts)

    _differs(_cohort(1, n, types, grouped)[:2], _cohort(2, n, types, grouped)[:2])
    first = replay.record(lambda: make(1))
    second = replay.replay(lambda: make(2))
    assert {"kaplan_meier", "median", "numbers_at_risk", "rmst"} <= set(first.tables)
    assert ("logrank" in first.tables) == grouped and ("cumulative_incidence" in first.tables) == (types == 2)
    assert_same_exports(first, second)


# ------------------------------------------------------------------ regression


def _regression_rows(seed: int, n: int = 150, d: int = 4):
    rng = np.random.default_rng([11, seed])
    X = rng.uniform(-2.0, 2.0, (n, d))
    y = np.clip(X @ rng.normal(size=d) + rng.normal(size=n), -6.0, 6.0)
    return X, y


REGRESSION_CASES = {
    "AdaSSP, DP centre and scale": dict(method="adassp", dp_prep=True),
    "AdaSSP, public preparation": dict(method="adassp", dp_prep=False),
    "robust private LR, priors": dict(method="robust", dp_prep=True, priors=True),
    "robust private LR, the paper's mode": dict(method="robust", dp_prep=True, priors=False),
    "AdaSSP with public rows": dict(method="adassp", dp_prep=True, public=True),
    "robust private LR with public rows": dict(method="robust", dp_prep=False, priors=True, public=True),
}

#: rows declared public (the same in both runs): they enter without noise, the private rows never do
PUBLIC_ROWS = R.PublicRows(*_regression_rows(99, n=6), ids=tuple(f"P{i}" for i in range(6)), basis="published")


@pytest.mark.parametrize("case", REGRESSION_CASES)
def test_regression_exports_depend_on_the_released_statistics_only(replay, case):
    """Coefficients, their standard deviations, the noisy statistics, the ridge, the DP centre and scale: the same
    for two private training sets given the same released statistics (the preparation's draws included)."""
    opts = REGRESSION_CASES[case]

    def make(seed):
        X, y = _regression_rows(seed)
        prep = R.prepare(X, y, x_bounds=(-2.0, 2.0), y_bounds=(-6.0, 6.0), x_centre="public",
                         y_centre="dp" if opts["dp_prep"] else "public", sigma_y="dp" if opts["dp_prep"] else "public",
                         epsilon=0.2 if opts["dp_prep"] else 0.0, release=True)
        common = dict(prep=prep, public=PUBLIC_ROWS if opts.get("public") else None, dataset="training rows",
                      feature_names=["age", "dose", "bmi", "ldl"])
        if opts["method"] == "adassp":
            return R.release_adassp(X, y, epsilon=1.0, delta=1e-5, **common)
        return R.release(X, y, epsilon=1.0, omega_x=0.5, omega_y=1.0, priors=opts["priors"], **common)

    _differs(_regression_rows(1), _regression_rows(2))
    first = replay.record(lambda: make(1))
    second = replay.replay(lambda: make(2))
    assert "coefficients" in first.tables
    assert_same_exports(first, second)


# ------------------------------------------------------------------ sparse


SPARSE_CASES = {
    "peeling, linear": dict(variant="peeling", loss="linear"),
    "peeling, logistic": dict(variant="peeling", loss="logistic", fit_T=5),
    "knowledge transfer, private support": dict(variant="private_support", loss="linear", B=5.0),
}


def _sparse_rows(seed: int, loss: str):
    data = sp.make_synthetic(300, 30, 3, loss=loss, n_test=1, rng=np.random.default_rng([13, seed]))
    return data.X, data.y


@pytest.mark.parametrize("case", SPARSE_CASES)
def test_sparse_exports_depend_on_the_released_support_and_statistics_only(replay, case):
    """Peeling (the selected support, the noisy ZᵀZ and Zᵀy or gradients) and knowledge transfer with a private
    support (noisy votes, synthetic responses): the coefficients and everything else exported are the same for two
    private data sets given the same released values."""
    opts = dict(SPARSE_CASES[case])
    loss = opts.pop("loss")

    def make(seed):
        X, y = _sparse_rows(seed, loss)
        return sp.release_sparse(X, y, sparsity=3, epsilon=1.0, delta=1e-5, loss=loss, dataset="cells", **opts)

    _differs(_sparse_rows(1, loss), _sparse_rows(2, loss))
    first = replay.record(lambda: make(1))
    second = replay.replay(lambda: make(2))
    assert "coefficients" in first.tables
    assert_same_exports(first, second)


# ------------------------------------------------------------------ PAPRIKA


def _same_decision_stream(bundle, z_alpha, z_test, lam: float, ai: bool, seed: int) -> np.ndarray:
    """Fresh p-values, each inside the interval that gives the first stream's decision at its step (with the same
    noise and the same released levels α_t): rejected, a candidate not rejected, or not a candidate."""
    table, params = bundle.tables["rejections"], bundle.public_params
    rejected = table["rejected"].to_numpy().astype(bool)
    level = table["alpha_t"].to_numpy(float)
    before = np.cumsum(rejected) - rejected  # rejections before each step
    shift, floor, cutoff = params["shift_A"], params["p_value_floor"], params["cutoff"]
    candidate_below = 2.0 * level if ai else np.full(level.size, 2.0 * lam)
    rng = np.random.default_rng([17, seed])
    p = np.empty(level.size)
    for t in range(level.size):
        cand_hi = min(candidate_below[t], 1.0)
        live = before[t] < cutoff and level[t] > 0
        passes = (np.exp(np.log(level[t]) - shift + z_alpha[min(before[t], z_alpha.size - 1)] - z_test[t])
                  if live else 0.0)  # max(p, μ) below this passes the noisy comparison
        if rejected[t]:
            lo, hi = 0.0, min(cand_hi, passes)
            assert hi > floor, "a rejection needs room above the floor"
        elif not live:  # past the cutoff: any candidate is refused; keep the candidacy anyway
            lo, hi = (0.0, cand_hi) if rng.random() < 0.5 else (cand_hi, 1.0)
        else:  # not rejected: a candidate that fails the comparison, or not a candidate
            lo, hi = (max(passes, floor), cand_hi) if (max(passes, floor) < cand_hi and rng.random() < 0.5) \
                else (cand_hi, 1.0)
        p[t] = lo + (hi - lo) * rng.uniform(0.05, 0.95)
    return p


@pytest.mark.parametrize("ai", [False, True], ids=["PAPRIKA", "PAPRIKA AI"])
def test_paprika_exports_depend_on_the_released_decisions_only(replay, ai):
    """The rejection list and the levels α_t: the same for another stream of p-values that the same noise decides
    alike (every p-value drawn afresh inside its decision's interval)."""
    T, cutoff, lam = 400, 30, 0.2
    first_p = fdr.simulate_bernoulli(1, T, pi1=0.3, rng=np.random.default_rng(19)).pvalues[0]
    settings = dict(alpha=0.1, epsilon=2.0, delta=1e-4, sensitivity=fdr.stated_sensitivity(0.02), cutoff=cutoff,
                    lam=lam, ai=ai, dataset="trial stream", labels=[f"H{t}" for t in range(T)])
    first = replay.record(lambda: fdr.release(first_p, **settings))
    (_, z_alpha), (_, z_test) = replay.draws
    rejections = int(first.tables["rejections"]["rejected"].sum())
    assert 3 <= rejections, "too few rejections to test anything"
    second_p = _same_decision_stream(first, z_alpha.ravel(), z_test.ravel(), lam, ai, seed=1)
    assert np.abs(np.log(second_p) - np.log(first_p)).max() > 0.1
    second = replay.replay(lambda: fdr.release(second_p, **settings))
    np.testing.assert_array_equal(second.tables["rejections"]["rejected"], first.tables["rejections"]["rejected"],
                                  err_msg="the constructed stream should be decided alike (test construction)")
    assert_same_exports(first, second)


# ------------------------------------------------------------------ the comparison can fail


def test_a_table_that_reads_the_private_rows_is_caught(replay, monkeypatch):
    """A planted leak (the exact number of events beside the released counts) makes two releases with the same
    released counts differ: the comparison above would fail on it."""
    real = survival_bundle.released_tables
    exact = {}

    def leaky(rel, noise, **kw):
        tables = real(rel, noise, **kw)
        tables["counts"] = tables["counts"].assign(exact_events=exact["events"])
        return tables

    real_release_counts = survival_bundle.release_counts

    def keep_exact(counts, noise):
        exact["events"] = counts.events[..., 0].ravel()
        return real_release_counts(counts, noise)

    monkeypatch.setattr(survival_bundle, "released_tables", leaky)
    monkeypatch.setattr(survival_bundle, "release_counts", keep_exact)
    grid = sv.make_grid(180.0, data_unit="days", grid_unit="weeks", width=2)

    def make(seed):
        time, event, _ = _cohort(seed, 240)
        return sv.release(time, event, grid=grid, epsilon=1.0, band_draws=20)

    first = replay.record(lambda: make(1))
    second = replay.replay(lambda: make(2))
    with pytest.raises(AssertionError, match="moved with the private rows"):
        assert_same_exports(first, second)


@pytest.mark.parametrize("leak", ["summary", "table"])
def test_a_figure_whose_text_alternative_reads_the_private_rows_is_caught(replay, leak):
    """A figure drawn from released values only, whose summary or attached table (its text alternative) states an
    exact statistic of the private rows: the comparison catches the alt text, not only the drawn values."""
    grid = sv.make_grid(180.0, data_unit="days", grid_unit="weeks", width=2)

    def make(seed):
        time, event, _ = _cohort(seed, 240)
        bundle = sv.release(time, event, grid=grid, epsilon=1.0, band_draws=20)
        spec = new_spec()
        km = bundle.tables["kaplan_meier"]
        add_trace(spec, dict(type="scatter", x=km["time"], y=km["survival"], mode="lines", name="released"))
        if leak == "summary":
            alt_text.set_summary(spec, f"Released curve; mean follow-up {time.mean():.6g}")
        else:
            alt_text.attach_table(spec, "follow-up", {"mean": [time.mean()]})
        return dataclasses.replace(bundle, figures={"planted": to_figure(spec)})

    first = replay.record(lambda: make(1))
    second = replay.replay(lambda: make(2))
    with pytest.raises(AssertionError, match="moved with the private rows"):
        assert_same_exports(first, second)


# ------------------------------------------------------------------ what the release panel adds to every export


def test_the_ledger_note_every_release_carries_does_not_depend_on_the_private_rows(replay):
    """The release panel adds the ledger's note (who the persons are, what the ledger can do) to every bundle it
    exports. Two uploads of the same size without a person column, their identical rows declared different people,
    with the same released counts: the exported notes must be the same (how many rows repeat is private)."""
    grid = sv.make_grid(180.0, data_unit="days", grid_unit="weeks", width=2)
    ledger = Ledger(secret=b"s" * 32)

    def make(seed, repeats):
        time, event, _ = _cohort(seed, 240)
        time[1:1 + repeats], event[1:1 + repeats] = time[0], event[0]  # rows 2..repeats+1 copy row 1
        persons = Persons.of_rows(pd.DataFrame({"time": time, "event": event}),
                                  identical_rows_are_different_people=True)
        bundle = sv.release(time, event, grid=grid, epsilon=1.0, band_draws=20)
        holding = ledger.holding(persons)
        return _with_ledger_note(bundle, ledger, holding, holding.rows, persons)

    first = replay.record(lambda: make(1, 1))
    second = replay.replay(lambda: make(2, 3))
    assert_same_exports(first, second)
