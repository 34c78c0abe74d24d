"""`benchwarden affected` on the three examples with real traces (asv hook, Go rewriter, Java agent).

Each test works in a git repository made from a copy of the example and edits one method in the working tree:
the benchmarks that call it, and only those, are affected — including a private Python function called through
a dispatch table built at import (which a wrapper would miss) and an unexported Go function. A change outside
any method affects every benchmark, without tracing. Filters keep each trace to a few benchmarks.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from benchwarden.cli import main
from tests.support.git import commit_all
from tests.support.jmh import private_jmh_lock

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]


def _repo(tmp_path: Path, folder: str, tool: str, monkeypatch, config: str = "", source: Path | None = None) -> Path:
    """A committed copy of an example (or of ``source``); ``config`` is appended to its benchwarden.toml before the
    commit."""
    if shutil.which(tool) is None:
        pytest.skip(f"'{tool}' is not on PATH")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("WORDSTAT_SLOW", raising=False)
    root = tmp_path / folder
    shutil.copytree(source or REPO / "examples" / folder, root,
                    ignore=shutil.ignore_patterns(".benchwarden", "__pycache__"))
    (root / ".gitignore").write_text(".benchwarden/\ntarget/\n__pycache__/\n")
    if config:
        with (root / "benchwarden.toml").open("a", encoding="utf-8") as toml:
            toml.write(config)
    if folder == "jmh":
        private_jmh_lock(root, tmp_path)
    commit_all(root, "v1")
    return root


def _edit(path: Path, anchor: str, line: str) -> None:
    """Insert ``line`` (already indented) right after the line holding ``anchor``."""
    text = path.read_text(encoding="utf-8")
    start = text.index(anchor)
    end = text.index("\n", start) + 1
    path.write_text(text[:end] + line + "\n" + text[end:], encoding="utf-8")


def _affected(root: Path, filter_: str, *revisions: str) -> dict:
    out, err = io.StringIO(), io.StringIO()
    status = main(["affected", *revisions, "--config", str(root / "benchwarden.toml"), "--suite", "wordstat",
                   "--filter", filter_, "--json"], stdout=out, stderr=err)
    assert status == 0, err.getvalue()
    (suite,) = json.loads(out.getvalue())["suites"]
    return suite


def _selected(suite: dict) -> set[str]:
    return {b["benchmark"] for b in suite["benchmarks"] if b["affected"]}


PY_FILTER = r"CountWords\.|Tokenize\.time_tokenize\[size=100\]"


def test_python_a_private_function_called_through_a_dispatch_table_is_found(tmp_path, monkeypatch):
    root = _repo(tmp_path, "python", "python3", monkeypatch)
    _edit(root / "wordstat" / "__init__.py", "def _tokenize_one_pass(", "    text = text + ''")
    suite = _affected(root, PY_FILTER)
    assert [c["method"] for c in suite["changed_methods"]] == ["wordstat:_tokenize_one_pass"]
    # every benchmark tokenizes (the counting ones in their setup), through _TOKENIZERS: all are affected
    assert len(_selected(suite)) == len(suite["benchmarks"]) == 3 and suite["traced"]


def test_python_only_the_callers_of_a_changed_function(tmp_path, monkeypatch):
    root = _repo(tmp_path, "python", "python3", monkeypatch)
    _edit(root / "wordstat" / "__init__.py", "def count_words_sorted(", "    words = list(words)")
    (root / "README.md").write_text("changed documentation\n")
    suite = _affected(root, PY_FILTER)
    assert _selected(suite) == {"bench_wordstat.CountWords.time_count_sorted"}
    assert suite["ignored"] == ["README.md"] and suite["not_affected"] == 2
    commit_all(root, "v2")  # the same between two commits (both revisions in cached worktrees)
    suite = _affected(root, PY_FILTER, "HEAD~1", "HEAD")
    assert _selected(suite) == {"bench_wordstat.CountWords.time_count_sorted"} and suite["traced"]
    # a commit's trace is kept with its worktree: asked again, nothing is traced
    out, err = io.StringIO(), io.StringIO()
    assert main(["affected", "HEAD~1", "HEAD", "--config", str(root / "benchwarden.toml"), "--suite", "wordstat",
                 "--filter", PY_FILTER, "--json"], stdout=out, stderr=err) == 0
    assert err.getvalue().count("from the cache of that commit") == 2 and "tracing" not in err.getvalue()
    assert _selected(json.loads(out.getvalue())["suites"][0]) == {"bench_wordstat.CountWords.time_count_sorted"}


EXTRA_BENCH = """import math


class Arithmetic:
    def time_hypot(self):
        math.hypot(3.0, 4.0)
"""


def test_python_module_level_code_and_benchmark_files_affect_only_their_importers(tmp_path, monkeypatch):
    """Changes outside any function are attributed by the files each benchmark's process imported (the hook records
    them): a benchmark module that does not import wordstat is not affected by wordstat's constants, nor the
    wordstat benchmarks by an edit of that module; a test file no benchmark imports affects nothing."""
    root = tmp_path / "python"
    shutil.copytree(REPO / "examples" / "python", root, ignore=shutil.ignore_patterns(".benchwarden", "__pycache__"))
    (root / "benchmarks" / "bench_extra.py").write_text(EXTRA_BENCH, encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "test_wordstat.py").write_text("import wordstat\n\n\ndef test_top():\n    pass\n")
    root = _repo(tmp_path / "copy", "python", "python3", monkeypatch, source=root)
    only = r"Arithmetic\.|CountWords\.time_count_hash"
    library = root / "wordstat" / "__init__.py"  # one more separator: a change at module level
    library.write_text(library.read_text().replace('_SEPARATORS = (" ",', '_SEPARATORS = (" ", " ",', 1))
    suite = _affected(root, only)
    assert [c["method"] for c in suite["changed_methods"]] == ["file:wordstat/__init__.py"] and suite["traced"]
    assert _selected(suite) == {"bench_wordstat.CountWords.time_count_hash"}
    [extra] = [b for b in suite["benchmarks"] if not b["affected"]]
    assert extra["reasons"] == ["imports none of the 1 changed file"]
    commit_all(root, "v2")
    _edit(root / "benchmarks" / "bench_extra.py", "def time_hypot(self):", "        math.hypot(5.0, 12.0)")
    _edit(root / "tests" / "test_wordstat.py", "def test_top():", "    assert wordstat.VOCABULARY")
    suite = _affected(root, only)
    assert {c["method"] for c in suite["changed_methods"]} == {"file:benchmarks/bench_extra.py",
                                                                "file:tests/test_wordstat.py"}
    assert _selected(suite) == {"bench_extra.Arithmetic.time_hypot"}


def test_paths_the_project_ignores_affect_nothing_and_are_listed(tmp_path, monkeypatch):
    root = _repo(tmp_path, "python", "python3", monkeypatch, config='\n[affected]\nignore = ["notes/*"]\n')
    (root / "notes").mkdir()
    (root / "notes" / "todo.txt").write_text("measure the hash counter\n")
    suite = _affected(root, PY_FILTER)
    assert suite["ignored"] == ["notes/todo.txt"] and _selected(suite) == set() and not suite["traced"]
    assert suite["not_affected"] == 3
    (root / "wordlist.txt").write_text("a data file the project did not list\n")  # not ignored: affects all
    suite = _affected(root, PY_FILTER)
    assert len(_selected(suite)) == 3 and suite["ignored"] == ["notes/todo.txt"]


def test_an_unknown_revision_is_a_usage_error_not_a_traceback(tmp_path, monkeypatch):
    root = _repo(tmp_path, "python", "python3", monkeypatch)
    out, err = io.StringIO(), io.StringIO()
    status = main(["affected", "no-such-rev", "--config", str(root / "benchwarden.toml"), "--suite", "wordstat"],
                  stdout=out, stderr=err)
    assert status == 2 and "no-such-rev" in err.getvalue() and "Traceback" not in err.getvalue()


def test_go_unexported_and_exported_functions_and_a_change_outside_any(tmp_path, monkeypatch):
    root = _repo(tmp_path, "go", "go", monkeypatch)
    _edit(root / "wordstat.go", "func CountWordsSorted(", "\t_ = len(words)")
    suite = _affected(root, "CountWords|Tokenize")
    assert [c["method"] for c in suite["changed_methods"]] == ["example.com/wordstat.CountWordsSorted"]
    assert _selected(suite) == {"BenchmarkCountWordsSorted"}
    commit_all(root, "v2")
    _edit(root / "wordstat.go", "func lowerASCII(", "\t_ = len(w)")  # unexported, called while tokenizing
    suite = _affected(root, "CountWords|Tokenize")
    assert [c["method"] for c in suite["changed_methods"]] == ["example.com/wordstat.lowerASCII"]
    assert _selected(suite) == {b["benchmark"] for b in suite["benchmarks"]}
    # a new file whose package-level code runs at start-up, and a build file: no method accounts for them
    (root / "extra.go").write_text("package wordstat\n\nvar extra = GenerateText(10, 1)\n")
    (root / "go.mod").write_text((root / "go.mod").read_text() + "\n// touched\n")
    suite = _affected(root, "CountWords|Tokenize")
    assert not suite["traced"] and _selected(suite) == {b["benchmark"] for b in suite["benchmarks"]}
    assert sorted(c["path"] for c in suite["other_changes"]) == ["extra.go", "go.mod"]


def test_jmh_only_the_benchmark_calling_a_changed_method(tmp_path, monkeypatch):
    if shutil.which("mvn") is None:
        pytest.skip("'mvn' is not on PATH")
    root = _repo(tmp_path, "jmh", "java", monkeypatch)
    _edit(root / "src/main/java/wordstat/WordStat.java", "public static Map<String, Integer> countWordsSorted(",
          "        words = new java.util.ArrayList<>(words);")
    suite = _affected(root, r"CountWordsBench|TokenizeBench\.tokenize\[size=100\]")
    assert [c["method"] for c in suite["changed_methods"]] == ["wordstat.WordStat#countWordsSorted"]
    assert _selected(suite) == {"wordstat.bench.CountWordsBench.countSorted"}
    assert "wordstat" in suite["traced_packages"] and not any(p.startswith("org.") for p in suite["traced_packages"])


def _compare_affected(root: Path, *argv: str) -> tuple[int, dict, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(["compare", "HEAD", "--affected", "--config", str(root / "benchwarden.toml"), "--suite", "wordstat",
                   "--filter", PY_FILTER, "--warmup", "1", "--iterations", "3", "--iteration-time", "50ms",
                   "--max-forks", "4", "--json", "-q", *argv], stdout=out, stderr=err)
    assert out.getvalue(), err.getvalue()
    return status, json.loads(out.getvalue()), err.getvalue()


def test_compare_affected_measures_only_the_affected_benchmarks(tmp_path, monkeypatch):
    root = _repo(tmp_path, "python", "python3", monkeypatch)
    _edit(root / "wordstat" / "__init__.py", "def count_words_sorted(", "    words = list(words)")
    status, data, err = _compare_affected(root, "--junit", str(tmp_path / "junit.xml"),
                                          "--markdown", str(tmp_path / "pr.md"))
    assert [b["benchmark"] for b in data["benchmarks"]] == ["bench_wordstat.CountWords.time_count_sorted"], err
    assert sorted(n["benchmark"] for n in data["not_affected"]) == [
        "wordstat:bench_wordstat.CountWords.time_count_hash", "wordstat:bench_wordstat.Tokenize.time_tokenize[size=100]"]
    assert all("calls none of the 1 changed method" == n["why"] for n in data["not_affected"])
    assert (tmp_path / "junit.xml").read_text().count('classname="(not affected)"') == 2
    assert "not affected by the change, not measured (2)" in (tmp_path / "pr.md").read_text()
    # a comment-only change: nothing affected, nothing measured, every output written, the gate passes
    library = root / "wordstat" / "__init__.py"
    library.write_text(library.read_text().replace("    words = list(words)\n", "    # a note\n"))
    status, data, err = _compare_affected(root, "--junit", str(tmp_path / "junit2.xml"))
    assert status == 0 and data["gate"] == "pass" and data["benchmarks"] == [] and len(data["not_affected"]) == 3
    assert Path(data["report"]).is_file() and (tmp_path / "junit2.xml").is_file()
