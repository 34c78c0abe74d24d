"""The explanation's table and summary: the pruned call tree, the notes, and escaping in Markdown."""

from __future__ import annotations

from benchwarden.codelevel.explain import explain, failed_explanation
from benchwarden.codelevel.profiles import CallTree, NodeTimes
from benchwarden.compare.verdict import Verdict
from benchwarden.report.escaping import md_text
from benchwarden.report.explain_table import explanation_summary, explanation_table, shown_nodes
from benchwarden.report.table import to_markdown

ROOT, API = "b:time_x", "lib:api"


def tree(wait: float, extra: bool = True) -> CallTree:
    nodes = {(ROOT,): NodeTimes(10, 10 * (63_000.0 + wait), 10 * 1000.0),
             (ROOT, API): NodeTimes(10, 10 * (62_000.0 + wait), 10 * 2000.0),
             (ROOT, API, "lib:slow|*x*"): NodeTimes(10, 10 * (40_000.0 + wait), 10 * (40_000.0 + wait)),
             (ROOT, API, "lib:other"): NodeTimes(10, 10 * 20_000.0, 10 * 20_000.0)}
    if extra:
        nodes[(ROOT, "lib:tiny")] = NodeTimes(1000, 10 * 500.0, 10 * 500.0)  # 5 ns per call
    return CallTree(ROOT, nodes, 1000.0)


def explained(wait: float):
    return explain("s:b", Verdict.SLOWER, [tree(k * 7.0) for k in range(4)],
                   [tree(wait + k * 5.0) for k in range(4)], min_change=0.03)


def test_the_tree_is_pruned_to_the_causes_and_their_callers():
    e = explained(8000.0)
    assert e.causes == ((ROOT, API, "lib:slow|*x*"),)
    rows = explanation_table(e).rows
    assert [r[0] for r in rows] == [ROOT, "  " + API, "    lib:slow|*x*"]  # not lib:other, not lib:tiny
    assert rows[2][-1] == "cause #1" and rows[2][3] == "+7.997µs" and rows[2][6] == "slower"
    assert "first cause lib:slow|*x*" in explanation_summary(e) and "100.0% of the change" in explanation_summary(e)


def test_without_causes_the_heaviest_calls_are_shown_and_short_ones_flagged():
    e = explained(0.0)
    assert e.causes == ()
    assert [n.path for n in shown_nodes(e)] == [(ROOT,), (ROOT, API), (ROOT, "lib:tiny")]
    tiny = explanation_table(e).rows[-1]
    assert tiny[-1] == "short: 5.000ns/call, too short to trust"
    assert "no function's own time changed significantly" in explanation_summary(e)


def test_markdown_escapes_names_and_a_failure_says_why():
    e = explained(8000.0)
    text = to_markdown(explanation_table(e, escape=md_text, indent="&nbsp;&nbsp;"))
    assert "lib:slow\\|" in text and "*x*" not in text  # the pipe cannot split the row, the stars cannot emphasise
    failed = failed_explanation("s:b", Verdict.SLOWER, "a profiled fork failed: boom")
    assert shown_nodes(failed) == [] and explanation_summary(failed) == "s:b: not explained: a profiled fork failed: boom"


def test_junit_details_of_an_explained_benchmark_name_the_cause():
    """The CI's test report of a slower benchmark ends with its explanation; other cases are left alone."""
    from dataclasses import replace
    from xml.etree import ElementTree as ET

    from benchwarden.report.junit_compare import comparison_junit
    from tests.unit.compare.comparison_samples import sample_comparison

    c = sample_comparison()
    slower = next(b for b in c.benchmarks if b.verdict is Verdict.SLOWER)
    e = replace(explained(8000.0), benchmark=f"{slower.suite}:{slower.key}")
    cases = {case.get("name"): case for case in ET.fromstring(comparison_junit(replace(c, explanations=(e,))))
             .iter("testcase")}
    details = cases[slower.key].find("failure").text.splitlines()
    assert details[-2].startswith(f"{e.benchmark}: ") and "first cause lib:slow|*x*" in details[-2]
    assert details[-1] == "cause #1: b:time_x > lib:api > lib:slow|*x*: self 40.01µs → 48.01µs per operation (slower)"  # means of 40,000 + 7k and 48,000 + 5k, k < 4
    plain = {case.get("name"): case for case in ET.fromstring(comparison_junit(c)).iter("testcase")}
    assert "cause #1" not in plain[slower.key].find("failure").text
