"""Plan-first paths: every setting of a release fixed on a public proxy before the private file is read.

A release's (ε, δ) is proved for settings that do not depend on the private rows (``docs/privacy.md``). A method's
plan module declares the public facts its release needs (column names, a bound on n, clipping bounds, a horizon…),
simulates a **proxy** from them and a public seed (it reads nobody), and holds the locked settings; the private file
is read only when the release is made, through :func:`dpcore.plan.common.read_declared`. Such releases' settings
are, by construction, "fixed before the private rows were read" (:data:`dpcore.provenance.FIXED`).

Files: ``common.py`` (the held file, read and checked at release time) · one module per method (``survival.py``,
``sparse.py``, ``regression.py``, ``fdr.py``).
"""

from dpcore.plan.common import DeclaredFile, read_declared
from dpcore.plan.survival import (MAX_CENSORED, MAX_GROUPS, MAX_PROXY_N, PrivateCohort, SurvivalFacts, SurvivalPlan,
                                  read_private, simulate_proxy)
from dpcore.plan.sparse import PrivateSparse, SparseFacts, SparsePlan
from dpcore.plan.sparse import read_private as read_private_sparse, simulate_proxy as simulate_sparse_proxy
from dpcore.plan.regression import PrivateRegression, RegressionFacts, RegressionPlan
from dpcore.plan.regression import read_private as read_private_regression, simulate_proxy as simulate_regression_proxy
from dpcore.plan.fdr import FdrFacts, FdrPlan, PrivateStream
from dpcore.plan.fdr import read_private as read_private_fdr, simulate_proxy as simulate_fdr_proxy

__all__ = ["DeclaredFile", "read_declared", "MAX_CENSORED", "MAX_GROUPS", "MAX_PROXY_N", "PrivateCohort",
           "SurvivalFacts", "SurvivalPlan", "read_private", "simulate_proxy"]
__all__ += ["PrivateSparse", "SparseFacts", "SparsePlan", "read_private_sparse", "simulate_sparse_proxy"]
__all__ += ["PrivateRegression", "RegressionFacts", "RegressionPlan", "read_private_regression",
            "simulate_regression_proxy"]
__all__ += ["FdrFacts", "FdrPlan", "PrivateStream", "read_private_fdr", "simulate_fdr_proxy"]
