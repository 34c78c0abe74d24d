"""Tables stay readable at 80 columns: golden output of `show` and `runs` at 80 and 200 columns.

The run is built here with fixed values and times (long JMH-style names with parameters, a throughput
benchmark, a failed one), imported, and shown through the real CLI with ``COLUMNS`` set. Regenerate the
golden files after an intended change with ``BENCHWARDEN_UPDATE_GOLDEN=1`` and review the diff.

Beyond the golden files, every rendered line must fit the width and no number may be split across lines
(the symptom of issue #14: "0.841" / "0" in 5-character cells).
"""

from __future__ import annotations

import io
import os
import re
import time
from pathlib import Path

import pytest

from benchwarden.cli import main
from benchwarden.config import RunSettings
from benchwarden.model import (
    Benchmark,
    BenchmarkId,
    BenchmarkResult,
    BenchmarkStatus,
    Direction,
    ForkResult,
    ForkStatus,
    IterationResult,
    RunData,
    RunMeta,
    RunStatus,
    StopDecision,
)
from benchwarden.store import open_store
from benchwarden.units import from_ns_per_op

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "tables"
PACKAGE = "org.openjdk.jmh.benchmarks."


def _fork(index: int, values: list[float], start: float, warmup: int = 3, unit: str = "ns/op") -> ForkResult:
    # raw_value is the harness's own figure in the benchmark's unit (ops/s for throughput), as adapters store it
    its = tuple(IterationResult(value_ns=v, raw_value=from_ns_per_op(v, unit)) for v in values)
    warm = tuple(IterationResult(value_ns=v * 1.2, raw_value=from_ns_per_op(v * 1.2, unit)) for v in values[:warmup])
    decisions = tuple(StopDecision(stop=i == warmup - 1, reason="stable" if i == warmup - 1 else "not-stable",
                                   values={"cv": 0.02 - 0.005 * i}) for i in range(warmup))
    return ForkResult(index, ForkStatus.COMPLETE, warmup=warm, measurement=its, started_at=start,
                      finished_at=start + 2.5, warmup_decisions=decisions)


def _run() -> RunData:
    settings = RunSettings.from_dict({"iteration_time_s": 0.1, "warmup_min": 1, "warmup_max": 5, "iterations": 5,
                                      "forks_min": 2, "forks_max": 3})
    results = []
    specs = [("CoreStabilityBench.test", (("param", "1"), ("size", "1000")), [81.2, 80.9, 81.5, 82.0, 81.1]),
             ("RoundTripLatencyBench.roundTripLatency", (("size", "-1"),), [1_234_567.0, 1_240_001.0, 1_229_870.0,
                                                                             1_238_000.0, 1_236_500.0]),
             ("BlackholeConsumeCPUBench.consume_00000", (), [0.841, 0.843, 0.840, 0.842, 0.845])]
    for n, (name, params, values) in enumerate(specs):
        b = Benchmark(BenchmarkId("jmh", PACKAGE + name, params), mode="avgt", unit="ns/op")
        forks = tuple(_fork(i + 1, [v * (1 + 0.01 * i) for v in values], 1000.0 + 10 * n + 3 * i) for i in range(2))
        results.append(BenchmarkResult(b, forks, fork_decisions=(StopDecision(True, "stable", {"cv": 0.004}),)))
    thrpt = Benchmark(BenchmarkId("jmh", PACKAGE + "ThroughputBench.ops"), mode="thrpt", unit="ops/s",
                      direction=Direction.HIGHER_IS_BETTER)
    results.append(BenchmarkResult(thrpt, (_fork(1, [1e9 / 52_000, 1e9 / 51_000, 1e9 / 53_000], 1100.0, unit="ops/s"),
                                           _fork(2, [1e9 / 52_500, 1e9 / 51_900, 1e9 / 52_100], 1104.0,
                                                 unit="ops/s"))))
    broken = Benchmark(BenchmarkId("jmh", PACKAGE + "BrokenBench.crashes"), mode="avgt", unit="ns/op")
    results.append(BenchmarkResult(broken, (ForkResult(1, ForkStatus.FAILED, started_at=1200.0, finished_at=1201.0,
                                                       message="exit status 1"),),
                                   status=BenchmarkStatus.FAILED, message="fork 1 failed: exit status 1"))
    meta = RunMeta(created_at=1_790_000_000.0, tool_version="0.1.0", commit="0123456789abcdef0123", dirty=False,
                   machine={"cpu": "Test CPU", "cores": "2"}, toolchain={"jmh": "1.37", "java": "17.0.9"},
                   config={"suites": {"jmh": {"kind": "jmh", "root": "/nonexistent",
                                              "settings": settings.to_dict()}}},
                   label="nightly build of branch feature/very-long-branch-name-for-testing")
    return RunData(meta, tuple(results), RunStatus.COMPLETE)


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    with open_store(tmp_path / ".benchwarden" / "results.db") as s:
        s.import_run(_run())
    yield tmp_path
    monkeypatch.delenv("TZ")
    time.tzset()


def render(argv: list[str], columns: int, monkeypatch) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    out, err = io.StringIO(), io.StringIO()
    assert main(argv, stdout=out, stderr=err) == 0, err.getvalue()
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines()) + "\n"


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("BENCHWARDEN_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs; see the module docstring to regenerate"


NUMBER = re.compile(r"[\d,]+\.\d+|\d[\d,]*")


def assert_fits(text: str, width: int, whole: tuple[str, ...] = ()) -> None:
    """Every line within ``width`` cells, and each value in ``whole`` printed unbroken on one line."""
    from rich.cells import cell_len

    for line in text.splitlines():
        assert cell_len(line) <= width, line
    for value in whole:
        assert value in text, value


@pytest.mark.parametrize("columns", [80, 200])
def test_show_golden(store, monkeypatch, columns):
    text = render(["show"], columns, monkeypatch)
    assert_fits(text, columns, ("81.75", "1,241,967", "0.8464", "52,083", "CoreStabilityBench.test[param=1,size=1000]"))
    check_golden(f"show-{columns}.txt", text)


@pytest.mark.parametrize("columns", [80, 200])
def test_runs_golden(store, monkeypatch, columns):
    text = render(["runs"], columns, monkeypatch)
    assert_fits(text, columns, ("2026-09-21 14:13:20", "complete"))
    check_golden(f"runs-{columns}.txt", text)


@pytest.mark.parametrize("columns", [80, 200])
def test_compare_table_golden(columns):
    # the comparison table (terminal) keeps verdict, ratio and MDE at 80 columns and drops the rest in order
    from rich.console import Console

    from benchwarden.report.comparison_table import comparison_table
    from benchwarden.report.table import to_rich
    from tests.unit.compare.comparison_samples import sample_comparison

    out = io.StringIO()
    console = Console(file=out, width=columns, force_terminal=False, color_system=None)
    console.print(to_rich(comparison_table(sample_comparison().benchmarks)))
    text = "\n".join(line.rstrip() for line in out.getvalue().splitlines()) + "\n"
    assert_fits(text, columns, ("slower", "1.520", "14.2%", "inconclusive"))
    if columns == 80:
        assert "MDE" in text.splitlines()[1] and "not shown at this width: time, forks" in text
    check_golden(f"compare-{columns}.txt", text)
