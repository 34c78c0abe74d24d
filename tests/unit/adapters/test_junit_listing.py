"""The junit adapter's pure parts: the launcher's listing line, the platform version of a test classpath, the
launcher's own JVM arguments."""

from __future__ import annotations

import json
import socket

import pytest

from benchwarden.adapters.junit import benchmarks_from_listing, launcher_jvm_arguments, platform_version
from benchwarden.errors import ListingFailed


def listing(*tests: dict, **extra) -> str:
    return json.dumps({"v": 1, "tests": list(tests), "templates": [], **extra})


def test_each_test_method_is_a_benchmark_selected_by_its_unique_id():
    uid = "[engine:junit-jupiter]/[class:demo.ATest]/[method:works()]"
    (b,) = benchmarks_from_listing("unit", listing({"name": "demo.ATest#works", "unique_id": uid,
                                                    "engine": "junit-jupiter"}))
    assert (b.id.suite, b.id.name, b.mode, b.unit) == ("unit", "demo.ATest#works", "avgt", "ns/op")
    assert b.spec == {"unique_id": uid, "engine": "junit-jupiter"}


def test_a_method_seen_twice_counts_once_in_discovery_order():
    tests = [{"name": n, "unique_id": f"{n}-{i}"} for i, n in enumerate(["b#x", "a#y", "b#x"])]
    found = benchmarks_from_listing("unit", listing(*tests))
    assert [(b.id.name, b.spec["unique_id"]) for b in found] == [("b#x", "b#x-0"), ("a#y", "a#y-1")]


def test_a_test_template_is_one_benchmark_after_the_test_methods():
    template = {"name": "demo.ATest#each(int)", "unique_id": "[engine:junit-jupiter]/[class:demo.ATest]/"
                "[test-template:each(int)]", "engine": "junit-jupiter"}
    line = json.dumps({"v": 1, "tests": [{"name": "demo.ATest#works", "unique_id": "w"}], "templates": [template]})
    found = benchmarks_from_listing("unit", line)
    assert [b.id.name for b in found] == ["demo.ATest#works", "demo.ATest#each(int)"]
    assert found[1].spec["unique_id"] == template["unique_id"]  # run by the template's own id: every invocation


EACH = "[engine:junit-jupiter]/[class:demo.ATest]/[test-template:each(int)]"
MAKE = "[engine:junit-jupiter]/[class:demo.ATest]/[test-factory:make()]"


def test_each_invocation_of_a_template_and_test_of_a_factory_follows_its_template_when_listed():
    templates = [{"name": "demo.ATest#each(int)", "unique_id": EACH}, {"name": "demo.ATest#make", "unique_id": MAKE}]
    invocations = [{"template": EACH, "unique_id": f"{EACH}/[test-template-invocation:#{k}]", "display": f"[{k}] {k}"}
                   for k in (1, 2)]
    invocations += [{"template": MAKE, "unique_id": f"{MAKE}/[dynamic-container:#1]/[dynamic-test:#3]",
                     "display": "deep"},
                    {"template": EACH, "unique_id": f"{EACH}/[test-template-invocation:#3]", "display": "[3] 3"}]
    line = json.dumps({"v": 1, "tests": [{"name": "demo.ATest#works", "unique_id": "w"}], "templates": templates,
                       "invocations": invocations})
    found = benchmarks_from_listing("unit", line)
    assert [b.id.name for b in found] == ["demo.ATest#works", "demo.ATest#each(int)", "demo.ATest#each(int)[1]",
                                          "demo.ATest#each(int)[2]", "demo.ATest#each(int)[3]", "demo.ATest#make",
                                          "demo.ATest#make[1/3]"]
    assert found[3].spec == {"unique_id": f"{EACH}/[test-template-invocation:#2]", "engine": "", "display": "[2] 2"}


@pytest.mark.parametrize("invocation", [
    {"template": EACH, "unique_id": "[engine:junit-jupiter]/[class:demo.BTest]/[test-template-invocation:#1]",
     "display": "elsewhere"},
    {"template": "[engine:junit-jupiter]/[class:demo.Unlisted]/[test-template:x()]",
     "unique_id": "[engine:junit-jupiter]/[class:demo.Unlisted]/[test-template:x()]/[test-template-invocation:#1]",
     "display": "x"},
    {"template": EACH, "unique_id": EACH + "/[test-template-invocation:#1]"},
    {"template": EACH, "unique_id": EACH + "/no-number", "display": "?"},
    "not an object",
])
def test_a_bad_invocation_entry_is_a_listing_error(invocation):
    line = json.dumps({"v": 1, "tests": [], "templates": [{"name": "demo.ATest#each(int)", "unique_id": EACH}],
                       "invocations": [invocation]})
    with pytest.raises(ListingFailed, match="suite 'unit'.*malformed invocation"):
        benchmarks_from_listing("unit", line)


@pytest.mark.parametrize("line, message", [
    (json.dumps({"v": 1, "tests": [], "templates": "x"}), "malformed listing"),
    (json.dumps({"v": 1, "tests": [], "invocations": {}}), "malformed listing"),
    (json.dumps({"v": 1, "tests": [], "templates": [{"name": "a#b"}]}), "malformed test entry"),
    ("not json", "not JSON"),
    (json.dumps({"v": 2, "tests": []}), "malformed listing"),
    (json.dumps({"v": 1, "error": "boom", "traceback": "at X"}), "boom\nat X"),
    (listing({"name": "a#b"}), "malformed test entry"),
    (listing({"name": 3, "unique_id": "u"}), "malformed test entry"),
])
def test_a_bad_listing_is_a_listing_error_naming_the_suite(line, message):
    with pytest.raises(ListingFailed, match="suite 'unit'") as info:
        benchmarks_from_listing("unit", line)
    assert message in str(info.value)


def test_the_platform_version_is_that_of_the_engine_jar():
    jars = ["/m2/org/opentest4j/opentest4j-1.3.0.jar", "/m2/junit-platform-commons-1.10.2.jar",
            "/m2/junit-platform-engine-1.10.2.jar", "/m2/junit-jupiter-engine-5.10.2.jar"]
    assert platform_version(jars) == "1.10.2"
    assert platform_version(["/x/junit-platform-engine-1.11.0-M1.jar"]) == "1.11.0-M1"
    assert platform_version(["/m2/junit-4.13.2.jar", "/m2/hamcrest-core-1.3.jar"]) is None


def test_a_test_fork_gets_the_suites_jvm_arguments_once(monkeypatch, tmp_path):
    """The runner's plan repeats the suite's jvm_args and adds its own; given twice, a -javaagent loaded the
    agent twice and slowed the method twice over (a JUnit fork slowed by v = 3 ran 11.8x slower, not ~3x)."""
    from benchwarden.adapters import junit
    from benchwarden.adapters.base import ForkPlan, SuiteContext
    from benchwarden.model import Benchmark, BenchmarkId

    started = []

    class Recorder:
        def __init__(self, argv, **kwargs):
            started.append(list(argv))

    monkeypatch.setattr(junit, "ManagedProcess", Recorder)
    monkeypatch.setattr(junit, "_classpath", lambda ctx: "cp")
    monkeypatch.setattr(junit, "java_executable", lambda ctx: "java")
    suite_args = ("-Xmx256m", "-javaagent:agent.jar=mode=slowdown")
    ctx = SuiteContext(name="unit", kind="junit", root=tmp_path, jvm_args=suite_args)
    bench = Benchmark(BenchmarkId("unit", "demo.ATest#works"), "avgt", "ns/op", spec={"unique_id": "uid"})
    plan = ForkPlan(fork_index=1, iteration_time_s=0.1, max_iterations=3, timeout_s=10, iteration_timeout_s=10,
                    jvm_args=(*suite_args, "-Dextra=1"))
    junit.JunitAdapter().start_fork(ctx, bench, plan)
    (argv,) = started
    assert argv[: argv.index("-cp")] == ["java", f"-Dbenchwarden.hostname={socket.gethostname()}", "-Xmx256m",
                                         "-javaagent:agent.jar=mode=slowdown", "-Dextra=1"]


@pytest.mark.parametrize("version, arguments", [
    ("11.0.22", []), ("17.0.15", []),  # a Security Manager is allowed by default
    ("18", ["-Djava.security.manager=allow"]), ("21.0.2", ["-Djava.security.manager=allow"]),
    ("23-ea", ["-Djava.security.manager=allow"]),
    ("24", []), ("25.0.1", []),  # JEP 486: none, and the JVM would refuse to start with the option
    ("1.8.0_402", []), ("unknown", []),
])
def test_the_network_guard_gets_the_security_manager_allowed_only_where_that_is_needed_and_possible(version, arguments):
    assert launcher_jvm_arguments(version) == arguments
