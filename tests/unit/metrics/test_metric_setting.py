"""The ``metric`` run setting: validated per suite kind, applied to the planned benchmarks and forks."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchwarden.config import load_config
from benchwarden.errors import ConfigError
from benchwarden.metrics.primary import with_metric
from benchwarden.model import Benchmark, BenchmarkId, Direction
from benchwarden.runner.engine import plan_run
from tests.support.fake_adapter import FakeAdapter, FakeBenchmarkSpec


def _config(tmp_path: Path, text: str):
    path = tmp_path / "benchwarden.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def test_metric_defaults_to_time_and_overrides_per_benchmark(tmp_path):
    cfg = _config(tmp_path, '[defaults]\nmetric = "cpu"\n[suites.g]\nkind = "go"\n'
                            '[suites.g.overrides."Tokenize"]\nmetric = "instructions"\n[suites.c]\nkind = "command"\n'
                            'command = "true"\nmetric = "time"\n')
    go = cfg.suites["g"].settings
    assert go.metric == "cpu"
    assert go.for_benchmark("BenchmarkTokenize").metric == "instructions"
    assert go.for_benchmark("BenchmarkTopK").metric == "cpu"
    assert cfg.suites["c"].settings.metric == "time"


@pytest.mark.parametrize("text, key, fragment", [
    ('[suites.j]\nkind = "jmh"\nmetric = "instructions"\n', "suites.j", "JIT"),
    ('[defaults]\nmetric = "instructions"\n[suites.j]\nkind = "jmh"\n', "defaults.metric", "JIT"),
    ('[suites.j]\nkind = "jmh"\n[suites.j.overrides."x"]\nmetric = "instructions"\n', "suites.j", "overrides.x.metric"),
    ('[suites.g]\nkind = "go"\nmetric = "cycles"\n', "suites.g.metric", "expected one of: time, cpu, instructions"),
    ('[suites.g]\nkind = "go"\nmetric = 1\n', "suites.g.metric", ""),
])
def test_a_metric_the_kind_cannot_measure_is_refused_with_the_reason(tmp_path, text, key, fragment):
    with pytest.raises(ConfigError) as info:
        _config(tmp_path, text)
    assert (info.value.key or "").startswith(key)
    assert fragment in str(info.value)


def test_jmh_suites_measure_cpu_time_too(tmp_path):
    cfg = _config(tmp_path, '[defaults]\nmetric = "cpu"\n[suites.j]\nkind = "jmh"\n')
    assert cfg.suites["j"].settings.metric == "cpu"


def test_instructions_change_the_unit_and_cpu_keeps_it():
    bench = Benchmark(BenchmarkId("s", "b"), mode="thrpt", unit="ops/s", direction=Direction.HIGHER_IS_BETTER)
    counted = with_metric(bench, "instructions")
    assert (counted.metric, counted.unit, counted.direction) == ("instructions", "instr/op", Direction.LOWER_IS_BETTER)
    cpu = with_metric(Benchmark(BenchmarkId("s", "b"), mode="go", unit="ns/op"), "cpu")
    assert (cpu.metric, cpu.unit) == ("cpu", "ns/op")
    assert with_metric(bench, "time") is bench


def test_planned_benchmarks_and_forks_carry_the_metric(tmp_path):
    cfg = _config(tmp_path, '[suites.g]\nkind = "go"\nmetric = "cpu"\nwarmup = { min = 2, max = 4 }\n'
                            '[suites.g.overrides."B$"]\nmetric = "time"\n')
    suite = cfg.suites["g"]
    adapter = FakeAdapter([FakeBenchmarkSpec("A"), FakeBenchmarkSpec("B")])
    plan = plan_run([suite], adapter_factory=lambda kind: adapter)
    by_name = {p.benchmark.id.name: p for p in plan.benchmarks}
    assert by_name["A"].benchmark.metric == "cpu" and by_name["B"].benchmark.metric == "time"
    # two-point CPU forks of Go are fresh processes per iteration: no warmup; time keeps its warmup
    assert (by_name["A"].bounds.warmup_min, by_name["A"].bounds.warmup_max) == (0, 0)
    assert (by_name["B"].bounds.warmup_min, by_name["B"].bounds.warmup_max) == (2, 4)
