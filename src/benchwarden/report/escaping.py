"""Names are data: one place that makes user text (benchmark names, labels, messages) safe for each output.

Benchmark names, parameter values, labels and harness messages come from user code. They may hold
rich markup (``[red]``), emoji codes (``:x:``), terminal escape sequences (``\\x1b[2J``), other
control characters, bidirectional overrides (the "Trojan Source" trick, CVE-2021-42574) or lone
surrogates. None of that may act: every output shows it as text.

* :func:`visible` — control and invisible format characters as Python-style escapes (``\\x1b``,
  ``\\u202e``); the base of every other function here. Backslashes are left alone (a name holding
  the four characters ``\\x1b`` looks like one holding ESC; the stored name, JSON and ``--json``
  output keep the exact text).
* :func:`rich_text` — :func:`visible`, then rich's markup escape: for interpolating user text into
  a rich markup string. Consoles are created with ``emoji=False`` (:mod:`benchwarden.cli.common`),
  so ``:x:`` stays ``:x:`` wherever rich renders a string.
* :func:`xml_text` — only what XML 1.0 cannot carry at all (``Char`` production, W3C XML 1.0 §2.2):
  C0 controls other than tab/newline/CR, U+FFFE/U+FFFF and surrogates, so JUnit XML stays well-formed.

* :func:`md_text` — :func:`visible`, then HTML and Markdown specials, and emoji shortcodes defused.

The HTML templates apply :func:`visible` to every plain string (:func:`benchwarden.report.html.environment`)
before jinja2's autoescape.
"""

from __future__ import annotations

import html
import re

#: C0 and C1 controls, DEL, the bidirectional marks, embeddings, overrides and isolates, line and paragraph
#: separators, zero-width no-break space / BOM, and lone surrogates (invalid UTF-8 decoded with surrogateescape)
_INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff"
                        "\ud800-\udfff]")
_INVISIBLE_KEEP_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                                   "\u2066-\u2069\ufeff\ud800-\udfff]")
#: characters XML 1.0 does not allow anywhere (not even as character references)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with every control or invisible format character written as an escape (``\\x1b``, ``\\u202e``).

    ``keep_newlines``: leave ``\\n`` and tab as they are (multi-line messages such as a stack trace); CR is
    escaped either way, because it moves the cursor back over what was printed.
    """
    pattern = _INVISIBLE_KEEP_LINES if keep_newlines else _INVISIBLE
    return pattern.sub(_escape, text)


def rich_text(text: str, *, keep_newlines: bool = False) -> str:
    """User text for a rich markup string: :func:`visible`, then ``[`` escaped so it cannot open a tag."""
    from rich.markup import escape

    return escape(visible(text, keep_newlines=keep_newlines))


def xml_text(text: str) -> str:
    """User text for XML 1.0 attribute values and character data (the serializer escapes ``<&"``)."""
    return _NOT_XML.sub(_escape, text)


# Markdown specials as numeric character references: no backslashes, so the table renderer's own
# escaping (it doubles backslashes) cannot undo them.  Kept readable where GFM cannot misread: an
# underscore inside a word never starts emphasis (WORDSTAT_SLOW), and brackets only make a link or
# image when "]" is followed by "(", "[" or ":" (tokenize[size=1000] stays as it is).
_MD_SPECIAL = re.compile(r"[\\`*~]|\](?=[(\[:])|(?<!\w)_|_(?!\w)")
# GitHub turns ``:x:`` into an emoji on text nodes after Markdown (entities do not help); a word joiner
# (U+2060, invisible) after the opening colon keeps the shortcode from matching.
_EMOJI_CODE = re.compile(r":(?=[\w+-]+:)")


def md_text(text: str) -> str:
    """Escape user text for Markdown prose and table cells: controls visible, then HTML and Markdown specials."""
    escaped = _MD_SPECIAL.sub(lambda m: f"&#{ord(m.group(0))};", html.escape(visible(text), quote=False))
    return _EMOJI_CODE.sub(":&#8288;", escaped)
