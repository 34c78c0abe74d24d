"""Git revisions as suites: each commit checked out into its own worktree, built once, cached by commit.

Used by ``compare`` (two revisions), ``check`` (SPL ``alias := ref@revision``) and ``assess``.  A
revision (``HEAD``, a tag, a branch, a short hash) is resolved to a full commit hash; its worktree
lives in the user's cache, ``$XDG_CACHE_HOME/benchwarden/worktrees/<repo id>/<commit>`` (detached,
never modified by benchwarden; outside the repository so it never makes ``git status`` dirty), so
the same commit is checked out and built only once: after a successful build a stamp file records
the build command, and later uses of that commit skip the build.

The working tree itself (uncommitted changes included) is available as the pseudo-revision
``WORKTREE``, which is never cached.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

from benchwarden.adapters.process import capture, run_build
from benchwarden.config import Suite
from benchwarden.errors import BenchwardenError

WORKTREE = "WORKTREE"
_STAMP = ".benchwarden-build.json"


class RevisionError(BenchwardenError):
    """A revision cannot be resolved or checked out (names the revision and the repository)."""


@dataclass(frozen=True)
class Revision:
    ref: str  # as the user wrote it
    commit: str | None  # full hash; None for WORKTREE
    root: Path  # directory holding this revision's files (a worktree, or the repository itself)

    @property
    def label(self) -> str:
        return self.ref if self.commit is None else f"{self.ref} ({self.commit[:10]})"


def _git(repo: Path, *args: str, timeout_s: float = 300.0) -> str:
    try:
        # in its own process group, all of it killed on timeout (hooks and filters git starts included)
        done = capture(["git", "-C", str(repo), *args], timeout_s=timeout_s)
    except FileNotFoundError:
        raise RevisionError("git is not on PATH; it is needed to check out revisions") from None
    except subprocess.TimeoutExpired:
        raise RevisionError(f"`git {' '.join(args)}` timed out after {timeout_s:.0f}s in {repo}") from None
    if done.returncode != 0:
        raise RevisionError(f"`git {' '.join(args)}` failed in {repo}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout.strip()


def repository_root(path: Path) -> Path:
    """The top of the git repository containing ``path``; RevisionError if there is none."""
    return Path(_git(path, "rev-parse", "--show-toplevel"))


def resolve_commit(repo: Path, ref: str) -> str:
    """Full commit hash of ``ref`` (commit, tag, branch, ``HEAD~2``...); RevisionError naming the ref if unknown."""
    try:
        return _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except RevisionError:
        raise RevisionError(f"unknown revision {ref!r} in {repo}") from None


def worktrees_dir(repo: Path) -> Path:
    """Where this repository's cached worktrees live (in the user's cache directory)."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    repo_id = hashlib.sha256(str(repo.resolve()).encode()).hexdigest()[:16]
    return cache / "benchwarden" / "worktrees" / repo_id


def checkout(repo: Path, ref: str) -> Revision:
    """The revision's files: the repository itself for WORKTREE, else a cached detached worktree of the commit."""
    repo = repository_root(repo)
    if ref == WORKTREE:
        return Revision(ref=ref, commit=None, root=repo)
    commit = resolve_commit(repo, ref)
    target = worktrees_dir(repo) / commit
    if not (target / ".git").exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():  # a half-made worktree from an interrupted checkout
            _git(repo, "worktree", "remove", "--force", str(target))
        _git(repo, "worktree", "prune")
        _git(repo, "worktree", "add", "--detach", "--force", str(target), commit)
    return Revision(ref=ref, commit=commit, root=target)


def suite_at(suite: Suite, repo: Path, revision: Revision) -> Suite:
    """The same suite, rooted in the revision's files (same path relative to the repository)."""
    repo = repository_root(repo)
    try:
        rel = suite.context.root.resolve().relative_to(repo.resolve())
    except ValueError:
        raise RevisionError(f"suite '{suite.name}' ({suite.context.root}) is outside the repository {repo}") from None
    root = revision.root / rel
    if not root.is_dir():
        raise RevisionError(f"suite '{suite.name}': {rel} does not exist at {revision.label}")
    return replace(suite, context=replace(suite.context, root=root))


def build_once(suite: Suite, revision: Revision) -> Suite:
    """Run the suite's build in a cached worktree once; return the suite with its build already done.

    The stamp records the build argv and environment; if they change, the build runs again. The
    working tree (WORKTREE) is always built by the adapter as usual.
    """
    ctx = suite.context
    if revision.commit is None or not ctx.build:
        return suite
    stamp = ctx.root / _STAMP
    key = hashlib.sha256(json.dumps([list(ctx.build), sorted(ctx.env.items())]).encode()).hexdigest()
    if not (stamp.exists() and _read_stamp(stamp) == key):
        run_build(ctx.build, ctx.root, ctx.name, env=ctx.env)
        stamp.write_text(json.dumps({"key": key, "commit": revision.commit}), encoding="utf-8")
    return replace(suite, context=replace(ctx, build=None))


def _read_stamp(path: Path) -> str | None:
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("key")
    except (OSError, ValueError, AttributeError):
        return None


def suite_for_revision(suite: Suite, repo: Path, ref: str) -> tuple[Suite, Revision]:
    """Check out ``ref``, re-root ``suite`` there and build it once. The main entry point for callers."""
    revision = checkout(repo, ref)
    return build_once(suite_at(suite, repo, revision), revision), revision
