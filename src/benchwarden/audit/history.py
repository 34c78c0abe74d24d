"""``--history``: sample the git history monthly, as Würsten (2020, §4.1.2) did, and track configuration changes.

Sampling (:func:`sample_commits`, pure): the first-parent history of HEAD,
oldest first.  The first and the last commit are always kept.  For the 1st
of every month (00:00 UTC) between them, the commit closest in time is taken
if it lies within half a month (365.25 / 24 days) of that date.  Duplicates
collapse.  Each sampled commit is audited from git objects directly
(:class:`~.sourcetree.GitTree`; nothing is checked out).

Reported: per sample the JMH version and the number of benchmarks; every
change of a benchmark's explicit configuration between consecutive samples;
and the finding ``unchanged-since-defaults``: benchmarks that existed before
the project moved from JMH <= 1.20 to >= 1.21 and whose configuration was not
touched since, while leaving forks, iteration counts or iteration times to
JMH's defaults, which that upgrade changed (Würsten, Table 4.12: 94.2% of
benchmarks made no active change).
"""

from __future__ import annotations

import bisect
import calendar
import datetime as dt
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from benchwarden.audit.cost import effective_shape, modes_of
from benchwarden.audit.defaults import CURRENT_DEFAULTS, LEGACY_DEFAULTS, uses_legacy_defaults
from benchwarden.audit.findings import Finding, Severity
from benchwarden.audit.project import AuditedBenchmark, AuditReport, audit_tree
from benchwarden.audit.resolve import BenchmarkConfig
from benchwarden.audit.sourcetree import GitTree
from benchwarden.errors import BenchwardenError
from benchwarden.units import format_duration

HALF_MONTH_S = 365.25 / 24 * 86400
#: the options whose defaults JMH 1.21 changed, as (attribute, label)
CHANGED_OPTIONS = (("forks", "forks"), ("warmup_iterations", "warmup iterations"), ("warmup_time_s", "warmup time"),
                   ("measurement_iterations", "measurement iterations"), ("measurement_time_s", "measurement time"))


@dataclass(frozen=True)
class Commit:
    sha: str
    time: int  # committer time, epoch seconds

    @property
    def date(self) -> str:
        return dt.datetime.fromtimestamp(self.time, dt.timezone.utc).date().isoformat()


@dataclass(frozen=True)
class Sample:
    commit: Commit
    jmh_version: str | None
    benchmarks: int
    own_s: float


@dataclass(frozen=True)
class ConfigChange:
    benchmark: str
    commit: Commit
    before: dict[str, object]
    after: dict[str, object]


@dataclass(frozen=True)
class HistoryReport:
    samples: tuple[Sample, ...]
    changes: tuple[ConfigChange, ...]
    upgrade: tuple[Commit, str | None, str | None] | None  # (first sample on >= 1.21, version before, after)


def month_starts(first: int, last: int) -> list[int]:
    """Epoch seconds of every 1st-of-month 00:00 UTC strictly after ``first`` and not after ``last``."""
    start = dt.datetime.fromtimestamp(first, dt.timezone.utc)
    year, month = start.year, start.month
    out: list[int] = []
    while True:
        month += 1
        if month > 12:
            year, month = year + 1, 1
        t = calendar.timegm((year, month, 1, 0, 0, 0))
        if t > last:
            return out
        out.append(t)


def sample_commits(commits: Sequence[Commit]) -> list[Commit]:
    """Monthly sample of ``commits`` (oldest first): first, last, and the closest commit to each month start
    within half a month.  Pure; O(n log n)."""
    if not commits:
        return []
    ordered = sorted(commits, key=lambda c: c.time)
    chosen: dict[str, Commit] = {ordered[0].sha: ordered[0], ordered[-1].sha: ordered[-1]}
    times = [c.time for c in ordered]
    for target in month_starts(ordered[0].time, ordered[-1].time):
        i = bisect.bisect_left(times, target)
        near = ordered[max(0, i - 1):i + 1]
        best = min(near, key=lambda c: (abs(c.time - target), c.time))
        if abs(best.time - target) <= HALF_MONTH_S:
            chosen[best.sha] = best
    return sorted(chosen.values(), key=lambda c: c.time)


def first_parent_commits(repo: Path, path: str = "") -> list[Commit]:
    """HEAD's first-parent history (optionally only commits touching ``path``), oldest first."""
    args = ["git", "-C", str(repo), "log", "--first-parent", "--format=%H %ct", "HEAD"]
    if path:
        args += ["--", path]
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise BenchwardenError(f"audit --history: '{repo}' is not a git repository with commits "
                               f"({proc.stderr.strip()})")
    out = []
    for line in proc.stdout.splitlines():
        sha, _, t = line.partition(" ")
        if sha and t.isdigit():
            out.append(Commit(sha, int(t)))
    return sorted(out, key=lambda c: c.time)


def repo_root(path: Path) -> tuple[Path, str]:
    """(repository top level, project prefix inside it such as ``"sub/dir/"`` or ``""``)."""
    try:
        proc = subprocess.run(["git", "-C", str(path), "rev-parse", "--show-toplevel"], capture_output=True,
                              text=True, check=False)
    except FileNotFoundError:
        raise BenchwardenError("audit --history: 'git' was not found on PATH") from None
    if proc.returncode != 0:
        raise BenchwardenError(f"audit --history: '{path}' is not inside a git repository")
    top = Path(proc.stdout.strip()).resolve()
    rel = path.resolve().relative_to(top).as_posix()
    return top, "" if rel == "." else rel + "/"


def signature(config: BenchmarkConfig) -> dict[str, object]:
    """The explicit configuration of a benchmark, as compared across commits (None = not set)."""
    def v(s):
        return None if s is None else s.value
    return {"forks": v(config.forks), "warmup_forks": v(config.warmup_forks),
            "warmup_iterations": v(config.warmup_iterations), "warmup_time_s": v(config.warmup_time_s),
            "measurement_iterations": v(config.measurement_iterations),
            "measurement_time_s": v(config.measurement_time_s), "modes": v(config.modes)}


def analyse_history(project: Path, current: AuditReport, *, jmh_version: str | None = None,
                    max_samples: int | None = None) -> tuple[HistoryReport, list[Finding]]:
    """Audit monthly samples of the project's git history; return the history and its findings."""
    repo, prefix = repo_root(project)
    commits = sample_commits(first_parent_commits(repo, prefix.rstrip("/")))
    if max_samples is not None and len(commits) > max_samples:
        step = (len(commits) - 1) / (max_samples - 1)
        commits = [commits[round(i * step)] for i in range(max_samples)]
    snapshots: list[tuple[Commit, AuditReport]] = []
    for c in commits:
        snapshots.append((c, audit_tree(GitTree(repo, c.sha, prefix), c.sha[:10], jmh_version=jmh_version)))
    return _report(snapshots), defaults_findings(snapshots, current)


def _report(snapshots: list[tuple[Commit, AuditReport]]) -> HistoryReport:
    samples = tuple(Sample(c, _version(r), len(r.benchmarks), r.suite.own_s) for c, r in snapshots)
    changes = []
    for (_, before), (commit, after) in zip(snapshots, snapshots[1:]):
        old = {b.config.name: signature(b.config) for b in before.benchmarks}
        for b in after.benchmarks:
            sig = signature(b.config)
            if b.config.name in old and old[b.config.name] != sig:
                changes.append(ConfigChange(b.config.name, commit, old[b.config.name], sig))
    return HistoryReport(samples, tuple(changes), _upgrade(snapshots))


def _version(report: AuditReport) -> str | None:
    versions = report.jmh_versions
    return versions[-1] if versions else None


def _upgrade(snapshots: list[tuple[Commit, AuditReport]]) -> tuple[Commit, str | None, str | None] | None:
    """The last move from JMH <= 1.20 to >= 1.21 in the samples."""
    found = None
    for (_, before), (commit, after) in zip(snapshots, snapshots[1:]):
        if uses_legacy_defaults(_version(before)) is True and uses_legacy_defaults(_version(after)) is False:
            found = (commit, _version(before), _version(after))
    return found


def defaults_findings(snapshots: list[tuple[Commit, AuditReport]], current: AuditReport) -> list[Finding]:
    """``unchanged-since-defaults`` for benchmarks untouched across the JMH 1.21 upgrade that rely on defaults."""
    upgrade = _upgrade(snapshots)
    if upgrade is None:
        return []
    commit, old_v, new_v = upgrade
    idx = next(i for i, (c, _) in enumerate(snapshots) if c.sha == commit.sha)
    before = {b.config.name: b.config for b in snapshots[idx - 1][1].benchmarks}
    out = []
    for audited in current.benchmarks:
        config = audited.config
        old = before.get(config.name)
        if old is None or signature(old) != signature(config):
            continue
        if not _unchanged_since(config.name, signature(config), snapshots[idx:]):
            continue
        relying = [label for attr, label in CHANGED_OPTIONS if getattr(config, attr) is None]
        if not relying:
            continue
        out.append(_defaults_finding(audited, commit, old_v, new_v, relying))
    return out


def _unchanged_since(name: str, sig: dict[str, object], snapshots: list[tuple[Commit, AuditReport]]) -> bool:
    for _, report in snapshots:
        for b in report.benchmarks:
            if b.config.name == name and signature(b.config) != sig:
                return False
    return True


def _defaults_finding(audited: AuditedBenchmark, commit: Commit, old_v: str | None, new_v: str | None,
                      relying: list[str]) -> Finding:
    config = audited.config
    modes = [m for m in modes_of(config, CURRENT_DEFAULTS) if m != "SingleShotTime"] or ["Throughput"]
    old_s = effective_shape(config, LEGACY_DEFAULTS, modes[0]).combination_s
    new_s = effective_shape(config, CURRENT_DEFAULTS, modes[0]).combination_s
    return Finding(
        "unchanged-since-defaults", Severity.WARNING, config.name, config.location,
        f"configuration unchanged since the project moved from JMH {old_v} to {new_v} "
        f"(sampled at {commit.sha[:10]}, {commit.date}); it leaves {', '.join(relying)} to JMH's defaults",
        f"JMH 1.21 changed those defaults (10 forks x 20+20 iterations of 1 s became 5 forks x 5+5 of 10 s): "
        f"this benchmark went from {format_duration(old_s)} to {format_duration(new_s)} per combination without "
        "anyone deciding so, and results before and after the upgrade are not comparable (iteration length alone "
        "shifts the mean by more than 1% for 71% of benchmarks, Würsten 2020 §6).")
