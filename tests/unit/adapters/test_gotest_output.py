"""Golden-file tests of the go test -bench parsers (live stream and file import).

Inputs are real ``go test`` outputs captured from examples/go and
tests/data/go/broken-module (see tests/data/go/output/README.md); the expected
values below were read off those files by hand, line by line.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchwarden.adapters.gotest_output import (
    ConfigLine,
    Failed,
    GoOutputParser,
    GoResult,
    ProcessEnd,
    ResultLineError,
    Unfinished,
    import_go_bench,
    import_gotest,
    match_name,
    name_to_params,
    parse_figures,
    parse_go_bench,
    split_procs,
    to_iteration,
)
from benchwarden.errors import ImportFormatError
from benchwarden.model import BenchmarkStatus, ForkStatus, RunStatus

DATA = Path(__file__).resolve().parents[2] / "data" / "go" / "output"


def events_by_line(name: str, **parser_args) -> dict[int, list]:
    """Feed a golden file through the parser; line number -> events that line produced (plus 0: finish())."""
    parser = GoOutputParser(**parser_args)
    out: dict[int, list] = {}
    for number, line in enumerate((DATA / name).read_text(encoding="utf-8").splitlines(), start=1):
        events = parser.feed(line)
        assert parser.line_number == number
        if events:
            out[number] = events
    pending = parser.finish()
    if pending is not None:
        out[0] = [pending]
    return out


# ----------------------------------------------------------------- line parsing


def test_benchmem_file_line_by_line():
    events = events_by_line("wordstat-benchmem.txt")
    assert events[1] == [ConfigLine("goos", "linux")]
    assert events[2] == [ConfigLine("goarch", "amd64")]
    assert events[3] == [ConfigLine("pkg", "example.com/wordstat")]
    assert events[4] == [ConfigLine("cpu", "AMD EPYC")]
    assert events[5] == [GoResult("BenchmarkTokenize/size=100", 2, 12334,
                                  {"ns/op": 2216.0, "MB/s": 253.56, "B/op": 2232.0, "allocs/op": 17.0})]
    assert events[10] == [GoResult("BenchmarkTokenize/size=1000", 2, 1250,
                                   {"ns/op": 29379.0, "MB/s": 192.14, "B/op": 20248.0, "allocs/op": 161.0})]
    assert events[12] == [GoResult("BenchmarkCountWordsHash", 2, 933,
                                   {"ns/op": 25872.0, "B/op": 6952.0, "allocs/op": 11.0})]
    assert events[22] == [GoResult("BenchmarkNoisy", 2, 2064,
                                   {"ns/op": 13894.0, "B/op": 3464.0, "allocs/op": 9.0})]
    assert events[23] == [ProcessEnd("PASS")]
    assert events[24] == [ProcessEnd("ok  \texample.com/wordstat\t0.905s")]
    names = [events[n][0].name for n in range(5, 23)]
    assert names == (["BenchmarkTokenize/size=100"] * 3 + ["BenchmarkTokenize/size=1000"] * 3
                     + ["BenchmarkCountWordsHash"] * 3 + ["BenchmarkCountWordsSorted"] * 3
                     + ["BenchmarkTopK"] * 3 + ["BenchmarkNoisy"] * 3)
    assert sorted(events) == list(range(1, 25))


def test_result_split_by_benchmark_output_is_joined():
    """go test prints the name before a repetition runs: stdout written by the benchmark lands in between."""
    events = events_by_line("prints.txt")
    assert events[7] == [GoResult("BenchmarkPrints", 2, 130090, {"ns/op": 133.1})]
    assert 8 not in events and 9 not in events  # name + the benchmark's output, then its stderr line
    assert events[10] == [GoResult("BenchmarkPrints", 2, 152752, {"ns/op": 176.8})]
    assert events[13] == [GoResult("BenchmarkPrints", 2, 167757, {"ns/op": 213.8})]
    assert 1 not in events and 2 not in events  # "hello from ..." is not a configuration line


def test_panic_leaves_an_unfinished_repetition():
    events = events_by_line("panic.txt")
    results = [(n, e[0]) for n, e in events.items() if isinstance(e[0], GoResult)]
    assert [n for n, _ in results] == list(range(5, 12))
    assert results[-1][1] == GoResult("BenchmarkPanic", 2, 179370,
                                      {"ns/op": 67.27, "B/op": 0.0, "allocs/op": 0.0})
    # line 12 is "BenchmarkPanic-2 <tab>panic: ..." (merged stderr); "exit status 2" (line 23) ends the process
    assert events[23] == [Unfinished("BenchmarkPanic", 2, 12), ProcessEnd("exit status 2")]
    assert sorted(n for n in events if n > 11) == [23, 24]


def test_fatal_is_reported_with_its_line():
    events = events_by_line("fatal.txt")
    assert events[7] == [Failed("BenchmarkFatal", None, 7)]
    assert events[9] == [ProcessEnd("FAIL")]
    assert events[10] == [ProcessEnd("exit status 1")]
    assert 8 not in events  # the b.Fatal message


def test_tricky_names_with_known_expected_name():
    events = events_by_line("tricky.txt")
    assert events[8][0].name == "BenchmarkTricky/procs-4" and events[8][0].procs == 2
    assert events[11][0].name == "BenchmarkTricky/back\\slash^$"
    assert events[13][0].metrics == {"ns/op": 26.56, "id": 100.0}
    # exact matching of a live fork: a name that ends in -<digits> itself is not a suffix
    exact = GoOutputParser(expected="BenchmarkTricky/procs-4")
    assert exact.feed("BenchmarkTricky/procs-4   \t   10\t  5.0 ns/op") == [
        GoResult("BenchmarkTricky/procs-4", None, 10, {"ns/op": 5.0})]


def test_truncated_after_name_is_unfinished_at_end():
    events = events_by_line("truncated-after-name.txt")
    assert events[0] == [Unfinished("BenchmarkTokenize/size=1000", 2, 10)]
    assert max(n for n in events if n) == 9


def test_truncated_midline_is_a_result_line_error():
    parser = GoOutputParser()
    lines = (DATA / "truncated-midline.txt").read_text(encoding="utf-8").splitlines()
    for line in lines[:9]:
        parser.feed(line)
    with pytest.raises(ResultLineError, match=r"measurement '19' has no unit \(truncated line\?\)"):
        parser.feed(lines[9])


@pytest.mark.parametrize("fields, message", [
    ([], "no iteration count"),
    (["12x", "5", "ns/op"], "iteration count '12x' is not an integer"),
    (["100"], "no measurements"),
    (["100", "5", "ns/op", "7"], "measurement '7' has no unit"),
    (["100", "five", "ns/op"], "value 'five' for unit 'ns/op' is not a number"),
    (["100", "nan", "ns/op"], "not finite"),
])
def test_parse_figures_errors(fields, message):
    with pytest.raises(ResultLineError, match=re.escape(message)):
        parse_figures(fields)


def test_to_iteration_maps_value_ops_and_secondary():
    it = to_iteration(GoResult("BenchmarkX", 2, 1000, {"ns/op": 12.5, "MB/s": 80.0, "B/op": 16.0, "id": 3.0}))
    assert (it.value_ns, it.raw_value, it.ops) == (12.5, 12.5, 1000.0)
    assert dict(it.secondary) == {"MB/s": 80.0, "B/op": 16.0, "id": 3.0}
    assert to_iteration(GoResult("BenchmarkX", None, 4, {"sec/op": 2e-6})).value_ns == pytest.approx(2000.0)
    with pytest.raises(ResultLineError, match="no time per operation"):
        to_iteration(GoResult("BenchmarkX", None, 4, {"B/op": 1.0}))
    with pytest.raises(ResultLineError, match="must be positive"):
        to_iteration(GoResult("BenchmarkX", None, 4, {"ns/op": 0.0}))


@pytest.mark.parametrize("printed, expected", [
    ("BenchmarkX-8", ("BenchmarkX", 8)),
    ("BenchmarkX", ("BenchmarkX", None)),
    ("BenchmarkX/a-b-16", ("BenchmarkX/a-b", 16)),
    # benchfmt's convention takes any trailing -<digits> as the suffix: the documented ambiguity
    ("BenchmarkX/n=-1", ("BenchmarkX/n=", 1)),
])
def test_split_procs(printed, expected):
    assert split_procs(printed) == expected


def test_match_name():
    assert match_name("BenchmarkA/x-4-2", "BenchmarkA/x-4") == 2
    assert match_name("BenchmarkA/x-4", "BenchmarkA/x-4") is None
    assert match_name("BenchmarkA/x-5", "BenchmarkA/x-4") is False
    assert match_name("BenchmarkAB-2", "BenchmarkA") is False


@pytest.mark.parametrize("full, top, params", [
    ("BenchmarkTokenize/size=100", "BenchmarkTokenize", (("size", "100"),)),
    ("BenchmarkTokenize", "BenchmarkTokenize", ()),
    ("BenchmarkT/outer=1/inner", "BenchmarkT", (("outer", "1"), ("sub", "inner"))),
    ("BenchmarkT/a/b/k=v=w", "BenchmarkT", (("sub", "a"), ("sub2", "b"), ("k", "v=w"))),
    ("BenchmarkT/=x", "BenchmarkT", (("sub", "=x"),)),
])
def test_name_to_params(full, top, params):
    assert name_to_params(full) == (top, params)


def test_lowercase_after_benchmark_is_not_a_benchmark():
    parser = GoOutputParser()
    assert parser.feed("Benchmarking is fun") == []
    assert parser.feed("Benchmark  10  5 ns/op") == [GoResult("Benchmark", None, 10, {"ns/op": 5.0})]


# ----------------------------------------------------------------- import


def test_import_wordstat_file():
    run = import_go_bench(DATA / "wordstat-benchmem.txt", suite="wordstat")
    assert run.status is RunStatus.COMPLETE
    keys = [r.benchmark.id.key for r in run.results]
    assert keys == ["BenchmarkTokenize[size=100]", "BenchmarkTokenize[size=1000]", "BenchmarkCountWordsHash",
                    "BenchmarkCountWordsSorted", "BenchmarkTopK", "BenchmarkNoisy"]
    tok = run.results[0]
    assert tok.benchmark.id.suite == "wordstat"
    assert (tok.benchmark.mode, tok.benchmark.unit) == ("go", "ns/op")
    assert tok.benchmark.spec == {"package": "example.com/wordstat", "full_name": "BenchmarkTokenize/size=100"}
    assert len(tok.forks) == 1 and tok.forks[0].status is ForkStatus.COMPLETE
    assert tok.forks[0].warmup == ()
    assert tok.forks[0].measurement_ns == (2216.0, 3377.0, 3161.0)
    assert [it.ops for it in tok.forks[0].measurement] == [12334.0, 10000.0, 10000.0]
    assert tok.forks[0].measurement[2].secondary == {"MB/s": 177.80, "B/op": 2232.0, "allocs/op": 17.0}
    assert run.meta.machine == {"cpu": "AMD EPYC", "os": "linux", "arch": "amd64"}
    assert run.meta.config["go_config"]["pkg"] == "example.com/wordstat"
    assert run.meta.label == "wordstat-benchmem.txt"


def test_import_appended_runs_are_forks():
    run = import_go_bench(DATA / "appended.txt")
    (only,) = run.results
    assert [f.index for f in only.forks] == [1, 2, 3]
    assert [f.measurement_ns for f in only.forks] == [(260.4,), (81.16,), (69.93,)]


def test_import_cpu_list_keeps_gomaxprocs_apart():
    run = import_go_bench(DATA / "cpu-list.txt")
    assert [r.benchmark.id.key for r in run.results] == ["BenchmarkOK[gomaxprocs=1]", "BenchmarkOK[gomaxprocs=2]"]
    assert [r.forks[0].measurement_ns for r in run.results] == [(71.11, 83.29), (225.2, 94.28)]


def test_import_multi_package_qualifies_names():
    run = import_go_bench(DATA / "multi-package.txt")
    assert [r.benchmark.id.name for r in run.results] == ["BenchmarkOK", "sub.BenchmarkDouble"]
    assert run.results[1].forks[0].measurement_ns == (1.936, 0.7240)
    assert run.results[1].benchmark.spec["package"] == "example.com/broken/sub"
    assert run.meta.config["packages"] == ["example.com/broken", "example.com/broken/sub"]


def test_import_panic_keeps_iterations_and_marks_fork_failed():
    run = import_go_bench(DATA / "panic.txt")
    assert run.status is RunStatus.FAILED
    ok, panicked = run.results
    assert ok.status is BenchmarkStatus.OK and len(ok.forks[0].measurement) == 5
    assert panicked.status is BenchmarkStatus.FAILED
    (fork,) = panicked.forks
    assert fork.status is ForkStatus.FAILED
    assert fork.measurement_ns == (66.73, 67.27)
    assert "line 12" in fork.message and "crashed" in fork.message
    assert panicked.measurement_matrix() == []  # a failed fork is not fed to the statistics


def test_import_fatal_benchmark_is_a_failed_fork_without_iterations():
    run = import_go_bench(DATA / "fatal.txt")
    fatal = run.results[1]
    assert fatal.benchmark.id.name == "BenchmarkFatal"
    assert fatal.forks[0].measurement == () and "line 7" in fatal.forks[0].message


def test_import_prints_file():
    run = import_go_bench(DATA / "prints.txt")
    (prints,) = run.results
    assert prints.forks[0].measurement_ns == (133.1, 176.8, 213.8)


def test_import_tricky_names():
    run = import_go_bench(DATA / "tricky.txt")
    params = [r.benchmark.id.params for r in run.results]
    assert params[0] == (("sub", "a.b(c)[1]+x|y"),)
    assert params[3] == (("sub", "procs-4"),)
    assert params[5] == (("sub", "dup#01"),)
    assert params[8] == (("outer", "1"), ("sub", "inner"))
    assert [r.forks[0].measurement[0].secondary["id"] for r in run.results] == [0, 1, 2, 3, 4, 5, 6, 7, 100]


def test_import_truncated_after_name_fails_that_fork_only():
    run = import_go_bench(DATA / "truncated-after-name.txt")
    big = run.results[1]
    assert big.benchmark.id.key == "BenchmarkTokenize[size=1000]"
    assert big.forks[0].status is ForkStatus.FAILED and big.forks[0].measurement_ns == (25047.0, 19968.0)
    assert run.results[0].status is BenchmarkStatus.OK


def test_import_truncated_midline_names_file_and_line():
    path = DATA / "truncated-midline.txt"
    with pytest.raises(ImportFormatError) as info:
        import_go_bench(path)
    assert info.value.line == 10 and info.value.path == str(path)
    assert str(info.value).startswith(f"{path}:10: malformed benchmark result: measurement '19' has no unit")


def test_import_garbage_names_the_corrupted_line():
    with pytest.raises(ImportFormatError) as info:
        import_go_bench(DATA / "garbage.txt")
    assert info.value.line == 8  # the terminal garbage on line 7 is not a result line and is skipped
    assert "value '22#2' for unit 'B/op' is not a number" in str(info.value)


def test_import_from_text_names_the_source():
    text = (DATA / "appended.txt").read_text(encoding="utf-8")
    run = import_gotest(text, suite="s", source="appended.txt")
    assert run.results[0].benchmark.id.suite == "s" and len(run.results[0].forks) == 3
    with pytest.raises(ImportFormatError, match=r"^x.out:2: malformed"):
        import_gotest("goos: linux\nBenchmarkX-2  10  5 ns/op 7\n", source="x.out")


def test_import_empty_and_missing_files(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("PASS\nok  \tx\t0.1s\n", encoding="utf-8")
    with pytest.raises(ImportFormatError, match="no benchmark results found"):
        import_go_bench(empty)
    with pytest.raises(ImportFormatError, match="cannot read"):
        import_go_bench(tmp_path / "missing.txt")


def test_import_result_without_time_per_op_is_an_error():
    with pytest.raises(ImportFormatError, match=r"x.txt:2: BenchmarkX: no time per operation"):
        parse_go_bench(["pkg: p", "BenchmarkX-2  10  5 B/op"], "x.txt")


# ----------------------------------------------------------------- properties


_element = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc"), blacklist_characters="/"),
                   min_size=1, max_size=12)


@given(top=st.from_regex(r"Benchmark[A-Z0-9_][A-Za-z0-9_]{0,10}", fullmatch=True),
       elements=st.lists(_element, max_size=4),
       iterations=st.integers(min_value=1, max_value=10**9),
       ns=st.floats(min_value=1e-4, max_value=1e9, allow_nan=False))
def test_printed_line_round_trips(top, elements, iterations, ns):
    """A line printed like go test prints it parses back to the same name, N and value."""
    full = "/".join([top, *elements])
    line = f"{full}-2   \t{iterations:8d}\t{ns:12.4f} ns/op"
    (result,) = GoOutputParser(expected=full).feed(line)
    assert (result.name, result.procs, result.iterations) == (full, 2, iterations)
    assert result.metrics["ns/op"] == pytest.approx(float(f"{ns:.4f}"))
    assert name_to_params(full)[0] == top and len(name_to_params(full)[1]) == len(elements)
