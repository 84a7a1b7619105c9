"""Statements of the user documentation (the README and docs/) that went stale: sparse uploads have one public bound
K (no per-feature ranges), and every quoted F1 of the sparse default release names the design it was measured on."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README = re.sub(r"\s+", " ", " ".join(p.read_text() for p in DOCS))  # one line: statements wrap


def _bullet(start: str) -> str:
    at = README.index(start)
    return README[at:README.index(" - ", at + len(start))]


def test_readme_says_sparse_uploads_have_one_bound_k_as_the_page_does():
    sparse = _bullet("- **Sparse learning:**")
    assert "one public bound [−K, K]" in sparse and "no per-feature ranges" in sparse
    assert "sparse" not in _bullet("- **Drug sensitivity").lower()
    page = "".join(p.read_text() for p in [ROOT / "app_pages" / "sparse.py", *(ROOT / "ui" / "sparse").glob("*.py")])
    assert 'key="sp_K"' in page and "feature_ranges" not in page  # one bound, no per-feature range table


def test_every_sparse_f1_figure_names_its_design():
    quoted = [m.start() for m in re.finditer(r"F1 0\.90 at ε = 2|F1 depends on the design", README)]
    assert quoted
    for at in quoted:
        window = README[at:at + 400]
        assert "N(0, I) clipped to [−1, 1]" in window and "uniform on [−1, 1]" in window, window
