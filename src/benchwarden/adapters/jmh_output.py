"""Pure parsers for what JMH writes: its benchmark listing, its per-iteration console output, its JSON results.

Nothing here starts a process; :mod:`benchwarden.adapters.jmh` drives JMH and feeds these parsers.
Formats were read from JMH's sources (1.21 and 1.37 agree on all of them) and are pinned by golden files
captured from real JMH runs under ``tests/data/jmh/``:

* ``-lp`` prints ``Benchmarks:`` and then one benchmark name per line (one line per *mode* entry), each
  followed by ``  param "NAME" = {v1, v2}`` lines with the *declared* values; JMH runs the Cartesian product.
* ``META-INF/BenchmarkList`` inside the jar holds one tagged line per benchmark x mode, written by JMH's
  annotation processor (``TestLineWriter``): it gives the mode, the output time unit, the ``@Fork``
  JVM arguments and the exact (armoured) parameter values, which ``-lp`` cannot print unambiguously.
* During a run, JMH prints ``Iteration   N: `` when an iteration starts and the result when it ends
  (``5416.934 ns/op`` or, for sample mode, ``18.328 ±(99.9%) 4.702 us/op`` followed by indented
  percentile lines and a blank line).  A failed iteration prints ``<failure>`` or
  ``<forked VM failed with exit code N>`` instead, then the stack trace.
* ``-rf json`` writes a list of objects, one per benchmark x mode x parameter combination, whose
  ``primaryMetric.rawData`` is ``[fork][iteration]`` (sample mode: ``rawDataHistogram``
  ``[fork][iteration][[value, count], ...]``).

Parameter order: JMH keeps ``@Param`` values in declaration order but *names* only in a sorted map
(the generator's ``TreeMap``); the declaration order of the fields is not recorded anywhere in the jar.
benchwarden therefore orders parameters by name, exactly as JMH runs, prints and exports them.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, NoReturn, Sequence

import benchwarden
from benchwarden import jsontext
from benchwarden.adapters.params import replace_values
from benchwarden.errors import ForkFailed, ImportFormatError, ListingFailed
from benchwarden.model import (
    Benchmark,
    BenchmarkId,
    BenchmarkResult,
    ForkResult,
    ForkStatus,
    IterationResult,
    RunData,
    RunMeta,
    RunStatus,
)
from benchwarden.units import direction_of, to_ns_per_op

# --------------------------------------------------------------------------------------------------
# Modes and units
# --------------------------------------------------------------------------------------------------

#: JMH ``Mode`` enum name -> short label (what the console, ``-bm`` and the JSON use).
MODE_SHORT: dict[str, str] = {
    "Throughput": "thrpt",
    "AverageTime": "avgt",
    "SampleTime": "sample",
    "SingleShotTime": "ss",
}
#: the modes ``Mode.All`` expands to, in JMH's enum order
ALL_MODES: tuple[str, ...] = tuple(MODE_SHORT.values())

#: ``java.util.concurrent.TimeUnit`` name -> JMH's spelling (``TimeValue.tuToString``)
TIME_UNIT_SHORT: dict[str, str] = {
    "NANOSECONDS": "ns",
    "MICROSECONDS": "us",
    "MILLISECONDS": "ms",
    "SECONDS": "s",
    "MINUTES": "min",
    "HOURS": "hr",
    "DAYS": "day",
}
#: JMH's default ``@OutputTimeUnit``
DEFAULT_TIME_UNIT = "SECONDS"


def short_mode(mode: str) -> str:
    """``"AverageTime"`` or ``"avgt"`` -> ``"avgt"``; raises ValueError for an unknown mode."""
    if mode in MODE_SHORT:
        return MODE_SHORT[mode]
    if mode in ALL_MODES:
        return mode
    raise ValueError(f"unknown JMH benchmark mode {mode!r}: expected one of {', '.join(ALL_MODES)}")


def display_unit(mode: str, time_unit: str | None) -> str:
    """The unit JMH reports a mode in: ``thrpt`` -> ``ops/<tu>``, every other mode -> ``<tu>/op``."""
    tu = TIME_UNIT_SHORT[time_unit or DEFAULT_TIME_UNIT]
    return f"ops/{tu}" if short_mode(mode) == "thrpt" else f"{tu}/op"


def benchmark_name(username: str, mode: str, multi_mode: bool) -> str:
    """benchwarden's name for a JMH benchmark: ``pkg.Class.method``, or ``pkg.Class.method@avgt`` when
    the method declares several modes (JMH runs each mode as its own benchmark)."""
    return f"{username}@{mode}" if multi_mode else username


# --------------------------------------------------------------------------------------------------
# META-INF/BenchmarkList
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BenchmarkListEntry:
    """One line of JMH's ``META-INF/BenchmarkList``: a benchmark in one mode (or ``All``).

    ``mode`` is JMH's enum name (``AverageTime``, ``All``); ``time_unit`` a ``TimeUnit`` name or None
    (JMH default, seconds); ``jvm_args_append`` is ``@Fork(jvmArgsAppend)`` or None when not declared;
    ``params`` maps parameter name -> declared values (declaration order of values kept) *as stored*:
    JMH 1.21 stores values verbatim, newer versions armour them (:func:`param_value_candidates`).
    """

    user_class: str
    method: str
    mode: str
    time_unit: str | None = None
    jvm_args: tuple[str, ...] | None = None
    jvm_args_prepend: tuple[str, ...] | None = None
    jvm_args_append: tuple[str, ...] | None = None
    params: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def username(self) -> str:
        return f"{self.user_class}.{self.method}"


class _TaggedLineReader:
    """Reader for JMH's ``TestLineWriter`` format: ``JMH `` then tagged, length-prefixed fields.

    Tags: ``S`` string, ``I`` int, ``T`` time value, ``U`` time unit, ``L`` string list, ``A`` int array,
    ``M`` parameter map (values armoured), ``E`` empty optional.  Each field is ``<tag> <len> <text> ``.
    """

    MAGIC = "JMH "

    def __init__(self, line: str):
        if not line.startswith(self.MAGIC) or len(line) <= len(self.MAGIC):
            raise ValueError("line does not start with 'JMH '")
        self.line = line
        self.pos = len(self.MAGIC)

    def _tag(self) -> str:
        tag = self.line[self.pos]
        self.pos += 2
        return tag

    def _len(self) -> int:
        end = self.line.index(" ", self.pos)
        n = int(self.line[self.pos:end])
        self.pos = end + 1
        return n

    def _str(self) -> str:
        n = self._len()
        s = self.line[self.pos:self.pos + n]
        if len(s) != n:
            raise ValueError("field runs past the end of the line")
        self.pos += n + 1
        return s

    def _expect(self, *tags: str) -> str:
        tag = self._tag()
        if tag not in tags:
            raise ValueError(f"unexpected tag {tag!r} at column {self.pos - 1}, expected {'/'.join(tags)}")
        return tag

    def string(self) -> str:
        self._expect("S")
        return self._str()

    def optional(self, tag: str) -> str | None:
        return None if self._expect("E", tag) == "E" else self._str()

    def optional_list(self) -> tuple[str, ...] | None:
        if self._expect("E", "L") == "E":
            return None
        return tuple(self._str() for _ in range(self._len()))

    def int_array(self) -> tuple[int, ...]:
        self._expect("A")
        return tuple(int(self._str()) for _ in range(self._len()))

    def optional_params(self) -> dict[str, tuple[str, ...]] | None:
        if self._expect("E", "M") == "E":
            return None
        params: dict[str, tuple[str, ...]] = {}
        for _ in range(self._len()):
            name = self._str()
            params[name] = tuple(self._str() for _ in range(self._len()))
        return params


_ARMOR_DICT = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="


def param_value_candidates(stored: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Readings of BenchmarkList parameter values: armoured (newer JMH) if they decode, else verbatim (1.21).

    The line itself does not say which; :func:`resolve_listing` keeps the reading that prints as ``-lp``.
    """
    readings = []
    try:
        readings.append(tuple(_armor_decode(v) for v in stored))
    except ValueError:
        pass
    readings.append(stored)
    return readings


def _armor_decode(text: str) -> str:
    """Decode JMH's ``Armor`` encoding: 8 symbols of 6 bits carry 3 UTF-16 code units; ``=`` pads."""
    if len(text) % 8:
        raise ValueError(f"armoured value {text!r} has a length that is not a multiple of 8")
    units: list[int] = []
    for start in range(0, len(text), 8):
        block = text[start:start + 8]
        bits = 0
        for i, ch in enumerate(block):
            sym = _ARMOR_DICT.find(ch)
            if sym < 0:
                raise ValueError(f"armoured value {text!r} holds the invalid symbol {ch!r}")
            bits |= (sym & 0x3F) << (6 * i)
        data = bits.to_bytes(6, "little")
        for i in range(3):
            units.append(data[2 * i] | (data[2 * i + 1] << 8))
    # Padding symbols encode zero units; trailing NULs are the padding of the last block.
    while units and units[-1] == 0 and text.endswith("="):
        units.pop()
    return b"".join(u.to_bytes(2, "little") for u in units).decode("utf-16-le", errors="surrogatepass")


def parse_benchmark_list(text: str, source: str = "META-INF/BenchmarkList") -> list[BenchmarkListEntry]:
    """Parse JMH's ``META-INF/BenchmarkList``. Raises :class:`ListingFailed` naming ``source`` and the line."""
    entries = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            entries.append(_parse_benchmark_list_line(line))
        except (ValueError, IndexError) as exc:
            raise ListingFailed(f"{source}:{lineno}: not a JMH benchmark list entry ({exc})") from None
    return entries


def _parse_benchmark_list_line(line: str) -> BenchmarkListEntry:
    r = _TaggedLineReader(line)
    user_class, _generated, method, mode = r.string(), r.string(), r.string(), r.string()
    r.optional("I")  # threads
    r.int_array()  # thread groups
    r.optional_list()  # thread group labels
    for tag in "ITIITI":  # warmup iterations/time/batch, measurement iterations/time/batch
        r.optional(tag)
    r.optional("I")  # forks
    r.optional("I")  # warmup forks
    r.optional("S")  # jvm
    jvm_args, prepend, append = r.optional_list(), r.optional_list(), r.optional_list()
    params = r.optional_params() or {}
    time_unit = r.optional("U")
    if mode != "All":
        short_mode(mode)
    return BenchmarkListEntry(user_class=user_class, method=method, mode=mode, time_unit=time_unit,
                              jvm_args=jvm_args, jvm_args_prepend=prepend, jvm_args_append=append,
                              params=params)


# --------------------------------------------------------------------------------------------------
# -lp listing
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ListedName:
    """One benchmark entry of ``-lp``: its name and its declared parameter values, names sorted."""

    username: str
    params: tuple[tuple[str, tuple[str, ...]], ...] = ()


_PARAM_LINE = re.compile(r'^\s+param "(?P<name>[^"]+)" = \{(?P<values>.*)\}\s*$')
_NAME_LINE = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[\w$]+)+$")


def parse_listing(text: str, source: str = "java -jar benchmarks.jar -lp") -> list[ListedName]:
    """Parse JMH's ``-lp`` output into benchmark names with their declared parameter values.

    Lines before ``Benchmarks:`` (JVM warnings) are ignored.  Values are split on ``", "`` as JMH joins
    them; :func:`resolve_listing` replaces them with the exact values from the BenchmarkList when the
    two agree.  Raises :class:`ListingFailed` with the line number for anything else.
    """
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Benchmarks:")
    except StopIteration:
        raise ListingFailed(f"{source}: no 'Benchmarks:' line; is this a JMH benchmarks jar?") from None
    listed: list[tuple[str, list[tuple[str, tuple[str, ...]]]]] = []
    for lineno, line in enumerate(lines[start + 1:], start=start + 2):
        if not line.strip():
            continue
        param = _PARAM_LINE.match(line)
        if param and listed:
            values = tuple(param["values"].split(", ")) if param["values"] else ()
            listed[-1][1].append((param["name"], values))
        elif _NAME_LINE.match(line):
            listed.append((line.strip(), []))
        else:
            raise ListingFailed(f"{source}:{lineno}: unexpected line in the benchmark listing: {line!r}")
    return [ListedName(name, tuple(sorted(params))) for name, params in listed]


@dataclass(frozen=True)
class JmhBenchmarkInfo:
    """Everything the adapter needs about one runnable JMH benchmark x mode x parameter combination."""

    name: str  # benchwarden name (see benchmark_name)
    username: str  # JMH's pkg.Class.method
    mode: str  # short mode
    unit: str
    params: tuple[tuple[str, str], ...]
    jvm_args_append: tuple[str, ...] | None  # @Fork(jvmArgsAppend), None if not declared

    def to_benchmark(self, suite: str) -> Benchmark:
        spec = {"benchmark": self.username, "mode": self.mode}
        if self.jvm_args_append is not None:
            spec["jvm_args_append"] = json.dumps(list(self.jvm_args_append))
        return Benchmark(id=BenchmarkId(suite, self.name, self.params), mode=self.mode, unit=self.unit,
                         direction=direction_of(self.unit), spec=spec)


def resolve_listing(listed: Sequence[ListedName], entries: Sequence[BenchmarkListEntry],
                    overrides: Mapping[str, tuple[str, ...]] | None = None) -> list[JmhBenchmarkInfo]:
    """Join ``-lp`` names with BenchmarkList entries and expand modes and parameter combinations.

    ``-lp`` decides *which* benchmarks exist (it is what JMH itself would run); the BenchmarkList adds
    the mode, unit and ``@Fork`` arguments.  A name missing from the BenchmarkList keeps JMH's defaults
    (thrpt in ops/s).  ``Mode.All`` expands to the four modes.  Combinations are the Cartesian product of
    the declared values, parameters sorted by name, values in declaration order; ``overrides`` (``-p``)
    replace the declared values of the parameters they name, as JMH's ``-p`` does.
    """
    by_name: dict[str, list[BenchmarkListEntry]] = {}
    for entry in entries:
        by_name.setdefault(entry.username, []).append(entry)
    infos: list[JmhBenchmarkInfo] = []
    seen: set[str] = set()
    for item in listed:
        if item.username in seen:  # -lp prints a multi-mode benchmark once per mode
            continue
        seen.add(item.username)
        found = by_name.get(item.username) or [BenchmarkListEntry("", "", "Throughput")]
        modes = _expand_modes(found)
        for mode, entry in modes:
            params = replace_values(_exact_params(item.params, entry.params), overrides or {})
            for combo in _combinations(params):
                infos.append(JmhBenchmarkInfo(
                    name=benchmark_name(item.username, mode, len(modes) > 1), username=item.username,
                    mode=mode, unit=display_unit(mode, entry.time_unit), params=combo,
                    jvm_args_append=entry.jvm_args_append))
    return infos


def _expand_modes(entries: Sequence[BenchmarkListEntry]) -> list[tuple[str, BenchmarkListEntry]]:
    modes: dict[str, BenchmarkListEntry] = {}
    for entry in entries:
        for mode in ALL_MODES if entry.mode == "All" else (short_mode(entry.mode),):
            modes.setdefault(mode, entry)
    return [(m, modes[m]) for m in ALL_MODES if m in modes]


def _exact_params(listed: tuple[tuple[str, tuple[str, ...]], ...],
                  declared: Mapping[str, tuple[str, ...]]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Prefer the BenchmarkList's exact values where they print as ``-lp`` printed them."""
    exact = []
    for name, values in listed:
        for candidate in param_value_candidates(declared.get(name, ())):
            if candidate and ", ".join(candidate) == ", ".join(values):
                values = candidate
                break
        exact.append((name, values))
    return tuple(exact)


def _combinations(params: tuple[tuple[str, tuple[str, ...]], ...]) -> list[tuple[tuple[str, str], ...]]:
    names = [name for name, _ in params]
    return [tuple(zip(names, combo)) for combo in itertools.product(*(values for _, values in params))]


# --------------------------------------------------------------------------------------------------
# Streaming iteration output
# --------------------------------------------------------------------------------------------------

_ITERATION = re.compile(r"^Iteration\s+(?P<n>\d+):\s?(?P<rest>.*)$")
_SCORE = re.compile(
    r"^(?P<score>NaN|≈ \S+|-?\d+(?:[.,]\d+)?(?:[eE][-+]?\d+)?)"
    r"(?:\s+±\(99\.9%\)\s+(?P<error>\S+))?"
    r"\s+(?P<unit>[^\s/]+/[^\s/]+)$"
)
_SECONDARY = re.compile(r"^\s+(?P<label>\S(?:.*\S)?):\s+(?P<score>≈ \S+|\S+)\s+(?P<unit>\S+)$")
_FAILURE = re.compile(r"^<(?P<what>(?:failure|forked VM|binary link).*)>$")
_HEADER = re.compile(r"^# (?P<key>JMH version|VM version|VM options|Benchmark mode|Benchmark|Parameters): (?P<value>.*)$")


def _number(text: str) -> float:
    """JMH formats with ``%.3f`` in the JVM's default locale: accept a decimal comma too."""
    return float(text.replace(",", "."))


class IterationStreamParser:
    """Incremental parser of one JMH process's console output: feed lines, get :class:`IterationResult`.

    ``benchmark`` names the benchmark in errors.  Sample mode prints percentile lines under each
    iteration, and profilers (``profilers=True``: the suite passes ``-prof``) their secondary results
    (``gc.alloc.rate.norm: 63580.753 B/op``), ending with a blank line, all in one flush: the parser
    holds such an iteration until its block ends, so every result still arrives as soon as JMH prints
    it.  Secondary results become ``"label [unit]"`` entries; JMH's ``≈ 0`` (a value below its printing
    precision, e.g. ``gc.count: ≈ 0 counts``) is 0.  Without profilers, in the other modes, the result
    is returned at once and stray indented lines are ignored.

    After a ``<failure>`` marker ``failure`` is set (the first non-blank line after it, the exception,
    becomes ``failure_detail``); the parser does not raise for it, because the caller still wants the
    stack trace in its output tail.  A malformed ``Iteration N:`` line raises
    :class:`~benchwarden.errors.ForkFailed` (``reason="garbage"``) naming the line number and the line.
    An ``Iteration N:`` line with nothing after it is an iteration cut short (``incomplete`` is set).
    """

    def __init__(self, benchmark: str, mode: str | None = None, profilers: bool = False):
        self.benchmark = benchmark
        self.hold_secondary = mode == "sample" or profilers
        self.lineno = 0
        self.iterations = 0
        self.header: dict[str, str] = {}
        self.failure: str | None = None
        self.failure_detail: str | None = None
        self.incomplete: int | None = None
        self.finished = False  # the "Result ..." summary has started
        self._pending: tuple[float, str, dict[str, float]] | None = None

    def feed(self, line: str) -> list[IterationResult]:
        """Consume one line (without its newline); return the iterations it completes (0, 1 or 2)."""
        self.lineno += 1
        out: list[IterationResult] = []
        if self._pending is not None:
            if self._add_secondary(line):
                return out
            out.append(self._flush())
        if self.failure is not None:
            if self.failure_detail is None and line.strip():
                self.failure_detail = line.strip()
            return out
        if self.finished:
            return out
        header = _HEADER.match(line)
        if header:
            self.header.setdefault(header["key"], header["value"])
            return out
        if line.startswith('Result "') or line.startswith("# Run complete"):
            self.finished = True
            return out
        m = _ITERATION.match(line)
        if m:
            result = self._iteration(int(m["n"]), m["rest"].strip(), line)
            if result is not None:
                out.append(result)
        return out

    def finish(self) -> list[IterationResult]:
        """End of output: return an iteration still held for its percentile lines, if any."""
        return [self._flush()] if self._pending is not None else []

    def _iteration(self, n: int, rest: str, line: str) -> IterationResult | None:
        if n != self.iterations + 1:
            self._garbage(f"iteration {n} follows iteration {self.iterations}", line)
        if not rest:
            self.incomplete = n
            return None
        if _FAILURE.match(rest):
            self.failure = rest.strip("<>")
            return None
        m = _SCORE.match(rest)
        if not m:
            self._garbage("cannot read the iteration result", line)
        score_text, unit = m["score"], m["unit"]
        if score_text == "NaN" or score_text.startswith("≈"):
            self._garbage(f"JMH printed {score_text!r}, not a value (below its printing precision? "
                          "use a finer @OutputTimeUnit)", line)
        score = _number(score_text)
        try:
            to_ns_per_op(score, unit)
        except ValueError as exc:
            self._garbage(str(exc), line)
        self.iterations = n
        self.incomplete = None
        self._pending = (score, unit, {})
        return None if self.hold_secondary else self._flush()

    def _add_secondary(self, line: str) -> bool:
        m = _SECONDARY.match(line)
        if not m or self._pending is None:
            return False
        score = m["score"]
        try:
            value = 0.0 if score.startswith("≈") else _number(score)
        except ValueError:
            return False
        self._pending[2][f"{m['label']} [{m['unit']}]"] = value
        return True

    def _flush(self) -> IterationResult:
        assert self._pending is not None
        score, unit, secondary = self._pending
        self._pending = None
        return IterationResult(value_ns=to_ns_per_op(score, unit), raw_value=score, secondary=secondary)

    def _garbage(self, why: str, line: str) -> NoReturn:
        raise ForkFailed(self.benchmark, "garbage", f"output line {self.lineno}: {why}: {line!r}")


def parse_iterations(lines: Iterable[str], benchmark: str, mode: str | None = None,
                     profilers: bool = False) -> tuple[list[IterationResult], IterationStreamParser]:
    """Parse a whole captured output; returns the iterations and the parser (for ``failure`` etc.)."""
    parser = IterationStreamParser(benchmark, mode, profilers)
    results: list[IterationResult] = []
    for line in lines:
        results.extend(parser.feed(line))
    results.extend(parser.finish())
    return results, parser


# --------------------------------------------------------------------------------------------------
# JSON result import (-rf json)
# --------------------------------------------------------------------------------------------------


def import_jmh_json(text: str, path: str, suite: str = "jmh", created_at: float | None = None) -> RunData:
    """Turn JMH's ``-rf json`` result file into a :class:`RunData`, so existing results can be analysed.

    One :class:`BenchmarkResult` per benchmark x mode x parameter combination; one COMPLETE fork per row
    of ``primaryMetric.rawData`` (sample mode: the mean of each iteration's ``rawDataHistogram``).  JMH
    does not keep warmup iterations in this file, so every fork has measurement iterations only.
    Secondary metrics with per-iteration raw data are kept as ``"label [unit]"``.  ``created_at``
    defaults to now (the file carries no timestamp).  Raises :class:`ImportFormatError` naming the file,
    the line of the offending entry and what was expected.
    """
    try:
        doc = jsontext.loads(text, allow_nan=True)  # JMH writes NaN for an undefined score error
    except jsontext.JsonTextError as exc:
        raise ImportFormatError(path, exc.message, exc.line) from None
    if not isinstance(doc, list):
        raise ImportFormatError(path, "expected a JSON list of benchmark results (JMH -rf json)", 1)
    entry_lines = _entry_lines(text)
    rows = [_read_entry(e, path, entry_lines[i] if i < len(entry_lines) else None, i) for i, e in enumerate(doc)]
    modes_per_name: dict[str, set[str]] = {}
    for row in rows:
        modes_per_name.setdefault(row["benchmark"], set()).add(row["mode"])
    results = []
    for row in rows:
        multi = len(modes_per_name[row["benchmark"]]) > 1
        info = JmhBenchmarkInfo(name=benchmark_name(row["benchmark"], row["mode"], multi),
                                username=row["benchmark"], mode=row["mode"], unit=row["unit"],
                                params=row["params"], jvm_args_append=None)
        forks = tuple(ForkResult(index=i + 1, status=ForkStatus.COMPLETE, measurement=tuple(its))
                      for i, its in enumerate(row["forks"]))
        results.append(BenchmarkResult(benchmark=info.to_benchmark(suite), forks=forks))
    first = doc[0] if doc else {}
    toolchain = {k: str(first[j]) for k, j in (("jmh", "jmhVersion"), ("java", "jdkVersion"), ("jvm", "vmName"))
                 if isinstance(first, dict) and first.get(j) is not None}
    meta = RunMeta(created_at=time.time() if created_at is None else created_at,
                   tool_version=benchwarden.__version__, toolchain=toolchain,
                   config={"imported_from": path, "format": "jmh-json"}, label=path)
    return RunData(meta=meta, results=tuple(results), status=RunStatus.COMPLETE)


def load_jmh_json(path: Path | str, suite: str = "jmh") -> RunData:
    """Read and import a JMH ``-rf json`` file; the run's ``created_at`` is the file's modification time."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        created_at = path.stat().st_mtime
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFormatError(str(path), f"cannot read the file: {exc}") from None
    return import_jmh_json(text, str(path), suite=suite, created_at=created_at)


def _entry_lines(text: str) -> list[int]:
    """1-based line of each top-level entry's ``"jmhVersion"``/``"benchmark"`` key, for error messages."""
    lines = []
    for m in re.finditer(r'"benchmark"\s*:', text):
        lines.append(text.count("\n", 0, m.start()) + 1)
    return lines


def _read_entry(entry: object, path: str, line: int | None, index: int) -> dict:
    def fail(message: str) -> ImportFormatError:
        return ImportFormatError(path, f"result #{index + 1}: {message}", line)

    if not isinstance(entry, dict):
        raise fail("expected an object")
    name = entry.get("benchmark")
    if not isinstance(name, str) or not name:
        raise fail("'benchmark' must be a non-empty string")
    try:
        mode = short_mode(str(entry.get("mode")))
    except ValueError as exc:
        raise fail(str(exc)) from None
    params = entry.get("params") or {}
    if not isinstance(params, dict):
        raise fail(f"{name}: 'params' must be an object")
    metric = entry.get("primaryMetric")
    if not isinstance(metric, dict):
        raise fail(f"{name}: 'primaryMetric' is missing")
    raw_unit = metric.get("scoreUnit")
    unit = str(raw_unit)
    try:
        direction_of(unit)
        to_ns_per_op(1.0, unit)
    except ValueError:
        raise fail(f"{name}: primaryMetric.scoreUnit {raw_unit!r} is not a JMH unit such as 'ns/op' or 'ops/s'") \
            from None
    forks = _raw_forks(metric, name, fail)
    secondary = entry.get("secondaryMetrics") or {}
    if isinstance(secondary, dict):
        _attach_secondary(forks, secondary)
    return {"benchmark": name, "mode": mode, "unit": unit,
            "params": tuple(sorted((str(k), str(v)) for k, v in params.items())),
            "forks": [[_iteration(v, unit, sec) for v, sec in fork] for fork in forks]}


def _raw_forks(metric: dict, name: str, fail) -> list[list[tuple[float, dict[str, float]]]]:
    if "rawData" in metric:
        raw = metric["rawData"]
        if not _is_matrix(raw):
            raise fail(f"{name}: primaryMetric.rawData must be a list (forks) of lists (iterations) of numbers")
        forks: list[list[tuple[float, dict[str, float]]]] = [[(float(v), {}) for v in fork] for fork in raw]
    elif "rawDataHistogram" in metric:
        forks = [[(_histogram_mean(it, name, fail), {}) for it in fork] for fork in _histograms(metric, name, fail)]
    else:
        raise fail(f"{name}: primaryMetric has neither rawData nor rawDataHistogram")
    for fork in forks:
        for value, _ in fork:
            if not (math.isfinite(value) and value > 0):
                raise fail(f"{name}: iteration value {value!r} is not a positive number")
    return forks


def _histograms(metric: dict, name: str, fail) -> list:
    raw = metric["rawDataHistogram"]
    if not isinstance(raw, list) or not all(isinstance(f, list) for f in raw):
        raise fail(f"{name}: primaryMetric.rawDataHistogram must be [fork][iteration][[value, count], ...]")
    return raw


def _histogram_mean(iteration: Any, name: str, fail) -> float:
    ok = isinstance(iteration, list) and iteration and all(
        isinstance(p, list) and len(p) == 2 and all(_is_number(x) for x in p) for p in iteration)
    if not ok:
        raise fail(f"{name}: primaryMetric.rawDataHistogram must be [fork][iteration][[value, count], ...]")
    total = sum(c for _, c in iteration)
    if total <= 0:
        raise fail(f"{name}: an iteration histogram has no samples")
    return float(sum(v * c for v, c in iteration) / total)


def _attach_secondary(forks: list[list[tuple[float, dict[str, float]]]], secondary: dict) -> None:
    """Copy secondary metrics whose rawData has exactly the primary's shape onto the iterations."""
    for label, metric in secondary.items():
        if not isinstance(metric, dict) or not _is_matrix(metric.get("rawData")):
            continue
        raw = metric["rawData"]
        if [len(f) for f in raw] != [len(f) for f in forks]:
            continue
        for fork, values in zip(forks, raw):
            for (_, sec), v in zip(fork, values):
                sec[f"{label} [{metric.get('scoreUnit', '')}]"] = float(v)


def _iteration(value: float, unit: str, secondary: dict[str, float]) -> IterationResult:
    return IterationResult(value_ns=to_ns_per_op(value, unit), raw_value=value, secondary=secondary)


def _is_number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _is_matrix(raw: object) -> bool:
    return isinstance(raw, list) and all(isinstance(f, list) and all(_is_number(v) for v in f) for f in raw)
