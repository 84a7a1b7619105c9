"""Every method's release (bundle JSON, CSVs and HTML report) holds no raw value and no non-private estimate.

Each test makes a real OpenDP release on known data, computes the exact values that must not leak (raw record
values with many significant digits, non-private estimates), and searches the exported text for them, both at
full precision and rounded to 6 significant digits. Small ε keeps the chance that a DP value coincides with an
exact one negligible.
"""

import io
import json
import re
import zipfile

import numpy as np
import pytest

from dpcore.core import datasets

from dpcore import fdr, regression, sparse, survival
from dpcore.reporting.report import html_report


def _exported_text(bundle, *, report: bool = True) -> str:
    """Everything a release exports (JSON, CSVs and, optionally, the report without Plotly's inlined library).

    The report and the JSON's prose fields (mechanism descriptions, notes) print public or DP numbers to 4–6
    significant digits, which can equal a short raw value by chance; with ``report=False`` only the
    full-precision values (tables and parameters) are searched, where a coincidence is impossible.
    """
    if report:
        parts = [bundle.to_json(), re.sub(r"<script\b[^>]*>.*?</script>", " ", html_report([bundle]), flags=re.S)]
    else:
        payload = json.loads(bundle.to_json())
        for prose in ("mechanisms", "notes", "privacy_statement"):
            payload.pop(prose, None)
        parts = [json.dumps(payload, ensure_ascii=False)]
    parts.append(" ".join(t.to_csv(index=False) for t in bundle.tables.values()))
    return " ".join(parts)


def _spellings(value: float) -> set[str]:
    value = float(value)
    return {repr(value), f"{value:.10g}"}


def _assert_absent(text: str, values, what: str, min_digits: int = 5) -> int:
    """Fail if any distinctive value (≥ ``min_digits`` significant digits) appears; return how many were checked."""
    checked = 0
    for v in np.unique(np.asarray(values, dtype=float).ravel()):
        if not np.isfinite(v):
            continue
        digits = len(f"{abs(v):.6g}".replace(".", "").lstrip("0").split("e")[0])
        if digits < min_digits:
            continue
        checked += 1
        for spelling in _spellings(v):
            # a whole number token: "1.8673" must not match inside "1.86731633"
            found = re.search(rf"(?<![\d.]){re.escape(spelling)}(?![\d])", text)
            assert found is None, f"{what} {spelling} appears in the export"
    return checked


def test_survival_release_has_no_nonprivate_estimates():
    ds = datasets.load_survival("veteran")
    grid = survival.make_grid(ds.horizon, data_unit=ds.time_unit, grid_unit="months")
    # ε = 0.01 (noise scale 400): an exact ratio d/r reappears only if both noisy counts are exact, P ≈ 1.6e-6
    bundle = survival.release(ds.time, ds.event, grid=grid, epsilon=0.01, group=ds.group, groups=ds.groups, dataset="Veteran",
                              band_draws=20)
    text = _exported_text(bundle)
    exact = survival.kaplan_meier(ds.time, ds.event, grid=grid)
    test = survival.logrank(ds.time, ds.event, ds.group, grid=grid)
    checked = _assert_absent(text, exact.survival, "non-private survival")
    checked += _assert_absent(text, [exact.ci_lower, exact.ci_upper], "non-private interval")
    checked += _assert_absent(text, [test.statistic, test.p_value], "non-private log-rank")
    assert checked > 20


def test_regression_release_has_no_raw_responses_or_nonprivate_fit():
    gdsc = datasets.load_gdsc()
    X, y = gdsc.drug_data("Drug_1047_IC50", 10)
    prep = regression.prepare(X, y, x_bounds=(0.0, 1.0), y_bounds=gdsc.response_range, epsilon=0.05, release=True)
    bundle = regression.release(X, y, prep=prep, epsilon=0.5, omega_x=0.1, omega_y=0.5, dataset="GDSC",
                                 public=None)
    text = _exported_text(bundle)
    checked = _assert_absent(_exported_text(bundle, report=False), y, "raw ln IC50", min_digits=4)
    Xp, yp = prep.transform(X, y)
    exact = regression.posterior_fixed(regression.sufficient_stats(Xp, yp, np.inf, np.inf))
    checked += _assert_absent(text, exact.coef, "non-private coefficient")
    assert checked > 100


def test_sparse_release_has_no_raw_features_or_teacher():
    data = sparse.make_synthetic(300, 40, 4, rng=np.random.default_rng(0))
    bundle = sparse.release_sparse(data.X, data.y, sparsity=4, epsilon=0.5, delta=1e-5, B=5.0)
    text = _exported_text(bundle)
    teacher = sparse.nonprivate_ight(data.X, data.y, sparsity=4, B=5.0).coef
    checked = _assert_absent(text, data.X[:50], "raw feature")
    checked += _assert_absent(text, data.y, "raw response")
    checked += _assert_absent(text, teacher[teacher != 0], "non-private teacher coefficient")
    assert checked > 300


def test_fdr_release_has_no_pvalues():
    stream = fdr.simulate_bernoulli(1, 400, pi1=0.1, rng=np.random.default_rng(4))
    p = stream.pvalues[0]
    bundle = fdr.release(p, alpha=0.05, epsilon=1.0, delta=2.5e-4, sensitivity=fdr.stated_sensitivity(0.0831), cutoff=20)
    text = _exported_text(bundle)
    assert _assert_absent(text, p[p < 0.99], "raw p-value") > 100
    assert "pvalue" not in " ".join(bundle.tables["rejections"].columns).replace("_", "")


def test_data_fingerprint_is_never_exported():
    """A hash of the raw data would let an attacker who knows n − 1 records confirm guesses of the last one."""
    ds = datasets.load_survival("gehan")
    grid = survival.make_grid(ds.horizon, data_unit=ds.time_unit, grid_unit="weeks")
    bundle = survival.release(ds.time, ds.event, grid=grid, epsilon=1.0, dataset="Gehan", fingerprint="f1a9b3c4d5e6",
                              band_draws=20)
    assert "f1a9b3c4d5e6" not in _exported_text(bundle)
    archive = zipfile.ZipFile(io.BytesIO(bundle.to_zip()))
    assert all(b"f1a9b3c4d5e6" not in archive.read(name) for name in archive.namelist())


def test_the_leak_check_can_fail():
    """Planting an exact estimate into a table must be caught."""
    ds = datasets.load_survival("gehan")
    grid = survival.make_grid(ds.horizon, data_unit=ds.time_unit, grid_unit="weeks")
    bundle = survival.release(ds.time, ds.event, grid=grid, epsilon=0.1, dataset="Gehan", band_draws=20)
    exact = survival.kaplan_meier(ds.time, ds.event, grid=grid).survival
    name = next(iter(bundle.tables))
    bundle.tables[name]["leak"] = np.resize(exact, len(bundle.tables[name]))
    with pytest.raises(AssertionError, match="appears in the export"):
        _assert_absent(_exported_text(bundle), exact, "non-private survival")
