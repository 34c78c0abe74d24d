"""Turning a store location (URL or path) into a configured SQLAlchemy engine.

SQLite is the embedded default.  Its connections are set up for a store
that must survive ``kill -9`` and be read while a run writes:

* ``journal_mode=WAL``: readers never block the writer and vice versa;
* ``synchronous=FULL``: a committed transaction is on disk (WAL fsynced)
  before ``commit`` returns, so it survives power loss as well as a crash.
  One fsync per fork costs a few milliseconds against forks lasting seconds;
* ``foreign_keys=ON`` (SQLite's default is off), for ``ON DELETE CASCADE``;
* ``busy_timeout``: wait for another writer instead of failing at once;
* transactions are begun explicitly (``BEGIN`` / ``BEGIN IMMEDIATE``).  The
  Python ``sqlite3`` module otherwise starts transactions lazily before the
  first DML statement, which makes DDL (migrations) non-transactional and
  lets two writers deadlock on a read-to-write upgrade.  This is the recipe
  from the SQLAlchemy SQLite dialect documentation ("Serializable isolation
  / Savepoints / Transactional DDL").
"""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine
from sqlalchemy.pool import StaticPool

from benchwarden.errors import StoreError

#: how long a writer waits for another writer's lock before failing
SQLITE_BUSY_TIMEOUT_MS = 30_000

#: execution option naming the SQLite BEGIN flavour for a connection ("DEFERRED" or "IMMEDIATE")
BEGIN_MODE_OPTION = "benchwarden_sqlite_begin"


def parse_location(url_or_path: str | Path) -> URL:
    """A SQLAlchemy URL for ``url_or_path``: a URL as given, a plain path as a SQLite file URL.

    A plain path is made absolute against the working directory (callers
    resolve config-relative paths before).  Raises StoreError for text that
    looks like a URL but does not parse.
    """
    text = str(url_or_path)
    if "://" not in text:
        return URL.create("sqlite", database=str(Path(text).expanduser().absolute()))
    try:
        return sa.make_url(text)
    except sa.exc.ArgumentError as exc:
        raise StoreError(f"store URL '{text}' is not a valid SQLAlchemy URL: {exc}") from None


def display_url(url: URL) -> str:
    """The URL for messages, password masked."""
    return url.render_as_string(hide_password=True)


def create_store_engine(url: URL) -> Engine:
    """An engine for ``url``; SQLite gets the pragmas above and its parent directory created.

    Raises StoreError naming the URL when the driver is missing or the
    directory cannot be created.  Connecting happens later (lazily).
    """
    where = display_url(url)
    try:
        if url.get_backend_name() == "sqlite":
            return _sqlite_engine(url, where)
        return sa.create_engine(url, pool_pre_ping=True)
    except (ImportError, sa.exc.NoSuchModuleError) as exc:
        hint = " (install the 'postgres' extra: pip install 'benchwarden[postgres]')" \
            if url.get_backend_name() == "postgresql" else ""
        raise StoreError(f"store '{where}': database driver not available: {exc}{hint}") from None
    except sa.exc.ArgumentError as exc:
        raise StoreError(f"store '{where}': {exc}") from None


def _sqlite_engine(url: URL, where: str) -> Engine:
    database = url.database or ""
    in_memory = database in ("", ":memory:") or database.startswith("file::memory:")
    kwargs: dict[str, Any] = {}
    if in_memory:
        # one shared connection, otherwise every pooled connection is a different empty database
        kwargs = {"poolclass": StaticPool, "connect_args": {"check_same_thread": False}}
    else:
        _refuse_empty_file(Path(database), where)
        try:
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"store '{where}': cannot create directory {Path(database).parent}: {exc}") from None
    engine = sa.create_engine(url, **kwargs)
    sa.event.listen(engine, "connect", _on_sqlite_connect)
    sa.event.listen(engine, "begin", _on_sqlite_begin)
    return engine


#: how long an empty store file may stay empty before it is taken for a truncated one (see _refuse_empty_file)
EMPTY_FILE_GRACE_S = 2.0


def _refuse_empty_file(path: Path, where: str, grace_s: float = EMPTY_FILE_GRACE_S) -> None:
    """An existing file of 0 bytes is not a store: SQLite would silently start a new, empty one in it.

    A store being created is empty only between SQLite creating the file and setting WAL mode (which
    writes the header, before any schema transaction): microseconds, but another process opening the
    same new store at that moment sees it, so an empty file gets ``grace_s`` to grow.  One that stays
    empty was truncated (a full disk, ``> results.db``) or is the wrong path: say so rather than carry
    on as if the store had never held any runs.
    """
    deadline = time.monotonic() + grace_s
    while True:
        try:
            if not (path.is_file() and path.stat().st_size == 0):
                return
        except OSError:
            return  # unreadable: connecting will report it
        if time.monotonic() >= deadline:
            break
        time.sleep(0.02)
    raise StoreError(f"store '{where}': the file is empty (0 bytes), not a benchwarden store; if it should "
                     "hold results, it was truncated (restore it from a backup); to start a new store, delete it")


def _on_sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None  # we issue BEGIN ourselves (see module docstring)
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        _enter_wal_mode(cursor)
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


def _enter_wal_mode(cursor: Any, timeout_s: float = SQLITE_BUSY_TIMEOUT_MS / 1000) -> None:
    """``PRAGMA journal_mode = WAL``, retried while another connection holds the lock it needs.

    Switching a new (rollback-journal) database to WAL upgrades a shared lock to an exclusive one.  When
    two connections make that upgrade at once SQLite fails one of them with SQLITE_BUSY *at once*,
    without calling the busy handler, because waiting could deadlock (sqlite.org/lockingv3.html,
    "deadlock"; the busy_timeout does not apply).  Several processes opening a fresh store together hit
    this (69 of 300 trials of four connections here); the loser retries after a short, jittered sleep until the other has
    switched the file (after which the pragma is a no-op), within the same time budget as busy_timeout.
    """
    deadline = time.monotonic() + timeout_s
    delay = 0.005
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(delay * (0.5 + random.random()))
        delay = min(delay * 2, 0.2)


def _on_sqlite_begin(conn: sa.Connection) -> None:
    mode = conn.get_execution_options().get(BEGIN_MODE_OPTION, "DEFERRED")
    conn.exec_driver_sql(f"BEGIN {'IMMEDIATE' if mode == 'IMMEDIATE' else 'DEFERRED'}")
