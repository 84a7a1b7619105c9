"""The sparse-learning page's configuration as a notebook: data, one seeded batch of fits, curves over ε, release."""

from __future__ import annotations

from dataclasses import dataclass, field

from dpcore.notebooks.code import Cell, code
from dpcore.notebooks.common import READ_CSV, release_cell
from dpcore.sparse.events import KT_PRIVATE_SUPPORT, PEELING
from dpcore.sparse.session import SEED_STREAMS, SWEEP

#: the public constants a page may pass (keyword arguments of every sparse method)
CONSTANTS = ("K", "r", "B", "lam_rule", "c_lam", "c1", "T2", "dp_T", "m", "intercept")
TITLE = "Private sparse regression: knowledge transfer and baselines"
#: the page's release choice → (the name it is charged under, ``release_sparse``'s variant)
RELEASES = {"peel": (PEELING, "peeling"), "kt_ps": (KT_PRIVATE_SUPPORT, "private_support")}


@dataclass(frozen=True)
class SparseConfig:
    """The page's public settings. ``source``: "synthetic" (``n``, ``d``, ``s_star``, ``noise_sd``, ``data_seed``),
    "gdsc" (``drug``, ``d``, ``threshold``) or "upload" (the user's CSV: ``response``, ``features``, ``threshold``).
    ``params``: the public constants the page passes to every method (K, r, B, the ridge rule, steps, m).
    ``variant``: the release the page makes, ``"peel"`` (peeling + private fit) or ``"kt_ps"`` (knowledge transfer
    with a private support)."""

    source: str
    loss: str
    sparsity: int
    epsilon: float
    delta: float
    seed: int
    repeats: int
    methods: tuple[str, ...]
    params: dict = field(default_factory=dict)
    sweep: tuple[float, ...] = tuple(SWEEP.tolist())
    n: int = 1000
    d: int = 500
    s_star: int = 5
    noise_sd: float = 0.5
    data_seed: int = 0
    drug: str = ""
    threshold: float | None = None
    response: str = ""
    features: tuple[str, ...] = ()
    variant: str = "peel"


def _data(c: SparseConfig) -> list[Cell]:
    if c.source == "synthetic":
        return [Cell("Synthetic data with a known sparse θ* (and held-out records for the test error).",
                     code("data = sp.make_synthetic({n}, {d}, {s}, loss={loss}, noise={sd}, rng=np.random.default_rng({seed}))",
                          n=c.n, d=c.d, s=c.s_star, loss=c.loss, sd=c.noise_sd, seed=c.data_seed))]
    if c.source == "gdsc":
        return [Cell("The bundled GDSC features and one drug's response, split into training and held-out cell lines "
                     "by a public seed.",
                     code("data = sp.gdsc_problem({drug}, {d}, loss={loss}, threshold={thr})",
                          drug=c.drug, d=c.d, loss=c.loss, thr=c.threshold))]
    return [READ_CSV, Cell(
        "Choose the response and the features; 80 % of the rows train, the rest (a publicly seeded choice) test.",
        code("X, y = sp.sparse_from_frame(frame, {resp}, {feats}, loss={loss}, threshold={thr})\n"
             "train, test = sp.upload_split(len(y))\n"
             "data = sp.SparseData(X[train], y[train], X[test], y[test], None, {loss}, 'your data', {feats_tuple})",
             resp=c.response, feats=list(c.features), loss=c.loss, thr=c.threshold, feats_tuple=tuple(c.features)))]


def _constants(params: dict) -> dict:
    """The page's public constants, by their fixed names (they become keyword arguments in the code)."""
    unknown = set(params) - set(CONSTANTS)
    if unknown:
        raise ValueError(f"unknown sparse constants {sorted(unknown)}")
    return params




def cells(c: SparseConfig) -> list[Cell]:
    """The notebook's steps, in the page's order and with its seeds (so the numbers are the page's)."""
    params = ", ".join(f"{name}={{{name}}}" for name in _constants(c.params))
    return [
        Cell("Imports: dpcore's sparse package and its figures.",
             "import numpy as np\n\nfrom dpcore import sparse as sp\nfrom dpcore.sparse import figures as spf"),
        *_data(c),
        Cell("The page's settings: ε and δ, the sparsity, the methods and the public constants every method uses.",
             code("EPSILON, DELTA, SPARSITY, SEED, REPEATS = {eps}, {delta}, {s}, {seed}, {reps}\n"
                  "METHODS = {methods}\n" + f"params = dict({params})", eps=c.epsilon, delta=c.delta,
                  s=c.sparsity, seed=c.seed, reps=c.repeats, methods=c.methods, **_constants(c.params))),
        Cell("The non-private teacher, then one batch of preview fits per private method (seeded NumPy noise).",
             f"rng = {SEED_STREAMS.rng_code('fits')}\n"
             "Xc, yc = sp.prepare(data.X, data.y, data.loss, sp.SparseParams(**params))\n"
             "teacher = sp.teacher_fit(Xc, yc, sparsity=SPARSITY, lam=0.0, loss=data.loss, p=sp.SparseParams(**params))\n"
             "coefs = {'nonprivate': teacher[None]}\n"
             "for m in METHODS:\n"
             "    if m != 'nonprivate':\n"
             "        coefs[m] = sp.BATCH[m](data.X, data.y, sparsity=SPARSITY, epsilons=[EPSILON], delta=DELTA,\n"
             "                               loss=data.loss, rng=rng, draws=REPEATS, **params).coef[0]\n"
             "metrics = {m: sp.metrics(c, theta=data.theta, X_test=data.X_test, y_test=data.y_test, loss=data.loss,\n"
             "                         teacher=teacher) for m, c in coefs.items()}\n"
             "for m, values in metrics.items():\n"
             "    print(m, {k: round(float(np.mean(v)), 3) for k, v in values.items()})"),
        Cell("Coefficients of one preview draw of the release against the non-private "
             "model and the truth (when known), as on the page's first screen.",
             code("released = {variant}  # the method the page releases\n", variant=c.variant) +
             "headline = spf.release_stem_figure(teacher, coefs[released][0], variant=released, theta=data.theta,\n"
             "                                  feature_names=data.feature_names or None)", figure="headline"),
        Cell("The privacy–utility trade-off: every method over a grid of ε, repeated with fresh noise.",
             code("curve = sp.utility_curve(data, sparsity=SPARSITY, epsilons={sweep}, delta=DELTA, methods=METHODS,\n"
                  "                         repeats=REPEATS, rng=" + SEED_STREAMS.rng_code("sweep") + ", **params)\n"
                  "metric = 'l2_error' if data.theta is not None else 'test_error'\n"
                  "utility = spf.utility_figure(curve, metric, labels=sp.METHOD_LABELS, y_title=metric)",
                  sweep=list(c.sweep)), figure="utility"),
        release_cell(RELEASES[c.variant][0], "EPSILON", "DELTA", code(
            "bundle = sp.release_sparse(data.X, data.y, sparsity=SPARSITY, epsilon=EPSILON, delta=DELTA,\n"
            "                           loss=data.loss, feature_names=data.feature_names or None, variant={variant},\n"
            "                           **params)", variant=RELEASES[c.variant][1]),
            "sparse"),
    ]
