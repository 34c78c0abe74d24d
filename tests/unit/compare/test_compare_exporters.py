"""Exporters of a comparison: golden Markdown and JUnit, strict JSON, and the HTML report's escaping.

Regenerate the golden files after an intended change with
``BENCHWARDEN_REGENERATE_GOLDEN=1 pytest tests/unit/compare/test_compare_exporters.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from benchwarden.compare.verdict import Verdict
from benchwarden.report.html import comparison_html, json_for_script
from benchwarden.report.json_export import comparison_json, comparison_to_dict
from benchwarden.report.junit_compare import comparison_junit
from benchwarden.report.markdown import comparison_markdown, md_text
from tests.unit.compare.comparison_samples import EVIL, benchmark, sample_comparison

DATA = Path(__file__).resolve().parents[2] / "data" / "compare"


def _golden(name: str, produced: bytes) -> None:
    path = DATA / name
    if os.environ.get("BENCHWARDEN_REGENERATE_GOLDEN") == "1":
        path.write_bytes(produced)
    assert produced.decode() == path.read_text(encoding="utf-8")


def test_markdown_golden():
    _golden("comparison.md", comparison_markdown(sample_comparison()))


def test_junit_golden_and_structure():
    produced = comparison_junit(sample_comparison())
    _golden("comparison-junit.xml", produced)
    root = ET.fromstring(produced)
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("6", "1", "1", "2")
    failed = [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failed == ["wordstat.bench.TokenizeBench.tokenize[size=1000]"]
    assert any(c.get("name") == EVIL for c in suite.iter("testcase"))  # escaped by ElementTree, read back intact


def test_markdown_is_quiet_when_nothing_changed():
    c = sample_comparison()
    quiet = replace(c, benchmarks=tuple(b for b in c.benchmarks if b.verdict is Verdict.UNCHANGED), unmatched=())
    text = comparison_markdown(quiet).decode()
    assert "No benchmark changed beyond its threshold." in text
    assert "<details><summary>1 unchanged</summary>" in text and "Regressions" not in text


def test_markdown_escapes_user_text():
    assert md_text("<b>x</b> *y* [z](u) ![i][r] `c` a_b _c_ t[size=1]") == \
        "&lt;b&gt;x&lt;/b&gt; &#42;y&#42; [z&#93;(u) ![i&#93;[r] &#96;c&#96; a_b &#95;c&#95; t[size=1]"
    text = comparison_markdown(sample_comparison()).decode()
    assert "<script>" not in text and "&lt;script&gt;" in text


def test_json_is_strict_and_complete():
    c = sample_comparison()
    unbounded = replace(c, benchmarks=(benchmark("wide", Verdict.INCONCLUSIVE, 1.5, 0.0, float("inf")),))
    data = json.loads(comparison_json(unbounded))
    assert data["benchmarks"][0]["ci"] == [0.0, None]
    full = json.loads(comparison_json(c))
    assert full["format"] == "benchwarden-comparison" and full["gate"] == "error"
    assert full["counts"] == {"faster": 1, "slower": 1, "unchanged": 1, "inconclusive": 1, "error": 1}
    tokenize = full["benchmarks"][0]
    assert tokenize["verdict"] == "slower" and tokenize["change"] == pytest.approx(0.52)
    assert len(tokenize["measurements_ns"]["base"]) == 4 and tokenize["looks"][0]["pairs"] == 4
    thrpt = next(b for b in full["benchmarks"] if b["unit"] == "ops/s")
    assert thrpt["direction"] == "higher" and thrpt["change"] == pytest.approx(0.25)  # 0.8 time ratio = +25 % ops/s


def test_html_escapes_names_and_embeds_the_data_safely():
    c = sample_comparison()
    page = comparison_html(c).decode()
    assert EVIL not in page and "<script>alert" not in page
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page or "&lt;script&gt;alert(&quot;x&quot;)" in page
    scripts = re.findall(r"<script\b[^>]*>", page)
    assert scripts == ['<script type="application/json" id="benchwarden-data">']
    embedded = re.search(r'<script type="application/json" id="benchwarden-data">(.*?)</script>', page, re.S).group(1)
    assert "<" not in embedded and json.loads(embedded) == json.loads(json.dumps(comparison_to_dict(c)))
    assert "default-src 'none'" in page  # no script, no fetch: offline by construction
    assert not re.search(r'(?:src|href)\s*=\s*"(?:https?:)?//', page)  # nothing external is loaded
    assert page.count("<svg") == 1 + 2 * 5  # forest plot + two plots per benchmark with data


def test_json_for_script_cannot_close_the_element():
    text = str(json_for_script({"name": "</script><script>alert(1)</script>\u2028&"}))
    assert "</" not in text and "<" not in text and "\u2028" not in text
    assert json.loads(text) == {"name": "</script><script>alert(1)</script>\u2028&"}


def test_plots_do_not_interpret_dollar_signs_as_math():
    c = sample_comparison()
    dollar = replace(c, benchmarks=(benchmark("Outer$Inner.$run$", Verdict.UNCHANGED, 1.0, 0.99, 1.01),))
    assert b"<svg" in comparison_html(dollar)
