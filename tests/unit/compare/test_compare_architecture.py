"""Import contract of the compare package: it decides, it never renders (report) or parses options (cli);
the report modules it feeds compute no statistics (they never import benchwarden.stats)."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[3] / "src" / "benchwarden"
REPORT_MODULES = ["comparison_table.py", "markdown.py", "json_export.py", "junit_compare.py", "html.py", "plots.py"]


def _benchwarden_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else []
        found |= {n.split(".")[1] for n in names if n.startswith("benchwarden.")}
    return found


def test_compare_does_not_import_cli_report_or_audit():
    files = sorted((PKG / "compare").glob("*.py"))
    assert len(files) >= 10
    for f in files:
        assert not _benchwarden_imports(f) & {"cli", "report", "audit"}, f.name


def test_comparison_exporters_compute_no_statistics():
    for name in REPORT_MODULES:
        imported = _benchwarden_imports(PKG / "report" / name)
        assert not imported & {"stats", "runner", "adapters", "store", "cli"}, name
