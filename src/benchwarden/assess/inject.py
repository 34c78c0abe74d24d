"""One injector per language behind a small protocol: the suite variant that runs slowed, or traced.

* JMH: an extra ``-javaagent:benchwarden-agent.jar=...`` benchmark-JVM argument (the agent, java/agent);
* JUnit (unit tests as workloads): the same agent, on each test fork's JVM;
* Go: a rewritten temporary copy of the module (the rewriter, go/rewriter), the suite re-rooted there;
* Python (asv): the ``BENCHWARDEN_INJECT`` environment variable, honoured by the asv worker's import hook.

A variant is a :class:`~benchwarden.config.Suite`, so the ordinary runner runs it. Tracing also names
what each fork needs (its own output directory) and, when known, how to trace the project's own tests.
Every helper writes versioned JSON lines; reading them is here, statistics are elsewhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping, Protocol, Sequence, cast

from benchwarden.adapters.asv import WORKER_PATH, resolve_suite
from benchwarden.adapters.jmh import artifact_path
from benchwarden.adapters.junit import DEFAULT_CLASSES, DEFAULT_TEST_CLASSES, compiled_folder
from benchwarden.config import Suite
from benchwarden.errors import BenchwardenError, ConfigError
from benchwarden.helpers import build as helpers
from benchwarden.model import Benchmark
from benchwarden.revisions import RevisionError, repository_root

INJECT_ENV = "BENCHWARDEN_INJECT"
#: Read by a Go switchable build when it starts: "switch:factor" items (go/rewriter/slowdown.go, SwitchEnv)
SLOW_ENV = "BENCHWARDEN_SLOW"
TRACE_DIR_ENV = "BENCHWARDEN_TRACE_DIR"


class InjectionFailed(BenchwardenError):
    """A slowdown or trace could not be injected (method not found, rewriter error...)."""


@dataclass(frozen=True)
class Variant:
    """A suite that runs with ``methods`` slowed (one, or a group for an injector that ``groups``);
    ``report`` is the helper's JSON-lines report, if any."""

    suite: Suite
    methods: tuple[str, ...]
    report: Path | None = None
    #: The variant is its control's build with only its environment changed (Go's switchable build), so the
    #: control's plan serves it: nothing to build or list again.
    same_build: bool = False

    @property
    def label(self) -> str:
        return ", ".join(self.methods)


@dataclass(frozen=True)
class Control:
    """The suite the baselines run (:meth:`Injector.control`); ``label`` names what it loads (stored with the
    baseline runs, so only runs of the same control are reused), None for the plain suite."""

    suite: Suite
    label: str | None = None
    #: A build with a switch per method (Go: :data:`SLOW_ENV`), method -> its switch; a slowed variant is then
    #: this suite with switches on. Empty: variants are built apart (or need no build).
    switches: Mapping[str, int] = field(default_factory=dict)
    #: What the baselines run instead when this control cannot be built (Go: the plain suite, with a build per
    #: variant); None when there is nothing else to fall back on.
    fallback: "Control | None" = None


@dataclass(frozen=True)
class TestRun:
    argv: tuple[str, ...]
    cwd: Path
    env: Mapping[str, str]


@dataclass(frozen=True)
class Tracing:
    """A suite variant whose forks count calls; ``fork_extras(out_dir)`` = (extra JVM args, extra env)."""

    suite: Suite
    fork_extras: Callable[[Path], tuple[tuple[str, ...], dict[str, str]]]
    read: Callable[[Path], dict[str, int]]
    test_run: Callable[[Path], TestRun | None] = field(default=lambda out: None)


class Injector(Protocol):
    kind: str
    #: Whether one variant can slow several methods at once (``slowed`` with more than one method), which
    #: ``assess`` uses for methods no benchmark reaches together (group testing). Worth it only where preparing
    #: a variant costs something: Go (a module copy and a compile per variant). For the agent and the asv hook a
    #: variant is one argument or environment variable, and every (method, benchmark) pair needs its own forks
    #: whether grouped or not, so they slow one method per variant.
    groups: bool
    #: Whether the control is one build of every assessed method with a switch each (Go), so that the methods
    #: must be known (traced) before the baselines run; the others' control loads the helper, whatever is slowed.
    switchable: bool

    def default_packages(self, suite: Suite, benchmarks: Sequence[Benchmark]) -> list[str]: ...

    def control(self, suite: Suite, methods: Sequence[str] = (), workdir: Path | None = None) -> Control:
        """The suite as its baselines run: the helper loaded as in a slowed variant, nothing slowed (an A/A
        control, docs/assess.md).  Go: one rewritten build of every one of ``methods`` with each slowdown
        switched off, built in ``workdir``, which every slowed variant then shares.  Where nothing is loaded at
        run time (Python's hook wraps the one target), the suite itself, with ``label`` None."""
        ...

    def slowed(self, suite: Suite, methods: Sequence[str], factor: float, workdir: Path,
               control: Control | None = None) -> Variant:
        """``suite`` with ``methods`` slowed by ``factor``; from ``control``'s build when it has their switches."""
        ...

    def tracing(self, suite: Suite, packages: Sequence[str], workdir: Path,
                test_command: Sequence[str] | None, every_method: bool = False) -> Tracing:
        """Count calls of the public methods in ``packages`` (``every_method``: of every method and constructor,
        private ones included, as affected-benchmark selection needs; Python then also records each source file
        of the repository that a process imported, as ``file:<repository path>``)."""
        ...


def read_jsonl_traces(out_dir: Path) -> dict[str, int]:
    """Sum ``{"v":1,"method":m,"calls":n}`` lines over every ``trace-*.jsonl`` in ``out_dir`` (one per process)."""
    counts: dict[str, int] = {}
    for path in sorted(out_dir.glob("trace-*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                if row.get("v") != 1:
                    raise ValueError(f"unknown protocol version {row.get('v')!r}")
                counts[str(row["method"])] = counts.get(str(row["method"]), 0) + int(row["calls"])
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise InjectionFailed(f"{path}:{number}: not a trace line: {exc}") from None
    return counts


def report_events(path: Path | None) -> list[dict]:
    if path is None or not path.is_file():
        return []
    events = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    return events


def instrumentation_error(variant: Variant) -> str | None:
    """None if the helper's report shows the method was instrumented, else why not (for the ABS report)."""
    if variant.report is None:
        return None
    events = report_events(variant.report)
    if any(e.get("event") == "instrumented" and e.get("methods") for e in events):
        return None
    errors = [str(e.get("message")) for e in events if e.get("event") == "error"]
    if errors:
        return f"{variant.label}: injection failed: {errors[0]}"
    return f"{variant.label}: no such method was loaded while the benchmarks ran (check the name)"


@dataclass(frozen=True)
class InjectionPrecision:
    """How precisely v was injected into one method, from the helpers' ``activations`` report lines.

    A busy wait ends up to one clock read late, and ``clock_ns`` (one clock read on this machine, measured
    by the helper at start) was 24-184 ns on the machines of issue #20. An activation whose wait was under
    5 clock reads is *short*: its slowdown may be off by more than 20 %. ``precise`` is False when more than
    half of the activations were short. The Go rewriter reports nothing (Go has no exit hook): None.
    """

    activations: int
    short: int
    mean_elapsed_ns: float
    clock_ns: float

    @property
    def short_fraction(self) -> float:
        return self.short / self.activations if self.activations else 0.0

    @property
    def precise(self) -> bool:
        return self.short_fraction <= 0.5


def injection_precision(variant: Variant) -> InjectionPrecision | None:
    """The ``activations`` lines of every process that ran the variant, pooled; None if there are none."""
    if variant.report is None:
        return None
    lines = [e for e in report_events(variant.report) if e.get("event") == "activations"]
    try:
        n = sum(int(e["activations"]) for e in lines)
        if not lines or n == 0:
            return None
        return InjectionPrecision(
            activations=n, short=sum(int(e["short"]) for e in lines),
            mean_elapsed_ns=sum(float(e["mean_elapsed_ns"]) * int(e["activations"]) for e in lines) / n,
            clock_ns=max(float(e["clock_ns"]) for e in lines))
    except (KeyError, TypeError, ValueError):
        return None  # a helper of another version: no estimate rather than a wrong one


def precision_note(method: str, slowdown: float, p: InjectionPrecision) -> str:
    """The warning for a method whose activations were mostly too short for a ±20 % injection."""
    return (f"{method}: {p.short_fraction:.0%} of its {p.activations} slowed calls were too short for a precise "
            f"injection (mean {p.mean_elapsed_ns:.0f} ns; v = {slowdown:.0%} of that is under 5 clock reads of "
            f"{p.clock_ns:.0f} ns on this machine): the slowdown injected may be off by more than 20 %")


#: What a slowdown times each call by and waits on ([assess] wait_clock, docs/assess.md "Which clock").
WAIT_CLOCKS = ("wall", "cpu")


def check_wait_clock(clock: str, suite: Suite) -> str:
    """``clock`` if ``suite`` can be slowed on it, else ConfigError naming why.

    Every helper waits ``v ×`` each call's duration.  On the wall clock (the default) a call preempted part-way on
    a loaded machine is charged the lost slice and repays it as burnt CPU, which a suite measured in CPU time sees
    as more than ``v``; on the CPU clock the call is timed and repaid in CPU time.  A CPU-clock read is a system
    call (~1.3 µs on the 2-core VM, against ~25 ns for the wall clock), so the probe costs ~2.5 reads per call and
    short calls cannot be slowed precisely.  Only a suite measured in CPU time may use it (in wall time a call
    that sleeps would not be slowed), and only the Java agent and the Python hook have it: a Go prototype cost the
    wall-clock path its precision (docs/assess.md, "Which clock")."""
    if clock not in WAIT_CLOCKS:
        raise ConfigError(f"wait_clock: expected one of {', '.join(WAIT_CLOCKS)}, got {clock!r}")
    if clock == "cpu" and suite.settings.metric != "cpu":
        raise ConfigError(f"wait_clock = \"cpu\" is for suites measured in CPU time (metric = \"cpu\"); suite "
                          f"'{suite.name}' measures {suite.settings.metric}, where a call's sleeps must be slowed too")
    if clock == "cpu" and suite.kind == "go":
        raise ConfigError(f"wait_clock = \"cpu\" is not available for Go suites (suite '{suite.name}'): the Go "
                          "rewriter waits on the wall clock only (docs/assess.md, \"Which clock\")")
    return clock


def _one(methods: Sequence[str], kind: str) -> str:
    if len(methods) != 1:
        raise ValueError(f"the {kind} injector slows one method per variant, not {len(methods)}")
    return methods[0]


def _no_spaces(path: Path, what: str) -> str:
    text = str(path)
    if " " in text or ";" in text:
        raise InjectionFailed(f"{what} {text!r} contains a space or ';', which a -javaagent argument cannot carry")
    return text


# ----------------------------------------------------------------------------------------------- JMH


class JmhInjector:
    """The agent as an extra benchmark-JVM argument (JMH passes it with ``-jvmArgsAppend``)."""

    kind = "jmh"
    groups = False
    switchable = False

    def __init__(self, jar: Callable[[], Path] = helpers.agent_jar, clock: str = "wall"):
        self._jar = jar
        self.clock = clock  # what the slowed JVMs time and wait on (check_wait_clock); their control loads the same

    def default_packages(self, suite: Suite, benchmarks: Sequence[Benchmark]) -> list[str]:
        """Packages of the jar's classes except JMH's own, generated ones, and the benchmark classes' packages."""
        jar = artifact_path(suite.context)
        bench_packages = {b.id.name.rsplit(".", 2)[0] for b in benchmarks if b.id.name.count(".") >= 2}
        packages = set()
        with zipfile.ZipFile(jar) as zf:
            for name in zf.namelist():
                if not name.endswith(".class") or "/" not in name or "$" in name.rsplit("/", 1)[-1]:
                    continue
                package = name.rsplit("/", 1)[0].replace("/", ".")
                if package.startswith(("org.openjdk.jmh", "META-INF")) or "jmh_generated" in package:
                    continue
                packages.add(package)
        return sorted(p for p in packages - bench_packages if not any(p.startswith(b + ".") for b in bench_packages))

    def control(self, suite: Suite, methods: Sequence[str] = (), workdir: Path | None = None) -> Control:
        """The agent in ``mode=control``: its start-up and a class transformer, no method instrumented.  The build is
        kept: the baselines run first and build the artifact."""
        jar = _no_spaces(self._jar(), "agent jar")
        ctx = suite.context
        # the slowed JVMs' clock too: a CPU-clock agent loads java.management, so its control does as well
        clock = self.clock
        arg, label = ("mode=control", "agent mode=control") if clock == "wall" else (
            f"mode=control;clock={clock}", f"agent mode=control clock={clock}")
        return Control(replace(suite, context=replace(ctx, jvm_args=tuple(ctx.jvm_args) + (f"-javaagent:{jar}={arg}",))),
                       label)

    def slowed(self, suite: Suite, methods: Sequence[str], factor: float, workdir: Path,
               control: Control | None = None) -> Variant:
        method = _one(methods, self.kind)
        workdir.mkdir(parents=True, exist_ok=True)
        report = workdir / "agent-report.jsonl"
        report.unlink(missing_ok=True)
        jar = _no_spaces(self._jar(), "agent jar")
        clock = "" if self.clock == "wall" else f"clock={self.clock};"  # the wall clock: the argument as before
        agent = (f"-javaagent:{jar}=mode=slowdown;method={method};factor={factor!r};{clock}"
                 f"report={_no_spaces(report, 'report')}")
        ctx = suite.context
        built = replace(ctx, jvm_args=tuple(ctx.jvm_args) + (agent,), build=self._build_if_missing(suite))
        return Variant(replace(suite, context=built), (method,), report)

    def tracing(self, suite: Suite, packages: Sequence[str], workdir: Path,
                test_command: Sequence[str] | None, every_method: bool = False) -> Tracing:
        jar = _no_spaces(self._jar(), "agent jar")

        def agent(out_dir: Path) -> str:
            out_dir.mkdir(parents=True, exist_ok=True)
            every = ";methods=all" if every_method else ""
            return (f"-javaagent:{jar}=mode=trace;packages={','.join(packages)};"
                    f"out={_no_spaces(out_dir, 'trace dir')}{every}")

        ctx = suite.context
        traced = replace(suite, context=replace(ctx, build=self._build_if_missing(suite)))

        def test_run(out_dir: Path) -> TestRun | None:
            argv = tuple(test_command) if test_command else (
                ("mvn", "-q", "-B", "test") if (ctx.root / "pom.xml").is_file() and (ctx.root / "src" / "test").is_dir()
                else None)
            if argv is None:
                return None
            existing = os.environ.get("JAVA_TOOL_OPTIONS", "")
            return TestRun(argv, ctx.root, {**ctx.env, "JAVA_TOOL_OPTIONS": f"{existing} {agent(out_dir)}".strip()})

        return Tracing(traced, lambda out: (tuple(ctx.jvm_args) + (agent(out),), {}), read_jsonl_traces, test_run)


    @staticmethod
    def _build_if_missing(suite: Suite) -> tuple[str, ...] | None:
        """Keep the build only if the artifact is not there yet (the baseline runs built it already)."""
        try:
            artifact_path(suite.context)
            return None
        except BenchwardenError:
            return suite.context.build


# ----------------------------------------------------------------------------------------------- JUnit


class JunitInjector(JmhInjector):
    """Unit tests as workloads (issue #16): the same agent, as an extra argument of each test fork's JVM (the junit
    adapter passes the suite's ``jvm_args``); the project's own tests are traced as for JMH (``mvn test``)."""

    kind = "junit"

    def default_packages(self, suite: Suite, benchmarks: Sequence[Benchmark]) -> list[str]:
        """Packages of the project's main classes (the code under test: ``classes``, default target/classes)."""
        classes = compiled_folder(suite.context, "classes", DEFAULT_CLASSES)
        return sorted({path.parent.relative_to(classes).as_posix().replace("/", ".")
                       for path in classes.rglob("*.class") if path.parent != classes})

    @staticmethod
    def _build_if_missing(suite: Suite) -> tuple[str, ...] | None:
        """Keep the build only if the compiled classes are not there yet (the baseline runs compiled them)."""
        ctx = suite.context
        built = all(compiled_folder(ctx, option, default).is_dir()
                    for option, default in (("classes", DEFAULT_CLASSES), ("test_classes", DEFAULT_TEST_CLASSES)))
        return None if built else ctx.build


# ----------------------------------------------------------------------------------------------- Go


def module_root(start: Path) -> Path:
    """The nearest directory at or above ``start`` holding go.mod; ConfigError if there is none."""
    for directory in (start, *start.parents):
        if (directory / "go.mod").is_file():
            return directory
    raise ConfigError(f"no go.mod at or above {start}: a Go suite must be inside a Go module")


def copy_module(suite: Suite, dest: Path) -> Suite:
    """Copy the suite's module to ``dest`` (without .git and benchwarden's build output); the suite re-rooted there."""
    root = module_root(suite.context.root)
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(root, dest, symlinks=True, ignore=shutil.ignore_patterns(".git", ".benchwarden"))
    rel = suite.context.root.relative_to(root)
    return replace(suite, context=replace(suite.context, root=dest / rel))


def run_rewriter(args: Sequence[str], what: str) -> dict:
    binary = helpers.rewriter_binary()
    done = subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise InjectionFailed(f"{what}: {done.stderr.strip() or done.stdout.strip()}")
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise InjectionFailed(f"{what}: the rewriter printed {done.stdout!r}, not a JSON line") from None


def read_go_counts(index: Path, out_dir: Path) -> dict[str, int]:
    """Counts from the rewriter's index and the shared counts files (native-endian uint64 per slot)."""
    counts: dict[str, int] = {}
    for line in index.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        data = (out_dir / entry["file"]).read_bytes() if (out_dir / entry["file"]).is_file() else b""
        offset = 8 * int(entry["slot"])
        value = int.from_bytes(data[offset:offset + 8], sys.byteorder) \
            if len(data) >= offset + 8 else 0
        counts[entry["method"]] = counts.get(entry["method"], 0) + value
    return counts


class GoInjector:
    kind = "go"
    groups = True
    switchable = True

    def __init__(self, clock: str = "wall"):
        if clock != "wall":
            raise ConfigError("the Go rewriter waits on the wall clock only (check_wait_clock)")
        self.clock = clock

    def default_packages(self, suite: Suite, benchmarks: Sequence[Benchmark]) -> list[str]:
        return ["all"]

    def control(self, suite: Suite, methods: Sequence[str] = (), workdir: Path | None = None) -> Control:
        """One rewritten copy of the module with every function of ``methods`` probed and switched off
        (``rewrite -switchable``): the baselines and every slowed variant run this one build, so a variant differs
        from its control only by its waits, not by code layout (a separately compiled variant ran an untouched
        benchmark 9 % faster than the plain build once: docs/assess.md). Its label names the methods, so stored
        baselines are reused only for the same K′ and rewriter. InjectionFailed when the copy cannot be rewritten
        (the campaign then runs the plain suite, a build per variant); ``fallback`` is the plain suite, for when
        the copy does not build."""
        plain = Control(suite)
        if not methods or workdir is None:
            return plain
        copy = copy_module(suite, workdir / "module")
        funcs = [arg for method in methods for arg in ("-func", method)]
        done = run_rewriter(["-dir", str(module_root(copy.context.root)), *funcs, "-switchable"],
                            f"probing {len(methods)} functions")
        switches = {method: int(entry["switch"]) for method, entry in zip(methods, done["functions"])}
        # the rewriter's own version too (its build folder is named by the hash of its sources): baselines of a
        # build whose probes differ are not this control's
        version = helpers.rewriter_binary().parent.name
        digest = hashlib.sha256("\n".join([version, *methods]).encode()).hexdigest()[:16]
        env = {k: v for k, v in copy.context.env.items() if k != SLOW_ENV}
        control = replace(copy, context=replace(copy.context, env=env))
        return Control(control, f"rewriter -switchable {len(methods)} functions {digest}", switches, plain)

    def slowed(self, suite: Suite, methods: Sequence[str], factor: float, workdir: Path,
               control: Control | None = None) -> Variant:
        """The control's switchable build with the switches of ``methods`` on (no build), when the control has
        them; else one rewritten, separately compiled copy of the module with every function of ``methods``
        slowed."""
        if control is not None and control.switches and all(m in control.switches for m in methods):
            ctx = control.suite.context
            on = ",".join(f"{control.switches[m]}:{factor!r}" for m in methods)
            return Variant(replace(control.suite, context=replace(ctx, env={**ctx.env, SLOW_ENV: on})),
                           tuple(methods), None, same_build=True)
        copy = copy_module(suite, workdir / "module")
        funcs = [arg for method in methods for arg in ("-func", method)]
        run_rewriter(["-dir", str(module_root(copy.context.root)), *funcs, "-factor", repr(factor)],
                     f"slowing {', '.join(methods)}")
        return Variant(copy, tuple(methods), None)

    def tracing(self, suite: Suite, packages: Sequence[str], workdir: Path,
                test_command: Sequence[str] | None, every_method: bool = False) -> Tracing:
        copy = copy_module(suite, workdir / "module")
        index = workdir / "trace-index.jsonl"
        args = ["-dir", str(module_root(copy.context.root)), "-index", str(index)]
        if every_method:
            args.append("-all-functions")
        for package in packages or ["all"]:
            args += ["-trace", package]
        run_rewriter(args, "tracing " + ", ".join(packages or ["all"]))

        def extras(out_dir: Path) -> tuple[tuple[str, ...], dict[str, str]]:
            out_dir.mkdir(parents=True, exist_ok=True)
            return (), {TRACE_DIR_ENV: str(out_dir)}

        def test_run(out_dir: Path) -> TestRun:
            out_dir.mkdir(parents=True, exist_ok=True)
            argv = tuple(test_command) if test_command else ("go", "test", "-count=1", "./...")
            return TestRun(argv, module_root(copy.context.root), {**copy.context.env, TRACE_DIR_ENV: str(out_dir)})

        return Tracing(copy, extras, lambda out: read_go_counts(index, out), test_run)


# ----------------------------------------------------------------------------------------------- Python

_SITECUSTOMIZE = '''"""Written by benchwarden assess: installs the asv worker's trace hook in every interpreter."""
import importlib.util as _u
_spec = _u.spec_from_file_location("_benchwarden_inject", {worker!r})
_mod = _u.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
_mod.install_injection_from_env()
'''
_NOT_LIBRARY = {"benchmarks", "tests", "test", "setup", "conftest", "docs", "examples", "build", "dist"}


class PythonInjector:
    kind = "python"
    groups = False
    switchable = False

    def __init__(self, clock: str = "wall"):
        self.clock = clock  # the hook's "clock" (check_wait_clock)

    def default_packages(self, suite: Suite, benchmarks: Sequence[Benchmark]) -> list[str]:
        """Top-level modules and packages in the suite's ``pythonpath`` dirs, except the benchmarks and tests."""
        ctx = suite.context
        bench_dir = resolve_suite(ctx).benchmark_dir
        configured = ctx.options.get("pythonpath") or ["."]
        dirs: list[str] = [configured] if isinstance(configured, str) else [str(d) for d in cast(list, configured)]
        found = set()
        for d in dirs:
            base = (ctx.root / d).resolve()
            for entry in sorted(base.iterdir()) if base.is_dir() else []:
                name = entry.stem if entry.suffix == ".py" else entry.name
                if entry.resolve() == bench_dir or name in _NOT_LIBRARY or name.startswith(("_", ".")):
                    continue
                if (entry.is_dir() and (entry / "__init__.py").is_file()) or (entry.is_file() and entry.suffix == ".py"):
                    found.add(name)
        return sorted(found)

    def control(self, suite: Suite, methods: Sequence[str] = (), workdir: Path | None = None) -> Control:
        return Control(suite)

    def slowed(self, suite: Suite, methods: Sequence[str], factor: float, workdir: Path,
               control: Control | None = None) -> Variant:
        method = _one(methods, self.kind)
        workdir.mkdir(parents=True, exist_ok=True)
        report = workdir / "hook-report.jsonl"
        report.unlink(missing_ok=True)
        spec = {"v": 1, "mode": "slowdown", "target": method, "factor": factor, "report": str(report)}
        if self.clock != "wall":  # the hook's default
            spec["clock"] = self.clock
        ctx = suite.context
        env = {**ctx.env, INJECT_ENV: json.dumps(spec)}
        return Variant(replace(suite, context=replace(ctx, env=env)), (method,), report)

    def tracing(self, suite: Suite, packages: Sequence[str], workdir: Path,
                test_command: Sequence[str] | None, every_method: bool = False) -> Tracing:
        ctx = suite.context

        def spec(out_dir: Path) -> str:
            out_dir.mkdir(parents=True, exist_ok=True)
            # every_method is what `affected` asks for: it also needs the repository's files each process imported
            return json.dumps({"v": 1, "mode": "trace", "modules": list(packages), "out": str(out_dir),
                               **({"every_method": True, "files_under": str(_repository_of(ctx.root))}
                                  if every_method else {})})

        site = workdir / "sitecustomize"
        site.mkdir(parents=True, exist_ok=True)
        (site / "sitecustomize.py").write_text(_SITECUSTOMIZE.format(worker=str(WORKER_PATH)), encoding="utf-8")

        def test_run(out_dir: Path) -> TestRun | None:
            argv = tuple(test_command) if test_command else (
                (resolve_suite(ctx).python, "-m", "pytest", "-q", "-p", "no:cacheprovider")
                if (ctx.root / "tests").is_dir() else None)
            if argv is None:
                return None
            env = dict(resolve_suite(ctx).env)
            env["PYTHONPATH"] = os.pathsep.join([str(site)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
            env[INJECT_ENV] = spec(out_dir)
            return TestRun(argv, ctx.root, env)

        return Tracing(suite, lambda out: ((), {INJECT_ENV: spec(out)}), read_jsonl_traces, test_run)


def _repository_of(root: Path) -> Path:
    """The top of the git work tree holding ``root`` (a revision's cached worktree, or the repository), where the
    paths of ``affected``'s changed files start; ``root`` itself outside git."""
    try:
        return repository_root(root)
    except RevisionError:
        return root


INJECTORS: dict[str, Callable[..., Injector]] = {"jmh": JmhInjector, "junit": JunitInjector, "go": GoInjector,
                                                 "python": PythonInjector}


def injector_for(kind: str, clock: str = "wall") -> Injector:
    """The injector of a suite kind, slowing on ``clock`` (checked against the suite by :func:`check_wait_clock`)."""
    try:
        return INJECTORS[kind](clock=clock)
    except KeyError:
        raise ConfigError(f"suites of kind '{kind}' cannot be assessed: slowdown injection exists for "
                          f"{', '.join(sorted(INJECTORS))}") from None


_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(text: str) -> str:
    """A directory name for a method or benchmark (readable, no separators)."""
    return _SAFE.sub("_", text).strip("_")[:80] or "x"
