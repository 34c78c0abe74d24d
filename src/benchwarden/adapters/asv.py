"""asv-format Python suites: list and run ``time_*`` benchmarks through the standalone worker script.

The user's interpreter runs :mod:`asv_worker` *by file path* (it need not have
benchwarden installed); the worker speaks a versioned JSON-lines protocol on a
private stdout while user prints go to stderr (see the worker's docstring).
Each fork is one fresh interpreter: ``setup_cache``, ``setup``, a calibrated
batch size, then up to ``plan.max_iterations`` timed batches, streamed.

Benchmark ids follow asv: ``BenchmarkId(suite, "module.Class.time_x",
(("size", "100"), ("impl", "'hash'")))`` -- names relative to the benchmark
directory, parameter values as asv shows them (``repr``, so strings keep their
quotes and ``1`` differs from ``'1'``; memory addresses removed).  Values are
reported in ``ns/op`` (Python timings span ns to s; reports rescale).

Suite options (``ctx.options``):

``benchmarks``
    benchmark directory relative to the suite root; default: ``benchmark_dir``
    of ``asv.conf.json`` in the suite root if present, else ``"benchmarks"``.
``python``
    interpreter to run the benchmarks with (default ``"python3"`` from PATH;
    a path containing ``/`` is relative to the suite root).
``pythonpath``
    list of directories, relative to the suite root, prepended to PYTHONPATH.
``trace_memory``
    ``true``: report each benchmark call's memory as tracemalloc sees it (``mem.peak [B]``,
    ``mem.retained [B/op]``; docs/metrics.md); off by default because tracing costs a few traced
    calls per fork.

Every iteration also carries the process's CPU time per operation (``cpu [ns/op]``); with
``metric = "cpu"`` it becomes the value and the wall time moves to ``wall [ns/op]``.  With
``metric = "instructions"`` forks are two-point executions under Valgrind (:class:`PythonHarness`).

Supported asv attributes: ``params``/``param_names``, ``setup``/``teardown``
(module, class and function level, called with the parameter values;
``NotImplementedError`` in ``setup`` skips the combination), ``setup_cache``
(once per fork), ``number`` (fixed batch size), ``timeout`` (caps the wait for
each iteration), ``pretty_name``, ``benchmark_name``.  Ignored: ``repeat``,
``rounds``, ``sample_time``, ``warmup_time``, ``min_run_count`` (the runner
decides iterations and forks).  Not run: ``mem_*``, ``peakmem_*``,
``track_*``, ``timeraw_*``.
"""

from __future__ import annotations

import collections
import functools
import itertools
import json
import os
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

from benchwarden import jsontext
from benchwarden.adapters import layout
from benchwarden.adapters.base import ForkPlan, PreparedSuite, SuiteContext, benchmark_version_key
from benchwarden.adapters.calibration import CalibrationCache
from benchwarden.adapters.params import select_values
from benchwarden.adapters.process import LineTimeout, ManagedProcess, capture, require_tool, run_build
from benchwarden.adapters.twopoint import Report, TwoPointFork
from benchwarden.errors import ForkFailed, ListingFailed, ToolchainMissing, option_error
from benchwarden.metrics import valgrind
from benchwarden.metrics.catalog import label
from benchwarden.model import Benchmark, BenchmarkId, IterationResult

WORKER_PATH = Path(__file__).with_name("asv_worker.py")
PROTOCOL_VERSION = 1
UNIT = "ns/op"
MODE = "time"
LISTING_TIMEOUT_S = 300.0
#: lines of worker output kept for failure messages
TAIL_LINES = 300
#: grace after the worker closed its output, for its exit status to arrive
EXIT_WAIT_S = 10.0



# --------------------------------------------------------------------------- suite layout


@dataclass(frozen=True)
class AsvSuite:
    """A python suite resolved against the file system: interpreter, benchmark dir, environment."""

    python: str
    benchmark_dir: Path
    env: Mapping[str, str]


def resolve_suite(ctx: SuiteContext) -> AsvSuite:
    """Resolve the interpreter (ToolchainMissing), benchmark directory and PYTHONPATH (ConfigError)."""
    return AsvSuite(python=_interpreter(ctx), benchmark_dir=_benchmark_dir(ctx), env=suite_env(ctx, {}))


def _interpreter(ctx: SuiteContext) -> str:
    python = ctx.options.get("python", "python3")
    if not isinstance(python, str) or not python:
        raise option_error(f"expected the name or path of a Python interpreter, got {python!r}",
                            f"suites.{ctx.name}.python")
    if "/" in python:
        # absolute, but symbolic links kept: a virtualenv's bin/python is a link to the base interpreter, and only
        # started through the link does it find the virtualenv's packages (site.py reads pyvenv.cfg beside it)
        path = Path(os.path.abspath(ctx.root / python))
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ToolchainMissing(python, ctx.name, f"{path} is not an executable file")
        return str(path)
    return require_tool(python, ctx.name, "set the suite's 'python' option to the interpreter to use")


def _benchmark_dir(ctx: SuiteContext) -> Path:
    configured = ctx.options.get("benchmarks")
    key, conf_path = f"suites.{ctx.name}.benchmarks", None
    if configured is None:
        configured = _asv_conf_benchmark_dir(ctx.root)
        if configured is not None:
            key, conf_path = "benchmark_dir", str(ctx.root / "asv.conf.json")
    if configured is None:
        configured = "benchmarks"
    if not isinstance(configured, str) or not configured:
        raise option_error(f"expected a directory name, got {configured!r}", key, conf_path)
    path = (ctx.root / configured).resolve()
    if not path.is_dir():
        raise option_error(f"benchmark directory {path} does not exist", key, conf_path)
    return path


_JSON_LINE_COMMENT = re.compile(r"^\s*//.*$", re.MULTILINE)


def _asv_conf_benchmark_dir(root: Path) -> str | None:
    """``benchmark_dir`` from ``asv.conf.json`` (asv allows ``//`` comment lines in it), or None."""
    conf = root / "asv.conf.json"
    if not conf.is_file():
        return None
    try:
        data = jsontext.loads(_JSON_LINE_COMMENT.sub("", conf.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:  # ValueError: not UTF-8, or jsontext.JsonTextError
        raise option_error(f"cannot read asv configuration: {exc}", "benchmark_dir", str(conf)) from None
    value = data.get("benchmark_dir") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def suite_env(ctx: SuiteContext, plan_env: Mapping[str, str]) -> dict[str, str]:
    """Environment additions for the worker: suite env, plan env, and ``pythonpath`` prepended to PYTHONPATH."""
    env = dict(ctx.env)
    env.update(plan_env)
    dirs = ctx.options.get("pythonpath", [])
    if isinstance(dirs, str):
        dirs = [dirs]
    if not isinstance(dirs, (list, tuple)) or not all(isinstance(d, str) for d in dirs):
        raise option_error(f"expected a list of directories, got {dirs!r}", f"suites.{ctx.name}.pythonpath")
    existing = env.get("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
    parts = [str((ctx.root / d).resolve()) for d in dirs] + ([existing] if existing else [])
    if parts:
        env["PYTHONPATH"] = os.pathsep.join(parts)
    return env


# --------------------------------------------------------------------------- protocol


@dataclass(frozen=True)
class WorkerMessage:
    """One decoded protocol line: exactly one of ``iteration``, ``skip``, ``error``, ``listing`` is set."""

    iteration: IterationResult | None = None
    skip: str | None = None
    error: str | None = None
    traceback: str = ""
    listing: Mapping[str, object] | None = None


class ProtocolError(ValueError):
    """A line that is not a protocol message of a version we speak."""


def parse_worker_line(line: str) -> WorkerMessage:
    """Decode one worker line (pure). Raises :class:`ProtocolError` naming what is wrong."""
    try:
        data = json.loads(line)
    except ValueError:
        raise ProtocolError(f"not a JSON protocol line: {line[:200]!r}") from None
    if not isinstance(data, dict) or "v" not in data:
        raise ProtocolError(f"not a protocol message (no version field): {line[:200]!r}")
    if data["v"] != PROTOCOL_VERSION:
        raise ProtocolError(f"worker speaks protocol version {data['v']!r}, expected {PROTOCOL_VERSION}")
    if "iteration" in data:
        return WorkerMessage(iteration=_iteration(data, line))
    if "error" in data:
        return WorkerMessage(error=str(data["error"]), traceback=str(data.get("traceback") or ""))
    if "skip" in data:
        return WorkerMessage(skip=str(data["skip"]))
    if "benchmarks" in data:
        return WorkerMessage(listing=data)
    raise ProtocolError(f"unknown protocol message: {line[:200]!r}")


#: optional per-iteration fields of the worker -> (secondary label, per operation?)
_SECONDARY_FIELDS = {"cpu_ns": (label("cpu", "ns/op"), True), "mem_peak": (label("mem.peak", "B"), False),
                     "mem_retained": (label("mem.retained", "B/op"), False)}


def _iteration(data: Mapping[str, object], line: str) -> IterationResult:
    ns_per_op, ops = data.get("ns_per_op"), data.get("ops")
    if isinstance(ns_per_op, bool) or not isinstance(ns_per_op, (int, float)) or not ns_per_op > 0 \
            or ns_per_op == float("inf"):
        raise ProtocolError(f"iteration without a positive ns_per_op: {line[:200]!r}")
    if isinstance(ops, bool) or not isinstance(ops, int) or ops < 1:
        raise ProtocolError(f"iteration without a positive integer ops: {line[:200]!r}")
    secondary = {}
    for key, (name, per_op) in _SECONDARY_FIELDS.items():
        value = data.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
            raise ProtocolError(f"iteration with a bad {key}: {line[:200]!r}")
        secondary[name] = value / ops if per_op else float(value)
    return IterationResult(value_ns=float(ns_per_op), raw_value=float(ns_per_op), ops=float(ops), secondary=secondary)


def as_metric(iteration: IterationResult, metric: str) -> IterationResult:
    """The worker's iteration with ``metric`` as its value: CPU time per operation takes the place of the wall
    time, which moves to the secondary ``wall [ns/op]``."""
    cpu = iteration.secondary.get(_CPU)
    if metric != "cpu" or cpu is None:
        return iteration
    if cpu <= 0:  # the CPU clock did not advance: the batch was far too short for its resolution
        raise ProtocolError(f"iteration with a CPU time of {cpu} ns/op: use a longer iteration_time")
    secondary = {k: v for k, v in iteration.secondary.items() if k != _CPU}
    secondary[label("wall", "ns/op")] = iteration.value_ns
    return IterationResult(value_ns=cpu, raw_value=cpu, ops=iteration.ops, secondary=secondary)


_CPU = label("cpu", "ns/op")


# --------------------------------------------------------------------------- listing


def benchmarks_from_listing(suite: str, listing: Mapping[str, object]) -> list[Benchmark]:
    """Expand the worker's listing into one :class:`Benchmark` per parameter combination (pure)."""
    entries = listing.get("benchmarks")
    if not isinstance(entries, list):
        raise ListingFailed(f"suite '{suite}': malformed benchmark listing from the asv worker")
    benchmarks = []
    for entry in entries:
        names = list(entry["param_names"])
        for combo in itertools.product(*entry["param_values"]):
            spec = {
                "module": entry["module"],
                "qualname": entry["qualname"],
                "params": json.dumps(list(combo)),
            }
            if entry.get("pretty_name"):
                spec["pretty_name"] = entry["pretty_name"]
            if entry.get("timeout_s"):
                spec["timeout_s"] = repr(float(entry["timeout_s"]))
            if entry.get("number"):
                spec["number"] = str(entry["number"])
            bid = BenchmarkId(suite, entry["name"], tuple(zip(names, combo)))
            benchmarks.append(Benchmark(id=bid, mode=MODE, unit=UNIT, spec=spec))
    return benchmarks


def _listing_failure(suite: str, done: subprocess.CompletedProcess[str]) -> ListingFailed:
    detail = ""
    for line in done.stdout.splitlines():
        try:
            msg = parse_worker_line(line)
        except ProtocolError:
            continue
        if msg.error:
            detail = msg.error + ("\n" + msg.traceback.rstrip() if msg.traceback else "")
    if not detail:
        detail = f"the asv worker exited with status {done.returncode}\n{_last_lines(done.stderr)}"
    return ListingFailed(f"suite '{suite}': cannot list asv benchmarks: {detail}")


# --------------------------------------------------------------------------- the adapter


class AsvAdapter:
    """Adapter for asv-format Python suites (``kind = "python"``)."""

    kind = "python"

    def __init__(self) -> None:
        self._calibrations = CalibrationCache()  # two-point forks: N of the long execution, per benchmark

    def prepare(self, ctx: SuiteContext) -> PreparedSuite:
        """Find the interpreter and its version, check the benchmark dir, run ``ctx.build`` if set."""
        suite = resolve_suite(ctx)
        version = python_version(suite.python, ctx.name)
        if ctx.build:
            run_build(ctx.build, ctx.root, ctx.name, env=suite.env)
        return PreparedSuite(toolchain={"python": version})

    def prepare_metric(self, ctx: SuiteContext, metric: str) -> None:
        """``instructions``: Valgrind must be on PATH (checked once, not per fork)."""
        if metric == "instructions":
            valgrind.require(ctx.name)

    def list_benchmarks(self, ctx: SuiteContext) -> list[Benchmark]:
        suite = resolve_suite(ctx)
        argv = [suite.python, str(WORKER_PATH), "list", "--benchmark-dir", str(suite.benchmark_dir)]
        try:
            done = capture(argv, cwd=ctx.root, env=suite.env, timeout_s=LISTING_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise ListingFailed(f"suite '{ctx.name}': listing asv benchmarks took longer than "
                                f"{LISTING_TIMEOUT_S:.0f}s (does a benchmark module hang on import?)") from None
        if done.returncode != 0:
            raise _listing_failure(ctx.name, done)
        for line in done.stdout.splitlines():
            try:
                msg = parse_worker_line(line)
            except ProtocolError as exc:
                raise ListingFailed(f"suite '{ctx.name}': asv worker: {exc}") from None
            if msg.listing is not None:
                return select_values(ctx.name, benchmarks_from_listing(ctx.name, msg.listing), ctx.params)
        raise ListingFailed(f"suite '{ctx.name}': the asv worker printed no benchmark listing")

    def start_fork(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> "WorkerFork | TwoPointFork":
        suite = resolve_suite(ctx)
        spec = benchmark.spec
        if plan.metric == "instructions":
            harness = PythonHarness(suite, spec, ctx, plan, str(benchmark.id))
            key = benchmark_version_key(ctx, benchmark, plan)
            return TwoPointFork(harness, plan, ctx.name, short_ops=PythonHarness.SHORT_OPS,
                                long_ops=self._calibrations.get(key),
                                calibrated=functools.partial(self._calibrations.put, key))
        argv = worker_argv(suite, spec, plan.iteration_time_s, plan.max_iterations)
        if _trace_memory(ctx):
            argv.append("--trace-memory")
        iteration_timeout_s = plan.iteration_timeout_s
        if "timeout_s" in spec:
            iteration_timeout_s = min(iteration_timeout_s, float(spec["timeout_s"]))
        try:
            # the tail holds protocol lines too (hidden by output_tail): keep enough for the user's output
            process = ManagedProcess(argv, cwd=ctx.root, env=layout.with_padding(suite_env(ctx, plan.env),
                                                                                  plan.fork_index),
                                     merge_stderr=False, tail_lines=TAIL_LINES)
        except OSError as exc:
            raise ForkFailed(str(benchmark.id), "crashed", f"cannot start {suite.python}: {exc}") from None
        return WorkerFork(process, str(benchmark.id), plan, iteration_timeout_s)


def worker_argv(suite: AsvSuite, spec: Mapping[str, str], iteration_time_s: float, max_iterations: int,
                number: int = 0) -> list[str]:
    """The worker's ``run`` command line for one benchmark (``number`` > 0 fixes the batch size)."""
    argv = [
        suite.python, str(WORKER_PATH), "run",
        "--benchmark-dir", str(suite.benchmark_dir),
        "--module", spec["module"],
        "--qualname", spec["qualname"],
        "--params", spec.get("params", "[]"),
        "--iteration-time-s", repr(iteration_time_s),
        "--max-iterations", str(max_iterations),
    ]
    return argv + (["--number", str(number)] if number else [])


def _trace_memory(ctx: SuiteContext) -> bool:
    value = ctx.options.get("trace_memory", False)
    if not isinstance(value, bool):
        raise option_error(f"expected true or false, got {value!r}", f"suites.{ctx.name}.trace_memory")
    return value


class PythonHarness:
    """An asv benchmark as a two-point :class:`~benchwarden.adapters.twopoint.Harness` (instruction counts).

    An execution is the worker with ``--number n --max-iterations 1``: ``setup_cache``, ``setup``, one
    batch of ``n`` calls, ``teardown``.  The short execution makes one call, so module imports, set-up
    and a cold first call cancel.  ``PYTHONHASHSEED`` is the fork number
    (:func:`benchwarden.metrics.valgrind.python_environment`) and the environment's size varies with it too
    (:mod:`benchwarden.adapters.layout`).
    """

    SHORT_OPS = 1

    def __init__(self, suite: AsvSuite, spec: Mapping[str, str], ctx: SuiteContext, plan: ForkPlan, label: str):
        # Valgrind must run the interpreter itself, not a launcher script that execs it (pyenv's shims)
        suite = AsvSuite(python=real_interpreter(suite.python, ctx.name), benchmark_dir=suite.benchmark_dir,
                         env=suite.env)
        self._suite = suite
        self._spec = spec
        self._env = valgrind.python_environment(layout.with_padding(suite_env(ctx, plan.env), plan.fork_index),
                                                plan.fork_index)
        self.cwd = ctx.root
        self.label = label

    def argv(self, ops: int | None, calibration_s: float | None = None) -> list[str]:
        if ops is None:
            return worker_argv(self._suite, self._spec, calibration_s or 0.1, 1)
        return worker_argv(self._suite, self._spec, 1.0, 1, number=ops)

    def env(self, metric: str) -> dict[str, str]:
        return dict(self._env)

    def read(self, lines: Sequence[str]) -> Report:
        iteration = None
        for line in lines:
            try:
                msg = parse_worker_line(line)
            except ProtocolError as exc:
                raise ForkFailed(self.label, "garbage", str(exc)) from None
            if msg.skip is not None:
                raise ForkFailed(self.label, "skipped", f"setup raised NotImplementedError: {msg.skip}")
            if msg.error is not None:
                raise ForkFailed(self.label, "crashed", msg.error, msg.traceback)
            if msg.iteration is not None:
                iteration = msg.iteration
        if iteration is None:
            raise ForkFailed(self.label, "no-results", "the worker exited without reporting an iteration")
        return Report(ns_per_op=iteration.value_ns)


def real_interpreter(python: str, suite: str) -> str:
    """The interpreter binary behind ``python`` (``sys.executable``): a launcher such as a pyenv shim is a shell
    script that execs it, which Valgrind would follow no further.  ToolchainMissing if it cannot run."""
    try:
        done = capture([python, "-c", "import sys; print(sys.executable)"], timeout_s=60.0)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolchainMissing(python, suite, f"it could not be run: {exc}") from None
    path = done.stdout.strip()
    if done.returncode != 0 or not path:
        raise ToolchainMissing(python, suite, f"`{python} -c ...` failed: {_last_lines(done.stderr, 5)}")
    return path


def python_version(python: str, suite: str) -> str:
    """``platform.python_version()`` of the interpreter, e.g. ``"3.11.7"``; ToolchainMissing if it cannot run."""
    try:
        done = capture([python, "-c", "import platform; print(platform.python_version())"], timeout_s=60.0)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolchainMissing(python, suite, f"it could not be run: {exc}") from None
    version = done.stdout.strip()
    if done.returncode != 0 or not version:
        raise ToolchainMissing(python, suite, f"`{python} -c ...` failed: {_last_lines(done.stderr, 5)}")
    return version


# --------------------------------------------------------------------------- a running fork


class WorkerFork:
    """One running asv worker: iterate for :class:`IterationResult` objects as iterations finish.

    Deadlines: each result must arrive within ``iteration_timeout_s`` of the previous one (the first
    also gets one extra ``iteration_time_s`` for calibration), and the whole fork within
    ``plan.timeout_s``; otherwise the process group is terminated and ``ForkFailed("timeout")`` raised.
    ``stop()`` ends the fork at once, from any thread; iteration then ends without an error.
    """

    def __init__(self, process: ManagedProcess, label: str, plan: ForkPlan, iteration_timeout_s: float,
                 skip_detail: Callable[[str], str] = lambda reason: f"setup raised NotImplementedError: {reason}",
                 harness_lines: bool = False):
        self._process = process
        # harness_lines: stdout also carries the harness's own lines (Go's testing prints "PASS", "--- FAIL" there);
        # they are kept for the output tail instead of failing the fork as garbage
        self._harness_lines: collections.deque[str] | None = \
            collections.deque(maxlen=TAIL_LINES) if harness_lines else None
        self._skip_detail = skip_detail
        self._label = label
        self._plan = plan
        self._iteration_timeout_s = iteration_timeout_s
        self._started = time.monotonic()
        self._stopped = False
        self._lock = threading.Lock()

    @property
    def pid(self) -> int:
        """Process id of the worker, which is also its process-group id."""
        return self._process.proc.pid

    def __iter__(self) -> Iterator[IterationResult]:
        try:
            yield from self._results()
        finally:
            self._sweep()  # also when the consumer abandons the iteration: never leave a worker behind

    def _sweep(self) -> None:
        with self._lock:
            end_process_group(self._process)

    def _results(self) -> Iterator[IterationResult]:
        fork_deadline = self._started + self._plan.timeout_s
        next_deadline = self._started + self._iteration_timeout_s + self._plan.iteration_time_s
        outcome: WorkerMessage | None = None
        count = 0
        while True:
            try:
                line = self._process.readline(min(next_deadline, fork_deadline))
            except LineTimeout:
                if self._stopped:
                    return
                raise self._fail("timeout", self._timeout_detail(fork_deadline <= next_deadline)) from None
            if line is None or self._stopped:
                break
            if self._harness_lines is not None and not line.startswith('{"v":'):
                self._harness_lines.append(line.rstrip("\n"))
                continue
            try:
                msg = parse_worker_line(line)
            except ProtocolError as exc:
                if self._stopped:
                    return
                raise self._fail("garbage", str(exc)) from None
            if msg.iteration is None:
                outcome = msg
                continue
            count += 1
            try:
                iteration = as_metric(msg.iteration, self._plan.metric)
            except ProtocolError as exc:
                raise self._fail("garbage", str(exc)) from None
            yield iteration
            next_deadline = time.monotonic() + self._iteration_timeout_s
        if not self._stopped:
            self._finish(outcome, count)

    def _finish(self, outcome: WorkerMessage | None, count: int) -> None:
        returncode = self._process.wait(timeout=EXIT_WAIT_S)
        if self._stopped:
            return
        if returncode is not None:
            self._process.drained()  # its stderr (the output tail of any failure) read to the end
        if returncode is None:
            raise self._fail("crashed", "the worker closed its output but did not exit")
        if outcome is not None and outcome.skip is not None:
            raise ForkFailed(self._label, "skipped", self._skip_detail(outcome.skip),
                             self.output_tail())
        if outcome is not None and outcome.error is not None:
            raise ForkFailed(self._label, "crashed", outcome.error,
                             _join(outcome.traceback.rstrip(), self.output_tail()))
        if returncode != 0:
            raise ForkFailed(self._label, "crashed", _exit_detail(returncode), self.output_tail())
        if count == 0:
            raise ForkFailed(self._label, "no-results", "the worker exited without reporting an iteration",
                             self.output_tail())

    def _timeout_detail(self, whole_fork: bool) -> str:
        if whole_fork:
            return f"the fork did not finish within its timeout of {self._plan.timeout_s:g}s"
        return f"no iteration finished within {self._iteration_timeout_s:g}s (iteration timeout)"

    def _fail(self, reason: str, detail: str) -> ForkFailed:
        self.stop()
        return ForkFailed(self._label, reason, detail, self.output_tail())

    def stop(self) -> None:
        """Terminate the worker's process group (idempotent, thread-safe)."""
        with self._lock:
            self._stopped = True
            end_process_group(self._process)

    def output_tail(self) -> str:
        """The worker's recent stderr (user prints, warnings), without protocol lines."""
        lines = [ln for ln in self._process.tail().splitlines() if not ln.startswith('{"v":')]
        return "\n".join([*(self._harness_lines or ()), *lines])


def end_process_group(process: ManagedProcess, grace_s: float = 3.0) -> None:
    """Terminate ``process``'s whole group and close its pipes (idempotent)."""
    process.terminate(grace_s)


def _exit_detail(returncode: int) -> str:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"the worker was killed by {name}"
    return f"the worker exited with status {returncode}"


def _join(*parts: str) -> str:
    return "\n".join(p for p in parts if p)


def _last_lines(text: str, n: int = 20) -> str:
    return "\n".join(text.rstrip().splitlines()[-n:])
