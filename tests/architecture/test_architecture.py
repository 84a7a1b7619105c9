"""Standing rules of the design: dpcore is UI-free, nothing leaks uploads, pages are thin."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_dpcore_never_imports_streamlit():
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "dpcore").rglob("*.py") if "streamlit" in _imports(p)]
    assert offenders == []


# --------------------------------------------------------------------------
# The import graph of dpcore: no cycles, dependencies point down (docs/architecture.md)
# --------------------------------------------------------------------------

METHODS = ("survival", "regression", "sparse", "fdr")
#: figure modules: Plotly builders, which may import results but are imported only by figures and reports
FIGURE_MODULES = {"dpcore.reporting.figures", "dpcore.reporting.attack_figures", "dpcore.reporting.release_figures",
                  "dpcore.ledger.figures", *(f"dpcore.{m}.figures" for m in METHODS)}
#: the report layer: renders bundles and decides which figures go with them
REPORT_MODULES = {"dpcore.reporting.report", "dpcore.ledger.history"}
MAX_LINES = 500


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _dpcore_modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted((ROOT / "dpcore").rglob("*.py"))}


def _import_graph() -> tuple[dict[str, set[str]], dict[str, list[str]]]:
    """Edges module → dpcore module it imports (at any depth: function-level imports count too).

    Importing ``dpcore.a.b`` from outside ``dpcore.a`` runs ``dpcore.a``'s ``__init__`` first, so that is
    an edge as well; from inside the package it is not (Python has already started the package).
    Also returns, per module, its imports made inside a function or class body.
    """
    modules = _dpcore_modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    nested: dict[str, list[str]] = {name: [] for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        top_level = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
            targets = [t for t in targets if t.split(".")[0] == "dpcore"]
            if targets and id(node) not in top_level:
                nested[name].extend(targets)
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                parts = target.split(".")
                for k in range(2, len(parts) + 1):  # the packages above the target, then the target itself
                    ancestor = ".".join(parts[:k])
                    if ancestor in modules and not (name == ancestor or name.startswith(ancestor + ".")):
                        graph[name].add(ancestor)
                if target in modules and target != name:
                    graph[name].add(target)
    return graph, nested


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, stack = set(), [start]
    while stack:
        for nxt in graph[stack.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def test_the_import_graph_sees_every_method_package():
    graph, _ = _import_graph()
    for method in METHODS:
        assert f"dpcore.{method}" in graph and f"dpcore.{method}.figures" in graph
    assert "dpcore.survival" in graph["dpcore.survival.figures"] or graph["dpcore.survival.figures"] & {
        m for m in graph if m.startswith("dpcore.survival.")}


def test_no_import_cycles_in_dpcore():
    graph, _ = _import_graph()
    cycles = sorted(name for name in graph if name in _reachable(graph, name))
    assert cycles == [], f"modules on an import cycle: {cycles}"


def test_no_function_level_imports_of_dpcore_modules():
    """Imports of dpcore modules sit at the top of the file, where the graph is visible (none dodges a cycle)."""
    _, nested = _import_graph()
    assert {name: targets for name, targets in nested.items() if targets} == {}


def test_figures_and_reports_depend_on_results_never_the_reverse():
    graph, _ = _import_graph()
    allowed = FIGURE_MODULES | REPORT_MODULES
    for name, targets in graph.items():
        if name not in allowed:
            assert not targets & FIGURE_MODULES, f"{name} imports a figure module: {targets & FIGURE_MODULES}"
    method_figures = {f"dpcore.{m}.figures" for m in METHODS} | {"dpcore.reporting.attack_figures"}
    for name in graph:
        if name not in allowed:  # not even through another module
            assert not _reachable(graph, name) & method_figures, name
    # the report layer reads bundles by their attributes: it never needs a method's code
    for name in REPORT_MODULES | {"dpcore.reporting.release_figures", "dpcore.reporting.release"}:
        assert not {t for t in _reachable(graph, name) if t.split(".")[1:2] and t.split(".")[1] in METHODS
                    or t == "dpcore.reporting.attack"}, name


def test_the_root_shows_the_layers_and_the_kernel_imports_nothing_above_it():
    """``ls dpcore`` reads as the layers: at most three flat modules beside the packages (the privacy layer's
    access, registry and provenance), and ``core`` — which every method imports — reaches only ``core``."""
    flat = sorted(p.name for p in (ROOT / "dpcore").glob("*.py") if p.name != "__init__.py")
    assert len(flat) <= 3, flat
    graph, _ = _import_graph()
    kernel = [name for name in graph if name.startswith("dpcore.core")]
    assert len(kernel) >= 9
    for name in kernel:
        assert _reachable(graph, name) <= set(kernel), (name, _reachable(graph, name) - set(kernel))


def test_the_privacy_layer_imports_no_method():
    """The ledger, the accountant and the registry compose what each method declares (its events module, imported
    by name when asked for): none of them reaches a method's code, so a reviewer reads how a release is charged
    without the methods, and a new method plugs in without changing them."""
    graph, _ = _import_graph()
    privacy = [name for name in graph if name.split(".")[1:2] and name.split(".")[1] in ("ledger", "accounting")]
    assert len(privacy) > 5
    for name in [*privacy, "dpcore.registry"]:
        reached = {t for t in _reachable(graph, name) if t.split(".")[1:2] and t.split(".")[1] in METHODS}
        assert not reached, (name, reached)


def test_statistic_and_release_modules_never_import_the_report():
    """A method's stages and its bundle return data; rendering is the report layer's business."""
    graph, _ = _import_graph()
    stage_modules = [name for name in graph if name.split(".")[1:2] and name.split(".")[1] in METHODS
                     and not name.endswith(".figures")]
    assert len(stage_modules) > 20
    for name in stage_modules:
        assert not graph[name] & (REPORT_MODULES | FIGURE_MODULES), (name, graph[name] & (REPORT_MODULES | FIGURE_MODULES))


def test_each_method_package_reads_in_data_flow_order():
    """Every stage file imports only the files its package ``__init__`` lists above it (the ``N. ``name.py`` list)."""
    graph, _ = _import_graph()
    for method in METHODS:
        doc = ast.get_docstring(ast.parse((ROOT / "dpcore" / method / "__init__.py").read_text(encoding="utf-8")))
        assert "Sensitivity proof" in doc, method
        order = [f"dpcore.{method}.{m}" for m in re.findall(r"``(\w+)\.py``", doc)]
        listed = set(order)
        on_disk = {name for name in graph if name.startswith(f"dpcore.{method}.")}
        assert on_disk <= listed, f"{method}: files missing from the __init__ list: {on_disk - listed}"
        for i, name in enumerate(order):
            later = set(order[i + 1:]) - set(order[:i + 1])
            assert not graph[name] & later, f"{name} imports a file listed after it: {graph[name] & later}"


def test_no_dpcore_file_over_500_lines_unless_it_says_why():
    """Split a long file by stage; a file that would scatter one idea says so ("Why one file") in its docstring."""
    for path in sorted((ROOT / "dpcore").rglob("*.py")):
        lines = path.read_text(encoding="utf-8").count("\n")
        if lines > MAX_LINES:
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
            assert "Why one file" in doc, f"{path.relative_to(ROOT)} has {lines} lines"


MAX_PAGE_LINES = 250


def test_every_page_is_short_enough_to_read_at_once():
    """A page is its controls, one call into its method's session, figures and the release panel: what it computes
    lives in ``dpcore/<method>/session.py``, its prose in ``page_text.py``, its drawn sections in ``ui/<method>/``."""
    long = {p.name: n for p in sorted((ROOT / "app_pages").glob("*.py"))
            if (n := p.read_text(encoding="utf-8").count("\n")) > MAX_PAGE_LINES}
    assert long == {}


def test_nothing_writes_uploads_to_disk_or_logs_them():
    """Pages and UI helpers never open files for writing or log data (uploads stay in memory)."""
    for folder in ("ui", "app_pages"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            for forbidden in (r"\bopen\(", r"\.to_csv\(['\"]", r"\bto_parquet\(", r"\blogging\.info\(", r"\bprint\("):
                assert not re.search(forbidden, text), f"{path.name} matches {forbidden}"


def test_no_cross_session_cache_of_uploads():
    """st.cache_data/cache_resource are shared across sessions: never on a function taking uploaded data."""
    for path in [*(ROOT / "app_pages").glob("*.py"), *(ROOT / "ui").rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                cached = any("cache" in ast.unparse(d) for d in node.decorator_list)
                args = " ".join(a.arg for a in node.args.args)
                if cached:
                    assert not any(w in args for w in ("upload", "frame", "raw_bytes")), (path.name, node.name)


def test_every_package_face_names_its_public_api():
    """Each package ``__init__`` lists its public API in ``__all__``: every name there exists, and every public name
    it imports from dpcore is listed (a name added to the face without ``__all__`` fails here)."""
    import importlib

    for path in sorted((ROOT / "dpcore").rglob("__init__.py")):
        name = _module_name(path)
        module = importlib.import_module(name)
        assert hasattr(module, "__all__"), f"{name} has no __all__"
        assert not [n for n in module.__all__ if not hasattr(module, n)], name
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
                    and (node.module or "").startswith("dpcore") for alias in node.names}
        assert {n for n in imported if not n.startswith("_")} <= set(module.__all__), name


def test_no_test_imports_another_test_file():
    """Tests share code through ``tests/support/`` only: a test file imported by another runs twice and couples
    unrelated failures."""
    offenders = {}
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
                     if isinstance(node, ast.ImportFrom) else [])
            if any(n.split(".")[-1].startswith("test_") and n.startswith("tests") for n in names):
                offenders.setdefault(str(path.relative_to(ROOT)), []).extend(names)
    assert offenders == {}


def test_the_test_tree_mirrors_the_package_tree():
    """Tests of ``dpcore/<package>/`` live in ``tests/<package>/``; besides those, only the app (pages), ``ui``,
    architecture rules and shared support code have folders, and no test file sits loose at the top."""
    packages = {p.parent.name for p in (ROOT / "dpcore").glob("*/__init__.py")}
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    assert folders - packages <= {"app", "ui", "architecture", "support"}, sorted(folders - packages)
    assert sorted(p.name for p in (ROOT / "tests").glob("test_*.py")) == []


def test_test_file_names_are_unique_across_folders():
    """The test folders are not packages (``tests/ui`` would shadow the ``ui`` package), so pytest imports each test
    file by its base name: a second ``test_session.py`` stops collection. Name them after the package too
    (``tests/fdr/test_fdr_session.py``)."""
    names = [p.name for p in (ROOT / "tests").rglob("test_*.py")]
    assert sorted({n for n in names if names.count(n) > 1}) == []


def test_the_reporting_layer_imports_no_method_package():
    """Each method owns its attacker pair (``dpcore/<method>/attack_pair.py``) and its figures; the reporting layer
    (release bundle, report, figures, the generic attacker's view) reads pairs and bundles through kernel types and
    never imports a method package (survival, regression, sparse, fdr), directly or through another module."""
    graph, _ = _import_graph()
    reporting = [name for name in graph if name == "dpcore.reporting" or name.startswith("dpcore.reporting.")]
    assert "dpcore.reporting.attack" in reporting and len(reporting) > 5
    for name in reporting:
        reached = {t for t in _reachable(graph, name) if t.split(".")[1:2] and t.split(".")[1] in METHODS}
        assert not reached, (name, sorted(reached))


def test_one_budget_check_for_every_entry_point():
    """Every (ε, δ) is checked by ``dpcore.core.mechanisms.check_budget``: one message and one δ range for plans,
    fitters, private choices and releases (a module comparing ε or δ with its own bounds is a second check)."""
    own = re.compile(r"\b(self\.)?eps(ilon)?s? *> *0\b|isfinite\((self\.)?eps|\b0 *<=? *(self\.)?delta *<")
    offenders = [f"{p.relative_to(ROOT)}:{n}" for p in sorted((ROOT / "dpcore").rglob("*.py"))
                 if p.name != "mechanisms.py"
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if own.search(line)]
    assert offenders == []


def _dpcore_aliases() -> list[tuple[str, str, str]]:
    """``(file, alias, module)`` for every ``import dpcore… as alias`` in the code and the tests."""
    found = []
    for folder in ("dpcore", "ui", "app_pages", "tests", "bench", "scripts"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpcore"):
                    found += [(str(path.relative_to(ROOT)), a.asname, f"{node.module}.{a.name}")
                              for a in node.names if a.asname and not a.asname.startswith("_")]
                elif isinstance(node, ast.Import):
                    found += [(str(path.relative_to(ROOT)), a.asname, a.name)
                              for a in node.names if a.name.startswith("dpcore") and a.asname]
    return found


def test_one_alias_per_module_and_one_module_per_alias():
    """``sf`` is the survival figures everywhere, ``spf`` the sparse ones: a reader never has to look up which
    module an alias means in this file. The one shared alias is ``text``, each method's own page text, imported
    only inside that method's files."""
    aliases, modules = {}, {}
    for path, alias, module in _dpcore_aliases():
        if alias == "text" and module.endswith(".page_text"):
            assert module.split(".")[1] in path, (path, module)
            continue
        aliases.setdefault(alias, set()).add(module)
        modules.setdefault(module, set()).add(alias)
    assert {a: m for a, m in aliases.items() if len(m) > 1} == {}
    assert {m: a for m, a in modules.items() if len(a) > 1} == {}


def test_no_issue_numbers_in_code_or_tests():
    """The tracker is not in the repository: code, docstrings and tests state the behaviour or cite the paper."""
    pattern = re.compile(r"\b[Ii]ssues? #?\d+")
    folders = ("dpcore", "ui", "app_pages", "tests", "bench", "scripts")
    offenders = [f"{p.relative_to(ROOT)}:{n}" for folder in folders for p in sorted((ROOT / folder).rglob("*.py"))
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert offenders == []
