"""git for the tests: one helper instead of one per test module (a fixed author, so commits work anywhere)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

_IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
             "GIT_COMMITTER_EMAIL": "t@example.org"}


def git(repo: Path, *args: str) -> str:
    """Run ``git ARGS`` in ``repo``; its stdout, stripped. Fails the test (CalledProcessError) if git fails."""
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True,
                          env={**os.environ, **_IDENTITY}).stdout.strip()


def commit_all(repo: Path, message: str = "x") -> str:
    """``git init`` (if needed), add everything and commit; the new commit's hash."""
    if not (repo / ".git").exists():
        git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")
