"""jsontext.loads: every way json.loads can fail on text from outside becomes one JsonTextError."""

from __future__ import annotations

import math

import pytest

from benchwarden.jsontext import MAX_DEPTH, JsonTextError, loads, nested_deeper_than


@pytest.mark.parametrize("text, fragment", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),  # RecursionError inside the C decoder
    ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nested too deeply"),  # decodes, but deeper than allowed
    ("[1, NaN]", "NaN is not a JSON number"),
    ('{"a": -Infinity}', "-Infinity is not a JSON number"),
    ("1" * 5000, "not a valid JSON value"),  # int() refuses more than 4,300 digits
    (b'"\xff"', "not UTF-8"),
    ('{"a": 1,}', "not valid JSON"),
])
def test_failures(text, fragment):
    with pytest.raises(JsonTextError, match=fragment):
        loads(text)


def test_line_and_column_of_a_syntax_error():
    with pytest.raises(JsonTextError) as info:
        loads('{\n  "a": 1,\n  "b": ]\n}')
    assert (info.value.line, info.value.column) == (3, 8)


def test_accepted():
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    assert loads('{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}
    assert math.isnan(loads("[NaN]", allow_nan=True)[0])


def test_depth_is_measured_without_recursion():
    deep: list = []
    node = deep
    for _ in range(50_000):
        node.append([])
        node = node[0]
    assert nested_deeper_than(deep, 1000) and not nested_deeper_than([[1], {"a": [2]}], 3)
