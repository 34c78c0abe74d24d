"""Old stores upgrade in place with nothing lost, on SQLite and on PostgreSQL (issue #15).

The fixtures ``store-vN.sql`` are SQLite dumps of what schema version N left on disk.  On SQLite the dump is
loaded as it is.  PostgreSQL cannot read a SQLite dump, so the same tables are transplanted: reflected from the
loaded dump (their column types, keys and defaults as version N wrote them), created in a fresh PostgreSQL
database, filled row by row, and the id sequences set past the copied ids, as a store that version N had
written on PostgreSQL would be.  Then the current code opens it: every migration runs in one transaction, and
every run, benchmark, fork and iteration must come back exactly, with the history columns of version 4 filled.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa

from benchwarden.environment import machine_key
from benchwarden.store import import_run_json, open_store
from benchwarden.store.commits import CommitInfo
from benchwarden.store.schema import SCHEMA_VERSION

DATA = Path(__file__).parents[2] / "data" / "store"
TABLES = ("runs", "benchmarks", "forks", "iterations")


def load_old_store(url: str, version: int, tmp_path: Path) -> None:
    """Put the version-``version`` fixture into the empty store at ``url`` (a SQLite path or a PostgreSQL URL)."""
    dump = (DATA / f"store-v{version}.sql").read_text(encoding="utf-8")
    if "://" not in url:
        Path(url).parent.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(url) as conn:
            conn.executescript(dump)
        conn.close()
        return
    source_path = tmp_path / f"v{version}.db"
    with sqlite3.connect(source_path) as conn:
        conn.executescript(dump)
    conn.close()
    source = sa.create_engine(f"sqlite:///{source_path}")
    target = sa.create_engine(url)
    try:
        old = sa.MetaData()
        # SQLite's reflected types (DOUBLE, ...) as their generic kinds, which PostgreSQL spells its own way
        sa.event.listen(old, "column_reflect", lambda _i, _t, column: column.update(type=column["type"].as_generic()))
        old.reflect(source)
        with source.connect() as src, target.begin() as dst:
            old.create_all(dst)
            for table in old.sorted_tables:
                found = [dict(r._mapping) for r in src.execute(sa.select(table))]
                if found:
                    dst.execute(table.insert(), found)
                if "id" in table.c and table.c.id.primary_key:
                    dst.execute(sa.text(f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                                        f"(SELECT COALESCE(max(id), 0) + 1 FROM {table.name}), false)"))
    finally:
        source.dispose()
        target.dispose()


def _counts(url: str) -> dict[str, int]:
    engine = sa.create_engine(url if "://" in url else f"sqlite:///{url}")
    try:
        with engine.connect() as conn:
            return {t: conn.execute(sa.text(f"SELECT count(*) FROM {t}")).scalar_one() for t in TABLES}
    finally:
        engine.dispose()


@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_an_old_store_upgrades_in_place_with_nothing_lost(store_url: str, tmp_path: Path, version: int):
    load_old_store(store_url, version, tmp_path)
    before = _counts(store_url)
    expected = import_run_json((DATA / f"run-v{min(version, 2)}.json").read_bytes(), source="fixture")
    with open_store(store_url) as store:
        loaded = store.load_run(1)
        assert dataclasses.replace(loaded, id=None) == expected
        (stored,) = store.stored_runs()
        assert stored.machine_key == machine_key(expected.meta.machine)  # derived by the migration
        # the upgraded store takes new runs, commits and history at once (sequences continue past the old ids)
        new_id = store.import_run(expected)
        assert new_id == 2
        store.record_commits([CommitInfo(sha=expected.meta.commit, generation=7, committed_at=1.7e9,
                                         parents=("f" * 40,), subject="the fixture's commit", refs=("main",))])
        assert store.commits([expected.meta.commit])[expected.meta.commit].generation == 7
    after = _counts(store_url)
    assert after == {t: 2 * n for t, n in before.items()}  # the old run intact, the new one beside it
    engine = sa.create_engine(store_url if "://" in store_url else f"sqlite:///{store_url}")
    try:
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT version FROM schema_version")).scalar_one() == SCHEMA_VERSION
    finally:
        engine.dispose()


def test_a_run_with_a_damaged_machine_keeps_a_null_key_and_the_upgrade_goes_on(tmp_path: Path):
    path = tmp_path / "old.db"
    load_old_store(str(path), 3, tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE runs SET machine = 'not json' WHERE id = 1")
    conn.close()
    with open_store(path):
        pass
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT machine_key FROM runs WHERE id = 1").fetchone() == (None,)
    conn.close()


def test_commits_are_completed_and_their_refs_united(store_url: str):
    with open_store(store_url) as store:
        store.record_commits([CommitInfo(sha="a" * 40, generation=None, committed_at=None, refs=("v1.0",))])
        store.record_commits([CommitInfo(sha="a" * 40, generation=3, committed_at=1.5e9, parents=("b" * 40,),
                                         subject="speed up parse", refs=("main",))])
        info = store.commits(["a" * 40, "c" * 40])
    assert list(info) == ["a" * 40]
    assert info["a" * 40] == CommitInfo(sha="a" * 40, generation=3, committed_at=1.5e9, parents=("b" * 40,),
                                        subject="speed up parse", refs=("main", "v1.0"))
