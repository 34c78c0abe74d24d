"""A benchmark's series: one per benchmark, metric and machine, one point per commit, in commit order.

Rules (docs/history.md, "The series"):

* **Machines are never mixed**: the series key is (suite, benchmark key, metric, ``runs.machine_key``).
* **One point per commit**: every clean run of a commit on that machine contributes its complete forks
  (runs of the same commit are repetitions of one measurement); the point's log fork summaries are the
  log of each fork's 20 %-trimmed mean (:func:`benchwarden.stats.logratio.log_summaries`).
* **Commit order**: by generation number, then commit date, then sha (the ``commits`` table,
  :mod:`.gitlog`).  Runs of commits whose place is unknown are left out and counted, unless no commit of
  the series has a known place; then the series is ordered by run time, and says so.
* Runs of a dirty work tree measured something no commit holds: left out and counted; so are the runs of a
  ``compare`` side that was a run-time variant (``--variant-env``, ``--variant-jvm-arg``) or a built artifact:
  they name a commit but measured something else.  The runs of a compare of two revisions (``bisect``,
  ``--confirm``) measured exactly their commits and count.
* **A secondary metric** (``metric="allocs"``, ``"bytes"``, ...; docs/metrics.md) is a series of its own: the
  fork values of the harness labels that map to it (higher-is-better ones inverted, so a step up is always
  worse).  Change points need the log scale, so a benchmark whose value is 0 in some fork (no allocation)
  has no series of that metric; ``skipped`` is told why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from benchwarden.environment import machine_label
from benchwarden.model import BenchmarkResult, RunData
from benchwarden.stats.logratio import log_summaries
from benchwarden.store.commits import CommitInfo, StoredRun


@dataclass(frozen=True)
class Point:
    """One commit's measurements on one machine: its runs and the log fork summaries of all their forks."""

    commit: str
    runs: tuple[int, ...]
    log_forks: tuple[float, ...]
    first_run_at: float
    generation: int | None = None
    committed_at: float | None = None
    subject: str | None = None
    refs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Series:
    """``benchmark`` is ``suite:key``; ``unit``/``direction`` as the harness reports it (values are ns/op inside)."""

    benchmark: str
    metric: str
    unit: str
    direction: str
    machine_key: str
    machine: str
    points: tuple[Point, ...]
    ordered_by: str  # "commit" or "run time"
    notes: tuple[str, ...] = ()


RunLoader = Callable[[int], RunData]


View = tuple[str, str, str, list[list[float]]]
"""What a series takes from one benchmark result: metric name, unit, direction, values per complete fork."""


def primary_view(result: BenchmarkResult) -> View | None:
    """The primary metric: time per operation (or CPU time, instructions), in ns/op inside."""
    matrix = result.measurement_matrix()
    b = result.benchmark
    return (b.metric, b.unit, b.direction.value, [list(f) for f in matrix]) if matrix else None


def secondary_view(name: str) -> Callable[[BenchmarkResult], View | None]:
    """The secondary metric ``name`` (catalog name, e.g. ``allocs``): the values of the labels mapping to it,
    made lower-is-better."""
    from benchwarden.compare.metrics import metric_matrices
    from benchwarden.metrics.catalog import metric_for

    def view(result: BenchmarkResult) -> View | None:
        for label, rows in metric_matrices(result.forks).items():
            metric = metric_for(label)
            if metric.name == name:
                return (name, metric.unit, metric.direction.value,
                        [[metric.lower_is_better(v) for v in row] for row in rows])
        return None
    return view


def measures_its_commit(config: object) -> bool:
    """False for a run of a ``compare`` side that was a variant or an artifact (module docstring)."""
    compare = config.get("compare") if isinstance(config, Mapping) else None
    side = compare.get("side") if isinstance(compare, Mapping) else None
    if not isinstance(side, Mapping):
        return True
    return side.get("kind") != "artifact" and not side.get("variant")


def build_series(stored: Iterable[StoredRun], load: RunLoader, commits: Mapping[str, CommitInfo],
                 keep: Callable[[str], bool], view: Callable[[BenchmarkResult], View | None] = primary_view,
                 skipped: Callable[[str, str], None] | None = None) -> list[Series]:
    """Every series of the benchmarks ``keep`` accepts (by ``suite:key``), sorted by benchmark then machine.

    ``stored``: the runs that name a commit (:meth:`Store.stored_runs`); ``load``: loads one run's data;
    ``commits``: the known places of commits (missing ones are unknown); ``view``: which metric (default the
    primary one); ``skipped(benchmark, why)``: told of a series that cannot be built (values not positive).
    """
    groups: dict[tuple[str, str, str], dict[str, list[tuple[StoredRun, list[list[float]]]]]] = {}
    meta: dict[tuple[str, str, str], tuple[str, str, str]] = {}
    dirty: dict[tuple[str, str, str], int] = {}
    variants = 0
    for run in stored:
        if run.machine_key is None or run.meta.commit is None:
            continue
        if not measures_its_commit(run.meta.config):
            variants += 1
            continue
        data = load(run.id)
        for result in data.results:
            name = str(result.benchmark.id)
            seen = view(result) if keep(name) else None
            if seen is None:
                continue
            metric, unit, direction, matrix = seen
            key = (name, metric, run.machine_key)
            if run.meta.dirty:
                dirty[key] = dirty.get(key, 0) + 1
                continue
            groups.setdefault(key, {}).setdefault(run.meta.commit, []).append((run, matrix))
            meta[key] = (unit, direction, machine_label(run.meta.machine))
    out = []
    for key in sorted(groups):
        name, metric, machine_key = key
        unit, direction, label = meta[key]
        if any(v <= 0 for entries in groups[key].values() for _, matrix in entries for row in matrix for v in row):
            if skipped is not None:
                skipped(name, f"{metric} is 0 in some fork on {machine_key}: a series on the log scale needs "
                              "positive values")
            continue
        points, notes = _points(groups[key], commits)
        ordered_by = "commit"
        if not any(p.generation is not None for p in points):
            points.sort(key=lambda p: (p.first_run_at, p.commit))
            ordered_by = "run time"
            notes.append("git does not know these commits: ordered by run time, not by history")
        else:
            unknown = [p for p in points if p.generation is None]
            points = sorted((p for p in points if p.generation is not None),
                            key=lambda p: (p.generation, p.committed_at or 0.0, p.commit))
            if unknown:
                notes.append(f"{len(unknown)} commit(s) git does not know left out (their place in history is "
                             "unknown)")
        if dirty.get(key):
            notes.append(f"{dirty[key]} run(s) of a dirty work tree left out")
        if variants:
            notes.append(f"{variants} run(s) of compare variants or artifacts left out (they measured something "
                         "other than their commit)")
        out.append(Series(name, metric, unit, direction, machine_key, label, tuple(points), ordered_by, tuple(notes)))
    return out


def _points(by_commit: Mapping[str, list[tuple[StoredRun, list[list[float]]]]],
            commits: Mapping[str, CommitInfo]) -> tuple[list[Point], list[str]]:
    points = []
    forks_of = {sha: [fork for _, matrix in entries for fork in matrix] for sha, entries in by_commit.items()}
    logs = _log_forks(forks_of)
    for sha, entries in by_commit.items():
        info = commits.get(sha)
        points.append(Point(
            commit=sha, runs=tuple(run.id for run, _ in entries), log_forks=logs[sha],
            first_run_at=min(run.meta.created_at for run, _ in entries),
            generation=info.generation if info else None, committed_at=info.committed_at if info else None,
            subject=info.subject if info else None, refs=info.refs if info else ()))
    return points, []


def _log_forks(forks_of: Mapping[str, list[list[float]]]) -> dict[str, tuple[float, ...]]:
    """Each commit's log fork summaries, computed in one call for the whole series (the same values as one call per
    commit); when that fails, per commit, so that the error names the commit whose data is invalid."""
    try:
        every = log_summaries([fork for forks in forks_of.values() for fork in forks], name="series")
    except ValueError:
        return {sha: tuple(float(v) for v in log_summaries(forks, name=f"commit {sha[:12]}"))
                for sha, forks in forks_of.items()}
    out, start = {}, 0
    for sha, forks in forks_of.items():
        out[sha] = tuple(float(v) for v in every[start:start + len(forks)])
        start += len(forks)
    return out
