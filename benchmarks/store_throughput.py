"""Store throughput: saving one fork and loading a large run, against plain sqlite3 doing the same work.

Goals (docs/store.md, "Performance"): ``save_fork`` of a 60-iteration fork in a few ms on SQLite; ``load_run`` of
100 benchmarks x 5 forks x 60 iterations well under a second.  The reference is the standard-library ``sqlite3``
module doing the same inserts (one transaction, same pragmas, same rows) and the same selects (rows only, no
objects built), measured in the same run on the same disk: the floor for any SQLite-backed store.  Ratios above
1 are the cost of SQLAlchemy plus building the model objects.

Usage: ``python benchmarks/store_throughput.py [--dir DIR] [--saves N] [--loads N]``
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from benchwarden.model import (
    Benchmark,
    BenchmarkId,
    BenchmarkResult,
    BenchmarkStatus,
    ForkResult,
    ForkStatus,
    IterationResult,
    RunData,
    RunMeta,
    RunStatus,
    StopDecision,
)
from benchwarden.store import open_store

WARMUP, MEASUREMENT = 10, 50  # 60 iterations per fork
N_BENCHMARKS, N_FORKS = 100, 5


def make_fork(rng: random.Random, index: int) -> ForkResult:
    def it(i: int) -> IterationResult:
        value = 1000.0 * (1 + rng.random())
        return IterationResult(value, value, float(rng.randint(1000, 10**6)),
                               {"B/op": 64.0, "allocs/op": 2.0} if i % 2 else {})
    return ForkResult(index=index, status=ForkStatus.COMPLETE, warmup=tuple(it(i) for i in range(WARMUP)),
                      measurement=tuple(it(i) for i in range(MEASUREMENT)), started_at=time.time(),
                      finished_at=time.time() + 1, warmup_decisions=(StopDecision(True, "static"),))


def make_run(rng: random.Random) -> RunData:
    results = tuple(BenchmarkResult(Benchmark(BenchmarkId("s", f"Bench.m{b}", (("size", str(b)),)), "avgt", "ns/op"),
                                    tuple(make_fork(rng, i) for i in range(1, N_FORKS + 1)), BenchmarkStatus.OK,
                                    None, (StopDecision(True, "static"),))
                    for b in range(N_BENCHMARKS))
    return RunData(RunMeta(created_at=time.time(), tool_version="bench"), results, RunStatus.COMPLETE)


def time_store_saves(path: Path, forks: list[ForkResult]) -> list[float]:
    durations = []
    with open_store(path) as store:
        run_id = store.create_run(RunMeta(created_at=time.time(), tool_version="bench"))
        bench = Benchmark(BenchmarkId("s", "Bench.save"), "avgt", "ns/op")
        store.add_benchmark(run_id, bench)
        for fork in forks:
            t0 = time.perf_counter()
            store.save_fork(run_id, bench.id, fork)
            durations.append(time.perf_counter() - t0)
    return durations


def _raw_connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    for pragma in ("busy_timeout = 30000", "journal_mode = WAL", "synchronous = FULL", "foreign_keys = ON"):
        conn.execute(f"PRAGMA {pragma}")
    return conn


def time_raw_saves(path: Path, forks: list[ForkResult]) -> list[float]:
    conn = _raw_connect(path)
    conn.execute("CREATE TABLE forks (id INTEGER PRIMARY KEY, fork_index INT, status TEXT, started_at REAL, "
                 "finished_at REAL, message TEXT, warmup_decisions TEXT)")
    conn.execute("CREATE TABLE iterations (fork_id INT, phase TEXT, idx INT, value_ns REAL, raw_value REAL, ops REAL, "
                 "secondary TEXT, PRIMARY KEY (fork_id, phase, idx))")
    durations = []
    for fork in forks:
        t0 = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        cur = conn.execute("INSERT INTO forks (fork_index, status, started_at, finished_at, message, warmup_decisions) "
                           "VALUES (?, ?, ?, ?, ?, ?)", (fork.index, fork.status.value, fork.started_at,
                                                         fork.finished_at, None, "[]"))
        fork_id = cur.lastrowid
        rows = [(fork_id, phase, i, it.value_ns, it.raw_value, it.ops,
                 json.dumps(dict(it.secondary)) if it.secondary else None)
                for phase, its in (("warmup", fork.warmup), ("measurement", fork.measurement))
                for i, it in enumerate(its)]
        conn.executemany("INSERT INTO iterations VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        conn.execute("COMMIT")
        durations.append(time.perf_counter() - t0)
    conn.close()
    return durations


def time_store_loads(path: Path, run: RunData, repeats: int) -> tuple[list[float], int]:
    with open_store(path) as store:
        run_id = store.import_run(run)
        durations = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            loaded = store.load_run(run_id)
            durations.append(time.perf_counter() - t0)
    n_iterations = sum(len(f.warmup) + len(f.measurement) for r in loaded.results for f in r.forks)
    return durations, n_iterations


def time_raw_loads(path: Path, run_id: int, repeats: int) -> list[float]:
    """The same four selects as load_run, rows fetched and JSON decoded, no model objects built."""
    conn = _raw_connect(path)
    durations = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        conn.execute("BEGIN")
        conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchall()
        conn.execute("SELECT * FROM benchmarks WHERE run_id = ? ORDER BY position", (run_id,)).fetchall()
        conn.execute("SELECT forks.* FROM forks JOIN benchmarks ON forks.benchmark_id = benchmarks.id "
                     "WHERE benchmarks.run_id = ? ORDER BY forks.benchmark_id, forks.fork_index", (run_id,)).fetchall()
        rows = conn.execute(
            "SELECT i.fork_id, i.phase, i.value_ns, i.raw_value, i.ops, i.secondary FROM iterations i "
            "JOIN forks f ON i.fork_id = f.id JOIN benchmarks b ON f.benchmark_id = b.id WHERE b.run_id = ? "
            "ORDER BY i.fork_id, i.phase, i.idx", (run_id,)).fetchall()
        for row in rows:
            if row[5] is not None:
                json.loads(row[5])
        conn.execute("COMMIT")
        durations.append(time.perf_counter() - t0)
    conn.close()
    return durations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=None, help="where to put the databases (default: a temp dir)")
    parser.add_argument("--saves", type=int, default=200, help="forks saved per measurement (default 200)")
    parser.add_argument("--loads", type=int, default=7, help="loads of the large run (default 7)")
    args = parser.parse_args()
    rng = random.Random(1)
    forks = [make_fork(rng, i) for i in range(1, args.saves + 1)]
    run = make_run(rng)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        root = Path(tmp)
        raw_save = time_raw_saves(root / "raw-save.db", forks)
        store_save = time_store_saves(root / "store-save.db", forks)
        store_load, n_iterations = time_store_loads(root / "load.db", run, args.loads)
        raw_load = time_raw_loads(root / "load.db", 1, args.loads)
    med = statistics.median
    print(f"save_fork, {WARMUP + MEASUREMENT} iterations, median of {args.saves} "
          f"(WAL, synchronous=FULL; on {args.dir or tempfile.gettempdir()}):")
    print(f"  benchwarden store   {med(store_save) * 1e3:8.2f} ms")
    print(f"  plain sqlite3       {med(raw_save) * 1e3:8.2f} ms")
    print(f"  ratio               {med(store_save) / med(raw_save):8.2f}")
    print(f"load_run, {N_BENCHMARKS} benchmarks x {N_FORKS} forks x {WARMUP + MEASUREMENT} iterations "
          f"({n_iterations} iterations), median of {args.loads}:")
    print(f"  benchwarden store   {med(store_load) * 1e3:8.1f} ms")
    print(f"  plain sqlite3 rows  {med(raw_load) * 1e3:8.1f} ms")
    print(f"  ratio               {med(store_load) / med(raw_load):8.2f}")


if __name__ == "__main__":
    main()
