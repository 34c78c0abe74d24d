"""Benchmarks that print a lot: they are measured, not timed out, and a failing one stores a short message.

Found on main: an asv benchmark printing 1 MB per call timed out, because the worker's stderr was read one byte
per system call and the benchmark blocked on the full pipe; a command printing 2 MB per execution was measured at
seconds instead of milliseconds (figures: benchmarks/process_output.py, docs/performance.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from benchwarden.adapters import get_adapter
from benchwarden.adapters.base import ForkPlan, SuiteContext
from benchwarden.errors import MAX_DETAIL_CHARS, MAX_OUTPUT_CHARS, ForkFailed

pytestmark = pytest.mark.e2e


def _plan(**overrides) -> ForkPlan:
    values = dict(fork_index=1, iteration_time_s=0.05, max_iterations=3, timeout_s=120.0, iteration_timeout_s=30.0)
    values.update(overrides)
    return ForkPlan(**values)


def _python_suite(root: Path, body: str) -> SuiteContext:
    bench = root / "benchmarks"
    bench.mkdir(parents=True)
    (bench / "__init__.py").write_text("")
    (bench / "chatty.py").write_text(body)
    return SuiteContext(name="py", kind="python", root=root, options={"python": sys.executable})


def test_an_asv_benchmark_printing_a_megabyte_per_call_is_measured(tmp_path):
    ctx = _python_suite(tmp_path, "import sys\nLINE = 'y' * 999 + '\\n'\n"
                                  "def time_print():\n    sys.stdout.write(LINE * 1000)\n")
    adapter = get_adapter("python")
    adapter.prepare(ctx)
    (benchmark,) = adapter.list_benchmarks(ctx)
    fork = adapter.start_fork(ctx, benchmark, _plan())
    try:
        values = [it.value_ns for it in fork]
    finally:
        fork.stop()
    assert len(values) == 3 and all(v > 0 for v in values)


def test_a_command_printing_two_megabytes_per_execution_is_measured(tmp_path):
    printer = [sys.executable, "-c", "import sys; sys.stdout.write(('z' * 99 + '\\n') * 20000)"]
    ctx = SuiteContext(name="cmd", kind="command", root=tmp_path, options={"commands": {"loud": printer}})
    adapter = get_adapter("command")
    adapter.prepare(ctx)
    (benchmark,) = adapter.list_benchmarks(ctx)
    fork = adapter.start_fork(ctx, benchmark, _plan(iteration_timeout_s=20.0))
    try:
        values = [it.value_ns for it in fork]
    finally:
        fork.stop()
    assert len(values) == 3  # at one byte per read(2) an execution took seconds


@pytest.mark.parametrize("kind", ["python", "command"])
def test_a_failing_benchmark_with_a_20_megabyte_line_stores_a_short_message(tmp_path, kind):
    if kind == "python":
        ctx = _python_suite(tmp_path, "import sys\ndef time_fail():\n"
                                      "    sys.stderr.write('q' * 20_000_000 + '\\n')\n    raise RuntimeError('boom')\n")
    else:
        ctx = SuiteContext(name="cmd", kind="command", root=tmp_path, options={"commands": {"fail": [
            sys.executable, "-c", "import sys; sys.stdout.write('q' * 20_000_000 + '\\nlast line\\n'); sys.exit(3)"]}})
    adapter = get_adapter(kind)
    adapter.prepare(ctx)
    (benchmark,) = adapter.list_benchmarks(ctx)
    fork = adapter.start_fork(ctx, benchmark, _plan())
    with pytest.raises(ForkFailed) as info:
        try:
            list(fork)
        finally:
            fork.stop()
    exc = info.value
    stored = str(exc) + f"\n--- last output ---\n{exc.output}"  # what the runner stores
    assert len(exc.detail) <= MAX_DETAIL_CHARS + 100 and len(exc.output) <= MAX_OUTPUT_CHARS + 100
    assert len(stored) < 25_000
    assert ("boom" in stored) if kind == "python" else ("last line" in stored)
