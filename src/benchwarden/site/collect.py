"""What the site shows, read from the store once: every run, the history series, the comparison sessions.

The store keeps runs (with their forks and iterations), commits' places in history, and nothing else: a
``compare`` session is two runs whose ``config["compare"]`` name the same session (roles ``base`` and
``candidate``, round ``main``); :func:`benchwarden.compare.stored.compare_runs` re-analyses such a pair with the
session's own sequential design, so the verdict on the site is the verdict the session gave.  Assessments are
not stored (only their baseline runs are); the site shows the JSON documents of ``assess --json`` it is given.

Nothing here writes to the store: commits' places come from the store and, when ``repo`` is a git work tree,
from git (as ``history`` reads them, without recording them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from benchwarden.compare.result import Comparison
from benchwarden.environment import machine_key, machine_label
from benchwarden.history.analysis import SeriesHistory, analyse
from benchwarden.history.series import build_series
from benchwarden.model import BenchmarkResult, RunData, RunStatus
from benchwarden.store.listing import RunSummary


@dataclass(frozen=True)
class StoredComparison:
    """A comparison session found in the store: its id, the two runs, and the re-analysed comparison."""

    session: str
    base_run: int
    candidate_run: int
    comparison: Comparison


@dataclass
class SiteData:
    """Everything the pages are made of.  ``runs``: every run, newest first; ``histories``: one per series
    (benchmark, metric, machine) with at least one commit; ``assessments``: ``assess --json`` suite documents."""

    store_url: str
    runs: list[RunData]
    histories: list[SeriesHistory]
    comparisons: list[StoredComparison]
    assessments: list[Mapping[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    methods: Mapping[str, Sequence[str]] = field(default_factory=dict)  # [docs.methods]: method -> suite:name
    audit: Mapping[str, Any] | None = None  # {"project": path, "tables": [{title, headers, rows, right, note}]}

    def latest_results(self) -> dict[str, tuple[RunData, BenchmarkResult]]:
        return latest_results(self.runs)

    def latest_runs(self) -> list[tuple[str, str, RunData]]:
        """(suite, machine label, run): the newest run holding each suite on each machine, by suite."""
        seen: dict[tuple[str, str], tuple[str, str, RunData]] = {}
        for run in self.runs:
            key = machine_key(run.meta.machine)
            for suite in sorted({r.benchmark.id.suite for r in run.results}):
                seen.setdefault((suite, key), (suite, machine_label(run.meta.machine), run))
        return [seen[k] for k in sorted(seen)]


def latest_results(runs: Sequence[RunData]) -> dict[str, tuple[RunData, BenchmarkResult]]:
    """Per benchmark (``suite:key``), the newest of ``runs`` (newest first) that measured it (complete forks with
    measurements); a ``compare`` session's run only when no other run did (its side may be a variant, not the code
    as it is)."""
    found: dict[str, tuple[RunData, BenchmarkResult]] = {}
    for run in sorted(runs, key=lambda r: is_comparison_run(r)):  # stable: newest first within each
        for result in run.results:
            name = str(result.benchmark.id)
            if name not in found and result.measurement_matrix():
                found[name] = (run, result)
    return found


def is_comparison_run(run: RunData) -> bool:
    return _compare_config(run.meta.config)


def _compare_config(config: object) -> bool:
    return isinstance(config, Mapping) and isinstance(config.get("compare"), Mapping)


def collect(store, repo: Path | None, assessments: Sequence[Mapping[str, Any]] = (),
            methods: Mapping[str, Sequence[str]] | None = None) -> SiteData:
    """Read the store (``benchwarden.store.Store``) into :class:`SiteData`; ``repo``: git work tree for commit order;
    ``methods``: the documented methods (``[docs.methods]``, :mod:`benchwarden.site.methods`)."""
    from benchwarden.history.gitlog import commit_infos, is_repository

    summaries: list[RunSummary] = store.list_runs(limit=2**62)
    loaded: dict[int, RunData] = {}

    def load(run_id: int) -> RunData:
        if run_id not in loaded:
            loaded[run_id] = store.load_run(run_id)
        return loaded[run_id]

    notes: list[str] = []
    # a compare session's runs measure a side that may be a variant (another environment, JVM argument or
    # artifact), not the commit as it is: they are not points of its history
    stored = [r for r in store.stored_runs() if not _compare_config(r.meta.config)]
    shas = sorted({r.meta.commit for r in stored if r.meta.commit})
    known = store.commits(shas)
    if repo is not None and is_repository(repo):
        known = {**known, **commit_infos(repo, shas)}
    elif shas:
        notes.append(f"{repo} is not a git work tree: commits are placed by what the store knows")
    series = build_series(stored, load, known, lambda name: True)
    histories = [analyse(s) for s in series if s.points]
    runs = [load(s.id) for s in summaries]  # newest first
    return SiteData(store_url=store.url, runs=runs, histories=histories, comparisons=comparisons(runs),
                    assessments=list(assessments), notes=notes, methods=dict(methods or {}))


def comparisons(runs: Sequence[RunData]) -> list[StoredComparison]:
    """Every complete comparison session among ``runs``: the main round's base and candidate runs, re-analysed."""
    from benchwarden.compare.settings import CompareSettings
    from benchwarden.compare.stored import compare_runs

    sides: dict[str, dict[str, RunData]] = {}
    for run in runs:
        info = run.meta.config.get("compare") if isinstance(run.meta.config, Mapping) else None
        if not isinstance(info, Mapping) or info.get("round", "main") != "main":
            continue
        session, role = info.get("session"), info.get("role")
        if isinstance(session, str) and role in ("base", "candidate") and run.status is not RunStatus.RUNNING:
            sides.setdefault(session, {}).setdefault(str(role), run)
    found = []
    for session, pair in sides.items():
        if set(pair) != {"base", "candidate"}:
            continue
        base, candidate = pair["base"], pair["candidate"]
        info = base.meta.config["compare"]
        try:
            settings = CompareSettings.model_validate(info.get("settings", {}) if isinstance(info, Mapping) else {})
        except ValueError:
            settings = CompareSettings()
        comparison = compare_runs(base, candidate, settings)
        found.append(StoredComparison(session, int(base.id or 0), int(candidate.id or 0), comparison))
    found.sort(key=lambda c: c.comparison.created_at, reverse=True)
    return found
