"""Shortening benchmark names for narrow terminals: what tells benchmarks apart survives."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from benchwarden.report.names import common_prefix, shorten, shorten_all

JMH = "jmh:org.openjdk.jmh.benchmarks.CoreStabilityBench.test[param=1,size=1000]"


@pytest.mark.parametrize("width, expected", [
    (200, JMH),
    (60, "jmh:o.o.j.b.CoreStabilityBench.test[param=1,size=1000]"),
    (40, "jmh:o.o.j.b.CoreStabilityBench.test[p…0]"),
    (30, "CoreStabilityBench.test[pa…00]"),
    (20, "CoreSta…1,size=1000]"),
])
def test_jmh_names_lose_packages_then_parameters_then_the_middle(width, expected):
    assert shorten(JMH, width) == expected


def test_go_sub_benchmarks_with_colons_are_not_mistaken_for_a_suite_prefix():
    name = "gin:BenchmarkGithubParseAPI/GET/repos/:owner/:repo/issues"
    assert shorten(name, 30) == "BenchmarkG…:owner/:repo/issues"


def test_common_prefix_ends_at_a_separator_and_leaves_every_name():
    assert common_prefix(["jmh:a.b.X.m", "jmh:a.b.Y.m"]) == "jmh:a.b."
    assert common_prefix(["jmh:a.b.X.m", "jmh:a.b.X.m2"]) == "jmh:a.b.X."
    assert common_prefix(["s:abc", "s:abd"]) == ""  # saves fewer than 4 cells
    assert common_prefix(["only:one.name"]) == ""
    assert common_prefix(["suite:pkg.A", "suite:pkg."]) == ""  # would leave an empty name


def test_shorten_all_keeps_different_names_apart_or_gives_up():
    names = [f"jmh:org.example.Bench.run[size={n},mode=fast]" for n in (10, 100, 1000)]
    short = shorten_all(names, 24)
    assert short is not None and len(set(short)) == 3 and all(cell_len(n) <= 24 for n in short)
    assert shorten_all(["a" * 30 + "x", "a" * 30 + "y"], 5) is not None  # the ellipsis keeps both ends
    assert shorten_all(["xa" + "a" * 30 + "ax", "xa" + "b" * 30 + "ax"], 5) is None  # only the middle differs


@given(st.text(min_size=1, max_size=80), st.integers(min_value=5, max_value=100))
def test_shorten_always_fits(name, width):
    assert cell_len(shorten(name, width)) <= width
