"""Changed methods between two revisions of a real git repository, and the changes no method accounts for."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchwarden.codelevel.changes import ChangesError, change_set, method_changes
from benchwarden.codelevel.python_code import python_units
from benchwarden.codelevel.units import Method, SourceUnits
from benchwarden.revisions import WORKTREE
from tests.support.git import git

LIB = '''LIMIT = 3


def keep(a):
    return a


def edit(a):
    return a + 1


def drop(a):
    return a
'''


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "core.py").write_text(LIB, encoding="utf-8")
    (tmp_path / "README.md").write_text("doc\n", encoding="utf-8")
    (tmp_path / "tool.py").write_text("def main():\n    pass\n", encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    return tmp_path


def reader(path: str, data: bytes):
    """lib/ is the traced code; tool.py is a Python file outside it."""
    if not path.startswith("lib/"):
        return None
    return python_units(path[:-3].replace("/", "."), data)


def changes_of(repo: Path, base: str = "HEAD", candidate: str = WORKTREE):
    return change_set(repo, base, candidate, reader, ".py", lambda p: f"outside lib ({p})")


def test_changed_added_and_removed_methods_in_the_working_tree(repo):
    text = LIB.replace("return a + 1", "return a + 2").replace("def drop(a):\n    return a\n", "def new(a):\n    return 0\n")
    (repo / "lib" / "core.py").write_text(text + "\n# a comment\n", encoding="utf-8")
    changes = changes_of(repo)
    assert [(c.method, c.how) for c in changes.methods] == [
        ("lib.core:drop", "removed"), ("lib.core:edit", "changed"), ("lib.core:new", "added")]
    assert changes.other == () and changes.ignored == ()
    assert {c.method: c.line for c in changes.methods}["lib.core:edit"] == 8


def test_between_two_commits_and_a_new_untracked_module(repo):
    (repo / "lib" / "core.py").write_text(LIB.replace("return a + 1", "return 2 * a"), encoding="utf-8")
    git(repo, "commit", "-qam", "edit")
    assert [c.method for c in changes_of(repo, "HEAD~1", "HEAD").methods] == ["lib.core:edit"]
    assert changes_of(repo).methods == ()  # the working tree is HEAD
    (repo / "lib" / "extra.py").write_text("X = 1\n\n\ndef fresh():\n    return X\n", encoding="utf-8")
    changes = changes_of(repo)  # untracked: a new file's methods are added; its skeleton alone is no change
    assert [(c.method, c.how) for c in changes.methods] == [("lib.extra:fresh", "added")] and changes.other == ()


@pytest.mark.parametrize("path, text, why", [
    ("lib/core.py", LIB.replace("LIMIT = 3", "LIMIT = 4"), "changed outside any method"),
    ("lib/core.py", LIB + "def broken(:\n", "not valid Python"),
    ("tool.py", "def main():\n    return 1\n", "outside lib (tool.py)"),
    ("lib/data.json", "{}", "outside lib (lib/data.json)"),
])
def test_changes_no_method_accounts_for(repo, path, text, why):
    (repo / path).write_text(text, encoding="utf-8")
    changes = changes_of(repo)
    assert [c.path for c in changes.other] == [path] and why in changes.other[0].why


def test_documentation_and_benchwarden_output_are_ignored(repo):
    (repo / "README.md").write_text("more doc\n", encoding="utf-8")
    (repo / ".benchwarden").mkdir()
    (repo / ".benchwarden" / "results.db").write_bytes(b"\0")
    changes = changes_of(repo)
    assert changes.ignored == ("README.md", ".benchwarden/results.db") and not changes.methods and not changes.other


def test_a_rename_compares_the_two_paths(repo):
    git(repo, "mv", "lib/core.py", "lib/moved.py")
    changes = changes_of(repo)
    assert {c.method for c in changes.methods} == {f"lib.{m}:{f}" for m in ("core", "moved")
                                                   for f in ("keep", "edit", "drop")}


def test_an_unknown_revision_is_a_clear_error(repo):
    with pytest.raises(ChangesError, match="nope"):
        changes_of(repo, "nope")


@pytest.mark.parametrize("runs", [False, True])
def test_a_file_added_or_deleted_whole_changes_its_methods_and_only_a_skeleton_that_runs(runs):
    whole = SourceUnits({"p.F": Method(3, "abc")}, "skeleton", skeleton_runs=runs)
    for before, after, how, word in ((SourceUnits(), whole, "added", "added"), (whole, SourceUnits(), "removed",
                                                                               "deleted")):
        methods, other = method_changes("f.go", before, after)
        assert [(m.method, m.how) for m in methods] == [("p.F", how)]
        assert [o.why for o in other] == ([f"{word} with package-level code, which runs at start-up"] if runs else [])
