"""The campaign end to end through a fake harness and injector: real runner, real SQLite stores, no processes."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from benchwarden.adapters.base import SuiteContext
from benchwarden.assess.campaign import AssessmentFailed, AssessOptions, Campaign
from benchwarden.config import RunSettings, Suite
from benchwarden.errors import ForkFailed
from benchwarden.model import ForkStatus
from benchwarden.runner.placement import Placement
from benchwarden.store import open_store
from tests.support.git import commit_all
from tests.unit.assess.fake_assess import FakeAssessAdapter, FakeInjector


@pytest.fixture(autouse=True)
def _fresh_seeds():
    """The fake harness seeds each fork from a process-wide count: each test starts it afresh, so what a test
    sees does not depend on which tests ran before it."""
    FakeAssessAdapter.forks = 0
    FakeAssessAdapter.started = []
    FakeAssessAdapter.prepared = []
    FakeAssessAdapter.builds = []


def committed_repo(tmp_path: Path) -> Path:
    """A clean git repository with one commit: stored runs of its commit can be reused."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "README").write_text("x")
    commit_all(root)
    return root


def make_suite(root: Path) -> Suite:
    settings = RunSettings(iteration_time_s=0.01, warmup_min=1, warmup_max=1, iterations=8, forks_min=2, forks_max=2)
    return Suite(SuiteContext(name="lib", kind="fake", root=root), settings)


def campaign(tmp_path, suite, injector=None, **options):
    store = open_store(tmp_path / "results.db")
    scratch = open_store(tmp_path / "scratch.db")
    injector = injector or FakeInjector()
    opts = AssessOptions(**{"runs": 3, "slowdown": 1.0, "methods": ("lib:a", "lib:b", "lib:c", "lib:zzz"), **options})
    c = Campaign(suite, store, scratch, tmp_path / "work", opts, placement=Placement(adapter_factory=lambda kind: FakeAssessAdapter()),
                 injector=injector)
    return c, store, scratch, injector


def test_the_study_rule_coverage_unstable_benchmarks_and_only_reaching_benchmarks_run(tmp_path):
    suite = make_suite(tmp_path)
    c, store, scratch, injector = campaign(tmp_path, suite, rule="study")
    result = c.run()
    cov = {m.method: m for m in result.abs.methods}
    assert set(cov["lib:a"].detected_by) == {"fast"}  # noisy reaches it but its noise hides a 50 % slowdown
    assert set(cov["lib:b"].detected_by) == {"solo"}  # fast spends only 10 % in b: change 10 % < v/2
    assert cov["lib:c"].reached_by == ("setup_only",) and not cov["lib:c"].covered  # reached from setup only
    assert "lib:zzz" in cov and cov["lib:zzz"].reached_by == () and not cov["lib:zzz"].covered
    # uncovered methods first
    assert [m.covered for m in result.abs.methods] == sorted(m.covered for m in result.abs.methods)
    assert result.abs.variant("total").score == pytest.approx(50.0)
    assert result.variability.unstable == ("noisy",)
    # lib:zzz reached no benchmark: never slowed; slowed runs went to the scratch store only
    assert "lib:zzz" not in injector.slowed_methods
    assert [r.label for r in sorted(scratch.list_runs(), key=lambda r: r.id)] == ["assess:slowed:1", "assess:slowed:2"]
    assert [r.label for r in store.list_runs()] == ["assess:baseline"] * 3
    # every run's metadata comes from the one collector, toolchain included (it used to be left out here)
    for run_store in (store, scratch):
        for summary in run_store.list_runs():
            meta = run_store.load_run(summary.id).meta
            assert meta.toolchain == {"fake": "1"} and meta.machine.get("cores")
    # benchmark by benchmark: its baseline next to its variants (a: index 1, b: 2, c: 3), only where reached;
    # the baseline first in repetition 1 and last in repetition 2
    first, second = ([(b.benchmark.id.suite, b.benchmark.id.key) for b in scratch.load_run(r.id).results]
                     for r in sorted(scratch.list_runs(), key=lambda r: r.id))
    slowed = "assess~slowed~"
    assert first == [("lib", "fast"), (slowed + "1", "fast"), (slowed + "2", "fast"),
                     ("lib", "solo"), (slowed + "2", "solo"),
                     ("lib", "noisy"), (slowed + "1", "noisy"),
                     ("lib", "setup_only"), (slowed + "3", "setup_only")]
    assert second[:3] == [(slowed + "1", "fast"), (slowed + "2", "fast"), ("lib", "fast")]
    assert result.smoke.benchmarks and set(result.smoke.covered) == {"lib:a", "lib:b"}
    assert result.cost.n_methods == 4 and result.cost.study_s == pytest.approx(2 * 5 * result.cost.full_run_s)
    assert result.cost.injected_s > 0 and result.cost.trace_s > 0


def test_the_compare_rule_asks_about_10_percent_and_measures_each_pair_until_decided(tmp_path):
    """At v = 10 % with compare's threshold at 5 %: fast spends 80 % of its time in a (+8 %) and solo 90 % in b
    (+9 %): detected; fast spends 10 % in b (+1 %): not detected; noisy (+5 % under a 40 % spread): not
    detectable at this budget; setup_only never times c: not detected.  Thresholds: the smallest slowdown
    detected."""
    suite = make_suite(tmp_path)
    c, store, scratch, injector = campaign(tmp_path, suite, slowdown=0.1, max_forks=5, min_change=0.05)
    result = c.run()
    outcome = {(d.method, d.benchmark): d.outcome.value for d in result.detections}
    assert outcome == {("lib:a", "fast"): "detected", ("lib:a", "noisy"): "undecided",
                       ("lib:b", "fast"): "not detected", ("lib:b", "solo"): "detected",
                       ("lib:c", "setup_only"): "not detected"}
    cov = {m.method: m for m in result.abs.methods}
    assert cov["lib:a"].undecided_by == ("noisy",) and cov["lib:c"].threshold is None
    # lib:c, uncovered: no slowdown of it below its one benchmark's MDC can be detected reliably
    setup_only = next(d for d in result.detections if d.benchmark == "setup_only").look
    assert cov["lib:c"].threshold_at_least == pytest.approx(setup_only.mdc) and cov["lib:a"].threshold_at_least is None
    # f = 0.8 and 0.9 with a 1 % spread: a little more than 5 % / f would do
    assert 0.06 < cov["lib:a"].threshold < 0.12 and 0.055 < cov["lib:b"].threshold < 0.11
    by_pair = {(d.method, d.benchmark): d for d in result.detections}
    assert by_pair["lib:a", "fast"].look.ratio == pytest.approx(1.08, abs=0.025)  # 3 standard errors at 2 forks
    # noisy: a 40 % spread needs far more than 5 forks for even a 10 % change: screened out by its baseline
    # forks alone, so neither slowed nor fresh baseline forks of it were run
    noisy = by_pair["lib:a", "noisy"]
    assert noisy.look is None and noisy.warnings[0].startswith("not measured: the baseline forks of noisy")
    # judged against the 3 runs x 2 forks of the variability runs and one fresh baseline fork per round
    fast = by_pair["lib:a", "fast"].look
    assert fast.slowed_forks < 5 and fast.base_forks == 6 + max(d.look.slowed_forks for (_, k), d in by_pair.items()
                                                                 if k == "fast" and d.look)
    # one scratch run holds every slowed fork and the fresh baseline forks: one per benchmark and round
    (slowed_run,) = scratch.list_runs()
    assert slowed_run.label == "assess:slowed"
    results = scratch.load_run(slowed_run.id).results
    slowed_forks = sum(len(r.forks) for r in results if r.benchmark.id.suite != "lib")
    fresh = {r.benchmark.id.key: len(r.forks) for r in results if r.benchmark.id.suite == "lib"}
    assert slowed_forks == sum(d.look.slowed_forks for d in result.detections if d.look)
    assert fresh == {k: max(d.look.slowed_forks for (_, key), d in by_pair.items() if key == k)
                     for k in ("fast", "solo", "setup_only")}
    assert [r.label for r in store.list_runs()] == ["assess:baseline"] * 3
    assert result.cost.extra_baseline_s == 0 and result.cost.injected_s > 0
    assert result.slowdown == 0.1 and result.rule == "compare"


def test_a_fixed_sample_measures_every_pair_to_the_end_and_agrees_on_the_clear_cases(tmp_path):
    """min_forks = max_forks: one look after 4 slowed forks for every pair, the noisy one included (no
    screening: the brute-force reference of benchmarks/assess_agreement.py); the pairs the sequential design
    decided early come out the same."""
    suite = make_suite(tmp_path)
    c, *_ = campaign(tmp_path, suite, slowdown=0.1, min_forks=4, max_forks=4, min_change=0.05)
    result = c.run()
    assert {d.look.slowed_forks for d in result.detections} == {4}
    outcome = {(d.method, d.benchmark): d.outcome.value for d in result.detections}
    assert outcome["lib:a", "fast"] == outcome["lib:b", "solo"] == "detected"
    assert outcome["lib:b", "fast"] == outcome["lib:c", "setup_only"] == "not detected"
    assert outcome["lib:a", "noisy"] == "undecided"  # 4 forks do not decide +5 % under a 40 % spread either


def test_stored_runs_of_the_same_clean_commit_are_reused(tmp_path):
    suite = make_suite(committed_repo(tmp_path))
    first, store, _, _ = campaign(tmp_path, suite, methods=("lib:b",))
    one = first.run()
    assert one.reused_runs == () and len(one.baseline_runs) == 3
    store.close()
    second, store2, _, _ = campaign(tmp_path, suite, methods=("lib:b",))
    two = second.run()
    assert two.reused_runs == one.baseline_runs and two.cost.variability_s == 0.0
    assert len(store2.list_runs()) == 3  # nothing new was run
    store2.close()
    # on a cluster the runs measured here are another machine's: none is reused, the baselines run there
    store3, scratch3 = open_store(tmp_path / "results.db"), open_store(tmp_path / "scratch.db")
    on_cluster = Campaign(suite, store3, scratch3, tmp_path / "work3", AssessOptions(
        runs=3, slowdown=1.0, methods=("lib:b",)), injector=FakeInjector(), placement=Placement(
        adapter_factory=lambda kind: FakeAssessAdapter(), concurrency=2, cluster="tcp://10.0.0.1:8786")).run()
    assert on_cluster.reused_runs == () and len(on_cluster.baseline_runs) == 3
    assert not set(on_cluster.baseline_runs) & set(one.baseline_runs)


def test_baselines_run_as_the_control_of_the_slowed_variants_and_reuse_only_runs_of_that_control(tmp_path):
    """An A/A control: every baseline fork, of the baseline runs and the fresh ones of each round, runs with what
    the slowed forks load (the agent with nothing instrumented), and never slowed; the trace forks run plain. A
    plain stored run of the same commit is not the control's baseline, and the other way round."""
    suite = make_suite(committed_repo(tmp_path))
    plain, store, _, _ = campaign(tmp_path, suite, injector=FakeInjector(control=None), methods=("lib:b",))
    plain_runs = plain.run().baseline_runs
    assert {role for _, role in FakeAssessAdapter.started} == {"trace", "plain", "slowed"}
    store.close()
    FakeAssessAdapter.started = []
    controlled, store2, _, _ = campaign(tmp_path, suite, methods=("lib:b",))
    result = controlled.run()
    assert result.reused_runs == () and len(result.baseline_runs) == 3
    roles = {role for _, role in FakeAssessAdapter.started}
    assert roles == {"trace", "control", "slowed"}, FakeAssessAdapter.started
    first_slowed = [role for _, role in FakeAssessAdapter.started].index("slowed")
    rounds = FakeAssessAdapter.started[first_slowed:]
    # the rounds' fresh baseline forks, between the slowed ones, ran the control too
    assert {role for _, role in rounds} == {"slowed", "control"}, rounds
    for run_id in result.baseline_runs:
        assert store2.load_run(run_id).meta.config["suites"]["lib"]["control"] == "fake control"
    store2.close()
    again, store3, _, _ = campaign(tmp_path, suite, methods=("lib:b",))
    assert again.run().reused_runs == result.baseline_runs  # the same control's runs are reused
    store3.close()
    plain_again, store4, _, _ = campaign(tmp_path, suite, injector=FakeInjector(control=None), methods=("lib:b",))
    assert plain_again.run().reused_runs == plain_runs  # and a plain campaign reuses the plain runs, not the control's
    store4.close()


def test_dirty_or_unknown_commits_are_never_reused(tmp_path):
    suite = make_suite(tmp_path)  # not a git repository: commit unknown
    first, store, _, _ = campaign(tmp_path, suite, methods=("lib:b",))
    first.run()
    store.close()
    second, store2, _, _ = campaign(tmp_path, suite, methods=("lib:b",))
    assert second.run().reused_runs == ()
    assert len(store2.list_runs()) == 6


def test_named_methods_are_reached_through_the_every_method_trace_and_discovery_through_the_public_one(tmp_path):
    """A named method may be package-private hot code (issue #16), which only the every-method trace sees; K′ found
    by tracing is the public API, as the study defines it."""
    named, *_ = campaign(tmp_path / "named", make_suite(tmp_path / "named"), methods=("lib:b",), rule="study")
    named.run()
    discovered, *_ = campaign(tmp_path / "found", make_suite(tmp_path / "found"), methods=(), discover="benchmarks",
                              rule="study", top=2)
    result = discovered.run()
    assert named.injector.traced_every_method == [True] and discovered.injector.traced_every_method == [False]
    assert result.methods_source == "benchmarks" and len(result.methods) == 2


def test_a_suite_whose_every_benchmark_crashes_is_an_error_not_an_empty_assessment(tmp_path):
    """Commons Text's scratch jar lacked a dependency: every fork crashed, and assess reported no detection."""
    suite = make_suite(tmp_path)
    suite = replace(suite, context=replace(suite.context, env={"FAKE_CRASH": "1"}))
    c, *_ = campaign(tmp_path, suite)
    with pytest.raises(AssessmentFailed, match=r"suite 'lib': no benchmark has a result in every baseline run "
                                               r"\(3\).*first failure: .*NoClassDefFoundError"):
        c.run()


def test_an_unknown_method_is_reported_not_silently_uncovered(tmp_path):
    suite = make_suite(tmp_path)
    c, *_ = campaign(tmp_path, suite, methods=("lib:b",))
    # make lib:b look unknown to the injector's report
    injector = c.injector
    original = injector.slowed

    def slowed(suite, methods, factor, workdir, control=None):
        variant = original(suite, methods, factor, workdir, control)
        variant.report.write_text('{"v":1,"event":"error","message":"no function b in module lib"}\n')
        return variant

    injector.slowed = slowed
    result = c.run()
    assert result.abs.methods[0].error and "no function b" in result.abs.methods[0].error
    assert not result.abs.methods[0].covered


def test_methods_no_benchmark_reaches_together_share_one_variant_and_keep_their_own_detections(tmp_path):
    """Group testing: a (fast, noisy) and c (setup_only) are reached by disjoint benchmarks, b (fast, solo) shares
    fast with a. One variant slows a and c, one b; each pair is decided as with one variant per method (the
    outcomes of the compare-rule test above), attributed by reach."""
    suite = make_suite(tmp_path)
    injector = FakeInjector(groups=True)
    c, _, scratch, _ = campaign(tmp_path, suite, injector=injector, slowdown=0.1, max_forks=5, min_change=0.05)
    result = c.run()
    assert injector.variants == [("lib:a", "lib:c"), ("lib:b",)]
    assert result.cost.variants == 2 and result.cost.n_methods == 4
    outcome = {(d.method, d.benchmark): d.outcome.value for d in result.detections}
    assert outcome == {("lib:a", "fast"): "detected", ("lib:a", "noisy"): "undecided",
                       ("lib:b", "fast"): "not detected", ("lib:b", "solo"): "detected",
                       ("lib:c", "setup_only"): "not detected"}
    slowed_suites = {(r.benchmark.id.suite, r.benchmark.id.key) for run in scratch.list_runs()
                     for r in scratch.load_run(run.id).results if r.benchmark.id.suite != "lib"}
    # noisy was screened out (not slowed at all); each other benchmark ran in the variant of the one method it reaches
    assert slowed_suites == {("assess~slowed~1", "fast"), ("assess~slowed~1", "setup_only"),
                             ("assess~slowed~2", "fast"), ("assess~slowed~2", "solo")}


def test_a_switchable_control_is_one_build_that_the_baselines_and_every_variant_run(tmp_path):
    """Go's design (docs/assess.md): K′ is traced first, then one build probes all of it with the slowdowns off;
    the baselines run it, and each variant is it with switches on, so nothing else is built and no variant
    differs from its control in code layout. The outcomes are those of the group-testing test above."""
    suite = make_suite(tmp_path)
    injector = FakeInjector(groups=True, switchable=True)
    c, store, scratch, _ = campaign(tmp_path, suite, injector=injector, slowdown=0.1, max_forks=5, min_change=0.05)
    result = c.run()
    assert injector.control_methods == [("lib:a", "lib:b", "lib:c", "lib:zzz")]  # once, with every method of K′
    assert injector.variants == [("lib:a", "lib:c"), ("lib:b",)]
    assert not [name for name in FakeAssessAdapter.prepared if name.startswith("assess~slowed")]  # built once
    switched = "lib:a,lib:b,lib:c,lib:zzz"
    runs = [(role, build) for (_, role), build in zip(FakeAssessAdapter.started, FakeAssessAdapter.builds)
            if role != "trace"]
    assert runs and all(build == switched for _, build in runs), runs  # baselines and slowed forks: one build
    assert {role for role, _ in runs} == {"control", "slowed"}
    outcome = {(d.method, d.benchmark): d.outcome.value for d in result.detections}
    assert outcome[("lib:a", "fast")] == "detected" and outcome[("lib:b", "solo")] == "detected"
    assert outcome[("lib:b", "fast")] == "not detected" and outcome[("lib:c", "setup_only")] == "not detected"
    for run_id in result.baseline_runs:
        assert store.load_run(run_id).meta.config["suites"]["lib"]["control"] == "switchable 4"


def test_a_switchable_control_that_does_not_build_falls_back_to_the_plain_suite_and_a_build_per_variant(tmp_path):
    suite = make_suite(tmp_path)
    injector = FakeInjector(groups=True, switchable=True, broken_control=True)
    c, store, _, _ = campaign(tmp_path, suite, injector=injector, rule="study")
    result = c.run()
    assert any("control build of 4 probed methods failed" in w and "does not compile" in w for w in result.warnings)
    assert all(build is None for build in FakeAssessAdapter.builds)  # nothing ran the broken build
    assert [name for name in FakeAssessAdapter.prepared if name.startswith("assess~slowed")] == \
        ["assess~slowed~1", "assess~slowed~2"]  # each variant built apart, as before
    assert "control" not in store.load_run(result.baseline_runs[0]).meta.config["suites"]["lib"]
    cov = {m.method: m for m in result.abs.methods}
    assert set(cov["lib:a"].detected_by) == {"fast"} and set(cov["lib:b"].detected_by) == {"solo"}


def test_a_method_the_switchable_build_cannot_probe_loses_only_that_method(tmp_path):
    """The rewriter refuses the whole switchable build for one unknown function: the campaign falls back to plain
    baselines and a variant per group, where that method alone fails, as before the switchable build."""
    suite = make_suite(tmp_path)
    injector = FakeInjector(groups=True, switchable=True, unknown=frozenset({"lib:c"}))
    c, *_ = campaign(tmp_path, suite, injector=injector, rule="study")
    result = c.run()
    assert any("could not be prepared" in w and "lib:c not found" in w for w in result.warnings)
    assert all(build is None for build in FakeAssessAdapter.builds)
    cov = {m.method: m for m in result.abs.methods}
    assert "function lib:c not found" in cov["lib:c"].error and not cov["lib:a"].error
    assert set(cov["lib:a"].detected_by) == {"fast"} and set(cov["lib:b"].detected_by) == {"solo"}


def test_a_group_that_cannot_be_prepared_is_split_and_only_the_failing_method_is_lost(tmp_path):
    suite = make_suite(tmp_path)
    injector = FakeInjector(groups=True, unknown=frozenset({"lib:c"}))
    c, *_ = campaign(tmp_path, suite, injector=injector, rule="study")
    result = c.run()
    assert injector.variants == [("lib:a",), ("lib:b",)]  # (a, c) failed together, then a alone succeeded
    cov = {m.method: m for m in result.abs.methods}
    assert "function lib:c not found" in cov["lib:c"].error and not cov["lib:a"].error
    assert len([w for w in result.warnings if "not found" in w]) == 1  # the group's failure is not a warning
    assert set(cov["lib:a"].detected_by) == {"fast"} and set(cov["lib:b"].detected_by) == {"solo"}


class _Overlapping(FakeAssessAdapter):
    """The fake harness, counting how many forks run at once, overall and with a slowed one among them (each
    fork holds its first iteration for 20 ms)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.active: list[bool] = []  # per running fork: slowed?
        self.most = self.most_with_slowed = 0

    def start_fork(self, ctx, benchmark, plan):
        inner = super().start_fork(ctx, benchmark, plan)
        slowed = bool({**ctx.env, **plan.env}.get("FAKE_SLOW"))
        outer = self

        class Fork:
            def __iter__(self):
                with outer.lock:
                    outer.active.append(slowed)
                    outer.most = max(outer.most, len(outer.active))
                    if any(outer.active):
                        outer.most_with_slowed = max(outer.most_with_slowed, len(outer.active))
                try:
                    for i, iteration in enumerate(inner):
                        if i == 0:
                            time.sleep(0.02)
                        yield iteration
                finally:
                    with outer.lock:
                        outer.active.remove(slowed)

            def stop(self):
                inner.stop()

            def output_tail(self):
                return inner.output_tail()

        return Fork()


def test_on_a_cluster_a_rounds_forks_run_at_once_and_reach_the_same_decisions(tmp_path):
    """With a placement of two fork slots (a cluster's), the baseline runs and each round's slowed and fresh
    baseline forks run two at a time; every fork is still stored and every pair decided as one at a time would."""
    suite = make_suite(tmp_path)
    harness = _Overlapping()
    store, scratch = open_store(tmp_path / "results.db"), open_store(tmp_path / "scratch.db")
    opts = AssessOptions(runs=3, slowdown=0.1, max_forks=5, min_change=0.05,
                         methods=("lib:a", "lib:b", "lib:c", "lib:zzz"))
    placement = Placement(adapter_factory=lambda kind: harness, concurrency=2, cluster="tcp://10.0.0.1:8786")
    result = Campaign(suite, store, scratch, tmp_path / "work", opts, placement=placement,
                      injector=FakeInjector()).run()
    assert harness.most == 2 and harness.most_with_slowed == 2  # the baseline runs, and the slowed rounds
    outcome = {(d.method, d.benchmark): d.outcome.value for d in result.detections}
    assert outcome == {("lib:a", "fast"): "detected", ("lib:a", "noisy"): "undecided",
                       ("lib:b", "fast"): "not detected", ("lib:b", "solo"): "detected",
                       ("lib:c", "setup_only"): "not detected"}  # as in the one-at-a-time test above
    (slowed_run,) = scratch.list_runs()
    results = scratch.load_run(slowed_run.id).results
    assert sum(len(r.forks) for r in results if r.benchmark.id.suite != "lib") == \
        sum(d.look.slowed_forks for d in result.detections if d.look)
    # the runs are the cluster's, not this machine's
    runs = [store.load_run(r.id) for r in store.list_runs()] + [scratch.load_run(slowed_run.id)]
    assert {r.meta.machine["name"] for r in runs} == {"cluster tcp://10.0.0.1:8786"}
    assert {r.meta.config["cluster"] for r in runs} == {"tcp://10.0.0.1:8786"}


class _LosesSlowedForks(FakeAssessAdapter):
    """The fake harness on a cluster whose worker dies under the first two slowed forks, after one iteration."""

    def __init__(self):
        self.to_lose = 2

    def start_fork(self, ctx, benchmark, plan):
        inner = super().start_fork(ctx, benchmark, plan)
        if not {**ctx.env, **plan.env}.get("FAKE_SLOW") or self.to_lose == 0:
            return inner
        self.to_lose -= 1

        class Fork:
            def __iter__(self):
                yield next(iter(inner))
                raise ForkFailed(str(benchmark.id), "lost", "worker w1 left the cluster mid-fork")

            def stop(self):
                pass

            def output_tail(self):
                return ""

        return Fork()


def test_a_slowed_fork_whose_worker_died_is_kept_as_lost_and_run_again(tmp_path):
    suite = make_suite(tmp_path)
    harness = _LosesSlowedForks()
    store, scratch = open_store(tmp_path / "results.db"), open_store(tmp_path / "scratch.db")
    opts = AssessOptions(runs=3, slowdown=0.1, max_forks=5, min_change=0.05,
                         methods=("lib:a", "lib:b", "lib:c", "lib:zzz"))
    result = Campaign(suite, store, scratch, tmp_path / "work", opts,
                      placement=Placement(adapter_factory=lambda kind: harness), injector=FakeInjector()).run()
    assert harness.to_lose == 0
    outcome = {(d.method, d.benchmark): d.outcome.value for d in result.detections}
    assert outcome == {("lib:a", "fast"): "detected", ("lib:a", "noisy"): "undecided",
                       ("lib:b", "fast"): "not detected", ("lib:b", "solo"): "detected",
                       ("lib:c", "setup_only"): "not detected"}  # as if no worker had died
    assert not any("failed" in w for w in result.warnings), result.warnings
    (slowed_run,) = scratch.list_runs()
    forks = [f for r in scratch.load_run(slowed_run.id).results for f in r.forks]
    lost = [f for f in forks if f.status is ForkStatus.LOST]
    assert len(lost) == 2 and all(len(f.warmup) + len(f.measurement) == 1 for f in lost)  # kept, with its iteration
    # each benchmark's forks have distinct indices: the fork run again took the next one
    for r in scratch.load_run(slowed_run.id).results:
        assert len({f.index for f in r.forks}) == len(r.forks)
    slowed_complete = sum(1 for r in scratch.load_run(slowed_run.id).results if r.benchmark.id.suite != "lib"
                          for f in r.forks if f.status is ForkStatus.COMPLETE)
    assert slowed_complete == sum(d.look.slowed_forks for d in result.detections if d.look)
