"""The gounit adapter's pure part: the Go tool's test listing line."""

from __future__ import annotations

import json

import pytest

from benchwarden.adapters.gounit import listed_tests
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


@pytest.mark.parametrize("output", ["", "not json", '{"v":1,"tests":3}', '{"v":2,"tests":[]}',
                                    line(tests=[{"external": True}]), '{"v": broken'])
def test_a_malformed_listing_names_the_suite_and_the_package(output):
    with pytest.raises(ListingFailed, match=r"suite 'unit'.*example\.com/p"):
        listed_tests("unit", "example.com/p", output)
