"""Two-point estimates, Valgrind's output, the environments that make counts repeatable, wait4 usage."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from benchwarden.adapters.asv import AsvAdapter
from benchwarden.adapters.base import SuiteContext
from benchwarden.adapters.command import CommandAdapter
from benchwarden.adapters.gotest import GoAdapter
from benchwarden.adapters.process import ManagedProcess
from benchwarden.adapters.usage import reap_with_usage
from benchwarden.errors import ToolchainMissing
from benchwarden.metrics import twopoint, valgrind

CACHEGRIND_OUT = """desc: I1 cache:         32768 B, 64 B, 8-way associative
cmd: ./wordstat.test -test.run ^$ -test.bench ^BenchmarkTokenize$/^size=1000$ -test.benchtime 2x
events: Ir
fl=???
fn=0x0000000000401000
0 3
summary: 12268586
"""


def test_per_op_is_the_slope_between_two_executions():
    # start-up 9.0 M, 250 k per operation: any start-up cancels
    assert twopoint.per_op(9.0e6 + 3 * 250e3, 9.0e6 + 1003 * 250e3, 3, 1003) == pytest.approx(250e3)
    with pytest.raises(ValueError, match="must run more operations"):
        twopoint.per_op(1.0, 2.0, 5, 5)
    with pytest.raises(ValueError, match="start-up varies more than the operations cost"):
        twopoint.per_op(2.0e6, 1.9e6, 3, 10)


def test_long_ops_by_time_and_by_instructions():
    assert twopoint.long_ops(20_000, 0.2) == 10_000  # 0.2 s of 20 µs operations
    assert twopoint.long_ops(20_000, 0.2, slowdown=30.0) == 334
    # at least 1e8 instructions at ~8 per ns: 1e8 / (8 * 20 µs) = 625
    assert twopoint.long_ops(20_000, 0.2, slowdown=30.0, min_instructions=1e8) == 625
    assert twopoint.long_ops(5e9, 0.1) == 2
    with pytest.raises(ValueError):
        twopoint.long_ops(0.0, 0.1)


def test_an_undersized_count_resizes_the_long_execution_from_the_measured_count_per_op():
    # the loaded-VM case: 62 operations of 555k instructions = 34 M, a third of the 10^8 wanted
    assert twopoint.ops_for_count(555_000, 1e8, short_ops=3, long_ops=62) == 3 + 181
    assert twopoint.ops_for_count(250_000, 1e8, short_ops=3, long_ops=403) is None  # 10^8 already
    assert twopoint.ops_for_count(250_000, 1e8, short_ops=3, long_ops=330) is None  # 82 %: within the slack
    assert twopoint.ops_for_count(250_000, 1e8, short_ops=3, long_ops=300) == 403
    with pytest.raises(ValueError):
        twopoint.ops_for_count(float("nan"), 1e8, short_ops=3, long_ops=10)


def test_instruction_count_is_read_from_the_summary(tmp_path: Path):
    assert valgrind.read_instructions(CACHEGRIND_OUT) == 12_268_586
    (tmp_path / "cachegrind.out.1").write_text(CACHEGRIND_OUT)
    (tmp_path / "cachegrind.out.2").write_text(CACHEGRIND_OUT.replace("12268586", "1000"))
    assert valgrind.total_instructions(sorted(tmp_path.glob("cachegrind.out.*"))) == 12_269_586
    with pytest.raises(ValueError, match="not a cachegrind output"):
        valgrind.read_instructions("hello", "x.out")
    with pytest.raises(ValueError, match="first event is Dr, not Ir"):
        valgrind.read_instructions("events: Dr Ir\nsummary: 5 6\n")
    with pytest.raises(ValueError, match="no output file"):
        valgrind.total_instructions([])


def test_environments_make_counts_repeatable_and_keep_the_users_settings():
    assert valgrind.go_environment({"A": "1"}, "cpu") == {"A": "1", "GOMAXPROCS": "1"}
    go = valgrind.go_environment({"GOMEMLIMIT": "3GiB", "GOMAXPROCS": "4"}, "instructions")
    assert go == {"GOMAXPROCS": "1", "GOGC": "off", "GOMEMLIMIT": "3GiB"}
    assert valgrind.python_environment({}, 3) == {"PYTHONHASHSEED": "3"}
    assert valgrind.python_environment({"PYTHONHASHSEED": "0"}, 3) == {"PYTHONHASHSEED": "0"}
    argv = valgrind.cachegrind_argv("/usr/bin/valgrind", "/tmp/x/cachegrind.out.%p", trace_children=True)
    assert argv[:2] == ["/usr/bin/valgrind", "--tool=cachegrind"] and "--cache-sim=no" in argv
    assert "--trace-children=yes" in argv and "--cachegrind-out-file=/tmp/x/cachegrind.out.%p" in argv


@pytest.mark.parametrize("adapter", [GoAdapter(), AsvAdapter(), CommandAdapter()], ids=lambda a: a.kind)
def test_instruction_counts_need_valgrind_once_before_any_fork(adapter, tmp_path, monkeypatch):
    ctx = SuiteContext(name="words", kind=adapter.kind, root=tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))  # no valgrind here
    adapter.prepare_metric(ctx, "time")  # nothing to check
    adapter.prepare_metric(ctx, "cpu")
    with pytest.raises(ToolchainMissing, match=r"suite 'words': 'valgrind' was not found on PATH \(install Valgrind"):
        adapter.prepare_metric(ctx, "instructions")
    (tmp_path / "valgrind").write_text("#!/bin/sh\n")
    (tmp_path / "valgrind").chmod(0o755)
    adapter.prepare_metric(ctx, "instructions")
    assert valgrind.require("words") == str(tmp_path / "valgrind")


def test_wait4_gives_the_cpu_time_and_peak_memory_of_the_execution_and_its_children():
    # the child burns ~0.15 s of CPU in a grandchild it waits for, and touches 64 MiB itself
    code = ("import subprocess, sys; b = bytearray(64 << 20); b[::4096] = b'x' * len(b[::4096]);"
            "subprocess.run([sys.executable, '-c', 'import time; t = time.process_time()\\n"
            "while time.process_time() - t < 0.15: pass'])")
    process = ManagedProcess([sys.executable, "-c", code])
    reaped = reap_with_usage(process, 60.0)
    assert reaped is not None
    status, usage = reaped
    assert status == 0 and process.wait(1.0) == 0  # the Popen object knows the status too
    assert usage.cpu_ns >= 0.15e9 and usage.user_ns > 0
    assert usage.max_rss_kib >= 64 * 1024
    process.terminate()


def test_wait4_times_out_without_reaping_and_reports_signals():
    process = ManagedProcess([sys.executable, "-c", "import time; time.sleep(30)"])
    started = time.monotonic()
    assert reap_with_usage(process, 0.2) is None
    assert time.monotonic() - started < 5
    process.proc.kill()
    status, _ = reap_with_usage(process, 10.0)
    assert status == -9
    with pytest.raises(RuntimeError, match="already reaped"):
        reap_with_usage(process, 1.0)
    process.terminate()


def test_a_process_reaped_meanwhile_by_a_concurrent_stop_is_not_an_error(monkeypatch):
    # The race of a loaded CI run: stop() on another thread terminated and waited for the process between
    # this thread's exit poll and its wait4, which then failed with ECHILD. wait4 is made to lose that race.
    from benchwarden.adapters import usage as usage_module
    process = ManagedProcess([sys.executable, "-c", "pass"])

    def lost_race(pid, options):
        process.proc.wait()  # the other thread's Popen.wait reaps it first
        raise ChildProcessError(10, "No child processes")
    monkeypatch.setattr(usage_module.os, "wait4", lost_race)
    status, usage = reap_with_usage(process, 30.0)
    assert status == 0 and usage.cpu_ns == 0  # the status Popen saw; the usage is lost
    process.terminate()
