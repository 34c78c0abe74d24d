"""Python selection by imported files: module-level code and files outside the traced modules (benchmarks, tests)
are units ``file:<path>``, attributed to the benchmarks whose process imported them (the trace records it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchwarden.assess.reach import ReachMap
from benchwarden.codelevel.affected import select
from benchwarden.codelevel.changes import change_set
from benchwarden.codelevel.readers import python_reader
from benchwarden.config import load_config
from benchwarden.revisions import WORKTREE
from tests.support.git import git

LIB = "LIMIT = 3\n\n\ndef tokenize(text):\n    return text.split()[:LIMIT]\n"
BENCH_A = "import lib\n\n\ndef time_a():\n    lib.tokenize('a b')\n"
BENCH_B = "def time_b():\n    sum(range(10))\n"
TOML = '[suites.s]\nkind = "python"\npath = "suite"\nbenchmarks = "benchmarks"\npythonpath = ["."]\n'


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    for path, text in {"lib/__init__.py": LIB, "benchmarks/__init__.py": "", "benchmarks/bench_a.py": BENCH_A,
                       "benchmarks/bench_b.py": BENCH_B, "tests/test_lib.py": "def test_x():\n    pass\n",
                       "setup.py": "from setuptools import setup\nsetup()\n"}.items():
        (suite / path).parent.mkdir(parents=True, exist_ok=True)
        (suite / path).write_text(text, encoding="utf-8")
    (tmp_path / "tools.py").write_text("X = 1\n", encoding="utf-8")
    (tmp_path / "benchwarden.toml").write_text(TOML, encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    return tmp_path


def changes_in(repo: Path, build: bool = False):
    if build:  # a suite that builds the project (e.g. a C extension) may run any of its files while building
        config = repo / "benchwarden.toml"
        config.write_text(TOML + 'build = "python3 setup.py build_ext --inplace"\n', encoding="utf-8")
        git(repo, "commit", "-qm", "build", "--", "benchwarden.toml")  # the config change is not the one tested
    suite = load_config(repo / "benchwarden.toml").suites["s"]
    reader = python_reader(suite, repo, ["lib"], suite.context.root / "benchmarks")
    return change_set(repo, "HEAD", WORKTREE, reader.read, reader.suffix, reader.describe)


# what the hook records, per benchmark: bench_a's process imported lib and its own module, bench_b's only its own
REACH = ReachMap({"a": {"lib:tokenize": 2, "file:suite/lib/__init__.py": 1, "file:suite/benchmarks/bench_a.py": 1,
                        "file:suite/benchmarks/__init__.py": 1},
                  "b": {"file:suite/benchmarks/bench_b.py": 1, "file:suite/benchmarks/__init__.py": 1}}, 0.1)


def selected(repo: Path) -> tuple[set[str], dict[str, tuple[str, ...]]]:
    picks = select(["a", "b"], {"base": REACH, "candidate": REACH}, changes_in(repo))
    return {s.key for s in picks if s.affected}, {s.key: s.reasons for s in picks}


def edit(repo: Path, path: str, old: str, new: str) -> None:
    file = repo / "suite" / path
    text = file.read_text(encoding="utf-8")
    assert old in text
    file.write_text(text.replace(old, new), encoding="utf-8")


def test_module_level_code_affects_the_benchmarks_that_imported_the_module(repo):
    edit(repo, "lib/__init__.py", "LIMIT = 3", "LIMIT = 4")
    changes = changes_in(repo)
    assert [(c.method, c.how) for c in changes.methods] == [("file:suite/lib/__init__.py", "changed")]
    assert changes.other == ()
    picked, reasons = selected(repo)
    assert picked == {"a"} and reasons["a"] == ("imports suite/lib/__init__.py (changed)",)
    assert reasons["b"] == ("imports none of the 1 changed file",)


def test_a_benchmark_file_affects_only_the_benchmarks_whose_process_imported_it(repo):
    edit(repo, "benchmarks/bench_b.py", "range(10)", "range(20)")
    assert selected(repo)[0] == {"b"}


def test_comments_and_layout_are_no_change_and_a_method_change_stays_a_method_change(repo):
    edit(repo, "benchmarks/bench_b.py", "def time_b():", "# a comment\n\ndef time_b():")
    assert changes_in(repo).methods == () and selected(repo)[0] == set()
    edit(repo, "lib/__init__.py", "[:LIMIT]", "[:LIMIT + 1]")
    assert [c.method for c in changes_in(repo).methods] == ["lib:tokenize"] and selected(repo)[0] == {"a"}


def test_a_test_file_no_benchmark_imports_affects_none_and_a_new_one_neither(repo):
    edit(repo, "tests/test_lib.py", "pass", "assert True")
    (repo / "suite" / "tests" / "test_new.py").write_text("def test_y():\n    pass\n", encoding="utf-8")
    changes = changes_in(repo)
    assert {(c.method, c.how) for c in changes.methods} == {("file:suite/tests/test_lib.py", "changed"),
                                                              ("file:suite/tests/test_new.py", "added")}
    picked, reasons = selected(repo)
    assert picked == set() and reasons["a"] == ("imports none of the 2 changed files",)


def test_a_file_outside_the_suites_folder_is_attributed_by_import_too(repo):
    # the layout of asv's own projects: asv.conf.json in benchmarks/, the package beside it (pythonpath "..")
    (repo / "tools.py").write_text("X = 2\n", encoding="utf-8")
    assert [c.method for c in changes_in(repo).methods] == ["file:tools.py"] and selected(repo)[0] == set()


@pytest.mark.parametrize("path, text, why, build", [
    ("suite/setup.py", "from setuptools import setup\nsetup(name='x')\n", "the project's build script", False),
    ("suite/benchmarks/bench_b.py", "def time_b(:\n", "not valid Python", False),
    ("tools.py", "X = 2\n", "the suite's build may run it", True),
    ("suite/tests/test_lib.py", "def test_x():\n    assert 1\n", "the suite's build may run it", True),
])
def test_what_no_import_can_account_for_still_affects_everything(repo, path, text, why, build):
    (repo / path).write_text(text, encoding="utf-8")
    changes = changes_in(repo, build)
    assert [c.path for c in changes.other] == [path] and why in changes.other[0].why
    assert selected(repo)[0] == {"a", "b"}


def test_with_a_build_benchmark_code_and_module_level_code_are_still_attributed_by_import(repo):
    edit(repo, "benchmarks/bench_b.py", "range(10)", "range(20)")
    edit(repo, "lib/__init__.py", "LIMIT = 3", "LIMIT = 4")
    changes = changes_in(repo, build=True)
    assert changes.other == () and selected(repo)[0] == {"a", "b"}
    assert {c.method for c in changes.methods} == {"file:suite/benchmarks/bench_b.py", "file:suite/lib/__init__.py"}


def test_the_summary_counts_files_apart_from_methods(repo):
    from benchwarden.codelevel.selector import AffectedReport
    from benchwarden.report.affected_table import affected_summary

    edit(repo, "lib/__init__.py", "LIMIT = 3", "LIMIT = 4")
    edit(repo, "lib/__init__.py", "[:LIMIT]", "[:LIMIT + 1]")
    changes = changes_in(repo)
    report = AffectedReport("s", "HEAD", WORKTREE, changes,
                            tuple(select(["a", "b"], {"base": REACH}, changes)), ("lib",), True, 1.0)
    assert affected_summary(report) == ("1 of 2 benchmarks affected (1 changed method, 1 changed file attributed by "
                                        "import; traced in 1.0 s)")
