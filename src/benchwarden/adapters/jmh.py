"""The JMH adapter: the user's own, unmodified benchmarks jar (JMH >= 1.21), one JMH process per fork.

A fork is ``java -jar <artifact> ^\\Q<benchmark>\\E$ -f 1 -wi 0 -i <max> -r <t> -w <t> -bm <mode> -tu <tu>
-foe true [-p name=value ...] [-jvmArgsAppend=...]``:

* ``-f 1``: the host JVM forks one benchmark JVM, exactly as JMH normally does, so ``@Fork(jvmArgs...)``,
  ``@Fork(jvm...)`` and JMH's own isolation keep working.  The process group holds both JVMs and is
  terminated as a whole (:class:`~benchwarden.adapters.process.ManagedProcess`).
* ``-wi 0``: warmup versus measurement is the runner's decision, so JMH runs measurement iterations only.
* ``-bm``: the benchmark's mode (a method declaring several modes is listed once per mode).
* ``-tu``: ``ns`` for time-per-op modes and ``s`` for throughput, so JMH prints every figure with plenty
  of significant digits (JMH prints 3 decimals; a benchmark in its default ``s/op`` would otherwise
  print ``≈ 10⁻⁶``).  Values are converted back to the benchmark's own unit for ``raw_value``.
* ``-jvmArgsAppend``: a command-line ``-jvmArgsAppend`` *replaces* ``@Fork(jvmArgsAppend)`` in JMH
  (``Runner.getBenchmarkParams``), so the annotation's arguments are read from the jar's BenchmarkList
  and passed first, followed by the suite's and the plan's JVM arguments.

With ``metric = "cpu"`` the fork is ``java -cp <artifact>:<profiler classes> <Main-Class> ... -prof
io.benchwarden.jmh.CpuTimeProfiler``: benchwarden's profiler (``java/jmh-profiler``, compiled on first use against
the jar's own JMH) reports each iteration's CPU time per operation of the benchmark JVM's threads except the JIT
compilers' (docs/metrics.md); it becomes the value, and JMH's time per operation moves to ``wall [ns/op]``.

JMH prints ``Iteration N:`` when an iteration starts and its result when it ends, and flushes: results
stream through the stdout pipe as each iteration completes.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import threading
import time
import zipfile
from pathlib import Path
from typing import Iterator, Mapping

from benchwarden.adapters.base import ForkPlan, PreparedSuite, SuiteContext, fork_jvm_arguments
from benchwarden.adapters.jmh_output import (
    IterationStreamParser,
    parse_benchmark_list,
    parse_listing,
    resolve_listing,
)
from benchwarden.adapters.params import check_names
from benchwarden.adapters.process import LineTimeout, ManagedProcess, capture, require_tool, run_build
from benchwarden.errors import ArtifactMissing, ConfigError, ForkFailed, ListingFailed, ToolchainMissing
from benchwarden.helpers import build as helpers
from benchwarden.metrics.catalog import label
from benchwarden.model import Benchmark, IterationResult
from benchwarden.units import from_ns_per_op

#: artifact of JMH's Maven archetype, used when the suite names none
DEFAULT_ARTIFACT = "target/benchmarks.jar"
#: how long a crashed fork may keep printing its stack trace before it is terminated
CRASH_DRAIN_S = 5.0
#: how long to wait for the JMH process to exit after its output ended
EXIT_WAIT_S = 10.0
LISTING_TIMEOUT_S = 120.0

_JAVA_HINT = "install a JDK (e.g. apt-get install openjdk-17-jdk) or set the suite option java = '/path/to/java'"


class JmhAdapter:
    """Adapter for ``kind = "jmh"`` suites. Suite options: ``java`` (path of the java launcher), ``profilers``
    (JMH profilers to run with every fork, e.g. ``["gc"]``: each becomes ``-prof <spec>``; their secondary
    results are stored per iteration, docs/metrics.md)."""

    kind = "jmh"

    def prepare(self, ctx: SuiteContext) -> PreparedSuite:
        """Require java, run the build, check the jar; report the java and JMH versions."""
        java = java_executable(ctx)
        if ctx.build:
            run_build(ctx.build, ctx.root, ctx.name, env=ctx.env)
        jar = artifact_path(ctx)
        toolchain = {"java": java_version(java, ctx.env)}
        jmh = jmh_version(jar)
        if jmh:
            toolchain["jmh"] = jmh
        return PreparedSuite(toolchain=toolchain)

    def prepare_metric(self, ctx: SuiteContext, metric: str) -> None:
        """``cpu``: compile benchwarden's CPU-time profiler against the suite's jar now (cached), so that a missing
        or failing ``javac`` fails the suite once, not every fork."""
        if metric == "cpu":
            cpu_profiler_classes(ctx, java_executable(ctx), artifact_path(ctx))

    def list_benchmarks(self, ctx: SuiteContext) -> list[Benchmark]:
        """Every benchmark x mode x ``@Param`` combination, from ``-lp`` joined with the jar's BenchmarkList."""
        java = java_executable(ctx)
        jar = artifact_path(ctx)
        argv = [java, "-jar", str(jar), "-lp"]
        try:
            done = capture(argv, cwd=ctx.root, env=ctx.env, timeout_s=LISTING_TIMEOUT_S)
        except Exception as exc:  # TimeoutExpired, OSError
            raise ListingFailed(f"suite '{ctx.name}': `{' '.join(argv)}` failed: {exc}") from None
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-20:])
            raise ListingFailed(f"suite '{ctx.name}': `{' '.join(argv)}` exited with status {done.returncode}\n{tail}")
        listed = parse_listing(done.stdout, source=f"suite '{ctx.name}': {jar} -lp")
        entries = parse_benchmark_list(read_benchmark_list(jar), source=f"{jar}!/META-INF/BenchmarkList")
        check_names(ctx.name, ctx.params, (name for item in listed for name, _ in item.params))
        return [info.to_benchmark(ctx.name) for info in resolve_listing(listed, entries, ctx.params)]

    def start_fork(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> "JmhFork":
        """Start one JMH process running ``benchmark`` for up to ``plan.max_iterations`` iterations."""
        profilers = profilers_option(ctx)
        java, jar = java_executable(ctx), artifact_path(ctx)
        cpu_classes = cpu_profiler_classes(ctx, java, jar) if plan.metric == "cpu" else None
        argv = fork_argv(java, jar, benchmark, plan, ctx.jvm_args, profilers, cpu_classes)
        env = {**ctx.env, **plan.env}
        return JmhFork(argv, ctx.root, env, benchmark, plan, profilers=bool(profilers) or cpu_classes is not None)


# --------------------------------------------------------------------------------------------------
# Deciding: paths, versions, the command line
# --------------------------------------------------------------------------------------------------


def java_executable(ctx: SuiteContext) -> str:
    """The suite's java launcher: the ``java`` option (a path, or a name on PATH), else ``java`` on PATH."""
    configured = ctx.options.get("java")
    if configured:
        path = Path(str(configured))
        if not path.is_absolute():
            return require_tool(str(configured), ctx.name, _JAVA_HINT)
        if not path.is_file():
            raise ToolchainMissing(str(path), ctx.name, "the suite option 'java' names a file that does not exist")
        return str(path)
    return require_tool("java", ctx.name, _JAVA_HINT)


def artifact_path(ctx: SuiteContext) -> Path:
    """Absolute path of the suite's benchmarks jar; raises :class:`ArtifactMissing`."""
    jar = (ctx.root / (ctx.artifact or DEFAULT_ARTIFACT)).resolve()
    if not jar.is_file():
        raise ArtifactMissing(ctx.name, str(jar))
    return jar


def read_benchmark_list(jar: Path) -> str:
    """Text of ``META-INF/BenchmarkList`` inside ``jar``; raises :class:`ListingFailed`."""
    try:
        with zipfile.ZipFile(jar) as zf:
            return zf.read("META-INF/BenchmarkList").decode("utf-8")
    except KeyError:
        raise ListingFailed(f"{jar}: no META-INF/BenchmarkList; is this a JMH benchmarks jar?") from None
    except (OSError, zipfile.BadZipFile) as exc:
        raise ListingFailed(f"{jar}: cannot read the jar: {exc}") from None


def main_class(jar: Path) -> str:
    """The jar's ``Main-Class`` (JMH's archetype: ``org.openjdk.jmh.Main``), which ``java -cp`` must name."""
    try:
        with zipfile.ZipFile(jar) as zf:
            manifest = zf.read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    except (KeyError, OSError, zipfile.BadZipFile):
        return "org.openjdk.jmh.Main"
    m = re.search(r"^Main-Class:\s*(\S+)\s*$", manifest, re.MULTILINE)
    return m.group(1) if m else "org.openjdk.jmh.Main"


def cpu_profiler_classes(ctx: SuiteContext, java: str, jar: Path) -> Path:
    """The class folder of benchwarden's JMH CPU-time profiler, compiled against this jar's JMH on first use with
    the ``javac`` beside the suite's ``java`` (else on PATH)."""
    javac = Path(java).resolve().parent / "javac"
    compiler = str(javac) if javac.is_file() else require_tool(
        "javac", ctx.name, 'metric = "cpu" compiles benchwarden\'s JMH profiler with javac: install a JDK, not a JRE')
    stat = jar.stat()
    return helpers.jmh_profiler_classes(compiler, jar, _jmh_tag(jar, stat.st_mtime_ns, stat.st_size),
                                        env=dict(ctx.env) or None)


@functools.lru_cache(maxsize=16)
def _jmh_tag(jar: Path, mtime_ns: int, size: int) -> str:
    """The jar's JMH version, else a digest of the jar (read once per jar file, not per fork)."""
    return jmh_version(jar) or hashlib.sha256(jar.read_bytes()).hexdigest()


def jmh_version(jar: Path) -> str | None:
    """JMH version bundled in the jar (its jmh-core pom.properties), or None if it is not recorded."""
    try:
        with zipfile.ZipFile(jar) as zf:
            text = zf.read("META-INF/maven/org.openjdk.jmh/jmh-core/pom.properties").decode("utf-8")
    except (KeyError, OSError, zipfile.BadZipFile):
        return None
    m = re.search(r"^version=(.+)$", text, re.MULTILINE)
    return m.group(1).strip() if m else None


def java_version(java: str, env: Mapping[str, str] | None = None) -> str:
    """``java -version``'s version string, e.g. ``17.0.15``; ``"unknown"`` if it cannot be read."""
    try:
        done = capture([java, "-version"], env=env, timeout_s=60.0)
    except Exception:  # noqa: BLE001 - a version is metadata, never a reason to fail
        return "unknown"
    m = re.search(r'version "([^"]+)"', done.stderr + done.stdout)
    return m.group(1) if m else "unknown"


def jmh_time_value(seconds: float) -> str:
    """A duration as JMH's ``TimeValue`` accepts it (an integer and a unit): 0.2 -> ``200ms``."""
    if seconds <= 0:
        raise ValueError(f"iteration time must be positive, got {seconds}s")
    for factor, unit in ((1, "s"), (1e3, "ms"), (1e6, "us")):
        scaled = seconds * factor
        if abs(scaled - round(scaled)) < 1e-9 * max(1.0, scaled):
            return f"{int(round(scaled))}{unit}"
    return f"{max(1, int(round(seconds * 1e9)))}ns"


def print_time_unit(mode: str) -> str:
    """The ``-tu`` benchwarden passes so that JMH prints figures with many significant digits."""
    return "s" if mode == "thrpt" else "ns"


def fork_jvm_args(benchmark: Benchmark, suite_args: tuple[str, ...], plan_args: tuple[str, ...]) -> list[str]:
    """``@Fork(jvmArgsAppend)`` first (JMH would otherwise drop it), then the suite's, then the plan's.

    A plan that already repeats the suite's arguments at its start does not get them twice
    (:func:`~benchwarden.adapters.base.fork_jvm_arguments`).
    """
    extra = fork_jvm_arguments(suite_args, plan_args)
    if not extra:
        return []
    annotated = json.loads(benchmark.spec.get("jvm_args_append", "[]"))
    return [str(a) for a in annotated] + extra


def jvm_args_options(args: list[str]) -> list[str]:
    """``-jvmArgsAppend`` options for ``args``: one per argument (JMH keeps repeated values verbatim);
    a single argument is quoted, because JMH splits a lone value at spaces."""
    if len(args) == 1:
        arg = args[0]
        return [f'-jvmArgsAppend="{arg}"' if " " in arg else f"-jvmArgsAppend={arg}"]
    return [f"-jvmArgsAppend={arg}" for arg in args]


def profilers_option(ctx: SuiteContext) -> tuple[str, ...]:
    """The suite's ``profilers`` option (JMH ``-prof`` specs such as ``"gc"``); ConfigError when malformed."""
    value = ctx.options.get("profilers", [])
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not all(
            isinstance(p, str) and p.strip() and not p.startswith("-") for p in value):
        raise ConfigError(f"suite '{ctx.name}': 'profilers' must be a list of JMH profiler names such as [\"gc\"], "
                          f"got {value!r}", key=f"suites.{ctx.name}.profilers")
    return tuple(value)


def fork_argv(java: str, jar: Path, benchmark: Benchmark, plan: ForkPlan, suite_jvm_args: tuple[str, ...] = (),
              profilers: tuple[str, ...] = (), cpu_classes: Path | None = None) -> list[str]:
    """The complete command line of one fork (see the module docstring for why each option is there);
    ``cpu_classes``: the CPU-time profiler's class folder, for ``metric = "cpu"``."""
    username = benchmark.spec.get("benchmark", benchmark.id.name)
    mode = benchmark.spec.get("mode", benchmark.mode)
    iteration = jmh_time_value(plan.iteration_time_s)
    # -Djmh.ignoreLock: JMH's /tmp/jmh.lock keeps two JMH hosts from running at once; benchwarden decides
    # what runs concurrently itself (one fork at a time, or a base and a candidate fork side by side).
    launch = ["-jar", str(jar)] if cpu_classes is None else [
        "-cp", f"{jar}{os.pathsep}{cpu_classes}", main_class(jar)]
    argv = [java, "-Djmh.ignoreLock=true", *launch, f"^\\Q{username}\\E$",
            "-f", "1", "-wi", "0", "-i", str(plan.max_iterations), "-r", iteration, "-w", iteration,
            "-bm", mode, "-tu", print_time_unit(mode), "-foe", "true"]
    for name, value in benchmark.id.params:
        if "," in value:
            raise ForkFailed(str(benchmark.id), "crashed",
                             f"parameter {name}={value!r} contains a comma, which JMH's -p cannot pass")
        argv += ["-p", f"{name}={value}"]
    for profiler in profilers:
        argv += ["-prof", profiler]
    if cpu_classes is not None:
        argv += ["-prof", helpers.JMH_PROFILER_CLASS]
    argv += jvm_args_options(fork_jvm_args(benchmark, tuple(suite_jvm_args), tuple(plan.jvm_args)))
    return argv


_CPU = label("cpu", "ns/op")


def cpu_as_value(result: IterationResult, benchmark: str, lineno: int) -> tuple[float, dict[str, float]]:
    """(CPU time per operation, secondary metrics with the wall time as ``wall [ns/op]``) of an iteration that
    ran under the CPU-time profiler; :class:`ForkFailed` when the profiler reported nothing (not Linux: no
    ``/proc/self/task``) or a CPU time that is not positive (an iteration far too short for it)."""
    cpu = next((v for k, v in result.secondary.items() if k.lstrip("·") == _CPU), None)
    if cpu is None or not cpu > 0:
        why = ("benchwarden's CPU-time profiler reported nothing (it reads Linux's /proc/self/task)" if cpu is None
               else f"a CPU time of {cpu} ns/op: use a longer iteration_time")
        raise ForkFailed(benchmark, "garbage", f"output line {lineno}: {why}")
    secondary = {k: v for k, v in result.secondary.items() if k.lstrip("·") != _CPU}
    secondary[label("wall", "ns/op")] = result.value_ns
    return cpu, secondary


# --------------------------------------------------------------------------------------------------
# Running: one fork
# --------------------------------------------------------------------------------------------------


class JmhFork:
    """One running JMH process; iterate to receive its iterations as JMH prints them.

    Raises :class:`ForkFailed` with ``reason`` ``"timeout"`` (no result for ``plan.iteration_timeout_s``,
    counted from the start for the first one, or the fork over ``plan.timeout_s``), ``"crashed"``
    (JMH's ``<failure>``, a dead benchmark JVM, a non-zero exit), ``"garbage"`` (an unreadable
    iteration line) or ``"no-results"`` (exit 0 without any iteration).  The process group is always
    terminated before the error is raised, and when the iteration is abandoned.
    """

    def __init__(self, argv: list[str], cwd: Path, env: Mapping[str, str], benchmark: Benchmark, plan: ForkPlan,
                 profilers: bool = False):
        self.argv = argv
        self.benchmark = benchmark
        self.plan = plan
        self._label = str(benchmark.id)
        self._parser = IterationStreamParser(self._label, benchmark.mode, profilers)
        self._stopped = threading.Event()
        self.started_monotonic = time.monotonic()
        self._process = ManagedProcess(argv, cwd=cwd, env=env)
        self.iterations = 0

    @property
    def pid(self) -> int:
        """Process id (= process group id) of the JMH host JVM."""
        return self._process.proc.pid

    def __iter__(self) -> Iterator[IterationResult]:
        try:
            yield from self._stream()
        finally:
            self._process.terminate()

    def stop(self) -> None:
        """Terminate the whole process group (host and benchmark JVM). Idempotent, thread-safe."""
        self._stopped.set()
        self._process.terminate()

    def output_tail(self) -> str:
        return self._process.tail()

    def _stream(self) -> Iterator[IterationResult]:
        if self._stopped.is_set():
            return
        overall_deadline = self.started_monotonic + self.plan.timeout_s
        last_result = self.started_monotonic
        while True:
            deadline = min(last_result + self.plan.iteration_timeout_s, overall_deadline)
            try:
                line = self._process.readline(deadline)
            except LineTimeout:
                if self._stopped.is_set():
                    return
                raise self._timeout(overall_deadline) from None
            if line is None or self._stopped.is_set():
                break
            for result in self._feed(line):
                last_result = time.monotonic()
                self.iterations += 1
                yield result
            if self._parser.failure is not None:
                raise self._crash()
        if self._stopped.is_set():
            return
        for result in self._parser.finish():
            self.iterations += 1
            yield self._convert(result)
        self._check_exit()

    def _feed(self, line: str) -> list[IterationResult]:
        try:
            results = self._parser.feed(line)
        except ForkFailed as exc:
            self._process.terminate()
            raise ForkFailed(self._label, exc.reason, exc.detail, self._process.tail()) from None
        return [self._convert(r) for r in results]

    def _convert(self, result: IterationResult) -> IterationResult:
        """JMH printed in ``-tu`` units; keep ``raw_value`` in the benchmark's own unit.  With ``metric = "cpu"``
        the profiler's CPU time per operation is the value and JMH's time per operation ``wall [ns/op]``."""
        value, secondary = result.value_ns, result.secondary
        if self.plan.metric == "cpu":
            value, secondary = cpu_as_value(result, self._label, self._parser.lineno)
        raw = from_ns_per_op(value, self.benchmark.unit)
        return IterationResult(value_ns=value, raw_value=raw, ops=result.ops, secondary=secondary)

    def _timeout(self, overall_deadline: float) -> ForkFailed:
        self._process.terminate()
        if time.monotonic() >= overall_deadline:
            detail = f"the fork exceeded its time limit of {self.plan.timeout_s:g}s"
        else:
            which = "the first iteration" if self.iterations == 0 else f"iteration {self.iterations + 1}"
            detail = f"no result for {which} within {self.plan.iteration_timeout_s:g}s (hung?)"
        return ForkFailed(self._label, "timeout", detail, self._process.tail())

    def _crash(self) -> ForkFailed:
        drain_deadline = time.monotonic() + CRASH_DRAIN_S
        try:  # let the stack trace reach the output tail and the parser (for the exception line)
            while (line := self._process.readline(drain_deadline)) is not None:
                self._parser.feed(line)
        except LineTimeout:
            pass
        self._process.terminate()
        cause = self._parser.failure_detail or self._parser.failure or "failure"
        if self._parser.failure and self._parser.failure.startswith("forked VM failed"):
            cause = self._parser.failure
        detail = f"iteration {self._parser.iterations + 1} failed: {cause}"
        return ForkFailed(self._label, "crashed", detail, self._process.tail())

    def _check_exit(self) -> None:
        status = self._process.wait(timeout=EXIT_WAIT_S)
        if status is None:
            self._process.terminate()
            raise ForkFailed(self._label, "timeout", f"JMH did not exit within {EXIT_WAIT_S:g}s after its output ended",
                             self._process.tail())
        if status != 0:
            raise ForkFailed(self._label, "crashed", f"JMH exited with status {status}{_last_error(self._process.tail())}",
                             self._process.tail())
        if self.iterations == 0:
            raise ForkFailed(self._label, "no-results", "JMH exited without printing any iteration",
                             self._process.tail())


def _last_error(tail: str) -> str:
    """The most telling line of a failed JMH run's output, as ``": line"``: an ``ERROR``/exception line,
    else the last non-blank line (e.g. ``No matching benchmarks. Miss-spelled regexp?``)."""
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith(("ERROR", "Error", "Caused by")) or re.match(r"^[\w.$]+(Exception|Error):", line):
            return f": {line}"
    return f": {lines[-1]}" if lines else ""
