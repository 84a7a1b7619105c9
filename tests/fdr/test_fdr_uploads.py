"""Uploaded p-values with the exact binomial η: every p-value at or above the floor must be a
one-sided binomial tail value for the stated n, or a release with that η is refused naming the first bad row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpcore import fdr
from dpcore.core.validation import InputError

N = 1000
MU = 1e-6


def _binomial_stream(T=400, n=N, seed=0):
    """True one-sided binomial p-values P(Bin(n, ½) ≥ S) as scipy's binomtest computes them, through a CSV's
    15 significant digits (R's write.csv)."""
    rng = np.random.default_rng(seed)
    s = rng.binomial(n, np.where(rng.random(T) < 0.1, 0.6, 0.5))
    exact = np.array([stats.binomtest(int(k), n, 0.5, alternative="greater").pvalue for k in s])
    return np.array([float(f"{v:.15g}") for v in exact])


def _ztest_stream(T=400, n=N, seed=0):
    """The review's upload: z-test p-values 1 − Φ((S − n/2)/√(n/4)) for the same kind of data."""
    rng = np.random.default_rng(seed)
    s = rng.binomial(n, np.where(rng.random(T) < 0.1, 0.6, 0.5))
    return stats.norm.sf((s - n / 2) / np.sqrt(n / 4))


def test_true_binomial_pvalues_are_accepted_and_snapped_onto_the_lattice():
    p = _binomial_stream()
    snapped = fdr.binomial_pvalues(p, N, MU)
    lattice = fdr._binomial_tail_table(N)
    checked = p >= MU
    assert np.isin(snapped[checked], lattice).all()  # exactly the tail values, not the rounded ones
    np.testing.assert_allclose(snapped, p, rtol=1e-12)
    bundle = fdr.release(p, alpha=0.05, epsilon=3.0, delta=2.5e-4, sensitivity=fdr.binomial_sensitivity(N, MU),
                         cutoff=10)
    assert bundle.public_params["records_per_test"] == N and "checked" in " ".join(bundle.notes)


def test_the_reviews_ztest_upload_is_refused_naming_the_first_bad_row():
    p = _ztest_stream()
    snapped, bad = fdr.on_binomial_lattice(p, N, MU)
    assert bad is not None
    lattice = fdr._binomial_tail_table(N)
    first = next(i for i, v in enumerate(p) if v >= MU and np.min(np.abs(lattice - v)) > 1e-9 * v)
    assert bad == first
    with pytest.raises(InputError, match=rf"^hypothesis {first + 1}: p = .* n = 1000"):
        fdr.binomial_pvalues(p, N, MU)
    with pytest.raises(InputError, match=rf"^row {first + 2} of 'p'"):
        fdr.binomial_pvalues(p, N, MU, row_name=lambda i: f"row {i + 2} of 'p'")
    with pytest.raises(InputError, match="state an η"):  # the release refuses it too, whoever calls it
        fdr.release(p, alpha=0.05, epsilon=3.0, delta=2.5e-4, sensitivity=fdr.binomial_sensitivity(N, MU), cutoff=10)
    # the same values with a stated η release (the notes say the guarantee rests on the statement)
    bundle = fdr.release(p, alpha=0.05, epsilon=3.0, delta=2.5e-4, sensitivity=fdr.stated_sensitivity(0.6), cutoff=10)
    assert "rests on the user-stated η" in " ".join(bundle.notes)


def test_tail_values_of_another_n_are_refused():
    lattice_999 = fdr._binomial_tail_table(999)
    p = lattice_999[(lattice_999 > MU) & (lattice_999 < 0.9)]
    assert fdr.on_binomial_lattice(p, N, MU)[1] is not None


@settings(max_examples=80, deadline=None)
@given(k=st.integers(0, N), rel=st.sampled_from([1e-8, 1e-6, 1e-3, -1e-7, -1e-4]))
def test_adversarial_near_lattice_values_are_refused(k, rel):
    """A tail value moved by more than the tolerance (far less than the lattice spacing in the tail) is refused,
    unless it lands on another tail value (near p = 1 they are closer than 1e-8): the check agrees with a
    brute-force search of all n + 1 tail values."""
    lattice = fdr._binomial_tail_table(N)
    p = min(lattice[k] * (1 + rel), 1.0)
    on_lattice = np.min(np.abs(lattice - p)) <= fdr.LATTICE_RTOL * p
    bad = fdr.on_binomial_lattice(np.array([lattice[N // 2], p]), N, MU)[1]
    assert bad == (None if on_lattice or p < MU else 1)
    if lattice[k] < 0.5 and p >= MU:  # in the tail the spacing is wide: every such move is refused
        assert bad == 1


@settings(max_examples=60, deadline=None)
@given(k=st.integers(0, N), rel=st.floats(-1e-11, 1e-11))
def test_floating_point_rounding_of_a_tail_value_is_accepted(k, rel):
    lattice = fdr._binomial_tail_table(N)
    v = lattice[k]
    p = min(v * (1 + rel), 1.0)
    snapped, bad = fdr.on_binomial_lattice(np.array([p]), N, MU)
    assert bad is None
    if p < MU:
        assert snapped[0] == p  # raised to μ later, like every tail value below μ
    else:  # a tail value (near p = 1 possibly a neighbour of v: they are closer there than the rounding)
        assert snapped[0] in lattice and abs(snapped[0] - p) <= fdr.LATTICE_RTOL * p
        assert v > 0.5 or snapped[0] == v


def test_values_below_the_floor_are_raised_to_it_not_checked():
    """Below μ the mechanism sees μ whatever the value (as for every lattice value below μ), so p = 0 or any tiny
    value does not fail the check; just above μ the check applies."""
    p = np.array([0.0, 1e-300, MU / 3, fdr._binomial_tail_table(N)[520]])
    assert fdr.on_binomial_lattice(p, N, MU)[1] is None
    assert fdr.on_binomial_lattice(np.array([MU * 1.5]), N, MU)[1] == 0


def test_pvalue_lattice_check_is_vectorised_over_a_long_stream():
    lattice = fdr._binomial_tail_table(20_000)
    p = np.random.default_rng(1).choice(lattice[lattice > 1e-200], 100_000)
    snapped, bad = fdr.on_binomial_lattice(p, 20_000, 1e-200)
    assert bad is None and np.array_equal(snapped, p)


def test_the_number_of_rejections_is_derived_from_dp_outputs_not_a_public_input():
    p = fdr.simulate_bernoulli(1, 200, pi1=0.1, rng=np.random.default_rng(3)).pvalues[0]
    bundle = fdr.release(p, alpha=0.05, epsilon=3.0, delta=2.5e-4, sensitivity=fdr.stated_sensitivity(0.2), cutoff=10)
    assert "n_rejections" not in bundle.public_params
    assert bundle.derived_params["n_rejections"] == int(bundle.tables["rejections"]["rejected"].sum())
    meta = bundle.metadata()
    assert "n_rejections" not in meta["public_parameters"]
    assert meta["derived_from_dp_outputs"]["n_rejections"] == bundle.derived_params["n_rejections"]


def test_upload_frame_to_binomial_check_names_the_spreadsheet_row():
    p = _binomial_stream(T=30)
    p[11] = 0.0123  # not a tail value for n = 1000
    frame = pd.DataFrame({"p": [repr(float(v)) for v in p]})
    values, _ = fdr.pvalues_from_frame(frame, "p")
    with pytest.raises(InputError, match=r"^Column 'p', row 13: p = 0\.0123 is not"):
        fdr.binomial_pvalues(values, N, MU, row_name=lambda i: f"Column 'p', row {i + 2}")
