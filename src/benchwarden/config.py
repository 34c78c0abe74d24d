"""Configuration: ``benchwarden.toml``, found from the working directory upwards, validated with clear errors.

Layout (see docs/configuration.md for every key)::

    [store]            url
    [cluster]          address, resource (forks on a dask.distributed cluster, docs/distributed.md)
    [defaults]         run settings for every suite (bounds, stop policy, criteria)
    [suites.NAME]      kind, path, build, artifact, filter, jvm_args, env,
                       run settings (override defaults), adapter options
    [suites.NAME.overrides."REGEX"]
                       run settings for the suite's benchmarks whose key matches REGEX

Validation is done by pydantic; its error locations are turned into
``ConfigError(path, "suites.jmh.forks.max", "expected an integer >= 1")``.
Adapter-specific keys are checked against :data:`ADAPTER_OPTIONS` so a typo
is reported instead of silently ignored.
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from benchwarden.adapters import DEFAULT_BUILDS, REGISTRY
from benchwarden.adapters.base import SuiteContext
from benchwarden.errors import ConfigError

# re-exported: where the config file and the store are (light, no pydantic; see locations.py)
from benchwarden.locations import CONFIG_NAME as CONFIG_NAME
from benchwarden.locations import DEFAULT_STORE as DEFAULT_STORE
from benchwarden.locations import find_config as find_config
from benchwarden.locations import read_toml, store_url_from_table
from benchwarden.locations import resolve_store_url as resolve_store_url
from benchwarden.locations import store_location as store_location
from benchwarden.metrics.catalog import PRIMARY
from benchwarden.metrics.primary import check_metric
from benchwarden.units import parse_duration_s

#: adapter-specific keys each kind accepts in its suite table (they land in SuiteContext.options)
ADAPTER_OPTIONS: dict[str, frozenset[str]] = {
    "jmh": frozenset({"java", "profilers"}),
    "go": frozenset({"packages", "list_timeout"}),
    "python": frozenset({"benchmarks", "python", "pythonpath", "trace_memory"}),
    "command": frozenset({"commands", "command", "shell"}),
    "junit": frozenset({"java", "test_classes", "classes", "invocations"}),
    "gounit": frozenset({"packages"}),
}

#: primary metrics (docs/metrics.md); which kinds support which: benchwarden.metrics.primary
METRICS = tuple(PRIMARY)

#: stop policies known to the runner (checked here so a typo fails before anything runs)
STOP_POLICIES = ("dynamic", "static")
DEFAULT_STOP = "dynamic"


@dataclass(frozen=True)
class CriterionSettings:
    """One stability criterion of the dynamic stop policy (Laaber et al. FSE 2020, §4; docs/dynamic.md).

    ``threshold``: for the variance-type criteria (``cv``, ``rciw``) the largest
    allowed spread ``max(V) − min(V)`` of the window's values; for the
    probability-type ``kld`` the smallest allowed mean of the window; for
    ``level`` the significance level α of its trend and serial-dependence tests
    (a window is level only if both p-values exceed α: a larger α is
    stricter); for ``precision`` the largest allowed relative half-width of
    the interval of the mean across forks.
    ``window``: stability values in the warmup window (one per warmup
    iteration; for ``level`` the window compared with the as many iterations
    before it); ``fork_window``: values in the fork window (one per fork).
    ``confidence``: the level of ``precision``'s *t* interval and of the
    bootstrap interval behind ``rciw``; ``resamples``: ``rciw``'s bootstrap.
    ``scout`` (``level`` only): the first fork runs the whole warmup bound and
    the other forks warm up at least as long as it took to settle.
    """

    name: str
    threshold: float
    window: int = 5
    fork_window: int = 2
    confidence: float = 0.99
    resamples: int = 1000
    scout: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "threshold": self.threshold, "window": self.window,
                "fork_window": self.fork_window, "confidence": self.confidence, "resamples": self.resamples,
                "scout": self.scout}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "CriterionSettings":
        base = CRITERION_DEFAULTS[str(data["name"])]
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return replace(base, **known)


#: the study's settings (Laaber et al. FSE 2020 §5.4; seed-002 §3.7–3.9): window 5; CV 1 %, RCIW 3 % of a 99 %
#: interval from 1,000 resamples, KLD 0.99.  Fork windows compare the pool after fork f with the pool after
#: fork f−1 (the reference code's history of 2): two values for a spread, one probability for KLD.
#: benchwarden's own (docs/dynamic.md, chosen by benchmarks/dynamic_synthetic_suite.py): ``level`` — a scout
#: fork runs the whole warmup bound and shows where the level settles; in the other forks the last 5 warmup
#: iterations and the 5 before them show neither a trend nor serial dependence at α = 0.1, and the measurement
#: confirms it; ``precision`` — the 90 % interval of the mean across forks is within ±5 %.
CRITERION_DEFAULTS: dict[str, CriterionSettings] = {
    "level": CriterionSettings("level", threshold=0.1, window=5, fork_window=2, confidence=0.95, scout=True),
    "precision": CriterionSettings("precision", threshold=0.05, window=5, fork_window=2, confidence=0.9),
    "cv": CriterionSettings("cv", threshold=0.01, window=5, fork_window=2),
    "rciw": CriterionSettings("rciw", threshold=0.03, window=5, fork_window=2),
    "kld": CriterionSettings("kld", threshold=0.99, window=5, fork_window=1),
}
CRITERIA = tuple(CRITERION_DEFAULTS)
#: the study's criteria (Laaber et al.), kept as options
STUDY_CRITERIA = ("cv", "rciw", "kld")
#: criteria of the dynamic policy when none are configured (see docs/dynamic.md for the measurements behind it)
DEFAULT_CRITERIA: tuple[CriterionSettings, ...] = (CRITERION_DEFAULTS["level"], CRITERION_DEFAULTS["precision"])


#: largest count accepted for iterations, forks, windows and resamples: far above any sensible setting, and
#: small enough that no count overflows the store's 64-bit integers or a loop's patience
MAX_COUNT = 1_000_000


class _Strict(BaseModel):
    # strict: TOML has real types, so `iterations = true` or `forks = { min = 1.5 }` is a mistake, not a 1;
    # no nan/inf: every number must be finite (durations are checked by parse_duration_s)
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False,
                              defer_build=True)


class RangeModel(_Strict):
    """``{ min = A, max = B }``, or one whole number N for ``{ min = N, max = N }`` (as ``--forks N`` means)."""

    min: int = Field(ge=0, le=MAX_COUNT)
    max: int = Field(ge=0, le=MAX_COUNT)

    @model_validator(mode="before")
    @classmethod
    def _one_number(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return {"min": value, "max": value}
        return value

    @model_validator(mode="after")
    def _ordered(self) -> "RangeModel":
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) must not exceed max ({self.max})")
        return self


def _duration(value: Any) -> float:
    return parse_duration_s(value)


class CriterionModel(_Strict):
    """Settings of one criterion in a ``criteria`` table (every key optional)."""

    threshold: float | None = None
    window: int | None = None
    fork_window: int | None = None
    confidence: float | None = None
    resamples: int | None = None
    scout: bool | None = None


CriteriaValue = list[str] | dict[str, CriterionModel]


def check_criterion(settings: CriterionSettings) -> None:
    """Raise ValueError naming ``<criterion>.<key>`` when a setting is out of range."""
    name = settings.name
    probability = name == "kld"
    if probability and not 0.0 <= settings.threshold <= 1.0:
        raise ValueError(f"{name}.threshold: expected a probability in [0, 1], got {settings.threshold}")
    if name == "level" and not 0.0 < settings.threshold < 1.0:
        raise ValueError(f"{name}.threshold: expected a significance level in (0, 1), got {settings.threshold}")
    if name == "precision" and not 0.0 < settings.threshold:
        raise ValueError(f"{name}.threshold: expected a relative half-width > 0, got {settings.threshold}")
    if not probability and not settings.threshold >= 0.0:
        raise ValueError(f"{name}.threshold: expected a spread >= 0, got {settings.threshold}")
    if settings.scout and name != "level":
        raise ValueError(f"{name}.scout: only the level criterion has a scout fork")
    smallest = 1 if probability else 2  # a spread needs two values
    for key in ("window", "fork_window"):
        if getattr(settings, key) < smallest:
            raise ValueError(f"{name}.{key}: expected an integer >= {smallest}, got {getattr(settings, key)}")
    if not 0.5 <= settings.confidence < 1.0:
        raise ValueError(f"{name}.confidence: expected a level in [0.5, 1), got {settings.confidence}")
    if not 100 <= settings.resamples <= MAX_COUNT:
        raise ValueError(f"{name}.resamples: expected an integer in [100, {MAX_COUNT}], got {settings.resamples}")
    for key in ("window", "fork_window"):
        if getattr(settings, key) > MAX_COUNT:
            raise ValueError(f"{name}.{key}: expected an integer <= {MAX_COUNT}, got {getattr(settings, key)}")


def resolve_criteria(base: tuple[CriterionSettings, ...], value: CriteriaValue | None) -> tuple[CriterionSettings, ...]:
    """The criteria chosen by ``value`` (a list of names, or a table name -> settings) on top of ``base``.

    A list selects criteria and keeps whatever settings ``base`` had for them
    (else the built-in ones); a table selects its keys and sets the given
    keys.  Raises ValueError for unknown names or bad settings.
    """
    if value is None:
        return base
    names = list(value) if isinstance(value, list) else list(value.keys())
    if not names:
        raise ValueError(f"choose at least one criterion of: {', '.join(CRITERIA)}")
    unknown = [n for n in names if n not in CRITERION_DEFAULTS]
    if unknown:
        raise ValueError(f"unknown criterion {unknown[0]!r}; expected one of: {', '.join(CRITERIA)}")
    if len(set(names)) != len(names):
        raise ValueError("a criterion is named twice")
    inherited = {c.name: c for c in base}
    chosen = []
    for name in names:
        settings = inherited.get(name, CRITERION_DEFAULTS[name])
        if isinstance(value, dict):
            given = {k: v for k, v in value[name].model_dump().items() if v is not None}
            settings = replace(settings, **given)
        check_criterion(settings)
        chosen.append(settings)
    return tuple(chosen)


class SettingsModel(_Strict):
    """Run settings; every field optional so suites can override defaults key by key."""

    iteration_time: float | None = None
    warmup: RangeModel | None = None
    iterations: int | None = Field(default=None, ge=1, le=MAX_COUNT)
    forks: RangeModel | None = None
    timeout: float | None = None
    iteration_timeout: float | None = None
    stop: str | None = None
    criteria: Any = None  # a list of names or a table name -> CriterionModel; see _criteria
    metric: str | None = None  # primary metric: "time", "cpu", "instructions" (docs/metrics.md)

    @field_validator("iteration_time", "timeout", "iteration_timeout", mode="before")
    @classmethod
    def _parse_duration(cls, v: Any) -> Any:
        return None if v is None else _duration(v)

    @field_validator("forks")
    @classmethod
    def _forks(cls, v: RangeModel | None) -> RangeModel | None:
        if v is not None and v.min < 1:
            raise ValueError("forks.min must be at least 1")
        return v

    @field_validator("stop")
    @classmethod
    def _stop(cls, v: str | None) -> str | None:
        if v is not None and v not in STOP_POLICIES:
            raise ValueError(f"unknown stop policy {v!r}; expected one of: {', '.join(STOP_POLICIES)}")
        return v

    @field_validator("metric")
    @classmethod
    def _metric(cls, v: str | None) -> str | None:
        if v is not None and v not in METRICS:
            raise ValueError(f"unknown metric {v!r}; expected one of: {', '.join(METRICS)}")
        return v

    @field_validator("criteria")
    @classmethod
    def _criteria(cls, v: Any) -> CriteriaValue | None:
        """A list of criterion names, or a table of criterion name -> settings (errors name the inner key)."""
        if v is None:
            return None
        if isinstance(v, list):
            if not all(isinstance(n, str) for n in v):
                raise ValueError("expected a list of criterion names such as [\"cv\"] or a table such as "
                                 "{ kld = { threshold = 0.99 } }")
            value: CriteriaValue = list(v)
        elif isinstance(v, dict):
            value = {}
            for name, table in v.items():
                try:
                    value[name] = CriterionModel.model_validate(table)
                except ValidationError as exc:
                    first = exc.errors()[0]
                    where = ".".join(str(p) for p in (name, *first["loc"]))
                    raise ValueError(f"{where}: {'unknown key' if first['type'] == 'extra_forbidden' else first['msg']}"
                                     ) from None
        else:
            raise ValueError("expected a list of criterion names such as [\"cv\"] or a table such as "
                             "{ kld = { threshold = 0.99 } }")
        resolve_criteria((), value)  # names and ranges; merging happens in _merge
        return value


class SuiteModel(SettingsModel):
    model_config = ConfigDict(extra="allow", frozen=True, defer_build=True)

    kind: str
    path: str = "."
    build: str | list[str] | None = None
    artifact: str | None = None
    filter: str | None = None
    jvm_args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    # per-benchmark run settings: regular expression on benchmark keys -> settings (``benchmarks`` would clash
    # with the python adapter's option of that name)
    overrides: dict[str, SettingsModel] = Field(default_factory=dict)
    # parameter overrides, name -> value or values: JMH's -p, asv params and Go sub-benchmarks (adapters/params.py)
    params: dict[str, str | int | float | bool | list[str | int | float | bool]] = Field(default_factory=dict)

    @field_validator("kind")
    @classmethod
    def _kind(cls, v: str) -> str:
        if v not in REGISTRY:
            raise ValueError(f"unknown suite kind {v!r}; expected one of: {', '.join(sorted(REGISTRY))}")
        return v

    @field_validator("params")
    @classmethod
    def _params(cls, v: dict[str, Any]) -> dict[str, Any]:
        for name, values in v.items():
            if not name or any(c in name for c in ",= "):
                raise ValueError(f"{name!r}: a parameter name has no ',', '=' or space")
            if isinstance(values, list) and not values:
                raise ValueError(f"{name}: give at least one value")
        return v

    @field_validator("filter")
    @classmethod
    def _regex(cls, v: str | None) -> str | None:
        if v is not None:
            _check_regex(v)
        return v

    @field_validator("overrides")
    @classmethod
    def _override_patterns(cls, v: dict[str, SettingsModel]) -> dict[str, SettingsModel]:
        for pattern in v:
            try:
                _check_regex(pattern)
            except ValueError as exc:
                raise ValueError(f"{pattern!r}: {exc}") from None
        return v

    @model_validator(mode="after")
    def _metric_fits_kind(self) -> "SuiteModel":
        for where, settings in (("metric", self), *((f"overrides.{p}.metric", o) for p, o in self.overrides.items())):
            if settings.metric is not None:
                try:
                    check_metric(self.kind, settings.metric)
                except ValueError as exc:
                    raise ValueError(f"{where}: {exc}") from None
        return self

    @model_validator(mode="after")
    def _options(self) -> "SuiteModel":
        extra = set((self.model_extra or {}).keys())
        allowed = ADAPTER_OPTIONS.get(self.kind, frozenset())
        unknown = sorted(extra - allowed)
        if unknown:
            hint = f" (keys for kind '{self.kind}': {', '.join(sorted(allowed))})" if allowed else ""
            raise ValueError(f"unknown key(s) {', '.join(unknown)}{hint}")
        return self


def param_values(table: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """A ``params`` table as name -> values (strings as the harnesses print them: ``true``, ``10``, ``0.5``)."""
    def text(value: Any) -> str:
        return ("true" if value else "false") if isinstance(value, bool) else str(value)

    return {name: tuple(text(v) for v in (values if isinstance(values, list) else [values]))
            for name, values in table.items()}


def _check_regex(pattern: str) -> None:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from None


class FileModel(_Strict):
    store: Any = Field(default_factory=dict)  # validated by locations.store_url_from_table (no pydantic needed)
    defaults: SettingsModel = Field(default_factory=SettingsModel)
    suites: dict[str, SuiteModel] = Field(default_factory=dict)
    # Tables owned by one command each; validated by that command's own package (compare, spl, assess, site, codelevel)
    # through :meth:`Config.section`, so their errors still name file and key.
    compare: dict[str, Any] = Field(default_factory=dict)
    check: dict[str, Any] = Field(default_factory=dict)
    assess: dict[str, Any] = Field(default_factory=dict)
    docs: dict[str, Any] = Field(default_factory=dict)
    cluster: dict[str, Any] = Field(default_factory=dict)
    affected: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True)
class BenchmarkOverride:
    """Run settings for the benchmarks whose key matches ``pattern`` (``re.search``).

    ``values``: the changed :meth:`RunSettings.to_dict` entries, already
    resolved against the suite (criteria as a list of dicts).
    """

    pattern: str
    values: Mapping[str, Any]

    def matches(self, key: str) -> bool:
        return re.search(self.pattern, key) is not None

    def to_dict(self) -> dict[str, Any]:
        return {"pattern": self.pattern, "settings": dict(self.values)}


@dataclass(frozen=True)
class RunSettings:
    """Fully resolved run settings of one suite: the bounds ⟨wi_min, wi_max, mi, f_min, f_max⟩, timing, stopping.

    ``criteria`` are used by the ``dynamic`` stop policy (all must agree);
    ``overrides`` change settings for matching benchmarks — use
    :meth:`for_benchmark` to get one benchmark's settings.  ``metric``: the
    primary metric the forks measure (docs/metrics.md).
    """

    iteration_time_s: float = 1.0
    warmup_min: int = 5
    warmup_max: int = 50
    iterations: int = 10
    forks_min: int = 2
    forks_max: int = 5
    timeout_s: float | None = None  # None: derived from the bounds, see fork_timeout_s
    iteration_timeout_s: float | None = None
    stop: str = DEFAULT_STOP
    criteria: tuple[CriterionSettings, ...] = DEFAULT_CRITERIA
    overrides: tuple[BenchmarkOverride, ...] = ()
    metric: str = "time"

    def for_benchmark(self, key: str) -> "RunSettings":
        """The settings of the benchmark with ``key``: every matching override applied in file order."""
        matching = [o for o in self.overrides if o.matches(key)]
        if not matching:
            return replace(self, overrides=())
        values = self.to_dict()
        for override in matching:
            values.update(override.values)
        values["overrides"] = []
        return RunSettings.from_dict(values)

    def with_flags(self, **changed: Any) -> "RunSettings":
        """These settings with ``changed`` applied everywhere: command-line flags win over the per-benchmark
        overrides of the config, so the changed keys are dropped from every override as well."""
        if not changed:
            return self
        overrides = tuple(replace(o, values={k: v for k, v in o.values.items() if k not in changed})
                          for o in self.overrides)
        return replace(self, **changed, overrides=overrides)

    def static_iterations(self) -> int:
        """Iterations the ``static`` policy runs per benchmark: ``forks.max × (warmup.max + iterations)``."""
        return self.forks_max * (self.warmup_max + self.iterations)

    def fork_timeout_s(self) -> float:
        """Bound on one fork: the configured timeout, else 3x its longest possible duration + 2 minutes."""
        if self.timeout_s is not None:
            return self.timeout_s
        return 3.0 * (self.warmup_max + self.iterations) * self.iteration_time_s + 120.0

    def silence_timeout_s(self) -> float:
        """How long a fork may go without producing an iteration (covers process start-up and one iteration)."""
        if self.iteration_timeout_s is not None:
            return self.iteration_timeout_s
        return max(60.0, 10.0 * self.iteration_time_s)

    def to_dict(self) -> dict[str, Any]:
        return {
            "iteration_time_s": self.iteration_time_s, "warmup_min": self.warmup_min, "warmup_max": self.warmup_max,
            "iterations": self.iterations, "forks_min": self.forks_min, "forks_max": self.forks_max,
            "timeout_s": self.timeout_s, "iteration_timeout_s": self.iteration_timeout_s, "stop": self.stop,
            "criteria": [c.to_dict() for c in self.criteria],
            "overrides": [o.to_dict() for o in self.overrides],
            "metric": self.metric,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "RunSettings":
        """Inverse of :meth:`to_dict`; missing keys (snapshots of older versions) take the built-in defaults.

        The dict may come from a stored run or an imported file, so every value is checked as the config file's
        are: ValueError naming the key (``warmup_max: expected an integer in [0, 1000000], found None``).
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"expected a table of run settings, found {type(data).__name__}")
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        for key in ("iteration_time_s", "timeout_s", "iteration_timeout_s"):
            if key in known and not (known[key] is None and key != "iteration_time_s"):
                try:
                    known[key] = parse_duration_s(known[key]) if not isinstance(known[key], str) else _not_text(key)
                except ValueError as exc:
                    raise ValueError(f"{key}: {exc}") from None
        for key, smallest in (("warmup_min", 0), ("warmup_max", 0), ("iterations", 1), ("forks_min", 1),
                              ("forks_max", 1)):
            value = known.get(key, 0 if key.startswith("warmup") else 1)
            if isinstance(value, bool) or not isinstance(value, int) or not smallest <= value <= MAX_COUNT:
                raise ValueError(f"{key}: expected an integer in [{smallest}, {MAX_COUNT}], found {value!r}")
        for low, high in (("warmup_min", "warmup_max"), ("forks_min", "forks_max")):
            if low in known and high in known and known[low] > known[high]:
                raise ValueError(f"{low} ({known[low]}) must not exceed {high} ({known[high]})")
        if "stop" in known and known["stop"] not in STOP_POLICIES:
            raise ValueError(f"stop: unknown stop policy {known['stop']!r}")
        if "metric" in known and not isinstance(known["metric"], str):
            raise ValueError(f"metric: expected a name, found {known['metric']!r}")
        if "criteria" in known:
            known["criteria"] = tuple(_criterion_from_dict(c) for c in _list_of(known["criteria"], "criteria"))
        else:  # stored before criteria were recorded: those versions always used CV
            known["criteria"] = (CRITERION_DEFAULTS["cv"],)
        if "overrides" in known:
            known["overrides"] = tuple(_override_from_dict(o) for o in _list_of(known["overrides"], "overrides"))
        return cls(**known)


def _not_text(key: str) -> float:
    raise ValueError("expected a number of seconds, found a text")


def _list_of(value: Any, key: str) -> list[Any]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{key}: expected a list, found {type(value).__name__}")
    return list(value)


def _criterion_from_dict(data: Any) -> CriterionSettings:
    if not isinstance(data, Mapping) or not isinstance(data.get("name"), str) or data["name"] not in CRITERION_DEFAULTS:
        raise ValueError(f"criteria: expected {{name = one of {', '.join(CRITERIA)}, ...}}, found {data!r}")
    try:
        settings = CriterionSettings.from_dict(data)
        check_criterion(settings)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"criteria: {exc}") from None
    for key in ("threshold", "confidence"):
        value = getattr(settings, key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"criteria: {settings.name}.{key}: expected a finite number, found {value!r}")
    for key in ("window", "fork_window", "resamples"):
        if isinstance(getattr(settings, key), bool) or not isinstance(getattr(settings, key), int):
            raise ValueError(f"criteria: {settings.name}.{key}: expected an integer, found {getattr(settings, key)!r}")
    return settings


def _override_from_dict(data: Any) -> BenchmarkOverride:
    if not isinstance(data, Mapping) or not isinstance(data.get("pattern"), str) \
            or not isinstance(data.get("settings", {}), Mapping):
        raise ValueError(f"overrides: expected {{pattern, settings}}, found {data!r}")
    try:
        _check_regex(data["pattern"])
        RunSettings.from_dict({**RunSettings().to_dict(), **dict(data.get("settings", {})), "overrides": []})
    except ValueError as exc:
        raise ValueError(f"overrides: {data['pattern']!r}: {exc}") from None
    return BenchmarkOverride(data["pattern"], dict(data.get("settings", {})))


BUILTIN_DEFAULTS = RunSettings()


@dataclass(frozen=True)
class Suite:
    """A resolved suite: what the adapter needs (``context``) and how to run it (``settings``)."""

    context: SuiteContext
    settings: RunSettings

    @property
    def name(self) -> str:
        return self.context.name

    @property
    def kind(self) -> str:
        return self.context.kind


@dataclass(frozen=True)
class Config:
    path: Path
    store_url: str
    suites: Mapping[str, Suite] = field(default_factory=dict)
    sections: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # [compare], [check], [assess], [docs], [cluster], [affected]

    def section(self, name: str, model: type[BaseModel]) -> BaseModel:
        """Validate the ``[name]`` table with ``model``; ConfigError naming file and key on a bad value."""
        try:
            return model.model_validate(dict(self.sections.get(name, {})))
        except ValidationError as exc:
            raise _config_error(exc, self.path, table=name) from None

    @property
    def root(self) -> Path:
        return self.path.parent

    def select(self, names: tuple[str, ...] | list[str] = ()) -> list[Suite]:
        """The suites named (all when none are named); unknown names raise ConfigError."""
        if not names:
            return list(self.suites.values())
        unknown = [n for n in names if n not in self.suites]
        if unknown:
            raise ConfigError(f"no suite named {', '.join(map(repr, unknown))}; "
                              f"the config defines: {', '.join(self.suites) or '(none)'}", str(self.path))
        return [self.suites[n] for n in names]


def load_config(path: Path | None = None, start: Path | None = None) -> Config:
    """Read, validate and resolve a config file. Raises ConfigError naming the file, key and expectation."""
    cfg_path = (path if path is not None else find_config(start)).resolve()
    raw = read_toml(cfg_path)
    try:
        model = FileModel.model_validate(raw)
    except ValidationError as exc:
        raise _config_error(exc, cfg_path) from None
    return _resolve(model, cfg_path)


def _config_error(exc: ValidationError, path: Path, table: str | None = None) -> ConfigError:
    """The first validation error as a ConfigError naming the key (prefixed by ``table`` for a table's model)."""
    first = exc.errors()[0]
    key = ".".join([*([table] if table else []), *(str(p) for p in first["loc"])]) or None
    msg = first["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    if first["type"] == "extra_forbidden":
        msg = "unknown key"
    elif first["type"] == "missing":
        msg = "required key is missing"
    elif first["type"] == "model_type" and "RangeModel" in first["msg"]:
        msg = f"expected a whole number or {{ min = A, max = B }}, got {first['input']!r}"
    more = len(exc.errors()) - 1
    if more:
        msg += f" (and {more} more problem{'s' if more > 1 else ''})"
    return ConfigError(msg, str(path), key)


def _merge(base: RunSettings, over: SettingsModel) -> RunSettings:
    values = base.to_dict()
    if over.iteration_time is not None:
        values["iteration_time_s"] = over.iteration_time
    if over.warmup is not None:
        values["warmup_min"], values["warmup_max"] = over.warmup.min, over.warmup.max
    if over.iterations is not None:
        values["iterations"] = over.iterations
    if over.forks is not None:
        values["forks_min"], values["forks_max"] = over.forks.min, over.forks.max
    if over.timeout is not None:
        values["timeout_s"] = over.timeout
    if over.iteration_timeout is not None:
        values["iteration_timeout_s"] = over.iteration_timeout
    if over.stop is not None:
        values["stop"] = over.stop
    if over.metric is not None:
        values["metric"] = over.metric
    merged = RunSettings.from_dict(values)
    if over.criteria is not None:
        merged = replace(merged, criteria=resolve_criteria(base.criteria, over.criteria))
    return merged


def _overrides(suite: RunSettings, sm: "SuiteModel") -> tuple[BenchmarkOverride, ...]:
    """Each ``[suites.NAME.overrides."REGEX"]`` table as the settings it changes relative to the suite."""
    found = []
    base = suite.to_dict()
    for pattern, model in sm.overrides.items():
        merged = _merge(suite, model).to_dict()
        changed = {k: v for k, v in merged.items() if k != "overrides" and v != base[k]}
        found.append(BenchmarkOverride(pattern, changed))
    return tuple(found)


def _split_command(value: str | list[str] | None, path: Path, key: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, list):
        argv = tuple(value)
    else:
        try:
            argv = tuple(shlex.split(value))
        except ValueError as exc:
            raise ConfigError(f"cannot split command: {exc}", str(path), key) from None
    if not argv:
        raise ConfigError("expected a non-empty command", str(path), key)
    return argv


def _check_metrics(name: str, kind: str, settings: RunSettings, from_defaults: bool, path: Path) -> None:
    """The suite's metric, inherited from ``[defaults]`` or its own, must be one its kind can measure."""
    try:
        check_metric(kind, settings.metric)
    except ValueError as exc:
        key = "defaults.metric" if from_defaults else f"suites.{name}.metric"
        raise ConfigError(f"suite '{name}' (kind {kind}): {exc}", str(path), key) from None


def _resolve(model: FileModel, path: Path) -> Config:
    defaults = _merge(BUILTIN_DEFAULTS, model.defaults)
    suites: dict[str, Suite] = {}
    for name, sm in model.suites.items():
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
            raise ConfigError("suite names may use letters, digits, '_', '-' and '.' only", str(path), f"suites.{name}")
        root = (path.parent / sm.path).resolve()
        if not root.is_dir():
            raise ConfigError(f"directory {root} does not exist", str(path), f"suites.{name}.path")
        ctx = SuiteContext(
            name=name, kind=sm.kind, root=root,
            build=_split_command(sm.build, path, f"suites.{name}.build") if sm.build is not None
            else DEFAULT_BUILDS.get(sm.kind),
            artifact=sm.artifact, filter=sm.filter, jvm_args=tuple(sm.jvm_args), env=dict(sm.env),
            options=dict(sm.model_extra or {}), params=param_values(sm.params),
        )
        settings = _merge(defaults, sm)
        settings = replace(settings, overrides=_overrides(settings, sm))
        _check_metrics(name, sm.kind, settings, model.defaults.metric is not None and sm.metric is None, path)
        suites[name] = Suite(context=ctx, settings=settings)
    store_url = store_url_from_table(model.store, path)
    sections = {"compare": model.compare, "check": model.check, "assess": model.assess, "docs": model.docs, "cluster": model.cluster,
                "affected": model.affected}
    return Config(path=path, store_url=store_url, suites=suites, sections=sections)
