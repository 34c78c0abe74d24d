"""``backfill A..B``: measure a range of past commits, each in its cached revision worktree, one run per commit.

The range is git's ``A..B`` along first parents (the commits reachable from B and not from A, oldest first: A
itself is not measured), thinned by ``every`` (every N-th counting back from B, so B is always measured).  Each
commit's suites are checked out and built once through :mod:`benchwarden.revisions` (the same cached
worktrees ``compare`` uses) and measured by the same :class:`~benchwarden.runner.engine.Runner` as ``run``;
the run records that commit, clean.

**Resumable:** a commit that already has a *complete*, clean run on this machine with the same suites and
``--filter`` is skipped, so running the same backfill again after an interruption measures only what is
missing.  An interrupted commit is measured again as a new run; the forks its interrupted run completed stay
in the store and count in ``history``.  A commit whose suites fail to check out, build or list is reported
and the backfill goes on with the next one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from benchwarden.config import Suite
from benchwarden.environment import machine_key
from benchwarden.errors import BenchwardenError, UsageError
from benchwarden.model import RunStatus
from benchwarden.runner.placement import HERE, Placement
from benchwarden.store.commits import StoredRun

#: key of the run's configuration snapshot that names the commit a backfill measured (``run --resume`` refuses it)
SNAPSHOT_KEY = "backfill_commit"


@dataclass(frozen=True)
class CommitOutcome:
    """What happened to one commit: ``measured`` (run id), ``skipped`` (the run already there), or ``failed``."""

    commit: str
    subject: str
    state: str
    run_id: int | None = None
    benchmarks: int = 0
    elapsed_s: float = 0.0
    message: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"commit": self.commit, "subject": self.subject, "state": self.state, "run": self.run_id,
                "benchmarks": self.benchmarks, "elapsed_s": round(self.elapsed_s, 3), "message": self.message}


def parse_range(spec: str) -> tuple[str, str]:
    """``A..B`` → (A, B); anything else (``A...B``, one revision, an empty side) is a UsageError."""
    base, sep, tip = spec.partition("..")
    if not sep or not base or not tip or tip.startswith(".") or ".." in tip:
        raise UsageError(f"expected a range A..B (the commits after A up to and including B), got {spec!r}")
    return base, tip


def thinned(commits: Sequence[str], every: int) -> list[str]:
    """Every ``every``-th commit counting back from the last (which is always kept), oldest first."""
    if every < 1:
        raise ValueError(f"every must be >= 1, got {every}")
    return list(commits[::-1][::every][::-1])


def snapshot(suites: Sequence[Suite], cli_filter: str | None, config_path: Path, commit: str) -> dict[str, object]:
    """The configuration snapshot stored with a backfill run (the shape ``run`` stores, plus the commit)."""
    return {"config_path": str(config_path), "filter": cli_filter, SNAPSHOT_KEY: commit,
            "suites": {s.name: {"kind": s.kind, "root": str(s.context.root), "settings": s.settings.to_dict()}
                       for s in suites}}


def already_measured(stored: Iterable[StoredRun], machine_key: str, suites: Sequence[Suite],
                     cli_filter: str | None) -> dict[str, int]:
    """Commit → id of a complete clean run on this machine with the same suites and filter (the latest).

    Only ``run`` and ``backfill`` runs count: a ``compare`` session's run (``bisect``'s steps, ``history
    --confirm``) measured the benchmarks the session chose, often one, so it records no filter of its own.
    """
    names = sorted(s.name for s in suites)
    found: dict[str, int] = {}
    for run in stored:
        config = run.meta.config if isinstance(run.meta.config, Mapping) else {}
        suites_there = config.get("suites")
        if (run.machine_key == machine_key and run.status is RunStatus.COMPLETE and run.meta.dirty is False
                and run.meta.commit and "compare" not in config and "filter" in config
                and config["filter"] == cli_filter
                and isinstance(suites_there, Mapping) and sorted(suites_there) == names):
            found[run.meta.commit] = run.id
    return found


def measure_commit(store, suites: Sequence[Suite], repo: Path, commit: str, cli_filter: str | None,
                   config_path: Path, label: str | None, listener, placement: Placement = HERE) -> tuple[int, int]:
    """One commit: check out and build its suites once, plan, run.  Returns (run id, benchmarks measured).

    Raises BenchwardenError when nothing could be planned (the suites' errors named).
    """
    from benchwarden.environment import GitState, collect_run_meta
    from benchwarden.revisions import suite_for_revision
    from benchwarden.runner.engine import plan_run

    rooted = [suite_for_revision(suite, repo, commit)[0] for suite in suites]
    plan = plan_run(rooted, cli_filter, adapter_factory=placement.adapter_factory, listener=listener)
    if not plan.benchmarks:
        reasons = "; ".join(f"{name}: {exc}" for name, exc in plan.failed_suites.items())
        raise BenchwardenError(f"nothing to measure at {commit[:12]}: {reasons or 'no benchmark matches'}")
    config = snapshot(rooted, cli_filter, config_path, commit)
    if placement.cluster is not None:
        config["cluster"] = placement.cluster
    meta = collect_run_meta(None, toolchain=plan.toolchain, config=config, label=label,
                            source=GitState(commit, False))
    outcome = placement.runner(store, listener).run(plan, placement.meta(meta))
    return outcome.run_id, len(outcome.results)


def backfill(store, suites: Sequence[Suite], repo: Path, commits: Sequence[tuple[str, str]],
             cli_filter: str | None, config_path: Path, label: str | None, listener,
             on_commit: Callable[[int, CommitOutcome], None] = lambda i, o: None,
             placement: Placement = HERE) -> list[CommitOutcome]:
    """Measure ``commits`` ((sha, subject) oldest first) that are not measured yet on the placement's machine
    (this one, or the cluster); report each as it ends."""
    done = already_measured(store.stored_runs(), machine_key(placement.machine()), suites, cli_filter)
    outcomes = []
    for i, (sha, subject) in enumerate(commits):
        if sha in done:
            outcome = CommitOutcome(sha, subject, "skipped", done[sha], message="already measured on this machine")
        else:
            started = time.monotonic()
            try:
                run_id, count = measure_commit(store, suites, repo, sha, cli_filter, config_path, label, listener,
                                               placement)
                outcome = CommitOutcome(sha, subject, "measured", run_id, count, time.monotonic() - started)
            except BenchwardenError as exc:
                from benchwarden.runner.engine import RunInterrupted

                if isinstance(exc, RunInterrupted):
                    raise
                outcome = CommitOutcome(sha, subject, "failed", elapsed_s=time.monotonic() - started,
                                        message=str(exc))
        outcomes.append(outcome)
        on_commit(i, outcome)
    return outcomes
