"""What one source file defines, as the change detection needs it: its methods and everything else.

A file is split into *methods* (named in the tracers' notation, docs/assess.md "Method names") and a *skeleton*
(the rest: imports, declarations, fields, module-level statements). Each part is kept as a fingerprint of its
syntax tree without comments and layout, so a change is a change of code, never of formatting or comments: two
versions of a method whose fingerprints differ changed; a skeleton whose fingerprint differs changed outside any
method (which no trace can attribute, so :mod:`.affected` treats it conservatively).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class Method:
    """One method or function: its line (1-based, for reports) and the fingerprint of its code."""

    line: int
    fingerprint: str


@dataclass(frozen=True)
class SourceUnits:
    """The methods of one file by name, and the fingerprint of everything outside them.

    ``unparsed`` names why the file could not be read as code (a syntax error): then nothing in it can be
    attributed to a method and the whole file counts as changed outside any method.
    """

    methods: Mapping[str, Method] = field(default_factory=dict)
    skeleton: str = ""
    unparsed: str | None = None
    namespace: str = ""  # the file's package or module as its language names it (Java: from its package clause)
    #: Whether the skeleton runs without being called: a Go file's package-level variables, ``init`` functions and
    #: imports run at start-up merely because the file is in the package, so adding or deleting such a file
    #: changes what runs. (A new Python module or Java class runs only when changed code uses it.)
    skeleton_runs: bool = False


def fingerprint(text: str | bytes) -> str:
    """A short, stable digest of normalised code (sha256, first 16 hex digits)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()[:16]
