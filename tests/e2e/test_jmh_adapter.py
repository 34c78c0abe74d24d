"""End-to-end: the JMH adapter drives real JMH processes (the example suite and a deliberately broken project).

Iterations are 100 ms so the whole file runs in well under a minute once Maven has its dependencies.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import pytest

from benchwarden.adapters.base import ForkPlan, RunningFork, SuiteContext
from benchwarden.adapters.jmh import JmhAdapter, cpu_profiler_classes
from benchwarden.errors import ArtifactMissing, ForkFailed, ListingFailed, ToolchainMissing
from tests.support.processes import group_members, matching

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("java") is None, reason="JMH end-to-end tests need 'java' on PATH"),
    pytest.mark.skipif(shutil.which("mvn") is None, reason="JMH end-to-end tests need 'mvn' on PATH to build the jars"),
]

REPO = Path(__file__).resolve().parents[2]
BUILD = ("mvn", "-q", "-B", "package", "-DskipTests")
ITERATION_S = 0.1


def suite(root: Path, name: str, **kw) -> SuiteContext:
    return SuiteContext(name=name, kind="jmh", root=root, build=BUILD, artifact="target/benchmarks.jar", **kw)


def plan(max_iterations: int = 3, **kw) -> ForkPlan:
    settings = dict(fork_index=1, iteration_time_s=ITERATION_S, max_iterations=max_iterations, timeout_s=60.0,
                    iteration_timeout_s=30.0)
    settings.update(kw)
    return ForkPlan(**settings)


@pytest.fixture(scope="module")
def adapter() -> JmhAdapter:
    return JmhAdapter()


@pytest.fixture(scope="module")
def example(adapter):
    ctx = suite(REPO / "examples" / "jmh", "wordstat")
    prepared = adapter.prepare(ctx)
    return ctx, prepared, {b.id.key: b for b in adapter.list_benchmarks(ctx)}


@pytest.fixture(scope="module")
def broken(adapter):
    ctx = suite(REPO / "tests" / "data" / "jmh" / "broken-project", "broken")
    adapter.prepare(ctx)
    return ctx, {b.id.key: b for b in adapter.list_benchmarks(ctx)}


def assert_group_gone(pgid: int) -> None:
    deadline = time.monotonic() + 5
    while group_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert group_members(pgid) == set(), "processes of the fork's group survived"


def run_until_failure(fork) -> tuple[list, ForkFailed]:
    results = []
    with pytest.raises(ForkFailed) as info:
        for result in fork:
            results.append(result)
    return results, info.value


# ---------------------------------------------------------------- prepare and list


def test_prepare_reports_java_and_jmh_versions(example):
    _, prepared, _ = example
    assert prepared.toolchain["jmh"] == "1.37"
    assert prepared.toolchain["java"].split(".")[0].isdigit()


def test_listing_has_every_benchmark_and_param_combination(example):
    _, _, benchmarks = example
    assert sorted(benchmarks) == sorted([
        "wordstat.bench.CountWordsBench.countHash", "wordstat.bench.CountWordsBench.countSorted",
        "wordstat.bench.NoisyBench.noisy", "wordstat.bench.TopKBench.topK",
        *(f"wordstat.bench.CountWordsBySizeBench.count[size={n}]" for n in (100, 1000, 10000)),
        *(f"wordstat.bench.TokenizeBench.tokenize[size={n}]" for n in (100, 1000, 10000))])
    assert (benchmarks["wordstat.bench.TopKBench.topK"].mode, benchmarks["wordstat.bench.TopKBench.topK"].unit) == ("thrpt", "ops/ms")


def test_param_overrides_replace_declared_values_and_reach_the_benchmark(adapter, example):
    """JMH's -p semantics: any value, declared or not; the fork runs with it (issue #14: @Param("-1") benchmarks)."""
    ctx, _, _ = example
    overridden = replace(ctx, params={"size": ("7", "2000")})
    keys = sorted(b.id.key for b in adapter.list_benchmarks(overridden))
    assert [k for k in keys if "tokenize" in k] == ["wordstat.bench.TokenizeBench.tokenize[size=2000]",
                                                    "wordstat.bench.TokenizeBench.tokenize[size=7]"]
    (small,) = [b for b in adapter.list_benchmarks(overridden) if b.id.key.endswith("tokenize[size=7]")]
    fork = adapter.start_fork(overridden, small, plan(max_iterations=2))
    assert len(list(fork)) == 2
    with pytest.raises(ListingFailed, match="no benchmark has a parameter named 'sise'"):
        adapter.list_benchmarks(replace(ctx, params={"sise": ("7",)}))


def test_missing_artifact_and_missing_java_are_clear_errors(adapter, example, tmp_path):
    ctx, _, _ = example
    with pytest.raises(ArtifactMissing, match="target/nothing.jar"):
        adapter.list_benchmarks(replace(ctx, artifact="target/nothing.jar"))
    with pytest.raises(ToolchainMissing, match="suite 'wordstat'.*no-such-java"):
        adapter.prepare(replace(ctx, build=None, options={"java": str(tmp_path / "no-such-java")}))


# ---------------------------------------------------------------- the example's switchable changes

_AGREE = r"""
import java.lang.reflect.Method;
import java.util.List;

public class Agree {
    public static void main(String[] args) throws Exception {
        String text = wordstat.Corpus.text(2000, 5) + " Trailing-\u00dcn\u00efcode  x";
        Method reference = wordstat.WordStat.class.getDeclaredMethod("tokenizeOnePass", String.class);
        reference.setAccessible(true);
        Object expected = reference.invoke(null, text);
        for (String name : args) {
            Method variant = wordstat.WordStat.class.getDeclaredMethod(name, String.class);
            variant.setAccessible(true);
            List<?> words = (List<?>) variant.invoke(null, text);
            System.out.println(name + " " + words.size() + " " + words.equals(expected));
        }
        System.out.println("selected " + wordstat.WordStat.SLOW);
    }
}
"""


@pytest.mark.parametrize("switch", ["alloc", "tiny"])
def test_every_switchable_tokenizer_gives_the_same_words(example, tmp_path, switch):
    """Like the Go and Python examples' own tests: each variant returns the reference's words; an unknown
    value of the switch is refused, never silently mapped to a tokenizer."""
    source = tmp_path / "Agree.java"
    source.write_text(_AGREE, encoding="utf-8")
    variants = ["tokenizeNaive", "tokenizeUnmodifiable", "tokenizeStripped", "tokenizeCharArray"]
    done = subprocess.run(["java", f"-Dwordstat.slow={switch}", "-cp", str(REPO / "examples/jmh/target/classes"),
                           str(source), *variants], capture_output=True, text=True, timeout=120)
    if switch == "tiny":
        assert done.returncode != 0 and "wordstat.slow / WORDSTAT_SLOW = 'tiny'" in done.stderr, done.stderr
        return
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines == [f"{name} 2003 true" for name in variants] + ["selected alloc"]


# ---------------------------------------------------------------- forks that work


def test_a_fork_streams_iterations_while_jmh_is_still_running(adapter, example):
    ctx, _, benchmarks = example
    fork = adapter.start_fork(ctx, benchmarks["wordstat.bench.TokenizeBench.tokenize[size=100]"], plan(4))
    assert isinstance(fork, RunningFork)
    alive_at_result = []
    results = []
    for result in fork:
        alive_at_result.append(fork._process.returncode is None)
        results.append(result)
    assert len(results) == 4
    assert alive_at_result[0] and alive_at_result[1]  # results arrive before the process ends
    assert all(r.value_ns > 0 and r.raw_value == pytest.approx(r.value_ns) for r in results)  # ns/op
    assert_group_gone(fork.pid)


def test_fork_annotation_jvm_args_survive_suite_and_plan_jvm_args(adapter, example):
    ctx, _, benchmarks = example
    ctx = replace(ctx, jvm_args=("-Xmx256m",))
    topk = benchmarks["wordstat.bench.TopKBench.topK"]
    fork = adapter.start_fork(ctx, topk, plan(2, jvm_args=("-Dwordstat.slow=true",)))
    assert fork.argv[-3:] == ["-jvmArgsAppend=-Dwordstat.k=10", "-jvmArgsAppend=-Xmx256m",
                              "-jvmArgsAppend=-Dwordstat.slow=true"]
    results = list(fork)  # TopKBench's setup throws if @Fork(jvmArgsAppend) was dropped
    assert len(results) == 2
    for r in results:  # thrpt in ops/ms, normalised to ns/op
        assert r.value_ns == pytest.approx(1e6 / r.raw_value)


def test_sample_mode_streams_iteration_means_with_percentiles(adapter, example):
    ctx, _, benchmarks = example
    bench = benchmarks["wordstat.bench.CountWordsBench.countHash"]
    bench = replace(bench, mode="sample", spec={**bench.spec, "mode": "sample"})
    results = list(adapter.start_fork(ctx, bench, plan(2)))
    assert len(results) == 2
    for r in results:
        assert r.secondary["p0.00 [ns/op]"] <= r.secondary["p0.50 [ns/op]"] <= r.secondary["p1.00 [ns/op]"]
        assert r.raw_value == pytest.approx(r.value_ns / 1e3)  # us/op, the benchmark's own unit


def benchmark_jvm_proc(fork) -> Path:
    """/proc entry of the benchmark JVM that the JMH host forked (the group member that is not the host)."""
    children = group_members(fork.pid) - {fork.pid}
    assert len(children) == 1, f"expected one forked benchmark JVM, found {children}"
    return Path("/proc") / str(children.pop())


def test_environment_and_jvm_args_reach_the_benchmark_jvm(adapter, example):
    ctx, _, benchmarks = example
    ctx = replace(ctx, jvm_args=("-Xmx256m",), env={"FROM_SUITE": "s"})
    fork = adapter.start_fork(ctx, benchmarks["wordstat.bench.TopKBench.topK"],
                              plan(30, env={"WORDSTAT_SLOW": "1"}, jvm_args=("-Dwordstat.slow=true",)))
    # 30 iterations: the benchmark JVM must still be running when the first result arrives (with 2, a loaded
    # machine once let it exit before /proc/PID/environ was read)
    for _ in fork:
        proc = benchmark_jvm_proc(fork)
        environ = proc.joinpath("environ").read_bytes().split(b"\0")
        cmdline = proc.joinpath("cmdline").read_bytes().split(b"\0")
        fork.stop()
        break
    assert b"WORDSTAT_SLOW=1" in environ and b"FROM_SUITE=s" in environ
    ours = [b"-Dwordstat.k=10", b"-Xmx256m", b"-Dwordstat.slow=true"]  # @Fork(jvmArgsAppend), suite, plan
    assert [a for a in cmdline if a in ours] == ours


def test_the_cpu_profiler_leaves_out_the_real_jit_compiler_threads_and_only_them(example, tmp_path):
    """metric = "cpu" (docs/metrics.md, "JMH's CPU time"): benchwarden's profiler, compiled against the example's
    jar as a fork would use it, reads a real JVM's threads while varied code keeps C1 and C2 busy for half a
    second (tests/data/jmh/jit-probe). The compilers exist, spent CPU in that time, and are the only threads it
    leaves out: its total is every thread's growth minus theirs."""
    ctx, _, _ = example
    java = shutil.which("java")
    jar = ctx.root / "target" / "benchmarks.jar"
    profiler = cpu_profiler_classes(ctx, java, jar)
    probe = REPO / "tests" / "data" / "jmh" / "jit-probe" / "io" / "benchwarden" / "jmh" / "JitProbe.java"
    javac = Path(java).resolve().parent / "javac"
    classpath = os.pathsep.join([str(jar), str(profiler), str(tmp_path)])
    subprocess.run([str(javac), "-cp", classpath, "-d", str(tmp_path), str(probe)], check=True)
    done = subprocess.run([java, "-cp", classpath, "io.benchwarden.jmh.JitProbe"], capture_output=True, text=True,
                          check=True, timeout=60)
    threads = [line.split("\t") for line in done.stdout.splitlines()]
    compilers = [t for t in threads if t[1].startswith(("C1 CompilerThre", "C2 CompilerThre"))]
    sweeper = [t for t in threads if t[1] == "Sweeper thread"]  # the code cache's, left out with the compilers
    others = [t for t in threads if t not in compilers + sweeper]
    assert {t[1][:2] for t in compilers} == {"C1", "C2"}, threads  # tiered compilation: both compilers
    assert sum(int(t[2]) for t in compilers) > 5_000_000, threads  # they compiled for > 5 ms in that time
    assert all(t[3] == "0" for t in compilers + sweeper), threads
    assert all(t[3] == "1" for t in others), threads
    everyone = sum(int(t[2]) for t in threads)
    profiled = sum(int(t[4]) for t in others)
    jit = sum(int(t[2]) for t in compilers + sweeper)
    # the profiler reads each thread a moment after the probe's own reading: allow 5 % of the window's CPU
    assert abs(profiled - (everyone - jit)) <= 0.05 * everyone, (profiled, everyone, jit)


# ---------------------------------------------------------------- stopping


def test_stop_at_an_iteration_boundary_kills_host_and_benchmark_jvm(adapter, example):
    ctx, _, benchmarks = example
    fork = adapter.start_fork(ctx, benchmarks["wordstat.bench.NoisyBench.noisy"], plan(50))
    results = []
    members = set()
    for result in fork:
        results.append(result)
        members |= group_members(fork.pid)
        if len(results) == 2:
            fork.stop()
            break
    assert len(members) >= 2  # the JMH host JVM and the benchmark JVM it forked
    assert_group_gone(fork.pid)
    fork.stop()  # idempotent
    assert list(fork) == []


# ---------------------------------------------------------------- forks that fail


def test_a_crashing_benchmark_fails_with_its_exception(adapter, broken):
    ctx, benchmarks = broken
    fork = adapter.start_fork(ctx, benchmarks["broken.BrokenBench.crash"], plan(5))
    results, error = run_until_failure(fork)
    assert len(results) == 2
    assert error.reason == "crashed"
    assert "iteration 3 failed: java.lang.IllegalStateException: deliberate crash in iteration 3" in error.detail
    assert "BrokenBench.crash" in error.output
    assert_group_gone(fork.pid)


def test_a_benchmark_jvm_that_dies_is_a_crash(adapter, broken):
    ctx, benchmarks = broken
    fork = adapter.start_fork(ctx, benchmarks["broken.BrokenBench.exitVm"], plan(5))
    results, error = run_until_failure(fork)
    assert len(results) == 2
    assert error.reason == "crashed" and "forked VM failed with exit code 3" in error.detail
    assert_group_gone(fork.pid)


def test_garbage_output_fails_the_fork_and_keeps_earlier_iterations(adapter, broken):
    ctx, benchmarks = broken
    fork = adapter.start_fork(ctx, benchmarks["broken.BrokenBench.garbage"], plan(5))
    results, error = run_until_failure(fork)
    assert len(results) == 2
    assert error.reason == "garbage" and "garbage!" in error.detail
    assert str(error).startswith("broken:broken.BrokenBench.garbage: fork garbage")
    assert_group_gone(fork.pid)


def test_a_hanging_benchmark_times_out_and_its_group_is_killed(adapter, broken):
    ctx, benchmarks = broken
    fork = adapter.start_fork(ctx, benchmarks["broken.BrokenBench.hang"], plan(5, iteration_timeout_s=2.0))
    started = time.monotonic()
    results, error = run_until_failure(fork)
    assert len(results) == 2
    assert error.reason == "timeout" and "iteration 3" in error.detail
    assert time.monotonic() - started < 20
    assert_group_gone(fork.pid)


def test_the_overall_fork_time_limit_is_enforced(adapter, broken):
    ctx, benchmarks = broken
    # 200 iterations of 0.1 s cannot end within 8 s, and one JVM start cannot take all of it: a CI run beside other
    # tests once produced no iteration within 2 s (JVM start-up and JMH's own set-up under load)
    fork = adapter.start_fork(ctx, benchmarks["broken.BrokenBench.fine@avgt"], plan(200, timeout_s=8.0))
    results, error = run_until_failure(fork)
    assert error.reason == "timeout" and "time limit of 8s" in error.detail
    assert 0 < len(results) < 200
    assert_group_gone(fork.pid)


def test_a_multi_mode_benchmark_runs_in_the_listed_mode(adapter, broken):
    ctx, benchmarks = broken
    thrpt = benchmarks["broken.BrokenBench.fine@thrpt"]
    results = list(adapter.start_fork(ctx, thrpt, plan(2)))
    assert len(results) == 2 and thrpt.unit == "ops/ns"
    assert all(r.raw_value == pytest.approx(1 / r.value_ns) for r in results)


def test_exit_without_iterations_and_a_failing_launcher(adapter, broken):
    ctx, benchmarks = broken
    fine = benchmarks["broken.BrokenBench.fine@avgt"]
    no_output = replace(ctx, options={"java": shutil.which("true")})
    _, error = run_until_failure(adapter.start_fork(no_output, fine, plan(2)))
    assert error.reason == "no-results"
    failing = replace(ctx, options={"java": shutil.which("false")})
    _, error = run_until_failure(adapter.start_fork(failing, fine, plan(2)))
    assert error.reason == "crashed" and "exited with status 1" in error.detail


def test_no_java_processes_of_ours_are_left(example, broken):
    jars = ("broken-project/target/benchmarks.jar", "examples/jmh/target/benchmarks.jar")
    leftovers = matching(lambda p: p.pid != os.getpid() and any(j in a for a in p.argv for j in jars))
    assert leftovers == []
