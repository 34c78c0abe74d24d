"""Harness labels map to metric definitions: unit, direction, rule."""

from __future__ import annotations

import pytest

from benchwarden.metrics.catalog import GATE_NAMES, Rule, label, metric_for, primary_metric
from benchwarden.model import Direction


@pytest.mark.parametrize("text, name, unit, rule", [
    ("B/op", "bytes", "B/op", Rule.EXACT),  # go test -benchmem
    ("allocs/op", "allocs", "allocs/op", Rule.EXACT),
    ("MB/s", "MB/s", "MB/s", Rule.SHOWN),  # b.SetBytes: restates the time
    ("gc.alloc.rate.norm [B/op]", "bytes", "B/op", Rule.EXACT),  # JMH 1.37 -prof gc
    ("·gc.alloc.rate.norm [B/op]", "bytes", "B/op", Rule.EXACT),  # JMH <= 1.35 prefixed the label
    ("gc.alloc.rate [MB/sec]", "gc.alloc.rate", "MB/sec", Rule.SHOWN),
    ("gc.count [counts]", "gc.count", "counts", Rule.SHOWN),
    ("gc.time [ms]", "gc.time", "ms", Rule.SHOWN),
    ("cpu [ns/op]", "cpu", "ns/op", Rule.NOISY),  # benchwarden's own collectors
    ("wall [ns/op]", "wall", "ns/op", Rule.NOISY),
    ("rss [KiB]", "rss", "KiB", Rule.NOISY),
    ("mem.peak [B]", "mem.peak", "B", Rule.EXACT),
    ("cpu.user [ms]", "cpu.user", "ms", Rule.NOISY),
    ("instructions [instr/op]", "instructions", "instr/op", Rule.EXACT),
])
def test_known_labels(text, name, unit, rule):
    metric = metric_for(text)
    assert (metric.name, metric.unit, metric.rule) == (name, unit, rule)


def test_a_known_name_in_another_unit_keeps_its_rule_and_takes_the_unit():
    metric = metric_for("cpu [us/op]")
    assert (metric.name, metric.unit, metric.rule) == ("cpu", "us/op", Rule.NOISY)


@pytest.mark.parametrize("text, name, unit, direction", [
    ("widgets/op", "widgets/op", "widgets/op", Direction.LOWER_IS_BETTER),  # b.ReportMetric(x, "widgets/op")
    ("hits/s", "hits/s", "hits/s", Direction.HIGHER_IS_BETTER),
    ("p99 [us/op]", "p99", "us/op", Direction.LOWER_IS_BETTER),  # a JMH sample-mode percentile
    ("stack:cycles [ops/s]", "stack:cycles", "ops/s", Direction.HIGHER_IS_BETTER),
])
def test_unknown_labels_are_noisy_metrics_named_after_the_label(text, name, unit, direction):
    metric = metric_for(text)
    assert (metric.name, metric.unit, metric.direction, metric.rule) == (name, unit, direction, Rule.NOISY)


def test_higher_is_better_values_are_inverted_for_the_judge():
    rate = metric_for("hits/s")
    assert rate.lower_is_better(4.0) == 0.25 and rate.lower_is_better(0.0) == 0.0
    assert metric_for("B/op").lower_is_better(16.0) == 16.0


def test_labels_and_names():
    assert label("cpu", "ns/op") == "cpu [ns/op]"
    assert primary_metric("instructions").unit == "instr/op"
    with pytest.raises(ValueError, match="expected one of: time, cpu, instructions"):
        primary_metric("cycles")
    assert {"time", "allocs", "bytes", "cpu", "instructions", "rss"} <= set(GATE_NAMES)
    assert "gc.count" not in GATE_NAMES and "MB/s" not in GATE_NAMES
