"""Bundled data sets load with consistent public metadata and provenance."""

import numpy as np
import pytest

from dpcore.core import datasets

PAPER_SETS = ["cancer", "gehan", "kidney", "leukemia", "mgus", "myeloid", "ovarian", "stanford", "veteran"]


def test_all_eleven_survival_sets_are_bundled():
    assert sorted(datasets.survival_names()) == sorted(PAPER_SETS + ["pbc", "transplant"])


@pytest.mark.parametrize("name", datasets.survival_names())
def test_survival_set_is_consistent_with_its_metadata(name):
    ds = datasets.load_survival(name)
    assert ds.time.shape == ds.event.shape and ds.time.size == ds.provenance["rows"]
    assert (ds.time >= 0).all() and ds.time.max() <= ds.horizon
    assert set(np.unique(ds.event)) <= {0, *ds.event_labels}
    assert ds.time_unit in datasets.UNIT_DAYS and ds.default_grid_unit in datasets.UNIT_DAYS
    if name in PAPER_SETS:
        assert ds.group is not None and len(np.unique(ds.group)) == 2 and not ds.competing
    else:
        assert ds.competing and ds.group is None
    assert ds.provenance["preprocessing"]


def test_unknown_set_is_a_clear_error():
    with pytest.raises(KeyError, match="choose from"):
        datasets.load_survival("nope")


def test_gdsc_subset():
    gdsc = datasets.load_gdsc()
    assert gdsc.ic50.shape == (988, 265)
    assert set(np.unique(gdsc.features.to_numpy())) <= {0, 1}
    names = list(gdsc.features.columns)  # the source file's order, a rule that does not look at the cell lines
    assert names[0] == "MSI" and names[1] == "ABCB1_mut" and names.index("gain_cnaPANCAN1_(CCNE1)") > names.index("ZNF292_mut")
    assert gdsc.response_range == (-13.8156, 13.8156)  # IC50 from 1 pM to 1 M, ln µM
    X, y = gdsc.drug_data(gdsc.ic50.columns[0], 10)
    assert X.shape == (y.size, 10) and np.isfinite(y).all()
    lo, hi = gdsc.response_range
    assert lo <= np.nanmin(gdsc.ic50.to_numpy()) and np.nanmax(gdsc.ic50.to_numpy()) <= hi
    assert gdsc.drug_label("Drug_1047_IC50") == "Nutlin-3a (GDSC drug 1047, target MDM2)"
    assert gdsc.drug_label("Drug_221_IC50") == "GDSC drug 221"
