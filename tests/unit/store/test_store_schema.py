"""Schema versioning: fresh creation, the migration chain, refusal of newer or foreign databases, old fixtures."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa
from store_samples import make_run, write_incrementally

from benchwarden.errors import StoreError
from benchwarden.store import import_run_json, open_store
from benchwarden.store.engine import BEGIN_MODE_OPTION, create_store_engine, parse_location
from benchwarden.store.schema import SCHEMA_VERSION, Migration, ensure_schema, read_version

DATA = Path(__file__).parents[2] / "data" / "store"


def _version(url: str) -> int:
    engine = sa.create_engine(url if "://" in url else f"sqlite:///{url}")
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text("SELECT version FROM schema_version")).scalar_one()
    finally:
        engine.dispose()


def _ensure(path: Path, migrations, target_version: int) -> int:
    engine = create_store_engine(parse_location(path))
    try:
        with engine.execution_options(**{BEGIN_MODE_OPTION: "IMMEDIATE"}).begin() as conn:
            return ensure_schema(conn, f"store '{path}'", "test", migrations=migrations, target_version=target_version)
    finally:
        engine.dispose()


def test_fresh_store_is_created_at_the_current_version(store_url):
    with open_store(store_url) as store:
        store.create_run(make_run().meta)
    assert _version(store_url) == SCHEMA_VERSION
    with open_store(store_url):  # reopening neither fails nor re-stamps
        pass
    assert _version(store_url) == SCHEMA_VERSION


def test_a_newer_store_is_refused_and_left_alone(store_url):
    with open_store(store_url):
        pass
    engine = sa.create_engine(store_url if "://" in store_url else f"sqlite:///{store_url}")
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE schema_version SET version = :v"), {"v": SCHEMA_VERSION + 1})
    engine.dispose()
    with pytest.raises(StoreError, match=rf"schema version {SCHEMA_VERSION + 1} is newer .*upgrade benchwarden"):
        open_store(store_url)
    assert _version(store_url) == SCHEMA_VERSION + 1


def _add_note_column(conn: sa.Connection) -> None:
    conn.execute(sa.text("ALTER TABLE runs ADD COLUMN note TEXT"))
    conn.execute(sa.text("UPDATE runs SET note = 'migrated: ' || label"))


def _rename_then_fail(conn: sa.Connection) -> None:
    conn.execute(sa.text("ALTER TABLE runs ADD COLUMN half_done TEXT"))
    raise RuntimeError("migration bug")


def test_migrations_run_in_order_and_keep_the_data(tmp_path: Path):
    path = tmp_path / "results.db"
    expected = make_run(n_benchmarks=2, n_forks=2)
    with open_store(path) as store:
        run_id = write_incrementally(store, expected)
    applied: list[int] = []

    def step(version: int):
        def apply(conn: sa.Connection) -> None:
            applied.append(version)
            if version == SCHEMA_VERSION:
                _add_note_column(conn)
        return Migration(version, f"step {version}", apply)

    # given out of order on purpose: the chain is followed by from_version
    now = SCHEMA_VERSION
    assert _ensure(path, [step(now + 1), step(now)], target_version=now + 2) == now + 2
    assert applied == [now, now + 1]
    assert _version(str(path)) == now + 2
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT note FROM runs").fetchone()[0] == f"migrated: {expected.meta.label}"
    engine = create_store_engine(parse_location(path))
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE schema_version SET version = :v"), {"v": SCHEMA_VERSION})  # back to ours
    engine.dispose()
    with open_store(path) as store:  # our tables still read: the extra column is harmless
        assert dataclasses.replace(store.load_run(run_id), id=None) == expected


def test_a_failing_migration_rolls_back_completely(tmp_path: Path):
    path = tmp_path / "results.db"
    with open_store(path):
        pass
    now = SCHEMA_VERSION
    with pytest.raises(RuntimeError, match="migration bug"):
        _ensure(path, [Migration(now, "adds a note", _add_note_column), Migration(now + 1, "broken", _rename_then_fail)],
                now + 2)
    assert _version(str(path)) == now
    with sqlite3.connect(path) as conn:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(runs)")]
    assert "note" not in columns and "half_done" not in columns  # DDL is transactional too


def test_a_gap_in_the_chain_is_reported(tmp_path: Path):
    path = tmp_path / "results.db"
    with open_store(path):
        pass
    now = SCHEMA_VERSION
    with pytest.raises(StoreError, match=f"no migration from schema version {now + 1} to {now + 2}"):
        _ensure(path, [Migration(now, "one", lambda conn: None)], target_version=now + 2)
    assert _version(str(path)) == now


def test_foreign_database_with_our_table_names_is_refused(tmp_path: Path):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE runs (x INTEGER)")
    conn.close()
    with pytest.raises(StoreError, match=r"has tables runs but no schema_version table"):
        open_store(path)


def test_malformed_version_table_is_reported(tmp_path: Path):
    path = tmp_path / "results.db"
    with open_store(path):
        pass
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO schema_version VALUES (7, 'x')")
    conn.close()
    with pytest.raises(StoreError, match="exactly one row, found 2"):
        open_store(path)


def test_unrelated_tables_in_the_database_are_left_in_place(tmp_path: Path):
    path = tmp_path / "shared.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (x TEXT)")
        conn.execute("INSERT INTO notes VALUES ('keep me')")
    conn.close()
    with open_store(path) as store:
        store.create_run(make_run().meta)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT x FROM notes").fetchall() == [("keep me",)]


@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_stores_written_by_older_versions_still_load(tmp_path: Path, version: int):
    """store-vN.sql is the SQLite dump of a store written by schema version N, holding the run of run-vN.json."""
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        conn.executescript((DATA / f"store-v{version}.sql").read_text(encoding="utf-8"))
    conn.close()
    json_version = min(version, 2)  # schemas 3 and 4 changed no exported field: their stores hold run-v2.json's run
    expected = import_run_json((DATA / f"run-v{json_version}.json").read_bytes(), source=f"run-v{json_version}.json")
    with open_store(path) as store:
        loaded = store.load_run(1)
        assert store.unfinished_benchmarks(1) == [expected.results[-1].benchmark.id]
    assert _version(str(path)) == SCHEMA_VERSION
    assert dataclasses.replace(loaded, id=None) == expected
    assert [dict(r.benchmark.spec) for r in loaded.results] == [dict(r.benchmark.spec) for r in expected.results]
    metrics = [r.benchmark.metric for r in loaded.results]
    # version 1 knew wall-clock time only; version 2 stored a CPU-time benchmark as such
    assert metrics == (["time", "time", "time"] if version == 1 else ["time", "time", "cpu"])


def test_read_version_is_the_single_row(tmp_path: Path):
    path = tmp_path / "results.db"
    with open_store(path):
        pass
    engine = create_store_engine(parse_location(path))
    with engine.connect() as conn:
        assert read_version(conn, "here") == SCHEMA_VERSION
    engine.dispose()
