"""Metrics in every output of a comparison: terminal table, Markdown, JSON, JUnit, HTML."""

from __future__ import annotations

import dataclasses
import json
import xml.etree.ElementTree as ET

from comparison_samples import EVIL, sample_comparison

from benchwarden.compare.metrics import judge_metric
from benchwarden.metrics.catalog import metric_for
from benchwarden.report.html import comparison_html
from benchwarden.report.json_export import comparison_json
from benchwarden.report.junit_compare import comparison_junit
from benchwarden.report.markdown import comparison_markdown
from benchwarden.report.metrics_table import metrics_table

LEVELS = (0.995, 0.95)


def _with_metrics(fail_on=("time",)):
    c = sample_comparison()
    allocs = judge_metric(metric_for("allocs/op"), "allocs/op", [[161.0]] * 3, [[167.0]] * 3, levels=LEVELS,
                          threshold=0.03)
    gc = judge_metric(metric_for("gc.count [counts]"), "gc.count [counts]", [[2.0]] * 3, [[3.0]] * 3,
                      levels=LEVELS, threshold=0.03)
    evil = judge_metric(metric_for(EVIL), EVIL, [[1.0, 1.1]] * 3, [[1.0, 1.1]] * 3, levels=LEVELS, threshold=0.03)
    topk = dataclasses.replace(c.benchmarks[1], metrics=(allocs, gc, evil))
    return dataclasses.replace(c, benchmarks=(c.benchmarks[0], topk, *c.benchmarks[2:4]), fail_on=fail_on)


def test_the_table_puts_gate_failures_first_and_names_the_rule():
    c = _with_metrics(("time", "allocs"))
    table = metrics_table(c.benchmarks, c.fail_on)
    first = table.rows[0]
    assert first[1:4] == ["allocs", "worse", "161"] and first[4] == "167" and first[6] == "+3.7%"
    assert first[7] == "exact" and first[8] == "fail"
    by_metric = {row[1]: row for row in table.rows}
    assert by_metric["gc.count"][2] == "shown" and by_metric["gc.count"][8] == ""


def test_allocations_alone_fail_the_gate_in_every_output():
    c = _with_metrics(("allocs",))  # the slower time verdict does not gate here
    assert c.gate == "regression" and [r.key for r in c.failures] == ["wordstat.bench.TopKBench.topK"]
    md = comparison_markdown(c).decode()
    assert "Metrics that fail the gate (fail_on: allocs)" in md and "| worse |" in md
    doc = json.loads(comparison_json(c))
    assert doc["gate"] == "regression" and doc["fail_on"] == ["allocs"]
    topk = next(b for b in doc["benchmarks"] if b["benchmark"].endswith("topK"))
    assert topk["metric"] == "time"
    assert [(m["name"], m["verdict"], m["rule"]) for m in topk["metrics"]][:2] == [
        ("allocs", "worse", "exact"), ("gc.count", "shown", "shown")]
    cases = {case.get("name"): case for case in ET.fromstring(comparison_junit(c)).iter("testcase")}
    assert cases["wordstat.bench.TopKBench.topK"].find("failure").get("message").startswith("allocs: worse (161 → 167")
    slower = cases["wordstat.bench.TokenizeBench.tokenize[size=1000]"]
    assert slower.find("failure") is None  # slower, but time is not in fail_on


def test_names_in_metric_labels_are_data_in_markdown_and_html():
    c = _with_metrics(("time", "allocs"))
    md = comparison_markdown(c).decode()
    assert "<script>" not in md
    html = comparison_html(c).decode()
    assert "Metrics beside the primary verdict" in html and 'class="verdict m-worse"' in html
    assert "<script>alert" not in html
