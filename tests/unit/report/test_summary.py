"""Run summaries: the mean as the harness prints it (JMH's Score, golden against JMH's own -rf json), an
interval over forks that stays positive and readable, and "n/a" with a note when the data cannot support a
statistic; they never raise."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from benchwarden.adapters import REGISTRY
from benchwarden.adapters.jmh_output import load_jmh_json
from benchwarden.cli import main
from benchwarden.model import (
    Benchmark,
    BenchmarkId,
    BenchmarkResult,
    BenchmarkStatus,
    Direction,
    ForkResult,
    ForkStatus,
    IterationResult,
)
from benchwarden.report.summary import summarize_benchmark


def _result(values_per_fork):
    forks = tuple(ForkResult(i + 1, ForkStatus.COMPLETE, started_at=0.0, finished_at=1.0,
                             measurement=tuple(IterationResult(value_ns=v, raw_value=v) for v in values))
                  for i, values in enumerate(values_per_fork))
    return BenchmarkResult(Benchmark(BenchmarkId("s", "b"), mode="avgt", unit="ns/op"), forks)


def test_one_measured_value_gives_a_mean_and_notes_instead_of_an_error():
    summary = summarize_benchmark(_result([[120.0]]))
    assert summary.mean == pytest.approx(120.0) and summary.cv is None
    assert any("CV n/a: it needs at least 2 measured values, this benchmark has 1" in w for w in summary.warnings)
    assert summary.to_json()["cv"] is None


def test_two_values_have_a_cv():
    summary = summarize_benchmark(_result([[100.0], [110.0]]))
    assert summary.cv == pytest.approx(7.0711 / 105, rel=1e-3)
    assert not any("CV n/a" in w for w in summary.warnings)


def test_run_and_show_with_exactly_one_measured_value(tmp_path, monkeypatch):
    monkeypatch.setitem(REGISTRY, "fake", "tests.support.fake_adapter:DemoFakeAdapter")
    (tmp_path / "benchwarden.toml").write_text(
        '[defaults]\niteration_time = "10ms"\nwarmup = { min = 0, max = 0 }\niterations = 1\n'
        'forks = { min = 1, max = 1 }\n[suites.demo]\nkind = "fake"\n')
    monkeypatch.chdir(tmp_path)
    for argv in (["run", "--quiet"], ["show"]):
        out, err = io.StringIO(), io.StringIO()
        assert main(argv, stdout=out, stderr=err) == 0, err.getvalue()
        assert "n/a" in out.getvalue() and "CV n/a" in out.getvalue()


JMH_RESULT = Path(__file__).resolve().parents[2] / "data" / "jmh" / "result-1.37.json"


def test_mean_is_jmhs_score_for_every_mode_including_throughput():
    run = load_jmh_json(JMH_RESULT)
    scores = [entry["primaryMetric"]["score"] for entry in json.loads(JMH_RESULT.read_text())]
    assert len(run.results) == len(scores)
    for result, score in zip(run.results, scores):
        summary = summarize_benchmark(result)
        assert summary.mean == pytest.approx(score, rel=1e-9), result.benchmark.id.key
    thrpt = next(r for r in run.results if r.benchmark.mode == "thrpt")
    summary = summarize_benchmark(thrpt)
    harmonic = summary.display(summary.mean_ns)  # what converting the mean time per op back gives
    assert summary.mean > harmonic  # the arithmetic mean of ops/ms, as JMH prints it
    low, high = summary.ci
    assert low < summary.mean < high


def _forks(fork_values: list[list[float]], unit: str = "ns/op") -> BenchmarkResult:
    bench = Benchmark(BenchmarkId("s", "b"), "avgt", unit, Direction.LOWER_IS_BETTER)
    forks = tuple(ForkResult(index=i + 1, status=ForkStatus.COMPLETE, warmup=(),
                             measurement=tuple(IterationResult(v, v) for v in values), started_at=0.0,
                             finished_at=1.0)
                  for i, values in enumerate(fork_values))
    return BenchmarkResult(bench, forks, BenchmarkStatus.OK)


def test_interval_of_two_forks_is_wide_but_positive():
    summary = summarize_benchmark(_forks([[6.00], [6.98]]))
    low, high = summary.ci
    assert 0 < low < 6.0 and high > 6.98  # the old fallback printed [-53.4, 73.9]


def test_one_outlying_fork_is_left_out_of_the_interval_and_named():
    summary = summarize_benchmark(_forks([[100.0, 101.0], [99.0, 100.0], [100.5, 99.5], [101.0, 100.0],
                                           [99.5, 100.5], [660.0, 650.0]]))
    low, high = summary.ci
    assert 98 < low < high < 102
    assert any("fork 6" in w and "outlying" in w for w in summary.warnings)


def test_one_measured_value_is_n_a_not_a_crash():
    summary = summarize_benchmark(_forks([[42.0]]))
    assert summary.mean == 42.0 and summary.ci is None and summary.cv is None
    assert summary.to_json()["ci"] is None


def _on_machines(values_per_fork, machines):
    result = _result(values_per_fork)
    forks = tuple(ForkResult(f.index, f.status, measurement=f.measurement, started_at=0.0, finished_at=1.0,
                             machine={"worker": f"tcp://127.0.0.1:{4000 + i}", "name": m} if m else {})
                  for i, (f, m) in enumerate(zip(result.forks, machines)))
    return BenchmarkResult(result.benchmark, forks)


def test_forks_on_several_machines_get_the_machine_level_and_a_warning_when_the_machines_differ():
    # w1's forks at ~100 ns, w2's at ~110 ns, forks on one machine within ±1 %: machines differ (issue #18)
    result = _on_machines([[100.0, 100.5], [99.0, 99.5], [101.0, 100.0], [110.0, 110.4], [111.0, 109.5],
                           [109.0, 109.8]], ["w1", "w1", "w1", "w2", "w2", "w2"])
    summary = summarize_benchmark(result)
    spread = summary.machines
    assert spread is not None and spread.machines == ("w1", "w2") and spread.counts == (3, 3)
    assert spread.centers[0] == pytest.approx(100.0, rel=0.01) and spread.centers[1] == pytest.approx(110.0, rel=0.01)
    assert 0.05 < spread.between < 0.09 and spread.within < 0.01 and spread.p_value < 0.001
    assert any("2 machines differ by about ±" in w for w in summary.warnings)
    exported = json.loads(json.dumps(summary.to_json()))
    assert [m["machine"] for m in exported["machines"]["machines"]] == ["w1", "w2"]
    from benchwarden.cli.render import machine_lines
    [line] = machine_lines([summary])
    assert line.startswith("machines of s:b: w1 100") and "(3 forks)" in line and "machines differ: p = " in line


def test_machines_that_do_not_differ_get_the_level_without_a_warning_and_one_machine_gets_none():
    values = [[100.0, 101.0], [102.0, 100.5], [101.0, 100.2], [100.8, 101.9]]
    quiet = summarize_benchmark(_on_machines(values, ["w1", "w2", "w2", "w1"]))  # fork means interleave
    assert quiet.machines is not None and quiet.machines.p_value > 0.01
    assert not any("machines differ" in w for w in quiet.warnings)
    assert summarize_benchmark(_on_machines(values, ["w1"] * 4)).machines is None
    assert summarize_benchmark(_result(values)).machines is None  # local forks: the run's one machine
    assert summarize_benchmark(_result(values)).to_json()["machines"] is None
