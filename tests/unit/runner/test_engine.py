"""Runner state machine through the fake adapter and a real SQLite store: bounds, failures, interrupts, resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchwarden.adapters.base import SuiteContext
from benchwarden.config import RunSettings, Suite
from benchwarden.errors import ToolchainMissing
from benchwarden.model import BenchmarkStatus, ForkStatus, RunMeta, RunStatus, StopDecision
from benchwarden.runner.engine import RunInterrupted, Runner, plan_run
from benchwarden.runner.labels import last_warmup_checkpoint
from benchwarden.runner.policy import Bounds
from benchwarden.runner.progress import RecordingListener
from benchwarden.store import open_store
from tests.support.fake_adapter import FakeAdapter, FakeBenchmarkSpec


def _suite(tmp_path: Path, name="s", **settings) -> Suite:
    base = dict(iteration_time_s=0.01, warmup_min=2, warmup_max=3, iterations=4, forks_min=2, forks_max=3,
                stop="static")  # these tests count iterations and forks of the static policy
    base.update(settings)
    return Suite(SuiteContext(name=name, kind="fake", root=tmp_path), RunSettings(**base))


def _meta() -> RunMeta:
    return RunMeta(created_at=0.0, tool_version="test")


@pytest.fixture
def store(tmp_path):
    s = open_store(tmp_path / "results.db")
    yield s
    s.close()


def test_static_run_labels_phases_and_honours_bounds(tmp_path, store):
    values = lambda fork, i: 1000.0 * fork + i  # distinct per fork and iteration
    adapter = FakeAdapter([FakeBenchmarkSpec("a", values=values)])
    plan = plan_run([_suite(tmp_path)], adapter_factory=lambda kind: adapter)
    outcome = Runner(store, RecordingListener()).run(plan, _meta())
    assert outcome.status is RunStatus.COMPLETE
    (result,) = outcome.results
    assert [f.index for f in result.forks] == [1, 2, 3]  # static: forks_max
    for fork in result.forks:
        assert [it.value_ns for it in fork.warmup] == [1000.0 * fork.index + i for i in (1, 2, 3)]
        assert [it.value_ns for it in fork.measurement] == [1000.0 * fork.index + i for i in (4, 5, 6, 7)]
        assert fork.status is ForkStatus.COMPLETE
        # checkpoints: below the minimum at iteration 1, a decision at 2 and 3
        assert [d.reason for d in fork.warmup_decisions] == ["below-minimum", "static", "static", "measured"]
    # what the runner returns is exactly what the store keeps
    stored = store.load_run(outcome.run_id)
    assert stored.status is RunStatus.COMPLETE
    assert [list(f.measurement_ns) for f in stored.results[0].forks] == [list(f.measurement_ns) for f in result.forks]


def test_zero_warmup_measures_from_the_first_iteration(tmp_path, store):
    adapter = FakeAdapter([FakeBenchmarkSpec("a", values=lambda f, i: float(i))])
    plan = plan_run([_suite(tmp_path, warmup_min=0, warmup_max=0, forks_min=1, forks_max=1)],
                    adapter_factory=lambda kind: adapter)
    (result,) = Runner(store).run(plan, _meta()).results
    assert result.forks[0].warmup == ()
    assert result.forks[0].measurement_ns == (1.0, 2.0, 3.0, 4.0)


class _NeverStable:
    name = "never"

    def warmup_decision(self, bounds, warmup_ns):
        return StopDecision(stop=False, reason="not-stable", values={"cv": 0.5})

    def measurement_decision(self, bounds, warmup_ns, measurement_ns):
        return StopDecision(stop=False, reason="level-changed")  # would measure again forever

    def fork_decision(self, bounds, forks_ns, warmups_ns=None):
        return StopDecision(stop=False, reason="not-stable")


def test_runner_enforces_maximum_with_warning_when_policy_never_stops(tmp_path, store, monkeypatch):
    monkeypatch.setattr("benchwarden.runner.engine.make_policy", lambda name: _NeverStable())
    adapter = FakeAdapter([FakeBenchmarkSpec("a")])
    plan = plan_run([_suite(tmp_path)], adapter_factory=lambda kind: adapter)
    (result,) = Runner(store).run(plan, _meta()).results
    assert len(result.forks) == 3
    last_warmup = last_warmup_checkpoint(result.forks[0].warmup_decisions)
    assert last_warmup.stop and last_warmup.reason == "maximum-reached" and "did not become stable" in last_warmup.warning
    assert len(result.forks[0].warmup) == 3  # never past wi_max
    # a policy that wants to measure again past wi_max is overruled: the measurement stands, with a warning
    after = result.forks[0].warmup_decisions[-1]
    assert after.stop and after.reason == "level-changed-at-bound" and "no room" in after.warning
    assert result.fork_decisions[-1].reason == "maximum-reached" and result.fork_decisions[-1].warning
    assert [d.reason for d in result.fork_decisions[:1]] == ["below-minimum"]


def test_crashing_fork_keeps_its_iterations_and_the_run_goes_on(tmp_path, store):
    adapter = FakeAdapter([FakeBenchmarkSpec("bad", crash_at=(2, 5)), FakeBenchmarkSpec("good")])
    plan = plan_run([_suite(tmp_path)], adapter_factory=lambda kind: adapter)
    outcome = Runner(store).run(plan, _meta())
    bad, good = outcome.results
    assert bad.status is BenchmarkStatus.FAILED and "fork 2" in bad.message and "crashed" in bad.message
    assert [f.status for f in bad.forks] == [ForkStatus.COMPLETE, ForkStatus.FAILED]
    assert len(bad.forks[1].warmup) == 3 and len(bad.forks[1].measurement) == 1  # kept, not thrown away
    assert good.status is BenchmarkStatus.OK and len(good.forks) == 3
    assert outcome.status is RunStatus.FAILED and outcome.failed
    stored = store.load_run(outcome.run_id).results[0]
    assert stored.status is BenchmarkStatus.FAILED and len(stored.forks[1].measurement) == 1


def test_skipped_combination_is_not_a_failure(tmp_path, store):
    adapter = FakeAdapter([FakeBenchmarkSpec("a", skip=True), FakeBenchmarkSpec("b")])
    plan = plan_run([_suite(tmp_path)], adapter_factory=lambda kind: adapter)
    outcome = Runner(store).run(plan, _meta())
    a, b = outcome.results
    assert a.status is BenchmarkStatus.SKIPPED and "NotImplementedError" in a.message and a.forks == ()
    assert b.status is BenchmarkStatus.OK
    assert outcome.status is RunStatus.COMPLETE and not outcome.failed
    assert store.load_run(outcome.run_id).results[0].status is BenchmarkStatus.SKIPPED


def test_suite_that_cannot_prepare_is_reported_and_others_run(tmp_path, store):
    broken = FakeAdapter([FakeBenchmarkSpec("x")], fail_prepare=ToolchainMissing("java", "broken"))
    fine = FakeAdapter([FakeBenchmarkSpec("y")])
    listener = RecordingListener()
    plan = plan_run([_suite(tmp_path, "broken"), _suite(tmp_path, "fine")],
                    adapter_factory=lambda kind, it=iter([broken, fine]): next(it), listener=listener)
    assert "broken" in plan.failed_suites and "'java' was not found" in str(plan.failed_suites["broken"])
    assert ("suite_failed", "broken", str(plan.failed_suites["broken"])) in listener.events
    outcome = Runner(store).run(plan, _meta())
    assert [r.benchmark.id.name for r in outcome.results] == ["y"] and outcome.status is RunStatus.FAILED


class _MetricAdapter(FakeAdapter):
    """A fake whose metric hook fails for CPU time, as JMH's does when javac is missing."""

    def __init__(self, specs):
        super().__init__(specs)
        self.metrics: list[str] = []

    def prepare_metric(self, ctx: SuiteContext, metric: str) -> None:
        self.metrics.append(metric)
        if metric == "cpu":
            raise ToolchainMissing("javac", ctx.name, "install a JDK")


def test_what_a_metric_needs_is_prepared_once_per_suite_and_fails_the_suite_not_every_fork(tmp_path, store):
    timed, cpu = _MetricAdapter([FakeBenchmarkSpec("x"), FakeBenchmarkSpec("y")]), _MetricAdapter([FakeBenchmarkSpec("z")])
    listener = RecordingListener()
    plan = plan_run([_suite(tmp_path, "timed"), _suite(tmp_path, "cpu", metric="cpu")],
                    adapter_factory=lambda kind, it=iter([timed, cpu]): next(it), listener=listener)
    assert timed.metrics == ["time"] and cpu.metrics == ["cpu"]  # once per suite and metric, not per benchmark
    assert list(plan.failed_suites) == ["cpu"] and "'javac' was not found" in str(plan.failed_suites["cpu"])
    assert [p.benchmark.id.name for p in plan.benchmarks] == ["x", "y"]
    outcome = Runner(store).run(plan, _meta())
    assert cpu.forks_started == [] and outcome.status is RunStatus.FAILED


def test_listing_alone_does_not_prepare_metrics(tmp_path):
    adapter = _MetricAdapter([FakeBenchmarkSpec("z")])
    plan = plan_run([_suite(tmp_path, "cpu", metric="cpu")], adapter_factory=lambda kind: adapter, measure=False)
    assert adapter.metrics == [] and not plan.failed_suites and [p.benchmark.metric for p in plan.benchmarks] == ["cpu"]


def test_interrupt_keeps_completed_forks_and_resume_does_not_repeat_them(tmp_path, store):
    values = lambda fork, i: 10.0 * fork + i
    first = FakeAdapter([FakeBenchmarkSpec("a", values=values), FakeBenchmarkSpec("b", values=values,
                                                                                  interrupt_at=(2, 3))])
    plan = plan_run([_suite(tmp_path)], adapter_factory=lambda kind: first)
    with pytest.raises(RunInterrupted) as info:
        Runner(store).run(plan, _meta())
    run_id = info.value.run_id
    interrupted = store.load_run(run_id)
    assert interrupted.status is RunStatus.INTERRUPTED
    a, b = interrupted.results
    assert len(a.forks) == 3
    assert [(f.index, f.status) for f in b.forks] == [(1, ForkStatus.COMPLETE), (2, ForkStatus.FAILED)]
    assert b.forks[1].message == "interrupted" and len(b.forks[1].warmup) == 2  # the partial fork's data is kept

    second = FakeAdapter([FakeBenchmarkSpec("a", values=values), FakeBenchmarkSpec("b", values=values)])
    plan2 = plan_run([_suite(tmp_path)], adapter_factory=lambda kind: second)
    outcome = Runner(store).run(plan2, resume_run_id=run_id)
    assert outcome.status is RunStatus.COMPLETE
    assert second.forks_started == [("b", 2), ("b", 3)]  # a untouched, b's fork 1 reused, fork 2 redone
    final = store.load_run(run_id)
    b_final = final.results[1]
    assert [(f.index, f.status) for f in b_final.forks] == [(i, ForkStatus.COMPLETE) for i in (1, 2, 3)]
    assert b_final.forks[0].measurement_ns == b.forks[0].measurement_ns


def test_bounds_validation():
    with pytest.raises(ValueError):
        Bounds(warmup_min=3, warmup_max=2, iterations=1, forks_min=1, forks_max=1)
    with pytest.raises(ValueError):
        Bounds(warmup_min=0, warmup_max=0, iterations=0, forks_min=1, forks_max=1)
    with pytest.raises(ValueError):
        Bounds(warmup_min=0, warmup_max=0, iterations=1, forks_min=0, forks_max=1)


def test_fork_overhead_is_learned_per_kind_for_the_eta(tmp_path):
    from benchwarden.model import Benchmark, BenchmarkId, BenchmarkResult, ForkResult, IterationResult
    from benchwarden.runner.engine import ForkOverhead, PlannedBenchmark

    suite = _suite(tmp_path)  # iteration time from _suite
    planned = PlannedBenchmark(suite, None, Benchmark(BenchmarkId("s", "a"), "avgt", "ns/op"))  # type: ignore[arg-type]
    t = suite.settings.iteration_time_s
    it = IterationResult(value_ns=1.0, raw_value=1.0)
    forks = tuple(ForkResult(index=k, status=ForkStatus.COMPLETE, warmup=(it,) * 3, measurement=(it,) * 4,
                             started_at=100.0, finished_at=100.0 + 7 * t + extra)
                  for k, extra in ((1, 0.8), (2, 1.2)))
    overhead = ForkOverhead()
    assert overhead.per_fork_s(planned) == 0.0  # nothing learned yet
    overhead.add(planned, BenchmarkResult(planned.benchmark, forks))
    assert overhead.per_fork_s(planned) == pytest.approx(1.0)  # start-up beyond 7 iterations, mean of 0.8 and 1.2
