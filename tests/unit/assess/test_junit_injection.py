"""Unit tests as workloads in `assess` (issue #16): the JUnit injector's packages, build and agent argument.

The end-to-end assessment of the JUnit example (real Maven, JVMs and agent) is in tests/e2e/test_assess_examples.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchwarden.adapters.base import SuiteContext
from benchwarden.assess.inject import INJECTORS, JunitInjector, injector_for
from benchwarden.assess.methods import check_method
from benchwarden.config import RunSettings, Suite


def junit_suite(root: Path, **options) -> Suite:
    ctx = SuiteContext(name="unit", kind="junit", root=root, options=options, build=("mvn", "-q", "test-compile"))
    return Suite(ctx, RunSettings())


def compiled(root: Path, folder: str, *classes: str) -> None:
    for name in classes:
        path = root / folder / (name.replace(".", "/") + ".class")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"\xca\xfe\xba\xbe")


def test_the_code_under_test_is_the_main_classes_not_the_tests(tmp_path):
    compiled(tmp_path, "target/classes", "wordstat.WordStat", "wordstat.text.Corpus", "wordstat.WordStat$Entry")
    compiled(tmp_path, "target/test-classes", "wordstat.WordStatTest", "other.OnlyTests")
    suite = junit_suite(tmp_path)
    assert injector_for("junit").default_packages(suite, []) == ["wordstat", "wordstat.text"]
    compiled(tmp_path, "out/main", "lib.Api")  # the suite's own folders, as the adapter reads them
    assert JunitInjector().default_packages(junit_suite(tmp_path, classes="out/main"), []) == ["lib"]


def test_a_variant_adds_the_agent_to_the_test_jvms_and_does_not_rebuild_compiled_classes(tmp_path):
    agent = tmp_path / "agent.jar"
    agent.write_bytes(b"")
    suite = junit_suite(tmp_path)
    injector = JunitInjector(jar=lambda: agent)
    method = "wordstat.WordStat#countWordsHash(java.util.List)"
    fresh = injector.slowed(suite, [method], 0.1, tmp_path / "slow")
    assert fresh.suite.context.build == ("mvn", "-q", "test-compile")  # nothing compiled yet: the variant builds
    (argument,) = fresh.suite.context.jvm_args
    assert argument.startswith(f"-javaagent:{agent}=mode=slowdown;method={method};factor=0.1;report=")
    compiled(tmp_path, "target/classes", "wordstat.WordStat")
    compiled(tmp_path, "target/test-classes", "wordstat.WordStatTest")
    assert injector.slowed(suite, [method], 0.1, tmp_path / "slow").suite.context.build is None


def test_junit_methods_are_named_as_java_methods():
    assert "junit" in INJECTORS
    assert check_method("junit", " wordstat.WordStat#tokenize(java.lang.String) ") == "wordstat.WordStat#tokenize(java.lang.String)"
    with pytest.raises(ValueError, match="pkg.Class#method"):
        check_method("junit", "wordstat:tokenize")
    with pytest.raises(ValueError, match="go, jmh, junit, python"):
        check_method("command", "x")


def test_the_cpu_clock_reaches_the_agent_and_its_control_and_the_wall_clock_changes_nothing(tmp_path):
    """``[assess] wait_clock = "cpu"``: the slowed JVMs get ``clock=cpu`` and so do their control JVMs (a CPU-clock
    agent loads java.management), whose label differs so that baselines of the other clock are not reused."""
    agent = tmp_path / "agent.jar"
    agent.write_bytes(b"")
    suite = junit_suite(tmp_path)
    method = "wordstat.WordStat#countWordsHash(java.util.List)"
    wall, cpu = JunitInjector(jar=lambda: agent), JunitInjector(jar=lambda: agent, clock="cpu")
    assert ";clock=" not in wall.slowed(suite, [method], 0.1, tmp_path / "w").suite.context.jvm_args[0]
    assert ";factor=0.1;clock=cpu;report=" in cpu.slowed(suite, [method], 0.1, tmp_path / "c").suite.context.jvm_args[0]
    wall_control, cpu_control = wall.control(suite), cpu.control(suite)
    assert wall_control.suite.context.jvm_args[-1].endswith("=mode=control") and wall_control.label == "agent mode=control"
    assert cpu_control.suite.context.jvm_args[-1].endswith("=mode=control;clock=cpu")
    assert cpu_control.label == "agent mode=control clock=cpu"
