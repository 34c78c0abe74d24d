"""Parameter overrides: JMH replaces @Param values (-p), asv and Go select among what exists; typos are errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchwarden.adapters.jmh_output import parse_benchmark_list, parse_listing, resolve_listing
from benchwarden.adapters.params import parse_assignments, replace_values, select_values, value_matches
from benchwarden.errors import ListingFailed
from benchwarden.model import Benchmark, BenchmarkId

DATA = Path(__file__).resolve().parents[2] / "data" / "jmh"


def test_jmh_values_are_replaced_like_jmh_dash_p_even_undeclared_ones():
    listed = parse_listing((DATA / "listing-1.37.lp.txt").read_text())
    entries = parse_benchmark_list((DATA / "BenchmarkList-1.37.txt").read_text())
    keys = [i.to_benchmark("s").id.key for i in resolve_listing(listed, entries, {"size": ("10", "20", "30")})]
    assert [k for k in keys if k.startswith("wordstat.bench.TokenizeBench")] == [
        "wordstat.bench.TokenizeBench.tokenize[size=10]", "wordstat.bench.TokenizeBench.tokenize[size=20]",
        "wordstat.bench.TokenizeBench.tokenize[size=30]"]
    assert "wordstat.bench.TopKBench.topK" in keys  # benchmarks without the parameter are unchanged
    assert replace_values((("a", ("1",)), ("b", ("x", "y"))), {"b": ("z",)}) == (("a", ("1",)), ("b", ("z",)))


def _bench(name, **params):
    return Benchmark(BenchmarkId("s", name, tuple(params.items())), "avgt", "ns/op")


def test_selection_keeps_matching_values_and_benchmarks_without_the_parameter():
    benches = [_bench("BenchmarkGet", sub="GET"), _bench("BenchmarkGet", sub="POST"),
               _bench("tokenize", size="100", impl="'hash'"), _bench("tokenize", size="1000", impl="'hash'"),
               _bench("plain")]
    kept = select_values("s", benches, {"sub": ("POST",), "impl": ("hash",), "size": ("1000",)})
    assert [b.id.key for b in kept] == ["BenchmarkGet[sub=POST]", "tokenize[size=1000,impl='hash']", "plain"]


@pytest.mark.parametrize("overrides, message", [
    ({"sise": ("100",)}, "no benchmark has a parameter named 'sise' (parameters: size)"),
    ({"size": ("100", "7")}, "parameter 'size' has no value '7' (values: 100, 1000); this harness can only select"),
])
def test_selection_typos_are_errors_that_list_what_exists(overrides, message):
    with pytest.raises(ListingFailed, match=message.replace("(", r"\(").replace(")", r"\)")):
        select_values("s", [_bench("t", size="100"), _bench("t", size="1000")], overrides)


def test_command_line_assignments():
    assert parse_assignments(["size=10,100", "impl=hash", "size=7"], "-p") == {"size": ("7",), "impl": ("hash",)}
    for bad in ("size", "=1", "size=", "size=1,,2", "a b=1"):
        with pytest.raises(ValueError, match="-p: expected NAME=VALUE"):
            parse_assignments([bad], "-p")
    assert value_matches("hash", "'hash'") and value_matches("hash", '"hash"') and not value_matches("h", "'hash'")
