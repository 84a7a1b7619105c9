"""Black-box audit scenarios: the default release's (:mod:`dpcore.sparse.peeling_audit`, listed first), knowledge
transfer's and DP-IGHT's, and the known support-flip violation of the paper's variant."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from dpcore.core.audit import AuditScenario, max_detectable_epsilon
from dpcore.core.mechanisms import (
    analytic_gaussian_sigma,
    gaussian_privacy_loss_delta,
)
from dpcore.sparse.baseline_dp_ight import dp_ight_noise
from dpcore.sparse.baseline_two_stage import block_votes, noisy_top_s
from dpcore.sparse.params import SparseParams, _params, prepare
from dpcore.sparse.peeling_audit import peel_audit_scenarios, replaced_pair, replaced_record_text
from dpcore.sparse.private_support import kt_ps_sensitivity, kt_vote_noise
from dpcore.sparse.solver import clip_responses
from dpcore.sparse.transfer import fixed_support_teacher, kt_noise, synthetic_features, teacher_fit

AUDIT_DELTA = 1e-2
AUDIT_RAW_FACTOR = 50.0
BUG_LABELS = {"clip": "response clipping skipped (the changed record's raw response is −50r)",
              "noise": "noise scale halved"}


def _kt_audit_pair(kind: str, bug: str):
    """Neighbouring data sets A, B (same n, one record replaced) and the public parameters of the KT audit.

    ``extreme``: n − 1 records are ``(x = 0, y = 0)``; the last one has
    ``x = K·(sign pattern on the first s coordinates)`` and ``y = +r`` in A and
    a response at or beyond ``−r`` in B (raw ``−50r``, clipped to ``−r``). The
    support is the same in A and B (only those s coordinates ever get a
    gradient), so the strong-convexity argument applies and the teacher
    moves by ``2rK√s/(nλ + K²s)``. The sign pattern is the one that maximises
    ``‖X̃v‖`` (the adversary knows the public X̃). For the halved-noise bug
    the ℓ1 radius B is tiny, which brings the shift within 1 % of the claimed
    sensitivity (γ = K(KB + r) ≈ Kr); for the clipping bug B = 1 leaves room
    for an unclipped record to move the teacher.

    ``flip``: s = 1; 499 records ``(e_1, r)``, 499 records ``(e_2, r)``, one
    ``(0, 0)``; the last record is ``(e_1, r)`` in A and ``(e_2, r)`` in B. The
    tie is broken by that one record, so the teacher keeps coordinate 1 in A
    and coordinate 2 in B: ``θ̂`` moves by O(1) instead of O(1/n).
    """
    n, d, K, r, lam = 1000, 20, 1.0, 1.0, 1.0
    if kind == "extreme":
        s = 2
        B = 1.01 * s * K * r / (n * lam) if bug == "noise" else 1.0
        p = SparseParams(K=K, r=r, B=B, lam=lam, m=200, T1=60, synthetic_seed=7)
        X_syn = synthetic_features(p.m, d, K, p.synthetic_seed)
        signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * s)).reshape(s, -1).T
        best = signs[np.argmax(np.linalg.norm(X_syn[:, :s] @ signs.T, axis=0))]
        X = np.zeros((n, d))
        X[-1, :s] = K * best
        yA = np.zeros(n)
        yA[-1] = r
        yB = yA.copy()
        yB[-1] = -AUDIT_RAW_FACTOR * r
        return (X, yA), (X, yB), s, p
    s = 1
    p = SparseParams(K=K, r=r, B=1.0, lam=lam, m=200, T1=60, synthetic_seed=7)
    X = np.zeros((n, d))
    X[:499, 0] = K
    X[499:998, 1] = K
    y = np.zeros(n)
    y[:998] = r
    y[-1] = r
    XA, XB = X.copy(), X.copy()
    XA[-1, 0] = K
    XB[-1, 1] = K
    return (XA, y), (XB, y.copy()), s, p


def gaussian_shift_epsilon(sigma: float, shift: float, delta: float) -> float:
    """Exact ε at δ between ``N(μ_A, σ²I)`` and ``N(μ_B, σ²I)`` with ``‖μ_A − μ_B‖2 = shift``.

    The pair's privacy profile is the Gaussian mechanism's with sensitivity ``shift`` (Balle & Wang 2018,
    Thm. 8), decreasing in ε: the root of ``gaussian_privacy_loss_delta(σ, ε, shift) = δ``. At
    ``ε = (shift/σ)²/2 + 10·shift/σ`` the first term is ``Φ(−10)`` < 10⁻²³, which brackets the root.
    """
    if gaussian_privacy_loss_delta(sigma, 0.0, shift) <= delta:
        return 0.0
    ratio = shift / sigma
    return float(optimize.brentq(lambda e: gaussian_privacy_loss_delta(sigma, e, shift) - delta,
                                 0.0, 0.5 * ratio**2 + 10.0 * ratio, xtol=1e-9))


def _kt_scenario(kind: str, epsilon: float, delta: float, bug: str = "clip") -> AuditScenario:
    (XA, yA), (XB, yB), s, p = _kt_audit_pair(kind, bug)
    n, d = XA.shape
    X_syn = synthetic_features(p.m, d, p.K, p.synthetic_seed)
    noise = kt_noise(n, p.m, s, p.gamma("linear"), p.K, p.lam, epsilon, delta, p.calibration)

    def centres(skip_clip: bool):
        out = []
        for X, y in ((XA, yA), (XB, yB)):
            Xc, yc = prepare(X, y, "linear", p)
            if skip_clip:
                yc = np.asarray(y, dtype=float)
            out.append(X_syn @ teacher_fit(Xc, yc, sparsity=s, lam=p.lam, loss="linear", p=p))
        muA, muB = out
        u = (muA - muB) / max(np.linalg.norm(muA - muB), 1e-300)
        return float(u @ muA), float(u @ muB), float(np.linalg.norm(muA - muB))

    good = centres(False)
    buggy = centres(True) if bug == "clip" else good
    ratio = good[2] / noise.sensitivity

    def sampler(which, planted_bug, rng, draws):
        nz = noise.with_scale_factor(0.5) if planted_bug and bug == "noise" else noise
        cA, cB, _ = buggy if planted_bug else good
        # ⟨y^p, u⟩ for y^p = X̃θ̂ + N(0, σ²I): the projection of isotropic noise is N(0, σ²)
        return nz.sample(np.float64(cA if which == "A" else cB), rng=rng, draws=draws)

    if kind == "extreme":
        name = "knowledge transfer: one record at the clipping extremes (stable support)"
        text = (f"n = {n}, d = {d}, s = {s}, B = {p.radius():.3g}: n − 1 records are (x = 0, y = 0); the last has "
                f"x = ±K on the first s features (signs chosen to maximise ‖X̃v‖) and y = +r in A, raw −{AUDIT_RAW_FACTOR:g}r "
                f"(clipped to −r) in B. Same support in A and B, so the paper's strong-convexity argument holds; "
                f"‖X̃(θ̂_A − θ̂_B)‖ = {ratio:.3f} × the claimed sensitivity.")
    else:
        name = "knowledge transfer: support flip"
        text = (f"n = {n}, d = {d}, s = 1: two features each carried by 499 records; the changed record adds a vote to "
                f"feature 1 in A and to feature 2 in B, so the IGHT teacher keeps a different coordinate. "
                f"‖X̃(θ̂_A − θ̂_B)‖ = {ratio:.0f} × the claimed sensitivity: the strong-convexity bound does not hold "
                f"for a hard-thresholded teacher. The released responses are Gaussian around X̃θ̂_A and X̃θ̂_B, so "
                f"the true privacy loss on this pair is ε ≈ {gaussian_shift_epsilon(noise.scale, good[2], delta):,.0f} "
                f"at δ = {delta:g}, far above what a black-box audit can show: at most ε ≈ "
                f"{max_detectable_epsilon(10**5, 0.99, delta):.1f} with 10⁵ runs per data set, "
                f"{max_detectable_epsilon(10**6, 0.99, delta):.1f} with 10⁶.")
    return AuditScenario(
        method="sparse", name=name, neighbours=text,
        summary="projection of the m released synthetic responses on the unit vector X̃(θ̂_A − θ̂_B)/‖·‖ "
                "(the likelihood-ratio direction)",
        claimed_epsilon=float(epsilon), delta=float(delta), sampler=sampler, planted_bug_label=BUG_LABELS[bug])


def _dp_ight_scenario(epsilon: float, delta: float, bug: str = "clip") -> AuditScenario:
    """DP-IGHT: the record ``x = K·1`` (all d features at +K) has ``y = +r`` in A and raw ``−50r`` (clipped to
    ``−r``) in B; the other records are zero. The mean gradients then differ by exactly ``2rK√d/n ≈ Δ`` at
    *every* iterate, so the transcript of T noisy gradients is T Gaussian shifts; the summary is its
    log-likelihood-ratio statistic ``Σ_t ⟨g̃_t − (∇L_A + ∇L_B)(θ_t)/2, u⟩`` (computable from the transcript,
    ``u = x/‖x‖``), of law ``N(∓T·y‖x‖/n, Tσ²)``. Auditing the transcript audits a superset of the release θ_T."""
    n, d, T = 500, 10, 10
    p = SparseParams(K=1.0, r=1.0, B=1e-3, dp_T=T)
    noise = dp_ight_noise(n, d, T, epsilon, delta, "linear", p)
    x = np.full((1, d), p.K)
    raw = {"A": np.array([p.r]), "B": np.array([-AUDIT_RAW_FACTOR * p.r])}
    norm_x = float(np.linalg.norm(x))

    def sampler(which, planted_bug, rng, draws):
        nz = noise.with_scale_factor(0.5) if planted_bug and bug == "noise" else noise
        if planted_bug and bug == "clip":
            y = raw[which][0]
        else:
            y = float(clip_responses(raw[which], p.r)[0])
        return nz.sample(np.full(T, -y * norm_x / n), rng=rng, draws=draws).sum(axis=-1)

    return AuditScenario(
        method="sparse", name="DP-IGHT: one record with all features at +K, y = +r vs −r",
        neighbours=(f"n = {n}, d = {d}, T = {T}: n − 1 records (0, 0); the last has x = K on every feature and "
                    f"y = +r (A) or raw −{AUDIT_RAW_FACTOR:g}r, clipped to −r (B). Its gradient difference 2rx/n has "
                    f"norm {2 * p.r * norm_x / n:.4g} = {2 * p.r * norm_x / n / noise.sensitivity:.3f} × Δ at every "
                    f"step (ℓ1 radius B tiny)."),
        summary="sum over the T steps of the noisy gradient's component along x/‖x‖ (minus the common part): "
                "the log-likelihood-ratio statistic of the whole transcript",
        claimed_epsilon=float(epsilon), delta=float(delta), sampler=sampler, planted_bug_label=BUG_LABELS[bug])


#: Most numbers (supports × rows × s) the exact KT-PS tables hold at once.
_TABLE_CHUNK = 4_000_000


@dataclass(frozen=True)
class _KTPSExact:
    """The noise-free pieces of KT with private support on one (clipped) data set, as the release computes them:
    the block votes, the ridge λ, σ per unit of sensitivity, and — per candidate support — the convex teacher
    and the σ of the Gaussian responses (:func:`dpcore.sparse.bundle.release_sparse`)."""

    X: np.ndarray
    y: np.ndarray
    s: int
    loss: str
    p: SparseParams
    votes: np.ndarray
    k: int
    vote_scale: float
    lam: float
    unit: float
    X_syn: np.ndarray

    @classmethod
    def of(cls, X, y, *, s: int, loss: str, p: SparseParams, epsilon: float, delta: float,
           select_share: float = 0.5) -> _KTPSExact:
        X, y = prepare(X, y, loss, p)
        n, d = X.shape
        e1, e2 = epsilon * select_share, epsilon * (1.0 - select_share)
        votes, k = block_votes(X, y, s, loss, p)
        X_syn = synthetic_features(p.n_synthetic(n), d, p.K, p.synthetic_seed)
        return cls(X, y, s, loss, p, votes, k, kt_vote_noise(s, k, e1).scale, p.ridge(n, d, s, e2, delta, loss),
                   analytic_gaussian_sigma(1.0, e2, delta), X_syn)

    def teacher(self, supports: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For supports (U, s): the teacher's synthetic responses ``X̃_S θ̂_S`` (U, m), σ (U,) and θ̂_S (U, s),
        in chunks of supports (at most :data:`_TABLE_CHUNK` numbers of data or synthetic features at once)."""
        supports = np.asarray(supports, dtype=np.int64).reshape(len(supports), self.s)
        n, m = self.X.shape[0], self.X_syn.shape[0]
        step = max(1, _TABLE_CHUNK // (max(n, m) * self.s))
        parts = []
        for i in range(0, len(supports), step):
            S = supports[i:i + step]
            theta, opt_err = fixed_support_teacher(np.moveaxis(self.X[:, S], 0, -2), self.y, self.lam, self.loss,
                                                   self.p)
            Xs = np.moveaxis(self.X_syn[:, S], 0, -2).astype(float)  # (U, m, s)
            op = np.linalg.norm(Xs, ord=2, axis=(-2, -1))
            sens = kt_ps_sensitivity(n, self.s, self.p.gamma(self.loss), self.lam, opt_err, op)
            parts.append((np.matmul(Xs, theta[..., None])[..., 0], self.unit * sens, theta))
        return tuple(np.concatenate(x) for x in zip(*parts))

    def supports(self, scale: float, rng: np.random.Generator, draws: int) -> np.ndarray:
        """``draws`` noisy top-s supports (sorted rows) at vote-noise ``scale``, in chunks."""
        step = max(1, _TABLE_CHUNK // self.votes.size)
        return np.sort(np.concatenate([noisy_top_s(self.votes, np.array([scale]), self.s, rng,
                                                   min(step, draws - i))[0] for i in range(0, draws, step)]), axis=1)


def _kt_ps_flip_scenario(epsilon: float, delta: float) -> AuditScenario:
    """KT with private support on the support-flip pair that breaks plain KT.

    Exercises the real vote computation, the real convex teacher on every possible support, the computed
    sensitivity and the analytic σ. Summary: the projection of the released responses on the selected
    column of X̃, signed +1 when feature 1 was selected and −1 for feature 2 (0 otherwise). Planted bug: the
    support is taken from the non-private IGHT teacher, as plain KT does.
    """
    (XA, yA), (XB, yB), s, p = _kt_audit_pair("flip", "noise")
    # put the changed record first, inside the first vote block (records past k·⌊n/k⌋ cast no vote)
    order = np.r_[len(yA) - 1, np.arange(len(yA) - 1)]
    XA, yA, XB, yB = XA[order], yA[order], XB[order], yB[order]
    d = XA.shape[1]
    signs = np.zeros(d)
    signs[0], signs[1] = 1.0, -1.0
    tables = {}
    for which, (X, y) in {"A": (XA, yA), "B": (XB, yB)}.items():
        ex = _KTPSExact.of(X, y, s=s, loss="linear", p=p, epsilon=epsilon, delta=delta)
        centres, sigma, _ = ex.teacher(np.arange(d)[:, None])  # every singleton support
        cols = ex.X_syn.T.astype(float)
        proj = np.einsum("dm,dm->d", centres, cols) / np.linalg.norm(cols, axis=1)  # ⟨X̃_Sθ̂, X̃_S/‖X̃_S‖⟩
        nonprivate = int(np.flatnonzero(teacher_fit(ex.X, ex.y, sparsity=s, lam=ex.lam, loss="linear", p=p))[0])
        tables[which] = (ex, proj, sigma, nonprivate)

    def sampler(which, planted_bug, rng, draws):
        ex, centre, sigma, nonprivate = tables[which]
        if planted_bug:
            S = np.full(draws, nonprivate)
        else:
            S = noisy_top_s(ex.votes, np.array([ex.vote_scale]), s, rng, draws)[0, :, 0]
        proj = centre[S] + sigma[S] * rng.standard_normal(draws)  # ⟨y^p, X̃_S/‖X̃_S‖⟩
        return signs[S] * proj

    return AuditScenario(
        method="sparse", name="KT with private support: the support-flip pair",
        neighbours=("The pair that breaks plain KT (two features each carried by 499 records; the changed record "
                    "tips the tie). Here the support is chosen by noisy block votes (ε/2) and the teacher is the "
                    "convex ridge fit on that public support, with a computed sensitivity (ε/2, δ)."),
        summary="projection of the released responses on the selected column of X̃, signed +1 (feature 1) / "
                "−1 (feature 2) / 0 (other)",
        claimed_epsilon=float(epsilon), delta=float(delta), sampler=sampler,
        planted_bug_label="support taken from the non-private IGHT teacher (as plain KT does)")


#: Pilot releases per data set that estimate the support's likelihood ratio (an independent, fixed seed), and,
#: for the logistic loss (an iterative teacher per support), the most supports on which the Gaussian part of
#: the ratio is computed (the pilot's commonest); the linear loss computes it for every support drawn.
PILOT_DRAWS = 4_000
PILOT_SEED = 20_240_517
MAX_SUPPORTS = 64


def data_scenario(X, y, *, index: int, alt_y: float, alt_x=None, sparsity: int, epsilon: float, delta: float,
                  loss: str = "linear", bug: str = "teacher", select_share: float = 0.5,
                  feature_names=None, **params) -> AuditScenario:
    """The attacker's pair built from a data set: A as it is, B with record ``index`` replaced by ``(alt_x, alt_y)``
    (``alt_x=None``: the same features), seen through KT with private support as released
    (:func:`dpcore.sparse.bundle.release_sparse`: votes, teacher, sensitivity and σ from :class:`_KTPSExact`).

    The release is (support S, responses y^p ~ N(X̃_Sθ̂_S, σ_S² I)); the attacker's statistic is its log-likelihood
    ratio ``ln P_A(S)/P_B(S) + ln N(y^p; μ_A)/N(y^p; μ_B)``: the support term estimated from
    :data:`PILOT_DRAWS` independent pilot releases per data set (smoothed counts), the Gaussian term exact
    given S — ``r(Z ± r/2)`` with ``r = ‖X̃_S(θ̂_A,S − θ̂_B,S)‖/σ_S`` (the projection on that direction) — for
    every support drawn (linear loss) or the pilot's :data:`MAX_SUPPORTS` commonest (logistic; 0 for the others).
    A fixed function of the release: its ROC is a valid attack, if not always the best. Planted bugs: ``"teacher"`` takes the support from the non-private IGHT
    teacher (as plain KT does), ``"noise"`` halves both noise scales.
    """
    p = _params(**params)
    (X, y), (XB, yB) = replaced_pair(X, y, index, alt_y, alt_x)
    n, d = X.shape
    s = int(sparsity)
    exact = {w: _KTPSExact.of(Xw, yw, s=s, loss=loss, p=p, epsilon=epsilon, delta=delta, select_share=select_share)
             for w, (Xw, yw) in {"A": (X, y), "B": (XB, yB)}.items()}
    tables: dict = {}

    names = list(feature_names) if feature_names is not None else [f"x{j + 1}" for j in range(d)]
    teachers = {w: teacher_fit(exact[w].X, exact[w].y, sparsity=s, lam=0.0, loss=loss, p=p) for w in "AB"}

    def scale(planted: bool) -> tuple[float, float]:
        """(vote-noise scale, σ factor) of the mechanism, with or without the planted bug."""
        factor = 0.5 if planted and bug == "noise" else 1.0
        return exact["A"].vote_scale * factor, factor

    def supports(which: str, planted: bool, rng: np.random.Generator, draws: int) -> np.ndarray:
        if planted and bug == "teacher":  # the support of the non-private teacher, as plain KT takes it
            return np.tile(np.sort(np.argsort(-np.abs(teachers[which]), kind="stable")[:s]), (draws, 1))
        return exact[which].supports(scale(planted)[0], rng, draws)

    shift: dict[bytes, float] = {}  # support → ‖X̃_S(θ̂_A,S − θ̂_B,S)‖/σ_S, computed once per support met

    def gaussian(S: np.ndarray, allowed) -> np.ndarray:
        """``‖X̃_S(θ̂_A,S − θ̂_B,S)‖/σ_S`` for each row of S (0 outside ``allowed`` when that is a set)."""
        keys = [row.tobytes() for row in S]
        new = {k: row for k, row in zip(keys, S) if k not in shift and (allowed is None or k in allowed)}
        rows = np.array(list(new.values()), dtype=np.int64).reshape(len(new), s)
        block = max(1, 2_000_000 // exact["A"].X_syn.shape[0])  # bounds the (supports × m) responses held
        for i in range(0, len(rows), block):
            mu_a, sigma, _ = exact["A"].teacher(rows[i:i + block])
            shift.update(zip(list(new)[i:i + block],
                             np.linalg.norm(mu_a - exact["B"].teacher(rows[i:i + block])[0], axis=1) / sigma))
        return np.array([shift.get(k, 0.0) for k in keys])

    def table(planted: bool):
        """The support term's table from the pilot (and, for the logistic loss, the supports whose Gaussian term
        is computed: the pilot's :data:`MAX_SUPPORTS` commonest; the linear loss computes it for every support)."""
        if planted not in tables:
            rng = np.random.default_rng(PILOT_SEED)
            pilots = [supports(w, planted, rng, PILOT_DRAWS) for w in "AB"]
            uniq, inv = np.unique(np.concatenate(pilots), axis=0, return_inverse=True)
            inv = inv.ravel()
            counts = [np.bincount(inv[i * PILOT_DRAWS:(i + 1) * PILOT_DRAWS], minlength=len(uniq)) for i in (0, 1)]
            log_ratio = np.log((counts[0] + 0.5) / (counts[1] + 0.5))
            top = np.argsort(-(counts[0] + counts[1]), kind="stable")[:MAX_SUPPORTS]
            allowed = None if loss == "linear" else {uniq[i].tobytes() for i in top}
            tables[planted] = ({row.tobytes(): i for i, row in enumerate(uniq)}, log_ratio, allowed)
        return tables[planted]

    def sampler(which, planted_bug, rng, draws):
        keys, log_ratio, allowed = table(bool(planted_bug))
        S = supports(which, bool(planted_bug), rng, draws)
        idx = np.array([keys.get(row.tobytes(), -1) for row in S])
        lr = np.where(idx >= 0, log_ratio[idx], 0.0)
        r = gaussian(S, allowed) / scale(bool(planted_bug))[1]
        return lr + r * (rng.standard_normal(draws) + (0.5 if which == "A" else -0.5) * r)

    t_a, t_b = teachers["A"], teachers["B"]
    diff = t_a - t_b
    if not np.any(diff):
        reveal = ("Without noise the non-private teacher (IGHT, as plain knowledge transfer uses) has the same "
                  "coefficients on A and B: this replacement does not move it, so the attacker cannot tell them apart.")
    else:
        j = int(np.argmax(np.abs(diff)))
        flips = [names[i] for i in np.flatnonzero((t_a != 0) != (t_b != 0))]
        reveal = (f"Without noise the non-private teacher (IGHT, as plain knowledge transfer uses) differs between A "
                  f"and B by ‖θ̂_A − θ̂_B‖ = {np.linalg.norm(diff):.3g}; the largest change is {names[j]} "
                  f"({t_a[j]:.3g} on A, {t_b[j]:.3g} on B)"
                  + (f", and {', '.join(flips[:3])}{' …' if len(flips) > 3 else ''} enter or leave the support"
                     if flips else "")
                  + ". The attacker fits the teacher on A and on B themselves and reads off which one was released — "
                    "right 100 % of the time.")
    ex = exact["A"]
    neighbours = (replaced_record_text(n, d, index, y[index], alt_y, alt_x) + " KT with private support as released "
                  f"({loss}): s = {s}, the support from noisy votes of k = {ex.k} blocks (ε·{select_share:g}), the "
                  f"convex teacher on it (λ = {ex.lam:.3g}), Gaussian noise on m = {ex.X_syn.shape[0]} synthetic "
                  f"responses (ε·{1 - select_share:g}, δ = {delta:g}); public K = {p.K:g}, r = {p.r:g}, "
                  f"B = {p.radius():g}.")
    return AuditScenario(
        method="sparse", name=f"record {index + 1} replaced", neighbours=neighbours,
        summary=(f"log-likelihood ratio of the release: the support's (from {PILOT_DRAWS:,} independent pilot releases "
                 f"per data set) plus the Gaussian responses' given the support (the projection on "
                 "X̃_S(θ̂_A,S − θ̂_B,S)" + (")" if loss == "linear" else f", for the {MAX_SUPPORTS} commonest supports)")),
        claimed_epsilon=float(epsilon), delta=float(delta), sampler=sampler,
        planted_bug_label=("support taken from the non-private IGHT teacher (as plain KT does)"
                           if bug == "teacher" else "noise scales halved"),
        reveal=reveal)


def audit_scenarios(epsilon: float, delta: float = AUDIT_DELTA, bug: str = "clip") -> list[AuditScenario]:
    """Worst-case neighbours for the default release (peeling + private fit: the selection tipped, a record at
    every bound, both losses; :func:`peel_audit_scenarios`), for the KT release (stable support) and for DP-IGHT.

    The planted bug is "response clipping skipped" by default: it is caught at
    every ε. With ``bug="noise"`` (noise halved) the audit catches the bug
    only from ε ≈ 2 (KT) / ε ≈ 1 (DP-IGHT) at 2·10⁵ runs and δ = 10⁻²: both
    calibrations are conservative (the paper's textbook σ at δ/2, the zCDP
    conversion), so a halved σ still sits near the claimed ε for every event
    that many runs can resolve. δ defaults to 10⁻² for the same reason. The
    support-flip pair, where the paper's assumption fails, is in
    :func:`known_violation_scenarios`.
    """
    if bug not in BUG_LABELS:
        raise ValueError(f"bug must be one of {tuple(BUG_LABELS)}")
    return [*peel_audit_scenarios(epsilon, delta, bug), _kt_scenario("extreme", epsilon, delta, bug),
            _dp_ight_scenario(epsilon, delta, bug), _kt_ps_flip_scenario(epsilon, delta)]


def known_violation_scenarios(epsilon: float, delta: float = AUDIT_DELTA) -> list[AuditScenario]:
    """Scenarios on which the *correct* implementation is expected to be flagged (the paper's gap)."""
    return [_kt_scenario("flip", epsilon, delta, "noise")]
