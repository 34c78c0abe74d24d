"""Reader for JMH's own ``META-INF/BenchmarkList`` (the annotation processor's output): the audit's oracle.

JMH writes one line per benchmark x mode (``Mode.All`` stays one line with
mode ``All``), each a sequence of tagged tokens (jmh-core
``BenchmarkListEntry(String)`` / ``TestLineReader``): ``S <len> <text>``
string, ``I <len> <digits>`` int, ``E`` empty optional, ``A <n> ...`` int
array, ``L <n> ...`` string list, ``T <len> <time value>``, ``U <len> <unit>``,
``M <n> (key <nvalues> values...)`` parameter map with armored values.
This reader is independent of the code under test.
"""

from __future__ import annotations

from dataclasses import dataclass

_TIME_S = {"ns": 1e-9, "us": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "hr": 3600.0, "day": 86400.0}


@dataclass(frozen=True)
class Entry:
    user_class: str
    method: str
    mode: str
    threads: int | None
    warmup_iterations: int | None
    warmup_time_s: float | None
    warmup_batch_size: int | None
    measurement_iterations: int | None
    measurement_time_s: float | None
    measurement_batch_size: int | None
    forks: int | None
    warmup_forks: int | None
    jvm_args_append: tuple[str, ...] | None
    params: dict[str, int] | None  # name -> number of values
    time_unit: str | None

    @property
    def name(self) -> str:
        return f"{self.user_class}.{self.method}"


class _Reader:
    def __init__(self, line: str):
        assert line.startswith("JMH "), line
        self.line = line
        self.pos = 4

    def _len(self) -> int:
        start = self.pos
        while self.line[self.pos].isdigit():
            self.pos += 1
        n = int(self.line[start:self.pos])
        self.pos += 1
        return n

    def _string(self) -> str:
        n = self._len()
        s = self.line[self.pos:self.pos + n]
        self.pos += n + 1
        return s

    def _tag(self) -> str:
        tag = self.line[self.pos]
        self.pos += 2
        return tag

    def string(self) -> str:
        assert self._tag() == "S"
        return self._string()

    def opt(self):  # type: ignore[no-untyped-def]
        tag = self._tag()
        if tag == "E":
            return None
        if tag == "I":
            return int(self._string())
        if tag == "S":
            return self._string()
        if tag == "T":
            value, unit = self._string().split()
            return float(value) * _TIME_S[unit]
        if tag == "U":
            return self._string()
        if tag == "L":
            return tuple(self._string() for _ in range(self._len()))
        if tag == "A":
            return tuple(int(self._string()) for _ in range(self._len()))
        if tag == "M":
            out = {}
            for _ in range(self._len()):
                key = self._string()
                n = self._len()
                for _ in range(n):
                    self._string()
                out[key] = n
            return out
        raise AssertionError(f"unknown tag {tag!r} at {self.pos} in {self.line!r}")


def parse_line(line: str) -> Entry:
    r = _Reader(line)
    user_class, _generated, method, mode = r.string(), r.string(), r.string(), r.string()
    threads = r.opt()
    r.opt()  # thread groups
    r.opt()  # thread group labels
    wi, wt, wb, mi, mt, mb, forks, wf = (r.opt() for _ in range(8))
    r.opt()  # jvm
    r.opt()  # jvmArgs
    r.opt()  # jvmArgsPrepend
    append = r.opt()
    params = r.opt()
    unit = r.opt()
    return Entry(user_class, method, mode, threads, wi, wt, wb, mi, mt, mb, forks, wf, append, params, unit)


def read_benchmark_list(text: str) -> list[Entry]:
    return [parse_line(line) for line in text.splitlines() if line.strip()]


def expand_modes(entries: list[Entry]) -> dict[str, set[str]]:
    """Benchmark name -> its modes, ``All`` expanded as JMH's runner does."""
    out: dict[str, set[str]] = {}
    for e in entries:
        modes = {"Throughput", "AverageTime", "SampleTime", "SingleShotTime"} if e.mode == "All" else {e.mode}
        out.setdefault(e.name, set()).update(modes)
    return out


def _value(setting):  # type: ignore[no-untyped-def]
    return None if setting is None else setting.value


def differences(report, entries: list[Entry]) -> list[str]:  # type: ignore[no-untyped-def]
    """Every disagreement between an audit report and JMH's BenchmarkList (empty = they agree)."""
    ours = {b.config.name: b.config for b in report.benchmarks}
    jmh_modes = expand_modes(entries)
    problems = [f"missing in audit: {n}" for n in sorted(set(jmh_modes) - set(ours))]
    problems += [f"not a JMH benchmark: {n}" for n in sorted(set(ours) - set(jmh_modes))]
    for e in entries:
        c = ours.get(e.name)
        if c is None:
            continue
        our_modes = set(_value(c.modes) or ("Throughput",))
        if our_modes != jmh_modes[e.name]:
            problems.append(f"{e.name}: modes {sorted(our_modes)} != JMH {sorted(jmh_modes[e.name])}")
        threads = _value(c.threads)
        pairs = {
            "forks": (_value(c.forks), e.forks), "warmup_forks": (_value(c.warmup_forks), e.warmup_forks),
            "warmup_iterations": (_value(c.warmup_iterations), e.warmup_iterations),
            "warmup_time_s": (_value(c.warmup_time_s), e.warmup_time_s),
            "warmup_batch_size": (_value(c.warmup_batch_size), e.warmup_batch_size),
            "measurement_iterations": (_value(c.measurement_iterations), e.measurement_iterations),
            "measurement_time_s": (_value(c.measurement_time_s), e.measurement_time_s),
            "measurement_batch_size": (_value(c.measurement_batch_size), e.measurement_batch_size),
            "threads": (-1 if threads == "MAX" else threads, e.threads),
            "output_time_unit": (_value(c.output_time_unit), e.time_unit),
            "jvm_args_append": (_value(c.jvm_args_append), e.jvm_args_append),
            "params": ({p.name: len(p.values) for p in c.params} or None, e.params),
        }
        for key, (mine, theirs) in pairs.items():
            if isinstance(mine, float) and isinstance(theirs, float):
                same = abs(mine - theirs) <= 1e-9 * max(1.0, abs(theirs))
            else:
                same = mine == theirs
            if not same:
                problems.append(f"{e.name}: {key} {mine!r} != JMH {theirs!r}")
    return sorted(set(problems))
