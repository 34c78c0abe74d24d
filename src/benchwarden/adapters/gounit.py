"""Go test functions as workloads (issue #16, docs/code-level.md): each ``func TestX(t *testing.T)`` is a benchmark.

The Go counterpart of the ``junit`` adapter. The module's files are not modified:

* ``prepare`` lists each package's test functions with benchwarden's Go source tool (``go/build`` picks the
  ``_test.go`` files as ``go test`` would, ``go/ast`` finds the functions: :file:`go/rewriter/tests.go`), has it
  write a *driver* — an extra external test file holding ``TestBenchwardenDriver`` and a table of the package's
  test functions — and builds the package's test binary with that file added through ``go test -c -overlay``.
* a fork is one run of that binary with ``-test.run '^TestBenchwardenDriver$'``: the driver runs the test named
  in ``$BENCHWARDEN_TEST`` as a subtest, ``R`` times per iteration (``R`` calibrated to the iteration time), and
  prints one protocol line per iteration (the asv worker's protocol, so a fork is a
  :class:`~benchwarden.adapters.asv.WorkerFork`). Only the function's body is timed — not the subtest's start, not
  its ``t.Cleanup`` functions. ``go test -json`` would time tests only to 10 ms.

A subtest the test starts on its own ``t`` with a name its source states (a string literal, or a table literal's
rows: :file:`go/rewriter/tests.go`, ``Subtests``) is a benchmark too (``TestX/name``): its fork runs
``TestX`` with Go's ``-test.run`` filter skipping the other subtests (:func:`run_pattern`), after one untimed
``-test.v`` execution per version has shown that the subtest does run (it may run only under some condition).

A test that fails is a failed fork with Go's output; one that calls ``t.Skip`` is skipped. Tests of a command
(``package main``) cannot be driven from an external test package and are not listed (the build says so).
A test that touches the network is skipped with what it asked for: before a benchmark's first fork (per version)
one untimed execution of it runs under ``strace`` (:mod:`benchwarden.adapters.screening`); without ``strace``
tests run unscreened, and the run's toolchain says so.

Suite options: ``packages`` (Go package patterns, default ``["./..."]``).
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Hashable, Mapping

from benchwarden.adapters import screening
from benchwarden.adapters.asv import TAIL_LINES, WorkerFork
from benchwarden.adapters.base import ForkPlan, PreparedSuite, SuiteContext, benchmark_version_key
from benchwarden.adapters.gotest import go_version, package_prefix, packages_option, safe_name
from benchwarden.adapters.process import ManagedProcess, capture, require_tool, run_build
from benchwarden.errors import ForkFailed, ListingFailed
from benchwarden.model import Benchmark, BenchmarkId

DRIVER_TEST = "TestBenchwardenDriver"
DRIVER_FILE = "zz_benchwarden_driver_test.go"  # go/rewriter/tests.go: DriverFile
_MANIFEST = "manifest.json"
_TOOL_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class DrivenPackage:
    """One package with test functions, as prepared: its driven test binary and the functions it can run."""

    import_path: str
    dir: str
    binary: str
    prefix: str
    tests: tuple[str, ...]
    refused: str = ""  # why its tests cannot be driven (a command's tests); no binary then


def build_dir_of(ctx: SuiteContext) -> Path:
    """Where drivers, overlays, test binaries and the manifest live: ``<suite root>/.benchwarden/build/gounit/``."""
    return ctx.root / ".benchwarden" / "build" / "gounit"


class GoUnitAdapter:
    """``kind = "gounit"``: see the module docstring."""

    kind = "gounit"

    def __init__(self) -> None:
        # network screening per benchmark and version: the first request it made ("" for none), or None when
        # it could not be screened
        self._screened: dict[Hashable, str | None] = {}
        self._strace_refused = ""  # strace's complaint once it could not trace here: stop trying
        self._subtests_seen: dict[Hashable, str] = {}  # per subtest benchmark and version: why it did not run

    def prepare(self, ctx: SuiteContext) -> PreparedSuite:
        """Require ``go``, run the suite's build if any, write each package's driver and build its test binary."""
        from benchwarden.helpers.build import rewriter_binary

        go = require_tool("go", ctx.name, "install Go from https://go.dev/dl/")
        if ctx.build:
            run_build(ctx.build, ctx.root, ctx.name, env=ctx.env)
        version = go_version(go, ctx)
        tool = str(rewriter_binary())
        out = build_dir_of(ctx)
        out.mkdir(parents=True, exist_ok=True)
        packages = []
        for import_path, pkg_dir in _test_packages(go, ctx):
            safe = safe_name(import_path)
            driver, overlay, binary = out / f"{safe}.driver.go", out / f"{safe}.overlay.json", out / f"{safe}.test"
            tests, refused = _list_and_write_driver(tool, ctx, import_path, pkg_dir, driver)
            prefix = package_prefix(ctx.root, pkg_dir, import_path)
            if not tests:
                continue
            if refused:  # listed all the same: each fork says why it cannot run
                packages.append(DrivenPackage(import_path, pkg_dir, "", prefix, tuple(tests), refused))
                continue
            overlay.write_text(json.dumps({"Replace": {str(Path(pkg_dir) / DRIVER_FILE): str(driver)}}),
                               encoding="utf-8")
            run_build([go, "test", "-c", "-overlay", str(overlay), "-o", str(binary), import_path], ctx.root,
                      ctx.name, env=ctx.env)
            packages.append(DrivenPackage(import_path, pkg_dir, str(binary), prefix, tuple(tests)))
        (out / _MANIFEST).write_text(json.dumps([asdict(p) for p in packages], indent=2), encoding="utf-8")
        return PreparedSuite(toolchain={"go": version, "network screening": self._screening_state()})

    def _screening_state(self) -> str:
        """What the run's toolchain says about network screening; a strace that cannot trace is not tried again."""
        strace = screening.strace_path()
        if strace is None:
            return "none: strace is not on PATH, tests that touch the network are measured"
        refused = screening.probe(strace)
        if refused:
            self._strace_refused = refused
            return f"none: strace cannot trace here ({refused}), tests that touch the network are measured"
        return "strace"

    def list_benchmarks(self, ctx: SuiteContext) -> list[Benchmark]:
        """Every test function of every prepared package, in source order, each followed by its listed subtests;
        named like the go adapter's benchmarks (``TestX`` at the root, ``dir/sub.TestX`` below it), a subtest as
        Go names it (``TestX/name``)."""
        benchmarks = []
        for package in _manifest(ctx):
            for name in package.tests:
                test, _, subtest = name.partition("/")
                benchmarks.append(Benchmark(
                    BenchmarkId(ctx.name, package.prefix + name), "avgt", "ns/op",
                    spec={"binary": package.binary, "package_dir": package.dir, "test": test,
                          **({"subtest": subtest} if subtest else {}),
                          **({"refused": package.refused} if package.refused else {})}))
        return benchmarks

    def start_fork(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> WorkerFork:
        """One run of the package's test binary driving ``benchmark``'s test for up to ``plan.max_iterations``."""
        spec = benchmark.spec
        if spec.get("refused"):
            raise ForkFailed(str(benchmark.id), "skipped", spec["refused"])
        argv = [spec["binary"], "-test.run", run_pattern(spec), "-test.count", "1", *plan.process_args]
        env = {**ctx.env, **plan.env, "BENCHWARDEN_TEST": spec["test"],
               "BENCHWARDEN_ITERATION_NS": str(max(1, round(plan.iteration_time_s * 1e9))),
               "BENCHWARDEN_ITERATIONS": str(plan.max_iterations), "BENCHWARDEN_RUN_NAME": run_name(spec)}
        if spec.get("subtest"):
            missing = self._subtest_missing(ctx, benchmark, plan, env)
            if missing:
                raise ForkFailed(str(benchmark.id), "crashed", missing)
        request = self._network_request(ctx, benchmark, plan, env)
        if request:
            raise ForkFailed(str(benchmark.id), "skipped", f"the test touches the network ({request}, seen while it "
                                                           "was screened): a test that does measures the network, "
                                                           "not the code")
        try:
            process = ManagedProcess(argv, cwd=Path(spec["package_dir"]), env=env, merge_stderr=False,
                                     tail_lines=TAIL_LINES)
        except OSError as exc:
            raise ForkFailed(str(benchmark.id), "crashed", f"cannot start the test binary: {exc}") from None
        return WorkerFork(process, str(benchmark.id), plan, plan.iteration_timeout_s,
                          skip_detail=lambda reason: reason, harness_lines=True)

    def _subtest_missing(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan, env: dict[str, str]) -> str:
        """Why the subtest does not run when its test runs ("" when it does): one untimed execution with Go's
        verbose output, once per benchmark and version. A subtest listed from the source may run only under
        conditions; without this check its forks would time the test's body with no subtest in it."""
        key = benchmark_version_key(ctx, benchmark, plan)
        if key not in self._subtests_seen:
            spec = benchmark.spec
            once = {**env, "BENCHWARDEN_ITERATIONS": "0", "BENCHWARDEN_REPETITIONS": "1"}
            argv = [spec["binary"], "-test.run", run_pattern(spec), "-test.count", "1", "-test.v"]
            try:
                done = capture(argv, cwd=Path(spec["package_dir"]), env=once, timeout_s=plan.timeout_s)
                ran = f"=== RUN   {DRIVER_TEST}/{run_name(spec)}/{spec['subtest']}" in done.stdout.splitlines()
                self._subtests_seen[key] = "" if ran or done.returncode != 0 else (
                    f"subtest {spec['subtest']!r} did not run when {spec['test']} ran (it runs only under some "
                    "condition, or was renamed): nothing of it could be measured")
            except subprocess.TimeoutExpired:
                self._subtests_seen[key] = ""  # the fork reports the hang itself
        return self._subtests_seen[key]

    def _network_request(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan,
                         env: dict[str, str]) -> str | None:
        """The first network request of one untimed execution of the test under strace ("" for none, None when it
        could not be screened); once per benchmark and version (:func:`~benchwarden.adapters.base.benchmark_version_key`)."""
        key = benchmark_version_key(ctx, benchmark, plan)
        if key not in self._screened:
            self._screened[key] = self._screen(benchmark, plan, env)
        return self._screened[key]

    def _screen(self, benchmark: Benchmark, plan: ForkPlan, env: dict[str, str]) -> str | None:
        strace = screening.strace_path()
        if strace is None or self._strace_refused:
            return None
        spec = benchmark.spec
        with tempfile.TemporaryDirectory(prefix="benchwarden-screen-") as tmp:
            log = Path(tmp) / "trace"
            argv = [*screening.strace_argv(strace, log), spec["binary"], "-test.run", run_pattern(spec),
                    "-test.count", "1"]
            once = {**env, "BENCHWARDEN_ITERATIONS": "0", "BENCHWARDEN_REPETITIONS": "1"}  # the first run only
            stderr = ""
            try:
                stderr = capture(argv, cwd=Path(spec["package_dir"]), env=once, timeout_s=plan.timeout_s).stderr
            except subprocess.TimeoutExpired:
                pass  # what it asked for before hanging still counts; the fork reports the hang itself
            except OSError as exc:
                self._strace_refused = str(exc)
                return None
            trace = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        refused = screening.strace_failed(stderr)
        if refused and not trace:
            self._strace_refused = refused
            return None
        requests = screening.network_requests(trace)
        return requests[0] if requests else ""


TOP_LEVEL = ("Test", "Example", "Fuzz")  # the names Go's -test.run matches at its first level


def run_name(spec: Mapping[str, str]) -> str:
    """The name the driver gives its runs of the test (``$BENCHWARDEN_RUN_NAME``, pure): the test's own, except
    for a subtest fork, where it is one no top-level test can have (``run_TestX``) so that :func:`run_pattern`
    can be one pattern for every level — unless the subtest's own name could be a top-level one."""
    subtest = spec.get("subtest")
    return f"run_{spec['test']}" if subtest and not subtest.startswith(TOP_LEVEL) else spec["test"]


def run_pattern(spec: Mapping[str, str]) -> str:
    """``-test.run`` for a fork (pure): the driver; for a subtest also the driver's runs of its test (Go numbers
    repeated names: ``X``, ``X#01``, ...) and the subtest itself, so that Go's own filter skips the test's other
    subtests. Go's ``testing`` keeps one compiled pattern and compiles again whenever the pattern changes, so a
    different pattern per level (``^Driver$/^TestX(#[0-9]+)?$/^sub$``) recompiles at every ``t.Run`` of the
    test's body — timed with it: on gin's ``TestContextSetCookieData`` one subtest alone took 3× the whole test
    of three. The same alternation at every level is compiled once; it cannot match a top-level test as long as
    no alternative can be a top-level name (:func:`run_name`), else the per-level form is used."""
    if not spec.get("subtest"):
        return f"^{DRIVER_TEST}$"
    name, subtest = re.escape(run_name(spec)), re.escape(spec["subtest"])
    if run_name(spec) == spec["test"]:
        return f"^{DRIVER_TEST}$/^{name}(#[0-9]+)?$/^{subtest}$"
    every = f"^({DRIVER_TEST}|{name}(#[0-9]+)?|{subtest})$"
    return f"{every}/{every}/{every}"


def _test_packages(go: str, ctx: SuiteContext) -> list[tuple[str, str]]:
    """``(import path, dir)`` of the packages matched by the ``packages`` option that have ``_test.go`` files."""
    template = "{{.ImportPath}}\t{{.Dir}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}"
    output = run_build([go, "list", "-f", template, *packages_option(ctx)], ctx.root, ctx.name, env=ctx.env)
    found = []
    for row in output.splitlines():
        parts = row.split("\t")
        if len(parts) == 4 and (parts[2] != "0" or parts[3] != "0"):
            found.append((parts[0], parts[1]))
    return found


def _list_and_write_driver(tool: str, ctx: SuiteContext, import_path: str, pkg_dir: str,
                           driver: Path) -> tuple[list[str], str]:
    argv = [tool, "-tests", pkg_dir, "-driver", str(driver), "-import", import_path]
    try:
        done = capture(argv, cwd=ctx.root, env=ctx.env, timeout_s=_TOOL_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ListingFailed(f"suite '{ctx.name}': listing the tests of {import_path} took longer than "
                            f"{_TOOL_TIMEOUT_S:.0f}s") from None
    if done.returncode != 0:
        raise ListingFailed(f"suite '{ctx.name}': cannot drive the tests of {import_path}: "
                            f"{(done.stderr or done.stdout).strip()[-2000:]}")
    return listed_tests(ctx.name, import_path, done.stdout)


def listed_tests(suite: str, import_path: str, output: str) -> tuple[list[str], str]:
    """The test function names of the Go tool's listing line, each followed by its listed subtests as
    ``TestX/name``, and why they cannot be driven ("" if they can; pure)."""
    for line in output.splitlines():
        if not line.startswith("{"):  # Go's own messages ("go: downloading ...")
            continue
        try:
            data = json.loads(line)
        except ValueError:
            break
        tests = data.get("tests") if isinstance(data, dict) else None
        if data.get("v") == 1 and isinstance(tests, list) and all(
                isinstance(t, dict) and isinstance(t.get("name"), str) and isinstance(t.get("subtests", []), list)
                and all(isinstance(sub, str) and sub for sub in t.get("subtests", [])) for t in tests):
            names = [n for t in tests for n in [t["name"], *(f"{t['name']}/{sub}" for sub in t.get("subtests", []))]]
            return names, str(data.get("refused") or "")
        break
    raise ListingFailed(f"suite '{suite}': malformed test listing for {import_path}: {output.strip()[:200]!r}")


def _manifest(ctx: SuiteContext) -> list[DrivenPackage]:
    path = build_dir_of(ctx) / _MANIFEST
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
        return [DrivenPackage(**{**row, "tests": tuple(row["tests"])}) for row in rows]
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise ListingFailed(f"suite '{ctx.name}': no usable build manifest {path} (prepare the suite first): "
                            f"{exc}") from None
