"""Export and import of one run as a JSON document (format ``benchwarden-run``, versioned).

The schema is documented in docs/store.md ("JSON export") with an example;
this module is its single implementation.  Format history (keep; one line per
version):

* **1** (benchwarden 0.1.0): first version.
* **2**: each benchmark has ``metric`` (``time``, ``cpu``, ``instructions``: what ``value_ns``
  holds, docs/metrics.md); version 1 documents get ``"time"``.
* **3**: forks on a cluster (docs/distributed.md): a fork may carry ``machine`` (the worker it ran on; absent:
  the run's machine) and may have status ``lost`` (its worker died mid-fork).

Reading validates the whole document with pydantic (strict JSON types, no
unknown keys) before anything is built, so a bad file is rejected with the
JSON path of the first problems (``benchmarks[2].forks[0].measurement[5].value_ns``)
and nothing half-imported.  Older format versions are brought up to date by
:data:`JSON_MIGRATIONS` (version N -> N+1, on the decoded document); a newer
version is refused.  Output is compact UTF-8 JSON, deterministic for a given
:class:`~benchwarden.model.RunData`, so export -> import -> export is
byte-identical.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchwarden import jsontext
from benchwarden.errors import ImportFormatError, clip
from benchwarden.model import (
    Benchmark,
    BenchmarkId,
    BenchmarkResult,
    BenchmarkStatus,
    Direction,
    ForkResult,
    ForkStatus,
    IterationResult,
    RunData,
    RunMeta,
    RunStatus,
)
from benchwarden.store import records
from benchwarden.store.rows import MAX_TIMESTAMP
from benchwarden.units import check_unit

FORMAT_NAME = "benchwarden-run"
#: the format version this code writes
JSON_SCHEMA_VERSION = 3


def _v1_to_v2(document: dict[str, Any]) -> dict[str, Any]:
    """Version 1 knew wall-clock time only."""
    for benchmark in document.get("benchmarks") or []:
        if isinstance(benchmark, dict):
            benchmark.setdefault("metric", "time")
    return document


def _v2_to_v3(document: dict[str, Any]) -> dict[str, Any]:
    """Version 2 forks all ran on the run's machine: no ``machine``, never ``lost`` (the defaults say so)."""
    return document


#: from_version -> function turning a decoded document of that version into the next one
JSON_MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _v1_to_v2, 2: _v2_to_v3}


# -- serialisation ---------------------------------------------------------------------------------

def export_run_json(data: RunData) -> bytes:
    """The run as a ``benchwarden-run`` JSON document (UTF-8 bytes). ``data.id`` is not written.

    Raises ValueError naming the benchmark when a value is NaN or infinite
    (JSON has no spelling for them; the store never produces them).
    """
    document = {"format": FORMAT_NAME, "schema_version": JSON_SCHEMA_VERSION, "run": _run_to_json(data),
                "benchmarks": [_benchmark_to_json(r) for r in data.results]}
    try:
        text = json.dumps(document, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except ValueError as exc:
        raise ValueError(f"run cannot be exported as JSON: {exc} ({_first_non_finite(data)})") from None
    return text.encode("utf-8") + b"\n"


def _run_to_json(data: RunData) -> dict[str, Any]:
    meta = data.meta
    return {"status": data.status.value, "created_at": meta.created_at, "label": meta.label,
            "tool_version": meta.tool_version, "commit": meta.commit, "dirty": meta.dirty,
            "machine": dict(meta.machine), "toolchain": dict(meta.toolchain), "config": dict(meta.config)}


def _benchmark_to_json(result: BenchmarkResult) -> dict[str, Any]:
    b = result.benchmark
    return {"suite": b.id.suite, "name": b.id.name, "params": records.params_to_json(b.id.params), "key": b.id.key,
            "mode": b.mode, "unit": b.unit, "direction": b.direction.value, "metric": b.metric,
            "spec": dict(b.spec),
            "status": result.status.value, "message": result.message,
            "fork_decisions": records.decisions_to_json(result.fork_decisions),
            "forks": [_fork_to_json(f) for f in result.forks]}


def _fork_to_json(fork: ForkResult) -> dict[str, Any]:
    return {"index": fork.index, "status": fork.status.value, "started_at": fork.started_at,
            "finished_at": fork.finished_at, "message": fork.message,
            "warmup_decisions": records.decisions_to_json(fork.warmup_decisions),
            "warmup": [_iteration_to_json(it) for it in fork.warmup],
            "measurement": [_iteration_to_json(it) for it in fork.measurement],
            **({"machine": dict(fork.machine)} if fork.machine else {})}


def _iteration_to_json(it: IterationResult) -> dict[str, Any]:
    return {"value_ns": it.value_ns, "raw_value": it.raw_value, "ops": it.ops,
            "secondary": {str(k): float(v) for k, v in it.secondary.items()}}


def _first_non_finite(data: RunData) -> str:
    for result in data.results:
        for fork in result.forks:
            for it in fork.warmup + fork.measurement:
                numbers = [it.value_ns, it.raw_value, it.ops or 0.0, *it.secondary.values()]
                if any(x != x or x in (float("inf"), float("-inf")) for x in numbers):
                    return f"first in {result.benchmark.id} fork {fork.index}"
    return "in the run metadata or stop decisions"


# -- validation schema (mirrors docs/store.md) ------------------------------------------------------

#: deepest nesting of arrays and objects accepted in a document (the format itself needs 6; the free-form
#: ``config`` snapshot a few more).  Deeper documents are refused before anything recursive reads them.
MAX_JSON_DEPTH = jsontext.MAX_DEPTH
#: largest fork index accepted (the store keeps it in a 32-bit column on PostgreSQL)
MAX_FORK_INDEX = 2**31 - 1


class _Strict(BaseModel):
    # every number finite: JSON has no NaN, but Python's reader accepts the NaN and Infinity tokens
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, allow_inf_nan=False)


_Timestamp = Field(ge=0, le=MAX_TIMESTAMP)  # the store's contract (store.rows)


class _Decision(_Strict):
    stop: bool
    reason: str
    values: dict[str, float] = Field(default_factory=dict)
    warning: str | None = None


class _Iteration(_Strict):
    value_ns: float = Field(gt=0, allow_inf_nan=False)
    raw_value: float = Field(allow_inf_nan=False)
    ops: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    secondary: dict[str, float] = Field(default_factory=dict)


class _Fork(_Strict):
    index: int = Field(ge=1, le=MAX_FORK_INDEX)
    status: Literal["complete", "failed", "lost"]
    started_at: float = _Timestamp
    finished_at: float = _Timestamp
    message: str | None = None
    warmup_decisions: list[_Decision] = Field(default_factory=list)
    warmup: list[_Iteration] = Field(default_factory=list)
    measurement: list[_Iteration] = Field(default_factory=list)
    machine: dict[str, str] = Field(default_factory=dict)  # version 3: the cluster worker it ran on


class _Benchmark(_Strict):
    suite: str = Field(min_length=1)
    name: str = Field(min_length=1)
    params: list[tuple[str, str]] = Field(default_factory=list)
    key: str
    mode: str
    unit: str
    direction: Literal["lower", "higher"]
    metric: Literal["time", "cpu", "instructions"]
    spec: dict[str, str] = Field(default_factory=dict)
    status: Literal["ok", "failed", "skipped"]
    message: str | None = None
    fork_decisions: list[_Decision] = Field(default_factory=list)
    forks: list[_Fork] = Field(default_factory=list)


class _Run(_Strict):
    status: Literal["running", "interrupted", "complete", "failed"]
    created_at: float = _Timestamp
    label: str | None = None
    tool_version: str
    commit: str | None = None
    dirty: bool | None = None
    machine: dict[str, str] = Field(default_factory=dict)
    toolchain: dict[str, str] = Field(default_factory=dict)
    config: dict[str, Any] = Field(default_factory=dict)


class _Document(_Strict):
    format: Literal["benchwarden-run"]
    schema_version: Literal[3]
    run: _Run
    benchmarks: list[_Benchmark]


# -- deserialisation --------------------------------------------------------------------------------

def import_run_json(blob: bytes | str, source: str = "<json>") -> RunData:
    """Parse a ``benchwarden-run`` document into a RunData (``id`` None) ready for ``Store.import_run``.

    ``source`` names the file in errors.  Raises ImportFormatError for
    invalid JSON (with its line), a different format, a version newer than
    :data:`JSON_SCHEMA_VERSION`, or a document that does not match the schema.
    """
    raw = blob.encode("utf-8") if isinstance(blob, str) else blob
    version = _check_header(raw, source)
    if version < JSON_SCHEMA_VERSION:
        raw = _migrate(raw, version, source)
    try:
        document = _Document.model_validate_json(raw)
    except ValidationError as exc:
        raise ImportFormatError(source, _describe(exc)) from None
    return _build_run(document, source)


def _check_header(raw: bytes, source: str) -> int:
    try:
        header = jsontext.loads(raw, max_depth=MAX_JSON_DEPTH)
    except jsontext.JsonTextError as exc:
        column = f" (column {exc.column})" if exc.column is not None else ""
        raise ImportFormatError(source, f"{exc.message}{column}", line=exc.line) from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        found = header.get("format") if isinstance(header, dict) else type(header).__name__
        raise ImportFormatError(source, f"not a benchwarden run export: expected \"format\": \"{FORMAT_NAME}\", "
                                        f"found {clip(repr(found), 40)}")
    version = header.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ImportFormatError(source, f"schema_version: expected a positive integer, found {clip(repr(version), 40)}")
    if version > JSON_SCHEMA_VERSION:
        raise ImportFormatError(source, f"schema_version {version} was written by a newer benchwarden; this one "
                                        f"reads versions up to {JSON_SCHEMA_VERSION}")
    return version


def _migrate(raw: bytes, version: int, source: str) -> bytes:
    document = json.loads(raw)
    while version < JSON_SCHEMA_VERSION:
        step = JSON_MIGRATIONS.get(version)
        if step is None:
            raise ImportFormatError(source, f"no migration from schema_version {version}")
        document = step(document)
        version += 1
        document["schema_version"] = version
    return json.dumps(document).encode("utf-8")


def _describe(exc: ValidationError, limit: int = 5) -> str:
    problems = []
    for error in exc.errors()[:limit]:
        path = _json_path(error["loc"])
        problems.append(f"{path}: {error['msg']}" if path else error["msg"])
    more = exc.error_count() - limit
    suffix = f" (and {more} more)" if more > 0 else ""
    return "invalid run export: " + "; ".join(problems) + suffix


def _json_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _build_run(doc: _Document, source: str) -> RunData:
    run = doc.run
    meta = RunMeta(created_at=run.created_at, tool_version=run.tool_version, commit=run.commit, dirty=run.dirty,
                   machine=dict(run.machine), toolchain=dict(run.toolchain), config=dict(run.config),
                   label=run.label)
    results = tuple(_build_benchmark(b, i, source) for i, b in enumerate(doc.benchmarks))
    return RunData(meta=meta, results=results, status=RunStatus(run.status), id=None)


def _build_benchmark(b: _Benchmark, position: int, source: str) -> BenchmarkResult:
    bid = BenchmarkId(b.suite, b.name, tuple(b.params))
    if bid.key != b.key:
        raise ImportFormatError(source, f"benchmarks[{position}].key: '{b.key}' does not match name and params "
                                        f"(expected '{bid.key}')")
    try:
        check_unit(b.unit)
    except ValueError as exc:
        raise ImportFormatError(source, f"benchmarks[{position}].unit: {exc}") from None
    indexes = [f.index for f in b.forks]
    if len(set(indexes)) != len(indexes):
        raise ImportFormatError(source, f"benchmarks[{position}].forks: duplicate fork index in {indexes}")
    benchmark = Benchmark(id=bid, mode=b.mode, unit=b.unit, direction=Direction(b.direction), spec=dict(b.spec),
                          metric=b.metric)
    return BenchmarkResult(benchmark=benchmark, forks=tuple(_build_fork(f) for f in b.forks),
                           status=BenchmarkStatus(b.status), message=b.message,
                           fork_decisions=records.decisions_from_json([d.model_dump() for d in b.fork_decisions]))


def _build_fork(f: _Fork) -> ForkResult:
    return ForkResult(index=f.index, status=ForkStatus(f.status),
                      warmup=tuple(_build_iteration(it) for it in f.warmup),
                      measurement=tuple(_build_iteration(it) for it in f.measurement),
                      started_at=f.started_at, finished_at=f.finished_at,
                      warmup_decisions=records.decisions_from_json([d.model_dump() for d in f.warmup_decisions]),
                      message=f.message, machine=dict(f.machine))


def _build_iteration(it: _Iteration) -> IterationResult:
    return IterationResult(value_ns=it.value_ns, raw_value=it.raw_value, ops=it.ops, secondary=dict(it.secondary))
