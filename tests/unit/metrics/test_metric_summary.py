"""`show` and `check` list the metrics measured beside time: typical value, spread between forks, rule."""

from __future__ import annotations

import io
import json
from pathlib import Path

from benchwarden.cli import main
from benchwarden.model import Benchmark, BenchmarkId, BenchmarkResult, ForkResult, ForkStatus, IterationResult
from benchwarden.report.metric_summary import metric_summary_table, summarize_metrics

DATA = Path(__file__).resolve().parents[2] / "data"


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def _fork(index: int, values: list[tuple[float, dict]]) -> ForkResult:
    return ForkResult(index, ForkStatus.COMPLETE, measurement=tuple(IterationResult(v, v, secondary=s)
                                                                    for v, s in values))


def test_primary_and_secondary_metrics_are_summarised_per_fork():
    bench = Benchmark(BenchmarkId("go", "BenchmarkTokenize"), "go", "instr/op", metric="instructions")
    result = BenchmarkResult(bench, forks=(
        _fork(1, [(249_000.0, {"B/op": 20248.0, "allocs/op": 161.0}), (249_100.0, {"B/op": 20248.0})]),
        _fork(2, [(249_400.0, {"B/op": 20248.0, "allocs/op": 161.0, "MB/s": 40.0})]),
        ForkResult(3, ForkStatus.FAILED, measurement=(IterationResult(1.0, 1.0, secondary={"B/op": 1.0}),))))
    by_name = {s.name: s for s in summarize_metrics(result)}
    primary = by_name["instructions"]
    assert primary.primary and primary.fork_values == (249_050.0, 249_400.0)
    assert primary.spread == (249_400.0 / 249_050.0 - 1)
    assert by_name["bytes"].fork_values == (20248.0, 20248.0) and by_name["bytes"].spread == 0.0  # failed fork left out
    assert by_name["MB/s"].fork_values == (40.0,) and by_name["MB/s"].spread is None
    rows = metric_summary_table(list(by_name.values())).rows
    assert rows[0][1:] == ["instructions", "249,225", "instr/op", "0.14%", "2", "primary"]
    assert ["allocs", "161", "allocs/op", "0.00%", "2", "exact"] in [r[1:] for r in rows]


def test_show_lists_go_allocations(tmp_path):
    store = str(tmp_path / "r.db")
    status, _, err = bw("import", str(DATA / "go" / "output" / "wordstat-benchmem.txt"), "--store", store,
                        "--as-suite", "go", "--json")
    assert status == 0, err
    status, out, err = bw("show", "--store", store, "--json")
    assert status == 0, err
    metrics = json.loads(out)["metrics"]
    allocs = [m for m in metrics if m["metric"] == "allocs" and m["benchmark"] == "go:BenchmarkTokenize[size=100]"]
    assert len(allocs) == 1 and allocs[0]["unit"] == "allocs/op" and allocs[0]["rule"] == "exact"
    assert allocs[0]["typical"] > 0
    status, out, _ = bw("show", "--store", store)
    assert status == 0 and "metrics (median of fork values" in out and "allocs/op" in out
