"""compare with forks on a cluster, through the in-process adapter: pairs of a round at once, each pair in one
pair scope (one worker), and a pair broken by a lost worker run again with its forks kept out of the analysis."""

from __future__ import annotations

import contextlib
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from benchwarden.adapters.base import SuiteContext
from benchwarden.compare.session import SessionOptions, run_comparison
from benchwarden.compare.settings import CompareSettings
from benchwarden.compare.sources import Side, Sources, with_variants
from benchwarden.compare.verdict import Verdict
from benchwarden.config import RunSettings, Suite
from benchwarden.errors import ForkFailed
from benchwarden.model import ForkStatus
from benchwarden.store import open_store
from tests.unit.compare.fake_versions import VersionedAdapter, VersionedFork


@pytest.fixture
def store(tmp_path):
    s = open_store(tmp_path / "results.db")
    yield s
    s.close()


def _sources(tmp_path: Path, factor: str) -> Sources:
    suite = Suite(SuiteContext("s", "fake", tmp_path),
                  RunSettings(iteration_time_s=0.01, warmup_min=1, warmup_max=2, iterations=5))
    base = Side("base", "v", (suite,))
    return with_variants(Sources("revisions", base, replace(base, role="candidate")),
                         candidate_env={"FAKE_FACTOR": factor})


class _Scopes:
    """A pair scope that records which forks ran inside which scope (as the cluster pins them to one worker)."""

    def __init__(self):
        self.local = threading.local()
        self.scopes: list[list[tuple[str, float, int]]] = []
        self.lock = threading.Lock()

    @contextlib.contextmanager
    def __call__(self):
        forks: list = []
        self.local.forks = forks
        yield
        self.local.forks = None
        with self.lock:
            self.scopes.append(forks)


class _ScopedAdapter(VersionedAdapter):
    def __init__(self, scopes: _Scopes, lose: set[tuple[str, float, int]] = frozenset(), **kw):
        super().__init__(**kw)
        self.scopes = scopes
        self.lose = set(lose)
        self.lock = threading.Lock()

    def start_fork(self, ctx, benchmark, plan):
        with self.lock:  # the fake's shared noise generator is not for threads
            fork = super().start_fork(ctx, benchmark, plan)
        started = self.started[-1]
        self.scopes.local.forks.append(started)
        if started in self.lose:
            self.lose.discard(started)  # lost once: the pair's second attempt runs
            return _LosingFork(fork.values, fork.unit)
        return fork


class _LosingFork(VersionedFork):
    def _iterations(self):
        yield from list(super()._iterations())[:2]
        raise ForkFailed("s:steady", "lost", "worker w1 left the cluster mid-fork")


def test_concurrent_pairs_keep_each_pair_in_one_scope_and_still_find_a_slowdown(tmp_path, store):
    scopes = _Scopes()
    adapter = _ScopedAdapter(scopes, names=("steady", "thrpt", "other"))
    options = SessionOptions(settings=CompareSettings(), seed=5)
    comparison = run_comparison(_sources(tmp_path, "1.15"), store, options, adapter_factory=lambda kind: adapter,
                                concurrency=2, pair_scope=scopes)
    assert {r.key: r.verdict for r in comparison.benchmarks} == {
        "steady": Verdict.SLOWER, "thrpt": Verdict.SLOWER, "other": Verdict.SLOWER}
    assert all(len(s) == 2 for s in scopes.scopes)  # a scope holds one pair: the base and the candidate fork
    for forks in scopes.scopes:
        (name_a, factor_a, index_a), (name_b, factor_b, index_b) = forks
        assert name_a == name_b and index_a == index_b and {factor_a, factor_b} == {1.0, 1.15}
    assert len(scopes.scopes) == sum(r.pairs for r in comparison.benchmarks)


@pytest.mark.parametrize("seed", range(4))  # either fork of the broken pair may run first
def test_a_pair_broken_by_a_lost_worker_runs_again_and_its_forks_stay_out_of_the_analysis(tmp_path, store, seed):
    scopes = _Scopes()
    adapter = _ScopedAdapter(scopes, lose={("steady", 1.15, 2)}, names=("steady",))
    options = SessionOptions(settings=CompareSettings(), seed=seed)
    comparison = run_comparison(_sources(tmp_path, "1.15"), store, options, adapter_factory=lambda kind: adapter,
                                concurrency=2, pair_scope=scopes)
    (result,) = comparison.benchmarks
    assert result.verdict is Verdict.SLOWER
    base_run, candidate_run = (store.load_run(comparison.base.run_id), store.load_run(comparison.candidate.run_id))
    max_pairs = CompareSettings().design().max_pairs
    base_first = result.order[1] == "bc"  # pair 2: did the base fork run before the candidate's was lost?
    for run in (base_run, candidate_run):
        forks = run.results[0].forks
        complete = [f.index for f in forks if f.status is ForkStatus.COMPLETE]
        assert complete == list(range(1, result.pairs + 1))  # pair 2 ran again under its own index
        assert all(f.index > max_pairs for f in forks if f.status is ForkStatus.LOST)  # set aside, past the pairs
    (lost_candidate,) = [f for f in candidate_run.results[0].forks if f.status is ForkStatus.LOST]
    assert len(lost_candidate.warmup) + len(lost_candidate.measurement) == 2  # its iterations are kept
    assert "worker w1 left the cluster" in (lost_candidate.message or "")
    lost_base = [f for f in base_run.results[0].forks if f.status is ForkStatus.LOST]
    if base_first:  # the base fork completed, but its partner is gone: it leaves the analysis too
        (fork,) = lost_base
        assert "pair's other fork was lost" in (fork.message or "") and fork.measurement
    else:
        assert lost_base == []
    assert [len(s) for s in scopes.scopes].count(2) == len(scopes.scopes) - (0 if base_first else 1)


def _forks(means, machines, seed):
    import numpy as np

    from benchwarden.model import ForkResult, IterationResult
    rng = np.random.default_rng(seed)
    return [ForkResult(i + 1, ForkStatus.COMPLETE, started_at=0.0, finished_at=1.0,
                       measurement=tuple(IterationResult(value_ns=v, raw_value=v)
                                         for v in mean * np.exp(rng.normal(0, 0.002, 5))),
                       machine={"worker": f"tcp://10.0.0.{1 + ('w1', 'w2').index(m)}:4000", "name": m})
            for i, (mean, m) in enumerate(zip(means, machines))]


def _judged(change_per_machine, machines):
    import numpy as np

    from benchwarden.compare.analysis import compare_forks
    from benchwarden.model import Benchmark, BenchmarkId
    rng = np.random.default_rng(3)
    level = {"w1": 100.0, "w2": 130.0}  # the machines' own levels differ by 30 %: cancelled by the pairing
    base_means = [level[m] * np.exp(rng.normal(0, 0.01)) for m in machines]
    candidate_means = [b * change_per_machine[m] * np.exp(rng.normal(0, 0.01)) for b, m in zip(base_means, machines)]
    return compare_forks(Benchmark(BenchmarkId("s", "b"), mode="avgt", unit="ns/op"), _forks(base_means, machines, 1),
                         _forks(candidate_means, machines, 2), CompareSettings().design(), CompareSettings())


def test_pairs_on_two_machines_report_how_the_change_differs_between_them():
    machines = ["w1", "w2"] * 5
    same = _judged({"w1": 1.10, "w2": 1.10}, machines)
    assert same.verdict is Verdict.SLOWER and same.machines is not None
    assert same.machines.machines == ("w1", "w2") and same.machines.counts == (5, 5)
    assert all(c == pytest.approx(1.10, rel=0.02) for c in same.machines.centers)  # machine levels cancelled
    assert not any("differs between the 2 machines" in w for w in same.warnings)
    split = _judged({"w1": 1.02, "w2": 1.20}, machines)
    assert split.machines.differ(0.01) and split.machines.between > 0.05
    assert any("the change differs between the 2 machines the pairs ran on (w1 ×1.0" in w for w in split.warnings)
    from benchwarden.report.json_export import benchmark_to_dict
    exported = benchmark_to_dict(split)["machines"]
    assert [m["machine"] for m in exported["machines"]] == ["w1", "w2"] and exported["p_value"] < 0.01
    from benchwarden.report.comparison_table import machine_line
    assert machine_line(split).startswith("machines of s:b: w1 ×1.0") and "(5 pairs)" in machine_line(split)


def test_pairs_on_one_machine_have_no_machine_level():
    one = _judged({"w1": 1.10}, ["w1"] * 6)
    assert one.machines is None
    from benchwarden.report.comparison_table import machine_line
    assert machine_line(one) is None
