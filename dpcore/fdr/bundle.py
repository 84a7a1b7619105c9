"""The release: one PAPRIKA (AI) run with OpenDP noise, packed as a ReleaseBundle (data only).

The figure its report shows is chosen by the report layer (:mod:`dpcore.reporting.release_figures`).
"""

from __future__ import annotations


import numpy as np
import pandas as pd

from dpcore.fdr.calibration import STREAM, paprika_noise_scales
from dpcore.fdr.core import _as_runs
from dpcore.fdr.paprika import run_paprika
from dpcore.fdr.sensitivity import GammaKind, Sensitivity, binomial_pvalues
from dpcore.reporting.release import ReleaseBundle
from dpcore.core.mechanisms import check_budget


def release(pvalues, *, alpha: float, epsilon: float, delta: float, sensitivity: "Sensitivity", cutoff: int,
            lam: float = 0.2, gamma: GammaKind = "power", ai: bool = False, horizon: int | None = None,
            dataset: str = "uploaded p-values", fingerprint: str = "", labels=None):
    """One PAPRIKA (AI) run with OpenDP noise, packed as a :class:`dpcore.reporting.release.ReleaseBundle`.

    ``sensitivity`` carries η and the floor μ of ``log max(p, μ)`` above which η holds; it must be
    proven for the test behind the p-values (:func:`binomial_sensitivity`) or stated by the user
    (:func:`stated_sensitivity`, and the notes say the guarantee rests on it). The paper's η
    (:func:`paper_sensitivity`) is refused; with the binomial η every p-value at or above μ must be a binomial
    tail value for its n (:func:`binomial_pvalues`, which names the first that is not). The shift is :func:`stream_shift` (proven for every
    boundary hypothesis of the stream; horizon k = ``horizon`` or the stream length).

    Exports only the rejection vector and the test levels α_t (paper rule: α_t is a function of
    earlier released rejections, so it is post-processing). The noisy threshold and the per-test
    noise are internal to SparseVector and are never exported. The authors' code rule is refused
    (its α_t depends on unreleased candidacy indicators). ``labels`` (one per hypothesis, as uploaded) name the
    rows of the released table; they name the tests, which the stream's design makes public, and are exported as
    they are.
    """

    p, single = _as_runs(pvalues)
    if not single:
        raise ValueError("a release is made on one stream of p-values")
    check_budget(epsilon, what="a release")
    if not isinstance(sensitivity, Sensitivity):
        raise TypeError("a release needs η as a Sensitivity (binomial_sensitivity or stated_sensitivity), "
                        "so that it says what the bound rests on")
    if sensitivity.refusal:
        raise ValueError(sensitivity.refusal)
    eta, floor = sensitivity.eta, sensitivity.floor
    if sensitivity.source == "binomial":
        p = binomial_pvalues(p[0], sensitivity.records, floor)[None, :]
    res = run_paprika(p, alpha=alpha, epsilon=epsilon, delta=delta, eta=eta, cutoff=cutoff, lam=lam, shift=STREAM,
                      gamma=gamma, ai=ai, rule="paper", horizon=horizon, rng=None, floor=floor)
    rej = res.rejections[0]
    T = rej.size
    k = int(horizon or T)
    table = pd.DataFrame({"hypothesis": np.arange(1, T + 1), "rejected": rej.astype(int), "alpha_t": res.alpha[0]})
    if labels is not None:
        if len(labels) != T:
            raise ValueError(f"{len(labels)} hypothesis labels for {T} p-values")
        table.insert(1, "label", [str(v) for v in labels])
    name = "PAPRIKA AI" if ai else "PAPRIKA"
    scale_alpha, scale_test = paprika_noise_scales(epsilon, eta, cutoff)
    shift_a = float(res.params["shift_A"][0])
    params = dict(rule="paper (γ indexed by t − τ_j)", alpha=alpha, eta=eta, eta_source=sensitivity.source,
                  cutoff=cutoff, lam=lam, shift="proven for the stream: 4ηc/ε·ln(2k/(3δ)) + η − ln 2", shift_A=shift_a,
                  gamma=gamma, horizon=k, n_hypotheses=T, threshold_noise_scale=scale_alpha,
                  test_noise_scale=scale_test, p_value_floor=floor)
    if sensitivity.records is not None:
        params["records_per_test"] = sensitivity.records
    return ReleaseBundle(
        method=name, dataset=dataset, fingerprint=fingerprint, epsilon=float(epsilon), delta=float(delta),
        mechanisms=(f"SparseVector: Laplace threshold noise b = 2ηc/ε = {scale_alpha:.4g}, redrawn after each rejection",
                    f"Laplace per-test noise b = 4ηc/ε = {scale_test:.4g} on log p (sensitivity η = {eta:g})"),
        public_params=params, derived_params=dict(n_rejections=int(rej.sum())), tables={"rejections": table},
        unit="person in the data behind the p-values",
        notes=(f"Neighbours: one person's record is replaced. Every test in the stream runs on the same records, so "
               f"one person can move every log p-value (floored at μ = {floor:g}) by at most η = {eta:.4g} at once; "
               f"the guarantee allows all {T} to move together.",
               sensitivity.basis,
               f"At most c = {cutoff} rejections; the stream stops rejecting after the c-th.",
               *(["The hypothesis labels name the tests, which the design of the stream makes public; they are "
                  "exported as uploaded."] if labels is not None else []),
               f"Candidacy (p < 2λ) is not noised. The threshold is lowered by A = {shift_a:.4g} so that each of the "
               f"k = {k} hypotheses whose candidacy a neighbour could flip is rejected with probability at most δ/k "
               "(a union bound over the stream); δ covers them all.",
               f"FDR guarantee under conditional super-uniformity: FDR(t) ≤ α + δt = {alpha + delta * T:.4g} at t = {T}."),
    )
