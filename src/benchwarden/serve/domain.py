"""Which parameter values a reader may ask `serve` to measure: the domain each benchmark declares.

A *family* is one benchmark name with parameters (``suite:Class.method``); its *axes* are the parameters with
the values the harness listed.  What a value outside the listed ones means depends on the harness, as for
``-p`` (:mod:`benchwarden.adapters.params`):

* **JMH** replaces ``@Param`` values with any value given (``-p size=500``).  A numeric axis therefore accepts
  any number between the smallest and the largest declared value (an integer when every declared value is
  one): the range the benchmark's author declared, and nothing outside it, so a reader cannot ask for
  ``size=10^9``.  A non-numeric axis accepts its declared values.
* **Go** sub-benchmarks and **asv** ``params`` exist only as the code declares them: every axis accepts its
  declared values only.

Pure functions over listed benchmarks; :class:`DomainError` says what is wrong and what is allowed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Iterable, Mapping

from benchwarden.adapters.params import declared_values, value_matches
from benchwarden.errors import BenchwardenError
from benchwarden.model import Benchmark

#: harness kinds whose parameter values are replaced by any value given (JMH semantics)
OPEN_KINDS = frozenset({"jmh"})
#: a number as a reader may type it: no spaces, no exponent beyond what a declared range needs, no nan/inf
_NUMBER = re.compile(r"-?(?:\d+(?:\.\d*)?|\.\d+)")
MAX_VALUE_LENGTH = 64


class DomainError(BenchwardenError):
    """A requested benchmark or parameter value is outside what the benchmark declares."""


@dataclass(frozen=True)
class Axis:
    """One parameter of a family: its declared values (in listing order) and whether a range between them is open."""

    name: str
    values: tuple[str, ...]
    open_range: bool = False  # any number in [low, high] (JMH, every declared value numeric)
    integer: bool = False  # open range of integers only

    @property
    def low(self) -> float:
        return min(float(v) for v in self.values)

    @property
    def high(self) -> float:
        return max(float(v) for v in self.values)

    def describe(self) -> str:
        """What the axis accepts, for messages and the page's form."""
        if self.open_range:
            kind = "an integer" if self.integer else "a number"
            return f"{kind} from {_plain(self.low)} to {_plain(self.high)}"
        return "one of " + ", ".join(self.values)

    def check(self, given: str) -> str:
        """The value to measure for ``given`` (a declared value's own spelling when it names one); DomainError."""
        text = given.strip()
        if not text or len(text) > MAX_VALUE_LENGTH:
            raise DomainError(f"parameter '{self.name}': expected {self.describe()}, got {given[:MAX_VALUE_LENGTH]!r}")
        for value in self.values:
            if value_matches(text, value):
                return value
        if self.open_range and _NUMBER.fullmatch(text):
            number = float(text)
            if self.integer and not number.is_integer():
                raise DomainError(f"parameter '{self.name}': expected {self.describe()}, got {text!r}")
            if self.low <= number <= self.high:
                return str(int(number)) if self.integer else _plain(number)
            raise DomainError(f"parameter '{self.name}': {text} is outside the declared range "
                              f"{_plain(self.low)}..{_plain(self.high)}")
        raise DomainError(f"parameter '{self.name}': expected {self.describe()}, got {text!r}")

    def to_json(self) -> dict:
        out: dict = {"name": self.name, "values": list(self.values), "open": self.open_range,
                     "accepts": self.describe()}
        if self.open_range:
            out.update(low=self.low, high=self.high, integer=self.integer)
        return out


@dataclass(frozen=True)
class Family:
    """A benchmark name with parameters, as listed: its axes and one listed member per declared combination."""

    suite: str
    name: str
    kind: str
    axes: tuple[Axis, ...]
    members: tuple[Benchmark, ...]

    @property
    def key(self) -> str:
        return f"{self.suite}:{self.name}"

    def resolve(self, params: Mapping[str, str]) -> Benchmark:
        """The benchmark to measure for ``params`` (every axis named once); DomainError otherwise.

        A declared combination is its listed benchmark; a new one (JMH) is the first member with its
        parameter values replaced, as JMH's ``-p`` replaces them (the harness receives ``-p name=value``).
        """
        names = [a.name for a in self.axes]
        unknown = sorted(set(params) - set(names))
        if unknown:
            raise DomainError(f"{self.key} has no parameter {', '.join(map(repr, unknown))} "
                              f"(parameters: {', '.join(names)})")
        missing = [n for n in names if n not in params]
        if missing:
            raise DomainError(f"{self.key}: give a value for {', '.join(map(repr, missing))}")
        chosen = tuple((a.name, a.check(str(params[a.name]))) for a in self.axes)
        for member in self.members:
            if dict(member.id.params) == dict(chosen):
                return member
        if self.kind not in OPEN_KINDS:  # each value is declared, but this combination was not listed
            raise DomainError(f"{self.key}: the harness lists no combination "
                              + ", ".join(f"{n}={v}" for n, v in chosen))
        template = self.members[0]
        order = [n for n, _ in template.id.params]
        values = dict(chosen)
        return replace(template, id=replace(template.id, params=tuple((n, values[n]) for n in order)))

    def to_json(self) -> dict:
        return {"benchmark": self.key, "axes": [a.to_json() for a in self.axes]}


def families(suite: str, kind: str, listed: Iterable[Benchmark]) -> dict[str, Family]:
    """The families with parameters among ``listed`` (one suite's listing), by ``suite:name``."""
    grouped: dict[str, list[Benchmark]] = {}
    for b in listed:
        if b.id.params:
            grouped.setdefault(b.id.name, []).append(b)
    out: dict[str, Family] = {}
    for name, members in grouped.items():
        axes = []
        for n, values in declared_values(members).items():
            numeric = all(_NUMBER.fullmatch(v) for v in values)
            axes.append(Axis(n, tuple(values), open_range=kind in OPEN_KINDS and numeric and len(values) >= 2,
                             integer=numeric and all(re.fullmatch(r"-?\d+", v) for v in values)))
        family = Family(suite, name, kind, tuple(axes), tuple(members))
        out[family.key] = family
    return out


def _plain(number: float) -> str:
    """``500`` for 500.0, ``0.25`` for 0.25: a number as a reader would write it."""
    if math.isfinite(number) and number.is_integer():
        return str(int(number))
    return repr(number)
