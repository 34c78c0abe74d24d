"""K′, the core API methods to slow down: from ``[assess] methods`` or the most-called public methods.

The study picked the 20 methods most often invoked while client projects' unit tests ran (§6.2;
digest seed-003 §3.2; ties unspecified). Here the trace comes from the project's own tests (``discover =
"tests"``, when a test command is known) or from its benchmarks (``"benchmarks"``); ties are broken by
name so the choice is reproducible. Method names follow each language's own notation:

* Java: ``pkg.Class#name(param types)``, e.g. ``wordstat.WordStat#tokenize(java.lang.String)``
  (without a parameter list every overload is meant);
* Go: ``importpath.Func``, ``importpath.(*T).Method`` or ``importpath.T.Method``;
* Python: ``module:function`` or ``module:Class.method``.
"""

from __future__ import annotations

import math
import re
from typing import Literal, Mapping

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from benchwarden.units import parse_duration_s, parse_relative

_PATTERNS = {
    "jmh": re.compile(r"^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*#[A-Za-z_$][\w$]*(\([\w$.\[\], ]*\))?$"),
    "go": re.compile(r"^[^\s()]+\.(\(\*[A-Za-z_]\w*\)\.|[A-Za-z_]\w*\.)?[A-Za-z_]\w*$"),
    "python": re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)?$"),
}
_PATTERNS["junit"] = _PATTERNS["jmh"]  # unit tests as workloads: the code under test is Java, named as for JMH
_EXAMPLES = {
    "jmh": "pkg.Class#method(java.lang.String)",
    "go": "example.com/pkg.Func or example.com/pkg.(*T).Method",
    "python": "module:function or module:Class.method",
}
_EXAMPLES["junit"] = _EXAMPLES["jmh"]


class AssessSettings(BaseModel):
    """The ``[assess]`` table of benchwarden.toml (every key optional; see docs/assess.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    methods: list[str] = Field(default_factory=list)
    top: int = Field(default=20, ge=1)
    discover: Literal["tests", "benchmarks"] | None = None
    test_command: str | list[str] | None = None
    packages: list[str] = Field(default_factory=list)
    runs: int = Field(default=5, ge=2)
    repetitions: int = Field(default=2, ge=1)
    slowdown: float | None = 0.10  # None: the study's noise-derived v (``slowdown = "study"``)
    budget: float = 600.0
    unstable_cv: float = Field(default=0.15, gt=0)
    unstable_spread: float = Field(default=0.25, gt=0)
    rule: Literal["compare", "study"] = "compare"
    min_forks: int = Field(default=2, ge=1, le=100)
    max_forks: int = Field(default=5, ge=2, le=100)
    wait_clock: Literal["wall", "cpu"] = "wall"  # what a slowdown times calls by and waits on (docs/assess.md)

    @model_validator(mode="after")
    def _forks(self) -> "AssessSettings":
        if self.min_forks > self.max_forks:
            raise ValueError(f"min_forks ({self.min_forks}) must not exceed max_forks ({self.max_forks})")
        return self

    @field_validator("budget", mode="before")
    @classmethod
    def _budget(cls, value: object) -> float:
        return parse_duration_s(value)  # type: ignore[arg-type]

    @field_validator("slowdown", mode="before")
    @classmethod
    def _slowdown(cls, value: object) -> float | None:
        return parse_slowdown(value)


def parse_slowdown(value: object) -> float | None:
    """``"10%"``, ``0.1`` or ``"0.1"`` -> 0.1; ``"study"`` -> None (the study's noise-derived v); ValueError
    naming the value otherwise.  A slowdown is relative and positive; it may exceed 100 % (``3`` = 4× slower)."""
    if isinstance(value, str) and value.strip().lower() == "study":
        return None
    try:
        number = parse_relative(value)
    except ValueError:
        raise ValueError(f"expected a slowdown such as '10%', 0.1 or 'study', got {value!r}") from None
    if not (math.isfinite(number) and number > 0):
        raise ValueError(f"expected a finite, positive slowdown such as '10%' or 0.1, got {value!r}")
    return number


def check_method(kind: str, method: str) -> str:
    """``method`` stripped, if it is a valid name for suites of ``kind``; ValueError naming the expected form."""
    text = method.strip()
    pattern = _PATTERNS.get(kind)
    if pattern is None:
        raise ValueError(f"suites of kind '{kind}' cannot be assessed (slowdown injection exists for "
                         f"{', '.join(sorted(_PATTERNS))})")
    if not pattern.match(text):
        raise ValueError(f"{method!r} is not a {kind} method name; expected {_EXAMPLES[kind]}")
    return text


def most_called(counts: Mapping[str, int], n: int) -> list[str]:
    """The ``n`` methods with the most calls (ties by name); methods never called are not candidates."""
    ranked = sorted((m for m, c in counts.items() if c > 0), key=lambda m: (-counts[m], m))
    return ranked[:n]


def merge_counts(*traces: Mapping[str, int]) -> dict[str, int]:
    total: dict[str, int] = {}
    for trace in traces:
        for method, calls in trace.items():
            total[method] = total.get(method, 0) + int(calls)
    return total
