"""JSON text from outside (result files, asv configuration): one reader whose only failure is :class:`JsonTextError`.

``json.loads`` fails in more ways than ``JSONDecodeError``: ``RecursionError`` on deep nesting (its C
decoder's guard, at about 1,000 levels), ``ValueError`` for an integer of more than 4,300 digits,
``UnicodeDecodeError`` for bytes that are not UTF-8; and it accepts ``NaN`` and ``Infinity``, which are
not JSON.  Every caller used to catch a different subset.  :func:`loads` maps them all to one error
with a line and column where known, refuses the non-JSON constants unless asked, and refuses documents
nested deeper than ``max_depth`` (checked without recursion) so that nothing recursive downstream meets them.
"""

from __future__ import annotations

import json
from typing import Any

#: deepest nesting of arrays and objects accepted by default; benchwarden's own formats need fewer than 10
MAX_DEPTH = 64


class JsonTextError(ValueError):
    """The text is not JSON we accept.  ``line``/``column`` are 1-based when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        self.message, self.line, self.column = message, line, column
        super().__init__(message if column is None else f"{message} (line {line}, column {column})")


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH, allow_nan: bool = False) -> Any:
    """The decoded document, or :class:`JsonTextError` saying why not.

    ``allow_nan``: accept ``NaN``/``Infinity``/``-Infinity`` (as floats), which some tools write (JMH).
    """
    try:
        document = json.loads(text, parse_constant=None if allow_nan else _refuse_constant)
    except json.JSONDecodeError as exc:
        raise JsonTextError(f"not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except UnicodeDecodeError as exc:
        raise JsonTextError(f"not UTF-8 text: {exc.reason}") from None
    except RecursionError:
        raise JsonTextError(too_deep_message(max_depth)) from None
    except _Constant as exc:
        raise JsonTextError(f"{exc.args[0]} is not a JSON number (JSON has no NaN or infinity)") from None
    except ValueError as exc:  # an integer of more than sys.get_int_max_str_digits() digits
        raise JsonTextError(f"not a valid JSON value: {exc}") from None
    if nested_deeper_than(document, max_depth):
        raise JsonTextError(too_deep_message(max_depth))
    return document


def too_deep_message(max_depth: int) -> str:
    return f"nested too deeply (more than {max_depth} levels of arrays and objects)"


def nested_deeper_than(document: Any, max_depth: int) -> bool:
    """Whether arrays and objects in a decoded document nest more than ``max_depth`` levels (no recursion)."""
    stack: list[tuple[Any, int]] = [(document, 1)]
    while stack:
        node, level = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        if level > max_depth:
            return True
        stack.extend((child, level + 1) for child in children)
    return False


class _Constant(Exception):
    pass


def _refuse_constant(name: str) -> Any:
    raise _Constant(name)
