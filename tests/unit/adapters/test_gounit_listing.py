"""The gounit adapter's pure parts: the Go tool's test listing line, a fork's -test.run pattern."""

from __future__ import annotations

import json
import re

import pytest

from benchwarden.adapters.gounit import listed_tests, run_name, run_pattern
from benchwarden.errors import ListingFailed


def line(**data) -> str:
    return json.dumps({"v": 1, "mode": "tests", "package": "p", **data}, sort_keys=True)  # as Go encodes a map


def test_the_names_in_source_order_after_any_other_output():
    output = "go: downloading x\n" + line(tests=[{"name": "TestB", "external": False},
                                                 {"name": "TestA", "external": True}])
    assert listed_tests("unit", "example.com/p", output) == (["TestB", "TestA"], "")


def test_a_refused_package_keeps_its_tests_and_the_reason():
    output = line(tests=[{"name": "TestX", "external": False}], refused="package main")
    assert listed_tests("unit", "example.com/cmd", output) == (["TestX"], "package main")


def test_each_test_is_followed_by_its_subtests():
    output = line(tests=[{"name": "TestA", "external": False, "subtests": ["cheap", "sleeps_2ms"]},
                         {"name": "TestB", "external": True}])
    assert listed_tests("unit", "example.com/p", output) == (["TestA", "TestA/cheap", "TestA/sleeps_2ms", "TestB"], "")


def _runs(pattern: str, path: list[str]) -> bool:
    """Would Go's -test.run run the test at this path (one name per level)? Each level's element must match its
    name (Python's re standing in for Go's RE2 on this subset: anchors, groups, alternation, escapes); levels
    beyond the pattern run all."""
    return all(re.search(p, name) for p, name in zip(pattern.split("/"), path))


@pytest.mark.parametrize("subtest", ["x.y+#1", "cheap", "SameSite=None_is_included", "TestLike", "Example_1"])
def test_a_subtest_fork_runs_the_driver_its_test_numbered_by_go_and_only_that_subtest(subtest):
    spec = {"test": "TestA", "subtest": subtest}
    pattern, name = run_pattern(spec), run_name(spec)
    for n in ("", "#01", "#12"):
        assert _runs(pattern, ["TestBenchwardenDriver", name + n, subtest, "anything below"])
    assert not _runs(pattern, ["TestBenchwardenDriver", name + "#", subtest])
    assert not _runs(pattern, ["TestBenchwardenDriver", name, "x" + subtest])
    assert not _runs(pattern, ["TestBenchwardenDriver", name, subtest + "0"])
    # no top-level test, example or fuzz target but the driver (their names begin Test, Example or Fuzz): not the
    # test itself, not one named like the subtest
    for top in ("TestA", "TestAB", "TestA#01", "Test" + subtest, "Example", "ExampleA", "FuzzA", "TestBenchwarden"):
        assert not _runs(pattern, [top]), top
    if subtest.startswith(("Test", "Example", "Fuzz")):
        assert not _runs(pattern, [subtest])


def test_the_driver_runs_a_subtests_test_under_a_name_no_top_level_test_can_have_so_one_pattern_serves_all_levels():
    assert run_pattern({"test": "TestA"}) == "^TestBenchwardenDriver$" and run_name({"test": "TestA"}) == "TestA"
    spec = {"test": "TestA", "subtest": "cheap"}
    assert run_name(spec) == "run_TestA" and len(set(run_pattern(spec).split("/"))) == 1
    # a subtest that could be named like a top-level test would match at the first level: one pattern per level
    spec = {"test": "TestA", "subtest": "TestLike"}
    assert run_name(spec) == "TestA" and len(set(run_pattern(spec).split("/"))) == 3


@pytest.mark.parametrize("output", ["", "not json", '{"v":1,"tests":3}', '{"v":2,"tests":[]}',
                                    line(tests=[{"external": True}]), '{"v": broken',
                                    line(tests=[{"name": "TestA", "subtests": [""]}]),
                                    line(tests=[{"name": "TestA", "subtests": "cheap"}])])
def test_a_malformed_listing_names_the_suite_and_the_package(output):
    with pytest.raises(ListingFailed, match=r"suite 'unit'.*example\.com/p"):
        listed_tests("unit", "example.com/p", output)
