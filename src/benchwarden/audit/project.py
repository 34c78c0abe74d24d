"""Audit one project snapshot: read sources and build files, resolve, cost, and check every benchmark.

:func:`audit_tree` is the whole pipeline on any :class:`~.sourcetree.SourceTree`
(the working directory or a git commit); :func:`audit_project` is the
convenience entry point for a directory.  The result is plain data
(:class:`AuditReport`); rendering lives in :mod:`.render`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Mapping

from benchwarden.audit.buildfile import BuildInfo, read_build_files
from benchwarden.audit.cost import BenchmarkCost, SuiteCost, benchmark_cost, suite_cost
from benchwarden.audit.defaults import JmhDefaults, defaults_for
from benchwarden.audit.findings import DEFAULT_GRID_THRESHOLD, Finding, check_benchmark, check_commented, sort_findings
from benchwarden.audit.javasource import PROJECT, CommentedBenchmark, Diagnostic, JavaFile, SourceLocation, parse_java
from benchwarden.audit.resolve import BenchmarkConfig, ClassIndex, discover_benchmarks
from benchwarden.audit.sourcetree import DirectoryTree, SourceTree
from benchwarden.errors import BenchwardenError

if TYPE_CHECKING:  # history imports this module
    from benchwarden.audit.history import HistoryReport

#: Files that mention this are parsed eagerly; other .java files only when a type name points at them.
JMH_MARKER = b"org.openjdk.jmh"


@dataclass(frozen=True)
class AuditedBenchmark:
    config: BenchmarkConfig
    jmh_version: str | None
    defaults: JmhDefaults
    cost: BenchmarkCost


@dataclass(frozen=True)
class AuditReport:
    root: str
    builds: tuple[BuildInfo, ...]
    benchmarks: tuple[AuditedBenchmark, ...]
    suite: SuiteCost
    findings: tuple[Finding, ...]
    diagnostics: tuple[Diagnostic, ...]
    files_parsed: int
    commented: tuple[CommentedBenchmark, ...] = ()
    history: HistoryReport | None = None  # when --history was given

    @property
    def jmh_versions(self) -> tuple[str, ...]:
        return tuple(sorted({b.jmh_version for b in self.benchmarks if b.jmh_version}))

    @property
    def java_target(self) -> str | None:
        targets = Counter(b.java_target for b in self.builds if b.java_target)
        return targets.most_common(1)[0][0] if targets else None


@dataclass
class ParsedSources:
    index: ClassIndex
    diagnostics: list[Diagnostic] = field(default_factory=list)
    commented: list[CommentedBenchmark] = field(default_factory=list)
    files_parsed: int = 0


def parse_sources(tree: SourceTree) -> ParsedSources:
    """Parse every .java file that mentions JMH; index the rest by file name for lazy parsing."""
    eager = set(tree.containing(JMH_MARKER, ".java"))
    lazy: dict[str, list[str]] = {}
    for p in tree.paths():
        if p.endswith(".java") and p not in eager:
            lazy.setdefault(PurePosixPath(p).stem, []).append(p)
    parsed = ParsedSources(ClassIndex([]))
    prefetch = getattr(tree, "prefetch", None)
    if prefetch is not None:
        prefetch(sorted(eager))

    def load(path: str) -> JavaFile | None:
        try:
            data = tree.read(path)
        except OSError as exc:
            parsed.diagnostics.append(Diagnostic(SourceLocation(path, 1), f"cannot read file: {exc}"))
            return None
        jf = parse_java(path, data)
        parsed.files_parsed += 1
        parsed.diagnostics.extend(jf.diagnostics)
        parsed.commented.extend(jf.commented_benchmarks)
        return jf

    files = [jf for p in sorted(eager) if (jf := load(p)) is not None]
    parsed.index = ClassIndex(files, lazy=lazy, loader=load, declared_in=_Declarations(tree, eager).files_declaring)
    return parsed


_DECLARATION = re.compile(rb"\b(?:class|interface|enum|record)\s+([A-Za-z_$][A-Za-z0-9_$]*)")


class _Declarations:
    """Which unparsed .java files declare a type of a given simple name, found by one textual scan on first need.

    The scan over-approximates (a declaration inside a comment or a string counts): it only decides which
    files get parsed, and the parser has the last word.
    """

    def __init__(self, tree: SourceTree, parsed: set[str]):
        self._tree = tree
        self._parsed = parsed
        self._index: dict[str, list[str]] | None = None

    def files_declaring(self, simple: str) -> list[str]:
        if self._index is None:
            self._index = {}
            for path in self._tree.paths():
                if not path.endswith(".java") or path in self._parsed:
                    continue
                try:
                    data = self._tree.read(path)
                except OSError:
                    continue
                for name in set(_DECLARATION.findall(data)):
                    self._index.setdefault(name.decode("ascii", errors="replace"), []).append(path)
        return self._index.get(simple, [])


def version_for(path: str, builds: list[BuildInfo]) -> str | None:
    """JMH version of the nearest enclosing module that declares one, else the project's most common one."""
    best: BuildInfo | None = None
    for b in builds:
        if b.jmh_version is None:
            continue
        prefix = f"{b.module_dir}/" if b.module_dir else ""
        if path.startswith(prefix) and (best is None or len(b.module_dir) > len(best.module_dir)):
            best = b
    if best is not None:
        return best.jmh_version
    counts = Counter(b.jmh_version for b in builds if b.jmh_version)
    return counts.most_common(1)[0][0] if counts else None


def audit_tree(tree: SourceTree, root_label: str = ".", *, jmh_version: str | None = None,
               grid_threshold: int = DEFAULT_GRID_THRESHOLD, name_filter: str | None = None,
               observed: Mapping[tuple[str, frozenset[tuple[str, str]]], float] | None = None) -> AuditReport:
    """The full audit of one snapshot.  ``jmh_version`` overrides what the build files say;
    ``name_filter`` (a regular expression, ``re.search``) keeps only matching benchmark names."""
    pattern = _compile_filter(name_filter)
    builds = read_build_files(tree)
    sources = parse_sources(tree)
    configs, resolve_diags = discover_benchmarks(sources.index)
    if pattern is not None:
        configs = [c for c in configs if pattern.search(c.name)]
    diagnostics = [d for b in builds for d in b.diagnostics] + sources.diagnostics + resolve_diags
    versions_seen = {b.jmh_version for b in builds if b.jmh_version}
    if len(versions_seen) > 1 and jmh_version is None:
        diagnostics.append(Diagnostic(PROJECT, f"build files declare different JMH versions ({', '.join(sorted(versions_seen))}); "
                                      "each benchmark uses its nearest module's version"))
    audited = []
    unknown_version = False
    for config in configs:
        version = jmh_version or version_for(config.source_path, builds)
        unknown_version |= version is None
        defaults = defaults_for(version)
        cost = benchmark_cost(config, defaults, observed)
        audited.append(AuditedBenchmark(config, version, defaults, cost))
    if unknown_version and configs:
        diagnostics.append(Diagnostic(PROJECT, "JMH version unknown for some benchmarks (no build file declares it); "
                                      "assuming JMH >= 1.21 defaults (use --jmh-version to set it)"))
    findings = [f for a in audited for f in check_benchmark(a.config, a.cost, a.defaults, grid_threshold)]
    findings += check_commented(sources.commented)
    return AuditReport(
        root=root_label, builds=tuple(builds), benchmarks=tuple(audited),
        suite=suite_cost(a.cost for a in audited), findings=tuple(sort_findings(findings)),
        diagnostics=tuple(diagnostics), files_parsed=sources.files_parsed, commented=tuple(sources.commented))


def _compile_filter(name_filter: str | None) -> re.Pattern[str] | None:
    if name_filter is None:
        return None
    try:
        return re.compile(name_filter)
    except re.error as exc:
        raise BenchwardenError(f"--filter: invalid regular expression {name_filter!r}: {exc}") from None


def audit_project(root: Path, **kwargs: Any) -> AuditReport:
    """Audit the project in directory ``root`` (see :func:`audit_tree` for the options)."""
    return audit_tree(DirectoryTree(root), str(root), **kwargs)


def with_history(report: AuditReport, history: HistoryReport, findings: list[Finding]) -> AuditReport:
    return replace(report, history=history, findings=tuple(sort_findings([*report.findings, *findings])))
