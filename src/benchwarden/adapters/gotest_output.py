"""Parsers for ``go test -bench`` output: live result lines and imported result files.

Pure functions and a small line-at-a-time state machine, no processes.  The
format is Go's benchmark text format (golang.org/design/14313-benchmark-format,
as read by golang.org/x/perf/benchfmt):

* a *result line* is a benchmark name (``Benchmark`` not followed by a
  lower-case letter, then any non-space characters), the iteration count N,
  then ``value unit`` pairs: ``BenchmarkX/size=100-2  1000  1234 ns/op
  430.36 MB/s  16 B/op  1 allocs/op`` (custom ``b.ReportMetric`` units too);
* a *configuration line* is ``key: value`` with a key starting with a
  lower-case letter and containing no space or upper-case letter
  (``goos: linux``, ``pkg: example.com/wordstat``); it applies to the results
  after it;
* anything else (``PASS``, ``ok  pkg 1.2s``, ``--- BENCH:`` logs, user output)
  is not a result.

Two quirks of ``go test`` are handled explicitly:

* **GOMAXPROCS suffix.**  When GOMAXPROCS is not 1, Go appends ``-N`` to the
  name.  Where the exact name is known (a live fork) the suffix is recognised
  exactly; in imported files a trailing ``-<digits>`` is taken as the suffix,
  as benchfmt does (a sub-benchmark really named ``x-4`` run with GOMAXPROCS=1
  is therefore misread: the format itself is ambiguous there).
* **Split result lines.**  Without ``-test.v`` Go prints the name *before*
  running a repetition and the figures after it, so anything the benchmark
  writes to stdout lands between them: ``BenchmarkX-2  hello`` followed by
  ``   1000  1234 ns/op``.  The name is kept *pending* and a following bare
  ``N value unit ...`` line completes it.  A pending name that is never
  completed (the process panicked or the output was cut) is an *unfinished*
  repetition, reported as such rather than silently dropped.

Import model (``go test -bench`` files → :class:`~benchwarden.model.RunData`):
one file is one run; **consecutive repetitions of one benchmark within one
``go test`` process are the iterations of one fork** (that is what
``-count`` produces), and a fork ends at the next different benchmark, at a
configuration line (a new ``go test`` invocation or package prints its
``goos:/pkg:`` header) or at ``PASS``/``FAIL``/``ok`` lines.  So a file built by
appending ``go test -count 1`` five times gives five forks of one iteration,
one built by ``-count 5`` one fork of five iterations.  Imported data has no
warmup (Go has none): every iteration is a measurement iteration.
"""

from __future__ import annotations

import math
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Mapping

from benchwarden import __version__
from benchwarden.errors import ImportFormatError
from benchwarden.model import (
    Benchmark,
    BenchmarkId,
    BenchmarkResult,
    BenchmarkStatus,
    ForkResult,
    ForkStatus,
    IterationResult,
    RunData,
    RunMeta,
    RunStatus,
)
from benchwarden.units import TIME_UNITS_NS, to_ns_per_op

#: mode and unit of every Go benchmark: time per operation, lower is better
GO_MODE = "go"
GO_UNIT = "ns/op"

_NAME = re.compile(r"Benchmark(?![a-z])\S*")
_PROCS_SUFFIX = re.compile(r"^(?P<base>.+?)-(?P<procs>\d+)$")
_CONFIG = re.compile(r"^(?P<key>[a-z][^\sA-Z:]*):(?:\s+(?P<value>.*?))?\s*$")
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_CONTINUATION = re.compile(rf"^\s*\d+(?:\s+{_NUMBER}\s+\S+)+\s*$")
_PROCESS_END = re.compile(r"^(PASS|FAIL|ok\s|exit status\s|panic:|fatal error:)")
_FAIL = re.compile(r"^---\s+FAIL:\s+(?P<name>Benchmark(?![a-z])\S*)")


class ResultLineError(ValueError):
    """A line that claims to be a benchmark result (name and N) but whose figures cannot be read."""


@dataclass(frozen=True)
class GoResult:
    """One result line: one repetition (one ``-count``) of one benchmark.

    ``name``: full name as printed, GOMAXPROCS suffix removed
    (``BenchmarkTokenize/size=100``).  ``procs``: the suffix, or None when
    absent.  ``iterations``: Go's N (operations in the repetition).
    ``metrics``: unit -> value in printed order (``ns/op``, ``MB/s``,
    ``B/op``, ``allocs/op``, custom units).
    """

    name: str
    procs: int | None
    iterations: int
    metrics: Mapping[str, float]


@dataclass(frozen=True)
class Unfinished:
    """A repetition that started (its name was printed) but never reported figures."""

    name: str
    procs: int | None
    line: int  # 1-based line where the name was printed


@dataclass(frozen=True)
class Failed:
    """``--- FAIL: BenchmarkX`` : the benchmark failed through the testing API (``b.Fatal``, ``b.Error``)."""

    name: str
    procs: int | None
    line: int


@dataclass(frozen=True)
class ConfigLine:
    key: str
    value: str


@dataclass(frozen=True)
class ProcessEnd:
    """``PASS``, ``FAIL``, ``ok ...``, ``exit status``, ``panic:``, ``fatal error:``: a go test process ends."""

    text: str


#: what :meth:`GoOutputParser.feed` reports
Event = GoResult | Failed | ConfigLine | ProcessEnd | Unfinished


def split_procs(name: str) -> tuple[str, int | None]:
    """``"BenchmarkX/a-2"`` -> ``("BenchmarkX/a", 2)``; no trailing ``-<digits>`` -> ``(name, None)``."""
    m = _PROCS_SUFFIX.match(name)
    if not m:
        return name, None
    return m.group("base"), int(m.group("procs"))


def match_name(printed: str, expected: str) -> int | None | bool:
    """Whether a printed name is ``expected`` (exactly, or with a GOMAXPROCS suffix).

    Returns the suffix (an int), None for an exact match without suffix, or
    False when the printed name is another benchmark.  Used by live forks,
    where the exact name is known, so a name that itself ends in ``-<digits>``
    is not mistaken for a suffix.
    """
    if printed == expected:
        return None
    if printed.startswith(expected + "-") and printed[len(expected) + 1:].isdigit():
        return int(printed[len(expected) + 1:])
    return False


def parse_figures(fields: list[str]) -> tuple[int, dict[str, float]]:
    """Parse ``["1000", "1234", "ns/op", "16", "B/op"]`` into ``(1000, {"ns/op": 1234.0, "B/op": 16.0})``.

    Raises :class:`ResultLineError` naming the offending field.
    """
    if not fields:
        raise ResultLineError("no iteration count after the benchmark name")
    try:
        iterations = int(fields[0])
    except ValueError:
        raise ResultLineError(f"iteration count {fields[0]!r} is not an integer") from None
    pairs = fields[1:]
    if not pairs:
        raise ResultLineError("no measurements after the iteration count (truncated line?)")
    if len(pairs) % 2:
        raise ResultLineError(f"measurement {pairs[-1]!r} has no unit (truncated line?)")
    metrics: dict[str, float] = {}
    for value_text, unit in zip(pairs[::2], pairs[1::2]):
        try:
            value = float(value_text)
        except ValueError:
            raise ResultLineError(f"value {value_text!r} for unit {unit!r} is not a number") from None
        if not math.isfinite(value):
            raise ResultLineError(f"value {value_text!r} for unit {unit!r} is not finite")
        metrics[unit] = value
    return iterations, metrics


def benchmark_name(line: str) -> tuple[str, str] | None:
    """If ``line`` starts with a benchmark name, return ``(name, rest of line)``; else None."""
    m = _NAME.match(line)
    if not m:
        return None
    return m.group(0), line[m.end():]


def parse_config(line: str) -> ConfigLine | None:
    m = _CONFIG.match(line)
    if not m:
        return None
    return ConfigLine(m.group("key"), m.group("value") or "")


class GoOutputParser:
    """Line-at-a-time parser for go test output; keeps the pending name of a split result line.

    ``feed(line)`` returns the events the line completes, in order (usually
    zero or one): :class:`GoResult`, :class:`Failed`, :class:`ConfigLine`,
    :class:`ProcessEnd`, and :class:`Unfinished` when the line abandons a pending name (a new
    benchmark name, a configuration line or a process end after a name without
    figures).  It raises :class:`ResultLineError` for a result line whose
    figures are malformed.  ``finish()`` returns the :class:`Unfinished` left
    pending at end of input, if any.  ``expected``: in a live fork, the exact
    full name being run; names are then matched exactly (see
    :func:`match_name`) instead of by guessing the GOMAXPROCS suffix.
    ``procs_suffix=False``: names carry no suffix (the output of a run with
    ``-test.cpu 1``) and are taken verbatim.
    """

    def __init__(self, expected: str | None = None, procs_suffix: bool = True):
        self.expected = expected
        self.procs_suffix = procs_suffix
        self.line_number = 0
        self._pending: Unfinished | None = None

    def _name_and_procs(self, printed: str) -> tuple[str, int | None]:
        if self.expected is not None:
            procs = match_name(printed, self.expected)
            if not isinstance(procs, bool):  # False (another benchmark) is the only bool it returns
                return self.expected, procs
        if not self.procs_suffix:
            return printed, None
        return split_procs(printed)

    def feed(self, line: str) -> list[Event]:
        self.line_number += 1
        named = benchmark_name(line)
        if named is not None:
            return self._feed_named(*named)
        if self._pending is not None and _CONTINUATION.match(line):
            pending, self._pending = self._pending, None
            iterations, metrics = parse_figures(line.split())
            return [GoResult(pending.name, pending.procs, iterations, metrics)]
        failed = _FAIL.match(line)
        if failed:
            return [Failed(*self._name_and_procs(failed.group("name")), self.line_number)]
        end = _PROCESS_END.match(line)
        config = None if end else parse_config(line)
        if not (end or config):
            return []  # the benchmark's own output, go test chatter
        events: list[Event] = self._abandon()
        events.append(ProcessEnd(line.strip()) if end else config)  # type: ignore[arg-type]
        return events

    def _feed_named(self, printed: str, rest: str) -> list[Event]:
        name, procs = self._name_and_procs(printed)
        events: list[Event] = self._abandon()
        fields = rest.split()
        if fields and fields[0].isdigit():
            iterations, metrics = parse_figures(fields)
            events.append(GoResult(name, procs, iterations, metrics))
        else:
            # The name alone, or followed by the benchmark's own output: the figures come later.
            self._pending = Unfinished(name, procs, self.line_number)
        return events

    def _abandon(self) -> list[Event]:
        pending, self._pending = self._pending, None
        return [pending] if pending is not None else []

    def finish(self) -> Unfinished | None:
        pending, self._pending = self._pending, None
        return pending


def time_per_op_ns(metrics: Mapping[str, float]) -> float | None:
    """The time-per-operation figure in ns (``ns/op``, or e.g. ``sec/op`` from benchfmt tools); None if absent."""
    if "ns/op" in metrics:
        return metrics["ns/op"]
    for unit, value in metrics.items():
        num, _, den = unit.partition("/")
        if den == "op" and num in TIME_UNITS_NS:
            return to_ns_per_op(value, unit)
    return None


def to_iteration(result: GoResult) -> IterationResult:
    """Map a result line to an :class:`IterationResult`: ns/op is the value, N the ops, all else secondary.

    Raises :class:`ResultLineError` if there is no positive time per operation.
    """
    value_ns = time_per_op_ns(result.metrics)
    if value_ns is None:
        raise ResultLineError(f"{result.name}: no time per operation (ns/op) among {list(result.metrics)}")
    if value_ns <= 0:
        raise ResultLineError(f"{result.name}: time per operation must be positive, got {value_ns} ns/op")
    primary = "ns/op" if "ns/op" in result.metrics else next(
        u for u in result.metrics if u.endswith("/op") and u.split("/")[0] in TIME_UNITS_NS)
    secondary = {u: v for u, v in result.metrics.items() if u != primary}
    return IterationResult(value_ns=value_ns, raw_value=value_ns, ops=float(result.iterations), secondary=secondary)


def name_to_params(full_name: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Split a full Go benchmark name into the top-level name and parameters.

    ``"BenchmarkTokenize/size=100"`` -> ``("BenchmarkTokenize", (("size", "100"),))``.
    Path elements of the form ``key=value`` (non-empty key) give ``(key, value)``
    (split at the first ``=``); other elements give ``("sub", element)``, then
    ``("sub2", ...)``, ``("sub3", ...)`` when nested.
    """
    top, *elements = full_name.split("/")
    params: list[tuple[str, str]] = []
    unnamed = 0
    for element in elements:
        key, eq, value = element.partition("=")
        if eq and key:
            params.append((key, value))
        else:
            unnamed += 1
            params.append(("sub" if unnamed == 1 else f"sub{unnamed}", element))
    return top, tuple(params)


# --------------------------------------------------------------------------- import


@dataclass
class _OpenFork:
    key: tuple[str, str, int | None]  # (package, printed name w/o procs, procs)
    iterations: list[IterationResult] = field(default_factory=list)
    failure: str | None = None


_UNFINISHED = "repetition started at line {line} reported no result (the benchmark crashed or the output is truncated)"


class _ForkGrouper:
    """Groups a file's events into forks (see the module docstring for the fork rule)."""

    def __init__(self) -> None:
        self.config: dict[str, str] = {}
        self.first_config: dict[str, str] = {}
        self.packages: list[str] = []
        self.forks: dict[tuple[str, str, int | None], list[_OpenFork]] = {}
        self._current: _OpenFork | None = None

    def _fork_for(self, name: str, procs: int | None) -> _OpenFork:
        key = (self.config.get("pkg", ""), name, procs)
        if self._current is None or self._current.key != key:
            self.close()
            self._current = _OpenFork(key)
        return self._current

    def close(self) -> None:
        if self._current is not None:
            self.forks.setdefault(self._current.key, []).append(self._current)
            self._current = None

    def add(self, event: Event, path: str, line: int) -> None:
        if isinstance(event, GoResult):
            try:
                iteration = to_iteration(event)
            except ResultLineError as exc:
                raise ImportFormatError(path, str(exc), line) from None
            self._fork_for(event.name, event.procs).iterations.append(iteration)
        elif isinstance(event, Unfinished):
            self._fork_for(event.name, event.procs).failure = _UNFINISHED.format(line=event.line)
            self.close()
        elif isinstance(event, Failed):
            self._fork_for(event.name, event.procs).failure = f"go test reported '--- FAIL' at line {event.line}"
            self.close()
        else:
            self.close()
            if isinstance(event, ConfigLine):
                self.config[event.key] = event.value
                self.first_config.setdefault(event.key, event.value)
                if event.key == "pkg" and event.value not in self.packages:
                    self.packages.append(event.value)


def _scan(lines: Iterable[str], path: str) -> _ForkGrouper:
    parser = GoOutputParser()
    grouper = _ForkGrouper()
    for raw in lines:
        line = raw.rstrip("\r\n")
        try:
            events = parser.feed(line)
        except ResultLineError as exc:
            raise ImportFormatError(path, f"malformed benchmark result: {exc}: {line.strip()!r}",
                                    parser.line_number) from None
        for event in events:
            grouper.add(event, path, parser.line_number)
    pending = parser.finish()
    if pending is not None:
        grouper.add(pending, path, parser.line_number)
    grouper.close()
    return grouper


def _qualifier(package: str, packages: list[str]) -> str:
    """Package part of a benchmark name when a file holds several packages (see :func:`import_go_bench`)."""
    if len(packages) <= 1 or not package:
        return ""
    split = [p.split("/") for p in packages]
    common = 0
    while all(len(s) > common for s in split) and len({s[common] for s in split}) == 1:
        common += 1
    rel = "/".join(package.split("/")[common:])
    return f"{rel}." if rel else ""


def parse_go_bench(lines: Iterable[str], path: str, suite: str = "go",
                   created_at: float | None = None) -> RunData:
    """Turn the lines of a ``go test -bench`` output into a :class:`RunData` (see the module docstring).

    Benchmark identity: the top-level name plus sub-benchmark parameters
    (:func:`name_to_params`), so imported results line up with results of
    :class:`~benchwarden.adapters.gotest.GoAdapter`.  When the file holds
    several packages (``pkg:`` lines), names are qualified with the package
    path relative to the packages' common prefix (``sub.BenchmarkX``; the
    root package keeps bare names), as the adapter does relative to the suite
    root.  When one benchmark was run with several GOMAXPROCS values
    (``-cpu 1,2``), a parameter ``("gomaxprocs", N)`` keeps them apart.

    Raises :class:`ImportFormatError` with the 1-based line for a malformed
    result line and for a file without any benchmark result.
    """
    grouper = _scan(lines, path)
    forks, config, packages = grouper.forks, grouper.first_config, grouper.packages
    order = list(forks)
    if not order:
        raise ImportFormatError(path, "no benchmark results found (expected lines like "
                                "'BenchmarkX-8  1000  1234 ns/op')")
    procs_seen: dict[tuple[str, str], set[int | None]] = {}
    for package, name, procs in order:
        procs_seen.setdefault((package, name), set()).add(procs)
    results: list[BenchmarkResult] = []
    grouped: dict[BenchmarkId, tuple[Benchmark, list[_OpenFork]]] = {}
    for key in order:
        package, name, procs = key
        top, params = name_to_params(name)
        if len(procs_seen[(package, name)]) > 1:
            params = params + (("gomaxprocs", str(procs or 1)),)
        bid = BenchmarkId(suite, _qualifier(package, packages) + top, params)
        if bid not in grouped:
            spec = {"package": package, "full_name": name}
            grouped[bid] = (Benchmark(bid, GO_MODE, GO_UNIT, spec=spec), [])
        grouped[bid][1].extend(forks[key])
    for benchmark, open_forks in grouped.values():
        fork_results = tuple(
            ForkResult(index=i, status=ForkStatus.FAILED if f.failure else ForkStatus.COMPLETE,
                       measurement=tuple(f.iterations), message=f.failure)
            for i, f in enumerate(open_forks, start=1))
        failed = [f for f in open_forks if f.failure]
        status = BenchmarkStatus.FAILED if failed else BenchmarkStatus.OK
        message = failed[0].failure if failed else None
        results.append(BenchmarkResult(benchmark, fork_results, status, message))
    meta = RunMeta(
        created_at=time.time() if created_at is None else created_at,
        tool_version=__version__,
        machine={k: v for k, v in (("cpu", config.get("cpu")), ("os", config.get("goos")),
                                   ("arch", config.get("goarch"))) if v},
        config={"imported_from": path, "format": "go test -bench", "go_config": dict(config),
                "packages": list(packages)},
        label=os.path.basename(path),
    )
    any_failed = any(r.status is BenchmarkStatus.FAILED for r in results)
    return RunData(meta=meta, results=tuple(results), status=RunStatus.FAILED if any_failed else RunStatus.COMPLETE)


def import_go_bench(path: str | Path, suite: str = "go") -> RunData:
    """Read a ``go test -bench`` output file (see :func:`parse_go_bench`); ``created_at`` is the file's mtime.

    Raises :class:`ImportFormatError` if the file cannot be read or is malformed.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
        mtime = p.stat().st_mtime
    except OSError as exc:
        raise ImportFormatError(str(p), f"cannot read: {exc.strerror or exc}") from None
    return parse_go_bench(_lines(text), str(p), suite=suite, created_at=mtime)


def import_gotest(text: str, suite: str = "go", source: str = "<go test output>") -> RunData:
    """Parse ``go test -bench`` output already read into memory; ``source`` names it in errors and metadata."""
    return parse_go_bench(_lines(text), source, suite=suite)


def _lines(text: str) -> Iterator[str]:
    yield from text.splitlines()
