"""Git revisions as suites: worktrees per commit, re-rooted suites, builds cached by commit (real git)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchwarden.adapters.base import SuiteContext
from benchwarden.config import RunSettings, Suite
from benchwarden.revisions import WORKTREE, RevisionError, checkout, resolve_commit, suite_for_revision

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not on PATH")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    r = tmp_path / "repo"
    (r / "suite").mkdir(parents=True)
    git(r, "init", "-q", "-b", "main")
    git(r, "config", "user.email", "t@example.invalid")
    git(r, "config", "user.name", "t")
    (r / "suite" / "version.txt").write_text("one\n")
    git(r, "add", ".")
    git(r, "commit", "-qm", "one")
    git(r, "tag", "v1")
    (r / "suite" / "version.txt").write_text("two\n")
    git(r, "commit", "-qam", "two")
    return r


def _suite(root: Path) -> Suite:
    # the "build" appends a line to build.log so we can count how often it ran
    build = (sys.executable, "-c", "open('build.log', 'a').write('built\\n')")
    return Suite(SuiteContext(name="s", kind="command", root=root, build=build), RunSettings())


def test_each_revision_gets_its_own_files_and_builds_once(repo):
    s1, rev1 = suite_for_revision(_suite(repo / "suite"), repo, "v1")
    s2, rev2 = suite_for_revision(_suite(repo / "suite"), repo, "HEAD")
    assert rev1.commit == resolve_commit(repo, "v1") and rev2.commit == resolve_commit(repo, "main")
    assert (s1.context.root / "version.txt").read_text() == "one\n"
    assert (s2.context.root / "version.txt").read_text() == "two\n"
    assert s1.context.build is None  # built already
    assert (s1.context.root / "build.log").read_text() == "built\n"
    again, _ = suite_for_revision(_suite(repo / "suite"), repo, "v1")
    assert again.context.root == s1.context.root
    assert (s1.context.root / "build.log").read_text() == "built\n"  # cached: not built twice
    assert git(repo, "status", "--porcelain") == ""  # worktrees never dirty the repository


def test_worktree_pseudo_revision_is_the_working_tree(repo):
    (repo / "suite" / "version.txt").write_text("uncommitted\n")
    s, rev = suite_for_revision(_suite(repo / "suite"), repo, WORKTREE)
    assert rev.commit is None and s.context.root == (repo / "suite")
    assert s.context.build is not None  # the working tree is built by the adapter as usual


def test_unknown_revision_is_named(repo):
    with pytest.raises(RevisionError, match="unknown revision 'nope'"):
        checkout(repo, "nope")


def test_not_a_repository(tmp_path):
    with pytest.raises(RevisionError, match="failed"):
        checkout(tmp_path, "HEAD")
