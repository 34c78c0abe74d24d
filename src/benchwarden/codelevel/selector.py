"""``benchwarden affected``: the changed methods, each revision's traced reach, and the selection per benchmark."""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from benchwarden.assess.inject import INJECTORS, Injector, module_root
from benchwarden.assess.reach import ReachMap, trace_benchmarks
from benchwarden.codelevel.affected import Selection, select
from benchwarden.codelevel.changes import DEFAULT_IGNORE, ChangeSet, change_set
from benchwarden.codelevel.readers import KindReader, go_reader, java_reader, python_reader
from benchwarden.config import Suite
from benchwarden.errors import ConfigError
from benchwarden.runner.engine import Plan, plan_run


@dataclass(frozen=True)
class AffectedReport:
    """One suite's answer. ``traced`` is False when the changes settled it without tracing (nothing changed
    in a method, or a change no method accounts for affects everything)."""

    suite: str
    base: str
    candidate: str
    changes: ChangeSet
    selections: tuple[Selection, ...]
    packages: tuple[str, ...]
    traced: bool
    trace_s: float
    failed: dict[str, str] = field(default_factory=dict)  # benchmark key -> why its trace failed, per revision

    @property
    def affected(self) -> list[str]:
        return [s.key for s in self.selections if s.affected]

    def to_json(self) -> dict:
        return {"suite": self.suite, "base": self.base, "candidate": self.candidate,
                "changed_methods": [{"method": c.method, "path": c.path, "line": c.line, "how": c.how}
                                    for c in self.changes.methods],
                "other_changes": [{"path": c.path, "why": c.why} for c in self.changes.other],
                "ignored": list(self.changes.ignored), "traced_packages": list(self.packages),
                "traced": self.traced, "trace_s": round(self.trace_s, 3),
                "benchmarks": [s.to_json() for s in self.selections],
                "affected": len(self.affected), "not_affected": len(self.selections) - len(self.affected)}


_JAVA_PACKAGE = re.compile(rb"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)


def java_source_packages(root: Path) -> list[str]:
    """The packages the project's own ``.java`` files declare (benchmarks and tests included): the code a change
    can touch. A dependency's code changes only with a build file, which affects everything anyway; instrumenting
    the libraries bundled in a JMH uber-jar would only slow the traces down."""
    found = set()
    for path in root.rglob("*.java"):
        if ".benchwarden" in path.parts or "target" in path.parts:
            continue
        match = _JAVA_PACKAGE.search(path.read_bytes()[:16384])
        if match:
            found.add(match.group(1).decode("ascii", "replace"))
    return sorted(found)


def trace_packages(kind: str, injector: Injector, suite: Suite, plan: Plan) -> list[str]:
    """What to trace: for Java the packages of the project's own sources (benchmark and test classes too, so a
    change to a benchmark method or its state class is attributed like any other); otherwise the project's code
    as ``assess`` finds it."""
    if kind in ("jmh", "junit"):
        return java_source_packages(suite.context.root)
    return sorted(set(injector.default_packages(suite, [p.benchmark for p in plan.benchmarks])))


def kind_reader(suite: Suite, repo: Path, packages: Sequence[str]) -> KindReader:
    ctx = suite.context
    if ctx.kind == "python":
        from benchwarden.adapters.asv import resolve_suite

        return python_reader(suite, repo, packages, resolve_suite(ctx).benchmark_dir)
    if ctx.kind in ("go", "gounit"):
        root = module_root(ctx.root)
        module_path = next((line.split()[1] for line in (root / "go.mod").read_text(encoding="utf-8").splitlines()
                            if line.startswith("module ") and len(line.split()) > 1), None)
        if module_path is None:
            raise ConfigError(f"{root / 'go.mod'}: no module line")
        return go_reader(suite, repo, root, module_path.strip('"'))
    if ctx.kind in ("jmh", "junit"):
        return java_reader(packages)
    return KindReader(lambda path, data: None, "\0",  # nothing is traced: every change affects every benchmark
                      lambda path: f"a {ctx.kind} suite, whose calls cannot be traced")


#: Bump when what a trace records changes, so older cached traces are not reused.
TRACE_CACHE_VERSION = 2


def trace_cache_path(worktree: Path, kind: str, packages: Sequence[str], keys: Sequence[str]) -> Path:
    """Where a commit's every-method trace of these benchmarks is kept: in that commit's cached worktree (beside its
    build, removed with it), keyed by what the trace depends on besides the commit's files."""
    from benchwarden import __version__

    key = json.dumps([TRACE_CACHE_VERSION, __version__, kind, sorted(packages), sorted(keys)])
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return worktree / ".benchwarden" / "affected" / f"reach-{digest}.json"


def read_cached_reach(path: Path | None) -> ReachMap | None:
    """A cached trace, or None when there is none or it cannot be read (then the trace runs again)."""
    if path is None or not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        calls = {str(k): {str(m): int(n) for m, n in v.items()} for k, v in data["calls"].items()}
        return ReachMap(calls, float(data["trace_s"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def write_cached_reach(path: Path, reach: ReachMap) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"calls": reach.calls, "trace_s": reach.trace_s}), encoding="utf-8")
    tmp.replace(path)


def find_affected(suite: Suite, repo: Path, base: str, candidate: str, cli_filter: str | None, workdir: Path,
                  log: Callable[[str], None] = lambda message: None,
                  monotonic: Callable[[], float] = time.monotonic, ignore: Sequence[str] = ()) -> AffectedReport:
    """Select the benchmarks of ``suite`` (as ``cli_filter`` narrows them) that ``base`` → ``candidate`` affects.

    ``ignore``: the project's own patterns of paths that cannot affect a benchmark (``[affected] ignore``),
    added to :data:`~benchwarden.codelevel.changes.DEFAULT_IGNORE`."""
    from benchwarden.revisions import suite_for_revision

    kind = suite.context.kind
    injector_kind = "go" if kind == "gounit" else kind
    injector = INJECTORS[injector_kind]() if injector_kind in INJECTORS else None
    revisions = {label: suite_for_revision(suite, repo, ref) for label, ref in (("base", base), ("candidate", candidate))}
    built = {label: at for label, (at, _) in revisions.items()}
    plans = {label: plan_run([s], cli_filter) for label, s in built.items()}
    for plan in plans.values():
        for exc in plan.failed_suites.values():
            raise exc
    keys = sorted({p.benchmark.id.key for plan in plans.values() for p in plan.benchmarks})
    packages = trace_packages(kind, injector, built["candidate"], plans["candidate"]) if injector else []
    reader = kind_reader(suite, repo, packages)  # paths relative to the repository, not to a revision's worktree
    changes = change_set(repo, base, candidate, reader.read, reader.suffix, reader.describe,
                         ignore=(*DEFAULT_IGNORE, *ignore))
    if changes.other or not changes.methods or injector is None:
        return AffectedReport(suite.name, base, candidate, changes, tuple(select(keys, {}, changes)),
                              tuple(packages), False, 0.0)
    reaches: dict[str, ReachMap] = {}
    start = monotonic()
    for label, (revision_suite, revision) in revisions.items():
        planned = sorted(p.benchmark.id.key for p in plans[label].benchmarks)
        cache = None if revision.commit is None else trace_cache_path(revision.root, kind, packages, planned)
        cached = read_cached_reach(cache)
        if cached is not None:
            reaches[label] = cached
            log(f"reach at {label} ({revision.label}) from the cache of that commit")
            continue
        log(f"tracing what {len(planned)} benchmarks reach at {label} ({revision.label})")
        tracing = injector.tracing(revision_suite, packages, workdir / label, None, every_method=True)
        traced_plan = plan_run([tracing.suite], cli_filter)
        reaches[label] = trace_benchmarks(traced_plan.benchmarks, tracing, workdir / label, monotonic)
        if cache is not None and not reaches[label].failed:
            write_cached_reach(cache, reaches[label])
    failed = {f"{key} ({label})": why for label, reach in reaches.items() for key, why in reach.failed.items()}
    return AffectedReport(suite.name, base, candidate, changes, tuple(select(keys, reaches, changes)),
                          tuple(packages), True, monotonic() - start, failed)
