"""What history needs beside the runs: each measured commit's place in git history, and runs by machine.

A run stores only its commit hash; the ``commits`` table (schema version 4) adds the commit's
*generation* (1 for a root commit, else 1 + the largest generation of its parents: ordering by it
respects parent order on every branch, as git's commit-graph generation numbers do), its committer
date, parents, subject, and the branches and tags seen pointing at it.  Nothing here calls git:
:mod:`benchwarden.history.gitlog` reads it and hands :class:`CommitInfo` values to
:meth:`Store.record_commits <benchwarden.store.store.Store.record_commits>`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from benchwarden.model import RunMeta, RunStatus
from benchwarden.store import rows
from benchwarden.store.schema import commits, runs

#: SQL parameters per IN (...) list: below SQLite's and PostgreSQL's limits
CHUNK = 500


@dataclass(frozen=True)
class CommitInfo:
    """One commit's place in history.  ``refs``: branch and tag names seen pointing at it (sorted)."""

    sha: str
    generation: int | None
    committed_at: float | None
    parents: tuple[str, ...] = ()
    subject: str | None = None
    refs: tuple[str, ...] = ()


@dataclass(frozen=True)
class StoredRun:
    """A run's metadata, status and machine key, without its measurements (what history selects runs by)."""

    id: int
    meta: RunMeta
    status: RunStatus
    machine_key: str | None


def record_commits(conn: Connection, infos: Iterable[CommitInfo]) -> None:
    """Insert or complete ``commits`` rows: known fields are kept, missing ones filled, refs united."""
    infos = list(infos)
    if not infos:
        return
    existing = load_commits(conn, [i.sha for i in infos])
    for info in infos:
        _check(info)
        old = existing.get(info.sha)
        if old is None:
            conn.execute(commits.insert().values(
                sha=info.sha, generation=info.generation, committed_at=info.committed_at,
                parents=list(info.parents), subject=info.subject, refs=sorted(set(info.refs))))
            continue
        merged = {"generation": info.generation if info.generation is not None else old.generation,
                  "committed_at": info.committed_at if info.committed_at is not None else old.committed_at,
                  "parents": list(info.parents or old.parents), "subject": info.subject or old.subject,
                  "refs": sorted(set(old.refs) | set(info.refs))}
        conn.execute(commits.update().where(commits.c.sha == info.sha).values(**merged))


def load_commits(conn: Connection, shas: Sequence[str]) -> dict[str, CommitInfo]:
    """The stored rows of these commits (those present), every value checked."""
    found: dict[str, CommitInfo] = {}
    wanted = sorted(set(shas))
    for start in range(0, len(wanted), CHUNK):
        chunk = wanted[start:start + CHUNK]
        for row in conn.execute(sa.select(commits.c.sha, commits.c.generation, commits.c.committed_at,
                                          sa.type_coerce(commits.c.parents, sa.Text).label("parents"),
                                          commits.c.subject, sa.type_coerce(commits.c.refs, sa.Text).label("refs"))
                                .where(commits.c.sha.in_(chunk))):
            found[row.sha] = _commit(row)
    return found


def stored_runs(conn: Connection) -> list[StoredRun]:
    """Every run that names a commit, oldest first, with its checked metadata."""
    query = sa.select(*(sa.type_coerce(c, sa.Text).label(c.name) if isinstance(c.type, sa.JSON) else
                        sa.type_coerce(c, sa.Integer).label(c.name) if isinstance(c.type, sa.Boolean) else c
                        for c in runs.columns)).where(runs.c.commit.is_not(None)).order_by(runs.c.id)
    out = []
    for row in conn.execute(query):
        meta, status = rows.run_meta(row)
        out.append(StoredRun(id=row.id, meta=meta, status=status, machine_key=row.machine_key))
    return out


def _commit(row: Any) -> CommitInfo:
    import json

    def listed(name: str) -> tuple[str, ...]:
        value = getattr(row, name)  # text on SQLite; psycopg decodes JSON columns itself
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                value = None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise rows.CorruptRow("commits", row.sha, name, "expected a JSON list of strings")
        return tuple(value)

    generation = row.generation
    if generation is not None and (not isinstance(generation, int) or generation < 1):
        raise rows.CorruptRow("commits", row.sha, "generation", f"expected an integer >= 1, found {generation!r}")
    when = row.committed_at
    if when is not None and (not isinstance(when, (int, float)) or not math.isfinite(when)):
        raise rows.CorruptRow("commits", row.sha, "committed_at", f"expected a finite number, found {when!r}")
    return CommitInfo(sha=row.sha, generation=generation, committed_at=None if when is None else float(when),
                      parents=listed("parents"), subject=row.subject, refs=listed("refs"))


def _check(info: CommitInfo) -> None:
    if not info.sha or len(info.sha) > 64:
        raise rows.UnstorableValue(f"commit {info.sha!r}: a commit hash has 1 to 64 characters")
    if info.generation is not None and info.generation < 1:
        raise rows.UnstorableValue(f"commit {info.sha}: generation {info.generation} is not >= 1")
    if info.committed_at is not None and not math.isfinite(info.committed_at):
        raise rows.UnstorableValue(f"commit {info.sha}: commit time {info.committed_at!r} is not finite")
