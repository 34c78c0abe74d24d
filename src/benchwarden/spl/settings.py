"""The ``[check]`` table of benchwarden.toml, validated with pydantic, and the resolved check settings.

```toml
[check]
files = ["perf.spl"]              # globs relative to the config file; default: every *.spl below it
annotations = true                # read @SPL annotations from built JMH jars
interpretation = "parametric"     # quick | parametric | bootstrap
alpha = 0.05                      # per comparison, split over the measuring rounds (docs/spl.md)
margin = 0.02                     # equivalence margin of '=' (fraction of the mean)
verdicts = "three-valued"         # or "lenient": the thesis' reading, undecided counts as holds
max_rounds = 2                    # extra measuring rounds for undecided assertions
max_forks = 12                    # per benchmark instance, all rounds and reused forks together
reuse = "24h"                     # reuse stored measurements of unchanged code this recent; false: never
history = 10                      # earlier check runs pooled into the parametric R²
resamples = 10000                 # bootstrap resamples
seed = 0                          # bootstrap seed (results are reproducible)

[check.assertions]                # inline assertions: name -> SPL program
hash-beats-sorted = "countHash <= countSorted"
```
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from benchwarden.units import parse_duration_s

#: the statistical interpretations of SPL relations (implemented in :mod:`benchwarden.spl.interpretations`)
INTERPRETATIONS = ("quick", "parametric", "bootstrap")
DEFAULT_RESAMPLES = 10_000

DEFAULT_REUSE_S = 24 * 3600.0


class CheckModel(BaseModel):
    """Validation model of ``[check]``; errors name the key (``check.alpha``) through Config.section."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    files: list[str] | None = None
    annotations: bool = True
    interpretation: str = "parametric"
    alpha: float = Field(default=0.05, gt=0.0, le=0.5)
    margin: float = Field(default=0.02, ge=0.0, lt=1.0)
    verdicts: str = "three-valued"
    max_rounds: int = Field(default=2, ge=0, le=20)
    max_forks: int | None = Field(default=None, ge=1)
    reuse: float | None = DEFAULT_REUSE_S
    history: int = Field(default=10, ge=0)
    resamples: int = Field(default=DEFAULT_RESAMPLES, ge=100)
    seed: int = 0
    assertions: dict[str, str] | list[str] = Field(default_factory=dict)

    @field_validator("interpretation")
    @classmethod
    def _interpretation(cls, v: str) -> str:
        if v not in INTERPRETATIONS:
            raise ValueError(f"unknown interpretation {v!r}; expected one of: {', '.join(INTERPRETATIONS)}")
        return v

    @field_validator("verdicts")
    @classmethod
    def _verdicts(cls, v: str) -> str:
        if v not in ("three-valued", "lenient"):
            raise ValueError("expected 'three-valued' or 'lenient'")
        return v

    @field_validator("reuse", mode="before")
    @classmethod
    def _reuse(cls, v: Any) -> Any:
        if v is False or v is None:
            return None
        if v is True:
            return DEFAULT_REUSE_S
        return parse_duration_s(v, positive=False)  # 0: never reuse


@dataclass(frozen=True)
class CheckSettings:
    """Resolved settings of one ``check`` (config, then command-line overrides)."""

    interpretation: str = "parametric"
    alpha: float = 0.05
    margin: float = 0.02
    lenient: bool = False
    max_rounds: int = 2
    max_forks: int | None = None  # None: four times the suite's forks_max
    reuse_max_age_s: float | None = DEFAULT_REUSE_S  # None: never reuse
    history_runs: int = 10
    resamples: int = DEFAULT_RESAMPLES
    seed: int = 0
    annotations: bool = True

    @classmethod
    def from_model(cls, model: CheckModel) -> "CheckSettings":
        return cls(interpretation=model.interpretation, alpha=model.alpha, margin=model.margin,
                   lenient=model.verdicts == "lenient", max_rounds=model.max_rounds, max_forks=model.max_forks,
                   reuse_max_age_s=model.reuse, history_runs=model.history, resamples=model.resamples,
                   seed=model.seed, annotations=model.annotations)

    def with_overrides(self, **changes: Any) -> "CheckSettings":
        """A copy with the given non-None fields replaced (command-line options)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    @property
    def looks(self) -> int:
        """How many times a comparison may be evaluated: once, plus once per extra measuring round."""
        return 1 if self.lenient else 1 + self.max_rounds
