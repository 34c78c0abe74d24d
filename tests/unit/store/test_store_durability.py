"""Durability: a real child process writing forks is killed (SIGKILL, SIGINT); every committed fork survives intact.

The child (store_durability_child.py) reports each fork after ``save_fork``
returned.  Whatever instant the kill lands on, the store must afterwards hold
forks 1..m with m >= the last reported one, each bit-for-bit the fork that
was written, and no partial fork; the file must open and accept new writes.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest
from store_durability_child import MEASUREMENT, WARMUP
from store_samples import make_benchmark, make_fork

from benchwarden.adapters.process import LineTimeout, ManagedProcess
from benchwarden.model import RunStatus
from benchwarden.store import open_store

HERE = Path(__file__).parent
LINE_TIMEOUT_S = 120.0  # generous: each fork is an fsync, and a loaded shared disk can stall for seconds


class Child:
    """The writer process, with line-by-line reading under a deadline.

    Lines are read by benchwarden's own reader (a thread per pipe and a queue), not by ``select`` plus a
    buffered ``readline``: that pair can hide a line already in the buffer from ``select`` and stall, which
    made these tests fail on a loaded machine.
    """

    def __init__(self, store_path: Path, hold_at: int | None = None):
        env = {"PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
        argv = [sys.executable, str(HERE / "store_durability_child.py"), str(store_path)]
        if hold_at is not None:
            argv.append(str(hold_at))
        self.process = ManagedProcess(argv, env=env, merge_stderr=False)
        self.proc = self.process.proc

    def read_until(self, wanted: str) -> list[str]:
        """Lines up to and including ``wanted``; fails the test on timeout or early exit."""
        lines: list[str] = []
        deadline = time.monotonic() + LINE_TIMEOUT_S
        while True:
            try:
                line = self.process.readline(deadline)
            except LineTimeout:
                pytest.fail(f"child did not print {wanted!r} within {LINE_TIMEOUT_S}s; got {lines[-3:]}")
            if line is None:
                pytest.fail(f"child exited early ({self.proc.wait()}) before {wanted!r}; got {lines[-3:]}; "
                            f"output: {self.process.tail()}")
            lines.append(line.strip())
            if line.strip() == wanted:
                return lines

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)
        self.process.terminate()


def _expected_fork(index: int):
    return make_fork(1, index, WARMUP, MEASUREMENT)


def _assert_intact(store_path: Path, run_id: int, at_least: int) -> int:
    """Forks 1..m, m >= at_least, each identical to what was written; returns m."""
    with open_store(store_path) as store:
        (result,) = store.load_run(run_id).results
    indexes = [f.index for f in result.forks]
    assert indexes == list(range(1, len(indexes) + 1)), f"forks are not 1..m: {indexes}"
    assert len(indexes) >= at_least, f"committed fork lost: reported {at_least}, stored {indexes}"
    for fork in result.forks:
        assert fork == _expected_fork(fork.index), f"fork {fork.index} differs from what was written"
    return len(indexes)


@pytest.mark.parametrize("kill_after", [1, 4, 9])
def test_sigkill_while_writing_keeps_every_committed_fork(tmp_path: Path, kill_after: int):
    store_path = tmp_path / "results.db"
    child = Child(store_path)
    try:
        run_id = int(child.read_until("run 1")[-1].split()[1])
        child.read_until(f"saved {kill_after}")
        child.proc.send_signal(signal.SIGKILL)  # it is busy writing fork kill_after + 1 right now
        assert child.proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        child.close()
    stored = _assert_intact(store_path, run_id, at_least=kill_after)
    assert stored <= kill_after + 2  # sanity: the child was stopped promptly
    with open_store(store_path) as store:
        assert store.load_run(run_id).status is RunStatus.RUNNING  # no chance to say otherwise


def test_sigkill_inside_an_open_fork_transaction_loses_only_that_fork(tmp_path: Path):
    store_path = tmp_path / "results.db"
    child = Child(store_path, hold_at=4)
    try:
        child.read_until("saved 3")
        child.read_until("committing 4")  # fork 4's rows are written, its COMMIT not yet sent
        child.proc.send_signal(signal.SIGKILL)
        child.proc.wait(timeout=30)
    finally:
        child.close()
    assert _assert_intact(store_path, 1, at_least=3) == 3
    # the dead writer's lock is gone: a new writer goes on at once, as `run --resume` would
    started = time.monotonic()
    with open_store(store_path) as store:
        store.save_fork(1, make_benchmark(1).id, _expected_fork(4))
    assert time.monotonic() - started < 5.0
    assert _assert_intact(store_path, 1, at_least=4) == 4


def test_ctrl_c_rolls_back_the_fork_being_written_and_marks_the_run_interrupted(tmp_path: Path):
    store_path = tmp_path / "results.db"
    child = Child(store_path, hold_at=6)
    try:
        child.read_until("committing 6")
        child.proc.send_signal(signal.SIGINT)
        child.read_until("interrupted")
        assert child.proc.wait(timeout=30) == 130
    finally:
        child.close()
    assert _assert_intact(store_path, 1, at_least=5) == 5
    with open_store(store_path) as store:
        assert store.load_run(1).status is RunStatus.INTERRUPTED
