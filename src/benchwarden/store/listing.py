"""The list of stored runs (``benchwarden runs``): one SQL statement, run by SQLAlchemy or by stdlib sqlite3.

:meth:`Store.list_runs <benchwarden.store.store.Store.list_runs>` executes :data:`LIST_RUNS_SQL`
through SQLAlchemy on any backend.  :func:`list_runs_sqlite` executes the same statement with the
standard library's ``sqlite3`` on a read-only connection, so listing runs in a SQLite store does not
import SQLAlchemy (a third of a second of start-up CPU; docs/performance.md, "Start-up").  It answers
only for a store it can read as is: an existing file at exactly :data:`SCHEMA_VERSION`; otherwise it
returns None and the caller opens the store normally (which creates, migrates or refuses with a
clear error).  Imports nothing heavier than ``sqlite3``.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Sequence
from urllib.parse import quote

from benchwarden.model import RunStatus
from benchwarden.store import rows
from benchwarden.store.version import SCHEMA_VERSION

#: newest first; ``"commit"`` is quoted because COMMIT is an SQL keyword (SQLite and PostgreSQL alike)
LIST_RUNS_SQL = """
SELECT r.id, r.created_at, r.finished_at, r.status, r.label, r."commit", r.dirty, r.tool_version,
       (SELECT count(*) FROM benchmarks b WHERE b.run_id = r.id),
       (SELECT count(*) FROM forks f JOIN benchmarks b ON f.benchmark_id = b.id WHERE b.run_id = r.id)
FROM runs r
ORDER BY r.id DESC
LIMIT :limit
"""


@dataclass(frozen=True)
class RunSummary:
    """One line of ``list_runs``: a run without its measurements."""

    id: int
    created_at: float  # epoch seconds
    finished_at: float | None  # None while running, after kill -9, or for imported runs
    status: RunStatus
    label: str | None
    commit: str | None
    dirty: bool | None
    tool_version: str
    n_benchmarks: int
    n_forks: int


def run_summary(row: Sequence[Any]) -> RunSummary:
    """A row of :data:`LIST_RUNS_SQL` as a RunSummary, every field checked (:class:`~benchwarden.store.rows.CorruptRow`
    names a damaged one; ``dirty`` arrives as 0/1 from SQLite)."""
    named = SimpleNamespace(id=row[0], created_at=row[1], finished_at=row[2], status=row[3], label=row[4],
                            commit=row[5], dirty=row[6], tool_version=row[7])
    return RunSummary(id=int(row[0]), **rows.summary_fields(named), n_benchmarks=int(row[8]), n_forks=int(row[9]))


def list_runs_sqlite(path: str | Path, limit: int) -> list[RunSummary] | None:
    """The ``limit`` newest runs of the SQLite store file at ``path``, or None when this fast path cannot answer.

    None means: the file does not exist, cannot be opened read-only, is not at :data:`SCHEMA_VERSION`,
    or any SQLite error; the caller then uses :func:`benchwarden.store.open_store`.
    """
    file = Path(path)
    if not file.is_file():
        return None
    try:
        conn = sqlite3.connect(f"file:{quote(str(file.resolve()))}?mode=ro", uri=True, timeout=30.0)
    except sqlite3.Error:
        return None
    try:
        versions = conn.execute("SELECT version FROM schema_version").fetchall()
        if versions != [(SCHEMA_VERSION,)]:
            return None
        return [run_summary(row) for row in conn.execute(LIST_RUNS_SQL, {"limit": limit}).fetchall()]
    except (sqlite3.Error, ValueError, TypeError):
        return None
    finally:
        conn.close()
