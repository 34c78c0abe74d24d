"""Durations: every spelling the docs use, and every bad value refused with a message that says what is expected."""

from __future__ import annotations

import math

import pytest

from benchwarden.units import MAX_DURATION_S, format_duration, parse_duration_s


@pytest.mark.parametrize("text, seconds", [
    ("1s", 1.0), ("250ms", 0.25), ("2m", 120.0), ("1.5", 1.5), (".5s", 0.5), ("100us", 1e-4), ("10µs", 1e-5),
    ("1hr", 3600.0), ("1day", 86400.0), ("30day", MAX_DURATION_S), (3, 3.0), (0.2, 0.2),
])
def test_durations(text, seconds):
    assert parse_duration_s(text) == pytest.approx(seconds)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, -1, -0.5, 0, 0.0, "0", "0ms", "-1s", "nan", "inf",
                                   "1e3s", "31day", 1e300, True, False, "", "fast", "1 s s"])
def test_bad_durations(value):
    with pytest.raises(ValueError, match="duration"):
        parse_duration_s(value)


def test_zero_only_where_it_means_something():
    assert parse_duration_s(0, positive=False) == 0.0 and parse_duration_s("0s", positive=False) == 0.0
    with pytest.raises(ValueError, match="finite"):
        parse_duration_s(math.nan, positive=False)


@pytest.mark.parametrize("seconds, text", [(0.85, "850ms"), (12.34, "12.3s"), (245, "4m05s"), (3720, "1h02m"),
                                           (math.nan, "n/a"), (math.inf, "n/a")])
def test_format_duration(seconds, text):
    assert format_duration(seconds) == text


def test_instruction_counts_are_their_own_normalised_value():
    from benchwarden.units import direction_of, from_ns_per_op, to_ns_per_op

    assert to_ns_per_op(249_000.0, "instr/op") == 249_000.0
    assert from_ns_per_op(249_000.0, "instr/op") == 249_000.0
    assert direction_of("instr/op").value == "lower"
