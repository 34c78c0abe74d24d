from xml.etree import ElementTree as ET

from benchwarden.report.junit import JUnitCase, junit_xml


def test_counts_outcomes_and_escapes_names():
    xml = junit_xml("compare", [
        JUnitCase("a<script>alert(1)</script>", "suite", "failure", "slower by 12% & more", "details\n<b>"),
        JUnitCase("b", "suite"),
        JUnitCase("c", "suite", "skipped", "inconclusive"),
        JUnitCase("d", "suite", "error", "fork crashed"),
    ])
    root = ET.fromstring(xml)  # well-formed despite the markup in names
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("4", "1", "1", "1")
    cases = suite.findall("testcase")
    assert cases[0].get("name") == "a<script>alert(1)</script>"
    assert cases[0].find("failure").get("message") == "slower by 12% & more"
    assert cases[0].find("failure").text == "details\n<b>"
    assert cases[1].find("failure") is None and cases[2].find("skipped") is not None
    assert b"<script>" not in xml  # escaped in the bytes
