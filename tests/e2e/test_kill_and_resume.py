"""A real run killed mid-way (SIGKILL, and SIGTERM) keeps its completed forks; --resume finishes without repeating them.

Uses the example Go suite (copied to a temp dir) because its forks start fast;
the mechanism under test (per-fork commits, resume) is the same for every adapter.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchwarden.model import ForkStatus, RunStatus
from benchwarden.store import open_store
from tests.support.processes import matching

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.e2e, pytest.mark.skipif(shutil.which("go") is None, reason="go is not on PATH")]

ARGS = ["--filter", "Tokenize|TopK", "--iteration-time", "100ms", "--warmup", "1", "--iterations", "3",
        "--forks", "3", "--quiet"]


@pytest.fixture
def project(tmp_path):
    dest = tmp_path / "go"
    shutil.copytree(ROOT / "examples" / "go", dest, ignore=shutil.ignore_patterns(".benchwarden"))
    return dest


def _bw(project: Path, *args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "benchwarden", "run", "--store", str(project / "r.db"), *args],
                            cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                            **kw)


def _complete_forks(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return conn.execute("SELECT count(*) FROM forks WHERE status = 'complete'").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def _wait_for_forks(db: Path, proc: subprocess.Popen, n: int, timeout_s: float = 180) -> None:
    deadline = time.monotonic() + timeout_s
    while _complete_forks(db) < n:
        if proc.poll() is not None:
            out = proc.stdout.read().decode(errors="replace")
            pytest.fail(f"run ended before {n} forks completed (exit {proc.returncode}):\n{out}")
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail(f"fewer than {n} forks completed within {timeout_s}s")
        time.sleep(0.05)


def _leftover_processes(marker: str) -> list[str]:
    return [f"{p.pid}: {' '.join(p.argv)}" for p in matching(lambda p: any(marker in a for a in p.argv))]


def _snapshot(db: Path):
    with open_store(db) as store:
        run = store.load_run(store.resolve_run(None))
    forks = {(str(r.benchmark.id), f.index): f for r in run.results for f in r.forks}
    return run, forks


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "sigterm"])
def test_killed_run_resumes_without_repeating_completed_forks(project, sig):
    db = project / "r.db"
    proc = _bw(project, *ARGS)
    _wait_for_forks(db, proc, 4)
    os.killpg(proc.pid, sig) if sig == signal.SIGKILL else proc.send_signal(sig)
    out = proc.communicate(timeout=60)[0].decode(errors="replace")
    if sig == signal.SIGTERM:
        assert proc.returncode == 130, out
        assert "--resume" in out  # tells the user how to finish
    time.sleep(0.5)
    assert _leftover_processes(str(project)) == [], "fork processes survived the kill"

    before, forks_before = _snapshot(db)
    expected = RunStatus.RUNNING if sig == signal.SIGKILL else RunStatus.INTERRUPTED
    assert before.status is expected
    kept = {k: f for k, f in forks_before.items() if f.status is ForkStatus.COMPLETE}
    assert len(kept) >= 4

    resumed = _bw(project, "--resume")
    out = resumed.communicate(timeout=600)[0].decode(errors="replace")
    assert resumed.returncode == 0, out
    after, forks_after = _snapshot(db)
    assert after.id == before.id and after.status is RunStatus.COMPLETE
    # every fork completed before the kill is still there, byte for byte: none was run again
    for key, fork in kept.items():
        again = forks_after[key]
        assert again.measurement_ns == fork.measurement_ns and again.started_at == fork.started_at
    # and the run is whole: every benchmark has its 3 complete forks
    per_benchmark: dict[str, list[int]] = {}
    for (bench, index), fork in forks_after.items():
        assert fork.status is ForkStatus.COMPLETE
        per_benchmark.setdefault(bench, []).append(index)
    assert per_benchmark and all(sorted(v) == [1, 2, 3] for v in per_benchmark.values()), per_benchmark
    assert len(per_benchmark) == 3  # BenchmarkTokenize[size=100], [size=1000] and BenchmarkTopK
