"""Forks a killed benchwarden left running: marked, recorded while they run, ended by resume (and only they).

The end-to-end case (a real `benchwarden run` killed with SIGKILL, then `run --resume`) is in
tests/e2e/test_orphan_forks.py; here the parts, with real processes and a real SQLite store.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from benchwarden.adapters.base import SuiteContext
from benchwarden.adapters.process import MARKER_VAR, end_marked_processes, processes_marked
from benchwarden.config import RunSettings, Suite
from benchwarden.model import BenchmarkId, RunMeta
from benchwarden.runner.engine import Runner, plan_run
from benchwarden.runner.orphans import ForkRecorder, end_orphan_forks
from benchwarden.store import open_store
from tests.support.fake_adapter import FakeAdapter, FakeBenchmarkSpec
from tests.support.processes import eventually, is_alive

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")

# a fork that hangs and has started a child of its own (both must go)
_HANGING = "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)']); " \
           "print('ready', flush=True); time.sleep(300)"


def _start(marker: str | None) -> subprocess.Popen:
    env = dict(os.environ)
    if marker is not None:
        env[MARKER_VAR] = marker
    proc = subprocess.Popen([sys.executable, "-c", _HANGING], env=env, stdout=subprocess.PIPE, text=True,
                            start_new_session=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


@pytest.fixture
def processes():
    started: list[subprocess.Popen] = []
    yield started
    for proc in started:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)


def test_marked_processes_are_found_with_their_children_and_ended_with_their_group(processes):
    ours, other = _start("7-abc"), _start("8-def")
    unmarked = _start(None)
    processes.extend([ours, other, unmarked])
    found = processes_marked(["7-abc"])
    assert {p.pgid for p in found} == {ours.pid} and len(found) == 2  # the fork and the child it started
    ended = end_marked_processes(["7-abc"])
    assert {p.pid for p in ended} == {p.pid for p in found}
    assert eventually(lambda: not any(is_alive(p.pid) for p in found), timeout_s=10)
    # a different marker, and a process without one, are left alone
    assert is_alive(other.pid) and is_alive(unmarked.pid)


def test_a_reused_process_group_id_without_the_marker_is_never_touched(processes, tmp_path):
    unmarked = _start(None)
    processes.append(unmarked)
    with open_store(tmp_path / "r.db") as store:
        run_id = store.create_run(RunMeta(created_at=1.0, tool_version="t"))
        # a record claiming the unmarked process's group, as after pid reuse
        store.record_fork_process(run_id, BenchmarkId("s", "b"), 1, pgid=unmarked.pid, marker=f"{run_id}-gone",
                                  host=os.uname().nodename, boot_id=None, started_at=1.0)
        assert end_orphan_forks(store, run_id) == []
        assert store.fork_processes(run_id) == []  # cleared: the resumed run records its own
    assert is_alive(unmarked.pid)


def test_resume_ends_the_recorded_forks_still_running_and_says_so(processes, tmp_path):
    with open_store(tmp_path / "r.db") as store:
        run_id = store.create_run(RunMeta(created_at=1.0, tool_version="t"))
        recorder = ForkRecorder.for_run(store, run_id)
        hung = _start(recorder.marker)
        processes.append(hung)

        class Fork:
            pid = hung.pid

        recorder.started(BenchmarkId("s", "b", (("n", "1"),)), 2, Fork())
        (record,) = store.fork_processes(run_id)
        assert (record.benchmark, record.fork_index, record.pgid, record.marker) == \
            ("s:b[n=1]", 2, hung.pid, recorder.marker)
        (line,) = end_orphan_forks(store, run_id)
        assert line.startswith("s:b[n=1] fork 2 was still running: ended pid") and f"(group {hung.pid})" in line
        assert store.fork_processes(run_id) == []
    assert eventually(lambda: not is_alive(hung.pid), timeout_s=10)


def test_saving_a_fork_clears_its_record_and_a_finished_run_leaves_none(tmp_path):
    seen_env: list[dict] = []

    class Recording(FakeAdapter):
        def start_fork(self, ctx, benchmark, plan):
            seen_env.append(dict(plan.env))
            return super().start_fork(ctx, benchmark, plan)

    adapter = Recording([FakeBenchmarkSpec("a"), FakeBenchmarkSpec("b")])
    suite = Suite(SuiteContext(name="s", kind="fake", root=tmp_path, env={"USER_VAR": "1"}),
                  RunSettings(iteration_time_s=0.01, warmup_min=1, warmup_max=1, iterations=2, forks_min=2,
                              forks_max=2, stop="static"))
    with open_store(tmp_path / "r.db") as store:
        outcome = Runner(store).run(plan_run([suite], adapter_factory=lambda kind: adapter),
                                    RunMeta(created_at=1.0, tool_version="t"))
        assert store.fork_processes(outcome.run_id) == []
    markers = {env[MARKER_VAR] for env in seen_env}
    assert len(seen_env) == 4 and len(markers) == 1 and markers.pop().startswith(f"{outcome.run_id}-")
    assert all(env["USER_VAR"] == "1" for env in seen_env)  # the suite's own environment is kept
