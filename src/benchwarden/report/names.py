"""Benchmark names made to fit a width: common prefix taken out, package segments abbreviated, then an ellipsis.

Names such as ``jmh:org.openjdk.jmh.benchmarks.CoreStabilityBench.test[param=1]`` are longer than a
terminal column. Shortening keeps what tells benchmarks apart — the class, method and parameters at the
end — and gives up what they share or what is predictable:

1. :func:`common_prefix`: the part every name in a table shares up to a separator (``:``, ``.``, ``/``),
   shown once in a note instead of on every row;
2. :func:`shorten`: leading dotted segments abbreviated to their first character, as logback abbreviates
   logger names (``o.o.j.b.CoreStabilityBench.test[param=1]``); then the parameter list cut
   (``[param…]``); then only ``Class.method[…]``; then an ellipsis in the middle that keeps more of the end.

Widths are terminal cells (``rich.cells.cell_len``: wide characters count twice). Pure functions.
"""

from __future__ import annotations

import re
from typing import Sequence

from rich.cells import cell_len

ELLIPSIS = "…"
_SEPARATORS = ":./"
_SUITE = re.compile(r"[A-Za-z0-9_.-]+")  # config.py's rule for suite names


def common_prefix(names: Sequence[str], min_saving: int = 3) -> str:
    """The longest prefix ending at a separator that every name has and that leaves every name non-empty.

    Empty when fewer than two names, or when the prefix would save fewer than ``min_saving`` cells.
    """
    if len(names) < 2:
        return ""
    first, last = min(names), max(names)
    length = 0
    while length < min(len(first), len(last)) and first[length] == last[length]:
        length += 1
    cut = max((i + 1 for i in range(length) if first[i] in _SEPARATORS), default=0)
    if any(len(n) <= cut for n in names) or cut < min_saving:
        return ""
    return first[:cut]


def shorten(name: str, width: int) -> str:
    """``name`` in at most ``width`` cells (``width`` >= 5): abbreviated package segments; then the parameter
    list cut (``[size=1024,…]``) while the method name still fits whole; then an ellipsis in the middle."""
    if cell_len(name) <= width:
        return name
    abbreviated = _abbreviate_segments(name, width)
    if cell_len(abbreviated) <= width:
        return abbreviated
    for candidate in (abbreviated, _last_two_segments(abbreviated)):
        base, bracket, params = candidate.partition("[")
        if cell_len(candidate) <= width:
            return candidate
        if bracket and cell_len(base) + 3 <= width:
            return base + "[" + _middle_ellipsis(params[:-1] if params.endswith("]") else params,
                                                 width - cell_len(base) - 2, tail_share=0.5) + "]"
    return _middle_ellipsis(_last_two_segments(abbreviated), width)


def _last_two_segments(name: str) -> str:
    """``Class.method[params]`` of ``suite:pkg.Class.method[params]`` (the part that names the benchmark)."""
    head, bracket, params = name.partition("[")
    dotted, slash, sub = _split_suite(head)[1].partition("/")
    return ".".join(dotted.split(".")[-2:]) + slash + sub + bracket + params


def shorten_all(names: Sequence[str], width: int) -> list[str] | None:
    """Every name in ``width`` cells, or None when no way of shortening keeps different names apart.

    Tries :func:`shorten` first, then a plain middle ellipsis (which keeps both ends of every name).
    """
    distinct = len(set(names))
    for way in (shorten, _middle_ellipsis):
        short = [way(n, width) if cell_len(n) > width else n for n in names]
        if len(set(short)) == distinct:
            return short
    return None


def _split_suite(head: str) -> tuple[str, str]:
    """(``"suite:"``, rest) when ``head`` starts with a suite name (letters, digits, ``_.-``) and a colon."""
    suite, colon, rest = head.partition(":")
    if colon and suite and _SUITE.fullmatch(suite):
        return suite + colon, rest
    return "", head


def _abbreviate_segments(name: str, width: int) -> str:
    """Abbreviate dotted segments left to right (not the last two, not inside ``[params]`` or after a ``/``)."""
    head, bracket, params = name.partition("[")
    prefix, rest = _split_suite(head)
    dotted, slash, sub = rest.partition("/")
    segments = dotted.split(".")
    for i in range(len(segments) - 2):
        if cell_len(name) <= width:
            break
        if len(segments[i]) > 1:
            segments[i] = segments[i][0]
            name = f"{prefix}{'.'.join(segments)}{slash}{sub}{bracket}{params}"
    return name


def _middle_ellipsis(name: str, width: int, tail_share: float = 2 / 3) -> str:
    """``name`` cut to ``width`` cells with "…" where the cut is; ``tail_share`` of what is kept is the end."""
    if cell_len(name) <= width:
        return name
    keep = max(width - 1, 1)
    tail_len = int(keep * tail_share)
    head_len = keep - tail_len
    head, tail = name[:head_len], name[len(name) - tail_len:]
    while cell_len(head) + cell_len(tail) + 1 > width and (head or tail):  # wide characters
        if len(tail) > len(head):
            tail = tail[1:]
        else:
            head = head[:-1]
    return f"{head}{ELLIPSIS}{tail}"
