"""Import contracts: dependencies point one way (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "src" / "benchwarden"

# package (or module) -> benchwarden packages it must NOT import
FORBIDDEN = {
    "model": {"*"},
    "stats": {"*"},
    "units": {"adapters", "runner", "store", "cli", "report", "stats", "audit", "config"},
    "errors": {"*"},
    # metric definitions and measurement helpers: model, errors and units only
    "metrics": {"adapters", "runner", "store", "cli", "report", "stats", "audit", "config", "compare", "spl",
                "assess"},
    "adapters": {"runner", "store", "cli", "report", "stats", "audit", "config"},
    "store": {"runner", "cli", "adapters", "report", "audit", "stats", "config"},
    "runner": {"cli", "report", "audit", "cluster"},
    "report": {"cli", "runner", "adapters", "audit"},
    "audit": {"cli", "runner"},
    # the command packages: domain logic only; rendering lives in report/ and cli/
    "compare": {"cli", "report", "audit", "spl", "assess", "cluster"},
    "spl": {"cli", "audit", "assess", "compare"},
    "assess": {"cli", "audit", "spl"},
    # history reads the store and git and uses stats; it measures only through compare (--confirm), never renders
    "history": {"cli", "report", "audit", "spl", "assess", "runner", "adapters"},
    # the site reads the store, history's and compare's analyses, and renders with report's pieces; it measures nothing
    "site": {"cli", "runner", "adapters", "audit", "spl", "assess", "backfill", "revisions"},
    # forks on a dask cluster: adapters behind the protocol, plugged into runner and compare through their hooks
    # (adapter factory, concurrency, pair scope); it knows no statistics, store or command
    "cluster": {"cli", "report", "audit", "spl", "assess", "compare", "history", "runner", "store", "stats"},
    # the live site: the site's pages, plus measurement through the runner (its Ctrl-C path, its store writes);
    # it judges nothing (no compare, spl, assess) and knows no command
    "serve": {"cli", "audit", "spl", "assess", "compare", "cluster", "backfill", "revisions", "stats"},
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "benchwarden" and len(parts) > 1:
                found.add(parts[1])
    return found


def _files(component: str) -> list[Path]:
    package = PKG / component
    if package.is_dir():
        return sorted(package.rglob("*.py"))
    return [PKG / f"{component}.py"]


@pytest.mark.parametrize("component", sorted(FORBIDDEN))
def test_dependencies_point_one_way(component):
    forbidden = FORBIDDEN[component]
    files = _files(component)
    assert files and all(f.exists() for f in files), f"{component} not found"
    for f in files:
        own = component
        bad = {m for m in _imports(f) if m != own and ("*" in forbidden or m in forbidden)}
        # the stats package and model may import nothing of ours at all
        assert not bad, f"{f.relative_to(PKG)} imports benchwarden.{', benchwarden.'.join(sorted(bad))}"


def test_stats_imports_only_numpy_scipy_and_stdlib():
    import sys

    allowed_third_party = {"numpy", "scipy"}
    for f in _files("stats"):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            mods = []
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                mods = [node.module]
            for m in mods:
                top = m.split(".")[0]
                ok = top in allowed_third_party or top in sys.stdlib_module_names or m.startswith("benchwarden.stats")
                assert ok, f"{f.name} imports {m}"


def test_test_module_basenames_are_unique():
    """Test folders are not packages (helpers are imported by basename), so two test files with one name collide."""
    tests = Path(__file__).resolve().parents[1]
    seen: dict[str, Path] = {}
    for f in sorted(tests.rglob("*.py")):
        if "data" in f.relative_to(tests).parts or f.name == "__init__.py" or f.name == "conftest.py":
            continue
        assert f.name not in seen, f"{f.relative_to(tests)} and {seen[f.name].relative_to(tests)} share a name"
        seen[f.name] = f


def test_dask_is_imported_only_by_the_cluster_package_and_only_inside_functions():
    """dask.distributed is heavy (seconds of import) and only `--cluster` needs it."""
    for f in sorted(PKG.rglob("*.py")):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        top_level = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
            if any(n.split(".")[0] in ("dask", "distributed") for n in names):
                assert f.parent.name == "cluster", f"{f.relative_to(PKG)} imports dask"
                assert id(node) not in top_level, f"{f.relative_to(PKG)} imports dask at module level"


def test_the_web_framework_is_imported_only_by_serve():
    """Starlette and uvicorn serve `benchwarden serve` only; no other command pays for importing them."""
    for f in sorted(PKG.rglob("*.py")):
        names = {n.split(".")[0] for n in _module_names(f)}
        if names & {"starlette", "uvicorn"}:
            assert f.parent.name == "serve" or f.relative_to(PKG).as_posix() == "cli/serve.py", f.relative_to(PKG)


def _module_names(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [name for node in ast.walk(tree)
            for name in ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])]
