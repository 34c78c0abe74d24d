"""The ``[compare]`` table of benchwarden.toml, validated by its own model (``Config.section("compare", ...)``).

```toml
[compare]
min_change = "2%"        # configured minimum practical change (a fraction 0.02 or a percentage string)
confidence = 0.95        # simultaneous confidence of the repeated intervals (1 − α over all looks)
rank_alpha = 0.05        # Mann-Whitney on fork means must agree below this p-value
min_forks = 4            # fork pairs before the first look (4 is the fewest at which p < 0.05 is possible)
max_forks = 10           # fork pairs at most (the sequential design's horizon)
spending = "pocock"      # alpha spending: "pocock" or "obrien-fleming"
noise_floor = true       # raise the threshold to the benchmark's own fork-to-fork variation
confirm = 0              # re-measure a regression this many times before failing the gate
thresholds = { "Noisy" = "15%" }   # per-benchmark minimum change, by regular expression on the key
```
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from scipy import special

from benchwarden.compare.sequential import SequentialDesign


def parse_fraction(value: Any) -> float:
    """``0.02``, ``"2%"`` or ``"0.02"`` -> 0.02; ValueError naming the value otherwise."""
    if isinstance(value, bool):
        raise ValueError(f"expected a fraction such as 0.02 or '2%', got {value!r}")
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        text = str(value).strip()
        try:
            number = float(text[:-1]) / 100.0 if text.endswith("%") else float(text)
        except ValueError:
            raise ValueError(f"expected a fraction such as 0.02 or '2%', got {value!r}") from None
    if not 0 <= number < 1:
        raise ValueError(f"expected a fraction in [0, 1) such as 0.02 or '2%', got {value!r}")
    return number


def min_pairs_for_rank_test(rank_alpha: float) -> int:
    """Fewest fork pairs n at which Mann-Whitney (n vs n) can reach p < rank_alpha: 2/C(2n, n) < α."""
    n = 2
    while 2.0 / special.comb(2 * n, n) >= rank_alpha:
        n += 1
    return n


class CompareSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    min_change: float = 0.02
    confidence: float = Field(default=0.95, gt=0.5, lt=1.0)
    rank_alpha: float = Field(default=0.05, gt=0.0, lt=1.0)
    min_forks: int = Field(default=4, ge=2)
    max_forks: int = Field(default=10, ge=2)
    spending: Literal["pocock", "obrien-fleming"] = "pocock"
    noise_floor: bool = True
    confirm: int = Field(default=0, ge=0, le=10)
    n_resamples: int = Field(default=10_000, ge=1000)
    thresholds: dict[str, float] = Field(default_factory=dict)

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

    @model_validator(mode="after")
    def _forks(self) -> "CompareSettings":
        if self.min_forks > self.max_forks:
            raise ValueError(f"min_forks ({self.min_forks}) must not exceed max_forks ({self.max_forks})")
        return self

    def design(self) -> SequentialDesign:
        return SequentialDesign(confidence=self.confidence, min_pairs=self.min_forks, max_pairs=self.max_forks,
                                spending=self.spending)

    def min_change_for(self, key: str) -> float:
        """The minimum change for a benchmark key: the first matching ``thresholds`` pattern, else ``min_change``."""
        for pattern, value in self.thresholds.items():
            if re.search(pattern, key):
                return value
        return self.min_change

    def warnings(self) -> list[str]:
        """Settings that make a verdict of "slower"/"faster" impossible, said up front."""
        need = min_pairs_for_rank_test(self.rank_alpha)
        if self.max_forks < need:
            return [f"max_forks = {self.max_forks}: Mann-Whitney on {self.max_forks} vs {self.max_forks} fork means "
                    f"cannot reach p < {self.rank_alpha:g} (needs {need} pairs), so no benchmark can be "
                    "called slower or faster"]
        return []
