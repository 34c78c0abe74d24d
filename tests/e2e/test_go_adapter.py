"""End-to-end tests of the Go adapter: real `go test -c` builds and real test-binary forks.

Uses copies of examples/go and tests/data/go/broken-module (deliberately
panicking, hanging, failing, exiting, printing and oddly named benchmarks).
Iterations are 10-50 ms so the whole file runs in well under a minute.
"""

from __future__ import annotations

import os
import shutil
import statistics
import time
from dataclasses import replace
from pathlib import Path

import pytest

from benchwarden.adapters import get_adapter
from benchwarden.adapters.base import ForkPlan, RunningFork, SuiteContext
from benchwarden.adapters.gotest import GoAdapter
from benchwarden.errors import BuildFailed, ForkFailed, ListingFailed, ToolchainMissing
from tests.support.processes import matching

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("go") is None, reason="the Go toolchain ('go') is not on PATH"),
]

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_KEYS = ["BenchmarkTokenize[size=100]", "BenchmarkTokenize[size=1000]", "BenchmarkCountWordsHash",
                "BenchmarkCountWordsSorted", "BenchmarkTopK", "BenchmarkNoisy"]
TRICKY = ["a.b(c)[1]+x|y", "k=v*2", "with_space", "procs-4", "dup", "dup#01", "back\\slash^$", "{1,2}?"]


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".benchwarden"))
    return dst


def _prepared(root: Path, **options):
    ctx = SuiteContext(name=root.name, kind="go", root=root, options={"list_timeout": "10s", **options})
    adapter = GoAdapter()
    prepared = adapter.prepare(ctx)
    benchmarks = {b.id.key: b for b in adapter.list_benchmarks(ctx)}
    return adapter, ctx, prepared, benchmarks


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    return _prepared(_copy(REPO / "examples" / "go", tmp_path_factory.mktemp("go") / "wordstat"))


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    return _prepared(_copy(REPO / "tests" / "data" / "go" / "broken-module", tmp_path_factory.mktemp("go") / "broken"))


def plan(iterations: int, iteration_s: float = 0.02, timeout_s: float = 30.0, iteration_timeout_s: float = 10.0,
         env=None) -> ForkPlan:
    return ForkPlan(fork_index=1, iteration_time_s=iteration_s, max_iterations=iterations, timeout_s=timeout_s,
                    iteration_timeout_s=iteration_timeout_s, env=env or {})


def processes_running(binary: str) -> list[int]:
    """PIDs of live processes whose argv[0] is ``binary``."""
    return [p.pid for p in matching(lambda p: p.argv[:1] == (binary,))]


def run_until_failure(fork: RunningFork) -> tuple[list, ForkFailed | None, float]:
    start = time.monotonic()
    results = []
    try:
        for it in fork:
            results.append(it)
    except ForkFailed as exc:
        return results, exc, time.monotonic() - start
    return results, None, time.monotonic() - start


# ----------------------------------------------------------------------------- example suite


def test_registry_finds_the_go_adapter():
    assert isinstance(get_adapter("go"), GoAdapter)


def test_prepare_and_list_example(example):
    _, ctx, prepared, benchmarks = example
    assert prepared.toolchain["go"].startswith("go1.")
    assert list(benchmarks) == EXAMPLE_KEYS
    tok = benchmarks["BenchmarkTokenize[size=1000]"]
    assert tok.id.params == (("size", "1000"),) and (tok.mode, tok.unit) == ("go", "ns/op")
    assert tok.spec["full_name"] == "BenchmarkTokenize/size=1000"
    assert Path(tok.spec["binary"]).is_file()
    assert Path(tok.spec["binary"]).parent == ctx.root / ".benchwarden" / "build" / "go"
    assert tok.spec["package_dir"] == str(ctx.root)


def test_sub_benchmarks_are_selected_by_their_path_elements(example):
    adapter, ctx, _, _ = example
    keys = [b.id.key for b in adapter.list_benchmarks(replace(ctx, params={"size": ("100",)}))]
    assert keys == [k for k in EXAMPLE_KEYS if k != "BenchmarkTokenize[size=1000]"]
    with pytest.raises(ListingFailed, match="parameter 'size' has no value '7'"):
        adapter.list_benchmarks(replace(ctx, params={"size": ("7",)}))


def test_listing_works_from_the_manifest_in_a_fresh_adapter(example):
    _, ctx, _, benchmarks = example
    assert [b.id.key for b in GoAdapter().list_benchmarks(ctx)] == list(benchmarks)


def test_fork_streams_iterations_while_running(example):
    adapter, ctx, _, benchmarks = example
    fork = adapter.start_fork(ctx, benchmarks["BenchmarkTokenize[size=100]"], plan(4, iteration_s=0.05))
    arrivals, running_at_first = [], None
    for it in fork:
        if running_at_first is None:
            running_at_first = fork._proc.returncode is None
        arrivals.append((time.monotonic(), it))
    assert len(arrivals) == 4
    assert running_at_first, "the first iteration arrived only after the process had ended"
    # four ~50 ms repetitions do not arrive at once (loosely: N was calibrated under the machine's load of the
    # moment, so an iteration may well be shorter than 50 ms)
    assert arrivals[-1][0] - arrivals[0][0] > 0.03
    for _, it in arrivals:
        assert it.value_ns > 0 and it.ops >= 1
        assert set(it.secondary) == {"MB/s", "B/op", "allocs/op"}
        assert it.secondary["allocs/op"] == 17.0  # deterministic: 16 words appended + the slice
    # b.N was searched once (the calibration run), then every iteration ran exactly that many operations
    assert fork.calibration is not None and fork.operations >= 1
    assert {it.ops for _, it in arrivals} == {float(fork.operations)}
    assert f"{fork.operations}x" in fork.argv


def test_later_forks_reuse_the_first_forks_calibration(example):
    """One b.N search per benchmark and version: the second fork starts straight with ``-test.benchtime Nx`` (no
    calibration process), a fork of another version (another environment) searches its own N."""
    adapter, ctx, _, benchmarks = example
    tokenize = benchmarks["BenchmarkTokenize[size=1000]"]
    first = adapter.start_fork(ctx, tokenize, plan(2, iteration_s=0.03))
    assert first.calibrated_here and "-test.count" in first.argv and "1" == first.argv[first.argv.index("-test.count") + 1]
    assert len(list(first)) == 2 and first.operations >= 1
    second = adapter.start_fork(ctx, tokenize, replace(plan(3, iteration_s=0.03), fork_index=2))
    assert not second.calibrated_here and f"{first.operations}x" in second.argv  # measuring from its first process
    assert [it.ops for it in second] == [float(first.operations)] * 3 and second.calibration is None
    slowed = adapter.start_fork(ctx, tokenize, plan(1, iteration_s=0.03, env={"WORDSTAT_SLOW": "1"}))
    assert slowed.calibrated_here
    assert len(list(slowed)) == 1 and slowed.calibration is not None


def test_stop_at_iteration_boundary_leaves_no_process(example):
    adapter, ctx, _, benchmarks = example
    bench = benchmarks["BenchmarkCountWordsHash"]
    fork = adapter.start_fork(ctx, bench, plan(1000))
    got = []
    for it in fork:
        got.append(it)
        if len(got) == 1:
            time.sleep(0.5)  # 20-ms iterations: several more lines are read and waiting when the fork is stopped
        if len(got) == 2:
            fork.stop()
    assert len(got) == 2  # a line read before stop() is not reported after it (the loaded CI saw 3)
    assert fork._proc.returncode is not None
    with pytest.raises(ProcessLookupError):
        os.killpg(fork._proc.proc.pid, 0)
    assert processes_running(bench.spec["binary"]) == []
    fork.stop()  # idempotent


def test_slowdown_switch_reaches_the_fork(example):
    """WORDSTAT_SLOW=1 selects the FieldsFunc tokenizer: its allocation profile differs deterministically."""
    adapter, ctx, _, benchmarks = example
    bench = benchmarks["BenchmarkTokenize[size=1000]"]
    fast = list(adapter.start_fork(ctx, bench, plan(1)))[0]
    slow = list(adapter.start_fork(ctx, bench, plan(1, env={"WORDSTAT_SLOW": "1"})))[0]
    assert fast.secondary["B/op"] < slow.secondary["B/op"]  # FieldsFunc's span slice, then ToLower's copies
    assert (fast.secondary["allocs/op"], slow.secondary["allocs/op"]) == (161.0, 167.0)


def test_noisy_benchmark_is_noisy(example):
    """8 repetitions draw 8 work sizes; P(CV < 0.1) is about 5e-6 by simulation of the size distribution."""
    adapter, ctx, _, benchmarks = example
    values = [it.value_ns for it in adapter.start_fork(ctx, benchmarks["BenchmarkNoisy"], plan(8))]
    assert len(values) == 8
    assert statistics.stdev(values) / statistics.mean(values) >= 0.10


# ----------------------------------------------------------------------------- broken module


def test_listing_broken_module(broken):
    _, _, _, benchmarks = broken
    expected = ["BenchmarkOK", "BenchmarkPanic", "BenchmarkHang", "BenchmarkFatal", "BenchmarkExit",
                "BenchmarkPrints"]
    expected += ["BenchmarkTricky[k=v*2]" if n == "k=v*2" else f"BenchmarkTricky[sub={n}]" for n in TRICKY]
    expected += ["BenchmarkTricky[outer=1,sub=inner]", "sub.BenchmarkDouble"]
    # BenchmarkFatal fails and BenchmarkExit kills the discovery run: both are listed, and the
    # benchmarks after them are still found; packages nobench/ and notests/ are skipped.
    assert list(benchmarks) == expected
    assert benchmarks["sub.BenchmarkDouble"].spec["package"] == "example.com/broken/sub"


@pytest.mark.parametrize("index, name", list(enumerate(TRICKY)))
def test_exact_match_of_names_with_regex_metacharacters(broken, index, name):
    adapter, ctx, _, benchmarks = broken
    key = "BenchmarkTricky[k=v*2]" if name == "k=v*2" else f"BenchmarkTricky[sub={name}]"
    results = list(adapter.start_fork(ctx, benchmarks[key], plan(2, iteration_s=0.01)))
    assert [it.secondary["id"] for it in results] == [index, index]  # this sub-benchmark and no other


def test_nested_sub_benchmark(broken):
    adapter, ctx, _, benchmarks = broken
    results = list(adapter.start_fork(ctx, benchmarks["BenchmarkTricky[outer=1,sub=inner]"], plan(1, 0.01)))
    assert [it.secondary["id"] for it in results] == [100]


def test_benchmark_printing_to_stdout_and_stderr(broken):
    adapter, ctx, _, benchmarks = broken
    results = list(adapter.start_fork(ctx, benchmarks["BenchmarkPrints"], plan(3, 0.01)))
    assert len(results) == 3


def test_panicking_benchmark(broken):
    adapter, ctx, _, benchmarks = broken
    bench = benchmarks["BenchmarkPanic"]
    results, failure, _ = run_until_failure(adapter.start_fork(ctx, bench, plan(5)))
    assert len(results) == 2  # it panics in its third repetition; the first two are kept
    assert failure is not None and failure.reason == "crashed"
    assert "panic: deliberate panic in BenchmarkPanic" in failure.detail
    assert failure.benchmark == "broken:BenchmarkPanic"
    assert "broken_test.go" in failure.output
    assert processes_running(bench.spec["binary"]) == []


def test_hanging_benchmark_times_out_per_iteration(broken):
    adapter, ctx, _, benchmarks = broken
    bench = benchmarks["BenchmarkHang"]
    results, failure, elapsed_s = run_until_failure(
        adapter.start_fork(ctx, bench, plan(5, iteration_timeout_s=1.0)))
    assert len(results) == 1  # it sleeps for an hour in its second repetition
    assert failure is not None and failure.reason == "timeout"
    assert "no iteration result for 1s" in failure.detail
    assert elapsed_s < 10
    assert processes_running(bench.spec["binary"]) == []


def test_hanging_benchmark_hits_the_fork_timeout(broken):
    adapter, ctx, _, benchmarks = broken
    results, failure, elapsed_s = run_until_failure(
        adapter.start_fork(ctx, benchmarks["BenchmarkHang"], plan(5, timeout_s=1.5, iteration_timeout_s=60)))
    assert failure is not None and failure.reason == "timeout"
    assert "exceeded its timeout of 1.5s" in failure.detail
    assert 1.4 < elapsed_s < 10


@pytest.mark.parametrize("key, cause", [
    ("BenchmarkFatal", "--- FAIL: BenchmarkFatal"),
    ("BenchmarkExit", "exited with status 3"),
])
def test_failing_and_exiting_benchmarks_crash(broken, key, cause):
    adapter, ctx, _, benchmarks = broken
    results, failure, _ = run_until_failure(adapter.start_fork(ctx, benchmarks[key], plan(3)))
    assert results == []
    assert failure is not None and failure.reason == "crashed" and cause in failure.detail


# ----------------------------------------------------------------------------- preparation errors


def test_missing_go_toolchain(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    ctx = SuiteContext(name="nogo", kind="go", root=tmp_path)
    with pytest.raises(ToolchainMissing, match="suite 'nogo': 'go' was not found on PATH"):
        GoAdapter().prepare(ctx)


def test_compile_error_is_a_build_failure(tmp_path):
    root = _copy(REPO / "tests" / "data" / "go" / "broken-module", tmp_path / "broken")
    (root / "sub" / "sub.go").write_text("package sub\n\nfunc Double(n int) int { return 2 * }\n")
    ctx = SuiteContext(name="broken", kind="go", root=root)
    with pytest.raises(BuildFailed) as info:
        GoAdapter().prepare(ctx)
    assert "sub.go:3" in str(info.value) and "go test -c" in info.value.command


def test_build_command_runs_first(tmp_path):
    root = _copy(REPO / "examples" / "go", tmp_path / "wordstat")
    ctx = SuiteContext(name="w", kind="go", root=root, build=("go", "vet", "./..."),
                       options={"packages": ["."]})
    adapter = GoAdapter()
    adapter.prepare(ctx)
    failing = SuiteContext(name="w", kind="go", root=root, build=("go", "vet", "./nonexistent"))
    with pytest.raises(BuildFailed, match="go vet ./nonexistent"):
        adapter.prepare(failing)
