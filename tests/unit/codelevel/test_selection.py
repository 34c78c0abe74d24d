"""The selection rule: a benchmark is affected when either revision's trace of it called a changed method, and
every benchmark is when a change is not attributable (it errs towards measuring, never towards skipping)."""

from __future__ import annotations

from benchwarden.assess.reach import ReachMap
from benchwarden.codelevel.affected import SHOWN_REASONS, select
from benchwarden.codelevel.changes import ChangeSet, MethodChange, OtherChange

KEYS = ["A", "B", "C"]


def changes(*methods: str, other: tuple[OtherChange, ...] = ()) -> ChangeSet:
    return ChangeSet("base", "cand", tuple(MethodChange(m, "f", 1, "changed") for m in methods), other, ())


def by_key(selections):
    return {s.key: s for s in selections}


def test_only_benchmarks_that_call_a_changed_method_are_affected():
    base = ReachMap({"A": {"p.C#f(int)": 3, "p.C#g()": 1}, "B": {"p.C#g()": 2}, "C": {"p.C#f(int)": 0}}, 1.0)
    got = by_key(select(KEYS, {"base": base, "candidate": base}, changes("p.C#f")))
    assert got["A"].affected and got["A"].reasons == ("calls p.C#f (changed)",)  # parameter lists dropped
    assert not got["B"].affected and got["B"].reasons == ("calls none of the 1 changed method",)
    assert not got["C"].affected  # listed with 0 calls: never called


def test_a_call_in_either_revision_counts():
    base = ReachMap({"A": {}, "B": {}, "C": {}}, 1.0)
    cand = ReachMap({"A": {}, "B": {"m:new": 1}, "C": {}}, 1.0)
    got = by_key(select(KEYS, {"base": base, "candidate": cand}, changes("m:new")))
    assert [k for k, s in got.items() if s.affected] == ["B"]


def test_a_failed_or_missing_trace_makes_a_benchmark_affected():
    base = ReachMap({"A": {}}, 1.0, failed={"B": "fork exited with 1\nmore"})
    got = by_key(select(KEYS, {"base": base}, changes("m:f")))
    assert not got["A"].affected
    assert got["B"].affected and got["B"].reasons == ("its trace at base failed: fork exited with 1",)
    assert got["C"].affected and "not traced at base" in got["C"].reasons[0]


def test_a_change_no_method_accounts_for_affects_every_benchmark():
    other = tuple(OtherChange(f"f{i}", "changed outside any method") for i in range(SHOWN_REASONS + 2))
    selections = select(KEYS, {}, changes("m:f", other=other))
    assert all(s.affected for s in selections)
    assert selections[0].reasons[-1] == "and 2 more" and len(selections[0].reasons) == SHOWN_REASONS + 1


def test_without_qualified_names_any_code_of_the_module_counts_for_its_changed_methods():
    reach = ReachMap({"A": {"pkg.mod:?": 5}, "B": {"pkg.other:?": 1}, "C": {}}, 1.0)  # Python < 3.11
    got = by_key(select(KEYS, {"base": reach}, changes("pkg.mod:C.m", "pkg.modx:f")))
    assert got["A"].affected and got["A"].reasons == ("calls pkg.mod:C.m (changed)",)
    assert not got["B"].affected and not got["C"].affected


def test_nothing_changed_affects_nothing():
    assert [s.reasons for s in select(KEYS, {}, changes())] == [("no code changed",)] * 3


def test_go_test_files_drop_test_functions_and_fold_the_rest_into_the_skeleton():
    from benchwarden.codelevel.readers import test_file_units
    from benchwarden.codelevel.units import Method, SourceUnits

    def units(**fingerprints: str) -> SourceUnits:
        return test_file_units(SourceUnits({f"p.{k}": Method(1, v) for k, v in fingerprints.items()}, "skel"))

    base = units(TestA="1", ExampleB="1", FuzzC="1", Test="1", BenchmarkX="1", helper="1", TestMain="1")
    assert base.methods == {}
    assert units(TestA="2", ExampleB="2", FuzzC="2", Test="2", BenchmarkX="1", helper="1", TestMain="1") == base
    for changed in ("BenchmarkX", "helper", "TestMain"):
        edited = dict(TestA="1", ExampleB="1", FuzzC="1", Test="1", BenchmarkX="1", helper="1", TestMain="1")
        edited[changed] = "2"
        assert units(**edited).skeleton != base.skeleton, changed
    assert units(Testify="1").skeleton != units(Testify="2").skeleton  # not a test function: Test + lower case
    # tests as workloads (gounit): a test function's change is not dropped
    assert test_file_units(SourceUnits({"p.TestA": Method(1, "1")}, "s"), drop_tests=False).skeleton != \
        test_file_units(SourceUnits({"p.TestA": Method(1, "2")}, "s"), drop_tests=False).skeleton


def test_a_cached_trace_reads_back_and_a_damaged_one_is_ignored(tmp_path):
    from benchwarden.codelevel.selector import read_cached_reach, trace_cache_path, write_cached_reach

    path = trace_cache_path(tmp_path, "go", ["all"], ["B", "A"])
    assert path == trace_cache_path(tmp_path, "go", ["all"], ["A", "B"])  # order does not matter
    assert path != trace_cache_path(tmp_path, "go", ["all"], ["A"])  # other benchmarks: another trace
    assert read_cached_reach(path) is None
    write_cached_reach(path, ReachMap({"A": {"p.F": 3}}, 1.5))
    assert read_cached_reach(path) == ReachMap({"A": {"p.F": 3}}, 1.5)
    path.write_text('{"calls": {"A": {"p.F": "many"}}}')
    assert read_cached_reach(path) is None
