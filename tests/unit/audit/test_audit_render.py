"""Renderers: golden Markdown, one table builder for terminal and Markdown, JSON shape."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from benchwarden.audit.project import audit_tree
from benchwarden.audit.render import build_tables, report_to_json, report_to_markdown, to_markdown, to_rich
from benchwarden.audit.sourcetree import DirectoryTree

DATA = Path(__file__).resolve().parents[2] / "data" / "audit"


@pytest.fixture(scope="module")
def report():
    return audit_tree(DirectoryTree(DATA / "annotations"), "annotations")


def test_markdown_matches_golden(report):
    """Regenerate after an intended change with: report_to_markdown(audit_tree(...)) -> annotations-report.md."""
    assert report_to_markdown(report) == (DATA / "annotations-report.md").read_text()


def test_terminal_and_markdown_show_the_same_cells(report):
    for table in build_tables(report):
        out = io.StringIO()
        Console(file=out, width=400, color_system=None).print(to_rich(table))
        text = out.getvalue()
        for row in table.rows:
            for cell in row:
                for part in cell.split("\n"):
                    assert part in text, (table.title, part)
        md = to_markdown(table)
        assert md.count("\n| ") == len(table.rows) + 1  # header + one line per row


def test_markdown_escapes_pipes_and_asterisks():
    from benchwarden.audit.render import TableData
    md = to_markdown(TableData("T", ("a", "b"), (("x|y", "5*"),)))
    assert "| x\\|y | 5\\* |" in md


def test_json_is_serialisable_and_complete(report):
    data = json.loads(json.dumps(report_to_json(report)))
    assert data["schema"] == 1 and data["jmh_versions"] == ["1.37"] and data["java_target"] == "8"
    assert data["suite"]["benchmarks"] == 25 and data["suite"]["dynamic_source"] == "estimate"
    grid = next(b for b in data["benchmarks"] if b["name"] == "fixture.GridBench.grid")
    assert grid["effective"] == {"forks": 1, "warmup_forks": 0, "warmup_iterations": 2, "warmup_time_s": 1.0,
                                 "measurement_iterations": 2, "measurement_time_s": 1.0}
    assert grid["explicit"]["forks"] == {"value": 1, "origin": "class",
                                         "location": "src/main/java/fixture/GridBench.java:6"}
    assert grid["time_s"]["own"] == 256.0 and grid["combinations"] == 64
    assert {f["code"] for f in data["findings"]} >= {"zero-forks", "time-unit-without-time"}
    assert data["warnings"][0]["location"] == "src/main/java/fixture/Constants.java:28"
    assert "history" not in data
