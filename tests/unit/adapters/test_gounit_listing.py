"""The gounit adapter's pure parts: the Go tool's test listing line, a fork's -test.run pattern."""

from __future__ import annotations

import json
import re

import pytest

from benchwarden.adapters.gounit import listed_tests, run_pattern
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


def test_a_subtest_fork_runs_the_driver_its_test_numbered_by_go_and_only_that_subtest():
    assert run_pattern({"test": "TestA"}) == "^TestBenchwardenDriver$"
    pattern = run_pattern({"test": "TestA", "subtest": "x.y+#1"})
    levels = pattern.split("/")  # Go matches one element per subtest level
    assert re.fullmatch(levels[1], "TestA") and re.fullmatch(levels[1], "TestA#01") and re.fullmatch(levels[1], "TestA#12")
    assert not re.fullmatch(levels[1], "TestAB") and not re.fullmatch(levels[1], "TestA#")
    assert re.fullmatch(levels[2], "x.y+#1") and not re.fullmatch(levels[2], "xzy+#1") and not re.fullmatch(levels[2], "x.y+#10")


@pytest.mark.parametrize("output", ["", "not json", '{"v":1,"tests":3}', '{"v":2,"tests":[]}',
                                    line(tests=[{"external": True}]), '{"v": broken',
                                    line(tests=[{"name": "TestA", "subtests": [""]}]),
                                    line(tests=[{"name": "TestA", "subtests": "cheap"}])])
def test_a_malformed_listing_names_the_suite_and_the_package(output):
    with pytest.raises(ListingFailed, match=r"suite 'unit'.*example\.com/p"):
        listed_tests("unit", "example.com/p", output)
