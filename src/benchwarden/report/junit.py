"""JUnit XML export: one test case per benchmark (compare) or per assertion (check); CI systems read it.

A regression or a failed assertion is a ``<failure>``; a benchmark that could not be measured is an
``<error>``; an inconclusive/undecided result is ``<skipped>`` with its reason, so it is visible but
does not fail the build.  Built with ElementTree, so markup in names and messages is escaped; characters
XML 1.0 cannot carry at all (controls, lone surrogates) are written as visible escapes first
(:func:`benchwarden.report.escaping.xml_text`), so the document is always well-formed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence
from xml.etree import ElementTree as ET

from benchwarden.report.escaping import xml_text

Outcome = Literal["passed", "failure", "error", "skipped"]


@dataclass(frozen=True)
class JUnitCase:
    name: str
    classname: str
    outcome: Outcome = "passed"
    message: str = ""  # one line, shown by CI systems
    details: str = ""  # longer text (table, numbers)
    time_s: float = 0.0


def junit_xml(suite_name: str, cases: Sequence[JUnitCase]) -> bytes:
    """A ``<testsuites>`` document with one ``<testsuite>``; returns UTF-8 bytes with an XML declaration."""
    x = xml_text
    counts = {o: sum(1 for c in cases if c.outcome == o) for o in ("failure", "error", "skipped")}
    root = ET.Element("testsuites", name=x(suite_name), tests=str(len(cases)), failures=str(counts["failure"]),
                      errors=str(counts["error"]), skipped=str(counts["skipped"]))
    suite = ET.SubElement(root, "testsuite", name=x(suite_name), tests=str(len(cases)),
                          failures=str(counts["failure"]), errors=str(counts["error"]),
                          skipped=str(counts["skipped"]), time=f"{sum(c.time_s for c in cases):.3f}")
    for case in cases:
        el = ET.SubElement(suite, "testcase", name=x(case.name), classname=x(case.classname), time=f"{case.time_s:.3f}")
        if case.outcome != "passed":
            child = ET.SubElement(el, case.outcome, message=x(case.message))
            if case.details:
                child.text = x(case.details)
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
