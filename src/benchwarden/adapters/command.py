"""Command benchmarks: any command line as a benchmark, one execution per iteration (like hyperfine).

Suite options (``ctx.options``):

``commands``
    table ``name -> command``; a command is an argv list, or a string split
    like a POSIX shell would split it (:func:`shlex.split`) but never run
    through one.  Each entry is one benchmark ``BenchmarkId(suite, name)``.
``command``
    a single command, benchmarked under the suite's name (shorthand).
``shell``
    only ``false`` is accepted: benchwarden never runs a shell.  Write
    ``["sh", "-c", "..."]`` yourself if you really want one.

A fork is a sequence of executions, each started only when the consumer asks
for the next iteration (so nothing runs between iterations and stopping is
always at an iteration boundary).  The value of an iteration is the
wall-clock time from just before spawning the process to its exit, in ns,
process creation included (hyperfine without its shell-spawn correction, as
no shell is involved; about 1 ms on Linux for ``true``).  Reported unit: ``ms/op`` (commands take milliseconds).
Each execution runs in its own process group with cwd = suite root and the
suite's and plan's environment, and a padding variable whose size depends on the fork number
(:mod:`benchwarden.adapters.layout`: the environment's size moves a C program's stack, the layout effect
Mytkowicz et al. measured on exactly such programs); whatever it leaves behind is killed when it
exits.  Output is kept only as a tail for error messages.

Each execution is reaped with ``wait4`` (:mod:`benchwarden.adapters.usage`), so every iteration also
carries the execution's CPU time (``cpu.user [ms]``, ``cpu.sys [ms]``) and peak resident set size
(``rss [KiB]``) — of the command and every descendant it waited for.  ``metric = "cpu"`` makes user +
system CPU time the value (wall time moves to ``wall [ms]``); ``metric = "instructions"`` runs each
execution under Valgrind's cachegrind, following child processes, and counts every instruction of
the execution (start-up included: a command is one operation, so nothing can cancel it).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import tempfile
import threading
import time
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from benchwarden.adapters import layout
from benchwarden.adapters.base import ForkPlan, PreparedSuite, SuiteContext
from benchwarden.adapters.params import check_names
from benchwarden.adapters.process import ManagedProcess, require_tool, run_build
from benchwarden.adapters.usage import Usage, reap_with_usage
from benchwarden.errors import ForkFailed, ToolchainMissing, option_error
from benchwarden.metrics import valgrind
from benchwarden.metrics.catalog import label
from benchwarden.model import Benchmark, BenchmarkId, IterationResult

UNIT = "ms/op"
MODE = "wall"
_NS_PER_MS = 1e6
#: how long to let an exited command's output drain before its pipes are closed
_DRAIN_S = 2.0



def parse_commands(ctx: SuiteContext) -> dict[str, tuple[str, ...]]:
    """The suite's commands as ``name -> argv`` (pure); ConfigError names the offending key."""
    prefix = f"suites.{ctx.name}"
    shell = ctx.options.get("shell", False)
    if shell is not False:
        raise option_error("only `shell = false` is supported: benchwarden never runs commands through a shell; "
                          "write the command as an argv list (or [\"sh\", \"-c\", \"...\"] explicitly)",
                          key=f"{prefix}.shell")
    table = ctx.options.get("commands")
    single = ctx.options.get("command")
    if table is None and single is None:
        raise option_error("a command suite needs `commands = { name = \"command line\" }`", f"{prefix}.commands")
    if table is not None and single is not None:
        raise option_error("use either `command` or `commands`, not both", f"{prefix}.command")
    if single is not None:
        return {ctx.name: _argv(single, f"{prefix}.command")}
    if not isinstance(table, Mapping) or not table:
        raise option_error(f"expected a non-empty table of name = command, got {table!r}", f"{prefix}.commands")
    commands = {}
    for name, command in table.items():
        if not isinstance(name, str) or not name.strip():
            raise option_error(f"benchmark names must be non-empty strings, got {name!r}", f"{prefix}.commands")
        commands[name] = _argv(command, f"{prefix}.commands.{name}")
    return commands


def _argv(command: object, key: str) -> tuple[str, ...]:
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise option_error(f"cannot split command line {command!r}: {exc}", key) from None
    elif isinstance(command, Sequence) and all(isinstance(a, str) for a in command):
        argv = list(command)
    else:
        raise option_error(f"expected a command line string or a list of strings, got {command!r}", key)
    if not argv or not argv[0]:
        raise option_error("the command is empty", key)
    return tuple(argv)


def check_executable(argv0: str, root: Path, suite: str) -> None:
    """ToolchainMissing unless ``argv0`` is on PATH, or (when it contains ``/``) an executable file under ``root``."""
    if "/" in argv0:
        path = root / argv0
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ToolchainMissing(argv0, suite, f"{path} is not an executable file")
        return
    require_tool(argv0, suite, "needed by one of the suite's commands")


class CommandAdapter:
    """Adapter for plain commands (``kind = "command"``)."""

    kind = "command"

    def prepare(self, ctx: SuiteContext) -> PreparedSuite:
        """Validate the commands, check their programs exist, run ``ctx.build`` if set."""
        commands = parse_commands(ctx)
        if ctx.build:
            run_build(ctx.build, ctx.root, ctx.name, env=ctx.env)
        for argv in commands.values():
            check_executable(argv[0], ctx.root, ctx.name)
        return PreparedSuite(toolchain={})

    def prepare_metric(self, ctx: SuiteContext, metric: str) -> None:
        """``instructions``: Valgrind must be on PATH (checked once, not per fork)."""
        if metric == "instructions":
            valgrind.require(ctx.name)

    def list_benchmarks(self, ctx: SuiteContext) -> list[Benchmark]:
        benchmarks = [
            Benchmark(id=BenchmarkId(ctx.name, name), mode=MODE, unit=UNIT, spec={"argv": json.dumps(list(argv))})
            for name, argv in parse_commands(ctx).items()
        ]
        check_names(ctx.name, ctx.params, ())  # commands have no parameters: any override is an error
        return benchmarks

    def start_fork(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> "CommandFork":
        argv = tuple(json.loads(benchmark.spec["argv"]))
        env = dict(ctx.env)
        env.update(plan.env)
        return CommandFork(argv, ctx.root, layout.with_padding(env, plan.fork_index), plan, str(benchmark.id))


class CommandFork:
    """Executes the command up to ``plan.max_iterations`` times, one execution per iteration, on demand.

    An execution running longer than ``plan.iteration_timeout_s`` (or past the fork's
    ``plan.timeout_s``) is killed with its process group: ``ForkFailed("timeout")``.  A non-zero exit
    status: ``ForkFailed("crashed")`` with the output tail.  ``stop()`` kills a running execution,
    from any thread, and ends the iteration without an error.
    """

    def __init__(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], plan: ForkPlan, label: str):
        self._argv = tuple(argv)
        self._cwd = cwd
        self._env = dict(env)
        self._plan = plan
        self._label = label
        self._lock = threading.Lock()
        self._current: ManagedProcess | None = None
        self._last: ManagedProcess | None = None
        self._stopped = False
        self._started = time.monotonic()

    @property
    def pid(self) -> int | None:
        """Process (and process-group) id of the running or last execution, if any."""
        process = self._current or self._last
        return process.proc.pid if process else None

    def __iter__(self) -> Iterator[IterationResult]:
        fork_deadline = self._started + self._plan.timeout_s
        for _ in range(self._plan.max_iterations):
            if self._stopped:
                return
            execution = self._execute(fork_deadline)
            if execution is None:  # stopped while running
                return
            elapsed_ns, usage, instructions = execution
            secondary = {label("cpu.user", "ms"): usage.user_ns / _NS_PER_MS,
                         label("cpu.sys", "ms"): usage.sys_ns / _NS_PER_MS,
                         label("rss", "KiB"): float(usage.max_rss_kib)}
            if self._plan.metric == "cpu":
                value = float(max(1, usage.cpu_ns))
                secondary[label("wall", "ms")] = elapsed_ns / _NS_PER_MS
            elif self._plan.metric == "instructions":
                value = float(instructions)
                secondary = {}  # the figures of a process under Valgrind are Valgrind's
            else:
                value = float(elapsed_ns)
            raw = value if self._plan.metric == "instructions" else value / _NS_PER_MS
            yield IterationResult(value_ns=value, raw_value=raw, ops=1.0, secondary=secondary)

    def _execute(self, fork_deadline: float) -> tuple[int, Usage, int] | None:
        """Run the command once: its wall-clock ns, resource usage and (``instructions``) instruction count,
        or None if ``stop()`` interrupted it."""
        deadline = min(time.monotonic() + self._plan.iteration_timeout_s, fork_deadline)
        argv, out_dir = list(self._argv), None
        if self._plan.metric == "instructions":
            out_dir = Path(tempfile.mkdtemp(prefix="benchwarden-cg-"))
            argv = valgrind.cachegrind_argv(self._valgrind(), out_dir / "cachegrind.out.%p", trace_children=True) + argv
        try:
            return self._run(argv, deadline, fork_deadline, out_dir)
        finally:
            if out_dir is not None:
                shutil.rmtree(out_dir, ignore_errors=True)

    def _valgrind(self) -> str:
        return valgrind.require(self._label.split(":")[0])

    def _run(self, argv: list[str], deadline: float, fork_deadline: float,
             out_dir: Path | None) -> tuple[int, Usage, int] | None:
        with self._lock:
            if self._stopped:
                return None
            start_ns = time.perf_counter_ns()
            try:
                process = ManagedProcess(argv, cwd=self._cwd, env=self._env, merge_stderr=True,
                                         forward_lines=False)
            except OSError as exc:
                raise ForkFailed(self._label, "crashed", f"cannot start `{shlex.join(self._argv)}`: {exc}") from None
            self._current = self._last = process
        reaped = reap_with_usage(process, max(0.0, deadline - time.monotonic()))
        end_ns = time.perf_counter_ns()
        returncode, usage = reaped if reaped is not None else (None, Usage(0, 0, 0))
        with self._lock:
            self._current = None
            stopped = self._stopped
        _end_group(process)
        if stopped:
            return None
        if returncode is None:
            whole_fork = deadline >= fork_deadline
            limit = self._plan.timeout_s if whole_fork else self._plan.iteration_timeout_s
            what = "the fork did not finish within its timeout of" if whole_fork else "one execution took longer than"
            raise ForkFailed(self._label, "timeout", f"{what} {limit:g}s; killed `{shlex.join(self._argv)}`",
                             process.tail())
        if returncode != 0:
            raise ForkFailed(self._label, "crashed", f"`{shlex.join(self._argv)}` {_status(returncode)}",
                             process.tail())
        instructions = 0
        if out_dir is not None:
            try:
                instructions = valgrind.total_instructions(sorted(out_dir.glob("cachegrind.out.*")))
            except (OSError, ValueError) as exc:
                raise ForkFailed(self._label, "garbage", f"no instruction count: {exc}", process.tail()) from None
        return max(1, end_ns - start_ns), usage, instructions

    def stop(self) -> None:
        """Kill a running execution (idempotent, thread-safe); no further execution starts."""
        with self._lock:
            self._stopped = True
            process = self._current
        if process is not None:
            _end_group(process)

    def output_tail(self) -> str:
        """Output (stdout and stderr) of the running or last execution."""
        process = self._current or self._last
        return process.tail() if process else ""


def _end_group(process: ManagedProcess, grace_s: float = 3.0) -> None:
    """Kill whatever is left of the execution's process group and close its pipes (idempotent)."""
    process.terminate(grace_s)


def _status(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with status {returncode}"
