"""The runner's side of forks on a cluster, through the fake adapter and a real store: lost forks are kept and
run again, each fork records where it ran, and concurrent benchmarks give what one-at-a-time gives."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import pytest

from benchwarden.adapters.base import SuiteContext
from benchwarden.config import RunSettings, Suite
from benchwarden.model import BenchmarkStatus, ForkStatus, RunMeta, RunStatus
from benchwarden.runner.engine import MAX_LOST_FORKS, RunInterrupted, Runner, plan_run
from benchwarden.runner.progress import RecordingListener
from benchwarden.store import open_store
from tests.support.fake_adapter import FakeAdapter, FakeBenchmarkSpec


def _suite(tmp_path: Path) -> Suite:
    settings = RunSettings(iteration_time_s=0.01, warmup_min=2, warmup_max=2, iterations=3, forks_min=3, forks_max=3,
                           stop="static")
    return Suite(SuiteContext(name="s", kind="fake", root=tmp_path), settings)


def _meta() -> RunMeta:
    return RunMeta(created_at=0.0, tool_version="test")


@pytest.fixture
def store(tmp_path):
    s = open_store(tmp_path / "results.db")
    yield s
    s.close()


def _run(tmp_path, store, specs, **runner):
    adapter = FakeAdapter(specs)
    plan = plan_run([_suite(tmp_path)], adapter_factory=lambda kind: adapter)
    return Runner(store, RecordingListener(), **runner).run(plan, _meta())


def test_a_lost_fork_is_kept_with_its_iterations_and_run_again_under_the_next_index(tmp_path, store):
    values = lambda fork, i: 100.0 * fork + i
    outcome = _run(tmp_path, store, [FakeBenchmarkSpec("a", values=values, lose_at=(2, 4))])
    assert outcome.status is RunStatus.COMPLETE
    (result,) = outcome.results
    assert result.status is BenchmarkStatus.OK
    assert [(f.index, f.status) for f in result.forks] == [
        (1, ForkStatus.COMPLETE), (2, ForkStatus.LOST), (3, ForkStatus.COMPLETE), (4, ForkStatus.COMPLETE)]
    lost = result.forks[1]
    assert [it.value_ns for it in lost.warmup] == [201.0, 202.0] and [it.value_ns for it in lost.measurement] == [203.0]
    assert "worker w1 left the cluster" in (lost.message or "")
    assert len(result.fork_decisions) == 3  # one checkpoint per complete fork; a lost fork decides nothing
    assert store.load_run(outcome.run_id).results[0].forks == result.forks


def test_a_benchmark_that_keeps_losing_its_forks_fails(tmp_path, store):
    spec = FakeBenchmarkSpec("a", lose_at=(1, 1))
    adapter = FakeAdapter([spec])

    class Losing(FakeAdapter):  # every fork from the first on is lost
        def start_fork(self, ctx, benchmark, plan):
            return super().start_fork(ctx, benchmark, replace(plan, fork_index=1))

    losing = Losing(adapter.specs)
    plan = plan_run([_suite(tmp_path)], adapter_factory=lambda kind: losing)
    outcome = Runner(store, RecordingListener()).run(plan, _meta())
    (result,) = outcome.results
    assert result.status is BenchmarkStatus.FAILED and outcome.status is RunStatus.FAILED
    assert [f.status for f in result.forks] == [ForkStatus.LOST] * (MAX_LOST_FORKS + 1)
    assert f"{MAX_LOST_FORKS + 1} forks of this benchmark lost" in (result.message or "")


def test_each_fork_records_the_machine_it_says_it_ran_on(tmp_path, store):
    worker = {"worker": "tcp://10.0.0.1:4000", "name": "w1", "host": "node1", "machine_key": "hw-1"}
    outcome = _run(tmp_path, store, [FakeBenchmarkSpec("remote", machine=worker), FakeBenchmarkSpec("local")])
    remote, local = store.load_run(outcome.run_id).results
    assert all(f.machine == worker for f in remote.forks)
    assert all(f.machine == {} for f in local.forks)  # a local fork ran on the run's machine


def test_concurrent_benchmarks_run_at_once_and_store_what_one_at_a_time_stores(tmp_path, store):
    both_running = threading.Barrier(2, timeout=60)  # only passable when the two first forks overlap

    def values(name):
        def value(fork, i):
            if fork == 1 and i == 1:
                both_running.wait()
            return 1000.0 * fork + i + (0.5 if name == "b" else 0.0)
        return value

    specs = [FakeBenchmarkSpec("a", values=values("a")), FakeBenchmarkSpec("b", values=values("b"), lose_at=(1, 3))]
    concurrent = _run(tmp_path, store, specs, concurrency=2)
    both_running = threading.Barrier(1)  # one at a time now: nothing to wait for
    sequential = _run(tmp_path, store, specs)
    assert concurrent.status is sequential.status is RunStatus.COMPLETE
    strip = lambda results: [(r.benchmark.id, r.status, [(f.index, f.status, f.warmup, f.measurement)
                                                         for f in r.forks]) for r in results]
    assert strip(concurrent.results) == strip(sequential.results)
    assert strip(store.load_run(concurrent.run_id).results) == strip(store.load_run(sequential.run_id).results)


def test_an_interrupt_during_concurrent_benchmarks_keeps_every_fork_and_marks_the_run(tmp_path, store):
    interrupted = []
    specs = [FakeBenchmarkSpec("a"), FakeBenchmarkSpec("b", interrupt_at=(2, 2))]
    with pytest.raises(RunInterrupted) as info:
        _run(tmp_path, store, specs, concurrency=2, on_interrupt=lambda: interrupted.append(True))
    assert interrupted == [True]  # the cluster's forks are told to end
    stored = store.load_run(info.value.run_id)
    assert stored.status is RunStatus.INTERRUPTED
    b = next(r for r in stored.results if r.benchmark.id.name == "b")
    assert [f.status for f in b.forks] == [ForkStatus.COMPLETE, ForkStatus.FAILED]  # fork 2 kept as interrupted
    assert b.forks[1].message == "interrupted"


def test_resume_after_a_lost_fork_continues_after_it(tmp_path, store):
    spec = FakeBenchmarkSpec("a", lose_at=(1, 2), interrupt_at=(3, 1))
    adapter = FakeAdapter([spec])
    plan = plan_run([_suite(tmp_path)], adapter_factory=lambda kind: adapter)
    with pytest.raises(RunInterrupted) as info:
        Runner(store, RecordingListener()).run(plan, _meta())
    spec.interrupt_at = None
    outcome = Runner(store, RecordingListener()).run(plan, resume_run_id=info.value.run_id)
    forks = store.load_run(outcome.run_id).results[0].forks
    assert [(f.index, f.status) for f in forks] == [
        (1, ForkStatus.LOST), (2, ForkStatus.COMPLETE), (3, ForkStatus.COMPLETE), (4, ForkStatus.COMPLETE)]
