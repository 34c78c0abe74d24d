"""End-to-end: unit tests as workloads (kind = "junit", issue #16) with real Maven, JUnit and JVM processes.

The example (examples/junit: wordstat's own unit tests, the JMH example's library) and a fixture project whose
tests exercise the edges: an expensive @BeforeEach around a cheap body, a failing test, a disabled one, an aborted
assumption.  Iterations are 100 ms; the whole file runs in about a minute once Maven has its dependencies.
"""

from __future__ import annotations

import io
import json
import shutil
import socket
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from benchwarden.adapters import DEFAULT_BUILDS
from benchwarden.adapters.base import ForkPlan, SuiteContext
from benchwarden.adapters.junit import JunitAdapter, fork_argv
from benchwarden.cli import main
from benchwarden.errors import ConfigError, ForkFailed

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("java") is None, reason="JUnit end-to-end tests need 'java' on PATH"),
    pytest.mark.skipif(shutil.which("mvn") is None, reason="JUnit end-to-end tests need 'mvn' on PATH"),
]

REPO = Path(__file__).resolve().parents[2]
ITERATION_S = 0.1
WORDSTAT_TESTS = ["wordstat.WordStatTest#tokenizeFindsEveryWord", "wordstat.WordStatTest#countsAddUpToTheWords",
                  "wordstat.WordStatTest#topThreeAreTheMostFrequent", "wordstat.WordStatTest#capitalizeLeavesSeparators"]


def plan(max_iterations: int = 3, **kw) -> ForkPlan:
    settings = dict(fork_index=1, iteration_time_s=ITERATION_S, max_iterations=max_iterations, timeout_s=120.0,
                    iteration_timeout_s=60.0)
    settings.update(kw)
    return ForkPlan(**settings)


def copy_example(into: Path) -> Path:
    """examples/junit with the library it compiles (../jmh/src/main/java), without stores or build output."""
    skip = shutil.ignore_patterns(".benchwarden", "target")
    shutil.copytree(REPO / "examples" / "junit", into / "junit", ignore=skip)
    shutil.copytree(REPO / "examples" / "jmh" / "src", into / "jmh" / "src", ignore=skip)
    return into / "junit"


@pytest.fixture(scope="module")
def adapter() -> JunitAdapter:
    return JunitAdapter()


@pytest.fixture(scope="module")
def lifecycle(adapter, tmp_path_factory):
    root = tmp_path_factory.mktemp("junit") / "lifecycle"
    shutil.copytree(REPO / "tests" / "data" / "junit" / "lifecycle-project", root)
    ctx = SuiteContext(name="lifecycle", kind="junit", root=root, build=DEFAULT_BUILDS["junit"])
    prepared = adapter.prepare(ctx)
    return ctx, prepared, {b.id.name: b for b in adapter.list_benchmarks(ctx)}


def test_prepare_resolves_the_projects_platform_and_a_matching_launcher(lifecycle):
    ctx, prepared, _ = lifecycle
    assert prepared.toolchain["junit-platform"] == "1.10.2"  # junit-jupiter 5.10.2's platform
    classpath = (ctx.root / ".benchwarden" / "build" / "junit" / "classpath.txt").read_text().split()
    assert any(Path(p).name == "junit-platform-launcher-1.10.2.jar" for p in classpath), classpath
    assert str(ctx.root / "target" / "test-classes") == classpath[0]


def test_list_finds_every_test_method_disabled_ones_included(lifecycle):
    _, _, tests = lifecycle
    assert set(tests) == {f"demo.LifecycleTest#{m}" for m in
                          ("cheapBody", "printsToStandardOutput", "failsDeliberately", "disabled",
                           "assumesTheImpossible", "repeatedCheapBody", "parameterizedCheapBody(int)",
                           "secondInvocationFails(int)", "dynamicCheapBodies", "secondDynamicTestFails")} | {f"demo.NetworkTest#{m}" for m in NETWORK_TESTS}
    # test templates are selected by the template's own id: their invocations exist only while they run
    assert "[test-template:parameterizedCheapBody(int)]" in tests["demo.LifecycleTest#parameterizedCheapBody(int)"].spec[
        "unique_id"]
    assert all(b.spec["engine"] == "junit-jupiter" and b.unit == "ns/op" for b in tests.values())


def test_only_the_body_is_timed_not_the_lifecycle_around_it(adapter, lifecycle):
    """@BeforeEach sleeps 5 ms and @AfterEach 1 ms before/after every execution; the body sums 1,000 ints.  Were
    the lifecycle timed, no execution could measure below 6 ms; the body takes microseconds."""
    ctx, _, tests = lifecycle
    results = list(adapter.start_fork(ctx, tests["demo.LifecycleTest#cheapBody"], plan(max_iterations=3)))
    assert len(results) == 3
    for r in results:
        assert 0 < r.value_ns < 1_000_000, r  # well under the 6 ms of lifecycle: body only
        # ~6 ms of untimed lifecycle per execution: a 100-ms iteration holds at most ~17 of them
        assert 1 <= r.ops <= 20, r


@pytest.mark.parametrize("name, invocations", [("repeatedCheapBody", 4), ("parameterizedCheapBody(int)", 3)])
def test_a_test_template_is_one_operation_of_all_its_invocations_bodies_only(adapter, lifecycle, name, invocations):
    """@RepeatedTest(4) and a @ParameterizedTest of three values: one operation runs every invocation, each inside
    the 6 ms of lifecycle, and only the bodies are timed. Were the lifecycle timed (a template's invocations go
    through JUnit's template interceptor, not the test-method one), an operation could not measure below
    invocations × 6 ms."""
    ctx, _, tests = lifecycle
    results = list(adapter.start_fork(ctx, tests[f"demo.LifecycleTest#{name}"], plan(max_iterations=2)))
    assert len(results) == 2
    for r in results:
        # a few microseconds of bodies (a cold first one took 1.4 ms beside a loaded CI run), far under the
        # invocations x 6 ms a timed lifecycle would add: half of that separates the two
        assert 0 < r.value_ns < invocations * 6_000_000 / 2, r
        # ~invocations x 6 ms of untimed lifecycle per operation: a 100-ms iteration holds at most 100 / (6 x n)
        assert 1 <= r.ops <= 100 // (6 * invocations) + 1, r


def test_a_test_factory_is_one_operation_of_the_factory_and_its_dynamic_tests_bodies_only(adapter, lifecycle):
    """@TestFactory of three dynamic tests: JUnit runs the 6 ms of lifecycle around the factory method once per
    execution (dynamic tests have none). Timed as a whole execution, an operation could not measure below 6 ms;
    the factory's body and the three tests' take microseconds."""
    ctx, _, tests = lifecycle
    factory = tests["demo.LifecycleTest#dynamicCheapBodies"]
    assert "[test-factory:dynamicCheapBodies()]" in factory.spec["unique_id"]
    results = list(adapter.start_fork(ctx, factory, plan(max_iterations=2)))
    assert len(results) == 2
    for r in results:
        assert 0 < r.value_ns < 3_000_000, r  # half the lifecycle a whole-execution timing would include
        assert 1 <= r.ops <= 100 // 6 + 1, r  # ~6 ms of untimed lifecycle per operation
    # and the bodies are what was timed, not each dynamic test's execution with JUnit's own work around it (the
    # fallback when the timer sees fewer bodies than tests ran): the launcher says which, per iteration
    done = subprocess.run(fork_argv(ctx, factory, plan(max_iterations=2)), cwd=ctx.root, capture_output=True,
                          text=True, timeout=120)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith('{"v":1,"iteration"')]
    assert [line["timed"] for line in lines] == ["body", "body"], done.stdout + done.stderr


@pytest.fixture(scope="module")
def one_by_one(adapter, lifecycle):
    """The lifecycle project listed with ``invocations = true``."""
    ctx = replace(lifecycle[0], options={"invocations": True})
    return ctx, {b.id.name: b for b in adapter.list_benchmarks(ctx)}


def test_invocations_one_by_one_are_listed_after_their_template(one_by_one):
    _, tests = one_by_one
    names = [n.removeprefix("demo.LifecycleTest#") for n in tests]
    at = names.index("parameterizedCheapBody(int)")
    assert names[at:at + 4] == ["parameterizedCheapBody(int)", *(f"parameterizedCheapBody(int)[{k}]" for k in (1, 2, 3))]
    assert {f"repeatedCheapBody[{k}]" for k in (1, 2, 3, 4)} <= set(names)
    assert {"dynamicCheapBodies[1]", "dynamicCheapBodies[2]", "dynamicCheapBodies[3]"} <= set(names)
    assert "cheapBody" in names and not any(n.startswith("cheapBody[") for n in names)  # plain tests stay one
    assert tests["demo.LifecycleTest#dynamicCheapBodies[2]"].spec["display"] == "twice"


@pytest.mark.parametrize("template, message", [("secondInvocationFails(int)", "the invocation with 2"),
                                               ("secondDynamicTestFails", "the dynamic test two")])
def test_one_invocation_runs_alone_so_a_failing_sibling_does_not_fail_it(adapter, one_by_one, template, message):
    """A template (or factory) whose second invocation fails fails as a whole; its first invocation, selected by
    its own unique id, runs alone: measured, bodies only; its second is a failed fork with JUnit's message."""
    ctx, tests = one_by_one
    first = tests[f"demo.LifecycleTest#{template}[1]"]
    results = list(adapter.start_fork(ctx, first, plan(max_iterations=2)))
    assert len(results) == 2 and all(0 < r.value_ns < 3_000_000 for r in results), results
    with pytest.raises(ForkFailed) as info:
        list(adapter.start_fork(ctx, tests[f"demo.LifecycleTest#{template}[2]"], plan()))
    assert info.value.reason == "crashed" and message in str(info.value) + info.value.output


def test_invocations_must_be_true_or_false(adapter, lifecycle):
    with pytest.raises(ConfigError, match="true or false") as info:
        adapter.list_benchmarks(replace(lifecycle[0], options={"invocations": "yes"}))
    assert info.value.key == "suites.lifecycle.invocations"


def test_cpu_time_is_the_test_threads_and_wall_time_is_kept_beside_it(adapter, lifecycle):
    """metric = "cpu": the body's CPU time on the test thread is the value; the wall time moves to a secondary."""
    ctx, _, tests = lifecycle
    results = list(adapter.start_fork(ctx, tests["demo.LifecycleTest#cheapBody"], plan(max_iterations=2, metric="cpu")))
    assert len(results) == 2
    for r in results:
        wall = r.secondary["wall [ns/op]"]
        assert 0 < r.value_ns < 1_000_000 and 0 < wall < 1_000_000, r
        assert "cpu [ns/op]" not in r.secondary


def test_a_test_that_prints_to_standard_output_still_streams_its_iterations(adapter, lifecycle):
    ctx, _, tests = lifecycle
    results = list(adapter.start_fork(ctx, tests["demo.LifecycleTest#printsToStandardOutput"], plan(max_iterations=2)))
    assert len(results) == 2 and all(r.value_ns > 0 for r in results)


@pytest.mark.parametrize("name, message", [("failsDeliberately", "deliberately broken"),
                                           # a template whose second invocation fails fails as a whole
                                           ("secondInvocationFails(int)", "the invocation with 2"),
                                           # and a factory whose second dynamic test fails
                                           ("secondDynamicTestFails", "the dynamic test two")])
def test_a_failing_test_is_a_failed_fork_with_junits_message(adapter, lifecycle, name, message):
    ctx, _, tests = lifecycle
    with pytest.raises(ForkFailed) as info:
        list(adapter.start_fork(ctx, tests[f"demo.LifecycleTest#{name}"], plan()))
    assert info.value.reason == "crashed"
    assert message in str(info.value) + info.value.output


@pytest.mark.parametrize("name, why", [("disabled", "not today"), ("assumesTheImpossible", "never true")])
def test_disabled_and_aborted_tests_are_skipped_with_the_reason(adapter, lifecycle, name, why):
    ctx, _, tests = lifecycle
    with pytest.raises(ForkFailed) as info:
        list(adapter.start_fork(ctx, tests[f"demo.LifecycleTest#{name}"], plan()))
    assert info.value.reason == "skipped"
    assert why in str(info.value)


NETWORK_TESTS = {"connectsToAnotherHost": "connect 203.0.113.1:9", "resolvesAName": "resolve benchwarden-screening.invalid",
                 "swallowsTheRefusal": "connect 203.0.113.1:80", "talksToItselfOverLoopback": None,
                 "seesNoGuardOnceScreened": None, "asksForThisMachine": None}


@pytest.mark.parametrize("name", [n for n, asked in NETWORK_TESTS.items() if asked])
def test_a_test_that_touches_the_network_is_skipped_with_what_it_asked_for(adapter, lifecycle, name):
    """The first, untimed execution runs under the launcher's network guard: a connection to another host, a name
    to resolve, or a refusal the test catches and passes anyway, each skips the test before anything is timed."""
    ctx, _, tests = lifecycle
    with pytest.raises(ForkFailed) as info:
        list(adapter.start_fork(ctx, tests[f"demo.NetworkTest#{name}"], plan()))
    assert info.value.reason == "skipped", (info.value, info.value.output)
    assert "touches the network" in str(info.value) and NETWORK_TESTS[name] in str(info.value), str(info.value)


def test_the_guard_knows_this_machine_by_the_name_the_adapter_passes(adapter, lifecycle):
    """Every fork gets the kernel's host name (``-Dbenchwarden.hostname``, nothing resolved); a test asking for this
    machine by that name is measured, and the guard goes by the property: told another name (a later ``-D`` wins),
    the same test is screened out for asking for this machine's own name."""
    ctx, _, tests = lifecycle
    test = tests["demo.NetworkTest#asksForThisMachine"]
    fork = adapter.start_fork(ctx, test, plan())
    assert f"-Dbenchwarden.hostname={socket.gethostname()}" in fork._process.argv
    assert len(list(fork)) == 3
    with pytest.raises(ForkFailed) as info:
        list(adapter.start_fork(ctx, test, plan(jvm_args=("-Dbenchwarden.hostname=not-this-machine",))))
    assert info.value.reason == "skipped" and f"resolve {socket.gethostname().lower()}" in str(info.value), info.value


def test_network_screening_reaches_the_run_and_a_loopback_test_is_measured(lifecycle, tmp_path):
    """`benchwarden run` on the fixture's network tests: the three that ask for another host are reported skipped
    with the request (exit 0: a skipped test is not a failure), the one that talks to itself over loopback is
    measured, and the guard is gone once the first execution is over (a Security Manager left in place would check
    every permission the JDK asks for while the test is timed; one test fails if it sees any)."""
    ctx, _, _ = lifecycle
    (ctx.root / "benchwarden.toml").write_text('[suites.lifecycle]\nkind = "junit"\n', encoding="utf-8")
    status, out, err = _cli(ctx.root, "run", "--filter", "NetworkTest", "--iteration-time", "100ms", "--warmup", "1",
                            "--iterations", "2", "--forks", "1", "--stop", "static", "--json", "-q")
    assert status == 0, err
    rows = {b["benchmark"].rpartition("#")[2]: b for b in json.loads(out)["benchmarks"]}
    assert set(rows) == set(NETWORK_TESTS), rows
    for name in ("talksToItselfOverLoopback", "seesNoGuardOnceScreened", "asksForThisMachine"):  # the second fails if the guard stays
        assert rows[name]["status"] == "ok" and rows[name]["mean"] > 0 and rows[name]["forks"] == 1, rows[name]
    for name, asked in NETWORK_TESTS.items():
        if asked:
            assert rows[name]["status"] == "skipped" and rows[name]["forks"] == 0, rows[name]
            assert "touches the network" in rows[name]["message"] and asked in rows[name]["message"], rows[name]


@pytest.fixture(scope="module")
def vintage(adapter, tmp_path_factory):
    root = tmp_path_factory.mktemp("junit") / "vintage"
    shutil.copytree(REPO / "tests" / "data" / "junit" / "vintage-project", root)
    ctx = SuiteContext(name="vintage", kind="junit", root=root, build=DEFAULT_BUILDS["junit"])
    adapter.prepare(ctx)
    return ctx, {b.id.name: b for b in adapter.list_benchmarks(ctx)}


def test_junit4_tests_run_through_the_vintage_engine_timed_whole(adapter, vintage):
    """JUnit 4 on the JUnit Platform (the vintage engine, as Surefire runs it): listed and run like Jupiter tests;
    JUnit 4 has no hook around the body alone, so the execution is timed, its 5-ms @Before included."""
    ctx, tests = vintage
    assert set(tests) == {"legacy.LegacyTest#cheapBody", "legacy.LegacyTest#failsDeliberately",
                          "legacy.LegacyTest#ignored", "legacy.LegacyNetworkTest#connectsToAnotherHost"}
    assert {b.spec["engine"] for b in tests.values()} == {"junit-vintage"}
    results = list(adapter.start_fork(ctx, tests["legacy.LegacyTest#cheapBody"], plan(max_iterations=2)))
    assert len(results) == 2 and all(5_000_000 < r.value_ns < 100_000_000 for r in results), results
    with pytest.raises(ForkFailed) as failed:
        list(adapter.start_fork(ctx, tests["legacy.LegacyTest#failsDeliberately"], plan()))
    assert failed.value.reason == "crashed" and "deliberately broken, JUnit 4 style" in (
        str(failed.value) + failed.value.output)
    with pytest.raises(ForkFailed) as ignored:
        list(adapter.start_fork(ctx, tests["legacy.LegacyTest#ignored"], plan()))
    assert ignored.value.reason == "skipped" and "not today either" in str(ignored.value)


def test_a_junit4_test_that_touches_the_network_is_skipped_too(adapter, vintage):
    """The network guard is the launcher's, around whatever engine runs the test: a JUnit 4 test connecting to
    another host is skipped with its request, before anything is timed."""
    ctx, tests = vintage
    with pytest.raises(ForkFailed) as info:
        list(adapter.start_fork(ctx, tests["legacy.LegacyNetworkTest#connectsToAnotherHost"], plan()))
    assert info.value.reason == "skipped" and "touches the network (connect 203.0.113.7:443," in str(info.value), \
        (info.value, info.value.output)


def test_a_project_without_a_pom_is_a_config_error(adapter, tmp_path):
    with pytest.raises(ConfigError, match="no pom.xml"):
        adapter.prepare(SuiteContext(name="bare", kind="junit", root=tmp_path))


def _cli(root: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main([*argv, "--config", str(root / "benchwarden.toml")], stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_run_and_show_on_the_example(tmp_path):
    root = copy_example(tmp_path)
    status, out, err = _cli(root, "run", "--iteration-time", "100ms", "--warmup", "3", "--iterations", "3",
                            "--forks", "2", "--stop", "static", "-q")
    assert status == 0, err
    status, out, err = _cli(root, "show", "--json")
    assert status == 0, err
    shown = {row["benchmark"]: row for row in json.loads(out)["benchmarks"]}
    assert sorted(shown) == sorted(WORDSTAT_TESTS)
    assert all(row["forks"] == 2 and row["mean"] > 0 for row in shown.values())
    # tokenizing 10,000 words takes longer than capitalizing 20 characters: ~40x here, but in a fresh clean clone
    # capitalize measured 341 µs per execution (1.16 ms for tokenize) with 3 warmup iterations of 100 ms: the
    # ordering is what this test checks; the short test's slow first executions are a #16 finding
    assert shown[WORDSTAT_TESTS[0]]["mean"] > 2 * shown[WORDSTAT_TESTS[3]]["mean"]


def test_compare_finds_the_libraries_slowdown_through_its_unit_test(tmp_path):
    """The JMH example's large switchable slowdown of tokenize (~1.7x there), seen by the unit test that calls it;
    the test that does not call tokenize stays quiet."""
    root = copy_example(tmp_path)
    # in CPU time (the test thread's, docs/metrics.md), the metric for a loaded machine: in wall time, beside
    # another e2e test on both cores, 6 pairs once left this ~1.7x change inconclusive at ratio 2.93, interval
    # [0.36, 26.6], and 10 pairs once at 2.43, [0.78, 7.42] -- noise costs pairs, not the verdict, but this test
    # is about the unit test reaching the change, not about the machine; the CPU time of that run saw +133 %
    config = root / "benchwarden.toml"
    text = config.read_text(encoding="utf-8")
    assert 'kind = "junit"\n' in text
    config.write_text(text.replace('kind = "junit"\n', 'kind = "junit"\nmetric = "cpu"\n', 1), encoding="utf-8")
    status, out, err = _cli(root, "compare", "--variant-env", "WORDSTAT_SLOW=large", "--filter",
                            "tokenizeFindsEveryWord|capitalizeLeavesSeparators", "--iteration-time", "100ms",
                            "--warmup", "5", "--iterations", "5", "--max-forks", "10", "--json", "-q")
    # not the default 20 pairs: the unchanged test runs to the budget (127 s of a CI run at 20)
    assert out, err
    verdicts = {row["benchmark"]: row for row in json.loads(out)["benchmarks"]}
    assert status == 1, err
    assert verdicts[WORDSTAT_TESTS[0]]["verdict"] == "slower" and verdicts[WORDSTAT_TESTS[0]]["metric"] == "cpu", verdicts
    assert verdicts[WORDSTAT_TESTS[3]]["verdict"] not in ("slower", "faster"), verdicts


def test_check_spl_assertions_over_unit_tests(tmp_path):
    """`check` on unit tests (issue #16): tests are named as they are listed (Class#method) or by a suffix. The
    counting test tokenizes and counts twice (~2.5x the tokenizing test here): the true ordering holds, the
    reversed one fails, exit 1. In the test thread's CPU time, as the compare test above and for its reason: in
    wall time, beside a CPU-bound neighbour, fork means of the two tests spread over 0.4-9.1 ms and 1.6-6.9 ms
    and twelve rounds left the reversed ordering undecided (exit 0)."""
    root = copy_example(tmp_path)
    config = root / "benchwarden.toml"
    text = config.read_text(encoding="utf-8")
    assert 'kind = "junit"\n' in text
    config.write_text(text.replace('kind = "junit"\n', 'kind = "junit"\nmetric = "cpu"\n', 1), encoding="utf-8")
    (root / "perf.spl").write_text(
        "`wordstat.WordStatTest#tokenizeFindsEveryWord` <= `WordStatTest#countsAddUpToTheWords`\n"
        "`countsAddUpToTheWords` <= `tokenizeFindsEveryWord`\n", encoding="utf-8")
    status, out, err = _cli(root, "check", str(root / "perf.spl"), "--json")
    assert status == 1, err
    results = [a["verdict"] for a in json.loads(out)["assertions"]]
    assert results == ["holds", "fails"], out


def test_init_makes_a_maven_project_with_only_tests_a_junit_suite(tmp_path):
    """`benchwarden init` on the example's Maven project (unit tests, no benchmarks): a `junit` suite, which init
    builds and lists with real Maven and JUnit, so the written config is one `run` accepts."""
    root = copy_example(tmp_path)
    (root / "benchwarden.toml").unlink()
    out, err = io.StringIO(), io.StringIO()
    assert main(["init", str(root), "--json"], stdout=out, stderr=err) == 0, err.getvalue()
    [suite] = json.loads(out.getvalue())["suites"]
    assert (suite["kind"], suite["path"], suite["proposed"]) == ("junit", ".", False)
    assert suite["benchmarks"] == len(WORDSTAT_TESTS), (suite, err.getvalue())
