"""The plan-first path for the private online FDR (PAPRIKA): declare the stream, explore on a proxy, lock, then read.

A release's (ε, δ) is proved for settings that do not depend on the private rows (``docs/privacy.md``). Here every
setting is chosen before the uploaded p-values are read: the custodian declares what the study design makes public
(:class:`FdrFacts`: the p-value column, the number of hypotheses or a bound on it, the target α and the design η rests
on — the exact binomial test's records per test and alternative θ, or an η they state and vouch for), the settings
are tried on a **proxy** stream simulated from those facts and a public seed (:func:`simulate_proxy`, the FDR page's
Bernoulli simulation; it reads nobody), and the locked :class:`FdrPlan` is applied to the file only when the release
is made (:func:`read_private`, the only function here that touches its bytes). The people charged are the cohort the
p-values came from, chosen at release as on the FDR page: the file's rows are hypotheses, not people.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpcore import fdr
from dpcore.notebooks import FdrConfig
from dpcore.plan.common import check_columns, read_declared
from dpcore.core.validation import InputError
from dpcore.core.mechanisms import check_budget

#: the most hypotheses a stream may have (as :func:`dpcore.fdr.pvalues_from_frame` allows)
MAX_HYPOTHESES = 100_000
#: where η may come from in a release (the paper's √(ln n / n) is for previews only)
ETA_FROM = ("binomial", "stated")
#: the γ sequences PAPRIKA's threshold may follow (:func:`dpcore.fdr.gamma_sequence`)
GAMMAS = ("power", "constant")
#: records per test the binomial design may declare (as the FDR page's upload allows)
MIN_RECORDS, MAX_RECORDS = 10, 100_000
#: simulated streams per view, bounded so that a long stream stays quick (as the FDR page bounds its noise draws)
DRAWS, MAX_DRAWN = 50, 250_000


def _rate(value: float, what: str) -> None:
    """A Bernoulli success rate above the null's ½ and below 1 (θ of the design or of the proxy's signals)."""
    if not (math.isfinite(value) and 0.5 < value < 1):
        raise InputError(f"The {what} must be a success rate between 0.5 (the null) and 1; got {value}.")


@dataclass(frozen=True)
class FdrFacts:
    """What the study design makes public before any p-value is read; every field is checked on construction.

    ``hypotheses``: the stream's length, or an upper bound on it (a longer file is refused). ``eta_from``:
    ``"binomial"`` — each p-value is the exact one-sided binomial test of ``records`` records per test (one per
    person), whose η is proven above a floor set by the design's alternative ``theta``; ``"stated"`` — ``eta`` is the
    custodian's statement about their own test, valid only with ``eta_confirmed`` (the release says it rests on it).
    ``signals`` (share of true effects), ``signal_theta`` (their success rate) and ``seed`` shape the proxy only,
    with ``records``: expected values from the protocol or the literature, never read off the file.
    """

    p_column: str
    hypotheses: int
    eta_from: str = "binomial"
    records: int = 5000
    theta: float = 0.75
    eta: float = 0.0
    eta_confirmed: bool = False
    alpha: float = 0.05
    label_column: str = ""
    signals: float = 0.05
    signal_theta: float = 0.75
    seed: int = 0

    def __post_init__(self) -> None:
        if not self.p_column.strip():
            raise InputError("Declare the p-value column's name.")
        check_columns({"p-value column": self.p_column, "hypothesis label column": self.label_column})
        if not 1 <= int(self.hypotheses) <= MAX_HYPOTHESES:
            raise InputError(f"The number of hypotheses (or its bound) must be between 1 and {MAX_HYPOTHESES:,}; "
                             f"got {self.hypotheses}.")
        if self.eta_from not in ETA_FROM:
            raise InputError(f"η must come from {' or '.join(ETA_FROM)} (the paper's η is for previews only); "
                             f"got {self.eta_from!r}.")
        if not MIN_RECORDS <= int(self.records) <= MAX_RECORDS:
            raise InputError(f"The records per test must be between {MIN_RECORDS} and {MAX_RECORDS:,}; "
                             f"got {self.records}.")
        if self.eta_from == "binomial":
            _rate(self.theta, "design's alternative θ")
        else:
            if not (math.isfinite(self.eta) and self.eta > 0):
                raise InputError(f"The stated η must be a positive number; got {self.eta}.")
            if not self.eta_confirmed:
                raise InputError("Tick the statement under the stated η: the guarantee rests on it.")
        if not (math.isfinite(self.alpha) and 0 < self.alpha < 1):
            raise InputError(f"The target FDR α must be between 0 and 1; got {self.alpha}.")
        if not (math.isfinite(self.signals) and 0 <= self.signals <= 1):
            raise InputError(f"The share of true signals must be between 0 and 1; got {self.signals}.")
        _rate(self.signal_theta, "true signals' strength θ")
        if not 0 <= int(self.seed) < 2**32:
            raise InputError(f"The proxy seed must be a whole number from 0 to 2³² − 1; got {self.seed}.")

    @property
    def design_floor_exp(self) -> int:
        """k of the design's floor μ = 10^−k (:func:`dpcore.fdr.design_floor`: from n and θ, never the data)."""
        return round(-math.log10(fdr.design_floor(int(self.records), self.theta)))

    @property
    def draws(self) -> int:
        """Simulated streams per view: :data:`DRAWS`, fewer for a long stream."""
        return int(np.clip(MAX_DRAWN // int(self.hypotheses), 2, DRAWS))


def simulate_proxy(facts: FdrFacts, runs: int = 1) -> fdr.Streams:
    """A public stand-in for the stream: ``runs`` streams of ``facts.hypotheses`` exact binomial p-values from
    ``facts.seed`` (the FDR page's Bernoulli simulation, :func:`dpcore.fdr.page_streams`).

    Each hypothesis is a true signal with the declared share; its ``records`` draws succeed with rate ½ (null) or
    the declared strength. It reads no row of anyone: every input is a declared fact.
    """
    return fdr.page_streams("bernoulli", runs, int(facts.hypotheses), pi1=facts.signals, n=int(facts.records),
                            theta=facts.signal_theta, seed=int(facts.seed))


@dataclass(frozen=True)
class PrivateStream:
    """The uploaded stream as read at release time: its p-values in stream order, hypothesis labels (or None),
    content fingerprint and label. Its people are the cohort behind it, not its rows."""

    pvalues: np.ndarray = field(repr=False)
    labels: np.ndarray | None = field(repr=False)
    fingerprint: str
    label: str

    @property
    def hypotheses(self) -> int:
        return int(self.pvalues.size)


def read_private(data: bytes, name: str, facts: FdrFacts, *, floor: float) -> PrivateStream:
    """Parse and check the uploaded stream against the declared facts (an ``InputError`` naming the column or row).

    The checks every plan-first file gets (:func:`dpcore.plan.common.read_declared`: its rows are hypotheses, bounded
    by the declared stream length, and not the people charged), the
    FDR page's own (:func:`dpcore.fdr.pvalues_from_frame`, :func:`dpcore.fdr.hypothesis_labels`) and, for the
    binomial η, that every p-value at or above the locked plan's ``floor`` is a binomial tail value for the declared
    records per test (:func:`dpcore.fdr.binomial_pvalues`): a release could not be made on it after the charge.
    """
    held = read_declared(data, name, columns=[facts.p_column, facts.label_column], n_max=int(facts.hypotheses),
                         unit="hypotheses", keyed=False)
    rows = held.rows
    p, _ = fdr.pvalues_from_frame(rows, facts.p_column)
    if facts.eta_from == "binomial":
        fdr.binomial_pvalues(p, int(facts.records), floor, row_name=lambda i: f"Column {facts.p_column!r}, row {i + 2}")
    labels = fdr.hypothesis_labels(rows, facts.label_column, facts.p_column) if facts.label_column else None
    return PrivateStream(p, labels, held.fingerprint, held.label)


@dataclass(frozen=True)
class FdrPlan:
    """The locked settings of one PAPRIKA (AI) release, chosen on the proxy: nothing here depends on a p-value.

    ``floor_exp`` (binomial η only): μ = 10^−floor_exp, by default the design's. Releases always use the paper's
    threshold rule and the shift proven for the stream, as on the FDR page."""

    facts: FdrFacts
    epsilon: float
    delta: float = 2.5e-4
    method: str = "PAPRIKA"
    cutoff: int = 40
    lam: float = 0.2
    gamma: str = "power"
    floor_exp: int | None = None

    def __post_init__(self) -> None:
        check_budget(self.epsilon, self.delta, delta_needed=True, what="the release")
        if self.method not in fdr.PRIVATE_METHODS:
            raise InputError(f"The method must be one of {', '.join(fdr.PRIVATE_METHODS)}; got {self.method!r}.")
        if int(self.cutoff) < 1:
            raise InputError(f"The cutoff c must be at least 1; got {self.cutoff}.")
        if not 0 < self.lam < 0.5:
            raise InputError(f"λ must be between 0 and 0.5 (candidates are p < 2λ); got {self.lam}.")
        if self.gamma not in GAMMAS:
            raise InputError(f"The γ sequence must be one of {', '.join(GAMMAS)}; got {self.gamma!r}.")
        if self.floor_exp is not None and not 1 <= int(self.floor_exp) <= 300:
            raise InputError(f"The floor's exponent must be between 1 and 300; got {self.floor_exp}.")

    @property
    def floor(self) -> float:
        """μ: p-values below it count as μ (the binomial η is proven above it; a stated η holds down to the page's
        smallest floor)."""
        if self.facts.eta_from == "stated":
            return fdr.P_FLOOR
        return 10.0 ** -(self.facts.design_floor_exp if self.floor_exp is None else int(self.floor_exp))

    def sensitivity(self) -> fdr.Sensitivity:
        """η with its floor and the sentence the release prints about what it rests on."""
        facts = self.facts
        if facts.eta_from == "stated":
            return fdr.stated_sensitivity(facts.eta)
        return fdr.binomial_sensitivity(int(facts.records), self.floor)

    def settings(self) -> fdr.Settings:
        """The FDR page's settings object for previews on the proxy, as the release runs them."""
        sens = self.sensitivity()
        return fdr.Settings(alpha=self.facts.alpha, epsilon=self.epsilon, delta=self.delta, eta=sens.eta,
                            cutoff=int(self.cutoff), lam_paprika=self.lam, shift=fdr.STREAM, gamma=self.gamma,
                            rule="paper", floor=sens.floor)

    @property
    def release_method(self) -> str:
        """The method name the ledger records (the FDR page's)."""
        return f"{self.method} discovery list"

    def params(self, hypotheses: int) -> dict:
        """The release's public parameters as the ledger records them (as the FDR page's releases do; ``hypotheses``
        is the stream's length T, which the release lists decision by decision)."""
        sens = self.sensitivity()
        return {"alpha": self.facts.alpha, "eta": sens.eta, "eta_source": sens.source, "cutoff": int(self.cutoff),
                    "lam": self.lam, "shift": fdr.STREAM, "gamma": self.gamma, "rule": "paper", "T": int(hypotheses),
                    "floor": sens.floor}

    def config(self) -> FdrConfig:
        """The same settings as a script's configuration (the release's ``reproduce.py`` reads the user's CSV)."""
        facts = self.facts
        eta = ({"eta": facts.eta} if facts.eta_from == "stated" else
               {"n_obs": int(facts.records), "floor_exp": round(-math.log10(self.floor))})
        return FdrConfig(source="upload", epsilon=self.epsilon, seed=int(facts.seed), method=self.method,
                         alpha=facts.alpha, delta=self.delta, cutoff=int(self.cutoff), shift=fdr.STREAM,
                         lam=self.lam, gamma=self.gamma, rule="paper", eta_from=facts.eta_from, runs=facts.draws,
                         p_col=facts.p_column, truth_col=None, **eta)

    def release(self, stream: PrivateStream):
        """One OpenDP release of the uploaded stream with exactly these settings (a ``ReleaseBundle``)."""
        return fdr.release(stream.pvalues, alpha=self.facts.alpha, epsilon=self.epsilon, delta=self.delta,
                           sensitivity=self.sensitivity(), cutoff=int(self.cutoff), lam=self.lam, gamma=self.gamma,
                           ai=self.method == "PAPRIKA AI", dataset=stream.label, fingerprint=stream.fingerprint,
                           labels=stream.labels)
