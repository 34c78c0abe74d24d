"""Smoke subset (greedy weighted set cover), stubs in each suite's style, K′ selection and names."""

from __future__ import annotations

import ast
import itertools

import pytest

from benchwarden.assess.methods import AssessSettings, check_method, merge_counts, most_called
from benchwarden.assess.smoke import smoke_subset
from benchwarden.assess.stubs import asv_stub, go_stub, jmh_stub
from benchwarden.model import Benchmark, BenchmarkId


def brute_force_cost(detected_by, cost, budget):
    benches = sorted({b for bs in detected_by.values() for b in bs})
    universe = {m for m, bs in detected_by.items() if bs}
    best = None
    for r in range(len(benches) + 1):
        for combo in itertools.combinations(benches, r):
            total = sum(cost[b] for b in combo)
            covered = {m for m, bs in detected_by.items() if bs & set(combo)}
            if covered == universe and total <= budget and (best is None or total < best):
                best = total
    return best


def test_smoke_subset_covers_everything_cheaply_and_prunes_redundant_picks():
    detected_by = {"a": {"big", "x"}, "b": {"big", "y"}, "c": {"big", "z"}, "d": set()}
    cost = {"big": 10.0, "x": 1.0, "y": 1.0, "z": 1.0}
    result = smoke_subset(detected_by, cost, budget_s=100)
    assert set(result.covered) == {"a", "b", "c"} and result.complete
    assert result.expected_s == brute_force_cost(detected_by, cost, 100) == 3.0
    # one big benchmark is cheaper than three small ones here
    cost2 = {"big": 2.0, "x": 1.0, "y": 1.0, "z": 1.0}
    assert smoke_subset(detected_by, cost2, 100).benchmarks == ("big",)


def test_smoke_subset_respects_the_budget_and_says_what_is_left_out():
    detected_by = {"a": {"x"}, "b": {"y"}}
    result = smoke_subset(detected_by, {"x": 5.0, "y": 8.0}, budget_s=6.0)
    assert result.benchmarks == ("x",) and result.not_covered == ("b",) and not result.complete
    assert smoke_subset({}, {}, 10).benchmarks == ()


def test_greedy_is_within_the_harmonic_bound_of_the_optimum_on_random_instances():
    import random

    rnd = random.Random(7)
    for _ in range(30):
        benches = [f"b{i}" for i in range(6)]
        detected_by = {f"m{j}": {b for b in benches if rnd.random() < 0.35} for j in range(5)}
        cost = {b: rnd.uniform(1, 10) for b in benches}
        got = smoke_subset(detected_by, cost, 1e9)
        best = brute_force_cost(detected_by, cost, 1e9)
        d = max(sum(1 for bs in detected_by.values() if b in bs) for b in benches)
        harmonic = sum(1 / k for k in range(1, max(d, 1) + 1))
        assert got.expected_s <= harmonic * best + 1e-9


def test_jmh_stub_follows_the_suite_style():
    benches = [Benchmark(BenchmarkId("s", f"wordstat.bench.{c}.m"), "avgt", "ns/op")
               for c in ("TokenizeBench", "CountWordsBench", "NoisyBench")]
    stub = jmh_stub("wordstat.WordStat#capitalizeWords(java.lang.String)", benches)
    assert stub.path == "wordstat/bench/CapitalizeWordsBench.java"
    assert "package wordstat.bench;" in stub.text and "@BenchmarkMode(Mode.AverageTime)" in stub.text
    assert "@OutputTimeUnit(TimeUnit.NANOSECONDS)" in stub.text
    assert "return wordstat.WordStat.capitalizeWords(arg0);" in stub.text
    assert 'arg0 = "TODO: realistic input";' in stub.text
    with pytest.raises(ValueError):
        jmh_stub("notamethod", benches)


def test_go_stub_is_a_benchmark_function_in_the_package():
    stub = go_stub("example.com/wordstat.CapitalizeWords", "wordstat", ".")
    assert stub.path == "benchwarden_capitalize_words_stub_test.go"
    assert "package wordstat" in stub.text and "func BenchmarkCapitalizeWords(b *testing.B)" in stub.text
    assert "for i := 0; i < b.N; i++" in stub.text and "b.ResetTimer()" in stub.text
    method = go_stub("example.com/wordstat/sub.(*Counter).Add", "sub", "sub")
    assert method.path.startswith("sub/") and "var v Counter" in method.text and "v.Add(" in method.text


def test_asv_stub_is_valid_python_in_class_or_function_style():
    classy = [Benchmark(BenchmarkId("s", "bench_x.Tokenize.time_tokenize"), "time", "ns/op")]
    flat = [Benchmark(BenchmarkId("s", "bench_x.time_tokenize"), "time", "ns/op")]
    a = asv_stub("wordstat:capitalize_words", classy)
    b = asv_stub("wordstat:capitalize_words", flat)
    for stub in (a, b):
        ast.parse(stub.text)
        assert "def time_capitalize_words" in stub.text and "import wordstat" in stub.text
    assert "class CapitalizeWords" in a.text and "class " not in b.text


def test_most_called_ranks_by_count_then_name_and_skips_zero():
    counts = {"b": 5, "a": 5, "c": 9, "d": 0}
    assert most_called(counts, 3) == ["c", "a", "b"]
    assert most_called(counts, 10) == ["c", "a", "b"]
    assert merge_counts({"a": 1}, {"a": 2, "b": 1}) == {"a": 3, "b": 1}


@pytest.mark.parametrize("kind,good,bad", [
    ("jmh", "wordstat.WordStat#topK(java.util.Map, int)", "wordstat.WordStat.topK"),
    ("go", "example.com/wordstat.(*T).Add", "Tokenize"),
    ("python", "wordstat:Class.method", "wordstat.tokenize"),
])
def test_method_names_are_checked_per_language(kind, good, bad):
    assert check_method(kind, f" {good} ") == good
    with pytest.raises(ValueError, match="expected"):
        check_method(kind, bad)
    with pytest.raises(ValueError, match="cannot be assessed"):
        check_method("command", good)


def test_assess_settings_validate_with_clear_errors():
    s = AssessSettings.model_validate({"methods": ["a:b"], "budget": "2m", "runs": 3})
    assert s.budget == 120.0 and s.runs == 3 and s.top == 20 and s.rule == "compare"
    assert (s.min_forks, s.max_forks) == (2, 5)
    assert s.slowdown == 0.10  # the user's question by default: would the suite notice 10 %?
    assert AssessSettings.model_validate({"slowdown": "25%"}).slowdown == 0.25
    assert AssessSettings.model_validate({"slowdown": 3}).slowdown == 3.0  # 4x slower
    assert AssessSettings.model_validate({"slowdown": "study"}).slowdown is None
    for bad in ("-5%", 0, "ten", "nan", True):
        with pytest.raises(Exception, match="slowdown"):
            AssessSettings.model_validate({"slowdown": bad})
    with pytest.raises(Exception, match="runs"):
        AssessSettings.model_validate({"runs": 1})
    with pytest.raises(Exception, match="extra|permitted"):
        AssessSettings.model_validate({"metods": []})
