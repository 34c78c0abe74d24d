"""The JMH fork command line: pure decisions, checked without starting JMH (the e2e tests run them for real)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchwarden.adapters.base import ForkPlan
from benchwarden.adapters.jmh import fork_argv, jmh_time_value, jvm_args_options
from benchwarden.errors import ForkFailed
from benchwarden.model import Benchmark, BenchmarkId

JAR = Path("/x/benchmarks.jar")


def bench(mode="avgt", unit="us/op", params=(), append=None) -> Benchmark:
    spec = {"benchmark": "p.C.m", "mode": mode}
    if append is not None:
        spec["jvm_args_append"] = json.dumps(append)
    return Benchmark(id=BenchmarkId("s", "p.C.m" if mode != "thrpt" else "p.C.m@thrpt", params), mode=mode, unit=unit, spec=spec)


def plan(**kw) -> ForkPlan:
    settings = dict(fork_index=1, iteration_time_s=0.2, max_iterations=13, timeout_s=60, iteration_timeout_s=10)
    settings.update(kw)
    return ForkPlan(**settings)


def test_one_fork_is_one_jmh_process_without_jmh_warmup():
    argv = fork_argv("java", JAR, bench(params=(("size", "100"), ("kind", "a b"))), plan())
    assert argv == ["java", "-Djmh.ignoreLock=true", "-jar", "/x/benchmarks.jar", r"^\Qp.C.m\E$", "-f", "1", "-wi", "0", "-i", "13",
                    "-r", "200ms", "-w", "200ms", "-bm", "avgt", "-tu", "ns", "-foe", "true",
                    "-p", "size=100", "-p", "kind=a b"]


def test_throughput_prints_in_ops_per_second_and_uses_the_jmh_name():
    argv = fork_argv("java", JAR, bench(mode="thrpt", unit="ops/ms"), plan())
    assert argv[4] == r"^\Qp.C.m\E$"
    assert argv[argv.index("-bm") + 1] == "thrpt" and argv[argv.index("-tu") + 1] == "s"


def test_annotation_args_come_first_and_suite_args_are_not_repeated():
    b = bench(append=["-Dk=10"])
    argv = fork_argv("java", JAR, b, plan(jvm_args=("-Xmx1g", "-Dslow=true")), suite_jvm_args=("-Xmx1g",))
    assert argv[-3:] == ["-jvmArgsAppend=-Dk=10", "-jvmArgsAppend=-Xmx1g", "-jvmArgsAppend=-Dslow=true"]


def test_without_extra_args_the_annotation_applies_by_itself():
    argv = fork_argv("java", JAR, bench(append=["-Dk=10"]), plan())
    assert not any(a.startswith("-jvmArgsAppend") for a in argv)


def test_a_lone_jvm_argument_with_a_space_is_quoted_for_jmh():
    assert jvm_args_options(["-Dname=a b"]) == ['-jvmArgsAppend="-Dname=a b"']
    assert jvm_args_options(["-Da=1", "-Db=x y"]) == ["-jvmArgsAppend=-Da=1", "-jvmArgsAppend=-Db=x y"]


@pytest.mark.parametrize("seconds, text", [(1, "1s"), (0.2, "200ms"), (2.5, "2500ms"), (0.0005, "500us"),
                                           (1e-7, "100ns"), (600, "600s")])
def test_iteration_time_is_an_integer_jmh_time_value(seconds, text):
    assert jmh_time_value(seconds) == text


def test_non_positive_iteration_time_is_rejected():
    with pytest.raises(ValueError, match="positive"):
        jmh_time_value(0)


def test_a_param_value_with_a_comma_cannot_be_passed_and_says_so():
    with pytest.raises(ForkFailed, match="contains a comma"):
        fork_argv("java", JAR, bench(params=(("csv", "a,b"),)), plan())


def test_profilers_become_prof_options_before_the_jvm_arguments():
    argv = fork_argv("java", JAR, bench(), plan(jvm_args=("-Xmx1g",)), ("-Xmx1g",), ("gc", "stack:lines=3"))
    assert argv[argv.index("-prof"):argv.index("-prof") + 4] == ["-prof", "gc", "-prof", "stack:lines=3"]
    assert argv.index("-prof") < argv.index("-jvmArgsAppend=-Xmx1g")


@pytest.mark.parametrize("value", ["gc", ["-prof gc"], [""], [1]])
def test_a_malformed_profilers_option_is_a_configuration_error(value):
    from benchwarden.adapters.base import SuiteContext
    from benchwarden.adapters.jmh import profilers_option
    from benchwarden.errors import ConfigError

    with pytest.raises(ConfigError, match="'profilers' must be a list of JMH profiler names"):
        profilers_option(SuiteContext("s", "jmh", Path("/x"), options={"profilers": value}))


def test_cpu_time_runs_the_jar_main_class_with_the_profiler_on_the_class_path(tmp_path):
    """metric = "cpu": the jar cannot be run with -jar (which ignores -cp), so its Main-Class is named and the
    profiler's classes follow the jar on the class path; the forked benchmark JVM inherits that class path."""
    import zipfile

    jar = tmp_path / "benchmarks.jar"
    with zipfile.ZipFile(jar, "w") as zf:
        zf.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nMain-Class: org.example.Main\r\n\r\n")
    argv = fork_argv("java", jar, bench(), plan(metric="cpu"), profilers=("gc",), cpu_classes=Path("/c/classes"))
    assert argv[2:5] == ["-cp", f"{jar}:/c/classes", "org.example.Main"] and "-jar" not in argv
    profs = [argv[i + 1] for i, a in enumerate(argv) if a == "-prof"]
    assert profs == ["gc", "io.benchwarden.jmh.CpuTimeProfiler"]
    without_manifest = tmp_path / "plain.jar"
    with zipfile.ZipFile(without_manifest, "w") as zf:
        zf.writestr("META-INF/BenchmarkList", "")
    assert fork_argv("java", without_manifest, bench(), plan(), cpu_classes=Path("/c"))[4] == "org.openjdk.jmh.Main"


def test_the_profilers_cpu_time_becomes_the_value_and_the_score_the_wall_time():
    from benchwarden.adapters.jmh import cpu_as_value
    from benchwarden.model import IterationResult

    it = IterationResult(value_ns=1200.0, raw_value=1.2, secondary={"cpu [ns/op]": 1100.0, "gc.count [counts]": 2.0})
    assert cpu_as_value(it, "b", 7) == (1100.0, {"gc.count [counts]": 2.0, "wall [ns/op]": 1200.0})
    older = IterationResult(value_ns=10.0, raw_value=10.0, secondary={"·cpu [ns/op]": 9.0})  # JMH < 1.36 prefixes "·"
    assert cpu_as_value(older, "b", 7) == (9.0, {"wall [ns/op]": 10.0})
    for secondary, why in (({}, "reported nothing"), ({"cpu [ns/op]": 0.0}, "longer iteration_time")):
        with pytest.raises(ForkFailed, match=why) as failed:
            cpu_as_value(IterationResult(value_ns=1.0, raw_value=1.0, secondary=secondary), "b", 7)
        assert failed.value.reason == "garbage" and "line 7" in str(failed.value)
