"""Import contract (STYLE.md §2): benchwarden.stats imports only numpy, scipy, the standard library and itself."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import benchwarden.stats

STATS_DIR = Path(benchwarden.stats.__file__).parent
ALLOWED_THIRD_PARTY = {"numpy", "scipy"}


def _imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module)
    return roots


def test_stats_depends_only_on_numpy_scipy_and_itself():
    offenders = {}
    for path in sorted(STATS_DIR.glob("*.py")):
        for name in _imported_roots(path):
            top = name.split(".")[0]
            ok = (
                top in ALLOWED_THIRD_PARTY
                or top in sys.stdlib_module_names
                or top == "__future__"
                or name == "benchwarden.stats"
                or name.startswith("benchwarden.stats.")
            )
            if not ok:
                offenders.setdefault(path.name, []).append(name)
    assert offenders == {}
    assert len(list(STATS_DIR.glob("*.py"))) >= 8  # the check really looked at the package
