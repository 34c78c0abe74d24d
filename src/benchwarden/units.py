"""Units: durations in config ("1s", "200ms"), and conversion between harness units and ns/op.

benchwarden normalises every measurement to *nanoseconds per operation* (lower
is better).  Throughput units (``ops/s``) are inverted: 1e9 / (ops/s) ns/op.
Note that the mean of inverted throughputs is not the inverse of the mean
throughput; statistics are computed on ns/op and converted for display only
(docs/architecture.md, "Normalisation").
"""

from __future__ import annotations

import math
import re

from benchwarden.model import Direction

#: nanoseconds per time unit, for every spelling the supported harnesses use
TIME_UNITS_NS: dict[str, float] = {
    "ns": 1.0,
    "us": 1e3,
    "µs": 1e3,
    "μs": 1e3,
    "ms": 1e6,
    "s": 1e9,
    "sec": 1e9,
    "min": 60e9,
    "m": 60e9,
    "hr": 3600e9,
    "h": 3600e9,
    "day": 86400e9,
}

_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ns|us|µs|ms|s|sec|min|m|h|hr|day)?\s*$")

#: longest duration accepted anywhere (30 days): beyond it, timeouts overflow the platform's waits
#: (``threading.TIMEOUT_MAX``, ``poll`` in ms) and no benchmark setting makes sense
MAX_DURATION_S = 30 * 86400.0


def parse_duration_s(text: str | int | float, *, positive: bool = True) -> float:
    """Parse ``"1s"``, ``"250ms"``, ``"2m"``, ``"1.5"`` (seconds) into seconds. Raises ValueError.

    Every duration is finite (no ``nan``, ``inf``), not negative, at most :data:`MAX_DURATION_S`, and
    greater than zero unless ``positive=False`` (e.g. a maximum age where 0 means "never").
    """
    if isinstance(text, bool):
        raise ValueError(f"expected a duration such as '1s' or '200ms', got {text!r}")
    if isinstance(text, (int, float)):
        seconds = float(text)
    else:
        m = _DURATION.match(str(text))
        if not m:
            raise ValueError(f"expected a duration such as '1s', '200ms' or '5m', got {text!r}")
        seconds = float(m.group(1)) * TIME_UNITS_NS[m.group(2) or "s"] / 1e9
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"expected a finite duration >= 0 such as '1s' or '200ms', got {text!r}")
    if positive and seconds == 0:
        raise ValueError(f"expected a duration greater than zero such as '1s' or '200ms', got {text!r}")
    if seconds > MAX_DURATION_S:
        raise ValueError(f"expected a duration of at most 30 days, got {text!r}")
    return seconds


def format_duration(seconds: float) -> str:
    """Human-friendly duration: ``850ms``, ``12.3s``, ``4m05s``, ``1h02m``; ``n/a`` when not a finite number."""
    if not math.isfinite(seconds):
        return "n/a"
    if seconds < 1:
        return f"{seconds * 1000:.0f}ms"
    if seconds < 60:
        return f"{seconds:.1f}s"
    if seconds < 3600:
        m, s = divmod(int(round(seconds)), 60)
        return f"{m}m{s:02d}s"
    h, rem = divmod(int(round(seconds)), 3600)
    return f"{h}h{rem // 60:02d}m"


#: primary units that are counts per operation, not times: their "ns/op" value is the count itself
#: (``Benchmark.metric == "instructions"``, docs/metrics.md)
COUNT_UNITS = frozenset({"instr/op"})


def _split(unit: str) -> tuple[str, str]:
    if "/" not in unit:
        raise ValueError(f"unknown unit {unit!r}: expected e.g. 'ns/op' or 'ops/s'")
    num, den = unit.split("/", 1)
    return num.strip(), den.strip()


def direction_of(unit: str) -> Direction:
    """``ops/s`` -> higher is better; ``ns/op`` -> lower is better."""
    num, _ = _split(unit)
    return Direction.HIGHER_IS_BETTER if num == "ops" else Direction.LOWER_IS_BETTER


def to_ns_per_op(value: float, unit: str) -> float:
    """Convert a harness figure to ns/op. ``to_ns_per_op(2.0, "ops/us") == 500.0``; counts stay as they are."""
    if unit in COUNT_UNITS:
        return value
    num, den = _split(unit)
    if num == "ops":
        if den not in TIME_UNITS_NS:
            raise ValueError(f"unknown time unit in {unit!r}")
        if value <= 0:
            raise ValueError(f"throughput must be positive, got {value} {unit}")
        return TIME_UNITS_NS[den] / value
    if den != "op" or num not in TIME_UNITS_NS:
        raise ValueError(f"unknown unit {unit!r}: expected <time>/op or ops/<time>")
    return value * TIME_UNITS_NS[num]


def check_unit(unit: object) -> str:
    """``unit`` if the conversions above understand it (``ns/op``, ``ops/s``, ``instr/op``...); ValueError otherwise.

    For units that come from outside (an imported file, a stored row): every report converts with them."""
    if not isinstance(unit, str):
        raise ValueError(f"expected a unit such as 'ns/op' or 'ops/s', found {unit!r}")
    to_ns_per_op(1.0, unit)
    return unit


def from_ns_per_op(value_ns: float, unit: str) -> float:
    """Inverse of :func:`to_ns_per_op`."""
    if unit in COUNT_UNITS:
        return value_ns
    num, den = _split(unit)
    if num == "ops":
        return TIME_UNITS_NS[den] / value_ns
    return value_ns / TIME_UNITS_NS[num]


def parse_relative(value: object) -> float:
    """``0.02``, ``"2%"`` or ``"0.02"`` -> 0.02 (no range check); ValueError for anything else, booleans included.

    The shared reading of relative amounts (``[compare] min_change``, ``[assess] slowdown``); callers check the
    range and word the error for their key."""
    if isinstance(value, bool):
        raise ValueError(f"not a number: {value!r}")
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip()
    return float(text[:-1]) / 100.0 if text.endswith("%") else float(text)
