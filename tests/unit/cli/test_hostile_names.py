"""Names are data in every output: a benchmark named with markup, an emoji code and control characters.

Runs a real (in-process fake) suite through `run`, `show`, `runs` and `compare --runs` with the
Markdown, JUnit and HTML exporters, and checks that nothing in the name acts anywhere: no rich markup
rendered, no emoji, no raw control character in the terminal or in the files, and well-formed XML.
"""

from __future__ import annotations

import io
import re
from xml.etree import ElementTree as ET

import pytest

from benchwarden.adapters import REGISTRY
from benchwarden.cli import main
from tests.support.fake_adapter import FakeAdapter, FakeBenchmarkSpec

NAME = "evil:x:[red]R[/red]\x1b[2J\x07\u202e"
LABEL = "lab:tada:[bold]\x1b]0;title\x07"
#: raw characters that must never reach an output
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]")


class HostileAdapter(FakeAdapter):
    def __init__(self) -> None:
        super().__init__([FakeBenchmarkSpec(NAME, values=lambda f, i: 100.0 + (i % 3) + f,
                                            params=(("p", "v:x:\x1b"),))])


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setitem(REGISTRY, "fake", f"{__name__}:HostileAdapter")
    (tmp_path / "benchwarden.toml").write_text(
        '[defaults]\niteration_time = "10ms"\nwarmup = { min = 1, max = 1 }\niterations = 3\n'
        'forks = { min = 2, max = 2 }\n\n[suites.demo]\nkind = "fake"\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def assert_inert(text: str) -> None:
    assert not RAW.search(text), repr(RAW.search(text).group(0))
    assert "❌" not in text and "🎉" not in text


def test_terminal_outputs_show_names_as_text(project):
    for _ in range(2):
        status, out, err = bw("run", "--label", LABEL)
        assert status == 0, err
        assert_inert(out + err)
        assert "[red]R[/red]" in out and ":x:" in out and "\\x1b[2J" in out
    status, out, err = bw("show")
    assert status == 0, err
    assert_inert(out + err)
    assert "[red]R[/red]" in out and "\\x1b[2J" in out
    status, out, err = bw("runs")
    assert status == 0, err
    assert_inert(out + err)
    assert "lab:tada:[bold]\\x1b]0;title\\x07" in out


def test_comparison_files_keep_names_inert(project):
    for _ in range(2):
        assert bw("run", "--quiet")[0] == 0
    md, junit, html = project / "c.md", project / "c.xml", project / "c.html"
    status, out, err = bw("compare", "--runs", "1", "2", "--markdown", str(md), "--junit", str(junit),
                          "--html", str(html))
    assert status in (0, 1), err
    assert_inert(out + err)
    markdown = md.read_text()
    assert_inert(markdown)
    assert ":x:" not in markdown and "<span" not in markdown
    root = ET.parse(junit).getroot()  # well-formed
    assert any("\\x1b[2J" in (case.get("name") or "") for case in root.iter("testcase"))
    page = html.read_text()
    assert_inert(page.split('id="benchwarden-data"')[0])  # the embedded JSON carries \u001b escapes itself
    assert "\\x1b[2J" in page and "[red]R[/red]" in page


def test_error_messages_escape_names(project):
    status, out, err = bw("show", "\x1b[31mnope")
    assert status == 2
    assert_inert(err) and "\\x1b[31mnope" in err
