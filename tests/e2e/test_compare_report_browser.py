"""The HTML comparison report in a real headless browser (Debian's chromium, over the DevTools pipe).

It loads offline (the only request is the file itself), raises no console errors, exceptions or
CSP violations, its plots render (every SVG has a non-zero size), and a benchmark name with
``<script>`` in it is shown as text, never run.  A negative control checks that the detector does
see an error and a blocked request on a page that has them.
"""

from __future__ import annotations

import json

import pytest

from benchwarden.report.html import comparison_html
from tests.e2e.cdp_pipe import Browser, chromium
from tests.unit.compare.comparison_samples import EVIL, sample_comparison

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(chromium() is None, reason="chromium is not installed (scripts/bootstrap.sh "
                                                            "installs it when run as root)")]

SVG_SIZES = "JSON.stringify([...document.querySelectorAll('svg')].map(s => {const r = s.getBoundingClientRect();" \
            " return [r.width, r.height];}))"


def test_report_renders_offline_without_errors_and_escapes_names(tmp_path):
    page = tmp_path / "report.html"
    page.write_bytes(comparison_html(sample_comparison()))
    with Browser(tmp_path / "profile") as browser:
        session = browser.open(page.as_uri())
        sizes = json.loads(browser.evaluate(SVG_SIZES, session))
        scripts = browser.evaluate("[...document.scripts].map(s => s.type + '#' + s.id)", session)
        shown = browser.evaluate("document.body.innerText", session)
        data = browser.evaluate("JSON.parse(document.getElementById('benchwarden-data').textContent)", session)
        dialogs = [e for e in browser.events if e.get("method") == "Page.javascriptDialogOpening"]
        problems = browser.problems()
        requests = browser.requests()
    assert problems == []
    assert requests == [page.as_uri()]  # offline: nothing but the file itself
    assert len(sizes) == 11 and all(w > 50 and h > 50 for w, h in sizes)
    assert scripts == ["application/json#benchwarden-data"]  # the name's <script> did not become an element
    assert EVIL in shown and dialogs == []  # shown as text; alert() never ran
    assert EVIL in [b["benchmark"] for b in data["benchmarks"]]  # the embedded JSON reads back intact


def test_the_detector_sees_errors_and_blocked_requests(tmp_path):
    page = tmp_path / "bad.html"
    page.write_text("<!doctype html><html><head><meta http-equiv=\"Content-Security-Policy\" "
                    "content=\"default-src 'none'; script-src 'unsafe-inline'\"></head><body>"
                    "<img src=\"https://cdn.example.invalid/x.png\">"
                    "<script>console.error('boom'); undefinedFunction();</script></body></html>")
    with Browser(tmp_path / "profile") as browser:
        browser.open(page.as_uri())
        kinds = {e["method"] for e in browser.problems()}
    assert {"Runtime.consoleAPICalled", "Runtime.exceptionThrown"} <= kinds
    assert "Log.entryAdded" in kinds  # the CSP-blocked image


def test_explanations_render_as_an_indented_call_tree_with_names_as_text(tmp_path):
    from dataclasses import replace

    from benchwarden.codelevel.explain import explain
    from benchwarden.codelevel.profiles import CallTree, NodeTimes
    from benchwarden.compare.verdict import Verdict

    root, api, evil = "bench:time_api", "lib:api", f"lib:{EVIL}"

    def tree(wait: float) -> CallTree:
        return CallTree(root, {(root,): NodeTimes(10, 10 * (3000.0 + wait), 10 * 1000.0),
                               (root, api): NodeTimes(10, 10 * (2000.0 + wait), 10 * 1000.0),
                               (root, api, evil): NodeTimes(10, 10 * (1000.0 + wait), 10 * (1000.0 + wait))}, 900.0)
    e = explain("s:" + EVIL, Verdict.SLOWER, [tree(k) for k in (0, 5, 9, 3)], [tree(800 + k) for k in (0, 7, 2, 4)],
                min_change=0.03)
    assert e.causes == ((root, api, evil),)
    page = tmp_path / "report.html"
    page.write_bytes(comparison_html(replace(sample_comparison(), explanations=(e,))))
    with Browser(tmp_path / "profile") as browser:
        session = browser.open(page.as_uri())
        rows = json.loads(browser.evaluate(
            "JSON.stringify([...document.querySelectorAll('table.explain tbody tr')].map(r => [r.cells[0].innerText, "
            "getComputedStyle(r.cells[0]).paddingLeft, r.className]))", session))
        scripts = browser.evaluate("[...document.scripts].map(s => s.type + '#' + s.id)", session)
        problems = browser.problems()
    assert problems == []  # the indentation's inline style is allowed by the page's policy
    assert [r[0] for r in rows] == [root, api, evil]  # the tree, the hostile name shown as text
    indents = [float(r[1].removesuffix("px")) for r in rows]
    assert indents[0] < indents[1] < indents[2]
    assert rows[2][2] == "cause" and scripts == ["application/json#benchwarden-data"]
