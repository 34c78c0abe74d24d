"""What a comparison produces: per-benchmark results and the whole session, as frozen values.

Exporters (``report/markdown.py``, ``json_export.py``, ``junit_compare.py``, ``html.py``) render these;
they compute nothing.  Ratios are of time per operation (candidate / base, ns/op): above 1 is slower
for every benchmark, whatever its display unit; :meth:`BenchmarkComparison.display_change` gives the
change in the benchmark's own unit (e.g. ops/s) for people reading JMH throughput.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from benchwarden.compare.metrics import MetricComparison, MetricVerdict
from benchwarden.compare.verdict import Verdict
from benchwarden.model import Direction
from benchwarden.stats.results import MachineSpread

if TYPE_CHECKING:
    from benchwarden.codelevel.explain import Explanation


@dataclass(frozen=True)
class Look:
    """One sequential look at a benchmark after ``pairs`` fork pairs.

    ``low``/``high``: the change interval at ``confidence``; ``equivalence_low``/``equivalence_high``:
    the equivalence interval at ``equivalence_confidence`` (both levels of this look).
    """

    pairs: int
    confidence: float  # level of the change interval at this look
    ratio: float
    low: float
    high: float
    p_value: float
    threshold: float
    verdict: Verdict
    equivalence_confidence: float | None = None
    equivalence_low: float | None = None
    equivalence_high: float | None = None
    mde: float | None = None

    def to_dict(self) -> dict[str, object]:
        return {"pairs": self.pairs, "confidence": self.confidence, "ratio": self.ratio, "low": self.low,
                "high": self.high, "equivalence_confidence": self.equivalence_confidence,
                "equivalence_low": self.equivalence_low, "equivalence_high": self.equivalence_high,
                "p_value": self.p_value, "threshold": self.threshold, "mde": self.mde,
                "verdict": self.verdict.value}


@dataclass(frozen=True)
class BenchmarkComparison:
    """The outcome for one benchmark present in both versions.

    ``ratio``: the robust (Hodges–Lehmann) estimate of the time ratio candidate/base (ns/op; > 1 is
    slower); ``mean_ratio``: the ratio of the means of fork means, for the record.
    ``ci_low``/``ci_high``: the change interval at the final look (level ``confidence``);
    ``equivalence_low``/``equivalence_high``: the interval "unchanged" was judged on.  None when
    nothing could be computed.  ``mde``: the minimal detectable change of the final look (80 % power);
    ``pairs_needed``: rough number of pairs that would settle an unsettled verdict.
    ``outliers``: forks left out of the analysis, described.
    ``base_ns``/``candidate_ns``: measurement iterations (ns/op) of every complete fork, for plots
    and re-analysis.  ``order``: the sides in the order the forks ran, pair by pair (``"bc"`` /
    ``"cb"``), showing the interleaving.
    """

    suite: str
    key: str
    mode: str
    unit: str
    direction: Direction
    verdict: Verdict
    ratio: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    confidence: float | None = None
    p_value: float | None = None
    threshold: float | None = None
    mean_ratio: float | None = None
    equivalence_low: float | None = None
    equivalence_high: float | None = None
    equivalence_confidence: float | None = None
    mde: float | None = None
    pairs_needed: int | None = None
    paired: bool = True
    outliers: tuple[str, ...] = ()
    min_change: float = 0.03
    time_s: float = 0.0
    base_ns: tuple[tuple[float, ...], ...] = ()
    candidate_ns: tuple[tuple[float, ...], ...] = ()
    looks: tuple[Look, ...] = ()
    order: tuple[str, ...] = ()
    confirmations: tuple[Verdict, ...] = ()
    message: str | None = None
    warnings: tuple[str, ...] = ()
    metric: str = "time"
    metrics: tuple[MetricComparison, ...] = ()
    machines: MachineSpread | None = None

    @property
    def name(self) -> str:
        return f"{self.suite}:{self.key}"

    def gates(self, name: str) -> bool:
        """Whether ``name`` (from ``fail_on``) is this benchmark's primary verdict: ``"time"`` always is,
        and so is the primary metric's own name (``"cpu"`` for a CPU-time comparison)."""
        return name in ("time", self.metric)

    def failing_metrics(self, fail_on: tuple[str, ...]) -> tuple[MetricComparison, ...]:
        """Secondary metrics that got worse and are named in ``fail_on``."""
        return tuple(m for m in self.metrics if m.verdict is MetricVerdict.WORSE and m.name in fail_on
                     and not self.gates(m.name))

    def fails(self, fail_on: tuple[str, ...]) -> bool:
        """Whether this benchmark fails the gate: its primary verdict is slower and gated, or a gated metric
        got worse."""
        slower = self.verdict is Verdict.SLOWER and any(self.gates(n) for n in fail_on)
        return slower or bool(self.failing_metrics(fail_on))

    @property
    def pairs(self) -> int:
        return min(len(self.base_ns), len(self.candidate_ns))

    @property
    def band(self) -> tuple[float, float] | None:
        if self.threshold is None:
            return None
        return 1.0 / (1.0 + self.threshold), 1.0 + self.threshold

    def display_change(self) -> float | None:
        """Relative change in the benchmark's own unit: ``-0.09`` = 9 % fewer ops/s, ``+0.10`` = 10 % more ns/op."""
        if self.ratio is None:
            return None
        if self.direction is Direction.HIGHER_IS_BETTER:
            return 1.0 / self.ratio - 1.0
        return self.ratio - 1.0


@dataclass(frozen=True)
class SideInfo:
    """One version as the user named it, and where its forks are stored."""

    role: str  # "base" | "candidate"
    label: str  # e.g. "HEAD~1 (3f2a9c1e0b)", "WORKTREE +env WORDSTAT_SLOW=1", "run 12"
    commit: str | None = None
    run_id: int | None = None
    description: Mapping[str, object] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {"role": self.role, "label": self.label, "commit": self.commit, "run_id": self.run_id,
                "description": dict(self.description)}


@dataclass(frozen=True)
class Comparison:
    """A whole comparison session: both versions, the design used, every benchmark's outcome.

    ``unmatched``: benchmarks present in one version only, as ``(name, "base only" | "candidate only")``.
    ``not_affected``: benchmarks ``compare --affected`` left out, as ``(name, why)`` (docs/code-level.md).
    ``explanations``: ``compare --explain``'s call-tree diff of each benchmark found slower or faster.
    ``failed_suites``: suite -> error message, for suites that could not be prepared on either side.
    ``machine_time_s``: wall time of every fork run (both versions, confirmations included).
    ``fail_on``: the verdicts that fail the gate (``[compare] fail_on``): ``"time"`` is the primary
    verdict, other names are metrics (docs/metrics.md).
    """

    source: str  # "revisions" | "variants" | "artifacts" | "runs"
    base: SideInfo
    candidate: SideInfo
    design: Mapping[str, Any]  # JSON-like: numbers, strings, flags (SequentialDesign.to_dict and extras)
    benchmarks: tuple[BenchmarkComparison, ...] = ()
    unmatched: tuple[tuple[str, str], ...] = ()
    not_affected: tuple[tuple[str, str], ...] = ()
    explanations: tuple[Explanation, ...] = ()
    failed_suites: Mapping[str, str] = field(default_factory=dict)
    created_at: float = 0.0
    elapsed_s: float = 0.0
    machine_time_s: float = 0.0
    machine: Mapping[str, str] = field(default_factory=dict)
    fail_on: tuple[str, ...] = ("time",)

    def with_verdict(self, verdict: Verdict) -> tuple[BenchmarkComparison, ...]:
        return tuple(b for b in self.benchmarks if b.verdict is verdict)

    @property
    def regressions(self) -> tuple[BenchmarkComparison, ...]:
        return self.with_verdict(Verdict.SLOWER)

    @property
    def failures(self) -> tuple[BenchmarkComparison, ...]:
        """Benchmarks that fail the gate: slower (when the primary verdict gates) or a gated metric worse."""
        return tuple(b for b in self.benchmarks if b.fails(self.fail_on))

    @property
    def errors(self) -> tuple[BenchmarkComparison, ...]:
        return self.with_verdict(Verdict.ERROR)

    @property
    def incomplete(self) -> bool:
        """True when some benchmark or suite could not be compared: the gate cannot vouch for it."""
        return bool(self.errors or self.failed_suites)

    @property
    def gate(self) -> str:
        """``"error"`` when something could not be compared, else ``"regression"`` if any benchmark fails
        (:attr:`failures`: slower, or a metric of ``fail_on`` worse), else ``"pass"`` (the CLI maps these to
        exit statuses 2, 1, 0)."""
        if self.incomplete:
            return "error"
        return "regression" if self.failures else "pass"

    def counts(self) -> dict[str, int]:
        return {v.value: len(self.with_verdict(v)) for v in Verdict if self.with_verdict(v)}
