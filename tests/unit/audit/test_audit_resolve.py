"""JMH's precedence rules, checked against the BenchmarkList JMH's own annotation processor wrote for the fixture."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_benchmarklist import differences, read_benchmark_list

from benchwarden.audit.project import audit_project

DATA = Path(__file__).resolve().parents[2] / "data" / "audit"


@pytest.fixture(scope="module")
def report():
    return audit_project(DATA / "annotations")


@pytest.fixture(scope="module")
def by_name(report):
    return {b.config.name.removeprefix("fixture."): b.config for b in report.benchmarks}


def value(setting):
    return None if setting is None else setting.value


def test_agrees_with_jmh_generated_benchmark_list(report):
    """tests/data/audit/annotations-BenchmarkList.txt is JMH 1.37's own output for this fixture
    (regenerated and compared by tests/e2e/test_audit.py)."""
    entries = read_benchmark_list((DATA / "annotations-BenchmarkList.txt").read_text())
    # the only disagreement: a constant from another file, which the audit reports instead of resolving
    assert differences(report, entries) == ["fixture.Constants.unresolved: forks None != JMH 4"]


def test_unresolved_constant_is_warned_with_its_location(report):
    warnings = [str(d) for d in report.diagnostics if "ExternalSettings.FORKS" in d.message]
    assert warnings == ["src/main/java/fixture/Constants.java:28: cannot resolve `ExternalSettings.FORKS` in "
                        "@Fork(value=...) to a number (a constant declared in another file?); treated as not set"]


def test_method_level_wins_over_class_level(by_name):
    c = by_name["ForkForms.methodWins"]
    assert (value(c.forks), c.forks.origin) == (2, "method")
    assert value(c.warmup_time_s) == pytest.approx(0.2) and value(c.measurement_time_s) == pytest.approx(0.5)
    assert value(c.output_time_unit) == "NANOSECONDS"
    assert value(by_name["ForkForms.classLevelOnly"].forks) == 3
    assert by_name["ForkForms.classLevelOnly"].forks.origin == "class"


def test_annotations_merge_element_by_element(by_name):
    c = by_name["ForkForms.mergedElementByElement"]
    assert (value(c.warmup_iterations), c.warmup_iterations.origin) == (3, "method")
    assert (value(c.warmup_time_s), c.warmup_time_s.origin) == (2.0, "class")


def test_time_unit_without_time_is_ignored_like_jmh(by_name):
    c = by_name["Pitfalls.unitWithoutTime"]
    assert value(c.measurement_iterations) == 5 and c.measurement_time_s is None
    assert [(t.annotation, t.unit, t.location.line) for t in c.time_unit_without_time] == [
        ("Measurement", "MILLISECONDS", 33)]


def test_superclass_annotations_and_benchmarks_are_inherited(by_name):
    plain = by_name["Inheritance.Plain.work"]
    assert value(plain.forks) == 2 and plain.forks.origin == "superclass Base"
    assert value(plain.warmup_iterations) == 7 and value(plain.modes) == ("Throughput",)
    over = by_name["Inheritance.Overriding.work"]
    assert value(over.forks) == 4 and over.forks.origin == "class"
    assert value(over.modes) == ("AverageTime",)
    assert value(by_name["Inheritance.Overriding.extra"].warmup_iterations) == 1
    assert not any(name.startswith("Inheritance.Base") for name in by_name), "abstract classes have no benchmarks"


def test_enclosing_class_annotations_do_not_apply(by_name):
    assert by_name["Outer.NoFork.inheritsNothingFromOuter"].forks is None
    assert value(by_name["Outer.Inner.generic"].forks) == 2


def test_modes_all_and_lists(by_name):
    assert value(by_name["ForkForms.allModes"].modes) == ("Throughput", "AverageTime", "SampleTime", "SingleShotTime")
    assert value(by_name["ForkForms.methodWins"].modes) == ("AverageTime", "SampleTime")
    assert by_name["ForkForms.classLevelOnly"].modes is None


def test_params_from_class_state_argument_abstract_super_and_setup_dependencies(by_name):
    own = by_name["ParamsBench.own"]
    assert [(p.name, p.values) for p in own.params] == [
        ("size", ("1", "10", "100")), ("kind", ("a", "b")), ("color", ("RED", "GREEN", "BLUE"))]
    assert own.combinations == 18
    with_state = by_name["ParamsBench.withState"]
    assert {p.name: p.declared_in.removeprefix("fixture.") for p in with_state.params} == {
        "mode": "SeparateState", "depth": "AbstractState", "cache": "DependentState",
        "size": "ParamsBench", "kind": "ParamsBench", "color": "ParamsBench"}
    assert with_state.combinations == 2 * 3 * 2 * 3 * 2 * 3


def test_groups_are_one_benchmark(by_name):
    rw = by_name["Groups.rw"]
    assert rw.group == "rw" and rw.methods == ("read", "write")
    assert not rw.returns_void and rw.uses_blackhole
    assert by_name["Groups.w"].returns_void and not by_name["Groups.w"].uses_blackhole


def test_overloaded_benchmarks_in_one_group_are_both_kept():
    from benchwarden.audit.javasource import parse_java
    from benchwarden.audit.resolve import ClassIndex, discover_benchmarks
    src = b"""package p; import org.openjdk.jmh.annotations.*;
    public class G { @Benchmark @Group("a") public int r(S1 s) { return 1; }
                     @Benchmark @Group("a") public int r(S2 s) { return 2; }
                     @State(Scope.Group) public static class S1 {} @State(Scope.Group) public static class S2 {} }"""
    configs, _ = discover_benchmarks(ClassIndex([parse_java("G.java", src)]))
    assert [(c.name, c.methods) for c in configs] == [("p.G.a", ("r", "r"))]


def test_missing_superclass_and_state_are_warned():
    from benchwarden.audit.javasource import parse_java
    from benchwarden.audit.resolve import ClassIndex, discover_benchmarks
    src = b"""package p; import org.openjdk.jmh.annotations.*;
    public class B extends lib.Base { @Benchmark public int m(lib.State s) { return 1; } }"""
    configs, diags = discover_benchmarks(ClassIndex([parse_java("B.java", src)]))
    assert [c.name for c in configs] == ["p.B.m"]
    messages = " / ".join(d.message for d in diags)
    assert "superclass 'lib.Base' of B is not in the project" in messages
    assert "state class 'lib.State' of m() is not in the project" in messages


def test_time_unit_without_time_only_matters_when_no_higher_level_sets_a_time():
    from benchwarden.audit.javasource import parse_java
    from benchwarden.audit.resolve import ClassIndex, discover_benchmarks
    src = b"""package p; import org.openjdk.jmh.annotations.*; import java.util.concurrent.TimeUnit;
    @Warmup(timeUnit = TimeUnit.MILLISECONDS)
    public class T {
      @Benchmark @Warmup(time = 3) public int own() { return 1; }
      @Benchmark public int inherits() { return 1; }
    }"""
    configs, _ = discover_benchmarks(ClassIndex([parse_java("T.java", src)]))
    by = {c.name: c for c in configs}
    assert by["p.T.own"].time_unit_without_time == () and by["p.T.own"].warmup_time_s.value == 3.0
    assert [(t.unit, t.location.line) for t in by["p.T.inherits"].time_unit_without_time] == [("MILLISECONDS", 2)]
    assert by["p.T.inherits"].warmup_time_s is None
