"""Measurements from the store: reusable forks of unchanged code, and the history for the parametric R².

A check stores every fork it measures (one run per suite and revision, labelled ``check``), with a
*fingerprint* in the run's configuration snapshot.  Forks of an earlier check run are reused when

* the run measured the same commit and its tree was clean (``commit`` equal, ``dirty`` false);
* its fingerprint is equal: the suite's definition (kind, build, artifact, JVM arguments, suite
  environment, adapter options, path inside the repository), its run settings except the fork counts
  and timeouts (iteration time, warmup bounds, measurement iterations, stop policy...), the machine (host name
  and CPU model, and its declared name when it has one: forks a check ran on a cluster's workers are the
  cluster's, ``cluster tcp://…``, never reused by a check here or on another cluster) and the
  process environment that reaches the benchmark processes (minus variables that change from one
  shell session to the next, :data:`VOLATILE_ENV`) — so ``WORDSTAT_SLOW=1 benchwarden check`` never
  reuses forks measured without it;
* it is recent enough (``reuse`` in ``[check]``).

Working trees with uncommitted changes are never reused (their code has no identity).  Untracked
files do not count as changes (``environment.git_state``), a documented limitation.

The history of a benchmark (parametric interpretation, Horký §2.5.4) is the relative variance of fork
means in earlier check runs with the same fingerprint, any commit, each with its degrees of freedom.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Iterable, Mapping

import numpy as np

from benchwarden.config import Suite
from benchwarden.model import BenchmarkId, ForkResult, ForkStatus, RunData

#: label of every run a check stores
CHECK_LABEL = "check"

#: environment variables (fnmatch patterns) that differ between shell sessions and never reach results
VOLATILE_ENV = ("PWD", "OLDPWD", "SHLVL", "_", "TERM*", "COLUMNS", "LINES", "SSH_*", "DISPLAY", "WINDOWID",
                "XDG_SESSION*", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "HIST*", "PS1", "PS2",
                "PROMPT_COMMAND", "COLORTERM", "TMUX*", "STY", "LS_COLORS", "GPG_AGENT_INFO", "KRB5CCNAME",
                "PYTEST_*", "COV_CORE_*", "MAIL", "LOGNAME", "OLDPWD", "VSCODE_*", "INVOCATION_ID",
                "JOURNAL_STREAM", "SECURITYSESSIONID", "TERM_SESSION_ID", "WT_SESSION", "GITHUB_RUN_*",
                "GITHUB_JOB", "CI_JOB_*", "BUILD_*", "RUNNER_*")


def stable_environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The process environment without :data:`VOLATILE_ENV` variables."""
    source = os.environ if env is None else env
    return {k: v for k, v in source.items() if not any(fnmatch.fnmatchcase(k, p) for p in VOLATILE_ENV)}


def fingerprint(suite: Suite, relative_root: str, machine: Mapping[str, str],
                env: Mapping[str, str] | None = None) -> str:
    """A hash of everything besides the code that decides what a fork of this suite measures."""
    ctx = suite.context
    per_fork = {k: v for k, v in suite.settings.to_dict().items()
                if k not in ("forks_min", "forks_max", "timeout_s", "iteration_timeout_s")}
    payload = {
        "suite": {"name": ctx.name, "kind": ctx.kind, "root": relative_root, "build": list(ctx.build or ()),
                  "artifact": ctx.artifact, "jvm_args": list(ctx.jvm_args), "env": dict(sorted(ctx.env.items())),
                  "options": json.loads(json.dumps(dict(ctx.options), sort_keys=True, default=str))},
        "fork": per_fork,
        # the declared name too when there is one: a cluster's runs are named after it (runner/placement.py)
        "machine": {k: machine.get(k) for k in ("hostname", "cpu", "name") if k != "name" or machine.get(k)},
        "env": dict(sorted(stable_environment(env).items())),
    }
    text = json.dumps(payload, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def run_fingerprint(run: RunData) -> str | None:
    check = run.meta.config.get("check") if isinstance(run.meta.config, Mapping) else None
    return check.get("fingerprint") if isinstance(check, Mapping) else None


def complete_forks(run: RunData, bid: BenchmarkId) -> list[list[float]]:
    """Measurement values of every complete fork of ``bid`` in ``run``."""
    return [list(f.measurement_ns) for f in complete_fork_results(run, bid)]


def complete_fork_results(run: RunData, bid: BenchmarkId) -> list[ForkResult]:
    """Every complete fork of ``bid`` in ``run`` (with measurements), in the order stored."""
    for result in run.results:
        if result.benchmark.id == bid:
            return [f for f in result.forks if f.status is ForkStatus.COMPLETE and f.measurement]
    return []


@dataclass
class StoreLookup:
    """Reads earlier check runs from a store (anything with ``list_runs`` and ``load_run``), caching loads."""

    store: object
    scan_limit: int = 200
    _loaded: dict[int, RunData] = field(default_factory=dict)

    def _runs(self) -> list:
        return [r for r in self.store.list_runs(limit=self.scan_limit)  # type: ignore[attr-defined]
                if r.label == CHECK_LABEL]

    def _load(self, run_id: int) -> RunData:
        if run_id not in self._loaded:
            self._loaded[run_id] = self.store.load_run(run_id)  # type: ignore[attr-defined]
        return self._loaded[run_id]

    def reusable(self, fp: str, commit: str, wanted: Iterable[BenchmarkId], max_age_s: float,
                 now: float) -> dict[BenchmarkId, tuple[list[ForkResult], list[int]]]:
        """Complete forks of ``wanted`` benchmarks from clean check runs of ``commit`` with fingerprint ``fp``."""
        wanted = list(wanted)
        found: dict[BenchmarkId, tuple[list[ForkResult], list[int]]] = {}
        for summary in self._runs():
            if summary.commit != commit or summary.dirty is not False or summary.created_at < now - max_age_s:
                continue
            run = self._load(summary.id)
            if run_fingerprint(run) != fp:
                continue
            for bid in wanted:
                forks = complete_fork_results(run, bid)
                if forks:
                    entry = found.setdefault(bid, ([], []))
                    entry[0].extend(forks)
                    entry[1].append(summary.id)
        return found

    def history(self, fp: str, bid: BenchmarkId, limit: int, exclude: Iterable[int] = ()) -> list[tuple[float, int]]:
        """(relative variance of fork means, forks − 1) of up to ``limit`` earlier runs with ≥ 2 forks."""
        skip = set(exclude)
        out: list[tuple[float, int]] = []
        for summary in self._runs():
            if len(out) >= limit:
                break
            if summary.id in skip:
                continue
            run = self._load(summary.id)
            if run_fingerprint(run) != fp:
                continue
            forks = complete_forks(run, bid)
            if len(forks) < 2:
                continue
            means = np.array([np.mean(f) for f in forks])
            mean = float(means.mean())
            if mean > 0:
                out.append((float(np.var(means, ddof=1)) / mean ** 2, len(forks) - 1))
        return out
