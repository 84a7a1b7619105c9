"""Plant privacy bugs one at a time in a scratch copy and report which the test suite catches.

Each entry of :data:`MUTATIONS` replaces one exact piece of code (it must occur exactly once) by a bug that
breaks a promise to a reviewer: a halved noise scale or sensitivity, a doubled budget, a release path that draws
less noise than its preview, a composition or cap rule that lets too much through, a person keyed twice, a ledger
read outside its scopes, an accountant that understates ε, a non-DP value in an export, an upload limit moved. The
script copies the working tree (tracked and untracked, not ignored files) to a temporary folder, optionally checks
that the unmutated tests pass there (a red baseline would make every bug look caught), then for each bug: plants
it, runs the bug's test files with ``pytest -x``, and puts the file back. A bug is *caught* when pytest reports
failing tests.

Run it before every change to ``dpcore/ledger/``, ``dpcore/core/persons.py``, ``dpcore/access.py``,
``dpcore/accounting/``, a release path or an export, and add an entry for every new noise scale, sensitivity,
ledger rule or export (docs/mutation.md). The full run takes about 31 minutes on two shared cores:

    python scripts/mutation_check.py                     # every bug, with the baseline; writes the table
    python scripts/mutation_check.py --only ledger-,links-  # ids starting with these prefixes (comma-separated)
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

LAW = "tests/accounting/test_release_law.py"
AUDIT = "tests/reporting/test_release_audit.py"
PREP = "tests/regression/test_preparation.py"
SURVIVAL = (LAW, AUDIT, "tests/survival/test_survival_release.py", "tests/survival/test_survival.py")
REGRESSION = (PREP, LAW, AUDIT, "tests/regression/test_regression.py", "tests/regression/test_regression_adassp.py")
SPARSE = (LAW, AUDIT, "tests/sparse/test_sparse_peeling.py", "tests/sparse/test_sparse.py")
FDR = (LAW, AUDIT, "tests/fdr/test_fdr.py", "tests/fdr/test_fdr_uploads.py")
COX = ("tests/survival/test_cox.py",)
LEDGER = ("tests/ledger/test_ledger_rules.py", "tests/ledger/test_ledger_store.py", "tests/ledger/test_ledger_keys.py")
EVERY_RELEASE = (LAW,)
# the guards: each list is the one behaviour-test file that names the broken promise, then the older tests
G_LEDGER = "tests/ledger/test_guards_ledger.py"
G_PERSONS = "tests/ledger/test_guards_persons.py"
G_ACCOUNTING = "tests/accounting/test_guards_accounting.py"
G_EXPORTS = "tests/reporting/test_guards_exports.py"
LINKS = (G_LEDGER, "tests/ledger/test_ledger_links.py")
STORE = (G_LEDGER, "tests/ledger/test_ledger_rules.py")
PERSONS = (G_PERSONS, "tests/ledger/test_ledger_links.py")
ACCESS = ("tests/ledger/test_access.py", "tests/ledger/test_access_scopes.py")
ACCOUNTING = (G_ACCOUNTING, "tests/accounting/test_accounting_releases.py", "tests/accounting/test_accounting.py")
EXPORTS = (G_EXPORTS, "tests/reporting/test_release_leaks.py", "tests/reporting/test_csv_injection.py")
UPLOADS = (G_EXPORTS, "tests/core/test_validation.py")


@dataclass(frozen=True)
class Mutation:
    id: str
    bug: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


MUTATIONS = [
    # ---- the eleven release-path bugs (the first table of docs/mutation.md)
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
             "dpcore/ledger/rules.py", "joined = chain(history_events, release_events)",
             "joined = chain(history_events)", LEDGER),
    Mutation("ledger-one-person-per-release", "ledger: a release charges only its first person",
             "dpcore/ledger/records.py", 'return self.persons or (f"data set {self.key}",)',
             'return self.persons[:1] or (f"data set {self.key}",)', (G_LEDGER, *LEDGER)),
    # ---- the shared release sampler: each kind drawn at half its scale (every preview unchanged)
    Mutation("opendp-discrete-laplace-halved", "OpenDP discrete Laplace at half its scale (every count release)",
             "dpcore/core/mechanisms.py", "make_laplace(domain, dp.l1_distance(T=int), scale=float(scale))",
             "make_laplace(domain, dp.l1_distance(T=int), scale=float(scale) / 2)", EVERY_RELEASE),
    Mutation("opendp-laplace-halved", "OpenDP Laplace at half its scale (every real-valued Laplace release)",
             "dpcore/core/mechanisms.py", "make_laplace(domain, dp.l1_distance(T=float), scale=float(scale))",
             "make_laplace(domain, dp.l1_distance(T=float), scale=float(scale) / 2)", EVERY_RELEASE),
    Mutation("opendp-gaussian-halved", "OpenDP Gaussian at half its σ (every Gaussian release)",
             "dpcore/core/mechanisms.py", "make_gaussian(domain, dp.l2_distance(T=float), scale=float(scale))",
             "make_gaussian(domain, dp.l2_distance(T=float), scale=float(scale) / 2)", EVERY_RELEASE),
    # ---- survival: every scale and sensitivity of its release
    Mutation("survival-sensitivity", "survival: the histogram's sensitivity 2 → 1", "dpcore/survival/statistic.py",
             "return 2 if (statistic == \"histogram\" or n_groups <= 1) else 4",
             "return 1 if (statistic == \"histogram\" or n_groups <= 1) else 4", SURVIVAL),
    Mutation("survival-noise-scale", "survival: the mechanism calibrated for Δ1/2", "dpcore/survival/mechanism.py",
             "return discrete_laplace_noise(sensitivity(n_groups, statistic=statistic), epsilon)",
             "return discrete_laplace_noise(sensitivity(n_groups, statistic=statistic) / 2, epsilon)",
             SURVIVAL),
    Mutation("survival-release-epsilon", "survival: the release calibrated for 2ε", "dpcore/survival/bundle.py",
             "noise = noise_for(counts, epsilon, kind=noise_kind, delta=delta)",
             "noise = noise_for(counts, 2 * epsilon, kind=noise_kind, delta=delta)", SURVIVAL),
    Mutation("survival-one-call-epsilon", "survival: the one-call functions' release calibrated for 2ε",
             "dpcore/survival/one_call.py", "    noise = noise_for(counts, epsilon)\n",
             "    noise = noise_for(counts, 2 * epsilon)\n", SURVIVAL),
    # ---- hazard ratios: the histogram's sensitivity, its clipping and its release path
    Mutation("cox-sensitivity", "hazard ratios: the histogram's sensitivity 2 → 1", "dpcore/survival/cox.py",
             "L1_SENSITIVITY = 2\n", "L1_SENSITIVITY = 1\n", COX),
    Mutation("cox-release-halved", "hazard ratios: the release path halves its noise (preview unchanged)",
             "dpcore/survival/cox.py", "else noise.release(values)", "else noise.with_scale_factor(0.5).release(values)",
             COX),
    Mutation("cox-no-clipping", "hazard ratios: binary covariates not clipped into their bounds",
             "dpcore/survival/cox.py", "values = np.clip(values, 0.0, 1.0)", "values = values", COX),
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
    # ---- the ledger's stores and rules (guards)
    Mutation("ledger-split-leaves-read-persons", "ledger: a release on part of a class leaves the persons it read on "
             "their old history", "dpcore/ledger/stores.py", "UPDATE persons SET class = ? WHERE owner = ? AND class = ? \"",
             "UPDATE persons SET class = ? WHERE owner = ? AND class = ? AND 1 = 0 \"", STORE),
    Mutation("ledger-partial-read-moves-class", "ledger: a release on part of a class moves the whole class",
             "dpcore/ledger/stores.py", "if cls and read == size:", "if cls and read <= size:", STORE),
    Mutation("ledger-sqlite-deferred-begin", "ledger: SQLite charges start with BEGIN, not BEGIN IMMEDIATE",
             "dpcore/ledger/stores.py", 'conn.execute("BEGIN IMMEDIATE")', 'conn.execute("BEGIN")',
             (G_LEDGER,)),
    Mutation("ledger-empty-scopes-read-all", "ledger: an empty list of scopes reads every custodian's ledger",
             "dpcore/ledger/stores.py", 'return " AND 1 = 0", ()', 'return "", ()', (G_LEDGER,)),
    Mutation("ledger-other-owner-charges", "ledger: a charge on another custodian's data-set key is not refused",
             "dpcore/ledger/stores.py", "        if owner != scope:\n", "        if owner != scope and False:\n",
             (G_LEDGER,)),
    Mutation("ledger-lowered-cap-ignored", "ledger: a custodian's lowered cap loses to the configured ceiling",
             "dpcore/ledger/rules.py", "min(stored.epsilon, ceiling.epsilon)", "max(stored.epsilon, ceiling.epsilon)",
             STORE),
    Mutation("ledger-refusal-checks-one-group", "ledger: the cap is checked on the first group of persons only",
             "dpcore/ledger/rules.py", "over = [g for g in standing.groups if _over(after[g], cap)]",
             "over = [g for g in standing.groups[:1] if _over(after[g], cap)]", STORE),
    Mutation("ledger-cap-ignores-delta", "ledger: a cap's δ is never checked", "dpcore/ledger/rules.py",
             "return spend[0] > cap.epsilon + 1e-12 or spend[1] > cap.delta + 1e-15",
             "return spend[0] > cap.epsilon + 1e-12", STORE),
    # ---- links: keys seen together are one person
    Mutation("links-merges-skipped", "links: a row showing two roots does not merge their histories",
             "dpcore/ledger/links.py", "result.merges[survivor] = existing[1:]", "pass", LINKS),
    Mutation("links-merge-keeps-survivor-history", "links: a merge keeps the survivor's history only",
             "dpcore/ledger/links.py", "roots = [survivor, *others]", "roots = [survivor]", LINKS),
    Mutation("links-row-keys-not-linked", "links: a row's other keys (other person columns, contents) are not linked",
             "dpcore/ledger/links.py", "{(p, k, 1) for p, k in (*holding.links, *extra)}",
             "{(p, k, 1) for p, k in extra}", LINKS),
    Mutation("links-legacy-lookups-dropped", "links: keys of ledgers before linking are not looked up",
             "dpcore/ledger/links.py", "keys |= {(p, k, 0) for p, k in holding.lookups if (p, k, 1) not in keys}",
             "keys |= set()", LINKS),
    Mutation("links-contents-not-registered", "links: an upload's contents are not recorded for recognition",
             "dpcore/ledger/stores.py", "\"kind FROM upload_contents WHERE 1 = 1 ON CONFLICT DO NOTHING\"",
             "\"kind FROM upload_contents WHERE 1 = 0 ON CONFLICT DO NOTHING\"", LINKS),
    Mutation("links-recognition-share-raised", "links: a file is recognised only when 80 % of it is an earlier one's",
             "dpcore/core/persons.py", "RECOGNITION_SHARE = 0.5", "RECOGNITION_SHARE = 0.8", LINKS),
    Mutation("links-recognition-share-lowered", "links: a file is recognised when 20 % of it is an earlier one's",
             "dpcore/core/persons.py", "RECOGNITION_SHARE = 0.5", "RECOGNITION_SHARE = 0.2", LINKS),
    Mutation("links-recognition-larger-side", "links: the share is taken of the larger file (a subset unrecognised)",
             "dpcore/ledger/links.py", "RECOGNITION_SHARE * min(mine[int(ours)], sizes[o, theirs])",
             "RECOGNITION_SHARE * max(mine[int(ours)], sizes[o, theirs])", LINKS),
    Mutation("links-id-files-recognise-without-ids", "links: two id-keyed files recognised on rows without their ids",
             "dpcore/ledger/links.py", "o.kind + i.kind < 2", "o.kind + i.kind < 3", LINKS),
    # ---- persons: who a row is
    Mutation("persons-subset-of-subset-reindexed", "persons: a subset of a subset is indexed into the full set",
             "dpcore/core/persons.py",
             "picked = np.arange(len(self.ids))[np.asarray(rows)] if self.rows is None else self.rows[np.asarray(rows)]",
             "picked = np.arange(len(self.ids))[np.asarray(rows)]", PERSONS),
    Mutation("persons-ids-not-case-folded", "persons: ids and text keyed with their case (P001 ≠ p001)",
             "dpcore/core/persons.py", "folded = text.str.casefold()", "folded = text", PERSONS),
    Mutation("persons-numbers-as-text", "persons: numbers keyed as text (7 ≠ 7.0 ≠ 07)", "dpcore/core/persons.py",
             "np.where(number.notna(), number.map(repr), \"t:\" + folded)",
             "np.where(False, number.map(repr), \"t:\" + folded)", PERSONS),
    Mutation("persons-repeat-only-when-all-repeat", "persons: the repeated-id check fires only when every id repeats",
             "dpcore/core/persons.py", "if not repeated.any():", "if not repeated.all():", PERSONS),
    Mutation("persons-identical-rows-accepted", "persons: identical rows accepted without the custodian's declaration",
             "dpcore/core/persons.py", "if repeat and not identical_rows_are_different_people:",
             "if repeat and not identical_rows_are_different_people and False:", PERSONS),
    Mutation("persons-column-order-matters", "persons: a row's content depends on its column order",
             "dpcore/core/persons.py", "ordered = np.sort(cells.astype(str), axis=1)", "ordered = cells.astype(str)",
             PERSONS),
    Mutation("persons-cohort-size-ignored", "persons: a cohort declared by name is one person whatever its size",
             "dpcore/core/persons.py", "range(1, int(size) + 1)", "range(1, 2)", PERSONS),
    Mutation("keys-scope-ignored", "keys: persons keyed alike in every custodian's scope", "dpcore/ledger/keys.py",
             'b"persons\\x00" + scope.encode()', 'b"persons\\x00"', (G_PERSONS,)),
    Mutation("keys-secret-ignored", "keys: persons keyed without the server's secret", "dpcore/ledger/keys.py",
             'hmac.new(secret if secret is not None else b"in-memory ledger",', 'hmac.new(b"in-memory ledger",',
             (G_PERSONS,)),
    Mutation("ui-holding-memo-ignores-rows", "release panel: the memo of a holding ignores which rows it holds",
             "ui/release.py", 'rows = "all" if persons.rows is None else fingerprint(persons.rows)', 'rows = "all"',
             (G_PERSONS, "tests/ui/test_release_panel.py")),
    Mutation("ui-release-values-not-recorded", "release panel: what a release exported is not kept in the ledger",
             "ui/release.py", "ledger.record_values(record, bundle.to_json())  # before", "(record, bundle)  # before",
             ("tests/ui/test_release_panel.py",)),
    # ---- access
    Mutation("access-reviewer-spends", "access: a reviewer is made a custodian of their own scope",
             "dpcore/access.py", 'return Person(person_id, name, REVIEWER, "", self.reviewers[person_id])',
             "return Person(person_id, name, CUSTODIAN, person_id, self.reviewers[person_id])", ACCESS),
    Mutation("access-group-member-own-scope", "access: a group member spends a budget of their own",
             "dpcore/access.py", "scope = GROUP_PREFIX + group", "scope = person_id", ACCESS),
    Mutation("access-signed-in-custodian", "access: every signed-in person a custodian", "dpcore/access.py",
             "self.signed_in_role == CUSTODIAN:", "self.signed_in_role != CUSTODIAN:", ACCESS),
    Mutation("access-visitors-always-admitted", "access: visitors admitted where the deployment refuses them",
             "dpcore/access.py", "return person.role != VISITOR or self.allow_visitors", "return True", ACCESS),
    Mutation("access-unverified-email", "access: an email claim without email_verified true identifies",
             "dpcore/access.py", 'if claims.get("email_verified") is not True', 'if claims.get("email_verified") is False',
             ACCESS),
    # ---- accounting
    Mutation("accounting-gaussian-pld-sigma", "accounting: the Gaussian PLD built for σ instead of σ/Δ",
             "dpcore/accounting/events.py", "pld_lib.from_gaussian_mechanism(self.sigma / self.sensitivity,",
             "pld_lib.from_gaussian_mechanism(self.sigma,", ACCOUNTING),
    Mutation("accounting-laplace-pld-scale", "accounting: the Laplace PLD built for b instead of b/Δ",
             "dpcore/accounting/events.py", "pld_lib.from_laplace_mechanism(self.scale / self.sensitivity,",
             "pld_lib.from_laplace_mechanism(self.scale,", ACCOUNTING),
    Mutation("accounting-discrete-laplace-unit", "accounting: the discrete Laplace PLD at sensitivity 1",
             "dpcore/accounting/events.py", "sensitivity=int(self.sensitivity),", "sensitivity=1,", ACCOUNTING),
    Mutation("accounting-gaussian-rdp-halved", "accounting: a Gaussian's zCDP ρ halved (RDP understated)",
             "dpcore/accounting/events.py", "return dpa.ZCDpEvent((self.sensitivity / self.sigma) ** 2 / 2.0)",
             "return dpa.ZCDpEvent((self.sensitivity / self.sigma) ** 2 / 4.0)", ACCOUNTING),
    Mutation("accounting-basic-without-its-delta", "accounting: basic composition offered when its δ exceeds the total",
             "dpcore/accounting/composition.py", "if delta_basic <= delta_total:", "if delta_basic >= 0:", ACCOUNTING),
    Mutation("accounting-survival-unit-sensitivity", "accounting: a survival release's event at sensitivity 1",
             "dpcore/survival/events.py", "return [DiscreteLaplace(sens / epsilon, sens)]",
             "return [DiscreteLaplace(sens / epsilon, 1)]", ACCOUNTING),
    Mutation("accounting-adassp-full-delta", "accounting: each AdaSSP Gaussian claims the whole δ",
             "dpcore/regression/events.py", "Gaussian.analytic(eps, delta * eps / eps_gauss)",
             "Gaussian.analytic(eps, delta)",
             ACCOUNTING),
    # ---- release paths and exports
    Mutation("survival-band-from-exact-counts", "survival: the release's confidence band drawn from the exact counts",
             "dpcore/survival/bundle.py", "time_resolution=time_resolution)\n    params = {",
             "time_resolution=time_resolution)\n    exact = released_tables(counts, noise, alpha=alpha, "
             "band_draws=band_draws, band_rule=band_rule, time_resolution=time_resolution)"
             "[\"kaplan_meier\"]\n    tables[\"kaplan_meier\"] = tables[\"kaplan_meier\"].assign("
             "ci_lower=exact[\"ci_lower\"], ci_upper=exact[\"ci_upper\"])\n    params = {", (G_EXPORTS,)),
    Mutation("export-fingerprint-in-json", "export: the data's fingerprint written into the release JSON",
             "dpcore/reporting/release.py", '"dataset": self.dataset,\n',
             '"dataset": self.dataset, "data_fingerprint": self.fingerprint,\n', EXPORTS),
    Mutation("export-report-fingerprint", "export: the report's heading names the data's fingerprint",
             "dpcore/reporting/report.py", "— {_esc(bundle.dataset)}</h2>", "— {_esc(bundle.dataset)} {_esc(bundle.fingerprint)}</h2>",
             EXPORTS),
    Mutation("export-csv-not-spreadsheet-safe", "export: CSV cells written without the formula escape",
             "dpcore/reporting/release.py", "return spreadsheet_safe(table).to_csv(index=False", "return table.to_csv(index=False",
             EXPORTS),
    # ---- upload limits
    Mutation("upload-size-limit-doubled", "uploads: files up to twice the size limit accepted", "dpcore/core/validation.py",
             "if len(data) > limits.max_bytes:", "if len(data) > 2 * limits.max_bytes:", UPLOADS),
    Mutation("upload-row-limit-doubled", "uploads: files up to twice the row limit accepted", "dpcore/core/validation.py",
             "if n_records > limits.max_rows:", "if n_records > 2 * limits.max_rows:", UPLOADS),
    Mutation("upload-column-limit-doubled", "uploads: headers up to twice the column limit accepted",
             "dpcore/core/validation.py", "if n_columns > limits.max_columns:", "if n_columns > 2 * limits.max_columns:",
             UPLOADS),
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
