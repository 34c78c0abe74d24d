"""Go's sampling CPU profile as a call tree (codelevel/pprof.py): `go tool pprof -traces` text, the benchmark's
stacks, the module's functions as nodes. The real profiler runs in tests/e2e/test_compare_explain.py."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from benchwarden.codelevel.pprof import call_tree, go_root_and_module, parse_traces, read_pprof
from benchwarden.codelevel.profiles import ProfileUnreadable

MODULE = "example.com/wordstat"
ROOT = "example.com/wordstat.BenchmarkTokenize"

# the shape of `go tool pprof -traces` (Go 1.2x): a header, then one block per distinct stack, leaf first
TRACES = """File: wordstat.test
Build ID: 41246b527f5b031662b3a0ba2380070079a67469
Type: cpu
Time: 2026-11-29 04:58:50 UTC
Duration: 1.11s, Total samples = 900ms (81.08%)
-----------+-------------------------------------------------------
     500ms   example.com/wordstat.lowerASCII
             example.com/wordstat.tokenizeFast
             example.com/wordstat.Tokenize (inline)
             example.com/wordstat.BenchmarkTokenize.func1
             testing.(*B).runN
             testing.(*B).launch
-----------+-------------------------------------------------------
     200ms   runtime.mallocgc
             runtime.growslice
             example.com/wordstat.tokenizeFast
             example.com/wordstat.Tokenize (inline)
             example.com/wordstat.BenchmarkTokenize.func1
             testing.(*B).runN
-----------+-------------------------------------------------------
     100ms   example.com/wordstat.BenchmarkTokenize.func1
             testing.(*B).runN
-----------+-------------------------------------------------------
      50ms   runtime.gcDrain
             runtime.gcBgMarkWorker
-----------+-------------------------------------------------------
    1.50ms   example.com/wordstat.CountWordsHash
             example.com/wordstat.BenchmarkCountWordsHash
             testing.(*B).runN
"""


def test_traces_are_stacks_with_their_sampled_time_inline_marks_dropped():
    traces = parse_traces(TRACES)
    assert [ns for ns, _ in traces] == [500e6, 200e6, 100e6, 50e6, 1.5e6]
    assert traces[0][1][:3] == ["example.com/wordstat.lowerASCII", "example.com/wordstat.tokenizeFast",
                                "example.com/wordstat.Tokenize"]
    assert parse_traces("File: x\nType: cpu\n") == []


def test_the_tree_keeps_the_benchmarks_stacks_and_the_modules_functions():
    tree = call_tree(parse_traces(TRACES), ROOT, MODULE, operations=1000)
    fast = (ROOT, f"{MODULE}.Tokenize", f"{MODULE}.tokenizeFast")
    assert set(tree.nodes) == {(ROOT,), fast[:2], fast, (*fast, f"{MODULE}.lowerASCII")}  # no runtime, no GC
    assert tree.sampled and tree.root == ROOT and tree.ops == 1000
    assert tree.nodes[(ROOT,)].inclusive_ns == 800e6 and tree.nodes[(ROOT,)].self_ns == 100e6  # the closure's loop
    # runtime.mallocgc under tokenizeFast is tokenizeFast's own time (not a node), as with the other profilers
    assert tree.nodes[fast].self_ns == 200e6 and tree.nodes[fast].inclusive_ns == 700e6
    assert tree.per_op((*fast, f"{MODULE}.lowerASCII"), "self_ns") == 500e6 / 1000
    assert tree.nodes[fast].calls == 0  # a sample cannot count calls


def test_an_external_test_package_and_nested_closures_are_the_benchmark_itself():
    text = """-----------+----
      30ms   example.com/wordstat.Helper
             example.com/wordstat_test.BenchmarkTokenize.func1.2
             example.com/wordstat_test.BenchmarkTokenize.func1
             testing.(*B).runN
"""
    tree = call_tree(parse_traces(text), ROOT, MODULE, operations=3)
    assert set(tree.nodes) == {(ROOT,), (ROOT, f"{MODULE}.Helper")}
    assert tree.nodes[(ROOT, f"{MODULE}.Helper")].self_ns == 30e6


def test_a_profile_without_the_benchmark_is_unreadable():
    with pytest.raises(ProfileUnreadable, match="no CPU sample passed through example.com/wordstat.BenchmarkX"):
        call_tree(parse_traces(TRACES), "example.com/wordstat.BenchmarkX", MODULE, operations=10)
    with pytest.raises(ProfileUnreadable, match="wrote no CPU profile"):
        read_pprof(Path("/nonexistent/cpu.pprof"), ROOT, MODULE, 10)


def test_the_benchmarks_function_and_module_come_from_go_mod(tmp_path):
    (tmp_path / "go.mod").write_text("module example.com/wordstat\n\ngo 1.21\n")
    (tmp_path / "internal" / "parse").mkdir(parents=True)
    assert go_root_and_module(tmp_path, "BenchmarkTokenize/size=1000") == (ROOT, MODULE)
    assert go_root_and_module(tmp_path / "internal" / "parse", "BenchmarkX") == (
        "example.com/wordstat/internal/parse.BenchmarkX", MODULE)
    with pytest.raises(ProfileUnreadable, match="no go.mod"):
        go_root_and_module(Path("/"), "BenchmarkX")


def test_a_real_go_profile_reads_into_the_same_tree(tmp_path):
    """The text format assumed above, checked against this machine's go tool pprof on a real profile."""
    go = shutil.which("go")
    if go is None:
        pytest.skip("'go' is not on PATH")  # a failure under CI=true (tests/conftest.py)
    (tmp_path / "go.mod").write_text("module example.com/p\n\ngo 1.21\n")
    (tmp_path / "p.go").write_text("package p\n\nfunc Work(n int) int {\n\ts := 0\n\tfor i := 0; i < n; i++ {\n"
                                   "\t\ts += i * i % 7\n\t}\n\treturn s\n}\n")
    (tmp_path / "p_test.go").write_text('package p\n\nimport "testing"\n\nvar sink int\n\n'
                                        "func BenchmarkWork(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n"
                                        "\t\tsink = Work(100000)\n\t}\n}\n")
    profile = tmp_path / "cpu.pprof"
    done = subprocess.run([go, "test", "-run", "^$", "-bench", "^BenchmarkWork$", "-benchtime", "300ms",
                           "-cpuprofile", str(profile), "."], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    tree = read_pprof(profile, "example.com/p.BenchmarkWork", "example.com/p", operations=1)
    work = ("example.com/p.BenchmarkWork", "example.com/p.Work")
    assert work in tree.nodes and tree.nodes[work].self_ns > 0.5 * tree.nodes[work[:1]].inclusive_ns
