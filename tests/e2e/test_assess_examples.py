"""``benchwarden assess`` on each example suite, for real: the deliberately unbenchmarked public method is
uncovered, the benchmarked ones are covered, and the deliberately noisy benchmark is unstable.

Tiny settings keep each suite to well under two minutes: 2 baseline runs, short iterations, 3 benchmarks.
The JUnit example (unit tests as workloads, issue #16) runs two of its test methods.
The Go and Python examples run the study's rule with a large slowdown (v = 3: the benchmarked methods dominate
their benchmarks, so their time quadruples and p < 0.01 with a change of at least v/2 in both repetitions holds
even on a busy machine): they prove the injection end to end.  The JMH and JUnit examples run the compare rule
(the default) at the same v, which costs fewer slowed JVMs than the study's two repetitions.  On the Go
example the compare rule also runs at v = 50 %: a stable benchmark detects a slowdown its forks can resolve and
states the smallest one it would, the noisy one is "not detectable at this budget".  Its sensitivity to 3–10 % changes is shown by seeded
simulation (tests/unit/assess/test_detect_score.py), not by timing here.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from benchwarden.cli import main

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]

JMH_TOML = """
[defaults]
iteration_time = "100ms"
warmup = { min = 6, max = 6 }     # 0.6 s: the JIT needs a few iterations, and a slowed method warms up slower
iterations = 5
forks = { min = 2, max = 2 }      # two JVMs per run: under load (average 6) one disturbed JVM per repetition
                                  # once measured a 4x slowdown as +87 %, under the study's v/2 = 150 %
timeout = "2m"

[suites.wordstat]
kind = "jmh"
build = "mvn -q -B package -DskipTests"
artifact = "target/benchmarks.jar"
# A fixed, pre-touched heap: with a growing heap the allocation-heavy tokenize ran ~10x slower for up to
# 1.3 s whenever new heap memory was first touched, at any point of a fork (docs/performance.md).
jvm_args = ["-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch"]
filter = '(TokenizeBench\\.tokenize\\[size=100\\]|countHash|noisy)$'

[assess]
runs = 2
slowdown = 3.0   # the compare rule (the default), as for JUnit: one slowed series per pair, decided in 2+ forks
methods = ["wordstat.WordStat#tokenize(java.lang.String)", "wordstat.WordStat#countWordsHash(java.util.List)",
           "wordstat.WordStat#capitalizeWords(java.lang.String)"]
"""

GO_TOML = """
[defaults]
iteration_time = "50ms"
warmup = { min = 1, max = 1 }
iterations = 12
forks = { min = 1, max = 1 }
timeout = "2m"

[suites.wordstat]
kind = "go"
filter = 'Tokenize\\[size=100\\]|CountWordsHash|Noisy'
# CPU time per operation (docs/metrics.md): on a loaded machine wall time of one 50-ms fork per repetition
# varied enough (load average 6) that a 4x slowdown once measured +108 % in one repetition, under the
# study's v/2 = 150 %; CPU time does not count the time other processes hold the core
metric = "cpu"

[assess]
runs = 2
slowdown = 3.0
rule = "study"
discover = "tests"   # K′ = the most-called exported functions while `go test ./...` runs
top = 6
"""

PYTHON_TOML = """
[defaults]
iteration_time = "50ms"
warmup = { min = 1, max = 1 }
iterations = 6
forks = { min = 2, max = 2 }
timeout = "2m"

[suites.wordstat]
kind = "python"
benchmarks = "benchmarks"
pythonpath = ["."]
filter = 'time_tokenize\\[size=100\\]|time_count_hash|time_noisy'
metric = "cpu"   # as for Go: load must not decide whether a 4x slowdown is seen

[assess]
runs = 2
slowdown = 3.0
rule = "study"
methods = ["wordstat:tokenize", "wordstat:count_words_hash", "wordstat:capitalize_words"]
"""


JUNIT_TOML = """
[defaults]
iteration_time = "100ms"
warmup = { min = 10, max = 10 }   # the JIT compiles the tests' hot loops in the first few iterations
iterations = 6
forks = { min = 2, max = 2 }
timeout = "2m"

[suites.unit]
kind = "junit"
jvm_args = ["-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch"]   # as for JMH: no first-touch stalls of a growing heap
filter = '#(tokenizeFindsEveryWord|countsAddUpToTheWords)$'

[assess]
runs = 2
slowdown = 3.0   # the compare rule (the default) at a size these noisy forks can decide
max_forks = 10   # noise costs slowed forks: beside other CI tests one pair's 2 slowed forks spread [0.2, 30] and the
                 # default budget of 5 stopped it for futility (7 Dec 2026)
methods = ["wordstat.WordStat#tokenize(java.lang.String)", "wordstat.WordStat#countWordsHash(java.util.List)",
           "wordstat.WordStat#capitalizeWords(java.lang.String)"]
"""


GO_COMPARE_TOML = """
[defaults]
iteration_time = "100ms"
warmup = { min = 1, max = 1 }
iterations = 10
forks = { min = 2, max = 2 }
timeout = "2m"

[suites.wordstat]
kind = "go"
filter = 'CountWordsHash|Noisy'
metric = "cpu"

[assess]
runs = 2
# the default 5 slowed forks at most. 8 was tried after a quiet CI run ended BenchmarkCountWordsHash undecided at
# 5 (forks spread ~22 % that time, ~10 % usually; +29 %, interval 0.99-1.75), but at 8 BenchmarkNoisy's MDC can
# fall under v = 50 % and it was detected (1.88x, interval 1.004-3.14, a real slowdown seen by luck): the noisy
# benchmark's "not detectable at this budget" is a claim about a budget of 5
methods = ["example.com/wordstat.CountWordsHash", "example.com/wordstat.CapitalizeWords"]

# BenchmarkNoisy draws its work size per iteration: over 10 iterations its fork means spread by ~30 %, and
# once its 4 baseline forks happened to agree (MDC 18 %) and the 50 % slowdown (real: it spends its time in
# CountWordsHash) was detected at 2 slowed forks (a clean-clone CI). One iteration per fork keeps a fork as
# noisy as an iteration (log sd ~1.1), which is what this benchmark is for
[suites.wordstat.overrides."Noisy"]
iterations = 1
"""


# the compare-rule test's settings, two methods that no benchmark reaches together
GO_GROUP_TOML = GO_COMPARE_TOML.split("[suites.wordstat]")[0] + """[suites.wordstat]
kind = "go"
filter = 'CountWordsSorted|TopK'
metric = "cpu"

[assess]
runs = 2
methods = ["example.com/wordstat.CountWordsSorted", "example.com/wordstat.TopK"]
"""


def assess(tmp_path: Path, example: str, toml: str, *extra: str) -> tuple[dict, Path]:
    copy = tmp_path / example
    for name in (example, "jmh") if example == "junit" else (example,):  # the JUnit example tests ../jmh's code
        shutil.copytree(REPO / "examples" / name, tmp_path / name,
                        ignore=shutil.ignore_patterns(".benchwarden", "target", "__pycache__"))
    (copy / "benchwarden.toml").write_text(toml, encoding="utf-8")
    return assess_again(tmp_path, example, "", *extra), tmp_path


def assess_again(tmp_path: Path, example: str, tag: str, *extra: str) -> dict:
    """`assess` on the copy :func:`assess` made (its store too: stored baseline runs are reused); ``tag`` names
    this assessment's stubs folder and HTML page."""
    copy = tmp_path / example
    out, err = io.StringIO(), io.StringIO()
    status = main(["assess", "--config", str(copy / "benchwarden.toml"), "--json",
                   "--stubs", str(tmp_path / f"stubs{tag}"), "--html", str(tmp_path / f"assess{tag}.html"), *extra],
                  stdout=out, stderr=err)
    assert status == 0, err.getvalue()
    doc = json.loads(out.getvalue())
    assert doc["v"] == 1 and len(doc["suites"]) == 1
    return doc["suites"][0]


def coverage(suite: dict) -> dict[str, bool]:
    return {m["method"]: m["covered"] for m in suite["abs"]["methods"]}


def check_common(suite: dict, tmp: Path, uncovered: str, covered: list[str], noisy_suffix: str) -> None:
    cov = coverage(suite)
    assert cov[uncovered] is False, suite["abs"]["methods"]
    for method in covered:
        detail = json.dumps({"method": method, "detections": [d for d in suite["detections"] if d["method"] == method],
                             "warnings": suite.get("warnings"), "reach": suite.get("reach")}, indent=1, default=str)
        assert cov[method] is True, detail
    # uncovered methods are listed first, the unbenchmarked one reached by no benchmark at all
    assert suite["abs"]["methods"][0]["covered"] is False
    assert next(m for m in suite["abs"]["methods"] if m["method"] == uncovered)["reached_by"] == []
    # the deliberately noisy benchmark is never called stable: it is flagged unstable, or not assessed because a
    # fork of it failed -- in Go's two-point CPU time every execution draws its own work factor (1-40x), so a long
    # execution sized at a large factor can cost less than the short one at another ("the start-up varies more
    # than the operations cost": seen once in a clean-clone CI run, listed in "skipped" with a note)
    variability = suite["variability"]
    stable = [b["key"] for b in variability["benchmarks"] if not b["unstable"]]
    assert not any(k.endswith(noisy_suffix) for k in stable), variability["benchmarks"]
    assert any(k.endswith(noisy_suffix) for k in [*variability["unstable"], *variability.get("skipped", [])]), variability
    # the cost account: only reaching benchmarks ran slowed, against the study's 2·(|K′|+1) full runs. Its
    # figures are machine time, so the test checks the account, not the saving: how much ABS saves is measured
    # by benchmarks/assess_cost.py (docs/performance.md); under load a slowed JVM's start-up alone can tip it.
    cost = suite["cost"]
    assert cost["study_runs"] == 2 * (len(suite["methods"]["selected"]) + 1)
    assert cost["study_s"] == pytest.approx(cost["study_runs"] * cost["full_run_s"], rel=1e-3, abs=0.01)
    assert cost["injected_s"] > 0 and cost["trace_s"] > 0
    assert cost["used_s"] >= cost["trace_s"] + cost["prepare_s"] + cost["injected_s"] - 0.01
    assert cost["ratio"] == pytest.approx(cost["used_s"] / cost["study_s"], rel=1e-3, abs=1e-4)
    assert any(s["method"] == uncovered for s in suite["stubs"])
    assert suite["smoke"]["covered"] and not suite["smoke"]["not_covered"]
    html = (tmp / "assess.html").read_text(encoding="utf-8")
    assert "Detection matrix" in html and "<svg" in html and uncovered.split(":")[-1].split("#")[-1][:8] in html


def test_assess_jmh_example(tmp_path):
    suite, tmp = assess(tmp_path, "jmh", JMH_TOML)
    check_common(suite, tmp, "wordstat.WordStat#capitalizeWords(java.lang.String)",
                 ["wordstat.WordStat#tokenize(java.lang.String)", "wordstat.WordStat#countWordsHash(java.util.List)"],
                 "NoisyBench.noisy")
    stub = tmp / "stubs" / "wordstat" / "wordstat" / "bench" / "CapitalizeWordsBench.java"
    assert "wordstat.WordStat.capitalizeWords(arg0)" in stub.read_text()


def test_assess_junit_example_unit_tests_as_workloads(tmp_path):
    """Issue #16: the same agent slows a method down inside the JVMs that run single JUnit test methods. K′ from
    config; reach traced per test: tokenizeFindsEveryWord reaches only tokenize, countsAddUpToTheWords both.
    The compare rule (the default): a JUnit fork pair of the study's rule once strayed to +660 % in one
    repetition where ~+250 % was due; the compare rule pools the forks and leaves outlying ones out."""
    suite, tmp = assess(tmp_path, "junit", JUNIT_TOML)
    tokenize, count = "wordstat.WordStat#tokenize(java.lang.String)", "wordstat.WordStat#countWordsHash(java.util.List)"
    capitalize = "wordstat.WordStat#capitalizeWords(java.lang.String)"
    reach = {m["method"]: m["reached_by"] for m in suite["abs"]["methods"]}
    assert reach[tokenize] == ["wordstat.WordStatTest#countsAddUpToTheWords", "wordstat.WordStatTest#tokenizeFindsEveryWord"]
    assert reach[count] == ["wordstat.WordStatTest#countsAddUpToTheWords"] and reach[capitalize] == []
    detail = json.dumps({"detections": suite["detections"], "warnings": suite["warnings"]}, indent=1)
    assert not any("injection failed" in w or "no such method" in w for w in suite["warnings"]), detail
    cells = {(d["method"], d["benchmark"].split("#")[1]): d for d in suite["detections"]}
    assert set(cells) == {(tokenize, "tokenizeFindsEveryWord"), (tokenize, "countsAddUpToTheWords"),
                          (count, "countsAddUpToTheWords")}, detail
    # tokenizeFindsEveryWord spends ~70 % of its body in tokenize, so a 4x tokenize should make it ~3.1x slower.
    # Noticed it is; its size in JUnit forks is not yet reliable (3.0x in one assessment, 4.9x in another:
    # docs/code-level.md), so the size is not asserted here. The agent loaded twice (the suite's jvm_args passed
    # twice) made it ~10x: that bug has its own unit test in tests/unit/adapters.
    cell = cells[tokenize, "tokenizeFindsEveryWord"]
    assert cell["outcome"] in ("detected", "overshot") and cell["ratio"] > 1.5, detail
    assert not coverage(suite)[capitalize], detail
    cost = suite["cost"]
    assert cost["injected_s"] > 0 and cost["trace_s"] > 0 and cost["study_runs"] == 8
    html = (tmp / "assess.html").read_text(encoding="utf-8")
    assert "Detection matrix" in html and "tokenizeFindsEveryWord" in html


def test_assess_go_example_with_k_prime_from_its_tests(tmp_path):
    suite, tmp = assess(tmp_path, "go", GO_TOML)
    assert suite["methods"]["source"] == "tests"
    assert "example.com/wordstat.CapitalizeWords" in suite["methods"]["selected"]  # TestCapitalizeWords calls it
    check_common(suite, tmp, "example.com/wordstat.CapitalizeWords",
                 ["example.com/wordstat.Tokenize", "example.com/wordstat.CountWordsHash"], "BenchmarkNoisy")
    stub = tmp / "stubs" / "wordstat" / "benchwarden_capitalize_words_stub_test.go"
    assert "func BenchmarkCapitalizeWords(b *testing.B)" in stub.read_text()


def test_assess_python_example(tmp_path):
    suite, tmp = assess(tmp_path, "python", PYTHON_TOML)
    check_common(suite, tmp, "wordstat:capitalize_words", ["wordstat:tokenize", "wordstat:count_words_hash"],
                 "Noisy.time_noisy")
    assert (tmp / "stubs" / "wordstat" / "bench_benchwarden_capitalize_words.py").is_file()


def test_assess_go_example_with_the_compare_rule(tmp_path):
    """The default rule on real processes: CountWordsHash slowed by 50 % (BenchmarkCountWordsHash spends ~90 % of
    its time in it; its CPU time per operation spreads ~10 % between forks) is detected, with the smallest
    slowdown it would detect; BenchmarkNoisy (CV ~80 %) cannot tell within the budget and says so before any slowed
    fork."""
    suite, tmp = assess(tmp_path, "go", GO_COMPARE_TOML, "--slowdown", "50%")
    assert suite["rule"] == "compare" and suite["slowdown"] == {"v": 0.5, "source": "--slowdown", "clock": "wall"}
    detail = json.dumps({"detections": suite["detections"], "warnings": suite["warnings"]}, indent=1)

    def cells(suite: dict) -> dict[str, dict]:
        return {d["benchmark"]: d for d in suite["detections"] if d["method"] == "example.com/wordstat.CountWordsHash"}

    stable, noisy = cells(suite)["BenchmarkCountWordsHash"], cells(suite)["BenchmarkNoisy"]
    first = suite
    if stable["outcome"] == "undecided":
        # Rare, and a sound answer: in one quiet CI run in about fifteen this pair's forks spread ~22 % instead of
        # ~10 % and it measured +29 % (interval 0.99-1.75) at the budget of 5 slowed forks (a futility stop at an
        # earlier look is the same answer). A budget large enough
        # to make that impossible lets BenchmarkNoisy (which spends its time in CountWordsHash too) be detected by
        # luck (at 8 it was once), which breaks the other half of this test. So the claim is "detected in one
        # assessment, or else in the next": a second one reuses the stored baseline runs and draws fresh slowed
        # and baseline forks; two undecided in a row would be a real loss of sensitivity.
        suite = assess_again(tmp_path, "go", "-again", "--slowdown", "50%")
        detail = json.dumps({"first": first["detections"], "again": suite["detections"],
                             "warnings": suite["warnings"]}, indent=1)
        stable = cells(suite)["BenchmarkCountWordsHash"]
    # noticed: detected, or on a contended machine "overshot" (the busy wait follows the method's wall-clock
    # time, so a preemption inside a call lengthens its wait: a CI run beside other work measured +71 % for
    # the 50 % injected; injection precision is measured in benchmarks/injection_precision.py, not here)
    assert stable["outcome"] in ("detected", "overshot") and stable["interval"][0] > 1.0, detail
    assert 2 <= stable["slowed_forks"] <= 5 and stable["base_forks"] == 4 + stable["slowed_forks"]
    # not detectable at this budget: usually its baseline forks alone show it (screened out, never slowed); with
    # only 4 baseline forks the screen, lenient by design (its spread at the 80 % lower bound), lets it through
    # now and then, and the futility stop ends it at a look before the budget: usually the first, at 2 slowed forks
    # (MDC 95 % in one run); on a host whose speed swung 2x it came at the second look, 3 slowed forks (a CI run)
    assert noisy["outcome"] == "undecided", detail
    if noisy["screened"]:
        assert "slowed_forks" not in noisy and noisy["mdc"] > 0.5, detail
        assert noisy["warnings"][0].startswith("not measured: the baseline forks of BenchmarkNoisy"), detail
    else:
        n = noisy["slowed_forks"]
        assert n in (2, 3) and noisy["mdc"] > 0.5 and f"stopped after {n} slowed forks" in noisy["warnings"][0], detail
    method = next(m for m in suite["abs"]["methods"] if m["method"] == "example.com/wordstat.CountWordsHash")
    assert method["undecided_by"] == ["BenchmarkNoisy"]
    if stable["outcome"] == "detected":
        assert method["covered"] and 0 < method["detection_threshold"] < 2, detail
    else:
        assert not method["covered"] and "not counted as detecting 50%" in stable["warnings"][0], detail
    capitalize = next(m for m in suite["abs"]["methods"] if m["method"] == "example.com/wordstat.CapitalizeWords")
    assert not capitalize["covered"] and capitalize["reached_by"] == []
    html = (tmp / "assess.html").read_text(encoding="utf-8")
    assert "not detectable at this budget" in html


def test_assess_go_example_group_testing_shares_one_slowed_build(tmp_path):
    """Group testing on real processes: CountWordsSorted is reached only by BenchmarkCountWordsSorted and TopK only
    by BenchmarkTopK (its setup calls CountWordsHash, not Sorted), so one variant slows both, and each detection
    is attributed to the method its benchmark reaches. The variant is no build of its own: it is the control's
    one switchable build (both functions probed, the baselines ran them switched off) with both switches on. v = 100 %: these benchmarks' CPU
    time per operation spreads by 8-18 % between forks even on a quiet machine, and at v = 50 % one pair in six
    stopped by futility after 3 forks (a CI run); at 100 % six of six pairs were detected after 2 forks (ratios
    1.69-1.94, interval lower bounds 1.30-1.55; a later run's 1.09-1.11: with 2 slowed forks the interval is
    wide, so only its side of 1 is asserted, as compare's "slower" needs)."""
    suite, tmp = assess(tmp_path, "go", GO_GROUP_TOML, "--slowdown", "100%")
    detail = json.dumps({"detections": suite["detections"], "warnings": suite["warnings"],
                         "methods": suite["abs"]["methods"]}, indent=1)
    reached = {m["method"]: m["reached_by"] for m in suite["abs"]["methods"]}
    assert reached == {"example.com/wordstat.CountWordsSorted": ["BenchmarkCountWordsSorted"],
                       "example.com/wordstat.TopK": ["BenchmarkTopK"]}, detail
    assert suite["cost"]["variants"] == 1 and suite["cost"]["methods"] == 2, suite["cost"]
    assert suite["variability"]["control"].startswith("rewriter -switchable 2 functions"), suite["variability"]
    pairs = {(d["method"], d["benchmark"]): d for d in suite["detections"]}
    assert set(pairs) == {("example.com/wordstat.CountWordsSorted", "BenchmarkCountWordsSorted"),
                          ("example.com/wordstat.TopK", "BenchmarkTopK")}, detail
    for d in pairs.values():  # both methods were slowed in the one build and each benchmark noticed its own
        # ("overshot" on a contended machine: see the compare-rule test above)
        assert not d["screened"] and d["outcome"] in ("detected", "overshot") and d["interval"][0] > 1.0, detail
