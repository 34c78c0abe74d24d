"""Replay: the simulation equals what the live runner does on the same iterations; the evaluation's figures."""

from __future__ import annotations

import io
import json
from dataclasses import replace

import numpy as np
import pytest

from benchwarden.adapters import REGISTRY
from benchwarden.adapters.base import SuiteContext
from benchwarden.cli import main
from benchwarden.config import CRITERION_DEFAULTS, DEFAULT_CRITERIA, RunSettings, Suite
from benchwarden.model import RunMeta
from benchwarden.replay import (
    AAOptions,
    Baseline,
    ReplayConfig,
    recorded_series,
    replay_benchmark,
    replay_run,
    simulate,
)
from benchwarden.runner.engine import Runner, plan_run
from benchwarden.runner.policy import Bounds
from benchwarden.store import open_store
from tests.support.fake_adapter import FakeAdapter, FakeBenchmarkSpec

CV, RCIW, KLD = (CRITERION_DEFAULTS[n] for n in ("cv", "rciw", "kld"))


def recording(seed: int, forks: int = 5, iterations: int = 100, warm: float = 3.0, noise: float = 0.02,
              fork_sd: float = 0.01) -> list[np.ndarray]:
    """JIT-like series: a warmup that decays from ``warm`` x to 1 x, lognormal noise, a fork offset."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(forks):
        i = np.arange(iterations)
        level = 1000.0 * (1 + rng.normal(0, fork_sd))
        out.append(level * (1 + (warm - 1) * np.exp(-i / 4.0)) * rng.lognormal(0, noise, iterations))
    return out


@pytest.mark.parametrize("criteria", [(CV,), (RCIW,), (KLD,), (CV, KLD), DEFAULT_CRITERIA,
                                      (replace(DEFAULT_CRITERIA[0], scout=False), DEFAULT_CRITERIA[1])])
def test_replay_equals_the_live_runner_on_the_same_iterations(tmp_path, criteria):
    series = recording(3)
    bounds = Bounds(5, 30, 10, 2, 5)
    sim = simulate(series, ReplayConfig(criteria, bounds))
    values = lambda fork, i: float(series[fork - 1][i - 1])
    settings = RunSettings(iteration_time_s=0.001, warmup_min=5, warmup_max=30, iterations=10, forks_min=2,
                           forks_max=5, stop="dynamic", criteria=criteria)
    adapter = FakeAdapter([FakeBenchmarkSpec("b", values=values)])
    store = open_store(tmp_path / "r.db")
    try:
        plan = plan_run([Suite(SuiteContext("s", "fake", tmp_path), settings)], adapter_factory=lambda k: adapter)
        (live,) = Runner(store).run(plan, RunMeta(created_at=0.0, tool_version="t")).results
    finally:
        store.close()
    assert tuple(len(f.warmup) for f in live.forks) == sim.warmup_iterations
    assert [list(f.measurement_ns) for f in live.forks] == [m.tolist() for m in sim.measurement]
    assert live.fork_decisions[1:] == sim.fork_decisions  # the live run also records fork 1's below-minimum
    for fork, trail in zip(live.forks, sim.warmup_decisions):
        assert fork.warmup_decisions == trail  # every checkpoint, the measurement's included


def test_static_configuration_equal_to_the_baseline_changes_nothing():
    series = recording(4)
    static = ReplayConfig((), Bounds(50, 50, 50, 5, 5))
    result = replay_benchmark("b", series, static, Baseline(warmup=50), AAOptions(resamples=2000))
    assert result.change == pytest.approx(0.0, abs=1e-12)
    assert result.ratio_low <= 1.0 <= result.ratio_high and result.aa_same
    assert result.iterations == result.baseline_iterations == 500


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_short_fixed_warmup_fails_the_aa_test_and_the_cv_criterion_waits(seed):
    # JIT-like warmup from 3x down to 1x (time constant 4 iterations), 2 % noise
    series = recording(seed, warm=3.0, noise=0.02)
    early = replay_benchmark("b", series, ReplayConfig((), Bounds(5, 5, 10, 5, 5)), Baseline(), AAOptions(resamples=2000))
    assert early.change > 0.2 and not early.aa_same
    patient = replay_benchmark("b", series, ReplayConfig((CV,), Bounds(5, 50, 10, 2, 5)), Baseline(),
                               AAOptions(resamples=2000))
    assert min(patient.warmup_iterations) >= 15  # waited until the pooled CV settled
    assert patient.change < 0.02 and patient.aa_same
    assert patient.iterations < 0.2 * patient.baseline_iterations  # and still saved more than 80 %


def test_evaluation_figures_on_flat_recordings():
    series = {f"b{k}": recording(10 + k, warm=1.0, noise=0.005, fork_sd=0.002) for k in range(6)}
    cv = replay_run_from_series(series, ReplayConfig((CV,)))
    assert len(cv.benchmarks) == 6 and not cv.skipped
    assert all(b.warmup_iterations == (6, 6) for b in cv.benchmarks)  # first complete window, forks.min
    assert cv.time_saved == pytest.approx(1 - 2 * (6 + 10) / 500)
    assert cv.never_warmup_stable == 0.0 and cv.never_fork_stable == 0.0
    assert cv.change_below(0.01) == 1.0 and cv.changes.max() < 0.01
    assert cv.aa_same_share >= 5 / 6
    assert cv.compute_per_checkpoint_s > 0 and cv.overhead > 0
    data = cv.to_json()
    assert data["time_saved"] == cv.time_saved and len(data["per_benchmark"]) == 6
    assert data["change_below"] == {"0.01": 1.0, "0.02": 1.0, "0.03": 1.0}


def replay_run_from_series(series: dict[str, list[np.ndarray]], config: ReplayConfig):
    from benchwarden.replay import ReplayEvaluation

    rng = np.random.default_rng(0)
    done = tuple(replay_benchmark(k, s, config, Baseline(), AAOptions(resamples=2000), rng) for k, s in series.items())
    return ReplayEvaluation(config, done)


def test_short_recordings_are_skipped_with_the_reason(tmp_path):
    store = open_store(tmp_path / "r.db")
    try:
        suite = Suite(SuiteContext("s", "fake", tmp_path),
                      RunSettings(iteration_time_s=0.001, warmup_min=0, warmup_max=0, iterations=12, forks_min=3,
                                  forks_max=3, stop="static"))
        adapter = FakeAdapter([FakeBenchmarkSpec("b", values=lambda f, i: 100.0 + i % 3)])
        plan = plan_run([suite], adapter_factory=lambda k: adapter)
        outcome = Runner(store).run(plan, RunMeta(created_at=0.0, tool_version="t"))
        run = store.load_run(outcome.run_id)
    finally:
        store.close()
    assert [s.size for s in recorded_series(run.results[0])] == [12, 12, 12]
    (evaluation,) = replay_run(run, [ReplayConfig((CV,))], Baseline(warmup=2), AAOptions(resamples=500))
    assert not evaluation.benchmarks
    assert "need at least warmup.min + iterations = 15" in evaluation.skipped[0][1]


# --- the CLI ---------------------------------------------------------------------------------------------------

CONFIG = """
[defaults]
iteration_time = "1ms"

[suites.demo]
kind = "fake"
"""


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


@pytest.fixture
def recorded_project(tmp_path, monkeypatch):
    monkeypatch.setitem(REGISTRY, "fake", "tests.support.fake_adapter:DemoFakeAdapter")
    (tmp_path / "benchwarden.toml").write_text(CONFIG)
    monkeypatch.chdir(tmp_path)
    status, _, err = bw("run", "--quiet", "--stop", "static", "--warmup", "0", "--iterations", "60", "--forks", "5")
    assert status == 0, err
    return tmp_path


def test_cli_compares_every_configuration(recorded_project):
    status, out, err = bw("replay", "--criteria", "cv", "--criteria", "rciw,kld", "--threshold", "cv=0.01,0.02",
                          "--warmup", "5:20", "--baseline-warmup", "30", "--resamples", "500")
    assert status == 0, err
    for label in ("cv@0.01", "cv@0.02", "rciw@0.03+kld@0.99", "time saved", "A/A same", "Laaber et al."):
        assert label in out
    status, out, err = bw("replay", "--json", "--warmup", "5:20", "--baseline-warmup", "30", "--resamples", "500")
    data = json.loads(out)
    assert status == 0 and [c["config"] for c in data["configurations"]] == [
        "level@0.1+precision@0.05", "cv@0.01", "rciw@0.03", "kld@0.99"]
    assert all(c["benchmarks"] == 2 for c in data["configurations"])


@pytest.mark.parametrize("argv, fragment", [
    (["--criteria", "cv", "--threshold", "kld=0.9"], "no --criteria set uses"),
    (["--criteria", "mean"], "unknown criterion 'mean'"),
    (["--criteria", "kld", "--threshold", "kld=1.5"], "kld.threshold"),
    (["--warmup", "9:3"], "MIN <= MAX"),
    (["--iterations", "58"], "no benchmark can be replayed"),
])
def test_cli_errors_name_the_flag(recorded_project, argv, fragment):
    status, out, err = bw("replay", *argv)
    assert status == 2 and fragment in err and out == ""


def test_subset_change_worked_values():
    from benchwarden.replay import subset_change

    # fork means 1 and 3: overall 2; either single fork is 50 % off
    assert subset_change([np.array([1.0, 1.0]), np.array([3.0])], 1) == pytest.approx(0.5)
    # means 8, 8, 10, 10, 10 (overall 9.2): pairs {8,8} 13.0 % low, {10,10} 8.7 % high (3 pairs), {8,10}
    # 2.17 % low (6 pairs) -> (0.1304 + 3 * 0.0870 + 6 * 0.0217) / 10
    forks = [np.full(4, m) for m in (8.0, 8.0, 10.0, 10.0, 10.0)]
    expected = (abs(8 / 9.2 - 1) + 3 * abs(10 / 9.2 - 1) + 6 * abs(9 / 9.2 - 1)) / 10
    assert subset_change(forks, 2) == pytest.approx(expected)
    assert subset_change(forks, 5) == 0.0 and subset_change(forks, 7) == 0.0
    assert subset_change([np.full(3, 5.0)] * 4, 2) == 0.0  # identical forks: nothing to average away
    with pytest.raises(ValueError):
        subset_change(forks, 0)
