"""`benchwarden compare --explain` on the examples with real processes: the function that changed is ranked first.

Python (the asv worker's profile hook): a real code change between two commits, an implementation swapped by
WORDSTAT_SLOW, a slowdown injected into one function. JMH and JUnit (the Java agent's profile mode, on the benchmark
JVM and on the test JVM): the tokenizer's implementation swapped by -Dwordstat.slow=true. Go (the test binary's
sampling CPU profiler): the tokenizer swapped by WORDSTAT_SLOW=large.

The verdicts themselves are the compare tests' business: the changes here are large enough (+50 % and more of the
benchmark) that "slower" is not in doubt, so the test is about the explanation, which only runs for changed
benchmarks.
"""

from __future__ import annotations

import html
import io
import json
import re
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from benchwarden.cli import main
from tests.e2e.test_junit_adapter import copy_example as copy_junit_example
from tests.support.git import commit_all
from tests.support.jmh import private_jmh_lock

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
COMMON = ["--suite", "wordstat", "--warmup", "1", "--iterations", "3", "--iteration-time", "100ms",
          "--explain", "--seed", "3", "--json", "-q"]


@pytest.fixture
def example(tmp_path: Path) -> Path:
    if shutil.which("python3") is None:
        pytest.fail("python3 is not on PATH")
    root = tmp_path / "python"
    shutil.copytree(REPO / "examples" / "python", root, ignore=shutil.ignore_patterns(".benchwarden", "__pycache__"))
    return root


def compare(root: Path, *argv: str) -> tuple[int, dict, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(["compare", "--config", str(root / "benchwarden.toml"), *argv, *COMMON], stdout=out, stderr=err)
    assert out.getvalue(), err.getvalue()
    return status, json.loads(out.getvalue()), err.getvalue()


def by_benchmark(data: dict) -> dict[str, dict]:
    return {e["benchmark"].split(".", 1)[1]: e for e in data["explanations"]}


def test_a_code_change_between_commits_is_traced_to_its_function(example, tmp_path):
    commit_all(example, "base")
    lib = example / "wordstat" / "__init__.py"
    source = lib.read_text()
    before = "        counts[w] = counts.get(w, 0) + 1\n"
    assert source.count(before) == 1
    # a realistic regression: a normalisation step per word inside the counting loop (about +50 % here)
    lib.write_text(source.replace(before, "        w = w.strip().lower()\n" + before))
    commit_all(example, "normalise words while counting")
    # compared first, explained afterwards from the store (`benchwarden explain`, as after a CI gate failed); the
    # other tests explain within compare (--explain)
    argv = [a for a in COMMON if a != "--explain"]
    out, err = io.StringIO(), io.StringIO()
    status = main(["compare", "--config", str(example / "benchwarden.toml"), "HEAD~1", "HEAD",
                   "--filter", r"CountWordsBySize\.time_count\[size=1000\]", *argv], stdout=out, stderr=err)
    (result,) = json.loads(out.getvalue())["benchmarks"]
    assert result["verdict"] == "slower" and status == 1, (result, err.getvalue())
    (example / "wordstat" / "__init__.py").write_text(source)  # the tree moved on: explain measures the commits
    commit_all(example, "revert")
    out, err = io.StringIO(), io.StringIO()
    status = main(["explain", "--config", str(example / "benchwarden.toml"), "--json", "-q"], stdout=out, stderr=err)
    assert status == 0, err.getvalue()
    data = json.loads(out.getvalue())
    assert data["benchmarks"][0]["verdict"] == "slower" and data["benchmarks"][0]["ci"] == result["ci"]
    (e,) = data["explanations"]
    assert e["benchmark"] == "wordstat:bench_wordstat.CountWordsBySize.time_count[size=1000]"
    assert e["error"] is None and e["pairs"] == 6  # the default
    assert e["causes"][0][-1] == "wordstat:count_words_hash", e["causes"]
    first = next(n for n in e["nodes"] if n["path"] == e["causes"][0])
    assert first["self_delta_ns"] > 0 and first["verdict"] in ("slower", "inconclusive")
    report = Path(data["report"]).read_text(encoding="utf-8")
    assert "Where the time went" in report and "wordstat:count_words_hash" in report and "cause #1" in report
    assert Path(data["report"]).name == "explain-1-2.html" and e["machine_time_s"] > 0


def test_a_replaced_function_and_an_injected_slowdown_are_ranked_first(example, tmp_path):
    inject = {"v": 1, "mode": "slowdown", "target": "wordstat:count_words_hash", "factor": 0.6}
    markdown = tmp_path / "comment.md"
    status, data, err = compare(example, "--variant-env", "WORDSTAT_SLOW=large",
                                "--variant-env", "BENCHWARDEN_INJECT=" + json.dumps(inject),
                                "--filter", r"Tokenize\.time_tokenize\[size=1000\]|CountWordsBySize\.time_count\[size=1000\]",
                                "--markdown", str(markdown))
    assert {b["verdict"] for b in data["benchmarks"]} == {"slower"}, (data["benchmarks"], err)
    explained = by_benchmark(data)
    tokenize = explained["Tokenize.time_tokenize[size=1000]"]
    # WORDSTAT_SLOW=large swaps the tokenizer's implementation: the new one is the cause, the old one is gone
    assert tokenize["causes"][0][-1] == "wordstat:_tokenize_per_chunk"
    verdicts = {n["path"][-1]: n["verdict"] for n in tokenize["nodes"]}
    assert verdicts["wordstat:_tokenize_per_chunk"] == "new" and verdicts["wordstat:_tokenize_one_pass"] == "gone"
    counting = explained["CountWordsBySize.time_count[size=1000]"]
    assert counting["causes"][0][-1] == "wordstat:count_words_hash"  # the busy wait counts as the function's own
    text = html.unescape(re.sub(r"\\(.)", r"\1", markdown.read_text(encoding="utf-8")))  # escapes undone
    assert "#### Where the time went: wordstat:bench_wordstat.Tokenize.time_tokenize[size=1000]" in text
    assert "wordstat:_tokenize_per_chunk | " in text and "cause #1" in text
    assert data["machine_time_s"] > sum(x["machine_time_s"] for x in data["explanations"]) > 0  # both counted
    assert status == 1


def test_explain_options_are_strict(example):
    for argv, message in (
            (["--explain-pairs", "3"], "give --explain too"),
            (["--runs", "--explain", "latest~1", "latest"], "--runs analyses two stored runs"),
            (["--suite", "wordstat-cli", "--explain"], "the selected suites are command")):
        out, err = io.StringIO(), io.StringIO()
        status = main(["compare", "--config", str(example / "benchwarden.toml"), *argv], stdout=out, stderr=err)
        assert status == 2 and message in err.getvalue(), err.getvalue()
        assert "Traceback" not in err.getvalue()


def _java_explained(root: Path, suite_filter: list[str], pairs: int, *extra: str) -> dict:
    """The default budget of 20 pairs: in clean-clone CIs the ~2x slowdown was still inconclusive after 6 pairs (JUnit
    ratio 2.24, and JMH 1.95 with 100-ms iterations; as test_compare_examples found, a loaded 2-core machine can need
    more than 8)."""
    out, err = io.StringIO(), io.StringIO()
    status = main(["compare", "--config", str(root / "benchwarden.toml"), *suite_filter,
                   "--variant-jvm-arg=-Dwordstat.slow=true", "--explain", "--explain-pairs", str(pairs),
                   "--seed", "5", "--json", "-q", *extra], stdout=out, stderr=err)
    assert out.getvalue(), err.getvalue()
    data = json.loads(out.getvalue())
    (result,) = data["benchmarks"]
    assert result["verdict"] == "slower" and status == 1, (result, err.getvalue())
    (e,) = data["explanations"]
    assert e["error"] is None, e["error"]
    return e


def _assert_tokenizer_swapped(e: dict) -> None:
    """-Dwordstat.slow=true: tokenizeNaive instead of tokenizeOnePass; isLetter (~30 ns a call) too short to probe.
    New and gone functions need no statistics, so few profiled pairs (and the pilot) suffice."""
    assert e["causes"][0][-1] == "wordstat.WordStat#tokenizeNaive(java.lang.String)", e["causes"]
    verdicts = {n["path"][-1]: n["verdict"] for n in e["nodes"]}
    assert verdicts["wordstat.WordStat#tokenizeOnePass(java.lang.String)"] == "gone"
    assert "wordstat.WordStat#isLetter(char)" in e["folded"]
    assert "wordstat.WordStat#isLetter(char)" not in verdicts
    assert 0 < e["probe_ns"] < 1000  # the agent's probe: well under the Python hook's ~1 µs


def test_jmh_benchmark_explained_by_the_java_agent(tmp_path):
    if shutil.which("java") is None or shutil.which("mvn") is None:
        pytest.fail("java and mvn are needed")
    root = tmp_path / "jmh"
    shutil.copytree(REPO / "examples" / "jmh", root, ignore=shutil.ignore_patterns(".benchwarden"))
    private_jmh_lock(root, tmp_path)
    e = _java_explained(root, ["--suite", "wordstat", "--filter", r"TokenizeBench\.tokenize\[size=1000\]"], 3,
                        "--warmup", "5", "--iterations", "3", "--iteration-time", "200ms")
    assert e["nodes"][0]["path"] == ["wordstat.bench.TokenizeBench#tokenize()"]
    _assert_tokenizer_swapped(e)


def test_junit_test_explained_by_the_java_agent(tmp_path):
    if shutil.which("java") is None or shutil.which("mvn") is None:
        pytest.fail("java and mvn are needed")
    root = copy_junit_example(tmp_path)
    junit = tmp_path / "compare.xml"
    e = _java_explained(root, ["--filter", "tokenizeFindsEveryWord"], 2, "--warmup", "5", "--iterations", "3",
                        "--junit", str(junit))
    assert e["nodes"][0]["path"] == ["wordstat.WordStatTest#tokenizeFindsEveryWord()"]
    _assert_tokenizer_swapped(e)
    # the CI's test report of the slower test names the new function
    (failure,) = [c.find("failure") for c in ET.parse(junit).iter("testcase") if c.find("failure") is not None]
    (first,) = [line for line in failure.text.splitlines() if line.startswith("cause #1: ")]
    assert first.startswith("cause #1: wordstat.WordStatTest#tokenizeFindsEveryWord() > ") and \
        "> wordstat.WordStat#tokenizeNaive(java.lang.String): self " in first, failure.text


def test_go_benchmark_explained_by_its_cpu_profile(tmp_path):
    """Go's own sampling profiler (-test.cpuprofile, read with go tool pprof): WORDSTAT_SLOW=large replaces
    tokenizeFast by tokenizeSlow (2-3x), so the new function is the first cause and the old one is gone; a
    sample cannot count calls, and the explanation says it was sampled."""
    if shutil.which("go") is None:
        pytest.skip("'go' is not on PATH")  # a failure under CI=true (tests/conftest.py)
    root = tmp_path / "go"
    shutil.copytree(REPO / "examples" / "go", root, ignore=shutil.ignore_patterns(".benchwarden"))
    out, err = io.StringIO(), io.StringIO()
    status = main(["compare", "--config", str(root / "benchwarden.toml"), "--variant-env", "WORDSTAT_SLOW=large",
                   "--filter", r"BenchmarkTokenize\[size=1000\]", "--warmup", "1", "--iterations", "5",
                   "--iteration-time", "100ms", "--explain", "--explain-pairs", "4", "--seed", "2", "--json", "-q"],
                  stdout=out, stderr=err)
    data = json.loads(out.getvalue())
    (result,) = data["benchmarks"]
    assert result["verdict"] == "slower" and status == 1, (result, err.getvalue())
    (e,) = data["explanations"]
    assert e["error"] is None and e["sampled"] and e["pairs"] == 4, e
    assert e["causes"][0][-1] == "example.com/wordstat.tokenizeSlow", e["causes"]
    verdicts = {n["path"][-1]: n["verdict"] for n in e["nodes"]}
    assert verdicts["example.com/wordstat.tokenizeSlow"] == "new"
    assert verdicts["example.com/wordstat.tokenizeFast"] == "gone"
    assert e["causes"][0][0] == "example.com/wordstat.BenchmarkTokenize" and not e["folded"]
    # time per operation from the samples and the operations the iterations reported: about the measured ns/op
    assert 0.5 < e["candidate_ns"] / (sum(map(sum, result["measurements_ns"]["candidate"]))
                                      / sum(map(len, result["measurements_ns"]["candidate"]))) < 2

