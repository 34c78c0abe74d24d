"""A seeded synthetic store for the site: benchmarks × commits on one machine, a parameter family, a hostile name,
a step at a known commit, and one comparison session with a regression.  Used by the site's unit tests and by
benchmarks/site_build.py (100 benchmarks × 50 runs)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from benchwarden.compare.settings import CompareSettings
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
from benchwarden.store.commits import CommitInfo

HOSTILE = '</script><script>alert("x")</script> & \'q\' <b>bold</b>'
TAG = "<i>it</i>&amp;"  # a parameter value with markup: plotly.js would draw <i> as italics if it were not escaped
MACHINE = {"name": "site-machine", "cpu": "Test CPU", "cores": "2", "hostname": "h"}
STEP_AT = 0.6  # the stepped benchmarks are 25 % slower from this fraction of the commits on


@dataclass(frozen=True)
class SyntheticStore:
    path: str
    shas: list[str]
    benchmarks: list[Benchmark]
    stepped: list[str]  # suite:key of the benchmarks with a step
    step_commit: int


def benchmarks(n: int) -> list[Benchmark]:
    """``n`` benchmarks: a family of 6 with two parameters (size: 10/100/1000, mode: fast/slow), two with the
    hostile name (size 1 and 2, and a parameter whose value is markup), one in throughput (ops/s), the rest plain."""
    out = [Benchmark(BenchmarkId("wordstat", "Parse.parse", (("size", size), ("mode", mode))), mode="avgt",
                     unit="us/op") for size in ("10", "100", "1000") for mode in ("fast", "slow")]
    out += [Benchmark(BenchmarkId("evil", HOSTILE, (("size", size), ("tag", TAG))), mode="go", unit="ns/op")
            for size in ("1", "2")]
    out.append(Benchmark(BenchmarkId("wordstat", "Count.throughput"), mode="thrpt", unit="ops/s"))
    out += [Benchmark(BenchmarkId("bulk", f"Bench{i:03d}"), mode="go", unit="ns/op") for i in range(n - len(out))]
    return out[:n]


def _level(b: Benchmark, i: int) -> float:
    params = dict(b.id.params)
    if "mode" in params:
        return 1000.0 * float(params["size"]) * (3.0 if params["mode"] == "slow" else 1.0)
    return 1000.0 + 37.0 * i


def _fork(rng: np.random.Generator, index: int, level_ns: float, unit: str, iterations: int) -> ForkResult:
    values = level_ns * np.exp(rng.normal(0, 0.01) + rng.normal(0, 0.004, iterations + 2))
    from benchwarden.units import from_ns_per_op

    its = [IterationResult(value_ns=float(v), raw_value=from_ns_per_op(float(v), unit)) for v in values]
    return ForkResult(index=index, status=ForkStatus.COMPLETE, warmup=tuple(its[:2]),
                      measurement=tuple(its[2:]), started_at=1.0, finished_at=2.0)


def make_store(path: str, n_benchmarks: int = 10, commits: int = 12, forks: int = 3, iterations: int = 5,
               seed: int = 0, comparison: bool = True) -> SyntheticStore:
    """Write the store at ``path`` (a SQLite file): ``commits`` runs, one per commit, with commits' places recorded
    (generation i + 1), so no git repository is needed; every third benchmark (and the family's first) is 25 %
    slower from commit ``STEP_AT·commits`` on."""
    rng = np.random.default_rng(seed)
    bench = benchmarks(n_benchmarks)
    stepped = {str(b.id) for i, b in enumerate(bench) if i % 3 == 0}
    shas = [hashlib.sha1(f"commit {i}".encode()).hexdigest() for i in range(commits)]
    step = int(STEP_AT * commits)
    with open_store(path) as store:
        store.record_commits([CommitInfo(sha, i + 1, 1_700_000_000.0 + 60 * i, (shas[i - 1],) if i else (),
                                         f"commit {i}" + (" <slow> & 'quoted'" if i == step else ""))
                              for i, sha in enumerate(shas)])
        for i, sha in enumerate(shas):
            results = tuple(BenchmarkResult(b, tuple(
                _fork(rng, k, _level(b, j) * (1.25 if str(b.id) in stepped and i >= step else 1.0), b.unit,
                      iterations) for k in range(1, forks + 1))) for j, b in enumerate(bench))
            meta = RunMeta(created_at=1_700_000_000.0 + 3600 * i, tool_version="0.1.0", commit=sha, dirty=False,
                           machine=MACHINE, toolchain={}, config={}, label=f"nightly {i}")
            store.import_run(RunData(meta=meta, results=results, status=RunStatus.COMPLETE))
        if comparison:
            design = CompareSettings().design().to_dict()
            chosen = bench[:3]
            for role, factor in (("base", 1.0), ("candidate", 1.3)):
                config = {"compare": {"session": "s-1", "role": role, "round": "main", "label": role,
                                      "settings": {}, "design": design}}
                results = tuple(BenchmarkResult(b, tuple(
                    _fork(rng, k, _level(b, j) * (factor if j == 0 else 1.0), b.unit, iterations)
                    for k in range(1, 9))) for j, b in enumerate(chosen))
                meta = RunMeta(created_at=1_800_000_000.0, tool_version="0.1.0", commit=None, dirty=None,
                               machine=MACHINE, toolchain={}, config=config, label=f"compare {role}: {role}")
                store.import_run(RunData(meta=meta, results=results, status=RunStatus.COMPLETE))
    return SyntheticStore(path, shas, bench, sorted(stepped), step)
