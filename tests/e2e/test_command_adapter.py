"""The command adapter end to end: real executions, timing, stop at a boundary, crash, hang, orphans."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from benchwarden.adapters import get_adapter, layout
from benchwarden.adapters.base import ForkPlan, SuiteContext
from benchwarden.errors import ForkFailed
from tests.support.processes import eventually, is_alive

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "python"
PY = sys.executable


def suite(commands: dict, root: Path = REPO, env: dict | None = None) -> SuiteContext:
    return SuiteContext(name="cli", kind="command", root=root, env=env or {}, options={"commands": commands})


def plan(**overrides) -> ForkPlan:
    values = dict(fork_index=1, iteration_time_s=0.1, max_iterations=3, timeout_s=60.0, iteration_timeout_s=20.0)
    values.update(overrides)
    return ForkPlan(**values)


def start(commands: dict, name: str, root: Path = REPO, env: dict | None = None, **plan_overrides):
    adapter = get_adapter("command")
    ctx = suite(commands, root, env)
    (benchmark,) = [b for b in adapter.list_benchmarks(ctx) if b.id.name == name]
    return adapter.start_fork(ctx, benchmark, plan(**plan_overrides))


def test_each_iteration_is_one_timed_execution():
    fork = start({"nap": [PY, "-c", "import time; time.sleep(0.1)"]}, "nap", max_iterations=3)
    results = list(fork)
    assert len(results) == 3
    for r in results:
        assert r.ops == 1.0
        assert r.raw_value == pytest.approx(r.value_ns / 1e6)  # ms/op
        assert 100.0 <= r.raw_value < 2000.0  # the 100 ms sleep plus interpreter start-up


def test_timing_is_not_quantised_by_polling():
    """A ~20 ms command must not read as 50 ms or more (Popen.wait(timeout) polls with up to 50 ms sleeps)."""
    fork = start({"sleep": ["sleep", "0.02"]}, "sleep", max_iterations=5)
    fastest_ms = min(r.raw_value for r in fork)
    assert 20.0 <= fastest_ms < 45.0


def test_executions_happen_on_demand_and_stop_is_at_a_boundary(tmp_path):
    marker = tmp_path / "runs.txt"
    script = f"open({str(marker)!r}, 'a').write('x')"
    fork = start({"count": [PY, "-c", script]}, "count", max_iterations=100)
    results = iter(fork)
    next(results)
    next(results)
    time.sleep(0.3)  # nothing may run while the consumer is not asking
    assert marker.read_text() == "xx"
    fork.stop()
    assert list(results) == []
    assert marker.read_text() == "xx"


def test_stop_from_another_thread_kills_a_running_execution():
    fork = start({"long": ["sleep", "30"]}, "long")
    threading.Timer(0.3, fork.stop).start()
    started = time.monotonic()
    assert list(fork) == []
    assert time.monotonic() - started < 5.0
    assert eventually(lambda: not is_alive(fork.pid))


def test_non_zero_exit_is_a_crash_with_the_output_tail():
    fork = start({"bad": [PY, "-c", "import sys; print('disk on fire'); sys.exit(4)"]}, "bad")
    with pytest.raises(ForkFailed) as info:
        list(fork)
    assert info.value.reason == "crashed"
    assert str(info.value).startswith("cli:bad: fork crashed: `") and str(info.value).endswith("exited with status 4")
    assert "disk on fire" in info.value.output


def test_a_hanging_execution_times_out_and_is_killed():
    fork = start({"hang": ["sleep", "30"]}, "hang", iteration_timeout_s=0.5)
    started = time.monotonic()
    with pytest.raises(ForkFailed, match=r"cli:hang: fork timeout: one execution took longer than 0.5s") as info:
        list(fork)
    assert info.value.reason == "timeout"
    assert time.monotonic() - started < 5.0
    assert eventually(lambda: not is_alive(fork.pid))


def test_the_fork_timeout_bounds_all_executions_and_keeps_earlier_results():
    fork = start({"nap": ["sleep", "0.2"]}, "nap", max_iterations=100, timeout_s=0.9)
    received = []
    with pytest.raises(ForkFailed, match="the fork did not finish within its timeout of 0.9s"):
        for result in fork:
            received.append(result)
    assert 1 <= len(received) <= 4


def test_background_children_of_a_command_are_killed_after_each_execution(tmp_path):
    pid_file = tmp_path / "child.pid"
    script = ("import subprocess, sys; "
              f"p = subprocess.Popen(['sleep', '30']); open({str(pid_file)!r}, 'w').write(str(p.pid))")
    fork = start({"spawn": [PY, "-c", script]}, "spawn", max_iterations=1)
    assert len(list(fork)) == 1
    child = int(pid_file.read_text())
    assert eventually(lambda: not is_alive(child)), "the command's background child outlived it"


def test_environment_and_working_directory(tmp_path):
    """Suite and plan variables, the suite root as working directory, and the fork's layout padding
    (benchwarden.adapters.layout: its size depends on the fork number)."""
    script = ("import os, sys; "
              "seen = (os.environ['A'], os.environ['B'], os.getcwd(), len(os.environ[sys.argv[2]])); "
              "sys.exit(0 if seen == ('suite', 'plan', sys.argv[1], int(sys.argv[3])) else 9)")
    adapter = get_adapter("command")
    for fork_index in (1, 2):
        argv = [PY, "-c", script, str(tmp_path), layout.PADDING_VARIABLE, str(layout.padding_bytes(fork_index))]
        ctx = suite({"env": argv}, tmp_path, env={"A": "suite", "B": "suite"})
        (benchmark,) = adapter.list_benchmarks(ctx)
        fork = adapter.start_fork(ctx, benchmark, plan(max_iterations=1, env={"B": "plan"}, fork_index=fork_index))
        assert len(list(fork)) == 1


def test_a_vanished_program_is_a_crash_naming_the_command(tmp_path):
    fork = start({"gone": ["./not-there.sh"]}, "gone", root=tmp_path)
    with pytest.raises(ForkFailed, match=r"fork crashed: cannot start `./not-there.sh`"):
        list(fork)


def test_the_example_command_suite_runs():
    adapter = get_adapter("command")
    ctx = SuiteContext(name="wordstat-cli", kind="command", root=EXAMPLE, options={"commands": {
        "top": "python3 -m wordstat top --words 2000 --k 10",
        "count": ["python3", "-m", "wordstat", "count", "--words", "5000"],
    }})
    adapter.prepare(ctx)
    for benchmark in adapter.list_benchmarks(ctx):
        fork = adapter.start_fork(ctx, benchmark, plan(max_iterations=2))
        assert len(list(fork)) == 2, fork.output_tail()
