"""The Go adapter: ``go test`` benchmarks, one fork = one run of a package's compiled test binary.

Go's model (Laaber & Leitner 2018, §2; research/seed-003 §1.4): a benchmark
function runs with growing ``b.N`` until ``-benchtime`` is reached and
reports ns/op; ``-count`` repeats that, and Go has no warmup and no forks of
its own.  benchwarden maps one ``-count`` repetition to one *iteration* and one
process of the test binary to one *fork*, so Go suites get forks and a
runner-decided warmup like every other harness.

* ``prepare`` builds each package's test binary once with ``go test -c`` (into
  ``<suite root>/.benchwarden/build/go/``; go's build cache makes the rebuild
  on every prepare cheap) and records them in a manifest there.
* ``list_benchmarks`` reads top-level names with ``-test.list`` and discovers
  sub-benchmarks (``b.Run``), which Go cannot list without running, by one
  cheap run per package with ``-test.benchtime 1x -test.cpu 1`` (so no
  GOMAXPROCS suffix muddles the names).  Every result line is a leaf;
  sub-benchmark path elements become parameters (see
  :func:`~benchwarden.adapters.gotest_output.name_to_params`).  A benchmark
  that crashes or hangs during discovery is still listed (its fork will report
  the failure) and discovery carries on with the remaining benchmarks.
* ``start_fork`` runs the binary in the package directory (as ``go test``
  does) with an exact, escaped ``-test.bench`` pattern, twice: a
  **calibration** run (``-test.count 1 -test.benchtime <iteration time>``)
  finds the N that fills one iteration, then the **measurement** run
  (``-test.count`` = the plan's iteration bound, ``-test.benchtime Nx``) runs
  every iteration with that fixed N; one result line is one streamed
  iteration.  ``go test -count k -benchtime <t>`` would re-run Go's b.N
  search (N = 1, then growing ×100 at most, until the time is reached) before
  *every* repetition — on gin this made forks ~80 % longer than their
  iterations (issue 13); calibrating once per fork keeps that to one search.
  Only the first fork of a benchmark (per version) calibrates; the later forks
  reuse its N (:mod:`benchwarden.adapters.calibration`: a fork at another speed
  gets somewhat longer or shorter iterations, the same values per operation).

Benchmark names: the package at the suite root gives bare names
(``BenchmarkTokenize``); other packages are qualified with their directory
relative to the root, Go style (``internal/parse.BenchmarkX``), so two
packages may both have a ``BenchmarkX``.

Suite options (``[suites.NAME]`` keys): ``packages`` (list of go package
patterns, default ``["./..."]``), ``list_timeout`` (duration bounding one
discovery run, default ``"60s"``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping

from benchwarden.adapters.base import ForkPlan, PreparedSuite, SuiteContext, benchmark_version_key
from benchwarden.adapters.calibration import CalibrationCache
from benchwarden.adapters.gotest_output import (
    GO_MODE,
    GO_UNIT,
    Failed,
    GoOutputParser,
    GoResult,
    ResultLineError,
    Unfinished,
    name_to_params,
    to_iteration,
)
from benchwarden.adapters.gotest_twopoint import SHORT_OPS, GoHarness
from benchwarden.adapters.params import select_values
from benchwarden.adapters.process import LineTimeout, ManagedProcess, capture, require_tool, run_build
from benchwarden.adapters.twopoint import TwoPointFork
from benchwarden.errors import BuildFailed, ConfigError, ForkFailed, ListingFailed
from benchwarden.metrics import valgrind
from benchwarden.model import Benchmark, BenchmarkId, IterationResult
from benchwarden.units import parse_duration_s

_BENCHMARK_FUNC = re.compile(r"^func\s+Benchmark(?![a-z])\w*\s*\(", re.MULTILINE)
_GO_META = re.compile(r"([\\.+*?()|\[\]{}^$])")
_MANIFEST = "manifest.json"
_DEFAULT_LIST_TIMEOUT_S = 60.0


def quote_meta(text: str) -> str:
    """Escape RE2 metacharacters exactly as Go's ``regexp.QuoteMeta`` does (``\\.+*?()|[]{}^$``).

    Python's ``re.escape`` is not used: it also escapes characters such as
    ``-`` or ``#``; RE2 accepts escaped punctuation, but matching Go's own
    quoting keeps the patterns obviously right.
    """
    return _GO_META.sub(r"\\\1", text)


def bench_pattern(full_name: str) -> str:
    """The ``-test.bench`` pattern matching exactly one benchmark: ``^Top$/^sub$/...``.

    Go splits the pattern at unbracketed ``/`` (and ``|``) and matches each
    part, unanchored, against one level of the name; escaped metacharacters
    (including ``\\|``, ``\\[``, ``\\(``) do not split.  Names never contain
    spaces (Go rewrites them to ``_``), and a ``/`` inside a ``b.Run`` name
    makes a level of its own, so splitting the full name at ``/`` is exact.
    """
    return "/".join(f"^{quote_meta(element)}$" for element in full_name.split("/"))


def go_duration(seconds: float) -> str:
    """A Go duration string for a benchtime: ``0.2`` -> ``"200ms"``; odd values in whole ns."""
    ns = max(1, int(round(seconds * 1e9)))
    if ns % 1_000_000 == 0:
        return f"{ns // 1_000_000}ms"
    return f"{ns}ns"


@dataclass(frozen=True)
class GoPackage:
    """A package with benchmarks and its compiled test binary (absolute paths)."""

    import_path: str
    dir: str
    binary: str
    prefix: str  # name qualifier: "" at the suite root, else "rel/dir."


class GoAdapter:
    """``kind = "go"``: see the module docstring."""

    kind = "go"

    def __init__(self) -> None:
        self._packages: dict[Path, list[GoPackage]] = {}
        self._calibrations = CalibrationCache()

    # ------------------------------------------------------------------ prepare

    def prepare(self, ctx: SuiteContext) -> PreparedSuite:
        """Require ``go``, run the suite's build command if any, build one test binary per benchmark package."""
        go = require_tool("go", ctx.name, "install Go from https://go.dev/dl/")
        if ctx.build:
            run_build(ctx.build, ctx.root, ctx.name, env=ctx.env)
        version = go_version(go, ctx)
        build_dir = build_dir_of(ctx)
        build_dir.mkdir(parents=True, exist_ok=True)
        packages = []
        for import_path, pkg_dir in _benchmark_packages(go, ctx):
            binary = build_dir / f"{safe_name(import_path)}.test"
            run_build([go, "test", "-c", "-o", str(binary), import_path], ctx.root, ctx.name, env=ctx.env)
            if binary.exists():
                packages.append(GoPackage(import_path, pkg_dir, str(binary),
                                          package_prefix(ctx.root, pkg_dir, import_path)))
        (build_dir / _MANIFEST).write_text(json.dumps([asdict(p) for p in packages], indent=2), encoding="utf-8")
        self._packages[ctx.root] = packages
        return PreparedSuite(toolchain={"go": version})

    def prepare_metric(self, ctx: SuiteContext, metric: str) -> None:
        """``instructions``: Valgrind must be on PATH (checked once, not per fork)."""
        if metric == "instructions":
            valgrind.require(ctx.name)

    # ------------------------------------------------------------------ listing

    def list_benchmarks(self, ctx: SuiteContext) -> list[Benchmark]:
        """Every leaf benchmark of every prepared package, in Go's run order."""
        timeout_s = _list_timeout_s(ctx)
        benchmarks: list[Benchmark] = []
        for package in self._prepared(ctx):
            tops = _top_level_names(package, ctx)
            for full_name in _discover_leaves(package, tops, ctx.env, timeout_s):
                top, params = name_to_params(full_name)
                spec = {"package": package.import_path, "package_dir": package.dir,
                        "binary": package.binary, "full_name": full_name}
                benchmarks.append(Benchmark(BenchmarkId(ctx.name, package.prefix + top, params),
                                            GO_MODE, GO_UNIT, spec=spec))
        return select_values(ctx.name, benchmarks, ctx.params)  # sub-benchmarks by their path elements

    def _prepared(self, ctx: SuiteContext) -> list[GoPackage]:
        if ctx.root in self._packages:
            return self._packages[ctx.root]
        manifest = build_dir_of(ctx) / _MANIFEST
        try:
            rows = json.loads(manifest.read_text(encoding="utf-8"))
            packages = [GoPackage(**row) for row in rows]
        except (OSError, ValueError, TypeError) as exc:
            raise ListingFailed(f"suite '{ctx.name}': no usable build manifest {manifest} "
                                f"(prepare the suite first): {exc}") from None
        self._packages[ctx.root] = packages
        return packages

    # ------------------------------------------------------------------ forks

    def start_fork(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> "GoFork | TwoPointFork":
        """Start the package's test binary for exactly ``benchmark``; see :class:`GoFork` (CPU time and
        instructions: :mod:`benchwarden.adapters.gotest_twopoint`)."""
        spec = benchmark.spec
        env = {**ctx.env, **plan.env}
        key = benchmark_version_key(ctx, benchmark, plan)
        known, found = self._calibrations.get(key), functools.partial(self._calibrations.put, key)
        if plan.metric != "time":
            harness = GoHarness(spec["binary"], spec["package_dir"], spec["full_name"], bench_pattern(spec["full_name"]),
                                env, str(benchmark.id), plan.timeout_s)
            return TwoPointFork(harness, plan, ctx.name, short_ops=SHORT_OPS, long_ops=known, calibrated=found)
        return GoFork(spec["binary"], Path(spec["package_dir"]), env, spec["full_name"], str(benchmark.id), plan,
                      operations=known, calibrated=found)


def fork_argv(binary: str, full_name: str, plan: ForkPlan, n: int | None = None) -> list[str]:
    """Command line of one fork's measurement run (no shell): one repetition per iteration, -benchmem.

    ``n``: the fixed operations per iteration found by calibration (``-test.benchtime Nx``); None keeps
    Go's own per-repetition search for the iteration time (what the calibration run itself uses).
    """
    return [
        binary,
        "-test.run", "^$",
        "-test.bench", bench_pattern(full_name),
        "-test.count", str(max(1, plan.max_iterations)),
        "-test.benchtime", f"{n}x" if n is not None else go_duration(plan.iteration_time_s),
        "-test.benchmem",
        # second line of defence behind our own deadlines: Go panics after this long
        "-test.timeout", f"{max(1, math.ceil(plan.timeout_s * 2))}s",
    ]


def calibration_argv(binary: str, full_name: str, plan: ForkPlan) -> list[str]:
    """The calibration run of a fork: one repetition of Go's b.N search for one iteration time."""
    argv = fork_argv(binary, full_name, plan)
    argv[argv.index("-test.count") + 1] = "1"
    return argv


def operations_per_iteration(calibration: IterationResult, iteration_time_s: float) -> int:
    """N that makes one iteration last ``iteration_time_s`` at the calibrated speed (at least 1).

    Go's own search overshoots its target by up to 20 % (``n += n/5``); this is the target itself.
    """
    return max(1, round(iteration_time_s * 1e9 / calibration.value_ns))


class GoFork:
    """One fork: a calibration run (unless ``operations`` gives an earlier fork's N), then the measurement
    run; iterate for :class:`IterationResult` objects.  ``calibrated`` receives the N this fork found.

    stderr is kept out of the parsed stream (it would split result lines) but
    stays in :meth:`output_tail`.  Failure rules (either run): no line for
    ``plan.iteration_timeout_s`` or the whole fork past ``plan.timeout_s`` ->
    ``ForkFailed(reason="timeout")``; a panic, ``--- FAIL``, a repetition
    without figures or a non-zero exit -> ``"crashed"``; malformed figures or
    another benchmark's result -> ``"garbage"``; a clean exit without any
    result -> ``"no-results"``.  After :meth:`stop`, iteration just ends.
    ``calibration`` holds the calibration run's result and ``operations`` the
    fixed N, once known.
    """

    def __init__(self, binary: str, cwd: Path, env: Mapping[str, str], full_name: str, label: str,
                 plan: ForkPlan, *, operations: int | None = None, calibrated: Callable[[int], None] | None = None):
        self._binary = binary
        self._cwd = cwd
        self._env = dict(env)
        self._full_name = full_name
        self._label = label
        self._plan = plan
        self._stopped = False
        self._started_s = time.monotonic()
        self._calibrated = calibrated
        self.calibration: IterationResult | None = None
        self.operations: int | None = operations
        self.calibrated_here = operations is None
        if operations is None:
            self.argv = calibration_argv(binary, full_name, plan)
        else:  # an earlier fork's N (adapters/calibration.py): straight to the measurement run
            self.argv = self._measurement_argv(operations)
        self._proc = ManagedProcess(self.argv, cwd=cwd, env=self._env, merge_stderr=False)

    def _measurement_argv(self, operations: int) -> list[str]:
        # the measurement run only gets the plan's process arguments: a profile covers what is measured
        return [*fork_argv(self._binary, self._full_name, self._plan, operations), *self._plan.process_args]

    def stop(self) -> None:
        """Terminate the running binary's whole process group; idempotent, thread-safe enough (a flag and a kill)."""
        self._stopped = True
        self._proc.terminate()

    def output_tail(self) -> str:
        return self._proc.tail()

    def __iter__(self) -> Iterator[IterationResult]:
        try:
            if not self.calibrated_here:
                yield from self._stream()
                return
            for result in self._stream():
                self.calibration = result
            if self._stopped or self.calibration is None:
                return
            self.operations = operations_per_iteration(self.calibration, self._plan.iteration_time_s)
            if self._calibrated is not None:
                self._calibrated(self.operations)
            self.argv = self._measurement_argv(self.operations)
            self._proc = ManagedProcess(self.argv, cwd=self._cwd, env=self._env, merge_stderr=False)
            if self._stopped:  # stop() raced with the start
                self._proc.terminate()
                return
            yield from self._stream()
        finally:
            self._proc.terminate()

    def _deadline(self, last_s: float) -> tuple[float, str]:
        iteration_deadline = last_s + self._plan.iteration_timeout_s
        fork_deadline = self._started_s + self._plan.timeout_s
        if iteration_deadline < fork_deadline:
            return iteration_deadline, f"no iteration result for {self._plan.iteration_timeout_s:g}s"
        return fork_deadline, f"the fork exceeded its timeout of {self._plan.timeout_s:g}s"

    def _stream(self) -> Iterator[IterationResult]:
        parser = GoOutputParser(expected=self._full_name)
        last_s = time.monotonic()
        results = 0
        failure: str | None = None
        while True:
            deadline, why = self._deadline(last_s)
            try:
                line = self._proc.readline(deadline)
            except LineTimeout:
                if self._stopped:
                    return
                self._proc.terminate()
                raise ForkFailed(self._label, "timeout", why, self.output_tail()) from None
            if line is None or self._stopped:  # after stop(), a line already read is not an iteration to report
                break
            try:
                events = parser.feed(line)
            except ResultLineError as exc:
                self._fail("garbage", f"cannot read result line {line.strip()!r}: {exc}")
            for event in events:
                if isinstance(event, GoResult):
                    yield self._iteration(event, line)
                    results += 1
                    last_s = time.monotonic()
                elif isinstance(event, (Failed, Unfinished)) and failure is None:
                    failure = _describe(event)
        if self._stopped:
            return
        self._finish(parser, failure, results)

    def _iteration(self, event: GoResult, line: str) -> IterationResult:
        if event.name != self._full_name:
            self._fail("garbage", f"unexpected result for {event.name!r} (expected {self._full_name!r})")
        try:
            return to_iteration(event)
        except ResultLineError as exc:
            self._fail("garbage", f"{exc} in {line.strip()!r}")
            raise  # pragma: no cover - _fail raises

    def _finish(self, parser: GoOutputParser, failure: str | None, results: int) -> None:
        returncode = self._proc.wait(timeout=5.0)
        pending = parser.finish()
        if failure is None and pending is not None:
            failure = _describe(pending)
        if failure is None and returncode not in (0, None):
            failure = f"the test binary exited with status {returncode}"
        if failure is None and returncode is None:
            failure = "the test binary closed its output but did not exit"
        if failure is not None:
            self._proc.drained()  # the panic is on stderr, which may be read after stdout's end
            self._fail("crashed", _with_cause(failure, self.output_tail()))
        if results == 0:
            self._fail("no-results", f"the test binary printed no result for {self._full_name}")

    def _fail(self, reason: str, detail: str) -> None:
        self._proc.terminate()
        raise ForkFailed(self._label, reason, detail, self.output_tail())


def _describe(event: Failed | Unfinished) -> str:
    if isinstance(event, Failed):
        return f"go test reported '--- FAIL: {event.name}'"
    return "a repetition started but reported no result"


def _with_cause(failure: str, tail: str) -> str:
    """Add the first panic / fatal error line of the output, which is what the user needs to see."""
    for line in tail.splitlines():
        if line.startswith(("panic:", "fatal error:")) or "test timed out" in line:
            return f"{failure} ({line.strip()})"
    return failure


# ---------------------------------------------------------------------- helpers


def build_dir_of(ctx: SuiteContext) -> Path:
    """Where test binaries and the manifest live: ``<suite root>/.benchwarden/build/go/``."""
    return ctx.root / ".benchwarden" / "build" / "go"


def safe_name(import_path: str) -> str:
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", import_path).strip("_") or "pkg"
    digest = hashlib.sha1(import_path.encode("utf-8")).hexdigest()[:8]
    return f"{readable}-{digest}"


def package_prefix(root: Path, pkg_dir: str, import_path: str) -> str:
    rel = os.path.relpath(pkg_dir, root)
    if rel == ".":
        return ""
    if rel.startswith(".."):
        return f"{import_path}."
    return rel.replace(os.sep, "/") + "."


def packages_option(ctx: SuiteContext) -> list[str]:
    value = ctx.options.get("packages", ["./..."])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"suite '{ctx.name}': 'packages' must be a list of Go package patterns such as "
                          f"[\"./...\"], got {value!r}", key=f"suites.{ctx.name}.packages")
    return list(value)


def _list_timeout_s(ctx: SuiteContext) -> float:
    value = ctx.options.get("list_timeout", _DEFAULT_LIST_TIMEOUT_S)
    try:
        seconds = parse_duration_s(value)  # type: ignore[arg-type]
    except ValueError as exc:
        raise ConfigError(f"suite '{ctx.name}': 'list_timeout': {exc}", key=f"suites.{ctx.name}.list_timeout") from None
    if seconds <= 0:
        raise ConfigError(f"suite '{ctx.name}': 'list_timeout' must be positive, got {value!r}",
                          key=f"suites.{ctx.name}.list_timeout")
    return seconds


def go_version(go: str, ctx: SuiteContext) -> str:
    done = capture([go, "env", "GOVERSION"], cwd=ctx.root, env=ctx.env, timeout_s=60)
    version = done.stdout.strip()
    if done.returncode != 0 or not version:
        raise BuildFailed(ctx.name, f"{go} env GOVERSION", done.returncode, (done.stdout + done.stderr).strip())
    return version


def _benchmark_packages(go: str, ctx: SuiteContext) -> list[tuple[str, str]]:
    """``(import path, dir)`` of the packages matched by the ``packages`` option whose test files declare benchmarks.

    A textual scan for ``func Benchmark...(`` avoids compiling test binaries
    of packages that have none; ``-test.list`` stays the authority later.
    """
    template = "{{.ImportPath}}\t{{.Dir}}\t{{join .TestGoFiles \",\"}}\t{{join .XTestGoFiles \",\"}}"
    argv = [go, "list", "-f", template, *packages_option(ctx)]
    output = run_build(argv, ctx.root, ctx.name, env=ctx.env)
    found = []
    for row in output.splitlines():
        parts = row.split("\t")
        if len(parts) != 4:
            continue  # go's own warnings ("matched no packages")
        import_path, pkg_dir, tests, xtests = parts
        files = [f for f in (tests.split(",") + xtests.split(",")) if f]
        if any(_declares_benchmark(Path(pkg_dir) / f) for f in files):
            found.append((import_path, pkg_dir))
    return found


def _declares_benchmark(path: Path) -> bool:
    try:
        return bool(_BENCHMARK_FUNC.search(path.read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return False


def _top_level_names(package: GoPackage, ctx: SuiteContext) -> list[str]:
    if not Path(package.binary).exists():
        raise ListingFailed(f"suite '{ctx.name}': test binary {package.binary} is missing (prepare the suite first)")
    done = capture([package.binary, "-test.list", "^Benchmark"], cwd=Path(package.dir), env=ctx.env, timeout_s=60)
    if done.returncode != 0:
        raise ListingFailed(f"suite '{ctx.name}': `{package.binary} -test.list '^Benchmark'` failed with status "
                            f"{done.returncode}: {(done.stdout + done.stderr).strip()[-2000:]}")
    return [line.strip() for line in done.stdout.splitlines() if line.startswith("Benchmark")]


def _discover_leaves(package: GoPackage, tops: list[str], env: Mapping[str, str], timeout_s: float) -> list[str]:
    """Leaf benchmark names of a package, found by running its benchmarks once (``1x``).

    A benchmark that fails during discovery (``--- FAIL``, or a repetition
    printed without figures because the binary panicked, exited or hung) is
    listed too, so that its forks report the cause.  After a crash or hang,
    discovery restarts with the top-level benchmarks not seen yet.  Go runs
    benchmarks in ``-test.list`` order, so a run that fails before printing
    anything (``os.Exit`` or a panic in the first ``b.N == 1`` call) was
    killed by the first of them: it is listed as it is and discovery goes on
    with the rest.  Limitation: sub-benchmarks that would have run after a
    crashing sibling are not discovered.
    """
    leaves: list[str] = []
    remaining = list(tops)
    while remaining:
        names, _failed, ok, _tail = _discovery_run(package, remaining, env, timeout_s)
        leaves.extend(n for n in names if n not in leaves)
        if ok:
            break
        seen = {n.split("/")[0] for n in leaves}
        still = [t for t in remaining if t not in seen]
        if still == remaining:  # died silently in the first benchmark it started
            leaves.append(remaining[0])
            still = remaining[1:]
        remaining = still
    return _only_leaves(leaves)


def _only_leaves(names: list[str]) -> list[str]:
    """Drop names that are a path prefix of another name (a parent of sub-benchmarks is not runnable alone)."""
    parents = {"/".join(n.split("/")[:i]) for n in names for i in range(1, n.count("/") + 1)}
    return [n for n in names if n not in parents]


def _discovery_run(package: GoPackage, tops: list[str], env: Mapping[str, str],
                   timeout_s: float) -> tuple[list[str], list[str], bool, str]:
    """One ``-test.benchtime 1x -test.cpu 1`` run over ``tops``.

    Returns (every name that reported a result or failed, in run order; the
    names that failed; whether the run exited cleanly; output tail).  ``-test.cpu 1`` makes Go print names
    without a GOMAXPROCS suffix, so they are read verbatim.
    """
    pattern = "^(" + "|".join(quote_meta(t) for t in tops) + ")$"
    argv = [package.binary, "-test.run", "^$", "-test.bench", pattern, "-test.benchtime", "1x",
            "-test.count", "1", "-test.cpu", "1", "-test.timeout", f"{max(1, math.ceil(timeout_s))}s"]
    proc = ManagedProcess(argv, cwd=package.dir, env=env, merge_stderr=False)
    parser = GoOutputParser(procs_suffix=False)
    names: list[str] = []
    failed: list[str] = []
    deadline = time.monotonic() + timeout_s + 5.0
    timed_out = False
    try:
        while (line := _next_line(proc, deadline)) is not None:
            if line is _TIMED_OUT:
                if timed_out:
                    break  # terminated, and still no end of output: give up on this run
                timed_out = True
                proc.terminate()  # closes the pipe: a partial "BenchmarkX\t" line arrives next
                deadline = time.monotonic() + 5.0
                continue
            try:
                events = parser.feed(line)
            except ResultLineError:
                continue  # odd figures do not matter for discovery; the fork will judge them
            for event in events:
                if isinstance(event, (GoResult, Failed, Unfinished)) and event.name not in names:
                    names.append(event.name)
                if isinstance(event, (Failed, Unfinished)):
                    failed.append(event.name)
        pending = parser.finish()
        if pending is not None:
            failed.append(pending.name)
            if pending.name not in names:
                names.append(pending.name)
        returncode = proc.wait(timeout=5.0)
    finally:
        proc.terminate()
    ok = not timed_out and returncode == 0 and not failed
    return names, failed, ok, proc.tail()


_TIMED_OUT = "\0timeout"


def _next_line(proc: ManagedProcess, deadline: float) -> str | None:
    try:
        return proc.readline(deadline)
    except LineTimeout:
        return _TIMED_OUT
