"""Plant privacy bugs one at a time in a scratch copy and report which the test suite catches (issue 46).

Each entry of :data:`MUTATIONS` replaces one exact piece of code (it must occur exactly once) by a bug that
weakens a release: a halved noise scale or sensitivity, a doubled budget, a release path that draws less noise
than its preview, a composition or cap rule that lets too much through. The script copies the working tree
(tracked and untracked, not ignored files) to a temporary folder, optionally checks that the unmutated tests
pass there (a red baseline would make every bug look caught), then for each bug: plants it, runs the bug's test
files with ``pytest -x``, and puts the file back. A bug is *caught* when pytest reports failing tests.

Run it before changing a mechanism, a sensitivity or a noise path, and add an entry for every new noise scale or
sensitivity (docs/mutation.md):

    python scripts/mutation_check.py                     # every bug, with the baseline; writes the table
    python scripts/mutation_check.py --only survival-    # ids starting with these prefixes (comma-separated)
    python scripts/mutation_check.py --check             # only check that every bug still applies (no tests)

The table goes to stdout and to ``--out`` (default ``bench/results/mutation.md``). Exit status 1 when a bug is not
caught, a baseline fails or a bug no longer applies (the code moved: update its entry).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LAW = "tests/test_release_law.py"
AUDIT = "tests/test_release_audit.py"
PREP = "tests/test_preparation.py"
SURVIVAL = (LAW, AUDIT, "tests/test_survival_release.py", "tests/test_survival.py")
REGRESSION = (PREP, LAW, AUDIT, "tests/test_regression.py", "tests/test_regression_adassp.py")
SPARSE = (LAW, AUDIT, "tests/test_sparse_peeling.py", "tests/test_sparse.py")
FDR = (LAW, AUDIT, "tests/test_fdr.py", "tests/test_fdr_uploads.py")
LEDGER = ("tests/test_ledger_rules.py", "tests/test_ledger_store.py", "tests/test_ledger_keys.py")
EVERY_RELEASE = (LAW,)


@dataclass(frozen=True)
class Mutation:
    id: str
    bug: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


MUTATIONS = [
    # ---- the eleven of issue 46's table
    Mutation("survival-release-halved", "survival: the release path halves its noise (preview unchanged)",
             "dpcore/survival/mechanism.py", "return counts.from_vector(noise.release(vec))",
             "return counts.from_vector(noise.with_scale_factor(0.5).release(vec))", SURVIVAL),
    Mutation("regression-dp-mean-sensitivity", "regression: dp_mean's sensitivity halved, (hi − lo)/n → (hi − lo)/(2n)",
             "dpcore/regression/preparation.py", "return (hi - lo) / np.asarray(n, dtype=float)[()]",
             "return (hi - lo) / (2 * np.asarray(n, dtype=float)[()])", REGRESSION),
    Mutation("fdr-release-threshold-halved", "PAPRIKA: the release path's threshold noise halved (preview unchanged)",
             "dpcore/fdr/paprika.py",
             "return PaprikaNoise(na.release(np.zeros((R, cutoff + 1))), nt.release(np.zeros((R, T))))",
             "return PaprikaNoise(na.with_scale_factor(0.5).release(np.zeros((R, cutoff + 1))), "
             "nt.release(np.zeros((R, T))))", FDR),
    Mutation("survival-grouped-sensitivity", "survival: the paper's grouped matrix sensitivity 4 → 2",
             "dpcore/survival/statistic.py", "return 2 if (statistic == \"histogram\" or n_groups <= 1) else 4",
             "return 2 if (statistic == \"histogram\" or n_groups <= 1) else 2", SURVIVAL),
    Mutation("regression-nxy-sensitivity", "regression: nxy sensitivity 2dBxBy → dBxBy",
             "dpcore/regression/statistic.py",
             "2.0 * d * bx * by, by * by", "1.0 * d * bx * by, by * by", REGRESSION),
    Mutation("sparse-score-sensitivity", "peeling: score sensitivity 2Kr/n → Kr/n", "dpcore/sparse/peeling.py",
             "return 2.0 * p.K * (p.r if loss == \"linear\" else 1.0) / n",
             "return 1.0 * p.K * (p.r if loss == \"linear\" else 1.0) / n", SPARSE),
    Mutation("sparse-kt-sensitivity", "KT with private support: σ's sensitivity term 2√sγ/(nλ) halved",
             "dpcore/sparse/private_support.py", "(2.0 * math.sqrt(s) * gamma / (n * lam) + 2.0 * opt_error)",
             "(1.0 * math.sqrt(s) * gamma / (n * lam) + 2.0 * opt_error)", SPARSE),
    Mutation("fdr-stream-shift-union-bound", "PAPRIKA: the stream shift drops its union bound over k (ln(2k/3δ) → "
             "ln(2/3δ))", "dpcore/fdr/calibration.py", "b * math.log(2.0 * horizon / (3.0 * delta))",
             "b * math.log(2.0 / (3.0 * delta))", FDR),
    Mutation("ledger-cap-ignores-new-epsilon", "ledger: a person's basic total ignores the new release's ε",
             "dpcore/ledger/records.py", "return spend.epsilon + epsilon, spend.delta + delta",
             "return spend.epsilon, spend.delta + delta", LEDGER),
    Mutation("ledger-cap-ignores-new-delta", "ledger: a person's basic total ignores the new release's δ",
             "dpcore/ledger/records.py", "return spend.epsilon + epsilon, spend.delta + delta",
             "return spend.epsilon + epsilon, spend.delta", LEDGER),
    Mutation("ledger-cap-max-not-sum", "ledger: spending composed by the largest release instead of the sum",
             "dpcore/ledger/records.py", "return spend.epsilon + epsilon, spend.delta + delta",
             "return max(spend.epsilon, epsilon), spend.delta + delta", LEDGER),
    Mutation("ledger-tight-ignores-new-events", "ledger: the tight check leaves out the new release's events",
             "dpcore/ledger/rules.py", "joined = chain(spend.events, events)", "joined = chain(spend.events)", LEDGER),
    Mutation("ledger-one-person-per-release", "ledger: a release charges only its first person",
             "dpcore/ledger/records.py", 'return self.persons or (f"data set {self.key}",)',
             'return self.persons[:1] or (f"data set {self.key}",)', LEDGER),
    # ---- the shared release sampler: each kind drawn at half its scale (every preview unchanged)
    Mutation("opendp-discrete-laplace-halved", "OpenDP discrete Laplace at half its scale (every count release)",
             "dpcore/mechanisms.py", "make_laplace(domain, dp.l1_distance(T=int), scale=float(scale))",
             "make_laplace(domain, dp.l1_distance(T=int), scale=float(scale) / 2)", EVERY_RELEASE),
    Mutation("opendp-laplace-halved", "OpenDP Laplace at half its scale (every real-valued Laplace release)",
             "dpcore/mechanisms.py", "make_laplace(domain, dp.l1_distance(T=float), scale=float(scale))",
             "make_laplace(domain, dp.l1_distance(T=float), scale=float(scale) / 2)", EVERY_RELEASE),
    Mutation("opendp-gaussian-halved", "OpenDP Gaussian at half its σ (every Gaussian release)",
             "dpcore/mechanisms.py", "make_gaussian(domain, dp.l2_distance(T=float), scale=float(scale))",
             "make_gaussian(domain, dp.l2_distance(T=float), scale=float(scale) / 2)", EVERY_RELEASE),
    # ---- survival: every scale and sensitivity of its release
    Mutation("survival-sensitivity", "survival: the histogram's sensitivity 2 → 1", "dpcore/survival/statistic.py",
             "return 2 if (statistic == \"histogram\" or n_groups <= 1) else 4",
             "return 1 if (statistic == \"histogram\" or n_groups <= 1) else 4", SURVIVAL),
    Mutation("survival-noise-scale", "survival: the mechanism calibrated for Δ1/2", "dpcore/survival/mechanism.py",
             "return discrete_laplace_noise(delta1, epsilon)", "return discrete_laplace_noise(delta1 / 2, epsilon)",
             SURVIVAL),
    Mutation("survival-release-epsilon", "survival: the release calibrated for 2ε", "dpcore/survival/bundle.py",
             "noise = noise_for(counts, epsilon, kind=\"discrete_laplace\")",
             "noise = noise_for(counts, 2 * epsilon, kind=\"discrete_laplace\")", SURVIVAL),
    Mutation("survival-one-call-epsilon", "survival: the one-call functions' release calibrated for 2ε",
             "dpcore/survival/one_call.py", "    noise = noise_for(counts, epsilon)\n",
             "    noise = noise_for(counts, 2 * epsilon)\n", SURVIVAL),
    # ---- regression: preparation, robust private LR, AdaSSP
    Mutation("regression-mad-sensitivity", "regression: dp_sigma's MAD sensitivity halved",
             "dpcore/regression/preparation.py",
             "np.asarray(centre, dtype=float) - lo)[()] / n", "np.asarray(centre, dtype=float) - lo)[()] / (2 * n)",
             REGRESSION),
    Mutation("regression-column-mean-sensitivity", "regression: dp_column_mean's sensitivity halved",
             "dpcore/regression/preparation.py",
             "return float(np.sum(np.asarray(hi, dtype=float) - np.asarray(lo, dtype=float))) / n",
             "return float(np.sum(np.asarray(hi, dtype=float) - np.asarray(lo, dtype=float))) / (2 * n)", REGRESSION),
    Mutation("regression-preparation-share", "regression: each DP preparation item charged ε/k but drawn at 2ε/k",
             "dpcore/regression/preparation.py", "share = epsilon / len(dp_items) if dp_items else 0.0",
             "share = 2 * epsilon / len(dp_items) if dp_items else 0.0", REGRESSION),
    Mutation("regression-nxx-sensitivity", "regression: nxx sensitivity d(d+1)Bx² halved",
             "dpcore/regression/statistic.py", "return d * (d + 1) * bx * bx, ",
             "return d * (d + 1) * bx * bx / 2, ", REGRESSION),
    Mutation("regression-nyy-sensitivity", "regression: nyy sensitivity By² halved", "dpcore/regression/statistic.py",
             "2.0 * d * bx * by, by * by", "2.0 * d * bx * by, by * by / 2", REGRESSION),
    Mutation("regression-nyy-budget", "regression: nyy drawn at 2·p3·ε", "dpcore/regression/mechanism.py",
             "laplace_noise(s3, p3 * epsilon)", "laplace_noise(s3, 2 * p3 * epsilon)", REGRESSION),
    Mutation("regression-release-nyy-halved", "regression: StatNoise.release halves nyy's noise (preview unchanged)",
             "dpcore/regression/mechanism.py", "self.yy.release(np.asarray(s.nyy, dtype=float))",
             "self.yy.with_scale_factor(0.5).release(np.asarray(s.nyy, dtype=float))", REGRESSION),
    Mutation("adassp-lambda-sensitivity", "AdaSSP: λ_min sensitivity 1 → 0.5", "dpcore/regression/adassp.py",
             "return 1.0, math.sqrt(2.0), 2.0 * float(by)", "return 0.5, math.sqrt(2.0), 2.0 * float(by)", REGRESSION),
    Mutation("adassp-xx-sensitivity", "AdaSSP: XᵀX sensitivity √2 → √2/2", "dpcore/regression/adassp.py",
             "return 1.0, math.sqrt(2.0), 2.0 * float(by)", "return 1.0, math.sqrt(2.0) / 2, 2.0 * float(by)",
             REGRESSION),
    Mutation("adassp-xy-sensitivity", "AdaSSP: Xᵀy sensitivity 2By → By", "dpcore/regression/adassp.py",
             "return 1.0, math.sqrt(2.0), 2.0 * float(by)", "return 1.0, math.sqrt(2.0), 1.0 * float(by)", REGRESSION),
    Mutation("adassp-release-lambda-halved", "AdaSSP: the release path halves λ_min's noise (preview unchanged)",
             "dpcore/regression/adassp.py", "n_lam, n_xx, n_xy = noise.lam_min.release(lam_min),",
             "n_lam, n_xx, n_xy = noise.lam_min.with_scale_factor(0.5).release(lam_min),", REGRESSION),
    # ---- sparse: peeling + private fit, KT with private support
    Mutation("sparse-gumbel-scale", "peeling: Gumbel β for a quarter of ρ_sel's denominator (β halved)",
             "dpcore/sparse/peeling.py", "beta = delta_inf * math.sqrt(s / (2.0 * rho_sel))",
             "beta = delta_inf * math.sqrt(s / (8.0 * rho_sel))", SPARSE),
    Mutation("sparse-gram-sensitivity", "peeling: ZᵀZ sensitivity √2·z² halved", "dpcore/sparse/peeling.py",
             "return {\"gram\": math.sqrt(2.0) * z2,", "return {\"gram\": math.sqrt(2.0) * z2 / 2,", SPARSE),
    Mutation("sparse-moment-sensitivity", "peeling: Zᵀy sensitivity 2rz → rz", "dpcore/sparse/peeling.py",
             "\"moment\": 2.0 * p.r * math.sqrt(z2)}", "\"moment\": 1.0 * p.r * math.sqrt(z2)}", SPARSE),
    Mutation("sparse-gradient-sensitivity", "peeling (logistic): gradient sensitivity 2z → z",
             "dpcore/sparse/peeling.py", "return {\"gradient\": 2.0 * math.sqrt(z2)}",
             "return {\"gradient\": 1.0 * math.sqrt(z2)}", SPARSE),
    Mutation("sparse-release-gram-halved", "peeling: the release path halves ZᵀZ's noise (preview unchanged)",
             "dpcore/sparse/peeling.py", "gram = gram_matrix(gram_noise.release(gram_vector(Z.T @ Z)), q)",
             "gram = gram_matrix(gram_noise.with_scale_factor(0.5).release(gram_vector(Z.T @ Z)), q)", SPARSE),
    Mutation("sparse-kt-vote-sensitivity", "KT with private support: vote sensitivity 2s/k → s/k",
             "dpcore/sparse/private_support.py", "return laplace_noise(2.0 * s / k, epsilon)",
             "return laplace_noise(1.0 * s / k, epsilon)", SPARSE),
    Mutation("sparse-kt-release-sigma", "KT with private support: the release's σ for half the sensitivity",
             "dpcore/sparse/bundle.py", "analytic_gaussian_sigma(sens, e2, delta)",
             "analytic_gaussian_sigma(sens / 2, e2, delta)", SPARSE),
    # ---- PAPRIKA: both noises, both paths
    Mutation("fdr-threshold-scale", "PAPRIKA: threshold noise 2ηc/ε → ηc/ε (previews and releases)",
             "dpcore/fdr/calibration.py", "return laplace_noise(2.0 * eta * cutoff, epsilon), laplace_noise(",
             "return laplace_noise(1.0 * eta * cutoff, epsilon), laplace_noise(", FDR),
    Mutation("fdr-test-scale", "PAPRIKA: per-test noise 4ηc/ε → 2ηc/ε (previews and releases)",
             "dpcore/fdr/calibration.py", "laplace_noise(4.0 * eta * cutoff, epsilon)\n",
             "laplace_noise(2.0 * eta * cutoff, epsilon)\n", FDR),
    Mutation("fdr-release-test-halved", "PAPRIKA: the release path's per-test noise halved (preview unchanged)",
             "dpcore/fdr/paprika.py", "nt.release(np.zeros((R, T))))", "nt.with_scale_factor(0.5).release("
             "np.zeros((R, T))))", FDR),
    Mutation("fdr-release-epsilon", "PAPRIKA: the release drawn at 2ε", "dpcore/fdr/bundle.py",
             "run_paprika(p, alpha=alpha, epsilon=epsilon,", "run_paprika(p, alpha=alpha, epsilon=2 * epsilon,", FDR),
    Mutation("fdr-one-call-epsilon", "PAPRIKA: the one-call function drawn at 2ε", "dpcore/fdr/one_call.py",
             "run_paprika(p, alpha=alpha, epsilon=epsilon,", "run_paprika(p, alpha=alpha, epsilon=2 * epsilon,", FDR),
]


def scratch_copy(dest: Path) -> None:
    """The working tree's tracked and untracked (not ignored) files, copied below ``dest``."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def run_tests(scratch: Path, tests: tuple[str, ...], python: str, timeout: float) -> tuple[str, str, float]:
    """``(outcome, first failing test, seconds)``: outcome ``caught``, ``NOT caught`` or ``error (…)``."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTHONPATH")}
    env["PYTHONPATH"] = str(scratch)
    start = time.monotonic()
    try:
        proc = subprocess.run([python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests], cwd=scratch,
                              env=env, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return f"error (timeout after {timeout:g} s)", "", time.monotonic() - start
    seconds = time.monotonic() - start
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", proc.stdout, flags=re.MULTILINE)
    first = failed[0] if failed else ""
    if proc.returncode == 1:
        return "caught", first, seconds
    if proc.returncode == 0:
        return "NOT caught", "", seconds
    return f"error (pytest exit {proc.returncode})", first or proc.stdout.strip()[-200:], seconds


def plant(path: Path, mutation: Mutation) -> str:
    """Plant ``mutation`` in ``path`` and return the original text; raises when it does not apply exactly once."""
    text = path.read_text()
    if text.count(mutation.old) != 1:
        raise LookupError(f"{mutation.id}: the code to replace occurs {text.count(mutation.old)} times in "
                          f"{mutation.path} (the code moved: update this entry)")
    path.write_text(text.replace(mutation.old, mutation.new))
    return text


def table(rows: list[tuple[Mutation, str, str, float]]) -> str:
    lines = ["| id | planted bug | file | tests run | result | first failing test | s |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for m, outcome, first, seconds in rows:
        tests = ", ".join(Path(t).name for t in m.tests)
        lines.append(f"| {m.id} | {m.bug} | `{m.path}` | {tests} | **{outcome}** | {first.replace('|', '¦')} | "
                     f"{seconds:.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated id prefixes (default: every bug)")
    parser.add_argument("--check", action="store_true", help="only check that every bug applies; run no tests")
    parser.add_argument("--no-baseline", action="store_true", help="skip the run of the unmutated tests")
    parser.add_argument("--out", default="bench/results/mutation.md", help="where the table is written ('' = none)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that runs pytest")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per pytest run")
    args = parser.parse_args(argv)
    prefixes = [p for p in args.only.split(",") if p]
    chosen = [m for m in MUTATIONS if not prefixes or any(m.id.startswith(p) for p in prefixes)]
    if not chosen:
        parser.error(f"no bug id starts with {args.only!r}")
    status = 0
    source = _source()  # what the scratch copy holds, named when it is taken (the tree may change during the run)
    with tempfile.TemporaryDirectory(prefix="dpcore-mutation-") as tmp:
        scratch = Path(tmp)
        scratch_copy(scratch)
        for m in chosen:  # every entry must still apply to today's code
            try:
                (scratch / m.path).write_text(plant(scratch / m.path, m))
            except LookupError as err:
                print(err, file=sys.stderr)
                status = 1
        if args.check or status:
            print(f"{len(chosen)} bugs checked" + (": some no longer apply" if status else ", every one applies"))
            return status
        baseline = "baseline skipped"
        if not args.no_baseline:
            tests = tuple(dict.fromkeys(t for m in chosen for t in m.tests))
            outcome, first, seconds = run_tests(scratch, tests, args.python, args.timeout)
            if outcome != "NOT caught":  # the unmutated suite must pass
                print(f"the baseline fails ({outcome}, {first}): fix that first", file=sys.stderr)
                return 1
            baseline = f"baseline (no bug planted): the {len(tests)} test files pass in {seconds:.0f} s"
            print(baseline, flush=True)
        rows = []
        for m in chosen:
            original = plant(scratch / m.path, m)
            try:
                outcome, first, seconds = run_tests(scratch, m.tests, args.python, args.timeout)
            finally:
                (scratch / m.path).write_text(original)
            rows.append((m, outcome, first, seconds))
            print(f"{m.id}: {outcome} ({seconds:.0f} s) {first}", flush=True)
            status |= outcome != "caught"
    caught = sum(outcome == "caught" for _, outcome, _, _ in rows)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    report = (f"Mutation check, {when}, {source}; {baseline}. **{caught} of {len(rows)} planted bugs caught.**\n\n"
              f"{table(rows)}\n")
    print("\n" + report)
    if args.out:
        out = ROOT / args.out
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(report)
    return status


def _source() -> str:
    """``commit <hash>``, with a note when tracked files differ from it."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()

    dirty = git("status", "--porcelain", "--untracked-files=no")
    return f"commit {git('rev-parse', '--short', 'HEAD')}" + (" with uncommitted changes" if dirty else "")


if __name__ == "__main__":
    sys.exit(main())
