"""Run summaries degrade to "n/a" with a note when the data cannot support a statistic; they never raise."""

from __future__ import annotations

import io

import pytest

from benchwarden.adapters import REGISTRY
from benchwarden.cli import main
from benchwarden.model import Benchmark, BenchmarkId, BenchmarkResult, ForkResult, ForkStatus, IterationResult
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
