"""The ``[compare]`` table of benchwarden.toml, validated by its own model (``Config.section("compare", ...)``).

```toml
[compare]
min_change = "3%"              # the smallest change that matters (a fraction 0.03 or a percentage string)
confidence = 0.995             # simultaneous confidence of "slower"/"faster" over all looks (false alarms ≤ 0.5 %)
equivalence_confidence = 0.95  # simultaneous confidence of "unchanged" (a missed change at the band edge ≤ 2.5 %)
rank_alpha = 0.05              # the rank test on the same units must not object (its p-value, or its smallest)
min_forks = 4                  # fork pairs before the first look
max_forks = 20                 # fork pairs at most (the sequential design's horizon)
spending = "pocock"            # alpha spending: "pocock" or "obrien-fleming"
pairing = "auto"               # "sequential": a pair's two forks back to back in random order; "simultaneous":
                               # side by side; "auto": side by side where measured best (Go in CPU time), else sequential
confirm = 0                    # re-measure a regression this many times before failing the gate
thresholds = { "Noisy" = "15%" }   # per-benchmark minimum change, by regular expression on the key
fail_on = ["time", "allocs"]   # verdicts that fail the gate: "time" = the primary verdict, else metric names
tolerances = { bytes = "1%" }  # exact-rule tolerance per metric (docs/metrics.md)
```

Removed keys are refused with the reason: ``noise_floor`` (noise no longer raises the threshold; it
costs fork pairs instead) and ``n_resamples`` (verdicts no longer bootstrap).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from benchwarden.compare.sequential import SequentialDesign
from benchwarden.metrics.catalog import GATE_NAMES
from benchwarden.units import parse_relative


def parse_fraction(value: Any) -> float:
    """``0.02``, ``"2%"`` or ``"0.02"`` -> 0.02; ValueError naming the value otherwise."""
    try:
        number = parse_relative(value)
    except ValueError:
        raise ValueError(f"expected a fraction such as 0.02 or '2%', got {value!r}") from None
    if not 0 <= number < 1:
        raise ValueError(f"expected a fraction in [0, 1) such as 0.02 or '2%', got {value!r}")
    return number


REMOVED_KEYS = {
    "noise_floor": "noise no longer raises the threshold: the threshold is min_change, and a noisy benchmark "
                   "costs more fork pairs instead (docs/compare.md)",
    "n_resamples": "verdicts no longer use the bootstrap (docs/compare.md, 'The verdict')",
}


class CompareSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    min_change: float = 0.03
    confidence: float = Field(default=0.995, gt=0.5, lt=1.0)
    equivalence_confidence: float = Field(default=0.95, gt=0.5, lt=1.0)
    rank_alpha: float = Field(default=0.05, gt=0.0, lt=1.0)
    min_forks: int = Field(default=4, ge=2)
    max_forks: int = Field(default=20, ge=2, le=1000)
    spending: Literal["pocock", "obrien-fleming"] = "pocock"
    pairing: Literal["auto", "sequential", "simultaneous"] = "auto"
    confirm: int = Field(default=0, ge=0, le=10)
    thresholds: dict[str, float] = Field(default_factory=dict)
    fail_on: tuple[str, ...] = ("time",)
    tolerances: dict[str, float] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _removed(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key, why in REMOVED_KEYS.items():
                if key in data:
                    raise ValueError(f"{key} was removed: {why}")
        return data

    @field_validator("min_change", mode="before")
    @classmethod
    def _fraction(cls, v: Any) -> float:
        return parse_fraction(v)

    @field_validator("thresholds", mode="before")
    @classmethod
    def _thresholds(cls, v: Any) -> dict[str, float]:
        if not isinstance(v, dict):
            raise ValueError("expected a table of regular expression = fraction, e.g. { \"Noisy\" = \"15%\" }")
        out = {}
        for pattern, value in v.items():
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a valid regular expression: {exc}") from None
            out[pattern] = parse_fraction(value)
        return out

    @field_validator("fail_on", mode="before")
    @classmethod
    def _fail_on(cls, v: Any) -> tuple[str, ...]:
        if isinstance(v, str) or not isinstance(v, (list, tuple)) or not all(isinstance(n, str) for n in v):
            raise ValueError(f"expected a list of names such as [\"time\", \"allocs\"], got {v!r}")
        unknown = [n for n in v if n not in GATE_NAMES]
        if unknown:
            raise ValueError(f"unknown metric {unknown[0]!r}; expected names from: {', '.join(GATE_NAMES)}")
        return tuple(dict.fromkeys(v))

    @field_validator("tolerances", mode="before")
    @classmethod
    def _tolerances(cls, v: Any) -> dict[str, float]:
        if not isinstance(v, dict):
            raise ValueError("expected a table of metric = fraction, e.g. { bytes = \"1%\" }")
        unknown = [n for n in v if n not in GATE_NAMES or n == "time"]
        if unknown:
            raise ValueError(f"no tolerance for {unknown[0]!r}; metrics: {', '.join(n for n in GATE_NAMES if n != 'time')}")
        return {name: parse_fraction(value) for name, value in v.items()}

    @model_validator(mode="after")
    def _forks(self) -> "CompareSettings":
        if self.min_forks > self.max_forks:
            raise ValueError(f"min_forks ({self.min_forks}) must not exceed max_forks ({self.max_forks})")
        return self

    def design(self) -> SequentialDesign:
        return SequentialDesign(confidence=self.confidence, min_pairs=self.min_forks, max_pairs=self.max_forks,
                                spending=self.spending, equivalence_confidence=self.equivalence_confidence)

    def min_change_for(self, key: str) -> float:
        """The minimum change for a benchmark key: the first matching ``thresholds`` pattern, else ``min_change``."""
        for pattern, value in self.thresholds.items():
            if re.search(pattern, key):
                return value
        return self.min_change

    def warnings(self) -> list[str]:
        """Settings that make a verdict impossible or weak, said up front."""
        notes = []
        if self.max_forks < 5:
            notes.append(f"max_forks = {self.max_forks}: with fewer than 5 pairs an outlying fork can never be left "
                         "out, so one disturbed fork makes a verdict inconclusive")
        return notes
