"""Stored rows <-> model values.  Writing builds plain row dicts; reading checks every value it decodes.

A store is a file anyone can open with ``sqlite3`` (or a shared PostgreSQL database): a row may have been
edited by hand, written by a broken tool, or damaged.  Reading never trusts it: a JSON column that is
not JSON, or not the shape we write, an unknown status, a text where a number belongs, a non-finite or
non-positive time, a timestamp no clock can show — each is a :class:`CorruptRow` naming the table, the
row and the column, which the store turns into a :class:`~benchwarden.errors.StoreError`.  Nothing
downstream (statistics, reports, exports) ever sees such a value, so none of them can fail on it.

The hot loop (iterations: tens of thousands of rows per run) stays cheap: numbers are checked with
two comparisons, and the JSON of secondary metrics is parsed once per distinct text.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from enum import Enum
from typing import Any, Mapping, Sequence

from benchwarden.model import (
    Benchmark,
    BenchmarkId,
    BenchmarkResult,
    BenchmarkStatus,
    Direction,
    ForkResult,
    ForkStatus,
    IterationResult,
    Phase,
    RunData,
    RunMeta,
    RunStatus,
    StopDecision,
)
from benchwarden.store import records
from benchwarden.units import check_unit

#: primary metrics a benchmark row may hold (schema version 2; benchwarden.metrics.catalog.PRIMARY)
METRICS = ("time", "cpu", "instructions")

#: timestamps are epoch seconds in [0, MAX_TIMESTAMP]: beyond (year ~5138), or before 1970, no clock of
#: ours produced them, and dates far outside would not even display (datetime's years 1-9999)
MAX_TIMESTAMP = 1e11


class CorruptRow(ValueError):
    """A stored value that is not what this code writes: names the table, the row and the column."""

    def __init__(self, table: str, row: object, column: str, detail: str):
        self.table, self.row, self.column, self.detail = table, row, column, detail
        super().__init__(f"table {table}, row {row}, column {column}: {detail}")


# -- model -> rows --------------------------------------------------------------------------------

class UnstorableValue(ValueError):
    """A value the store would refuse to read back (non-finite time, timestamp out of range): not written."""


def check_storable_benchmark(benchmark: Benchmark) -> None:
    """:class:`UnstorableValue` for a benchmark whose unit no report could convert with."""
    try:
        check_unit(benchmark.unit)
    except ValueError as exc:
        raise UnstorableValue(f"{benchmark.id}: unit: {exc}") from None


def check_storable(meta: RunMeta | None, benchmark: BenchmarkId | None = None, fork: ForkResult | None = None) -> None:
    """Raise :class:`UnstorableValue` naming the benchmark and fork for a value reading would call corrupt.

    Writing and reading share one contract, so a run the store accepted can always be shown again
    (a harness reporting ``inf``, or an imported file with a timestamp in the year 10^300, is refused
    before anything of it is written).
    """
    if meta is not None and not _is_timestamp(meta.created_at):
        raise UnstorableValue(f"run created_at = {_short(meta.created_at)} is not a time in epoch seconds "
                              f"in [0, {MAX_TIMESTAMP:g}]")
    if fork is None:
        return
    where = f"{benchmark} fork {fork.index}"
    for name in ("started_at", "finished_at"):
        if not _is_timestamp(getattr(fork, name)):
            raise UnstorableValue(f"{where}: {name} = {_short(getattr(fork, name))} is not a time in epoch seconds")
    for phase, its in (("warmup", fork.warmup), ("measurement", fork.measurement)):
        for i, it in enumerate(its):
            if not (_is_number(it.value_ns) and it.value_ns > 0 and _is_number(it.raw_value)
                    and (it.ops is None or _is_number(it.ops) and it.ops >= 0)
                    and all(_is_number(v) for v in it.secondary.values())):
                raise UnstorableValue(f"{where}: {phase} iteration {i + 1} has a value that is not a finite number "
                                      f"(value_ns must be > 0): {_short(it)}")


def _is_timestamp(value: object) -> bool:
    return _is_number(value) and 0 <= value <= MAX_TIMESTAMP  # type: ignore[operator]


def stored_status(result: BenchmarkResult) -> tuple[str | None, str | None]:
    if result.status is BenchmarkStatus.OK and result.message == records.UNFINISHED_MESSAGE:
        return None, None
    return result.status.value, result.message


def benchmark_row(run_id: int, position: int, benchmark: Benchmark, status: str | None, message: str | None,
                  fork_decisions: Sequence[StopDecision]) -> dict[str, Any]:
    bid = benchmark.id
    return {
        "run_id": run_id, "position": position, "suite": bid.suite, "name": bid.name,
        "params": records.params_to_json(bid.params), "key": bid.key, "mode": benchmark.mode,
        "unit": benchmark.unit, "direction": benchmark.direction.value, "spec": dict(benchmark.spec),
        "status": status, "message": message, "fork_decisions": records.decisions_to_json(fork_decisions),
        "metric": benchmark.metric,
    }


def fork_row(benchmark_row_id: int, fork: ForkResult) -> dict[str, Any]:
    return {
        "benchmark_id": benchmark_row_id, "fork_index": fork.index, "status": fork.status.value,
        "started_at": fork.started_at, "finished_at": fork.finished_at, "message": fork.message,
        "warmup_decisions": records.decisions_to_json(fork.warmup_decisions),
        "machine": dict(fork.machine) or None,
    }


def iteration_rows(fork_id: int, fork: ForkResult) -> list[dict[str, Any]]:
    rows = []
    for phase, its in ((Phase.WARMUP.value, fork.warmup), (Phase.MEASUREMENT.value, fork.measurement)):
        for idx, it in enumerate(its):
            rows.append({"fork_id": fork_id, "phase": phase, "idx": idx, "value_ns": it.value_ns,
                         "raw_value": it.raw_value, "ops": it.ops, "secondary": records.secondary_to_json(it.secondary)})
    return rows


# -- rows -> model, checked ------------------------------------------------------------------------

class _Row:
    """Checked access to the columns of one stored row."""

    def __init__(self, table: str, row: Any, row_id: object):
        self.table, self.row, self.id = table, row, row_id

    def corrupt(self, column: str, detail: str) -> CorruptRow:
        return CorruptRow(self.table, self.id, column, detail)

    def json(self, column: str, kind: type, nullable: bool = False) -> Any:
        """A JSON column (text, or already decoded by the driver) holding a ``kind`` (dict or list)."""
        raw = getattr(self.row, column)
        if raw is None:
            if nullable:
                return None
            raise self.corrupt(column, "missing (NULL)")
        value = raw
        if isinstance(raw, (str, bytes)):
            try:
                value = json.loads(raw)
            except (ValueError, RecursionError) as exc:
                raise self.corrupt(column, f"not valid JSON ({_short(exc)})") from None
        if value is None and nullable:
            return None
        if not isinstance(value, kind):
            raise self.corrupt(column, f"expected a JSON {'object' if kind is dict else 'array'}, "
                                       f"found {type(value).__name__}")
        return value

    def text_map(self, column: str) -> dict[str, str]:
        """A JSON object of names to scalar values (machine, toolchain, spec), as strings."""
        value = self.json(column, dict)
        out = {}
        for key, item in value.items():
            if not isinstance(item, (str, int, float, bool)) or isinstance(item, float) and not math.isfinite(item):
                raise self.corrupt(column, f"entry {key!r}: expected a text or a number, found {_short(item)}")
            out[str(key)] = item if isinstance(item, str) else json.dumps(item)
        return out

    def unit(self, column: str) -> str:
        try:
            return check_unit(getattr(self.row, column))
        except ValueError as exc:
            raise self.corrupt(column, str(exc)) from None

    def enum(self, column: str, enum: type[Enum]) -> Any:
        value = getattr(self.row, column)
        try:
            return enum(value)
        except ValueError:
            known = ", ".join(repr(m.value) for m in enum)
            raise self.corrupt(column, f"unknown value {_short(value)} (expected one of {known})") from None

    def text(self, column: str, nullable: bool = False) -> Any:
        value = getattr(self.row, column)
        if value is None and nullable:
            return None
        if not isinstance(value, str):
            raise self.corrupt(column, f"expected a text, found {_short(value)}")
        return value

    def timestamp(self, column: str, nullable: bool = False) -> float | None:
        value = getattr(self.row, column)
        if value is None and nullable:
            return None
        if not _is_number(value) or not 0 <= value <= MAX_TIMESTAMP:
            raise self.corrupt(column, f"expected a time in epoch seconds, found {_short(value)}")
        return float(value)

    def integer(self, column: str, minimum: int = 0) -> int:
        value = getattr(self.row, column)
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            raise self.corrupt(column, f"expected an integer >= {minimum}, found {_short(value)}")
        return value

    def boolean(self, column: str) -> bool | None:
        value = getattr(self.row, column)
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):  # SQLite stores booleans as 0/1
            return bool(value)
        raise self.corrupt(column, f"expected true or false, found {_short(value)}")

    def decisions(self, column: str) -> tuple[StopDecision, ...]:
        items = self.json(column, list)
        for i, item in enumerate(items):
            if not (isinstance(item, dict) and isinstance(item.get("stop"), bool) and isinstance(item.get("reason"), str)
                    and isinstance(item.get("values", {}), dict)
                    and all(_is_number(v) for v in item.get("values", {}).values())
                    and isinstance(item.get("warning"), (str, type(None)))):
                raise self.corrupt(column, f"element {i}: expected a stop decision "
                                           f"{{stop, reason, values, warning}}, found {_short(item)}")
        return records.decisions_from_json(items)

    def params(self, column: str = "params") -> tuple[tuple[str, str], ...]:
        items = self.json(column, list)
        if not all(isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in items):
            raise self.corrupt(column, f"expected a list of [name, value] text pairs, found {_short(items)}")
        return records.params_from_json(items)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _short(value: object, limit: int = 80) -> str:
    text = repr(value) if not isinstance(value, BaseException) else str(value)
    return text if len(text) <= limit else text[:limit] + "..."


def run_meta(row: Any) -> tuple[RunMeta, RunStatus]:
    """A ``runs`` row (its JSON columns as text or decoded) as metadata and status."""
    r = _Row("runs", row, row.id)
    config = r.json("config", dict)
    meta = RunMeta(created_at=r.timestamp("created_at"), tool_version=r.text("tool_version"),  # type: ignore[arg-type]
                   commit=r.text("commit", nullable=True), dirty=r.boolean("dirty"),
                   machine=r.text_map("machine"), toolchain=r.text_map("toolchain"), config=config,
                   label=r.text("label", nullable=True))
    return meta, r.enum("status", RunStatus)


def summary_fields(row: Any) -> dict[str, Any]:
    """The checked fields of a ``runs`` row that a run listing shows."""
    r = _Row("runs", row, row.id)
    return {"created_at": r.timestamp("created_at"), "finished_at": r.timestamp("finished_at", nullable=True),
            "status": r.enum("status", RunStatus), "label": r.text("label", nullable=True),
            "commit": r.text("commit", nullable=True), "dirty": r.boolean("dirty"),
            "tool_version": r.text("tool_version")}


def benchmark_id(row: Any) -> BenchmarkId:
    """The benchmark a ``benchmarks`` row names (suite, name and params checked)."""
    r = _Row("benchmarks", row, row.id)
    return BenchmarkId(r.text("suite"), r.text("name"), r.params())


def assemble_run(run_row: Any, bench_rows: Sequence[Any], fork_rows: Sequence[Any],
                 it_rows: Sequence[Any]) -> RunData:
    """A whole run from its rows; :class:`CorruptRow` for the first value that is not what we write."""
    phases: dict[tuple[int, str], list[IterationResult]] = defaultdict(list)
    decode = _SecondaryDecoder()
    warmup, measurement = Phase.WARMUP.value, Phase.MEASUREMENT.value
    fork_id = phase = idx = None
    try:
        for fork_id, phase, idx, value_ns, raw_value, ops, secondary in it_rows:  # noqa: B007 - idx: for errors
            if phase != warmup and phase != measurement:
                raise ValueError(f"column phase: unknown value {_short(phase)}")
            # value_ns > 0 and finite; raw_value and ops finite (ops >= 0): two comparisons each, no isinstance
            if not (0 < value_ns < math.inf) or not (-math.inf < raw_value < math.inf) \
                    or (ops is not None and not (0 <= ops < math.inf)):
                raise ValueError(f"expected finite numbers with value_ns > 0, found value_ns={_short(value_ns)}, "
                                 f"raw_value={_short(raw_value)}, ops={_short(ops)}")
            phases[(fork_id, phase)].append(IterationResult(float(value_ns), float(raw_value),
                                                            None if ops is None else float(ops), decode(secondary)))
    except (ValueError, TypeError, RecursionError) as exc:  # TypeError: a text compared with a number
        detail = str(exc) if isinstance(exc, ValueError) else f"expected numbers ({_short(exc)})"
        raise CorruptRow("iterations", f"(fork {fork_id}, {phase}, {idx})", "*", detail) from None
    forks_of: dict[int, list[ForkResult]] = defaultdict(list)
    for f in fork_rows:
        r = _Row("forks", f, f.id)
        forks_of[f.benchmark_id].append(ForkResult(
            index=r.integer("fork_index", minimum=1), status=r.enum("status", ForkStatus),
            warmup=tuple(phases.get((f.id, warmup), ())), measurement=tuple(phases.get((f.id, measurement), ())),
            started_at=r.timestamp("started_at"), finished_at=r.timestamp("finished_at"),  # type: ignore[arg-type]
            warmup_decisions=r.decisions("warmup_decisions"), message=r.text("message", nullable=True),
            machine=r.text_map("machine") if f.machine is not None else {}))
    results = tuple(_benchmark_result(b, forks_of.get(b.id, [])) for b in bench_rows)
    meta, status = run_meta(run_row)
    return RunData(meta=meta, results=results, status=status, id=run_row.id)


def _benchmark_result(row: Any, fork_results: list[ForkResult]) -> BenchmarkResult:
    r = _Row("benchmarks", row, row.id)
    spec = r.text_map("spec")
    metric = r.text("metric")
    if metric not in METRICS:
        raise r.corrupt("metric", f"unknown value {metric!r} (expected one of: {', '.join(METRICS)})")
    benchmark = Benchmark(id=benchmark_id(row), mode=r.text("mode"), unit=r.unit("unit"),
                          direction=r.enum("direction", Direction), spec=spec, metric=metric)
    if row.status is None:
        status, message = BenchmarkStatus.OK, records.UNFINISHED_MESSAGE
    else:
        status, message = r.enum("status", BenchmarkStatus), r.text("message", nullable=True)
    return BenchmarkResult(benchmark=benchmark, forks=tuple(fork_results), status=status, message=message,
                           fork_decisions=r.decisions("fork_decisions"))


class _SecondaryDecoder:
    """Decodes secondary-metric JSON, parsing (and checking) each distinct text once.

    Secondary metrics repeat heavily (Go's ``B/op``/``allocs/op`` are often
    constant), and JSON parsing dominated loading a large run.  Each
    iteration still gets its own dict.  Drivers that return JSON already
    parsed (psycopg) pass straight through.  ValueError for anything but an
    object of finite numbers.
    """

    def __init__(self) -> None:
        self._parsed: dict[str, dict[str, float]] = {}

    def __call__(self, raw: str | Mapping[str, float] | None) -> dict[str, float]:
        if raw is None:
            return {}
        if not isinstance(raw, str):
            return self._check(raw)
        parsed = self._parsed.get(raw)
        if parsed is None:
            try:
                decoded = json.loads(raw)
            except (ValueError, RecursionError) as exc:
                raise ValueError(f"column secondary: not valid JSON ({_short(exc)})") from None
            parsed = self._parsed[raw] = self._check(decoded or {})  # JSON 'null' counts as none
        return dict(parsed)

    @staticmethod
    def _check(value: object) -> dict[str, float]:
        if not isinstance(value, Mapping) or not all(_is_number(v) for v in value.values()):
            raise ValueError(f"column secondary: expected an object of finite numbers, found {_short(value)}")
        return {str(k): float(v) for k, v in value.items()}
