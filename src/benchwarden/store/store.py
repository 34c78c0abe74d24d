"""The result store: runs, benchmarks, forks and every iteration, in SQLite or PostgreSQL.

Durability contract (docs/store.md, "Durability"): every public write method
is one transaction, committed before it returns.  In particular
:meth:`Store.save_fork` writes a fork row and all its iterations atomically,
so a run killed at any instant (Ctrl-C, crash, ``kill -9``) keeps every fork
whose ``save_fork`` returned, and never a half-written fork.

Everything in and out is a :mod:`benchwarden.model` value.  Reads and bulk
writes use SQLAlchemy Core with one statement per table (executemany, bulk
select), never one ORM round trip per row: a run of 100 benchmarks x 5
forks x 60 iterations loads in four queries.
"""

from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from benchwarden import __version__
from benchwarden.environment import machine_key
from benchwarden.errors import StoreError
from benchwarden.model import (
    Benchmark,
    BenchmarkId,
    BenchmarkStatus,
    ForkResult,
    RunData,
    RunMeta,
    RunStatus,
    StopDecision,
)
from benchwarden.store import commits as commit_rows
from benchwarden.store import records, rows
from benchwarden.store.engine import BEGIN_MODE_OPTION, create_store_engine, display_url, parse_location
from benchwarden.store.listing import LIST_RUNS_SQL, RunSummary, run_summary
from benchwarden.store.schema import benchmarks, ensure_schema, fork_processes, forks, iterations, runs


@dataclass(frozen=True)
class ForkProcess:
    """A fork's process as recorded when it started: its process group (None if the adapter does not say),
    the marker in its environment (``adapters.process.MARKER_VAR``), and the machine it ran on."""

    benchmark: str  # str(BenchmarkId)
    fork_index: int
    pgid: int | None
    marker: str
    host: str
    boot_id: str | None
    started_at: float


_RUN_REF = re.compile(r"^(?:latest(?:~(?P<back>\d+))?|(?P<id>\d+))$")


def open_store(url_or_path: str | Path) -> Store:
    """Open (creating or migrating as needed) the store at ``url_or_path``.

    Accepts ``sqlite:///abs/path.db``, ``postgresql+psycopg://user@host/db``
    or a plain filesystem path, which means a SQLite file (its parent
    directories are created).  Raises StoreError naming the URL when the
    database cannot be reached or has a schema this code cannot handle.
    """
    url = parse_location(url_or_path)
    return Store(create_store_engine(url), display_url(url))


class Store:
    """A handle on one result database.  Not thread-safe; one per thread or process.

    Use :func:`open_store` rather than the constructor.  ``url`` is the
    location as shown to users (password masked).
    """

    def __init__(self, engine: Engine, url: str):
        self.url = url
        self._engine = engine
        # writers take SQLite's write lock at BEGIN, so two writers queue instead of deadlocking
        self._writer = engine.execution_options(**{BEGIN_MODE_OPTION: "IMMEDIATE"})
        # a load is several selects: they must see one snapshot, or a fork committed between the fork
        # query and the iteration query would come back empty.  SQLite read transactions already are
        # snapshots (WAL); elsewhere ask for it.
        self._reader = engine if engine.dialect.name == "sqlite" else \
            engine.execution_options(isolation_level="REPEATABLE READ")
        self._benchmark_rows: dict[tuple[int, str, str], int] = {}
        try:
            with self._write() as conn:
                ensure_schema(conn, f"store '{url}'", __version__)
        except BaseException:
            engine.dispose()
            raise

    # -- transactions -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _write(self) -> Iterator[Connection]:
        with self._translate_errors(), self._writer.begin() as conn:
            yield conn

    @contextlib.contextmanager
    def _read(self) -> Iterator[Connection]:
        with self._translate_errors(), self._reader.begin() as conn:
            yield conn

    @contextlib.contextmanager
    def _translate_errors(self) -> Iterator[None]:
        try:
            yield
        except sa.exc.SQLAlchemyError as exc:
            cause = getattr(exc, "orig", None) or exc
            raise StoreError(f"store '{self.url}': {type(cause).__name__}: {cause}".strip()) from exc
        except rows.UnstorableValue as exc:
            raise StoreError(f"store '{self.url}': not stored: {exc}") from None
        except rows.CorruptRow as exc:
            raise StoreError(f"store '{self.url}' holds a value benchwarden did not write: {exc} "
                             "(edited by hand, or damaged? fix or delete that run)") from None

    # -- writing a run as it happens ------------------------------------------------------------

    def create_run(self, meta: RunMeta) -> int:
        """Insert a new run with status RUNNING; return its id."""
        with self._write() as conn:
            rows.check_storable(meta)
            return self._insert_run(conn, meta, RunStatus.RUNNING)

    def add_benchmark(self, run_id: int, benchmark: Benchmark) -> None:
        """Register ``benchmark`` in the run (idempotent per suite and key; the first registration wins)."""
        with self._write() as conn:
            rows.check_storable_benchmark(benchmark)
            self._require_run(conn, run_id)
            bid = benchmark.id
            found = conn.execute(sa.select(benchmarks.c.id).where(
                benchmarks.c.run_id == run_id, benchmarks.c.suite == bid.suite, benchmarks.c.key == bid.key)).scalar()
            if found is None:
                position = conn.execute(sa.select(sa.func.count()).select_from(benchmarks)
                                        .where(benchmarks.c.run_id == run_id)).scalar_one()
                row = rows.benchmark_row(run_id, position, benchmark, None, None, ())
                found = _inserted_id(conn.execute(benchmarks.insert().values(row)))
            self._benchmark_rows[(run_id, bid.suite, bid.key)] = int(found)

    def save_fork(self, run_id: int, benchmark_id: BenchmarkId, fork: ForkResult) -> None:
        """Store one fork and all its iterations in one transaction, committed on return.

        Replaces an earlier fork with the same index (so a retried save is
        harmless).  Raises StoreError if the benchmark was not added to the run.
        """
        with self._write() as conn:
            rows.check_storable(None, benchmark_id, fork)
            row_id = self._benchmark_row_id(conn, run_id, benchmark_id)
            conn.execute(forks.delete().where(forks.c.benchmark_id == row_id, forks.c.fork_index == fork.index))
            # the fork has ended: it is no longer a process to look for (record_fork_process)
            conn.execute(fork_processes.delete().where(fork_processes.c.run_id == run_id,
                                                      fork_processes.c.benchmark == str(benchmark_id),
                                                      fork_processes.c.fork_index == fork.index))
            fork_id = _inserted_id(conn.execute(forks.insert().values(rows.fork_row(row_id, fork))))
            it_rows = rows.iteration_rows(fork_id, fork)
            if it_rows:
                conn.execute(iterations.insert(), it_rows)

    def record_fork_process(self, run_id: int, benchmark_id: BenchmarkId, fork_index: int, *, pgid: int | None,
                            marker: str, host: str, boot_id: str | None, started_at: float) -> None:
        """Note that a fork's process is running (committed on return); :meth:`save_fork` of that fork clears it.

        What is left after a ``kill -9`` of benchwarden are forks that may still run: ``run --resume`` reads
        them with :meth:`fork_processes` and ends those still alive.
        """
        with self._write() as conn:
            self._require_run(conn, run_id)
            where = (fork_processes.c.run_id == run_id, fork_processes.c.benchmark == str(benchmark_id),
                     fork_processes.c.fork_index == fork_index)
            conn.execute(fork_processes.delete().where(*where))
            conn.execute(fork_processes.insert().values(
                run_id=run_id, benchmark=str(benchmark_id), fork_index=fork_index, pgid=pgid, marker=marker,
                host=host, boot_id=boot_id, started_at=started_at))

    def fork_processes(self, run_id: int) -> list[ForkProcess]:
        """Forks of the run recorded as started and never saved (see :meth:`record_fork_process`)."""
        with self._read() as conn:
            found = conn.execute(sa.select(fork_processes).where(fork_processes.c.run_id == run_id)
                                 .order_by(fork_processes.c.id)).all()
        return [ForkProcess(benchmark=r.benchmark, fork_index=r.fork_index, pgid=r.pgid, marker=r.marker,
                            host=r.host, boot_id=r.boot_id, started_at=r.started_at) for r in found]

    def clear_fork_processes(self, run_id: int) -> None:
        """Forget the run's recorded fork processes (after ``run --resume`` has ended the live ones)."""
        with self._write() as conn:
            conn.execute(fork_processes.delete().where(fork_processes.c.run_id == run_id))

    def finish_benchmark(self, run_id: int, benchmark_id: BenchmarkId, status: BenchmarkStatus,
                         message: str | None, fork_decisions: Sequence[StopDecision]) -> None:
        """Record the benchmark's outcome and its stop policy's fork checkpoints."""
        with self._write() as conn:
            row_id = self._benchmark_row_id(conn, run_id, benchmark_id)
            conn.execute(benchmarks.update().where(benchmarks.c.id == row_id).values(
                status=status.value, message=message, fork_decisions=records.decisions_to_json(fork_decisions)))

    def finish_run(self, run_id: int, status: RunStatus) -> None:
        """Set the run's status; a terminal status also stamps ``finished_at``.

        ``RunStatus.RUNNING`` clears ``finished_at`` again (``run --resume``).
        """
        finished_at = None if status is RunStatus.RUNNING else time.time()
        with self._write() as conn:
            self._require_run(conn, run_id)
            conn.execute(runs.update().where(runs.c.id == run_id).values(status=status.value, finished_at=finished_at))

    def import_run(self, data: RunData) -> int:
        """Store a whole run (from JSON, JMH or Go importers) in one transaction; return its new id.

        ``data.id`` is ignored.  A benchmark loaded as unfinished
        (``records.UNFINISHED_MESSAGE``) is stored as unfinished again.
        """
        with self._write() as conn:
            rows.check_storable(data.meta)
            for result in data.results:
                rows.check_storable_benchmark(result.benchmark)
                for fork in result.forks:
                    rows.check_storable(None, result.benchmark.id, fork)
            run_id = self._insert_run(conn, data.meta, data.status)
            bench_rows = [rows.benchmark_row(run_id, pos, r.benchmark, *rows.stored_status(r), r.fork_decisions)
                          for pos, r in enumerate(data.results)]
            bench_ids = _insert_returning_ids(conn, benchmarks, bench_rows)
            fork_pairs = [(bench_id, fork) for bench_id, r in zip(bench_ids, data.results) for fork in r.forks]
            fork_ids = _insert_returning_ids(conn, forks, [rows.fork_row(b, f) for b, f in fork_pairs])
            it_rows = [row for fork_id, (_, fork) in zip(fork_ids, fork_pairs)
                       for row in rows.iteration_rows(fork_id, fork)]
            if it_rows:
                conn.execute(iterations.insert(), it_rows)
            return run_id

    # -- reading ----------------------------------------------------------------------------------

    def load_run(self, run_id: int) -> RunData:
        """The whole run: benchmarks in insertion order, forks by index, iterations by phase and index."""
        with self._read() as conn:
            run_row = conn.execute(_select_as_text(runs).where(runs.c.id == run_id)).one_or_none()
            if run_row is None:
                raise StoreError(f"store '{self.url}': run {run_id} not found")
            bench_rows = conn.execute(_select_as_text(benchmarks).where(benchmarks.c.run_id == run_id)
                                      .order_by(benchmarks.c.position)).all()
            fork_rows = conn.execute(
                _select_as_text(forks).join(benchmarks, forks.c.benchmark_id == benchmarks.c.id)
                .where(benchmarks.c.run_id == run_id).order_by(forks.c.benchmark_id, forks.c.fork_index)).all()
            it_rows = conn.execute(
                sa.select(iterations.c.fork_id, iterations.c.phase, iterations.c.idx, iterations.c.value_ns,
                          iterations.c.raw_value, iterations.c.ops, sa.type_coerce(iterations.c.secondary, sa.Text))
                .join(forks, iterations.c.fork_id == forks.c.id)
                .join(benchmarks, forks.c.benchmark_id == benchmarks.c.id)
                .where(benchmarks.c.run_id == run_id)
                .order_by(iterations.c.fork_id, iterations.c.phase, iterations.c.idx)).all()
            return rows.assemble_run(run_row, bench_rows, fork_rows, it_rows)

    def list_runs(self, limit: int = 50) -> list[RunSummary]:
        """The ``limit`` most recently stored runs, newest first (the statement is shared with the sqlite3
        fast path of :mod:`benchwarden.store.listing`)."""
        with self._read() as conn:
            found = conn.execute(sa.text(LIST_RUNS_SQL), {"limit": limit}).all()
            return [run_summary(row) for row in found]

    def latest_run_id(self, status: RunStatus | None = None) -> int | None:
        """Id of the most recently stored run (optionally with ``status``), or None."""
        query = sa.select(sa.func.max(runs.c.id))
        if status is not None:
            query = query.where(runs.c.status == status.value)
        with self._read() as conn:
            return conn.execute(query).scalar()

    def resolve_run(self, ref: str | None) -> int:
        """Run id for a user's reference: None or ``latest``, ``latest~N`` (N runs before), or an id.

        "Latest" means most recently *stored* (highest id), which for runs
        taken here is also the most recent; an imported old run counts as
        stored when it was imported.  Raises StoreError when the reference is
        malformed or names no run.
        """
        text = "latest" if ref is None else ref.strip()
        match = _RUN_REF.match(text)
        if match is None:
            raise StoreError(f"run reference '{ref}' not understood: expected 'latest', 'latest~N' or a run id")
        with self._read() as conn:
            if match.group("id") is not None:
                run_id = int(match.group("id"))
                if conn.execute(sa.select(runs.c.id).where(runs.c.id == run_id)).scalar() is None:
                    raise StoreError(f"store '{self.url}': run {run_id} not found")
                return run_id
            back = int(match.group("back") or 0)
            found = conn.execute(sa.select(runs.c.id).order_by(runs.c.id.desc()).offset(back).limit(1)).scalar()
        if found is None:
            total = "no runs" if back == 0 else f"fewer than {back + 1} runs"
            raise StoreError(f"store '{self.url}': '{text}' names no run: the store has {total}")
        return int(found)

    def unfinished_benchmarks(self, run_id: int) -> list[BenchmarkId]:
        """Benchmarks added to the run but never finished, in insertion order (what ``--resume`` continues)."""
        with self._read() as conn:
            self._require_run(conn, run_id)
            found = conn.execute(sa.select(benchmarks.c.id, benchmarks.c.suite, benchmarks.c.name,
                                           sa.type_coerce(benchmarks.c.params, sa.Text).label("params"))
                                 .where(benchmarks.c.run_id == run_id, benchmarks.c.status.is_(None))
                                 .order_by(benchmarks.c.position)).all()
            return [rows.benchmark_id(r) for r in found]

    # -- history (docs/history.md) ---------------------------------------------------------------

    def record_commits(self, infos: Sequence[commit_rows.CommitInfo]) -> None:
        """Insert or complete the place in history of these commits (refs are united with those known)."""
        with self._write() as conn:
            commit_rows.record_commits(conn, infos)

    def commits(self, shas: Sequence[str]) -> dict[str, commit_rows.CommitInfo]:
        """What the store knows of these commits' places in history (the unknown ones are absent)."""
        with self._read() as conn:
            return commit_rows.load_commits(conn, shas)

    def stored_runs(self) -> list[commit_rows.StoredRun]:
        """Every run that names a commit, oldest first: metadata, status and machine key, no measurements."""
        with self._read() as conn:
            return commit_rows.stored_runs(conn)

    def close(self) -> None:
        """Release every connection. The store must not be used afterwards."""
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- helpers ----------------------------------------------------------------------------------

    def _insert_run(self, conn: Connection, meta: RunMeta, status: RunStatus) -> int:
        row = {
            "created_at": meta.created_at, "finished_at": None, "status": status.value, "label": meta.label,
            "tool_version": meta.tool_version, "commit": meta.commit, "dirty": meta.dirty,
            "machine": dict(meta.machine), "toolchain": dict(meta.toolchain), "config": dict(meta.config),
            "machine_key": machine_key(meta.machine),
        }
        return _inserted_id(conn.execute(runs.insert().values(row)))

    def _require_run(self, conn: Connection, run_id: int) -> None:
        if conn.execute(sa.select(runs.c.id).where(runs.c.id == run_id)).scalar() is None:
            raise StoreError(f"store '{self.url}': run {run_id} not found")

    def _benchmark_row_id(self, conn: Connection, run_id: int, benchmark_id: BenchmarkId) -> int:
        cache_key = (run_id, benchmark_id.suite, benchmark_id.key)
        cached = self._benchmark_rows.get(cache_key)
        if cached is not None:
            return cached
        found = conn.execute(sa.select(benchmarks.c.id).where(
            benchmarks.c.run_id == run_id, benchmarks.c.suite == benchmark_id.suite,
            benchmarks.c.key == benchmark_id.key)).scalar()
        if found is None:
            raise StoreError(f"store '{self.url}': benchmark {benchmark_id} is not part of run {run_id} "
                             "(add_benchmark first)")
        self._benchmark_rows[cache_key] = int(found)
        return int(found)


def _select_as_text(table: sa.Table) -> sa.Select[Any]:
    """Every column of ``table``, JSON columns as their text: decoding (and checking) is rows' job, so a
    damaged JSON value becomes an error naming its row instead of failing inside the driver."""
    return sa.select(*(sa.type_coerce(c, _RAW[type(c.type)]).label(c.name) if type(c.type) in _RAW else c
                       for c in table.columns))


#: column types read as the driver returns them, checked by rows: JSON as text (a damaged JSON value fails in
#: rows, naming its row, not inside the driver), booleans as stored (SQLite's 0/1; SQLAlchemy would read any
#: text as True)
_RAW: dict[type, Any] = {sa.JSON: sa.Text, sa.Boolean: sa.Integer}


def _insert_returning_ids(conn: Connection, table: sa.Table, values: list[dict[str, Any]]) -> list[int]:
    """Bulk insert, returning the new primary keys in the order of ``values``."""
    if not values:
        return []
    result = conn.execute(table.insert().returning(table.c.id, sort_by_parameter_order=True), values)
    return [int(r[0]) for r in result]


def _inserted_id(result: sa.CursorResult[Any]) -> int:
    """The primary key of the one row an INSERT just wrote."""
    key = result.inserted_primary_key
    if key is None:  # only for executemany, which these single-row inserts never are
        raise StoreError("the database returned no id for an inserted row")
    return int(key[0])
