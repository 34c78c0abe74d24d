"""End-to-end: ``benchwarden audit`` on real JMH projects, checked against JMH's own annotation processor.

Oracle: the ``META-INF/BenchmarkList`` that JMH's annotation processor
writes when it compiles a project lists every benchmark with the
configuration JMH resolved from the annotations.  The audit reads only the
sources; the two must agree.

* JMH's own samples (``org.openjdk.jmh:jmh-samples:1.37``) from Maven
  Central: the sources jar is audited, the binary jar's BenchmarkList is the
  oracle;
* the annotation fixture (tests/data/audit/annotations), compiled here with
  JMH 1.37: its BenchmarkList must equal the golden copy the unit tests use;
* the example project examples/jmh, compiled in a temporary copy.

Maven downloads from Maven Central (reachable here and in CI); without
``mvn`` on PATH the tests skip with that reason.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchwarden.audit.project import audit_project
from benchwarden.cli.audit import audit_command
from tests.unit.audit.audit_benchmarklist import differences, expand_modes, read_benchmark_list

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "audit"
EXAMPLE = ROOT / "examples" / "jmh"
JMH_VERSION = "1.37"
MVN = shutil.which("mvn")
SAMPLES_PKG = "org.openjdk.jmh.samples."


def _mvn(args: list[str], cwd: Path | None = None, timeout_s: float = 600) -> None:
    if MVN is None:
        pytest.skip("mvn is not on PATH: cannot fetch or compile JMH projects")
    proc = subprocess.run([MVN, "-q", "-B", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout_s)
    if proc.returncode != 0:
        pytest.fail(f"mvn {' '.join(args)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")


def _compile(project: Path, dest: Path) -> str:
    """Compile a copy of ``project`` with Maven; return JMH's generated BenchmarkList."""
    shutil.copytree(project, dest, ignore=shutil.ignore_patterns("target", "build"))
    _mvn(["compile"], cwd=dest)
    return (dest / "target" / "classes" / "META-INF" / "BenchmarkList").read_text()


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    """JMH's samples: sources unpacked into a Maven layout with their pom, plus the binary jar's BenchmarkList."""
    download = tmp_path_factory.mktemp("jmh-samples-download")
    for classifier in ("jar:sources", "pom", "jar"):
        _mvn(["dependency:copy", f"-Dartifact=org.openjdk.jmh:jmh-samples:{JMH_VERSION}:{classifier}",
              f"-DoutputDirectory={download}"])
    project = tmp_path_factory.mktemp("jmh-samples")
    with zipfile.ZipFile(download / f"jmh-samples-{JMH_VERSION}-sources.jar") as jar:
        jar.extractall(project / "src" / "main" / "java")
    shutil.copy(download / f"jmh-samples-{JMH_VERSION}.pom", project / "pom.xml")
    with zipfile.ZipFile(download / f"jmh-samples-{JMH_VERSION}.jar") as jar:
        benchmark_list = jar.read("META-INF/BenchmarkList").decode()
    return project, read_benchmark_list(benchmark_list)


@pytest.fixture(scope="module")
def samples_report(samples):
    return audit_project(samples[0])


def _sample(report, name):
    return next(b for b in report.benchmarks if b.config.name == SAMPLES_PKG + name)


def _source(project: Path, cls: str) -> str:
    return (project / "src/main/java/org/openjdk/jmh/samples" / f"{cls}.java").read_text()


def test_samples_agree_with_jmh_benchmark_list(samples, samples_report):
    _, entries = samples
    assert differences(samples_report, entries) == []
    assert len(samples_report.benchmarks) == len(expand_modes(entries)) == 123
    assert samples_report.diagnostics == ()


def test_samples_jmh_version_comes_from_the_parent_version(samples_report):
    # the samples' pom says ${project.version} and inherits 1.37 from org.openjdk.jmh:jmh-parent
    assert samples_report.jmh_versions == (JMH_VERSION,)
    assert samples_report.builds[0].jmh_version_source == "dependency org.openjdk.jmh:jmh-core ${project.version}"


def test_hello_world_has_no_configuration_annotations(samples, samples_report):
    source = _source(samples[0], "JMHSample_01_HelloWorld")
    assert "@Fork" not in source and "@Warmup" not in source and "@BenchmarkMode" not in source
    hello = _sample(samples_report, "JMHSample_01_HelloWorld.wellHelloThere")
    assert not hello.config.has_annotations
    assert hello.cost.own_s == hello.cost.default_s == 500.0  # JMH 1.37 defaults: 5 x (5 x 10 s + 5 x 10 s)


def test_annotation_values_read_from_the_sample_sources(samples, samples_report):
    source = _source(samples[0], "JMHSample_20_Annotations")
    assert "@Fork(1)" in source
    assert "@Warmup(iterations = 5, time = 100, timeUnit = TimeUnit.MILLISECONDS)" in source
    assert "@Measurement(iterations = 5, time = 100, timeUnit = TimeUnit.MILLISECONDS)" in source
    shape = _sample(samples_report, "JMHSample_20_Annotations.measure").cost.own
    assert (shape.forks, shape.warmup_iterations, shape.measurement_iterations) == (1, 5, 5)
    assert shape.warmup_time_s == pytest.approx(0.1) and shape.measurement_time_s == pytest.approx(0.1)
    assert "@Param({\"1\", \"31\", \"65\", \"101\", \"103\"})" in _source(samples[0], "JMHSample_27_Params")
    assert _sample(samples_report, "JMHSample_27_Params.bench").config.combinations == 5 * 7
    inherited = [b.config.name for b in samples_report.benchmarks if "JMHSample_24_Inheritance" in b.config.name]
    assert len(inherited) == 3  # the abstract class's @Benchmark, once per concrete subclass


def test_sample_findings(samples_report):
    zero = sorted(f.benchmark.rsplit(".", 1)[-1] for f in samples_report.findings if f.code == "zero-forks")
    assert zero == ["measure_1_c1", "measure_2_c2", "measure_3_c1_again"]  # JMHSample_12_Forking's @Fork(0)
    dead = {f.benchmark.rsplit(".", 2)[-2] + "." + f.benchmark.rsplit(".", 1)[-1]
            for f in samples_report.findings if f.code == "dead-result"}
    # exactly the two benchmarks JMH's samples call wrong for dead code; not the empty baselines, the
    # CompilerControl sample's empty calls, or JMHSample_34's sink() (docs/audit.md, "On real suites")
    assert dead == {"JMHSample_08_DeadCode.measureWrong", "JMHSample_09_Blackholes.measureWrong"}
    assert not any(f.code == "commented-out-benchmark" for f in samples_report.findings)


def test_cli_on_samples_markdown_and_apply(samples, tmp_path):
    runner = CliRunner()
    md = runner.invoke(audit_command, [str(samples[0]), "--markdown"])
    assert md.exit_code == 0, md.output
    assert "JMHSample_12_Forking.measure_1_c1" in md.stdout
    config = tmp_path / "benchwarden.toml"
    applied = runner.invoke(audit_command, [str(samples[0]), "--json", "--apply", str(config), "--name", "samples"])
    assert applied.exit_code == 0, applied.output
    assert json.loads(applied.stdout)["applied"]["suite"] == "samples"
    from benchwarden.config import load_config
    assert load_config(config).suites["samples"].context.kind == "jmh"


def test_fixture_compiled_by_jmh_matches_the_golden_benchmark_list(tmp_path):
    generated = _compile(DATA / "annotations", tmp_path / "annotations")
    golden = (DATA / "annotations-BenchmarkList.txt").read_text()
    assert sorted(generated.splitlines()) == sorted(golden.splitlines())
    report = audit_project(DATA / "annotations")
    assert differences(report, read_benchmark_list(generated)) == [
        "fixture.Constants.unresolved: forks None != JMH 4"]  # a constant from another file: warned, not guessed


def test_example_project(tmp_path):
    if not (EXAMPLE / "pom.xml").is_file():
        pytest.skip("examples/jmh is not there yet")
    generated = _compile(EXAMPLE, tmp_path / "example")
    report = audit_project(EXAMPLE)
    assert differences(report, read_benchmark_list(generated)) == []
    pom = ET.parse(EXAMPLE / "pom.xml").getroot()
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    assert report.jmh_versions == (pom.find("m:properties/m:jmh.version", ns).text,)
    by_method = {b.config.name.rsplit(".", 1)[-1]: b.config for b in report.benchmarks}
    tokenize = next(c for m, c in by_method.items() if m.lower().startswith("tokenize"))
    assert {p.name: set(p.values) for p in tokenize.params}.get("size") == {"100", "1000", "10000"}
    assert any("noisy" in m.lower() for m in by_method)
    assert sum("count" in m.lower() for m in by_method) >= 2  # hash-based and sorted implementations
    assert not any("capitalize" in m.lower() for m in by_method)
    data = json.loads(CliRunner().invoke(audit_command, [str(EXAMPLE), "--json"]).stdout)
    assert data["suite"]["benchmarks"] == len(report.benchmarks)
