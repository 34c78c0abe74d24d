"""Store round trips on SQLite and PostgreSQL: what goes in through the runner's API comes back exactly."""

from __future__ import annotations

import dataclasses
import re
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from store_run_strategies import runs
from store_samples import make_benchmark, make_fork, make_meta, make_run, write_incrementally

from benchwarden.errors import StoreError
from benchwarden.model import BenchmarkId, BenchmarkStatus, ForkStatus, RunStatus, StopDecision
from benchwarden.store import RunSummary, open_store
from benchwarden.store.records import UNFINISHED_MESSAGE


def _without_id(data):
    return dataclasses.replace(data, id=None)


def _specs(data):
    # Benchmark.spec is excluded from dataclass equality, so compare it on its own
    return [dict(r.benchmark.spec) for r in data.results]


@pytest.mark.parametrize("status", [RunStatus.COMPLETE, RunStatus.INTERRUPTED])
def test_incremental_writes_load_back_identically(store_url, status):
    expected = make_run(status=status)
    with open_store(store_url) as store:
        run_id = write_incrementally(store, expected)
        loaded = store.load_run(run_id)
    assert loaded.id == run_id
    assert _without_id(loaded) == expected
    assert _specs(loaded) == _specs(expected)
    # order is part of the contract: benchmarks by insertion, parameters as declared, forks by index
    assert [r.benchmark.id.params for r in loaded.results] == [r.benchmark.id.params for r in expected.results]
    assert list(loaded.meta.config) == list(expected.meta.config)


def test_import_run_stores_a_whole_run(store_url):
    expected = make_run(n_benchmarks=3, n_forks=2, status=RunStatus.INTERRUPTED)
    with open_store(store_url) as store:
        run_id = store.import_run(expected)
        loaded = store.load_run(run_id)
        assert _without_id(loaded) == expected
        assert _specs(loaded) == _specs(expected)
        # the unfinished benchmark is unfinished in the store too, so --resume finds it
        assert store.unfinished_benchmarks(run_id) == [expected.results[-1].benchmark.id]


def test_forks_on_cluster_workers_and_lost_forks_load_back(store_url):
    expected = make_run(n_benchmarks=2, n_forks=3, cluster=True)
    with open_store(store_url) as store:
        run_id = write_incrementally(store, expected)
        loaded = store.load_run(run_id)
    assert _without_id(loaded) == expected
    forks = loaded.results[0].forks
    assert [f.status.value for f in forks] == ["complete", "lost", "complete", "complete"]
    assert [f.machine["worker"] for f in forks] == ["tcp://10.0.0.2:40123", "tcp://10.0.0.1:40123",
                                                     "tcp://10.0.0.1:40123", "tcp://10.0.0.2:40123"]
    assert all(f.machine == {} for f in loaded.results[1].forks)


def test_save_fork_replaces_a_fork_with_the_same_index(store_url):
    bench = make_benchmark(1)
    with open_store(store_url) as store:
        run_id = store.create_run(make_meta())
        store.add_benchmark(run_id, bench)
        store.save_fork(run_id, bench.id, make_fork(1, 1, warmup=2, measurement=3, status=ForkStatus.FAILED))
        replacement = make_fork(7, 1, warmup=4, measurement=9)
        store.save_fork(run_id, bench.id, replacement)
        (fork,) = store.load_run(run_id).results[0].forks
    assert fork == replacement


def test_add_benchmark_is_idempotent_and_keeps_insertion_order(store_url):
    b1, b2, b3 = make_benchmark(3), make_benchmark(1), make_benchmark(2)
    with open_store(store_url) as store:
        run_id = store.create_run(make_meta())
        for b in (b1, b2, b1, b3, b2):
            store.add_benchmark(run_id, b)
        loaded = store.load_run(run_id)
    assert [r.benchmark.id for r in loaded.results] == [b1.id, b2.id, b3.id]
    assert all(r.message == UNFINISHED_MESSAGE and r.forks == () for r in loaded.results)


def test_same_key_in_two_suites_are_two_benchmarks(store_url):
    a, b = make_benchmark(1, suite="go"), make_benchmark(1, suite="jmh")
    with open_store(store_url) as store:
        run_id = store.create_run(make_meta())
        store.add_benchmark(run_id, a)
        store.add_benchmark(run_id, b)
        store.save_fork(run_id, b.id, make_fork(1, 1))
        loaded = store.load_run(run_id)
    assert [len(r.forks) for r in loaded.results] == [0, 1]


def test_finish_benchmark_and_run_status(store_url):
    bench = make_benchmark(2)
    decisions = [StopDecision(False, "below-minimum"), StopDecision(True, "maximum-reached", {"rciw": 0.2}, "unstable")]
    with open_store(store_url) as store:
        run_id = store.create_run(make_meta())
        store.add_benchmark(run_id, bench)
        assert store.unfinished_benchmarks(run_id) == [bench.id]
        store.finish_benchmark(run_id, bench.id, BenchmarkStatus.SKIPPED, "no 'java' on PATH", decisions)
        assert store.unfinished_benchmarks(run_id) == []
        assert store.list_runs()[0].finished_at is None
        store.finish_run(run_id, RunStatus.FAILED)
        loaded = store.load_run(run_id)
        summary = store.list_runs()[0]
    (result,) = loaded.results
    assert (result.status, result.message, list(result.fork_decisions)) == (BenchmarkStatus.SKIPPED, "no 'java' on PATH", decisions)
    assert loaded.status is RunStatus.FAILED
    assert summary.status is RunStatus.FAILED and summary.finished_at is not None


def test_list_runs_counts_and_order(store_url):
    with open_store(store_url) as store:
        first = write_incrementally(store, make_run(n_benchmarks=2, n_forks=3))
        second = write_incrementally(store, make_run(n_benchmarks=4, n_forks=2, status=RunStatus.INTERRUPTED))
        empty = store.create_run(make_meta(label=None))
        runs = store.list_runs()
        assert [r.id for r in store.list_runs(limit=2)] == [empty, second]
    meta = make_meta()
    assert runs == [
        RunSummary(empty, meta.created_at, None, RunStatus.RUNNING, None, meta.commit, False, "0.1.0", 0, 0),
        RunSummary(second, meta.created_at, runs[1].finished_at, RunStatus.INTERRUPTED, meta.label, meta.commit, False,
                   "0.1.0", 4, 2 + 2 + 2 + 1),
        RunSummary(first, meta.created_at, runs[2].finished_at, RunStatus.COMPLETE, meta.label, meta.commit, False,
                   "0.1.0", 2, 6),
    ]


def test_resolve_run_and_latest(store_url):
    with open_store(store_url) as store:
        with pytest.raises(StoreError, match="no runs"):
            store.resolve_run(None)
        assert store.latest_run_id() is None
        ids = [write_incrementally(store, make_run(n_benchmarks=1, n_forks=1, status=s))
               for s in (RunStatus.COMPLETE, RunStatus.INTERRUPTED, RunStatus.COMPLETE)]
        assert store.resolve_run(None) == store.resolve_run("latest") == store.resolve_run(" latest ") == ids[2]
        assert store.resolve_run("latest~1") == ids[1]
        assert store.resolve_run("latest~2") == ids[0]
        assert store.resolve_run(str(ids[1])) == ids[1]
        assert store.latest_run_id() == ids[2]
        assert store.latest_run_id(RunStatus.INTERRUPTED) == ids[1]
        assert store.latest_run_id(RunStatus.FAILED) is None
        with pytest.raises(StoreError, match="fewer than 4 runs"):
            store.resolve_run("latest~3")
        with pytest.raises(StoreError, match="run 999 not found"):
            store.resolve_run("999")
        for bad in ("last", "latest-1", "-3", "1.5", ""):
            with pytest.raises(StoreError, match="not understood"):
                store.resolve_run(bad)


def test_errors_name_the_run_and_benchmark(store_url):
    bench = make_benchmark(1)
    with open_store(store_url) as store:
        with pytest.raises(StoreError, match="run 42 not found"):
            store.load_run(42)
        with pytest.raises(StoreError, match="run 42 not found"):
            store.add_benchmark(42, bench)
        run_id = store.create_run(make_meta())
        with pytest.raises(StoreError, match=rf"{re.escape(bench.id.key)}.*not part of run {run_id}.*add_benchmark"):
            store.save_fork(run_id, bench.id, make_fork(1, 1))
        with pytest.raises(StoreError, match="not part of run"):
            store.finish_benchmark(run_id, BenchmarkId("x", "y"), BenchmarkStatus.OK, None, [])
        with pytest.raises(StoreError, match="run 43 not found"):
            store.finish_run(43, RunStatus.COMPLETE)
        # the failed calls left nothing behind
        assert store.load_run(run_id).results == ()


def test_store_survives_reopening(store_url):
    expected = make_run(n_benchmarks=2, n_forks=2)
    with open_store(store_url) as store:
        run_id = write_incrementally(store, expected)
    with open_store(store_url) as store:
        assert _without_id(store.load_run(run_id)) == expected


def test_finish_run_running_again_clears_finished_at(store_url):
    with open_store(store_url) as store:
        run_id = store.create_run(make_meta())
        store.finish_run(run_id, RunStatus.INTERRUPTED)
        assert store.list_runs()[0].finished_at is not None
        store.finish_run(run_id, RunStatus.RUNNING)
        assert store.list_runs()[0].finished_at is None


def test_plain_path_creates_parent_dirs_and_uses_wal(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with open_store(Path("deep/er/.benchwarden/results.db")) as store:
        store.create_run(make_meta())
    db = tmp_path / "deep/er/.benchwarden/results.db"
    assert db.is_file()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_sqlite_url_and_in_memory_store(tmp_path: Path):
    with open_store(f"sqlite:///{tmp_path}/a/b.db") as store:
        store.create_run(make_meta())
    assert (tmp_path / "a" / "b.db").is_file()
    with open_store("sqlite://") as store:  # one shared connection: the data must stay visible
        run_id = write_incrementally(store, make_run(n_benchmarks=1, n_forks=1))
        assert len(store.load_run(run_id).results) == 1


def test_two_store_handles_on_one_file_see_each_others_forks(tmp_path: Path):
    path = tmp_path / "results.db"
    bench = make_benchmark(1)
    with open_store(path) as writer, open_store(path) as reader:
        run_id = writer.create_run(make_meta())
        writer.add_benchmark(run_id, bench)
        writer.save_fork(run_id, bench.id, make_fork(1, 1))
        assert reader.load_run(run_id).results[0].forks == (make_fork(1, 1),)
        reader.add_benchmark(run_id, make_benchmark(2))  # a second writer queues on the lock, it does not fail
        assert len(writer.load_run(run_id).results) == 2


def test_unreachable_or_bad_locations_raise_store_error(tmp_path: Path):
    garbage = tmp_path / "not-a-db.db"
    garbage.write_bytes(b"this is not a SQLite database, just text\n" * 100)
    with pytest.raises(StoreError, match=rf"{garbage}.*not a database"):
        open_store(garbage)
    assert garbage.read_bytes().startswith(b"this is not")  # and it was not overwritten
    with pytest.raises(StoreError, match="not a valid SQLAlchemy URL"):
        open_store("no-such-dialect+x://:::")
    with pytest.raises(StoreError, match="driver not available|Can't load plugin"):
        open_store("nosuchdb://user@host/db")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot create directory"):
        open_store(blocker / "sub" / "results.db")


def test_unreachable_postgresql_names_url_without_password():
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pytest.importorskip("psycopg")
    with pytest.raises(StoreError) as info:
        open_store(f"postgresql+psycopg://bench:s3cret@127.0.0.1:{port}/db?connect_timeout=2")
    assert f"127.0.0.1:{port}/db" in str(info.value)
    assert "s3cret" not in str(info.value)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=runs())
def test_any_run_survives_the_sqlite_store(data):
    with open_store("sqlite://") as store:
        loaded = store.load_run(store.import_run(data))
    assert _without_id(loaded) == data
    assert _specs(loaded) == _specs(data)
    assert list(loaded.meta.config) == list(data.meta.config)


def test_concurrent_first_opens_of_a_fresh_store_all_succeed(store_url):
    """Several processes starting `benchwarden run` at once on a new store: one creates the schema, none fails."""
    from concurrent.futures import ThreadPoolExecutor

    def open_and_write(_: int) -> int:
        with open_store(store_url) as store:
            return store.create_run(make_meta())

    with ThreadPoolExecutor(max_workers=4) as pool:
        ids = sorted(pool.map(open_and_write, range(4)))
    assert ids == [1, 2, 3, 4]


def test_connections_racing_to_switch_a_new_sqlite_file_to_wal_all_succeed(tmp_path):
    """Two connections upgrading to WAL at once: SQLite fails one *immediately* (deadlock avoidance, no busy
    handler); the connect hook retries it.  Four raw connections per trial failed ~1 trial in 4 without it."""
    import sqlite3
    import threading

    from benchwarden.store.engine import _on_sqlite_connect

    failures = []
    for trial in range(40):
        path = tmp_path / f"t{trial}.db"
        barrier = threading.Barrier(4)

        def connect(path: Path, barrier: threading.Barrier, trial: int) -> None:
            conn = sqlite3.connect(path, check_same_thread=False)
            barrier.wait()
            try:
                _on_sqlite_connect(conn, None)
                assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            except Exception as exc:  # noqa: BLE001 - collected and reported below
                failures.append(f"trial {trial}: {exc}")
            finally:
                conn.close()

        threads = [threading.Thread(target=connect, args=(path, barrier, trial)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert failures == []
