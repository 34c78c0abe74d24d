"""`benchwarden init`: suite detection on the bundled examples, and the written config loads and validates."""

from __future__ import annotations

import io
import shutil
import tomllib
from pathlib import Path

from benchwarden.cli import main
from benchwarden.config import DEFAULT_CRITERIA, load_config
from benchwarden.detect import detect_suites, render_config

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _copy_examples(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns("target", ".benchwarden", "benchwarden.toml",
                                                                  "__pycache__"))
    return root


def test_detects_each_kind_in_the_examples(tmp_path):
    root = _copy_examples(tmp_path)
    found = {(s.kind, s.path): s for s in detect_suites(root)}
    assert ("jmh", "jmh") in found and ("go", "go") in found and ("python", "python") in found
    jmh = found[("jmh", "jmh")]
    assert jmh.build == "mvn -q -B package -DskipTests" and jmh.artifact == "target/benchmarks.jar"
    assert found[("go", "go")].options["packages"] == ["."]
    assert found[("python", "python")].options["benchmarks"] == "benchmarks"  # from asv.conf.json
    assert len({s.name for s in found.values()}) == len(found)  # unique names


def test_detects_a_prebuilt_benchmarks_jar(tmp_path):
    import zipfile

    (tmp_path / "lib").mkdir()
    with zipfile.ZipFile(tmp_path / "lib" / "benches.jar", "w") as zf:
        zf.writestr("META-INF/BenchmarkList", "")
    with zipfile.ZipFile(tmp_path / "lib" / "other.jar", "w") as zf:
        zf.writestr("META-INF/MANIFEST.MF", "")
    (suite,) = detect_suites(tmp_path)
    assert (suite.kind, suite.path, suite.artifact, suite.build) == ("jmh", "lib", "benches.jar", None)


def test_written_config_is_valid_and_commented(tmp_path):
    root = _copy_examples(tmp_path)
    text = render_config(detect_suites(root))
    assert text.count("#") > 10  # commented
    tomllib.loads(text)
    (root / "benchwarden.toml").write_text(text)
    config = load_config(root / "benchwarden.toml")
    assert {s.kind for s in config.suites.values()} == {"jmh", "go", "python"}
    assert config.suites["jmh"].context.root == (root / "jmh").resolve()  # "jmh-jmh" read oddly
    # the documented default: dynamic stopping with the study's bounds, and the bounds explained
    settings = config.suites["jmh"].settings
    assert settings.stop == "dynamic" and settings.criteria == DEFAULT_CRITERIA
    assert (settings.warmup_min, settings.warmup_max, settings.iterations, settings.forks_min,
            settings.forks_max) == (5, 50, 10, 2, 5)
    assert "never runs longer than" in text and "static" in text


def test_init_command_writes_and_refuses_to_overwrite(tmp_path, monkeypatch):
    root = _copy_examples(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    assert main(["init", str(root), "--no-list"], stdout=out, stderr=err) == 0
    assert (root / "benchwarden.toml").exists() and "suites found" in out.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert main(["init", str(root), "--no-list"], stdout=out, stderr=err) == 2
    assert "already exists" in err.getvalue() and "--force" in err.getvalue()


def test_init_in_a_git_work_tree_ignores_the_store_once(tmp_path):
    import subprocess

    root = _copy_examples(tmp_path)
    (root / ".gitignore").write_text("target/")  # the user's own, without a final newline
    subprocess.run(["git", "-C", str(root), "init", "-q"], check=True)
    out, err = io.StringIO(), io.StringIO()
    assert main(["init", str(root), "--no-list"], stdout=out, stderr=err) == 0, err.getvalue()
    assert f"added .benchwarden/ (the result store) to {root / '.gitignore'}" in out.getvalue()
    assert (root / ".gitignore").read_text().splitlines()[0] == "target/"
    (root / ".benchwarden").mkdir()
    (root / ".benchwarden" / "results.db").write_bytes(b"x")
    status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all"],
                            capture_output=True, text=True, check=True).stdout
    assert ".benchwarden" not in status and "benchwarden.toml" in status
    out = io.StringIO()
    assert main(["init", str(root), "--no-list", "--force", "--json"], stdout=out, stderr=io.StringIO()) == 0
    assert '"gitignore": null' in out.getvalue()  # already ignored: not added twice
    assert (root / ".gitignore").read_text().count(".benchwarden/") == 1


def test_init_outside_git_writes_no_gitignore(tmp_path):
    root = _copy_examples(tmp_path)
    out = io.StringIO()
    assert main(["init", str(root), "--no-list"], stdout=out, stderr=io.StringIO()) == 0
    assert not (root / ".gitignore").exists() and "added .benchwarden/" not in out.getvalue()


def test_empty_repository_gets_a_starting_point(tmp_path):
    text = render_config(detect_suites(tmp_path))
    assert "No suite was detected" in text
    tomllib.loads(text)


POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  {parent}<artifactId>{name}</artifactId>
  {modules}
  <properties><uberjar.name>{jar}</uberjar.name></properties>
  <dependencies>{deps}</dependencies>
  <build><plugins><plugin><artifactId>maven-shade-plugin</artifactId>
    <executions><execution><configuration><finalName>${{uberjar.name}}</finalName></configuration></execution>
    </executions></plugin></plugins></build>
</project>
"""
JMH_DEP = "<dependency><groupId>org.openjdk.jmh</groupId><artifactId>jmh-core</artifactId></dependency>"
BENCH = """package b;
import org.openjdk.jmh.annotations.*;
public class B {
    @Benchmark
    public void empty() {}

    @Benchmark @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(java.util.concurrent.TimeUnit.SECONDS)
    public int add() { return 1 + 1; }
}
"""
NOT_A_BENCH = """package g;
import org.openjdk.jmh.annotations.*;
/** Generates code for
 *     @Benchmark methods (a comment, not a declaration) */
class Generator { Class<?> a = Benchmark.class; }
"""


def _maven_repo(root: Path) -> Path:
    def module(path: str, name: str, deps: str = "", modules: tuple[str, ...] = (), jar: str = "benchmarks",
               parent: bool = True) -> Path:
        d = root / path
        d.mkdir(parents=True, exist_ok=True)
        mods = "<modules>" + "".join(f"<module>{m}</module>" for m in modules) + "</modules>" if modules else ""
        par = "<parent><artifactId>parent</artifactId></parent>" if parent else ""
        (d / "pom.xml").write_text(POM.format(parent=par, name=name, modules=mods, deps=deps, jar=jar))
        return d

    module(".", "parent", modules=("core", "benches/micro", "generator", "it", "archetype"), parent=False)
    module("core", "core", deps=JMH_DEP)
    micro = module("benches/micro", "micro", deps=JMH_DEP, jar="micro-benchmarks")
    (micro / "src/main/java/b").mkdir(parents=True)
    (micro / "src/main/java/b/B.java").write_text(BENCH)
    gen = module("generator", "jmh-generator", deps=JMH_DEP)
    (gen / "src/main/java/g").mkdir(parents=True)
    (gen / "src/main/java/g/Generator.java").write_text(NOT_A_BENCH)
    it = module("it", "it", deps=JMH_DEP)  # benchmarks only in tests: integration tests of a harness
    (it / "src/test/java/b").mkdir(parents=True)
    (it / "src/test/java/b/B.java").write_text(BENCH)
    template = module("archetype/src/main/resources/archetype-resources", "${artifactId}", deps=JMH_DEP)
    (template / "src/main/java").mkdir(parents=True)
    (template / "src/main/java/MyBenchmark.java").write_text(BENCH)
    module("archetype", "archetype")
    return micro


def test_repository_root_detects_only_real_benchmark_modules(tmp_path):
    micro = _maven_repo(tmp_path)
    (suite,) = detect_suites(tmp_path)  # not the generator, the integration tests or the archetype template
    assert (suite.name, suite.path, suite.artifact) == ("jmh-micro", "benches/micro", "target/micro-benchmarks.jar")
    # a module of a multi-module build: Maven runs at the reactor root and builds the modules it depends on
    assert suite.build == "mvn -q -B -f ../../pom.xml -pl benches/micro -am package -DskipTests"
    assert (micro / "../../pom.xml").resolve() == (tmp_path / "pom.xml").resolve()


def test_init_inside_a_child_module_builds_from_the_reactor_root(tmp_path):
    micro = _maven_repo(tmp_path)
    (suite,) = detect_suites(micro)
    assert suite.path == "." and suite.build == "mvn -q -B -f ../../pom.xml -pl benches/micro -am package -DskipTests"


def test_a_single_module_project_builds_in_place(tmp_path):
    (tmp_path / "src/main/java/b").mkdir(parents=True)
    (tmp_path / "src/main/java/b/B.java").write_text(BENCH)
    (tmp_path / "pom.xml").write_text(POM.format(parent="", name="solo", modules="", deps=JMH_DEP, jar="benchmarks"))
    (suite,) = detect_suites(tmp_path)
    assert suite.build == "mvn -q -B package -DskipTests" and suite.artifact == "target/benchmarks.jar"


def test_benchmark_methods_are_counted_from_declarations_only(tmp_path):
    from benchwarden.detect import count_benchmark_methods

    micro = _maven_repo(tmp_path)
    assert count_benchmark_methods(micro) == 2
    assert count_benchmark_methods(tmp_path / "generator") == 0
    assert count_benchmark_methods(tmp_path / "it") == 0


def test_init_lists_each_suite_and_says_how_many_benchmarks_it_has(tmp_path):
    import json

    root = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "python", root / "py", ignore=shutil.ignore_patterns("__pycache__", ".benchwarden"))
    (root / "broken" / "benchmarks").mkdir(parents=True)
    (root / "broken" / "benchmarks" / "bench_x.py").write_text("import nonexistent_module\ndef time_x():\n    pass\n")
    out, err = io.StringIO(), io.StringIO()
    assert main(["init", str(root)], stdout=out, stderr=err) == 0, err.getvalue()
    text = out.getvalue()
    assert "python-py: 10 benchmarks from 6 functions or methods in 1 suite;" in text, text
    assert "python-broken: could not be listed" in text and "benchwarden list" in text
    out = io.StringIO()
    assert main(["init", str(root), "--force", "--json"], stdout=out, stderr=io.StringIO()) == 0
    listed = {s["name"]: s for s in json.loads(out.getvalue())["suites"]}
    assert listed["python-py"]["benchmarks"] == 10 and listed["python-broken"]["benchmarks"] is None


def test_print_refuses_options_it_would_ignore(tmp_path):
    err = io.StringIO()
    assert main(["init", str(tmp_path), "--print", "--force"], stdout=io.StringIO(), stderr=err) == 2
    assert "--force: --print writes nothing" in err.getvalue()


JUNIT_TEST = """package t;

import org.junit.jupiter.api.Test;

class CoreTest {
    @Test
    void adds() {
    }

    @TestFactory  // not a @Test
    Object many() { return null; }
}
"""


def test_unit_tests_are_proposed_commented_out_beside_benchmarks(tmp_path):
    root = _copy_examples(tmp_path)
    found = {(s.kind, s.path): s for s in detect_suites(root)}
    junit, gounit = found[("junit", "junit")], found[("gounit", "go")]
    assert junit.proposed and gounit.proposed and gounit.options["packages"] == ["."]
    assert not any(s.proposed for s in found.values() if s.kind in ("jmh", "go", "python"))
    text = render_config(list(found.values()))
    (root / "benchwarden.toml").write_text(text)
    assert {s.kind for s in load_config(root / "benchwarden.toml").suites.values()} == {"jmh", "go", "python"}
    # a user uncomments a proposed table's header and keys: a valid config that measures the unit tests
    import re

    opted_in = re.sub(r"^# ((?:\[suites\.|kind =|path =|packages =).*)$", r"\1", text, flags=re.MULTILINE)
    (root / "benchwarden.toml").write_text(opted_in)
    suites = load_config(root / "benchwarden.toml").suites
    assert {s.kind for s in suites.values()} == {"jmh", "go", "python", "junit", "gounit"}
    assert suites[gounit.name].context.root == (root / "go").resolve()


def test_a_project_with_only_unit_tests_gets_them_as_its_suites(tmp_path):
    maven = tmp_path / "lib"
    (maven / "src/test/java/t").mkdir(parents=True)
    (maven / "src/test/java/t/CoreTest.java").write_text(JUNIT_TEST)
    (maven / "pom.xml").write_text(POM.format(parent="", name="lib", modules="", deps="", jar="x"))
    gomod = tmp_path / "svc"
    (gomod / "internal").mkdir(parents=True)
    (gomod / "go.mod").write_text("module example.com/svc\n\ngo 1.21\n")
    (gomod / "internal" / "x_test.go").write_text(
        "package internal\n\nimport \"testing\"\n\nfunc TestMain(m *testing.M) {}\n\nfunc TestX(t *testing.T) {}\n")
    suites = {s.kind: s for s in detect_suites(tmp_path)}
    assert set(suites) == {"junit", "gounit"} and not any(s.proposed for s in suites.values())
    # the adapter's test-compile, without the licence audit that the written benchwarden.toml would fail
    assert suites["junit"].path == "lib" and suites["junit"].build == "mvn -q -B test-compile -Drat.skip"
    assert suites["gounit"].options["packages"] == ["./internal"]
    (tmp_path / "benchwarden.toml").write_text(render_config(list(suites.values())))
    assert {s.kind for s in load_config(tmp_path / "benchwarden.toml").suites.values()} == {"junit", "gounit"}


def test_junit_tests_of_a_reactor_module_are_proposed_with_a_reactor_build(tmp_path):
    _maven_repo(tmp_path)
    (tmp_path / "core/src/test/java/t").mkdir(parents=True)
    (tmp_path / "core/src/test/java/t/CoreTest.java").write_text(JUNIT_TEST)
    (tmp_path / "it/src/test/java/b/Other.java").write_text("class Other { @Tested int x; }\n")  # not @Test
    suites = [s for s in detect_suites(tmp_path) if s.kind == "junit"]
    assert [(s.path, s.proposed) for s in suites] == [("core", True)]
    assert suites[0].build == "mvn -q -B -f ../pom.xml -pl core -am test-compile -Drat.skip"
    assert "mvn install" in suites[0].note


def test_go_packages_the_go_tool_ignores_are_not_proposed(tmp_path):
    # gin keeps fixtures under testdata/; `go test ./...` skips testdata and _-prefixed folders (go help packages)
    module = tmp_path / "svc"
    bench = "package p\n\nimport \"testing\"\n\nfunc BenchmarkX(b *testing.B) {}\n\nfunc TestX(t *testing.T) {}\n"
    for folder in ("api", "testdata/protoexample", "api/testdata", "_examples/demo"):
        (module / folder).mkdir(parents=True, exist_ok=True)
        (module / folder / "x_test.go").write_text(bench)
    (module / "go.mod").write_text("module example.com/svc\n\ngo 1.21\n")
    suites = {s.kind: s for s in detect_suites(tmp_path)}
    assert suites["go"].options["packages"] == ["./api"]
    assert suites["gounit"].options["packages"] == ["./api"]
