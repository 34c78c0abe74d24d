"""Relational schema of the result store, its version, and the migration chain.

Schema history (keep this list; add one line per version):

* **1** (benchwarden 0.1.0): ``runs``, ``benchmarks``, ``forks``,
  ``iterations``, ``schema_version``.
* **2**: ``benchmarks.metric`` — the primary metric ``value_ns`` holds
  (``time``, ``cpu``, ``instructions``; docs/metrics.md).  Rows of version 1
  were all measured in wall-clock time: the migration fills in ``time``.
* **3**: ``fork_processes`` — the process group and marker of every fork while it runs, so that
  ``run --resume`` can end forks a killed benchwarden left behind (docs/store.md, "Durability").
* **4**: history (docs/history.md): ``runs.machine_key`` — the machine's identity as a key, so a series
  never mixes machines (the migration derives it from each run's stored ``machine``); ``commits`` — each
  measured commit's place in history (generation number in parent order, commit date, parents, subject,
  the branches and tags seen pointing at it), filled from git by ``history`` and ``backfill``.
* **5**: forks on a cluster (docs/distributed.md): ``forks.machine`` — the worker a fork ran on (NULL: the run's
  own machine, which every fork of older versions ran on); fork status ``lost`` (its worker died mid-fork).

Layout: a run has benchmarks (one row per suite x benchmark key, in the
order they were added); a benchmark has forks (unique per fork index); a
fork has iterations (unique per phase x index).  Deleting a run cascades.
Every measurement keeps both ``value_ns`` (normalised, lower is better) and
``raw_value`` (the harness's own figure).  Structured fields that are only
ever read whole (machine, toolchain, config, spec, stop decisions, secondary
metrics) are JSON columns rather than side tables: nothing queries inside
them, and one column per concept keeps the bulk load to four queries.

Versioning: ``schema_version`` holds exactly one row.  A fresh database is
created at :data:`SCHEMA_VERSION` directly.  An older database is brought up
to date on open by applying :data:`MIGRATIONS` in order (each migrates from
version N to N+1), all in one transaction, so a failed migration leaves the
database at its old version.  A database *newer* than this code is refused
with a :class:`~benchwarden.errors.StoreError` rather than risking writes the
newer code would misread.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from benchwarden.errors import StoreError
from benchwarden.store.version import SCHEMA_VERSION as SCHEMA_VERSION  # the version this code writes

metadata = sa.MetaData()

#: plain JSON on every backend.  Not PostgreSQL's JSONB: it reorders object keys, and the config
#: snapshot, spec and metadata must come back in the order they were written (export identity).
#: ``none_as_null``: Python None is SQL NULL, not the JSON text 'null' (cheaper to store and to load).
Json = sa.JSON(none_as_null=True)

schema_version = sa.Table(
    "schema_version",
    metadata,
    sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("tool_version", sa.String(64), nullable=False),  # benchwarden that wrote this version
)

runs = sa.Table(
    "runs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("created_at", sa.Double, nullable=False),  # epoch seconds
    sa.Column("finished_at", sa.Double, nullable=True),  # set by finish_run
    sa.Column("status", sa.String(16), nullable=False),  # model.RunStatus value
    sa.Column("label", sa.Text, nullable=True),
    sa.Column("tool_version", sa.String(64), nullable=False),
    sa.Column("commit", sa.String(64), nullable=True),
    sa.Column("dirty", sa.Boolean, nullable=True),
    sa.Column("machine", Json, nullable=False),
    sa.Column("toolchain", Json, nullable=False),
    sa.Column("config", Json, nullable=False),
    sa.Column("machine_key", sa.String(64), nullable=True),  # environment.machine_key(machine) (version 4)
    sa.Index("ix_runs_machine_commit", "machine_key", "commit"),
)

commits = sa.Table(
    "commits",
    metadata,
    sa.Column("sha", sa.String(64), primary_key=True),
    # 1 + the largest generation of its parents (a root commit is 1): ordering by it respects parent order
    sa.Column("generation", sa.Integer, nullable=True),
    sa.Column("committed_at", sa.Double, nullable=True),  # committer date, epoch seconds
    sa.Column("parents", Json, nullable=False),  # list of parent shas, first parent first
    sa.Column("subject", sa.Text, nullable=True),
    sa.Column("refs", Json, nullable=False),  # sorted list of branch and tag names seen pointing at it
)

benchmarks = sa.Table(
    "benchmarks",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    sa.Column("position", sa.Integer, nullable=False),  # insertion order within the run, from 0
    sa.Column("suite", sa.Text, nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("params", Json, nullable=False),  # ordered list of [name, value] pairs
    sa.Column("key", sa.Text, nullable=False),  # BenchmarkId.key
    sa.Column("mode", sa.String(32), nullable=False),
    sa.Column("unit", sa.String(32), nullable=False),
    sa.Column("direction", sa.String(8), nullable=False),  # model.Direction value
    sa.Column("spec", Json, nullable=False),
    sa.Column("status", sa.String(16), nullable=True),  # model.BenchmarkStatus value; NULL = not finished
    sa.Column("message", sa.Text, nullable=True),
    sa.Column("fork_decisions", Json, nullable=False),  # list of StopDecision objects
    sa.Column("metric", sa.String(16), nullable=False, server_default="time"),  # Benchmark.metric (version 2)
    sa.UniqueConstraint("run_id", "suite", "key", name="uq_benchmarks_run_suite_key"),
)

forks = sa.Table(
    "forks",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("benchmark_id", sa.Integer, sa.ForeignKey("benchmarks.id", ondelete="CASCADE"), nullable=False),
    sa.Column("fork_index", sa.Integer, nullable=False),  # 1-based, as ForkResult.index
    sa.Column("status", sa.String(16), nullable=False),  # model.ForkStatus value
    sa.Column("started_at", sa.Double, nullable=False),
    sa.Column("finished_at", sa.Double, nullable=False),
    sa.Column("message", sa.Text, nullable=True),
    sa.Column("warmup_decisions", Json, nullable=False),
    sa.Column("machine", Json, nullable=True),  # ForkResult.machine; NULL: the run's machine (version 5)
    sa.UniqueConstraint("benchmark_id", "fork_index", name="uq_forks_benchmark_index"),
)

fork_processes = sa.Table(
    "fork_processes",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    sa.Column("benchmark", sa.Text, nullable=False),  # str(BenchmarkId): suite:key
    sa.Column("fork_index", sa.Integer, nullable=False),
    sa.Column("pgid", sa.Integer, nullable=True),  # NULL when the adapter does not say (Go)
    sa.Column("marker", sa.String(64), nullable=False),  # value of adapters.process.MARKER_VAR in its environment
    sa.Column("host", sa.Text, nullable=False),
    sa.Column("boot_id", sa.String(64), nullable=True),
    sa.Column("started_at", sa.Double, nullable=False),
    sa.UniqueConstraint("run_id", "benchmark", "fork_index", name="uq_fork_processes_fork"),
)

iterations = sa.Table(
    "iterations",
    metadata,
    sa.Column("fork_id", sa.Integer, sa.ForeignKey("forks.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("phase", sa.String(12), primary_key=True),  # model.Phase value
    sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),  # 0-based within the phase
    sa.Column("value_ns", sa.Double, nullable=False),
    sa.Column("raw_value", sa.Double, nullable=False),
    sa.Column("ops", sa.Double, nullable=True),
    sa.Column("secondary", Json, nullable=True),  # NULL when the iteration has no secondary metrics
)


@dataclass(frozen=True)
class Migration:
    """One step of the chain: brings a database from ``from_version`` to ``from_version + 1``.

    ``apply`` runs inside the open transaction and must only use the
    connection it is given (DDL and data fix-ups alike).
    """

    from_version: int
    description: str
    apply: Callable[[Connection], None]


def _add_benchmark_metric(conn: Connection) -> None:
    """1 -> 2: every benchmark of version 1 was measured in wall-clock time."""
    conn.execute(sa.text("ALTER TABLE benchmarks ADD COLUMN metric VARCHAR(16) NOT NULL DEFAULT 'time'"))


def _add_fork_processes(conn: Connection) -> None:
    """2 -> 3: the table of forks while they run (empty: forks of older versions were never recorded)."""
    table = sa.Table(  # the table as version 3 defines it, independent of later changes to `fork_processes`
        "fork_processes", sa.MetaData(),
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.Integer, sa.ForeignKey(runs.c.id, ondelete="CASCADE"), nullable=False),
        sa.Column("benchmark", sa.Text, nullable=False),
        sa.Column("fork_index", sa.Integer, nullable=False),
        sa.Column("pgid", sa.Integer, nullable=True),
        sa.Column("marker", sa.String(64), nullable=False),
        sa.Column("host", sa.Text, nullable=False),
        sa.Column("boot_id", sa.String(64), nullable=True),
        sa.Column("started_at", sa.Double, nullable=False),
        sa.UniqueConstraint("run_id", "benchmark", "fork_index", name="uq_fork_processes_fork"),
    )
    table.create(conn)


def _add_history(conn: Connection) -> None:
    """3 -> 4: ``runs.machine_key`` derived from every stored run's machine, and the (empty) ``commits`` table.

    A run whose stored ``machine`` is not a JSON object of strings keeps a NULL key (reading that run
    reports the damage as before; the migration must not fail on it and lose the upgrade of the rest).
    """
    from benchwarden.environment import machine_key

    conn.execute(sa.text("ALTER TABLE runs ADD COLUMN machine_key VARCHAR(64)"))
    conn.execute(sa.text('CREATE INDEX ix_runs_machine_commit ON runs (machine_key, "commit")'))
    table = sa.Table(  # the table as version 4 defines it, independent of later changes to `commits`
        "commits", sa.MetaData(),
        sa.Column("sha", sa.String(64), primary_key=True),
        sa.Column("generation", sa.Integer, nullable=True),
        sa.Column("committed_at", sa.Double, nullable=True),
        sa.Column("parents", Json, nullable=False),
        sa.Column("subject", sa.Text, nullable=True),
        sa.Column("refs", Json, nullable=False),
    )
    table.create(conn)
    found = conn.execute(sa.text("SELECT id, CAST(machine AS TEXT) FROM runs")).all()
    keys = []
    for run_id, text in found:
        try:
            machine = json.loads(text) if text is not None else None
        except ValueError:
            continue
        if isinstance(machine, dict) and all(isinstance(v, str) for v in machine.values()):
            keys.append({"run_id": run_id, "key": machine_key(machine)})
    if keys:
        conn.execute(sa.text("UPDATE runs SET machine_key = :key WHERE id = :run_id"), keys)


def _add_fork_machine(conn: Connection) -> None:
    """4 -> 5: ``forks.machine``, NULL for every existing fork (all ran on their run's machine)."""
    conn.execute(sa.text("ALTER TABLE forks ADD COLUMN machine JSON"))


#: the migration chain, ordered
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "benchmarks.metric: the primary metric of value_ns", _add_benchmark_metric),
    Migration(2, "fork_processes: forks while they run, for run --resume", _add_fork_processes),
    Migration(3, "runs.machine_key and commits: history per machine in commit order", _add_history),
    Migration(4, "forks.machine: the cluster worker a fork ran on", _add_fork_machine),
)

_OUR_TABLES = ("runs", "benchmarks", "forks", "iterations")
_SCHEMA_LOCK_KEY = 0x62656E6368  # "bench": advisory lock id for schema creation and migration on PostgreSQL


def ensure_schema(conn: Connection, where: str, tool_version: str,
                  migrations: Sequence[Migration] = MIGRATIONS, target_version: int = SCHEMA_VERSION) -> int:
    """Create or migrate the schema inside the caller's transaction; return the version now in place.

    ``where`` names the store in error messages.  ``migrations`` and
    ``target_version`` are parameters only so tests can exercise the chain.
    Raises :class:`StoreError` for a database newer than ``target_version``,
    for a database with our tables but no version, and for a gap in the chain.
    """
    if conn.dialect.name == "postgresql":
        # two processes opening a fresh database at once must not both create the tables;
        # SQLite writers are already serialised by BEGIN IMMEDIATE
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK_KEY})
    inspector = sa.inspect(conn)
    present = set(inspector.get_table_names())
    if "schema_version" not in present:
        foreign = sorted(present.intersection(_OUR_TABLES))
        if foreign:
            raise StoreError(f"{where}: has tables {', '.join(foreign)} but no schema_version table; "
                             "it was not written by benchwarden, refusing to touch it")
        _create_fresh(conn, tool_version, target_version)
        return target_version
    version = read_version(conn, where)
    if version > target_version:
        raise StoreError(f"{where}: store schema version {version} is newer than this benchwarden supports "
                         f"({target_version}, tool {tool_version}); upgrade benchwarden to read it")
    if version < target_version:
        _migrate(conn, where, tool_version, version, target_version, migrations)
    return target_version


def read_version(conn: Connection, where: str) -> int:
    """The single version number in ``schema_version``; StoreError when the table is malformed."""
    rows = conn.execute(sa.select(schema_version.c.version)).scalars().all()
    if len(rows) != 1:
        raise StoreError(f"{where}: schema_version table must hold exactly one row, found {len(rows)}")
    return int(rows[0])


def _create_fresh(conn: Connection, tool_version: str, target_version: int) -> None:
    metadata.create_all(conn)
    conn.execute(schema_version.insert().values(version=target_version, tool_version=tool_version))


def _migrate(conn: Connection, where: str, tool_version: str, version: int, target_version: int,
             migrations: Sequence[Migration]) -> None:
    steps = {m.from_version: m for m in migrations}
    while version < target_version:
        step = steps.get(version)
        if step is None:
            raise StoreError(f"{where}: no migration from schema version {version} to {version + 1}")
        step.apply(conn)
        version += 1
        conn.execute(schema_version.update().values(version=version, tool_version=tool_version))
