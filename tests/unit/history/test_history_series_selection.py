"""Which measurements a series holds: `history --metric NAME` (a secondary metric's own series, allocations per
operation here, its change points worded worse/better, benchmarks without a log-scale series said so), and the
runs of compare variants, which name a commit but measured something else, left out."""

from __future__ import annotations

import json

import numpy as np

from benchwarden.model import (
    Benchmark,
    BenchmarkId,
    BenchmarkResult,
    ForkResult,
    ForkStatus,
    IterationResult,
    RunData,
    RunMeta,
    RunStatus,
)
from benchwarden.store import open_store
from tests.unit.history.test_history_cli import MACHINE_A, cli, repo  # noqa: F401 (fixture)

PARSE = Benchmark(BenchmarkId("suite", "parse"), mode="go", unit="ns/op")
NOALLOC = Benchmark(BenchmarkId("suite", "sum"), mode="go", unit="ns/op")


def fork(rng, index: int, ns: float, allocs: float) -> ForkResult:
    values = ns * np.exp(rng.normal(0, 0.02) + rng.normal(0, 0.005, 4))
    return ForkResult(index=index, status=ForkStatus.COMPLETE, warmup=(), started_at=0.0, finished_at=1.0,
                      measurement=tuple(IterationResult(value_ns=float(v), raw_value=float(v),
                                                        secondary={"allocs/op": allocs, "B/op": 16 * allocs})
                                        for v in values))


def run(commit: str, i: int, allocs: float, ns: float = 1000.0, config: dict | None = None) -> RunData:
    rng = np.random.default_rng(i)
    meta = RunMeta(created_at=1_700_000_000 + i, tool_version="0.1.0", commit=commit, dirty=False,
                   machine=MACHINE_A, toolchain={"go": "go1.26"}, config=config or {})
    results = (BenchmarkResult(PARSE, tuple(fork(rng, k, ns, allocs) for k in (1, 2, 3))),
               BenchmarkResult(NOALLOC, tuple(fork(rng, k, 50.0, 0.0) for k in (1, 2, 3))))
    return RunData(meta=meta, results=results, status=RunStatus.COMPLETE)


def test_an_allocation_step_is_a_change_point_of_the_allocs_series_not_of_time(tmp_path, repo):  # noqa: F811
    root, shas = repo
    store = str(tmp_path / "results.db")
    with open_store(store) as s:
        for i in range(24):
            s.import_run(run(shas[i], i, 10.0 if i < 14 else 11.0))  # one more allocation from commit 14 on
    code, out, err = cli("history", "--store", store, "--repo", str(root), "--metric", "allocs", "--json")
    assert code == 0, err
    doc = json.loads(out)
    [series] = doc["series"]
    assert (series["benchmark"], series["metric"], series["unit"]) == ("suite:parse", "allocs", "allocs/op")
    [change] = series["change_points"]
    assert (change["before"], change["after"]) == (shas[13], shas[14]) and abs(change["ratio"] - 1.1) < 1e-6
    assert any("suite:sum: allocs is 0 in some fork" in n for n in doc["notes"])
    code, out, err = cli("history", "--store", store, "--repo", str(root), "--metric", "allocs")
    assert code == 0, err
    assert f"{shas[13][:8]}..{shas[14][:8]}" in out and "worse" in out and "allocs/op" in out
    code, out, err = cli("history", "--store", store, "--repo", str(root), "--json")  # time: no step there
    assert code == 0 and all(s["change_points"] == [] for s in json.loads(out)["series"])


def test_an_unknown_or_unjudged_metric_and_confirm_with_a_metric_are_usage_errors(tmp_path, repo):  # noqa: F811
    root, _ = repo
    store = str(tmp_path / "results.db")
    for args, message in ((["--metric", "speed"], "--metric speed: not a secondary metric"),
                          (["--metric", "gc.count"], "--metric gc.count: not a secondary metric"),
                          (["--metric", "allocs", "--confirm"], "--confirm re-measures change points of the "
                                                               "primary metric")):
        code, out, err = cli("history", "--store", store, "--repo", str(root), *args)
        assert code == 2 and message in err and "Traceback" not in err, err


def test_runs_of_compare_variants_and_artifacts_are_left_out_and_revision_sides_count(tmp_path, repo):  # noqa: F811
    root, shas = repo
    store = str(tmp_path / "results.db")

    def side(description: dict) -> dict:
        return {"compare": {"session": "s", "role": "candidate", "side": description}}

    with open_store(store) as s:
        for i in range(12):
            s.import_run(run(shas[i], i, 10.0))
        for i in range(6, 12):  # `compare --variant-env WORDSTAT_SLOW=1`: the commit's code, twice as slow
            s.import_run(run(shas[i], 100 + i, 10.0, ns=2000.0, config=side(
                {"kind": "revision", "commit": shas[i], "variant": {"env": {"WORDSTAT_SLOW": "1"}, "jvm_args": []}})))
        s.import_run(run(shas[11], 200, 10.0, ns=3000.0, config=side({"kind": "artifact", "path": "/tmp/x.test"})))
        s.import_run(run(shas[11], 300, 10.0, config=side({"kind": "revision", "commit": shas[11]})))  # bisect's
    code, out, err = cli("history", "suite:parse", "--store", store, "--repo", str(root), "--json")
    assert code == 0, err
    [series] = json.loads(out)["series"]
    assert series["change_points"] == [] and series["commits"] == 12
    assert [p["runs"] for p in series["points"]][-1] == [12, 20]  # the commit's own run and bisect's
    assert "7 run(s) of compare variants or artifacts left out" in " ".join(series["notes"])
