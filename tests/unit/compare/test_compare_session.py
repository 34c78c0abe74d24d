"""A whole comparison through an in-process adapter and a real SQLite store: verdicts, interleaving,
storage under two runs, re-analysis, failures, interruption, confirmation."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from benchwarden.adapters.base import SuiteContext
from benchwarden.compare.confirm import confirm_regressions
from benchwarden.compare.schedule import CompareInterrupted, CompareListener
from benchwarden.compare.session import SessionOptions, run_comparison
from benchwarden.compare.settings import CompareSettings
from benchwarden.compare.sources import Side, Sources, with_variants
from benchwarden.compare.stored import compare_runs
from benchwarden.compare.verdict import Verdict
from benchwarden.config import RunSettings, Suite
from benchwarden.errors import BenchwardenError
from benchwarden.model import BenchmarkStatus, RunStatus
from benchwarden.store import open_store
from tests.unit.compare.comparison_samples import benchmark
from tests.unit.compare.fake_versions import VersionedAdapter


@pytest.fixture
def store(tmp_path):
    s = open_store(tmp_path / "results.db")
    yield s
    s.close()


def _sources(tmp_path: Path, factor: str | None, name: str = "s") -> Sources:
    suite = Suite(SuiteContext(name, "fake", tmp_path),
                  RunSettings(iteration_time_s=0.01, warmup_min=1, warmup_max=2, iterations=5))
    base = Side("base", "v", (suite,))
    sources = Sources("revisions", base, replace(base, role="candidate"))
    return with_variants(sources, candidate_env={"FAKE_FACTOR": factor} if factor else {"FAKE_FACTOR": "1.0"})


def _slower_sources(tmp_path: Path, kind: str, metric: str = "time") -> Sources:
    """One suite of adapter ``kind`` measured in ``metric``; the candidate 20 % slower."""
    suite = Suite(SuiteContext("s", kind, tmp_path), RunSettings(iteration_time_s=0.01, warmup_min=1, warmup_max=2,
                                                                 iterations=5, metric=metric))
    base = Side("base", "v", (suite,))
    return with_variants(Sources("revisions", base, replace(base, role="candidate")), candidate_env={"FAKE_FACTOR": "1.2"})


def _compare(tmp_path, store, adapter, factor, seed=3, **settings):
    options = SessionOptions(settings=CompareSettings(**settings), seed=seed)
    return run_comparison(_sources(tmp_path, factor), store, options, adapter_factory=lambda kind: adapter)


def test_a_slowdown_is_flagged_for_time_and_throughput_benchmarks(tmp_path, store):
    comparison = _compare(tmp_path, store, VersionedAdapter(names=("steady", "thrpt")), "1.15")
    verdicts = {r.key: r for r in comparison.benchmarks}
    assert verdicts["steady"].verdict is Verdict.SLOWER
    assert verdicts["thrpt"].verdict is Verdict.SLOWER  # fewer ops/s: direction-aware
    assert verdicts["thrpt"].display_change() < 0 < verdicts["steady"].display_change()
    assert verdicts["steady"].ratio == pytest.approx(1.15, rel=0.03)
    assert verdicts["steady"].ci_low > 1.02 and verdicts["steady"].pairs == 4  # settled at the first look
    assert comparison.gate == "regression" and comparison.source == "variants"


def test_an_aa_comparison_reports_no_regression(tmp_path, store):
    adapter = VersionedAdapter(names=("steady", "thrpt"), fork_sigma=0.005, iteration_sigma=0.005)
    comparison = _compare(tmp_path, store, adapter, None)
    assert comparison.gate == "pass"
    assert {r.verdict for r in comparison.benchmarks} == {Verdict.UNCHANGED}


def test_forks_are_interleaved_in_random_order_and_reproducible_by_seed(tmp_path, store):
    adapter = VersionedAdapter(names=("a", "b", "c"), fork_sigma=0.05)
    comparison = _compare(tmp_path, store, adapter, "1.01", seed=11, max_forks=6)
    orders = [o for r in comparison.benchmarks for o in r.order]
    assert {"bc", "cb"} <= set(orders)  # both orders occur
    # each pair runs a base and a candidate fork of the same benchmark back to back
    started = adapter.started
    for first, second in zip(started[::2], started[1::2]):
        assert first[0] == second[0] and first[2] == second[2] and {first[1], second[1]} == {1.0, 1.01}
    again = VersionedAdapter(names=("a", "b", "c"), fork_sigma=0.05)
    _compare(tmp_path, store, again, "1.01", seed=11, max_forks=6)
    assert [s[:3] for s in again.started] == [s[:3] for s in started]
    other = VersionedAdapter(names=("a", "b", "c"), fork_sigma=0.05)
    _compare(tmp_path, store, other, "1.01", seed=12, max_forks=6)
    assert [s[:2] for s in other.started] != [s[:2] for s in started]  # another seed, another order


def test_every_fork_is_stored_under_two_runs_and_reanalysis_agrees(tmp_path, store):
    comparison = _compare(tmp_path, store, VersionedAdapter(names=("steady", "thrpt"), fork_sigma=0.02), "1.04",
                          max_forks=8)
    base = store.load_run(comparison.base.run_id)
    cand = store.load_run(comparison.candidate.run_id)
    assert base.status is cand.status is RunStatus.COMPLETE
    assert base.meta.label.startswith("compare base") and cand.meta.label.startswith("compare candidate")
    assert base.meta.config["compare"]["session"] == cand.meta.config["compare"]["session"]
    for live, stored_base, stored_cand in zip(comparison.benchmarks, base.results, cand.results):
        assert [list(f) for f in live.base_ns] == stored_base.measurement_matrix()
        assert [list(f) for f in live.candidate_ns] == stored_cand.measurement_matrix()
        assert len(stored_base.fork_decisions) == len(live.looks)
        assert stored_base.fork_decisions[-1].stop
    again = compare_runs(base, cand, CompareSettings(max_forks=8))
    for live, later in zip(comparison.benchmarks, again.benchmarks):
        assert (later.verdict, later.ratio, later.ci_low, later.ci_high) == \
            (live.verdict, live.ratio, live.ci_low, live.ci_high)
        assert later.looks == live.looks


def test_a_failing_fork_makes_an_error_and_the_others_go_on(tmp_path, store):
    adapter = VersionedAdapter(names=("crash", "steady"), crash_fork=2)
    comparison = _compare(tmp_path, store, adapter, "1.2")
    crash = next(r for r in comparison.benchmarks if r.key == "crash")
    assert crash.verdict is Verdict.ERROR and "candidate fork 2" in crash.message
    assert next(r for r in comparison.benchmarks if r.key == "steady").verdict is Verdict.SLOWER
    assert comparison.gate == "error"
    stored = store.load_run(comparison.candidate.run_id)
    assert stored.status is RunStatus.FAILED
    assert next(r for r in stored.results if r.benchmark.id.name == "crash").status is BenchmarkStatus.FAILED


def test_interrupt_keeps_the_forks_and_says_how_to_analyse_them(tmp_path, store):
    class Interrupting(CompareListener):
        def look_done(self, key, look, decision):
            raise KeyboardInterrupt

    options = SessionOptions(settings=CompareSettings(), seed=1)
    with pytest.raises(CompareInterrupted) as info:
        run_comparison(_sources(tmp_path, "1.01"), store, options,
                       adapter_factory=lambda kind: VersionedAdapter(names=("steady",)), listener=Interrupting())
    assert "--runs 1 2" in str(info.value)
    for run_id in (1, 2):
        run = store.load_run(run_id)
        assert run.status is RunStatus.INTERRUPTED and len(run.results[0].forks) == 4


def test_simultaneous_pairs_run_both_forks_at_the_same_time(tmp_path, store):
    adapter = VersionedAdapter(names=("steady",), delay_s=0.01)
    comparison = _compare(tmp_path, store, adapter, "1.15", pairing="simultaneous")
    (result,) = comparison.benchmarks
    assert result.verdict is Verdict.SLOWER and set(result.order) == {"b+c"}
    spans = adapter.spans
    assert len(spans) == 2 * result.pairs
    for first, second in zip(spans[::2], spans[1::2]):  # the two forks of each pair overlap in time
        assert max(first[0], second[0]) < min(first[1], second[1])
    for run_id in (1, 2):  # each side's forks are stored under its own run
        run = store.load_run(run_id)
        assert len(run.results[0].forks) == result.pairs
    again = compare_runs(store.load_run(1), store.load_run(2), CompareSettings(pairing="simultaneous"))
    assert again.benchmarks[0].verdict is Verdict.SLOWER and again.benchmarks[0].ratio == result.ratio


def test_a_simultaneous_pair_s_faster_fork_keeps_its_process_busy_until_the_slower_one_has_measured(tmp_path, store):
    # the candidate's iterations take twice as long: without the hold its last iterations would run alone for
    # about half its fork (~7 iterations × 20 ms = 140 ms), on a machine the base had left; with it the two end
    # within about one of the base's iterations (20 ms). The median over the pairs: one descheduled thread on a
    # loaded machine does not decide the test.
    adapter = VersionedAdapter(names=("steady",), delay_s=0.02, delay_scales=True)
    comparison = _compare(tmp_path, store, adapter, "2.0", pairing="simultaneous")
    (result,) = comparison.benchmarks
    assert result.verdict is Verdict.SLOWER and len(adapter.spans) == 2 * result.pairs
    gaps = sorted(abs(a[1] - b[1]) for a, b in zip(adapter.spans[::2], adapter.spans[1::2]))
    assert gaps[len(gaps) // 2] < 0.07, gaps  # both processes ran to the end together
    for run_id in (1, 2):  # the padding iterations are not recorded
        assert all(len(f.measurement) == 5 for f in store.load_run(run_id).results[0].forks)


@pytest.mark.parametrize(("kind", "pairing", "warned"), [("python", "simultaneous", True),
                                                         ("python", "sequential", False), ("go", "simultaneous", False)])
def test_simultaneous_pairs_on_a_python_suite_carry_the_measured_bias_warning(tmp_path, store, kind, pairing, warned):
    comparison = run_comparison(_slower_sources(tmp_path, kind), store, SessionOptions(settings=CompareSettings(pairing=pairing), seed=1),
                                adapter_factory=lambda k: VersionedAdapter(names=("steady",)))
    (result,) = comparison.benchmarks
    assert result.verdict is Verdict.SLOWER
    assert any(w.startswith("simultaneous pairs on a Python suite") for w in result.warnings) is warned
    # compare --runs on the same two runs: the stored session says how its pairs ran, and the warning stays
    (again,) = compare_runs(store.load_run(comparison.base.run_id), store.load_run(comparison.candidate.run_id),
                            CompareSettings()).benchmarks
    assert again.verdict is Verdict.SLOWER
    assert any(w.startswith("simultaneous pairs on a Python suite") for w in again.warnings) is warned


@pytest.mark.parametrize(("kind", "metric", "pairing", "side_by_side"), [
    ("go", "cpu", "auto", True), ("go", "time", "auto", False), ("python", "cpu", "auto", False),
    ("jmh", "time", "auto", False), ("go", "cpu", "sequential", False), ("python", "time", "simultaneous", True)])
def test_auto_pairing_runs_side_by_side_only_where_that_was_measured_best(tmp_path, store, kind, metric, pairing,
                                                                         side_by_side):
    comparison = run_comparison(_slower_sources(tmp_path, kind, metric), store, SessionOptions(settings=CompareSettings(pairing=pairing), seed=1),
                                adapter_factory=lambda k: VersionedAdapter(names=("steady",)))
    (result,) = comparison.benchmarks
    assert result.verdict is Verdict.SLOWER
    assert result.order and set(result.order) <= ({"b+c"} if side_by_side else {"bc", "cb"})


def test_which_fork_of_a_simultaneous_pair_starts_first_is_drawn_per_pair(tmp_path, store):
    adapter = VersionedAdapter(names=("steady",), fork_sigma=0.3, delay_s=0.002)  # noisy: all 12 pairs run
    comparison = _compare(tmp_path, store, adapter, "1.01", pairing="simultaneous", min_forks=12, max_forks=12)
    assert comparison.benchmarks[0].pairs == 12
    first = [adapter.started[i][1] for i in range(0, len(adapter.started), 2)]  # the factor of each pair's first
    assert len(first) == 12 and {1.0, 1.01} <= set(first), first  # sometimes the base, sometimes the candidate


def test_an_interrupt_during_a_simultaneous_pair_stops_both_forks_and_keeps_what_they_measured(tmp_path, store):
    class Interrupting(CompareListener):
        def iteration_done(self, benchmark, fork_index, phase, number, result):
            if fork_index == 5 and number == 3:
                raise KeyboardInterrupt

    options = SessionOptions(settings=CompareSettings(pairing="simultaneous", max_forks=8), seed=1)
    adapter = VersionedAdapter(names=("steady",), fork_sigma=0.3, delay_s=0.002)  # noisy: still going at pair 5
    with pytest.raises(CompareInterrupted):
        run_comparison(_sources(tmp_path, "1.01"), store, options, adapter_factory=lambda kind: adapter,
                       listener=Interrupting())
    fifth = []
    for run_id in (1, 2):
        run = store.load_run(run_id)
        forks = run.results[0].forks
        assert run.status is RunStatus.INTERRUPTED
        assert sorted(f.index for f in forks if f.index != 5 and f.message != "interrupted") == [1, 2, 3, 4]
        [pair_fork] = [f for f in forks if f.index == 5]  # the pair's forks kept, whatever they measured
        fifth.append(pair_fork.message)
    # the side that raised was cut at its 3rd iteration; the other side is stopped too, unless (on a loaded
    # machine) it had already finished its fork, which then stays complete
    assert "interrupted" in fifth and set(fifth) <= {"interrupted", None}, fifth


def test_nothing_to_compare_is_an_error(tmp_path, store):
    adapter = VersionedAdapter(names=("steady",))
    with pytest.raises(BenchwardenError, match="nothing to compare"):
        run_comparison(_sources(tmp_path, "1.1"), store, SessionOptions(cli_filter="no-such"),
                       adapter_factory=lambda kind: adapter)


def test_confirmation_downgrades_an_unconfirmed_regression():
    flagged = benchmark("a", Verdict.SLOWER, 1.1, 1.05, 1.15)
    steady = benchmark("b", Verdict.UNCHANGED, 1.0, 0.99, 1.01)
    asked = []

    def remeasure(names, round_index):
        asked.append((tuple(names), round_index))
        return [benchmark("a", Verdict.INCONCLUSIVE, 1.01, 0.97, 1.05)]

    results, _ = confirm_regressions([flagged, steady], 2, remeasure)
    assert asked == [(("wordstat:a",), 1)]  # only flagged benchmarks, and no second round once cleared
    assert results[0].verdict is Verdict.INCONCLUSIVE and results[0].confirmations == (Verdict.INCONCLUSIVE,)
    assert "not reported as a regression" in results[0].warnings[-1]
    assert results[1] is steady


def test_confirmation_keeps_a_confirmed_regression(tmp_path, store):
    comparison = _compare(tmp_path, store, VersionedAdapter(names=("steady",)), "1.2", confirm=2)
    (result,) = comparison.benchmarks
    assert result.verdict is Verdict.SLOWER and result.confirmations == (Verdict.SLOWER, Verdict.SLOWER)
    labels = [r.label for r in store.list_runs()]
    assert any("[confirm 2]" in label for label in labels) and len(labels) == 6
