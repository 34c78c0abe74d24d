"""Each measured commit's place in history, read from git: generation number, date, parents, subject, refs.

``generation`` is 1 for a root commit, else 1 + the largest generation of its parents (git's commit-graph
"topological level"): ordering by it respects parent order on every branch, where the commit date does not
(a rebase or a skewed clock dates a child before its parent).  Computed over the ancestry of the requested
commits only (``git log --topo-order --reverse`` lists parents before children).  Commits git does not have
(another clone's, rebased away) are simply absent from the answer.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Iterable

from benchwarden.errors import BenchwardenError
from benchwarden.store.commits import CommitInfo

GIT_TIMEOUT_S = 120.0
SEPARATOR = "\x1f"


class GitError(BenchwardenError):
    """git could not be run in the repository, or failed (the message names the command and git's words)."""


def is_repository(repo: Path) -> bool:
    """Whether ``repo`` lies inside a git work tree (git installed and willing)."""
    try:
        return _git(repo, "rev-parse", "--is-inside-work-tree").strip() == "true"
    except GitError:
        return False


def commit_infos(repo: Path, shas: Iterable[str]) -> dict[str, CommitInfo]:
    """The place in history of each of ``shas`` that git in ``repo`` knows, by sha.  Raises GitError."""
    wanted = sorted(set(shas))
    if not wanted:
        return {}
    checked = _git(repo, "cat-file", "--batch-check", stdin="\n".join(wanted) + "\n")
    present = [line.split()[0] for line in checked.splitlines() if line.split()[1:2] == ["commit"]]
    if not present:
        return {}
    log = _git(repo, "log", "--topo-order", "--reverse", f"--format=%H{SEPARATOR}%P{SEPARATOR}%ct{SEPARATOR}%s",
               "--stdin", stdin="\n".join(present) + "\n")
    generation: dict[str, int] = {}
    rows: dict[str, tuple[tuple[str, ...], float | None, str]] = {}
    for line in log.splitlines():
        sha, parents_text, date_text, subject = (line.split(SEPARATOR, 3) + ["", "", ""])[:4]
        parents = tuple(parents_text.split())
        generation[sha] = 1 + max((generation.get(p, 0) for p in parents), default=0)
        rows[sha] = (parents, float(date_text) if date_text.strip().isdigit() else None, subject)
    refs = _refs(repo)
    out = {}
    for sha in present:
        if sha in rows:
            parents, committed_at, subject = rows[sha]
            out[sha] = CommitInfo(sha=sha, generation=generation[sha], committed_at=committed_at, parents=parents,
                                  subject=subject, refs=tuple(sorted(refs.get(sha, ()))))
    return out


def _refs(repo: Path) -> dict[str, set[str]]:
    """Branch and tag names by the commit they point at (an annotated tag by the commit it tags)."""
    text = _git(repo, "for-each-ref", f"--format=%(objectname){SEPARATOR}%(*objectname){SEPARATOR}%(refname:short)",
                "refs/heads", "refs/tags")
    found: dict[str, set[str]] = {}
    for line in text.splitlines():
        target, peeled, name = (line.split(SEPARATOR) + ["", ""])[:3]
        found.setdefault(peeled or target, set()).add(name)
    return found


def _git(repo: Path, *args: str, stdin: str | None = None) -> str:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    command = ["git", "-C", str(repo), *args]
    try:
        done = subprocess.run(command, input=stdin if stdin is not None else "", capture_output=True, text=True,
                              timeout=GIT_TIMEOUT_S, env=env, check=False, errors="replace")
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError(f"git {args[0]} in {repo}: {exc}") from None
    if done.returncode != 0:
        raise GitError(f"git {args[0]} in {repo} failed: {done.stderr.strip()[:500] or f'exit {done.returncode}'}")
    return done.stdout


def range_commits(repo: Path, base: str, tip: str) -> list[tuple[str, str]]:
    """(sha, subject) of git's ``base..tip`` along first parents, oldest first.  GitError names an unknown revision."""
    for ref in (base, tip):
        try:
            _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        except GitError:
            raise GitError(f"unknown revision {ref!r} in {repo}") from None
    text = _git(repo, "log", "--first-parent", "--reverse", f"--format=%H{SEPARATOR}%s", f"{base}..{tip}", "--")
    return [(sha, subject) for sha, _, subject in (line.partition(SEPARATOR) for line in text.splitlines())]
