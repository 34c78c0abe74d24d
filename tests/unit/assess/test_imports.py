"""The analysis modules of assess are pure: they import statistics and the model, never processes or stores."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ASSESS = Path(__file__).resolve().parents[3] / "src" / "benchwarden" / "assess"
PURE = ["variability", "detect", "score", "smoke", "stubs", "methods"]
ALLOWED = {"stats", "model", "units", "assess", "compare"}  # compare: only the optional verdict rule, lazily


@pytest.mark.parametrize("module", PURE)
def test_pure_modules_import_only_statistics_and_the_model(module):
    tree = ast.parse((ASSESS / f"{module}.py").read_text(encoding="utf-8"))
    ours = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("benchwarden."):
            ours.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            ours |= {a.name.split(".")[1] for a in node.names if a.name.startswith("benchwarden.")}
    assert ours <= ALLOWED, f"assess/{module}.py imports benchwarden.{', benchwarden.'.join(sorted(ours - ALLOWED))}"
