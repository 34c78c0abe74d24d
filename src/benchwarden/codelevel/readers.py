"""Per kind of suite: which changed files are code the traces cover, and how their methods are named.

A reader returns None for a source file outside the traced code — Python's ``setup.py`` (and, in a suite with a
build command, any file outside the traced modules and benchmarks), Java outside the traced packages — so a change
there is attributed to no method and affects every benchmark (:mod:`.affected`). Other Python files (module-level
code, benchmark code, tests) are units ``file:<repository path>``, attributed to the processes that imported them.
Go ``_test.go`` files are not traced either, but changes to test functions in them are known not to run under
``go test -bench`` (:func:`test_file_units`).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Callable, Sequence, cast

from benchwarden.codelevel.changes import UnitReader
from benchwarden.codelevel.units import SourceUnits, fingerprint
from benchwarden.config import Suite


@dataclass(frozen=True)
class KindReader:
    read: UnitReader
    suffix: str
    describe: Callable[[str], str]


def _relative(path: Path, repo: Path) -> str | None:
    try:
        return path.resolve().relative_to(repo.resolve()).as_posix()
    except ValueError:
        return None


def _under(path: str, folder: str | None) -> str | None:
    """``path`` relative to ``folder`` (both repository-relative, POSIX), or None when it is not inside."""
    if folder is None:
        return None
    if folder in ("", "."):
        return path
    return path[len(folder) + 1:] if path.startswith(folder + "/") else None


def _in_packages(name: str, packages: Sequence[str]) -> bool:
    return any(p == "all" or name == p.rstrip(".*") or name.startswith(p.rstrip(".*") + ".") for p in packages)


#: Python files that change what runs without being imported by a benchmark: the build of an installed project.
PYTHON_BUILD_FILES = ("setup.py",)


def python_reader(suite: Suite, repo: Path, packages: Sequence[str], benchmark_dir: Path) -> KindReader:
    """Python suites. Functions of the traced modules are units as the hook names them; the module-level code of
    each traced module and every other ``.py`` file of the repository (benchmark code, tests, scripts) are units of
    their own, ``file:<repository path>``, which the trace records for every process that imported the file.
    A suite with a ``build`` command may run any file of the project while building, so there a file outside the
    traced modules and the benchmark directory is attributed to no unit (and affects every benchmark)."""
    from benchwarden.codelevel.python_code import FILE_PREFIX, imported_file_units, python_units, whole_file_units

    ctx = suite.context
    configured = ctx.options.get("pythonpath") or ["."]
    dirs = [configured] if isinstance(configured, str) else [str(d) for d in cast(list, configured)]
    roots = [_relative(ctx.root / d, repo) for d in dirs]
    bench = _relative(benchmark_dir, repo)

    def module_of(path: str) -> str | None:
        for root in roots:
            inner = _under(path, root)
            if inner is not None:
                parts = list(PurePosixPath(inner).with_suffix("").parts)
                if parts and parts[-1] == "__init__":
                    parts.pop()
                name = ".".join(parts)
                return name if name and _in_packages(name, packages) else None
        return None

    def read(path: str, data: bytes) -> SourceUnits | None:
        if PurePosixPath(path).name in PYTHON_BUILD_FILES:
            return None
        name = FILE_PREFIX + path
        benchmark_code = _under(path, bench) is not None
        module = None if benchmark_code else module_of(path)
        if module is not None:
            return imported_file_units(name, python_units(module, data))
        return None if ctx.build and not benchmark_code else whole_file_units(name, data)

    def describe(path: str) -> str:
        if path.endswith(".py"):
            if PurePosixPath(path).name in PYTHON_BUILD_FILES:
                return "the project's build script"
            return "outside the traced modules, and the suite's build may run it"
        return "not Python source"

    return KindReader(read, ".py", describe)


def go_reader(suite: Suite, repo: Path, module_dir: Path, module_path: str) -> KindReader:
    """Go suites. For ``gounit`` suites the test functions are the workloads, so no change in a test file is
    dropped (each affects every test, as untraced code)."""
    from benchwarden.codelevel.go_code import go_units

    drop_tests = suite.context.kind == "go"
    module = _relative(module_dir, repo)

    def read(path: str, data: bytes) -> SourceUnits | None:
        inner = _under(path, module)
        if inner is None or "/testdata/" in f"/{inner}":
            return None
        directory = posixpath.dirname(inner)
        units = go_units(f"{module_path}/{directory}" if directory else module_path, data)
        return test_file_units(units, drop_tests) if path.endswith("_test.go") else units

    def describe(path: str) -> str:
        if path.endswith("_test.go"):
            return "test or benchmark code (not traced)"
        if path.endswith(".go"):
            return "outside the module"
        return "not Go source (go.mod, assembly, data, build files)"

    return KindReader(read, ".go", describe)


_NOT_RUN_BY_BENCHMARKS = re.compile(r"\.(Test|Example|Fuzz)([A-Z_0-9]\w*)?$")


def test_file_units(units: SourceUnits, drop_tests: bool = True) -> SourceUnits:
    """A ``_test.go`` file as benchmarks see it. The rewriter does not trace test files, so nothing in one can be
    attributed by reach; but ``go test -bench`` runs no ``Test``/``Example``/``Fuzz`` function (``-run ^$``), so
    changes to those are dropped (unless ``drop_tests`` is False: tests as workloads), and everything else —
    benchmark functions, helpers, ``TestMain`` (which runs before the benchmarks), the skeleton — is folded into
    the skeleton: changing it affects every benchmark."""
    if units.unparsed:
        return units
    kept = sorted(f"{name}={m.fingerprint}" for name, m in units.methods.items()
                  if not drop_tests or not _NOT_RUN_BY_BENCHMARKS.search(name) or name.endswith(".TestMain"))
    return SourceUnits({}, fingerprint("\n".join([units.skeleton, *kept])), skeleton_runs=units.skeleton_runs)


def java_reader(packages: Sequence[str]) -> KindReader:
    from benchwarden.codelevel.java_code import java_units

    def read(path: str, data: bytes) -> SourceUnits | None:
        units = java_units(data)
        return units if units.unparsed or _in_packages(units.namespace, packages) else None

    def describe(path: str) -> str:
        if path.endswith(".java"):
            return f"outside the traced packages ({', '.join(packages)})"
        return "not Java source (build files, resources)"

    return KindReader(read, ".java", describe)
