"""One-process CPU-time forks for Go (adapters/gotest_cpu.py) and the clock they read (adapters/usage.py).

The fork is driven against a stand-in for a Go test binary that burns known CPU time per operation and per
set-up (tests/data/gocpu/fake_gotest.py); the real Go example runs in tests/e2e/test_metrics_examples.py.
Designed effects are large (a set-up worth half the operations' cost) so that the assertions separate
right from wrong whatever the machine's load; how precise the values are is measured in benchmarks/.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from benchwarden.adapters.base import ForkPlan
from benchwarden.adapters.gotest_cpu import GoCpuFork
from benchwarden.adapters.gotest_twopoint import SHORT_OPS, GoHarness
from benchwarden.adapters.process import ManagedProcess
from benchwarden.adapters.usage import ThreadGroupClock, reap_with_usage, thread_group_clock_available
from benchwarden.errors import ForkFailed

FAKE = Path(__file__).resolve().parents[2] / "data" / "gocpu" / "fake_gotest.py"

pytestmark = pytest.mark.skipif(not thread_group_clock_available(),
                                reason="needs /proc/<pid>/task/*/schedstat (Linux)")


def _binary(tmp_path: Path, script: Path = FAKE) -> str:
    wrapper = tmp_path / f"{script.stem}.test"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} {script} \"$@\"\n", encoding="utf-8")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return str(wrapper)


def _fork(binary: str, env: dict[str, str], iterations: int = 4, long_ops: int | None = 2000) -> GoCpuFork:
    harness = GoHarness(binary, str(Path(binary).parent), "BenchmarkFake", "^BenchmarkFake$", env, "BenchmarkFake", 60)
    plan = ForkPlan(fork_index=1, iteration_time_s=0.04, max_iterations=iterations, timeout_s=60,
                    iteration_timeout_s=30, metric="cpu")
    return GoCpuFork(harness, plan, "fake", long_ops=long_ops)


def test_the_benchmark_s_set_up_is_not_counted_in_its_operations(tmp_path):
    """20 µs of CPU per operation, 10 ms of set-up per call (two calls per repetition): 2000 operations cost
    40 ms and their repetition 60 ms, so a per-repetition value without the reference reads 30 µs (+50 %)."""
    fork = _fork(_binary(tmp_path), {"FAKE_PER_OP_US": "20", "FAKE_SETUP_MS": "10"})
    values = [r.value_ns for r in fork]
    assert len(values) == 4
    assert fork.reference_ns is not None and 15e6 < fork.reference_ns < 30e6  # 2 x 10 ms + 3 x 20 µs
    mean = sum(values) / len(values)
    assert 17_000 < mean < 23_000, values  # 20 µs, not 30
    results = list(_fork(_binary(tmp_path), {"FAKE_PER_OP_US": "20"}, iterations=2))
    assert [r.ops for r in results] == [2000 - SHORT_OPS] * 2
    assert results[0].secondary["B/op"] == 16 and results[0].secondary["wall [ns/op]"] > 0


class LateClock(ThreadGroupClock):
    """The reader of a loaded machine: after the header, it reads the clock 30 ms after the output arrived."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def __call__(self, pid: int) -> int:
        self.calls += 1
        if self.calls > 1:
            time.sleep(0.03)
        return super().__call__(pid)


class LateReaderFork(GoCpuFork):
    clock = LateClock


def test_the_last_repetition_is_valued_at_exit_when_its_threads_are_gone(tmp_path):
    """The work runs on a second thread, and the last result comes in one write with PASS right before exit: a
    reader that reads the clock after the exit finds that thread gone from /proc (the last repetition would
    read as costing nothing: a failed fork). It is valued from wait4 instead, which counts every thread. A
    late reader moves cost between neighbouring repetitions, not out of their sum: the mean stays right."""
    binary = _binary(tmp_path)
    harness = GoHarness(binary, str(tmp_path), "BenchmarkFake", "^BenchmarkFake$",
                        {"FAKE_PER_OP_US": "20", "FAKE_WORKER": "1", "FAKE_TOGETHER": "1"}, "BenchmarkFake", 60)
    plan = ForkPlan(fork_index=1, iteration_time_s=0.04, max_iterations=5, timeout_s=60, iteration_timeout_s=30,
                    metric="cpu")
    values = [r.value_ns for r in LateReaderFork(harness, plan, "fake", long_ops=4000)]  # 80 ms per repetition
    # the burn is counted in CPU time, so its mean is exact to the interpreter's overhead; reading the last
    # repetition's clock after the exit would lose what its thread burnt after the previous reading (~50 ms,
    # -2.5 µs per operation in the mean, or a failed fork)
    assert len(values) == 5 and 18_000 < sum(values) / 5 < 22_000, values


def test_a_start_up_without_header_is_not_counted(tmp_path):
    """Without Go's header lines there is no reading between start-up and the first result: that result's
    cost would include the start-up, so it is dropped, and the rest are valued from one another."""
    source = FAKE.read_text(encoding="utf-8")
    header = 'out.write(b"goos: linux\\ngoarch: amd64\\npkg: fake\\ncpu: fake\\n")'
    assert header in source
    headless = tmp_path / "headless.py"
    headless.write_text(source.replace(header, "burn(0.3)"), encoding="utf-8")  # 300 ms / 2000 ops = +150 µs
    values = [r.value_ns for r in _fork(_binary(tmp_path, headless), {"FAKE_PER_OP_US": "20"}, iterations=4)]
    assert len(values) == 3 and all(14_000 < v < 26_000 for v in values), values


def test_a_failing_benchmark_fails_the_fork(tmp_path):
    with pytest.raises(ForkFailed, match="cannot start"):
        list(_fork(str(tmp_path / "missing.test"), {}))
    crash = tmp_path / "crash.test"  # the reference executions pass; the measurement's test binary crashes
    crash.write_text("#!/bin/sh\necho 'goos: linux'\necho 'BenchmarkFake \t 10\t 5 ns/op'\n"
                     "case \"$*\" in *'-test.count 3 '*) echo 'panic: boom' >&2; exit 2;; esac\necho PASS\n",
                     encoding="utf-8")
    crash.chmod(0o755)
    with pytest.raises(ForkFailed, match="status 2"):
        list(_fork(str(crash), {}, iterations=3))


def test_a_stopped_fork_ends_and_leaves_no_process(tmp_path):
    fork = _fork(_binary(tmp_path), {"FAKE_PER_OP_US": "200"}, iterations=50)  # 0.4 s per repetition
    got = []
    for result in fork:
        got.append(result)
        fork.stop()
    assert len(got) == 1
    process = fork._runner._last
    assert process is not None and process.proc.poll() is not None


# ---------------------------------------------------------------------- the clock and the stamps


BURNER = textwrap.dedent("""
    import sys, threading, time
    def burn(s):
        end = time.thread_time() + s
        while time.thread_time() < end:
            pass
    t = threading.Thread(target=burn, args=(0.2,))
    t.start(); t.join()          # a thread that burns 200 ms and exits
    print("one", flush=True)
    burn(0.1)
    print("two", flush=True)
    sys.stdin.readline()
""")


def test_the_clock_keeps_the_time_of_threads_that_exited_and_agrees_with_wait4():
    clock = ThreadGroupClock()
    proc = subprocess.Popen([sys.executable, "-c", BURNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "one\n"
        # the thread is gone: its 200 ms were never seen by this clock, so they are not in it (a clock that keeps
        # threads' last readings cannot know a thread it never saw); what it has seen it keeps
        first = clock(proc.pid)
        assert proc.stdout.readline() == "two\n"
        second = clock(proc.pid)
        assert 0.08e9 < second - first < 0.2e9  # the main thread's 100 ms
        proc.stdin.write("\n")
        proc.stdin.flush()
        _, _, ru = os.wait4(proc.pid, 0)
        total_ns = (ru.ru_utime + ru.ru_stime) * 1e9
        assert second <= total_ns + 1e6 and total_ns - second > 0.18e9  # wait4 has the exited thread's 200 ms
        assert clock(proc.pid) == second  # the process is gone: the clock stays where it was
    finally:
        proc.kill()
        proc.wait()


def test_lines_of_one_read_share_a_stamp_and_later_ones_get_a_later_one():
    script = ("import sys, time\nsys.stdout.write('a\\n'); sys.stdout.flush(); time.sleep(0.2)\n"
              "sys.stdout.write('b\\nc\\n'); sys.stdout.flush()\n")
    stamps = iter(range(100))
    process = ManagedProcess([sys.executable, "-c", script], stamp=lambda pid: next(stamps))
    try:
        seen = []
        while (line := process.readline(time.monotonic() + 30)) is not None:
            seen.append((line, process.last_stamp, process.block_done()))
    finally:
        process.terminate()
    assert [s[0] for s in seen] == ["a", "b", "c"]
    assert seen[0][1] != seen[1][1] and seen[1][1] == seen[2][1]  # b and c: one write, one read (after 200 ms)
    assert [s[2] for s in seen] == [True, False, True]


def test_without_a_stamp_lines_have_none():
    process = ManagedProcess([sys.executable, "-c", "print('x')"])
    try:
        assert process.readline(time.monotonic() + 30) == "x" and process.last_stamp is None
        assert reap_with_usage(process, 30) is not None
    finally:
        process.terminate()
