"""Unit tests as workloads (issue #16, docs/code-level.md): each JUnit test method of a Maven project is a benchmark.

The project's tests are not modified. benchwarden's JUnit launcher (``java/junit-launcher``, built on first use like
the other helpers) runs on the project's own test classpath — ``target/test-classes``, ``target/classes`` and the
test-scope dependencies Maven resolves (``dependency:build-classpath``) — plus a ``junit-platform-launcher`` of the
project's own JUnit Platform version (resolved from Maven Central as Surefire does, when the project does not
declare it). It speaks the asv worker's line protocol (one JSON object per line), so a fork is an
:class:`~benchwarden.adapters.asv.WorkerFork`:

* ``list``: the JUnit Platform's discovery over ``target/test-classes``; every test method is a benchmark named
  ``package.Class#method`` (``#method(Types)`` when overloaded or parameterized), selected later by its JUnit
  unique id. A test template (``@ParameterizedTest``, ``@RepeatedTest``) is one benchmark too, selected by the
  template's unique id: its invocations only exist while it runs, so one operation is all of them (each with its
  lifecycle, each body timed), and one failing invocation fails it. A ``@TestFactory`` likewise: one operation is
  the factory and its dynamic tests, each dynamic test's executable timed (Jupiter 5.8+).
* a fork is one fresh JVM running one test: each iteration is ``R`` complete JUnit executions (a new instance,
  ``@BeforeEach``/``@AfterEach`` and the test's extensions, as JUnit runs them), ``R`` calibrated to the
  iteration time; Jupiter tests are timed by the body of the test method only, JUnit 4 tests (vintage engine) by
  the whole execution. A test that fails is a failed fork with JUnit's message; a disabled test, or one whose
  assumption fails, a skipped one. So is a test that touches the network: the fork's first, untimed execution runs
  under the launcher's network guard (a Security Manager that refuses any other host than this machine, removed
  before anything is timed), and a request for another host skips the test with what it asked for. JDK 18-23 need
  ``-Djava.security.manager=allow`` for that (prepare notes it for the forks); JDK 24 and later have no Security
  Manager, and their tests run unscreened (the launcher says so on stderr).

Suite options: ``java`` (the java launcher), ``test_classes`` and ``classes`` (the compiled folders, relative to
the suite's path; default Maven's ``target/test-classes`` and ``target/classes``), ``invocations`` (``true``: each
invocation of a test template and dynamic test of a factory is a benchmark too). The default build is
``mvn -q -B test-compile`` (:data:`benchwarden.adapters.DEFAULT_BUILDS`).
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
from pathlib import Path

from benchwarden.adapters.asv import TAIL_LINES, WorkerFork
from benchwarden.adapters.base import ForkPlan, PreparedSuite, SuiteContext, fork_jvm_arguments
from benchwarden.adapters.jmh import java_executable, java_version
from benchwarden.adapters.process import ManagedProcess, capture, require_tool, run_build
from benchwarden.errors import ConfigError, ForkFailed, ListingFailed, option_error
from benchwarden.model import Benchmark, BenchmarkId

DEFAULT_TEST_CLASSES = "target/test-classes"
DEFAULT_CLASSES = "target/classes"
#: where prepare leaves the resolved classpath for listing and forks (also on cluster workers: a shared folder)
BUILD_DIR = Path(".benchwarden") / "build" / "junit"
LISTING_TIMEOUT_S = 180.0
RESOLVE_TIMEOUT_S = 600.0
MAIN_CLASS = "io.benchwarden.junit.Main"
#: the launcher's own JVM arguments for the suite's Java (:func:`launcher_jvm_arguments`), one per line
LAUNCHER_ARGS = "launcher-jvm-args.txt"
_MAVEN_HINT = "install Maven (apt-get install maven): it resolves the project's test classpath"
_ENGINE_JAR = re.compile(r"junit-platform-engine-(\d+\.\d+(?:\.\d+)?(?:-[\w.]+)?)\.jar$")
_LAUNCHER_JAR = re.compile(r"junit-platform-launcher-[\w.-]+\.jar$")


class JunitAdapter:
    """Adapter for ``kind = "junit"`` suites (Maven projects with JUnit 5, or JUnit 4 through the vintage engine)."""

    kind = "junit"

    def prepare(self, ctx: SuiteContext) -> PreparedSuite:
        """Build the tests, resolve their classpath and a matching JUnit launcher, build benchwarden's launcher."""
        from benchwarden.helpers.build import junit_launcher_jar

        java = java_executable(ctx)
        if not (ctx.root / "pom.xml").is_file():
            raise ConfigError(f"{ctx.root} has no pom.xml: the junit adapter supports Maven projects (Gradle: not "
                              "yet, docs/code-level.md)", key=f"suites.{ctx.name}.path")
        mvn = require_tool("mvn", ctx.name, _MAVEN_HINT)
        if ctx.build:  # the configuration's default is `mvn -q -B test-compile`; None: built already
            run_build(ctx.build, ctx.root, ctx.name, env=ctx.env)
        out = ctx.root / BUILD_DIR
        out.mkdir(parents=True, exist_ok=True)
        _resolve(ctx, [mvn, "-q", "-B", "dependency:build-classpath", "-Dmdep.includeScope=test",
                       f"-Dmdep.outputFile={out / 'dependencies.txt'}"], "the test classpath")
        jars = [p for p in (out / "dependencies.txt").read_text(encoding="utf-8").strip().split(":") if p]
        platform = platform_version(jars)
        if platform is None:
            raise ListingFailed(f"suite '{ctx.name}': no junit-platform-engine on the project's test classpath: "
                                "does it use JUnit 5 (or JUnit 4 with the vintage engine)?")
        if not any(_LAUNCHER_JAR.search(Path(j).name) for j in jars):
            _resolve(ctx, [mvn, "-q", "-B", "dependency:copy",
                           f"-Dartifact=org.junit.platform:junit-platform-launcher:{platform}",
                           f"-DoutputDirectory={out / 'launcher'}"], f"junit-platform-launcher {platform}")
            jars += [str(p) for p in sorted((out / "launcher").glob("junit-platform-launcher-*.jar"))]
        classpath = [str(compiled_folder(ctx, "test_classes", DEFAULT_TEST_CLASSES)),
                     str(compiled_folder(ctx, "classes", DEFAULT_CLASSES)), *jars, str(junit_launcher_jar())]
        (out / "classpath.txt").write_text("\n".join(classpath) + "\n", encoding="utf-8")
        version = java_version(java, ctx.env)
        (out / LAUNCHER_ARGS).write_text("".join(f"{a}\n" for a in launcher_jvm_arguments(version)), encoding="utf-8")
        return PreparedSuite(toolchain={"java": version, "junit-platform": platform})

    def list_benchmarks(self, ctx: SuiteContext) -> list[Benchmark]:
        """Every test method the JUnit Platform discovers in the test classes."""
        argv = [java_executable(ctx), "-cp", _classpath(ctx), MAIN_CLASS, "list",
                *(["--invocations"] if invocations_option(ctx) else []),
                str(compiled_folder(ctx, "test_classes", DEFAULT_TEST_CLASSES))]
        try:
            done = capture(argv, cwd=ctx.root, env=ctx.env, timeout_s=LISTING_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise ListingFailed(f"suite '{ctx.name}': discovering the JUnit tests took longer than "
                                f"{LISTING_TIMEOUT_S:.0f}s") from None
        for line in done.stdout.splitlines():
            if line.startswith('{"v":'):
                return benchmarks_from_listing(ctx.name, line)
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-20:])
        raise ListingFailed(f"suite '{ctx.name}': benchwarden's JUnit launcher printed no test listing "
                            f"(exit status {done.returncode})\n{tail}")

    def start_fork(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> WorkerFork:
        """One fresh JVM running the test for up to ``plan.max_iterations`` iterations."""
        try:
            process = ManagedProcess(fork_argv(ctx, benchmark, plan), cwd=ctx.root, env={**ctx.env, **plan.env}, merge_stderr=False,
                                     tail_lines=TAIL_LINES)
        except OSError as exc:
            raise ForkFailed(str(benchmark.id), "crashed", f"cannot start java: {exc}") from None
        return WorkerFork(process, str(benchmark.id), plan, plan.iteration_timeout_s,
                          skip_detail=lambda reason: reason)


def fork_argv(ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> list[str]:
    """The launcher's command line for one fork: ``run UNIQUE_ID ITERATION_NS MAX_ITERATIONS`` on a fresh JVM.  Each
    line it prints is one iteration, ``{"v":1,"iteration":k,"ns_per_op":..,"timed":"body"|"execution",..}``."""
    return [java_executable(ctx), *_launcher_arguments(ctx), host_name_argument(),
            *fork_jvm_arguments(tuple(ctx.jvm_args), tuple(plan.jvm_args)), "-cp", _classpath(ctx), MAIN_CLASS, "run",
            benchmark.spec["unique_id"], str(max(1, round(plan.iteration_time_s * 1e9))), str(plan.max_iterations)]


def invocations_option(ctx: SuiteContext) -> bool:
    """``invocations = true``: each invocation of a test template and each dynamic test of a factory is a
    benchmark too (listing runs the templates once, bodies and lifecycle skipped, to name them)."""
    value = ctx.options.get("invocations", False)
    if not isinstance(value, bool):
        raise option_error(f"expected true or false, got {value!r}", f"suites.{ctx.name}.invocations")
    return value


def invocation_name(template: str, template_id: str, unique_id: str) -> str | None:
    """``Class#method(Types)[2]`` for the second invocation of a template, ``[1/3]`` for the third test of a
    factory's first dynamic container: the template's name and the invocation's position in JUnit's unique id
    (pure; None when the id is not below the template's)."""
    if not unique_id.startswith(template_id + "/"):
        return None
    numbers = re.findall(r"\[[a-z-]+:#(\d+)\]", unique_id[len(template_id):])
    return f"{template}[{'/'.join(numbers)}]" if numbers else None


def benchmarks_from_listing(suite: str, line: str) -> list[Benchmark]:
    """The launcher's listing line as benchmarks (pure): one per test method, in discovery order, then one per test
    template (the template's invocations are its operation), then, when listed (``invocations``), one per
    invocation of a template or dynamic test of a factory, each after its template."""
    try:
        data = json.loads(line)
    except ValueError:
        raise ListingFailed(f"suite '{suite}': the JUnit launcher's listing is not JSON: {line[:200]!r}") from None
    if data.get("v") != 1 or not isinstance(data.get("tests"), list) or \
            not isinstance(data.get("templates", []), list) or not isinstance(data.get("invocations", []), list):
        if "error" in data:
            raise ListingFailed(f"suite '{suite}': {data['error']}\n{data.get('traceback', '')}".rstrip())
        raise ListingFailed(f"suite '{suite}': malformed listing from the JUnit launcher: {line[:200]!r}")
    benchmarks, seen = [], set()
    for entry in [*data["tests"], *data.get("templates", [])]:
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("name", "unique_id")):
            raise ListingFailed(f"suite '{suite}': malformed test entry from the JUnit launcher: {entry!r}")
        name = entry["name"]
        if name in seen:  # the same method through two engines or two classpath roots: the first one counts
            continue
        seen.add(name)
        benchmarks.append(Benchmark(BenchmarkId(suite, name), mode="avgt", unit="ns/op",
                                    spec={"unique_id": entry["unique_id"], "engine": str(entry.get("engine", ""))}))
    templates = {b.spec["unique_id"]: b for b in benchmarks}
    below: dict[str, list[Benchmark]] = {}  # a template's unique id -> its invocations, in JUnit's order
    for entry in data.get("invocations", []):
        template = templates.get(str(entry.get("template"))) if isinstance(entry, dict) else None
        name = None
        if template is not None and all(isinstance(entry.get(k), str) for k in ("unique_id", "display")):
            name = invocation_name(template.id.name, entry["template"], entry["unique_id"])
        if template is None or name is None or name in seen:
            raise ListingFailed(f"suite '{suite}': malformed invocation entry from the JUnit launcher: {entry!r}")
        seen.add(name)
        below.setdefault(entry["template"], []).append(Benchmark(
            BenchmarkId(suite, name), mode="avgt", unit="ns/op",
            spec={**template.spec, "unique_id": entry["unique_id"], "display": entry["display"]}))
    return [x for b in benchmarks for x in (b, *below.get(b.spec["unique_id"], ()))]


def launcher_jvm_arguments(java_version: str) -> list[str]:
    """The JVM arguments the launcher's network guard needs on this Java (pure): ``-Djava.security.manager=allow``
    on JDK 18-23, where a Security Manager is off unless allowed; none before (allowed by default) or from 24 on
    (JEP 486: no Security Manager, and the JVM refuses to start with that option) or for an unreadable version."""
    match = re.match(r"(\d+)(?:\.(\d+))?", java_version)
    if match is None:
        return []
    major = int(match.group(2) or 0) if match.group(1) == "1" else int(match.group(1))  # "1.8.0_402" is Java 8
    return ["-Djava.security.manager=allow"] if 18 <= major <= 23 else []


def host_name_argument() -> str:
    """This machine's name for the network guard (``NetworkGuard.HOST_NAME_PROPERTY``): the kernel's host name, read
    where the fork runs and not resolved — the JVM's ``InetAddress.getLocalHost()`` resolves it, which costs a DNS
    timeout in every fork where the name does not resolve."""
    return f"-Dbenchwarden.hostname={socket.gethostname()}"


def platform_version(classpath: list[str]) -> str | None:
    """The JUnit Platform version of a test classpath: that of its ``junit-platform-engine`` jar (pure)."""
    for entry in classpath:
        match = _ENGINE_JAR.search(Path(entry).name)
        if match:
            return match.group(1)
    return None


def _resolve(ctx: SuiteContext, argv: list[str], what: str) -> None:
    try:
        done = capture(argv, cwd=ctx.root, env=ctx.env, timeout_s=RESOLVE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ListingFailed(f"suite '{ctx.name}': Maven did not resolve {what} within {RESOLVE_TIMEOUT_S:.0f}s") \
            from None
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-20:])
        raise ListingFailed(f"suite '{ctx.name}': Maven could not resolve {what} (`{' '.join(argv)}`, exit status "
                            f"{done.returncode})\n{tail}")


def _launcher_arguments(ctx: SuiteContext) -> list[str]:
    """The launcher's own JVM arguments, as prepare chose them for the suite's Java (none if prepared before)."""
    try:
        return (ctx.root / BUILD_DIR / LAUNCHER_ARGS).read_text(encoding="utf-8").split()
    except OSError:
        return []


def _classpath(ctx: SuiteContext) -> str:
    path = ctx.root / BUILD_DIR / "classpath.txt"
    try:
        entries = [line for line in path.read_text(encoding="utf-8").splitlines() if line]
    except OSError:
        raise ListingFailed(f"suite '{ctx.name}': {path} is missing: the suite was not prepared (built) here") \
            from None
    return ":".join(entries)


def compiled_folder(ctx: SuiteContext, option: str, default: str) -> Path:
    """A compiled-classes folder of the suite (``test_classes`` or ``classes``), resolved; ConfigError if misnamed."""
    value = ctx.options.get(option, default)
    if not isinstance(value, str) or not value:
        raise option_error("expected a folder, relative to the suite's path", f"suites.{ctx.name}.{option}")
    return (ctx.root / value).resolve()
