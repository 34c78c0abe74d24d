"""Each finding fires where it should, with its location and consequence, and nowhere else."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchwarden.audit.project import audit_project

DATA = Path(__file__).resolve().parents[2] / "data" / "audit"


@pytest.fixture(scope="module")
def findings():
    return audit_project(DATA / "annotations").findings


def where(findings, code):
    return sorted((f.benchmark.removeprefix("fixture.") if f.benchmark else None, str(f.location))
                  for f in findings if f.code == code)


P = "src/main/java/fixture/"


def test_each_code_fires_exactly_on_the_fixture_cases(findings):
    assert where(findings, "zero-forks") == [("Pitfalls.zeroForks", P + "Pitfalls.java:13")]
    assert where(findings, "single-fork") == [("GridBench.grid", P + "GridBench.java:6"),
                                              ("Pitfalls.singleFork", P + "Pitfalls.java:19")]
    assert where(findings, "no-warmup") == [("Pitfalls.noWarmup", P + "Pitfalls.java:26")]
    assert where(findings, "time-unit-without-time") == [("Pitfalls.unitWithoutTime", P + "Pitfalls.java:33")]
    assert where(findings, "huge-param-grid") == [("GridBench.grid", P + "GridBench.java:11"),
                                                  ("ParamsBench.withState", P + "SeparateState.java:8")]
    # a dead value, not a void method: `x++` (Pitfalls.voidWithoutBlackhole, Groups.w) is a side effect JMH keeps
    assert where(findings, "dead-result") == [("Pitfalls.deadResult", P + "Pitfalls.java:47")]
    assert where(findings, "commented-out-benchmark") == [(None, P + "Commented.java:18"),
                                                          (None, P + "Commented.java:24"),
                                                          (None, P + "Commented.java:30")]
    from benchwarden.audit.findings import FINDING_CODES
    assert {f.code for f in findings} <= set(FINDING_CODES)
    assert {f.code for f in findings} == {"zero-forks", "single-fork", "no-warmup", "time-unit-without-time",
                                          "huge-param-grid", "dead-result", "commented-out-benchmark"}


def test_time_unit_consequence_names_the_effective_time(findings):
    f = next(f for f in findings if f.code == "time-unit-without-time")
    assert "lasts 10 s, from JMH's default for this version (>= 1.21)" in f.consequence
    assert "(10 s is 10000 milliseconds)" in f.consequence


def test_grid_consequence_has_the_arithmetic(findings):
    f = next(f for f in findings if f.code == "huge-param-grid" and f.benchmark.endswith("GridBench.grid"))
    assert f.message == "64 parameter combinations (a(8) x b(8)), above the threshold of 50"
    assert "64 x 4.0s = 4m16s" in f.consequence


def test_threshold_is_configurable():
    strict = audit_project(DATA / "annotations", grid_threshold=10).findings
    assert len([f for f in strict if f.code == "huge-param-grid"]) == 3  # + ParamsBench.own (18)


def test_findings_are_sorted_by_severity(findings):
    ranks = [f.severity.rank for f in findings]
    assert ranks == sorted(ranks) and findings[0].code == "zero-forks"


def test_every_finding_explains_its_consequence(findings):
    assert all(len(f.consequence) > 40 and f.message for f in findings)


def test_docs_explain_every_finding_code():
    import re

    from benchwarden.audit.findings import FINDING_CODES
    docs = (Path(__file__).resolve().parents[3] / "docs" / "audit.md").read_text()
    section = docs.split("## Findings", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| `([a-z-]+)` \|", section, flags=re.MULTILINE)
    assert documented == list(FINDING_CODES)
