"""The metrics benchwarden knows: name, unit, direction and the rule that judges a change of each.

Harnesses label their secondary figures in their own way (Go: the unit itself, ``B/op``; JMH:
``gc.alloc.rate.norm [B/op]``; benchwarden's own collectors: ``cpu [ns/op]``).  The store keeps
those labels verbatim (``iterations.secondary``); this module maps a label to a :class:`Metric`
whenever a metric is shown or judged, so data stored by any version reads the same.

Rules (docs/metrics.md, "How each metric is judged"):

* ``exact`` — deterministic or near-deterministic counts (allocations per operation, allocated
  bytes per operation, instructions per operation, Python's traced memory).  Judged by comparing
  the fork values of the two versions with a relative ``tolerance``: no statistics are needed, and
  one or two forks per version settle it.  A metric that varies more than its tolerance between the
  forks of one version is judged as ``noisy`` instead, and the comparison says so.
* ``noisy`` — measured quantities (CPU time, wall time, peak RSS, CPU user/sys time of a command):
  judged with the time verdict's own machinery (:func:`benchwarden.compare.verdict.judge`).
* ``shown`` — shown, never judged: figures derived from time (Go's ``MB/s``, JMH's
  ``gc.alloc.rate`` in MB/sec, which merely restate the time per operation), and figures that are
  not normalised per operation (JMH's ``gc.count`` and ``gc.time`` per iteration: a faster version
  runs more operations per iteration and collects more often).

Every metric's values are normalised so that the judge sees "lower is better": a metric whose
``direction`` is higher-is-better is inverted before judging (:meth:`Metric.lower_is_better`).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from benchwarden.model import Direction


class Rule(str, enum.Enum):
    EXACT = "exact"
    NOISY = "noisy"
    SHOWN = "shown"


@dataclass(frozen=True)
class Metric:
    """One metric: ``name`` is what users write (``fail_on = ["allocs"]``), ``unit`` what values are in.

    ``tolerance``: for the ``exact`` rule, the relative difference still counted as equal
    (0 = any difference counts).  ``why_shown``: for the ``shown`` rule, why it is not judged.
    """

    name: str
    unit: str
    direction: Direction = Direction.LOWER_IS_BETTER
    rule: Rule = Rule.NOISY
    tolerance: float = 0.0
    description: str = ""
    why_shown: str | None = None

    @property
    def judged(self) -> bool:
        return self.rule is not Rule.SHOWN

    def lower_is_better(self, value: float) -> float:
        """The value as the judge sees it (inverted for higher-is-better metrics; 0 stays 0)."""
        if self.direction is Direction.HIGHER_IS_BETTER:
            return 1.0 / value if value else 0.0
        return value


_DERIVED = "derived from the time per operation, which is judged itself"
_PER_ITERATION = ("counted per iteration, not per operation: a faster version runs more operations per "
                  "iteration and so collects more often")

#: the primary metrics: what ``value_ns`` holds (docs/metrics.md, "Primary metric")
TIME = Metric("time", "ns/op", rule=Rule.NOISY, description="wall-clock time per operation")
CPU = Metric("cpu", "ns/op", rule=Rule.NOISY, description="CPU time (user + system) per operation")
INSTRUCTIONS = Metric("instructions", "instr/op", rule=Rule.EXACT, tolerance=0.005,
                      description="instructions executed per operation (Valgrind's simulated CPU)")
PRIMARY: dict[str, Metric] = {m.name: m for m in (TIME, CPU, INSTRUCTIONS)}

#: secondary metrics, by canonical name
ALLOCS = Metric("allocs", "allocs/op", rule=Rule.EXACT, description="heap allocations per operation")
BYTES = Metric("bytes", "B/op", rule=Rule.EXACT, description="heap bytes allocated per operation")
#: JMH's gc.alloc.rate.norm: the benchmark thread's allocated bytes over the iteration's operations.  It is
#: near-exact, not exact (JMH's own infrastructure allocates a little per iteration, spread over the ops).
JMH_BYTES = Metric("bytes", "B/op", rule=Rule.EXACT, tolerance=0.01,
                   description="bytes allocated per operation (JMH -prof gc: gc.alloc.rate.norm)")
SECONDARY: dict[str, Metric] = {m.name: m for m in (
    ALLOCS,
    BYTES,
    INSTRUCTIONS,
    Metric("cpu", "ns/op", description="CPU time (user + system) per operation"),
    Metric("wall", "ns/op", description="wall-clock time per operation (beside a CPU or instruction primary)"),
    Metric("cpu.user", "ms", description="user CPU time of one execution"),
    Metric("cpu.sys", "ms", description="system CPU time of one execution"),
    Metric("rss", "KiB", description="peak resident set size of one execution"),
    Metric("mem.peak", "B", rule=Rule.EXACT,
           description="peak of Python's traced memory during one call above the level before it (tracemalloc)"),
    Metric("mem.retained", "B/op", rule=Rule.EXACT,
           description="traced memory still held after a batch of calls, per call (tracemalloc)"),
    Metric("gc.count", "counts", rule=Rule.SHOWN, description="garbage collections in the iteration",
           why_shown=_PER_ITERATION),
    Metric("gc.time", "ms", rule=Rule.SHOWN, description="time spent in garbage collection in the iteration",
           why_shown=_PER_ITERATION),
    Metric("gc.alloc.rate", "MB/sec", rule=Rule.SHOWN, description="allocation rate", why_shown=_DERIVED),
)}

#: labels of harnesses whose name is not ``name [unit]`` with a canonical name
_HARNESS_LABELS: dict[str, Metric] = {
    "allocs/op": ALLOCS,  # go test -benchmem
    "B/op": BYTES,  # go test -benchmem
    "MB/s": Metric("MB/s", "MB/s", Direction.HIGHER_IS_BETTER, Rule.SHOWN,
                   description="throughput from b.SetBytes", why_shown=_DERIVED),
}

#: JMH -prof gc labels (1.37 writes "gc.alloc.rate.norm"; JMH up to 1.35 prefixed them with "·")
_JMH_GC = {
    "gc.alloc.rate.norm": JMH_BYTES,
    "gc.alloc.rate": SECONDARY["gc.alloc.rate"],
    "gc.count": SECONDARY["gc.count"],
    "gc.time": SECONDARY["gc.time"],
}

_LABEL = re.compile(r"^(?P<name>.+?) \[(?P<unit>[^\[\]]*)\]$")
_RATE_UNIT = re.compile(r"(^|/)(s|sec|ms|us|ns|min)$|^ops/")


def label(name: str, unit: str) -> str:
    """The secondary label benchwarden's own collectors store: ``"cpu [ns/op]"``."""
    return f"{name} [{unit}]"


def metric_for(label_text: str) -> Metric:
    """The metric a stored secondary label stands for (never raises).

    Known harness labels map to their canonical metric; ``name [unit]`` labels whose name is known
    take its definition (with the unit from the label); anything else — a JMH profiler's secondary
    result, a Go ``b.ReportMetric`` unit — is a ``noisy`` metric named after its label, lower is
    better unless its unit is a rate (``.../s``, ``ops/...``).
    """
    if label_text in _HARNESS_LABELS:
        return _HARNESS_LABELS[label_text]
    m = _LABEL.match(label_text)
    name, unit = (m["name"].lstrip("·"), m["unit"]) if m else (label_text, label_text)
    known = _JMH_GC.get(name) or SECONDARY.get(name)
    if known is not None:
        return known if known.unit == unit or not m else Metric(known.name, unit, known.direction, known.rule,
                                                                known.tolerance, known.description,
                                                                known.why_shown)
    direction = Direction.HIGHER_IS_BETTER if _RATE_UNIT.search(unit) else Direction.LOWER_IS_BETTER
    return Metric(name, unit, direction, Rule.NOISY, description="reported by the harness")


def primary_metric(name: str) -> Metric:
    """The primary metric called ``name``; ValueError naming the choices otherwise."""
    try:
        return PRIMARY[name]
    except KeyError:
        raise ValueError(f"unknown metric {name!r}; expected one of: {', '.join(PRIMARY)}") from None


#: names accepted in ``[compare] fail_on``: the primary verdict ("time", whatever the primary metric is)
#: and every judged secondary metric
GATE_NAMES = ("time", *sorted({m.name for m in SECONDARY.values() if m.judged} | {"instructions"}))
