"""Suite detection for `benchwarden init`: find JMH, Go and asv-format Python suites in a repository, and
propose unit-test suites (JUnit tests of Maven projects, Go test functions) as workloads.

Detection reads build files with real parsers where the format has one
(pom.xml via ElementTree, jars via zipfile, asv.conf.json via json); Go and
Python sources are only scanned for the ``func Benchmark`` / ``def time_``
markers, which is enough to *suggest* a suite — the adapters do the real
listing when the suite runs.
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from xml.etree import ElementTree

from benchwarden import jsontext

SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "target", "build", ".venv", "venv", "vendor", ".benchwarden",
             "__pycache__", ".gradle", ".idea", ".tox", "dist"}
_GO_BENCH = re.compile(r"^func\s+Benchmark\w*\s*\(\s*\w+\s+\*testing\.B\s*\)", re.MULTILINE)
_PY_BENCH = re.compile(r"^\s*def\s+time_\w+\s*\(", re.MULTILINE)
_GO_TEST = re.compile(r"^func\s+Test\w*\s*\(\s*\w+\s+\*testing\.T\s*\)", re.MULTILINE)
#: a JUnit 4/5 test method (test templates such as @ParameterizedTest are not measured: docs/code-level.md)
_JUNIT_TEST = re.compile(r"^[ \t]*@(?:org\.junit\.jupiter\.api\.|org\.junit\.)?Test\b(?![\w.])", re.MULTILINE)
#: an @Benchmark annotation on a method: the annotation (possibly qualified), other annotations, then a declaration
_JMH_BENCH = re.compile(r"^[ \t]*@(?:org\.openjdk\.jmh\.annotations\.)?Benchmark[ \t]*(?:\(\s*\))?\s*"
                        r"(?:@[\w.]+(?:\([^)]*\))?\s*)*(?:(?:public|protected|private|static|final|synchronized|"
                        r"fun|def|open|override)\s+)*[\w<>\[\],.? ]*?\b\w+\s*\(", re.MULTILINE)
#: where a Maven or Gradle module keeps the benchmarks it packages (tests are not packaged into benchmarks.jar)
_BENCH_SOURCE_DIRS = ("src/main/java", "src/main/kotlin", "src/main/scala", "src/main/groovy", "src/jmh/java",
                      "src/jmh/kotlin")
_MAVEN_NS = re.compile(r"^\{[^}]*\}")


@dataclass(frozen=True)
class DetectedSuite:
    name: str
    kind: str
    path: str  # relative to the repository root, posix
    build: str | None = None
    artifact: str | None = None
    options: dict = field(default_factory=dict)
    note: str = ""
    # written commented out: unit-test suites when the repository has benchmark suites too (measuring every
    # test of a large project is long; the user opts in), and Maven reactor modules the junit adapter may not
    # resolve alone
    proposed: bool = False


def _walk(root: Path):
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        # resources are data, never projects: Maven archetypes keep template poms and benchmarks there
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")
                             and not (d == "resources" and here.name in ("main", "test")))
        yield here, filenames


def _rel(path: Path, root: Path) -> str:
    rel = path.relative_to(root).as_posix()
    return rel or "."


def _pom_uses_jmh(pom: Path) -> bool:
    try:
        tree = ElementTree.parse(pom)
    except (ElementTree.ParseError, OSError):
        return False
    for el in tree.iter():
        if el.tag.endswith("artifactId") and (el.text or "").strip() in ("jmh-core", "jmh-generator-annprocess"):
            return True
    return False


def _jar_has_benchmarks(jar: Path) -> bool:
    try:
        with zipfile.ZipFile(jar) as zf:
            return "META-INF/BenchmarkList" in zf.namelist()
    except (zipfile.BadZipFile, OSError):
        return False


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _has_benchmark_sources(module: Path) -> bool:
    """Whether the module's packaged sources declare at least one ``@Benchmark`` method (not only use JMH, as
    JMH's own generators and its core do, and not only in tests, as its integration tests do)."""
    return count_benchmark_methods(module, stop_at=1) > 0


def count_benchmark_methods(module: Path, stop_at: int | None = None) -> int:
    """``@Benchmark`` methods in the module's packaged sources (a source count: before @Param combinations)."""
    found = 0
    for sub in _BENCH_SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(module / sub):
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
            for f in filenames:
                if f.endswith((".java", ".kt", ".scala", ".groovy")):
                    found += len(_JMH_BENCH.findall(_read(Path(dirpath) / f)))
                    if stop_at is not None and found >= stop_at:
                        return found
    return found


def _pom(path: Path) -> ElementTree.Element | None:
    try:
        root = ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, OSError):
        return None
    for el in root.iter():  # drop the POM namespace: find() by plain tag names
        el.tag = _MAVEN_NS.sub("", el.tag) if isinstance(el.tag, str) else el.tag
    return root


def _reactor_root(module: Path) -> Path:
    """The outermost directory at or above ``module`` whose pom lists, module by module, a path down to
    ``module``: where Maven must run to resolve sibling modules that are not installed. It may lie above the
    directory ``init`` was pointed at (``init`` run inside a child module of a multi-module build)."""
    top, child = module, module
    for parent in module.parents:
        if not (parent / "pom.xml").is_file():
            continue  # modules may be listed by a path (<module>benches/micro</module>)
        pom = _pom(parent / "pom.xml")
        listed = {(parent / (m.text or "").strip()).resolve() for m in pom.iter("module")} if pom is not None else set()
        if child.resolve() not in listed:
            break
        top, child = parent, parent
    return top


def _maven_suite(module: Path, root: Path) -> DetectedSuite:
    """A Maven JMH module; in a multi-module build, built from the reactor root (``-pl module -am``) so the
    sibling modules it depends on are built too instead of looked up in a repository."""
    reactor = _reactor_root(module)
    jar = f"target/{_shaded_jar_name(module)}.jar"
    if reactor == module:
        build = "mvn -q -B package -DskipTests"
        note = "Maven module depending on jmh-core"
    else:
        to_root = os.path.relpath(reactor / "pom.xml", module)
        build = f"mvn -q -B -f {to_root} -pl {module.relative_to(reactor).as_posix()} -am package -DskipTests"
        where = _rel(reactor, root) if reactor.is_relative_to(root) else str(reactor)
        note = f"module of the Maven build in {where}: built from there with the modules it needs"
    return DetectedSuite(name="", kind="jmh", path=_rel(module, root), build=build, artifact=jar,
                         note=f"{note}; artifact: the shade plugin's jar (JMH's archetype layout) — adjust if yours "
                              f"differs")


def _shaded_jar_name(module: Path) -> str:
    """The shade plugin's ``finalName`` (``${property}`` resolved from this pom's or a parent's properties);
    ``benchmarks`` as in JMH's archetype when there is none."""
    pom = _pom(module / "pom.xml")
    if pom is None:
        return "benchmarks"
    names = [(el.text or "").strip() for plugin in pom.iter("plugin")
             if (plugin.findtext("artifactId") or "").strip() == "maven-shade-plugin"
             for el in plugin.iter("finalName")]
    name = names[0] if names else "benchmarks"
    match = re.fullmatch(r"\\?\$\{([\w.-]+)\}", name)
    if match:
        name = _maven_property(module, match.group(1)) or "benchmarks"
    return name


def _maven_property(module: Path, key: str) -> str | None:
    for directory in (module, *module.parents):
        pom = _pom(directory / "pom.xml") if (directory / "pom.xml").is_file() else None
        if pom is None:
            return None
        value = pom.findtext(f"properties/{key}")
        if value:
            return value.strip()
    return None


def _has_junit_tests(module: Path) -> bool:
    for dirpath, dirnames, filenames in os.walk(module / "src" / "test" / "java"):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        if any(f.endswith(".java") and _JUNIT_TEST.search(_read(Path(dirpath) / f)) for f in filenames):
            return True
    return False


#: Apache RAT (license audit, bound to ``validate`` by every Apache parent pom) fails the build on the
#: benchwarden.toml ``init`` writes, which carries no licence header (found on Apache Commons CLI)
_JUNIT_BUILD_FLAGS = "test-compile -Drat.skip"


def _junit_suite(module: Path, root: Path) -> DetectedSuite:
    reactor = _reactor_root(module)
    if reactor == module:
        return DetectedSuite(name="", kind="junit", path=_rel(module, root), build=f"mvn -q -B {_JUNIT_BUILD_FLAGS}",
                             note="Maven project with JUnit tests: each test method measured as a workload, one "
                                  "fresh JVM per fork (docs/code-level.md); -Drat.skip: a licence audit would fail "
                                  "on this file")
    to_root = os.path.relpath(reactor / "pom.xml", module)
    return DetectedSuite(name="", kind="junit", path=_rel(module, root),
                         build=f"mvn -q -B -f {to_root} -pl {module.relative_to(reactor).as_posix()} -am "
                               f"{_JUNIT_BUILD_FLAGS}",
                         note="JUnit tests of a module of a multi-module Maven build: its test classpath is "
                              "resolved in the module, so its sibling modules must be installed (mvn install) "
                              "first (docs/code-level.md)", proposed=True)


def detect_suites(root: Path) -> list[DetectedSuite]:
    """Every suite found under ``root``, in a stable order (JMH, Go, Python), then the unit-test suites
    (JUnit, Go tests): proposed (commented out) when benchmark suites were found too."""
    root = root.resolve()
    jmh: list[DetectedSuite] = []
    go_modules: dict[Path, list[str]] = {}
    python: list[DetectedSuite] = []
    junit: list[DetectedSuite] = []
    go_test_modules: dict[Path, list[str]] = {}
    for directory, files in _walk(root):
        names = set(files)
        if "pom.xml" in names and _has_junit_tests(directory):
            junit.append(_junit_suite(directory, root))
        if any(f.endswith("_test.go") and _GO_TEST.search(_read(directory / f)) for f in files):
            module = _go_module_root(directory, root)
            if module is not None and not _go_ignores(directory, module):
                pkg = "./" + directory.relative_to(module).as_posix() if directory != module else "."
                go_test_modules.setdefault(module, []).append(pkg)
        if "pom.xml" in names and _pom_uses_jmh(directory / "pom.xml") and _has_benchmark_sources(directory):
            jmh.append(_maven_suite(directory, root))
        for gradle in ("build.gradle", "build.gradle.kts"):
            if gradle in names and re.search(r"jmh", _read(directory / gradle)):
                wrapper = "./gradlew" if (directory / "gradlew").exists() else "gradle"
                jmh.append(DetectedSuite(name="", kind="jmh", path=_rel(directory, root), build=f"{wrapper} jmhJar",
                                         artifact="build/libs/benchmarks-jmh.jar",
                                         note="Gradle JMH plugin: set artifact to the jar `jmhJar` produces"))
        if "asv.conf.json" in names:
            try:
                conf = jsontext.loads(_strip_json_comments(_read(directory / "asv.conf.json")))
            except jsontext.JsonTextError:
                conf = {}
            bench_dir = str(conf.get("benchmark_dir", "benchmarks"))
            python.append(DetectedSuite(name="", kind="python", path=_rel(directory, root),
                                        options={"benchmarks": bench_dir, "pythonpath": ["."]},
                                        note="asv project (asv.conf.json)"))
        elif directory.name == "benchmarks" and any(
                f.endswith(".py") and _PY_BENCH.search(_read(directory / f)) for f in files):
            parent = directory.parent
            if not any(s.path == _rel(parent, root) for s in python):
                python.append(DetectedSuite(name="", kind="python", path=_rel(parent, root),
                                            options={"benchmarks": "benchmarks", "pythonpath": ["."]},
                                            note="asv-style benchmarks/ folder"))
        if any(f.endswith("_test.go") and _GO_BENCH.search(_read(directory / f)) for f in files):
            module = _go_module_root(directory, root)
            if module is not None and not _go_ignores(directory, module):
                pkg = "./" + directory.relative_to(module).as_posix() if directory != module else "."
                go_modules.setdefault(module, []).append(pkg)
        for f in files:
            if f.endswith(".jar") and "target" not in directory.parts and _jar_has_benchmarks(directory / f):
                jmh.append(DetectedSuite(name="", kind="jmh", path=_rel(directory, root), artifact=f,
                                         note="prebuilt JMH benchmarks jar"))
    go = [DetectedSuite(name="", kind="go", path=_rel(m, root), options={"packages": sorted(p)},
                        note="Go module with benchmark functions") for m, p in sorted(go_modules.items())]
    benchmarks = [*jmh, *go, *python]
    gounit = [DetectedSuite(name="", kind="gounit", path=_rel(m, root), options={"packages": sorted(p)},
                            note="Go module with test functions: each Test function measured as a workload "
                                 "(docs/code-level.md)") for m, p in sorted(go_test_modules.items())]
    units = [replace(s, proposed=s.proposed or bool(benchmarks)) for s in [*junit, *gounit]]
    return _name_uniquely([*benchmarks, *units])


def _go_ignores(directory: Path, module: Path) -> bool:
    """Whether the go tool skips this directory's package: one named ``testdata`` or starting with ``_`` on the
    way from the module root (``go help packages``; ``.`` folders are never walked)."""
    return any(part == "testdata" or part.startswith("_") for part in directory.relative_to(module).parts)


def _go_module_root(directory: Path, root: Path) -> Path | None:
    for d in (directory, *directory.parents):
        if (d / "go.mod").is_file():
            return d
        if d == root:
            break
    return None


def _strip_json_comments(text: str) -> str:
    # asv.conf.json allows // comments on their own lines
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


def _name_uniquely(suites: list[DetectedSuite]) -> list[DetectedSuite]:
    out, used = [], set()
    for s in suites:
        folder = Path(s.path).name
        base = s.kind if s.path == "." else (folder if s.kind in folder.lower() else f"{s.kind}-{folder}")
        base = re.sub(r"[^A-Za-z0-9_.-]", "-", base)
        name, k = base, 2
        while name in used:
            name, k = f"{base}-{k}", k + 1
        used.add(name)
        out.append(DetectedSuite(**{**s.__dict__, "name": name}))
    return out


def _toml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def render_config(suites: list[DetectedSuite]) -> str:
    """A commented benchwarden.toml for the detected suites."""
    lines = [
        "# benchwarden configuration — generated by `benchwarden init`; every key is documented in",
        "# docs/configuration.md. Durations: '1s', '200ms', '5m'.",
        "",
        "[store]",
        "# Where results go: a SQLite file (relative to this file) or a SQLAlchemy URL (postgresql+psycopg://…).",
        f"url = {_toml_str('.benchwarden/results.db')}",
        "",
        "[defaults]",
        "# Applied to every suite unless the suite sets its own value. The bounds are ranges: dynamic stopping",
        "# (the default) ends each phase as soon as the results are stable, never before min, never after max;",
        "# `stop = \"static\"` always runs max. A benchmark never runs longer than",
        "# forks.max x (warmup.max + iterations) x iteration_time = 5 x (50 + 10) x 1s = 5 min; with dynamic",
        "# stopping most finish in 1-2 min (docs/dynamic.md).",
        "iteration_time = \"1s\"            # length of one iteration",
        "warmup = { min = 5, max = 50 }    # warmup iterations per fork: ends once the level is flat (no trend,",
        "                                  # no wandering); the first fork (the scout) runs max to see late steps",
        "iterations = 10                   # measurement iterations per fork, after warmup (never cut short)",
        "forks = { min = 2, max = 5 }      # fresh processes per benchmark: more until the mean across forks is",
        "                                  # known within +-5 % (90 % interval) or max",
        "stop = \"dynamic\"                  # \"dynamic\" (default) or \"static\" (run every bound to its max)",
        "# criteria = [\"level\", \"precision\"] # the default; the study's \"cv\", \"rciw\", \"kld\" are options",
        "# timeout = \"10m\"                 # per fork (default: 3x its longest possible duration + 2m)",
        "",
    ]
    if not suites:
        lines += ["# No suite was detected. Add one, e.g.:", "# [suites.mine]", "# kind = \"command\"",
                  "# commands = { startup = \"./my-program --version\" }", ""]
    for s in suites:
        table = _suite_lines(s)
        if s.proposed:
            lines.append("# Proposed, commented out: unit tests as workloads. To measure them, uncomment the table "
                         "header and its keys.")
            table = [line if line.startswith("#") or not line else f"# {line}" for line in table]
        lines += table
    return "\n".join(lines)


def _suite_lines(s: DetectedSuite) -> list[str]:
    """One suite's table, its keys commented where the user may want to set them."""
    lines = [f"[suites.{s.name}]"]
    if s.note:
        lines.append(f"# {s.note}")
    lines.append(f"kind = {_toml_str(s.kind)}")
    lines.append(f"path = {_toml_str(s.path)}")
    if s.build:
        lines.append(f"build = {_toml_str(s.build)}   # run before listing; never through a shell")
    if s.artifact:
        lines.append(f"artifact = {_toml_str(s.artifact)}")
    for key, value in s.options.items():
        if isinstance(value, list):
            lines.append(f"{key} = [{', '.join(_toml_str(v) for v in value)}]")
        else:
            lines.append(f"{key} = {_toml_str(str(value))}")
    lines.append("# filter = \"regex on benchmark keys\"")
    if s.kind == "jmh":
        lines.append("# jvm_args = [\"-Xmx1g\"]")
    lines.append("# env = { KEY = \"value\" }")
    lines.append("")
    return lines
