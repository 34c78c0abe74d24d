"""Unit tests of the Go adapter's pure parts: patterns, durations, argv, leaves, options."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchwarden.adapters.base import ForkPlan, SuiteContext
from benchwarden.adapters.gotest import (
    GoAdapter,
    _list_timeout_s,
    _only_leaves,
    bench_pattern,
    calibration_argv,
    fork_argv,
    go_duration,
    operations_per_iteration,
    package_prefix,
    packages_option,
    quote_meta,
)
from benchwarden.errors import ConfigError, ListingFailed
from benchwarden.model import IterationResult


def test_quote_meta_escapes_exactly_go_metacharacters():
    # regexp.QuoteMeta(`a.b(c)[1]+x|y{1,2}?^$\ -#=`) in Go gives this string
    assert quote_meta("a.b(c)[1]+x|y{1,2}?^$\\ -#=") == r"a\.b\(c\)\[1\]\+x\|y\{1,2\}\?\^\$\\ -#="


def test_bench_pattern_anchors_each_level():
    assert bench_pattern("BenchmarkTokenize/size=100") == "^BenchmarkTokenize$/^size=100$"
    assert bench_pattern("BenchmarkT/a|b/[x]") == r"^BenchmarkT$/^a\|b$/^\[x\]$"


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), min_size=1))
def test_quoted_text_matches_only_itself(text):
    """Escaped literals mean the same in Python's re and RE2, so re checks the quoting."""
    pattern = "^" + quote_meta(text) + "$"
    assert re.fullmatch(pattern, text)
    assert not re.fullmatch(pattern, text + "x")


@pytest.mark.parametrize("seconds, text", [(0.2, "200ms"), (1.0, "1000ms"), (0.0005, "500000ns"), (0.0, "1ns")])
def test_go_duration(seconds, text):
    assert go_duration(seconds) == text


def test_fork_argv_runs_fixed_n_iterations_after_one_calibration():
    plan = ForkPlan(fork_index=1, iteration_time_s=0.2, max_iterations=13, timeout_s=90.0, iteration_timeout_s=5.0)
    assert calibration_argv("/b/x.test", "BenchmarkTokenize/size=100", plan) == [
        "/b/x.test", "-test.run", "^$", "-test.bench", "^BenchmarkTokenize$/^size=100$", "-test.count", "1",
        "-test.benchtime", "200ms", "-test.benchmem", "-test.timeout", "180s"]
    assert fork_argv("/b/x.test", "BenchmarkTokenize/size=100", plan, 4321) == [
        "/b/x.test", "-test.run", "^$", "-test.bench", "^BenchmarkTokenize$/^size=100$", "-test.count", "13",
        "-test.benchtime", "4321x", "-test.benchmem", "-test.timeout", "180s"]


@pytest.mark.parametrize("ns_per_op, iteration_s, n", [(50.0, 0.2, 4_000_000), (3e8, 0.2, 1), (1234.5, 1.0, 810_045)])
def test_operations_per_iteration_fill_the_iteration_time(ns_per_op, iteration_s, n):
    calibration = IterationResult(value_ns=ns_per_op, raw_value=ns_per_op, ops=123.0)
    assert operations_per_iteration(calibration, iteration_s) == n


def test_only_leaves_drops_parents_by_path_not_by_string_prefix():
    names = ["BenchmarkA", "BenchmarkA/x", "BenchmarkA/x/y", "BenchmarkAB", "BenchmarkC/z"]
    assert _only_leaves(names) == ["BenchmarkA/x/y", "BenchmarkAB", "BenchmarkC/z"]


def test_prefix_qualifies_packages_below_the_root(tmp_path):
    assert package_prefix(tmp_path, str(tmp_path), "m") == ""
    assert package_prefix(tmp_path, str(tmp_path / "internal" / "parse"), "m/internal/parse") == "internal/parse."
    assert package_prefix(tmp_path / "a", str(tmp_path / "b"), "m/b") == "m/b."


def _ctx(**options) -> SuiteContext:
    return SuiteContext(name="g", kind="go", root=Path("/nonexistent"), options=options)


def test_options_defaults_and_errors():
    assert packages_option(_ctx()) == ["./..."]
    assert packages_option(_ctx(packages="./cmd/...")) == ["./cmd/..."]
    with pytest.raises(ConfigError, match=r"suite 'g': 'packages' must be a list of Go package patterns") as info:
        packages_option(_ctx(packages=[1]))
    assert info.value.key == "suites.g.packages"
    assert _list_timeout_s(_ctx()) == 60.0
    assert _list_timeout_s(_ctx(list_timeout="5s")) == 5.0
    with pytest.raises(ConfigError, match=r"suite 'g': 'list_timeout': expected a duration"):
        _list_timeout_s(_ctx(list_timeout="soon"))


def test_listing_an_unprepared_suite_says_so(tmp_path):
    ctx = SuiteContext(name="g", kind="go", root=tmp_path)
    with pytest.raises(ListingFailed, match=r"suite 'g': no usable build manifest .*prepare the suite first"):
        GoAdapter().list_benchmarks(ctx)
