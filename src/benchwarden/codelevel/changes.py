"""What changed between two revisions, method by method: the first half of affected-benchmark selection.

``git diff --name-status`` names the changed files; each changed source file of the suite's language is read at
both revisions and split into methods and skeleton (:mod:`.units`). A method whose fingerprint differs, or that
exists on one side only, is a :class:`MethodChange`; anything else that changed — a skeleton (imports, fields,
constants, module-level code), a file that does not parse, a source file outside the traced code, a build file —
is an :class:`OtherChange`, which no trace can attribute to benchmarks and :mod:`.affected` treats as affecting
every benchmark. Files that cannot change what runs (documentation, by ``ignore`` patterns) are listed as ignored.

Revisions are anything git resolves; :data:`~benchwarden.revisions.WORKTREE` is the working tree (uncommitted
changes included).
"""

from __future__ import annotations

import fnmatch
import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Callable, Literal, Sequence

from benchwarden.codelevel.units import SourceUnits
from benchwarden.errors import BenchwardenError
from benchwarden.revisions import WORKTREE

#: Changed files that cannot change what a benchmark measures (matched against the repository-relative path).
DEFAULT_IGNORE = ("*.md", "*.rst", "*.adoc", "LICENSE*", "NOTICE*", "AUTHORS*", "CHANGELOG*", ".gitignore",
                  ".gitattributes", ".github/*", ".gitlab-ci.yml",
                  ".benchwarden/*", "*/.benchwarden/*")  # benchwarden's own store and build output

#: Reads one file of the suite's language: (repository-relative path, its bytes) -> its units, or None when the
#: file is not code the traces cover (then a change in it is an :class:`OtherChange`, ``why`` from ``describe``).
UnitReader = Callable[[str, bytes], SourceUnits | None]


class ChangesError(BenchwardenError):
    """git could not tell what changed (an unknown revision, not a repository)."""


@dataclass(frozen=True)
class MethodChange:
    method: str
    path: str  # repository-relative, at the candidate (at the base for a removed method)
    line: int
    how: Literal["changed", "added", "removed"]


@dataclass(frozen=True)
class OtherChange:
    path: str
    why: str


@dataclass(frozen=True)
class ChangeSet:
    base: str
    candidate: str
    methods: tuple[MethodChange, ...]
    other: tuple[OtherChange, ...]
    ignored: tuple[str, ...]


def _git(repo: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=repo, capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ChangesError(f"git {' '.join(args)} in {repo}: {exc}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ChangesError(f"git {' '.join(args)} in {repo}: {message[-1] if message else 'failed'}")
    return done.stdout


def changed_files(repo: Path, base: str, candidate: str) -> list[tuple[str, str | None, str | None]]:
    """``(status letter, path at base or None, path at candidate or None)`` per changed file; renames split into
    a deletion and an addition only when their content changed too (``-M`` pairs them)."""
    revs = [base] if candidate == WORKTREE else [base, candidate]
    raw = _git(repo, "diff", "--name-status", "-z", "-M", "--no-ext-diff", *revs, "--")
    parts = raw.decode("utf-8", "surrogateescape").split("\0")
    out: list[tuple[str, str | None, str | None]] = []
    i = 0
    while i < len(parts) and parts[i]:
        status = parts[i][0]
        if status in "RC":
            out.append((status, parts[i + 1], parts[i + 2]))
            i += 3
            continue
        path = parts[i + 1]
        out.append((status, None if status == "A" else path, None if status == "D" else path))
        i += 2
    if candidate == WORKTREE:  # untracked files are changes too (a new source file not yet added)
        untracked = _git(repo, "ls-files", "--others", "--exclude-standard", "-z").decode("utf-8", "surrogateescape")
        out += [("A", None, p) for p in untracked.split("\0") if p]
    return out


def read_at(repo: Path, revision: str, path: str) -> bytes:
    if revision == WORKTREE:
        return (repo / path).read_bytes()
    return _git(repo, "show", f"{revision}:{path}")


def method_changes(path: str, before: SourceUnits, after: SourceUnits) -> tuple[list[MethodChange], list[OtherChange]]:
    """Compare one file's two versions (:class:`SourceUnits` of a missing side: empty)."""
    for side in (before, after):
        if side.unparsed:
            return [], [OtherChange(path, side.unparsed)]
    methods: list[MethodChange] = []
    for name in sorted(set(before.methods) | set(after.methods)):
        old, new = before.methods.get(name), after.methods.get(name)
        if old is None and new is not None:
            methods.append(MethodChange(name, path, new.line, "added"))
        elif new is None and old is not None:
            methods.append(MethodChange(name, path, old.line, "removed"))
        elif old is not None and new is not None and old.fingerprint != new.fingerprint:
            methods.append(MethodChange(name, path, new.line, "changed"))
    missing = [side for side in (before, after) if not side.methods and not side.skeleton]
    if missing:  # added or deleted whole: only a skeleton that runs by itself changes anything
        present = after if missing[0] is before else before
        if present.skeleton_runs:
            return methods, [OtherChange(path, f"{'added' if present is after else 'deleted'} with package-level "
                                               f"code, which runs at start-up")]
        return methods, []
    other = [] if before.skeleton == after.skeleton else [OtherChange(path, "changed outside any method")]
    return methods, other


def change_set(repo: Path, base: str, candidate: str, reader: UnitReader, source_suffix: str,
               describe: Callable[[str], str], ignore: Sequence[str] = DEFAULT_IGNORE) -> ChangeSet:
    """The methods changed between ``base`` and ``candidate``, and every change no method accounts for.

    ``reader`` turns a source file (``source_suffix``) into its units, or returns None for a source file outside
    the traced code; ``describe(path)`` says why such a file, or any other changed file, is not attributable.
    A file added or deleted whole counts its methods as added or removed; its skeleton alone (imports, a package
    clause) is not a change, since nothing used it before or uses it after.
    """
    methods: list[MethodChange] = []
    other: list[OtherChange] = []
    ignored: list[str] = []
    for _status, old_path, new_path in changed_files(repo, base, candidate):
        shown = new_path or old_path or ""
        if any(fnmatch.fnmatch(shown, pattern) or fnmatch.fnmatch(PurePosixPath(shown).name, pattern)
               for pattern in ignore):
            ignored.append(shown)
            continue
        paths = [p for p in (old_path, new_path) if p]
        if not all(p.endswith(source_suffix) for p in paths):
            other.append(OtherChange(shown, describe(shown)))
            continue
        sides: list[SourceUnits | None] = []
        for revision, path in ((base, old_path), (candidate, new_path)):
            sides.append(SourceUnits() if path is None else reader(path, read_at(repo, revision, path)))
        before, after = sides
        if before is None or after is None:
            other.append(OtherChange(shown, describe(shown)))
            continue
        found, unattributed = method_changes(shown, before, after)
        methods += found
        other += unattributed
    return ChangeSet(base, candidate, tuple(methods), tuple(other), tuple(ignored))
