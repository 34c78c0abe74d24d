"""Where assertions live: ``*.spl`` files, the ``[check]`` table of the config, ``@SPL`` annotations in jars.

* Files named on the command line are read as given (and nothing else is).
* Otherwise every ``*.spl`` file below the config file's directory (or the ``files`` globs of
  ``[check]``, relative to it), skipping hidden directories and build output (:data:`SKIP_DIRS`),
  plus the inline ``[check.assertions]``, plus the ``@SPL`` annotations of every selected JMH suite's
  built jar (unless ``annotations = false``).

Each source becomes a parsed :class:`~benchwarden.spl.ast.Program` with the reference ``SELF`` stands
for (annotations only).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from benchwarden.errors import BenchwardenError, ConfigError
from benchwarden.spl.annotations import scan_jar
from benchwarden.spl.ast import Program
from benchwarden.spl.parser import parse

SKIP_DIRS = frozenset({"target", "build", "node_modules", "venv", "__pycache__", "dist"})


@dataclass(frozen=True)
class ProgramSource:
    """A parsed program, and what ``SELF``/``THIS`` mean in it (None outside annotations)."""

    program: Program
    self_ref: str | None = None


def find_spl_files(root: Path, patterns: Sequence[str] | None = None) -> list[Path]:
    """``*.spl`` files under ``root`` (sorted), or the files matching ``patterns`` (globs relative to root)."""
    if patterns is not None:
        found: list[Path] = []
        for pattern in patterns:
            matches = sorted(p for p in root.glob(pattern) if p.is_file())
            if not matches:
                raise ConfigError(f"no file matches {pattern!r} (relative to {root})", key="check.files")
            found.extend(m for m in matches if m not in found)
        return found
    out: list[Path] = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
        out.extend(Path(directory) / f for f in sorted(files) if f.endswith(".spl"))
    return out


def read_spl_file(path: Path, display: str | None = None) -> ProgramSource:
    """Parse one file; BenchwardenError if it cannot be read, SplSyntaxError if it cannot be parsed."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchwardenError(f"cannot read assertions file {path}: {exc}") from None
    return ProgramSource(parse(text, display or str(path)))


def config_assertions(assertions: Mapping[str, str] | Sequence[str], config_name: str) -> list[ProgramSource]:
    """The inline ``[check.assertions]`` (a table name -> program, or a list of programs)."""
    items: Iterable[tuple[str, str]]
    if isinstance(assertions, Mapping):
        items = assertions.items()
    else:
        items = ((str(i), text) for i, text in enumerate(assertions))
    return [ProgramSource(parse(text, f"{config_name}[check.assertions.{name}]")) for name, text in items]


def annotation_programs(suite: str, jar: Path) -> list[ProgramSource]:
    """One program per ``@SPL`` formula in ``jar``, with SELF bound to the annotated benchmark."""
    out = []
    for method in scan_jar(jar):
        for index, formula in enumerate(method.formulas):
            suffix = f"[{index}]" if len(method.formulas) > 1 else ""
            source = f"@SPL {method.benchmark_name}{suffix}"
            out.append(ProgramSource(parse(formula, source), f"{suite}:{method.benchmark_name}"))
    return out


def discover(root: Path, config_name: str, *, files: Sequence[Path] = (), patterns: Sequence[str] | None = None,
             inline: Mapping[str, str] | Sequence[str] = (), jars: Callable[[], Sequence[tuple[str, Path]]] | None = None,
             relative_to: Path | None = None) -> list[ProgramSource]:
    """Every program of a check, in a stable order: files, inline assertions, annotations.

    ``files``: named on the command line (then nothing else is read).  ``jars``: called only when
    annotations are wanted; returns (suite name, built jar) pairs.
    """
    def shown(p: Path) -> str:
        base = relative_to or Path.cwd()
        try:
            return str(p.resolve().relative_to(base.resolve()))
        except ValueError:
            return str(p)

    if files:
        return [read_spl_file(p, shown(p)) for p in files]
    programs = [read_spl_file(p, shown(p)) for p in find_spl_files(root, patterns)]
    programs.extend(config_assertions(inline, config_name))
    if jars is not None:
        for suite, jar in jars():
            programs.extend(annotation_programs(suite, jar))
    return programs
