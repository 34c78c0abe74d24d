"""Benchmark references for every adapter: JMH names and @Param, Go sub-benchmarks, asv names and values."""

from __future__ import annotations

import pytest

from benchwarden.model import BenchmarkId as B
from benchwarden.spl.references import UnknownReference, resolve, value_matches

LISTING = [
    B("jmh", "wordstat.bench.TokenizeBench.tokenize", (("size", "100"),)),
    B("jmh", "wordstat.bench.TokenizeBench.tokenize", (("size", "1000"),)),
    B("jmh", "wordstat.bench.CountWordsBench.countHash"),
    B("jmh", "other.CountWordsBench.countHash"),
    B("go", "BenchmarkTokenize", (("size", "100"),)),
    B("go", "BenchmarkTokenize", (("size", "1000"),)),
    B("go", "BenchmarkParse", (("sub", "json"), ("sub2", "fast"))),
    B("go", "internal/x.BenchmarkParse", (("sub", "xml"),)),
    B("py", "bench_wordstat.CountWords.time_count", (("impl", "'hash'"),)),
    B("py", "bench_wordstat.CountWords.time_count", (("impl", "'sorted'"),)),
]
SUITES = ["jmh", "go", "py"]


def test_jmh_suffix_and_hash_separator():
    r = resolve("TokenizeBench.tokenize", LISTING, SUITES)
    assert (r.suite, r.name, r.param_names, r.values_of("size")) == (
        "jmh", "wordstat.bench.TokenizeBench.tokenize", ("size",), ("100", "1000"))
    assert resolve("TokenizeBench#tokenize", LISTING, SUITES).name == r.name
    assert resolve("wordstat.bench.TokenizeBench.tokenize", LISTING, SUITES).name == r.name


def test_ambiguous_suffix_lists_candidates():
    with pytest.raises(UnknownReference, match="ambiguous.*jmh:other.CountWordsBench.countHash.*jmh:wordstat"):
        resolve("CountWordsBench.countHash", LISTING, SUITES)
    assert resolve("wordstat.bench.CountWordsBench.countHash", LISTING, SUITES).name.startswith("wordstat")


def test_exact_match_beats_suffix_match():
    # "BenchmarkParse" is exact in go and a dotted suffix of internal/x.BenchmarkParse
    assert resolve("BenchmarkParse/json/fast", LISTING, SUITES).name == "BenchmarkParse"


def test_go_sub_benchmark_paths_become_fixed_parameters():
    r = resolve("BenchmarkParse/json/fast", LISTING, SUITES)
    assert r.fixed == (("sub", "json"), ("sub2", "fast")) and r.param_names == ()
    t = resolve("BenchmarkTokenize/size=100", LISTING, SUITES)
    assert t.fixed == (("size", "100"),) and len(t.variants) == 1
    q = resolve("internal/x.BenchmarkParse/xml", LISTING, SUITES)
    assert q.name == "internal/x.BenchmarkParse" and q.fixed == (("sub", "xml"),)


def test_unknown_sub_benchmark():
    with pytest.raises(UnknownReference, match="has no sub-benchmark 'yaml'"):
        resolve("BenchmarkParse/yaml", LISTING, SUITES)


def test_suite_prefix():
    assert resolve("go:BenchmarkTokenize", LISTING, SUITES).suite == "go"
    with pytest.raises(UnknownReference, match="no suite named 'nope'"):
        resolve("nope:BenchmarkTokenize", LISTING, SUITES)
    with pytest.raises(UnknownReference, match="no benchmark 'go:TokenizeBench.tokenize' in suite 'go'"):
        resolve("go:TokenizeBench.tokenize", LISTING, SUITES)


def test_asv_names():
    r = resolve("CountWords.time_count", LISTING, SUITES)
    assert r.suite == "py" and r.values_of("impl") == ("'hash'", "'sorted'")


def test_unknown_reference_suggests_close_names():
    with pytest.raises(UnknownReference, match="did you mean .*BenchmarkTokenize"):
        resolve("BenchmarkTokenise", LISTING, SUITES)
    with pytest.raises(UnknownReference, match="did you mean wordstat.bench.TokenizeBench.tokenize"):
        resolve("TokenizeBench.tokenise", LISTING, SUITES)
    with pytest.raises(UnknownReference, match="list no benchmarks"):
        resolve("x", [], ["s"])


@pytest.mark.parametrize("listed,given,ok", [
    ("100", 100, True), ("100", 100.0, True), ("100", "100", True), ("1.5", 1.5, True), ("100", 10, False),
    ("'hash'", "hash", True), ("hash", "hash", True), ("'hash'", "sorted", False), ("fast", 1, False),
])
def test_value_matching(listed, given, ok):
    assert value_matches(listed, given) is ok


def test_junit_tests_are_listed_with_a_hash_and_found_by_either_separator():
    """A JUnit test is listed as pkg.Class#method; the reference that named it exactly used to be 'not found'."""
    listing = [B("unit", "wordstat.WordStatTest#tokenizeFindsEveryWord"),
               B("unit", "wordstat.WordStatTest#countsAddUpToTheWords")]
    for ref in ("wordstat.WordStatTest#tokenizeFindsEveryWord", "WordStatTest#tokenizeFindsEveryWord",
                "WordStatTest.tokenizeFindsEveryWord", "tokenizeFindsEveryWord", "unit:tokenizeFindsEveryWord"):
        r = resolve(ref, listing, ["unit"])
        assert (r.suite, r.name) == ("unit", "wordstat.WordStatTest#tokenizeFindsEveryWord"), ref
    with pytest.raises(UnknownReference, match="did you mean wordstat.WordStatTest#tokenizeFindsEveryWord"):
        resolve("WordStatTest#tokenizeFindsEveryWords", listing, ["unit"])
