"""Names are data: control characters, markup and emoji codes never act in any output."""

from __future__ import annotations

import io
from xml.etree import ElementTree as ET

from rich.console import Console

from benchwarden.report.escaping import md_text, rich_text, visible, xml_text
from benchwarden.report.junit import JUnitCase, junit_xml
from benchwarden.report.table import Column, TableModel, to_markdown, to_rich

HOSTILE = "b:x: [red]R[/red] \x1b[2J\x07\x00\x7f\x9b\u202eevil\ud800\ttab\nline"


def test_visible_escapes_every_control_and_bidi_character():
    shown = visible(HOSTILE)
    assert shown == ("b:x: [red]R[/red] \\x1b[2J\\x07\\x00\\x7f\\x9b\\u202eevil\\ud800\\x09tab\\x0aline")
    assert visible("a\nb", keep_newlines=True) == "a\nb"
    assert visible("plain µs/op ✓ 名前") == "plain µs/op ✓ 名前"  # printable text untouched
    assert visible(visible(HOSTILE)) == visible(HOSTILE)  # idempotent: safe to apply twice


def test_rich_text_cannot_open_a_tag():
    out = io.StringIO()
    Console(file=out, width=200, emoji=False, color_system=None).print(rich_text(HOSTILE))
    assert "[red]R[/red]" in out.getvalue() and ":x:" in out.getvalue() and "\x1b" not in out.getvalue()


def test_table_cells_and_title_render_as_text():
    model = TableModel([Column("benchmark"), Column("mean", "right")], title=f"run {HOSTILE}")
    model.add([HOSTILE, "1.5"])
    out = io.StringIO()
    Console(file=out, width=400, force_terminal=True).print(to_rich(model))  # default Console: emoji on
    text = out.getvalue()
    assert "❌" not in text and ":x:" in text and "[red]R[/red]" in text
    assert "\\x1b[2J" in text and "\x1b[2J" not in text and "\u202e" not in text and "\x00" not in text
    md = to_markdown(model)
    assert "\x1b" not in md and "\\\\x1b" in md  # escaped, then the backslash escaped for Markdown


def test_markdown_defuses_emoji_codes_and_markup():
    text = md_text("a:x: <b>|`c`")
    assert ":x:" not in text and "<b>" not in text and "`" not in text
    assert "\x1b" not in md_text("\x1b[31m")


def test_junit_stays_well_formed_with_control_characters():
    xml = junit_xml(f"suite {HOSTILE}", [JUnitCase(HOSTILE, HOSTILE, "failure", HOSTILE, HOSTILE)])
    case = ET.fromstring(xml).find("testsuite/testcase")  # parses: no character XML forbids
    assert case.get("name") == xml_text(HOSTILE) and "\\x1b" in case.get("name")
    assert case.find("failure").text == xml_text(HOSTILE) and case.find("failure").text.endswith("\ttab\nline")
