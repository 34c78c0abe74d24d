"""Why each benchmark stopped where it did: the stop decisions of a run, and its time against the static budgets.

Built from stored results only (every :class:`~benchwarden.model.StopDecision`
is kept by the runner), so ``run`` and ``show`` print the same thing.  Per
benchmark: where each fork's warmup ended and why, the stability values at
the last checkpoint, how many forks ran and why the forks stopped, the
warnings of bounds reached without stability, and the iterations and time
spent against

* the **static budget of the configuration**: what ``stop = "static"`` runs,
  ``forks.max × (warmup.max + iterations)`` iterations; and
* a **reference budget** when one is known (JMH's defaults for the suite's JMH
  version or the benchmark's own annotations; computed by the caller, see
  :mod:`benchwarden.budget`).

Times follow the study's model — iterations × iteration time, process
start-up not counted — except where an iteration is not time-boxed: for
single-shot JMH benchmarks (``ss``) and command benchmarks (``wall``) an
iteration lasts as long as it measured, so both the run and its budgets are
charged the measured iteration durations.  The forks' wall time is given
beside it.  A benchmark that failed has no "saved" figure and is left out of
the totals (its budget would make the run look cheaper than it was).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

from benchwarden.config import CriterionSettings, RunSettings
from benchwarden.model import MEASUREMENT_CHECKPOINT_REASONS as MEASUREMENT_REASONS
from benchwarden.model import BenchmarkResult, ForkResult, StopDecision
from benchwarden.report.table import Column, TableModel, fmt_number, fmt_percent
from benchwarden.units import format_duration

BOUND_MARK = "!"
"""Marks a phase that ended at its bound without becoming stable."""
REMEASURED_MARK = "+"
"""Marks a measurement that was taken again because the level moved during it (one mark per time)."""


#: modes whose iterations are not time-boxed: an iteration lasts as long as one measured execution
UNTIMED_MODES = frozenset({"ss", "wall"})


@dataclass(frozen=True)
class ReferenceBudget:
    """A static budget from outside the configuration, e.g. JMH 1.21 defaults: 500 s per combination.

    ``iterations`` is set for single-shot benchmarks, whose budget is that
    many iterations of their *measured* duration (``seconds`` is then unused).
    """

    seconds: float
    label: str
    iterations: int | None = None


@dataclass(frozen=True)
class ForkStop:
    """How one fork's warmup ended: after ``warmup_iterations``, for ``reason``, with these values."""

    index: int
    status: str
    warmup_iterations: int
    measurement_iterations: int
    reason: str  # reason of the last warmup checkpoint, "no-warmup", or "failed"
    values: Mapping[str, float]
    warning: str | None
    checkpoints: tuple[StopDecision, ...]
    remeasured: int = 0  # measurements relabelled as warmup because the level moved
    measurement_warning: str | None = None


@dataclass(frozen=True)
class StopTrail:
    """The stopping story of one benchmark (see the module docstring)."""

    suite: str
    key: str
    status: str
    policy: str
    forks: tuple[ForkStop, ...]
    fork_reason: str  # reason of the last fork checkpoint, or the benchmark status when there was none
    fork_values: Mapping[str, float]
    fork_checkpoints: tuple[StopDecision, ...]
    iterations: int  # warmup + measurement iterations run (all forks)
    wall_s: float
    iteration_time_s: float | None  # None when the run's settings are unknown (e.g. an imported run)
    static_iterations: int | None
    forks_max: int | None
    criteria: tuple[str, ...] = ()  # "cv<=0.01" ...
    reference: ReferenceBudget | None = None
    fork_warning: str | None = None
    measured_s: float | None = None  # summed measured iteration durations, for untimed modes (ss, wall)

    @property
    def warnings(self) -> tuple[str, ...]:
        found = [f"fork {f.index}: {f.warning}" for f in self.forks if f.warning]
        found += [f"fork {f.index}: {f.measurement_warning}" for f in self.forks if f.measurement_warning]
        if self.fork_warning:
            found.append(self.fork_warning)
        return tuple(found)

    @property
    def counted(self) -> bool:
        """Whether the benchmark counts in "saved": it completed (a failed one says nothing about stopping)."""
        return self.status == "ok"

    @property
    def iteration_s(self) -> float | None:
        """What one iteration costs in the model: the iteration time, or the mean measured duration (untimed)."""
        if self.measured_s is not None:
            return self.measured_s / self.iterations if self.iterations else None
        return self.iteration_time_s

    @property
    def model_s(self) -> float | None:
        if self.measured_s is not None:
            return self.measured_s
        return None if self.iteration_time_s is None else self.iterations * self.iteration_time_s

    @property
    def static_s(self) -> float | None:
        if self.static_iterations is None or self.iteration_s is None:
            return None
        return self.static_iterations * self.iteration_s

    @property
    def reference_s(self) -> float | None:
        if self.reference is None:
            return None
        if self.reference.iterations is not None:
            return None if self.iteration_s is None else self.reference.iterations * self.iteration_s
        return self.reference.seconds or None

    @property
    def saved_vs_static(self) -> float | None:
        if not self.static_iterations or not self.counted:
            return None
        return 1.0 - self.iterations / self.static_iterations

    @property
    def saved_vs_reference(self) -> float | None:
        reference = self.reference_s
        if not reference or self.model_s is None or not self.counted:
            return None
        return 1.0 - self.model_s / reference


def _fork_stop(fork: ForkResult) -> ForkStop:
    decisions = fork.warmup_decisions
    last = fork.last_warmup_decision
    if fork.status.value != "complete" and (last is None or not last.stop):
        reason = "failed"
    elif last is None:
        reason = "no-warmup"
    else:
        reason = last.reason
    after = [d for d in decisions if d.reason in MEASUREMENT_REASONS]
    return ForkStop(index=fork.index, status=fork.status.value, warmup_iterations=len(fork.warmup),
                    measurement_iterations=len(fork.measurement), reason=reason,
                    values=dict(last.values) if last else {}, warning=last.warning if last else None,
                    checkpoints=tuple(decisions), remeasured=sum(d.reason == "level-changed" for d in after),
                    measurement_warning=next((d.warning for d in after if d.warning), None))


def criterion_label(c: CriterionSettings) -> str:
    """``cv<=0.01``, ``kld>=0.99``, ``level(p>0.1, scout)``, ``precision(±5% @90%)``."""
    if c.name == "level":
        return f"level(p>{c.threshold:g}{', scout' if c.scout else ''})"
    if c.name == "precision":
        return f"precision(±{c.threshold * 100:g}% @{c.confidence:.0%})"
    return f"{c.name}{'>=' if c.name == 'kld' else '<='}{c.threshold:g}"


def criteria_labels(settings: RunSettings) -> tuple[str, ...]:
    """``("level(p>0.1, scout)", "precision(±5% @90%)")`` for the dynamic policy, ``()`` otherwise."""
    if settings.stop != "dynamic":
        return ()
    return tuple(criterion_label(c) for c in settings.criteria)


def measured_seconds(result: BenchmarkResult) -> float | None:
    """Summed measured durations of every iteration run, for untimed modes (``ss``, ``wall``); else None."""
    if result.benchmark.mode not in UNTIMED_MODES:
        return None
    return sum(it.value_ns * (it.ops or 1.0) for f in result.forks for it in (*f.warmup, *f.measurement)) / 1e9


def stop_trail(result: BenchmarkResult, settings: RunSettings | None,
               reference: ReferenceBudget | None = None) -> StopTrail:
    """The trail of one stored benchmark; ``settings`` are that benchmark's resolved run settings, if known."""
    forks = tuple(_fork_stop(f) for f in result.forks)
    last = result.fork_decisions[-1] if result.fork_decisions else None
    fork_reason = last.reason if last is not None else result.status.value
    if last is not None and not last.stop and result.status.value != "ok":
        fork_reason = result.status.value
    return StopTrail(
        suite=result.benchmark.id.suite, key=result.benchmark.id.key, status=result.status.value,
        policy=settings.stop if settings is not None else "unknown", forks=forks, fork_reason=fork_reason,
        fork_values=dict(last.values) if last is not None else {}, fork_checkpoints=tuple(result.fork_decisions),
        iterations=sum(f.warmup_iterations + f.measurement_iterations for f in forks),
        wall_s=sum(f.duration_s for f in result.forks),
        iteration_time_s=settings.iteration_time_s if settings is not None else None,
        static_iterations=settings.static_iterations() if settings is not None else None,
        forks_max=settings.forks_max if settings is not None else None,
        criteria=criteria_labels(settings) if settings is not None else (),
        reference=reference, fork_warning=last.warning if last is not None else None,
        measured_s=measured_seconds(result))


def with_reference(trail: StopTrail, reference: ReferenceBudget | None) -> StopTrail:
    return replace(trail, reference=reference)


# --- rendering ---------------------------------------------------------------------------------------


def format_values(values: Mapping[str, float]) -> str:
    """``cv 0.0123 (spread 0.0041)``; criteria in the order recorded."""
    parts = []
    for name, value in values.items():
        if "." in name:
            continue
        text = f"{name} {fmt_number(value, 3)}"
        for stat in ("spread", "mean"):
            if f"{name}.{stat}" in values:
                text += f" ({stat} {fmt_number(values[f'{name}.{stat}'], 3)})"
        parts.append(text)
    return ", ".join(parts) or "-"


def _warmup_cell(forks: Sequence[ForkStop]) -> str:
    cells = []
    for f in forks:
        mark = BOUND_MARK if f.reason == "maximum-reached" or f.measurement_warning else (
            "x" if f.reason == "failed" else "")
        cells.append(f"{f.warmup_iterations}{REMEASURED_MARK * f.remeasured}{mark}")
    return " ".join(cells) or "-"


def _forks_cell(trail: StopTrail) -> str:
    of = f" of {trail.forks_max}" if trail.forks_max is not None else ""
    reason = trail.fork_reason
    mark = BOUND_MARK if reason == "maximum-reached" else ""
    return f"{len(trail.forks)}{of}{mark} ({reason})"


def _saved(value: float | None) -> str:
    return "-" if value is None else fmt_percent(value, 0)


def trail_table(trails: Sequence[StopTrail], title: str | None = "stopping") -> TableModel:
    """One row per benchmark: warmup per fork, forks, last fork values, iterations and time against the budgets."""
    model = TableModel(columns=[
        Column("benchmark"), Column("policy"), Column("warmup per fork"), Column("forks"),
        Column("at the last fork checkpoint"), Column("iterations", "right"), Column("time", "right"),
        Column("saved vs static", "right"), Column("saved vs reference", "right")], title=title)
    for t in trails:
        policy = t.policy + (f" {'+'.join(t.criteria)}" if t.criteria else "")
        iterations = f"{t.iterations}" + (f" of {t.static_iterations}" if t.static_iterations else "")
        model.add([f"{t.suite}:{t.key}", policy, _warmup_cell(t.forks), _forks_cell(t), format_values(t.fork_values),
                   iterations, format_duration(t.wall_s), _saved(t.saved_vs_static), _saved(t.saved_vs_reference)],
                  style="yellow" if t.warnings else None)
    return model


def checkpoint_table(trail: StopTrail) -> TableModel:
    """Every checkpoint of one benchmark: warmup checkpoints per fork, then the fork checkpoints."""
    model = TableModel(columns=[Column("checkpoint"), Column("decision"), Column("reason"), Column("values")],
                       title=f"{trail.suite}:{trail.key}")
    for fork in trail.forks:
        n, relabelled = 0, False
        for d in fork.checkpoints:
            if d.reason in MEASUREMENT_REASONS:
                label, verdict = f"fork {fork.index} after measuring", "keep" if d.stop else "measure again"
                if not d.stop:
                    n += fork.measurement_iterations  # the measurement became warmup
                relabelled = not d.stop
            else:
                n += 0 if relabelled and d.reason == "maximum-reached" else 1  # relabelled up to warmup.max: no new iteration
                relabelled = False
                label, verdict = f"fork {fork.index} warmup {n}", "end warmup" if d.stop else "continue"
            if d.reason == "below-minimum":
                continue
            model.add([label, verdict, d.reason, format_values(d.values)], style="yellow" if d.warning else None)
    for n, d in enumerate(trail.fork_checkpoints, start=1):  # one checkpoint after each complete fork
        if d.reason == "below-minimum":
            continue
        model.add([f"after fork {n}", "stop" if d.stop else "another fork", d.reason, format_values(d.values)],
                  style="yellow" if d.warning else None)
    return model


@dataclass(frozen=True)
class BudgetTotals:
    """Sums over the benchmarks of a run (benchmarks with unknown settings or reference are left out of those sums)."""

    wall_s: float
    model_s: float
    static_s: float
    reference_s: float
    reference_model_s: float  # the model time of the benchmarks that have a reference
    reference_labels: tuple[str, ...] = field(default_factory=tuple)
    excluded: int = 0  # failed benchmarks, left out of the sums

    @property
    def saved_vs_static(self) -> float | None:
        return 1.0 - self.model_s / self.static_s if self.static_s else None

    @property
    def saved_vs_reference(self) -> float | None:
        return 1.0 - self.reference_model_s / self.reference_s if self.reference_s else None


def budget_totals(trails: Sequence[StopTrail]) -> BudgetTotals:
    counted = [t for t in trails if t.counted]
    known = [t for t in counted if t.model_s is not None and t.static_s is not None]
    referenced = [t for t in known if t.reference_s]
    labels = tuple(dict.fromkeys(t.reference.label for t in referenced if t.reference))
    return BudgetTotals(
        wall_s=sum(t.wall_s for t in trails), model_s=sum(t.model_s or 0.0 for t in known),
        static_s=sum(t.static_s or 0.0 for t in known),
        reference_s=sum(t.reference_s or 0.0 for t in referenced),
        reference_model_s=sum(t.model_s or 0.0 for t in referenced), reference_labels=labels,
        excluded=len(trails) - len(counted))


def budget_lines(totals: BudgetTotals) -> list[str]:
    """Human sentences for the end of a run."""
    lines = []
    if totals.static_s:
        lines.append(f"time: {format_duration(totals.model_s)} of iterations ({format_duration(totals.wall_s)} "
                     f"wall, with process start-up) against {format_duration(totals.static_s)} for the static "
                     f"budget of this configuration (forks.max × (warmup.max + iterations)): "
                     f"{_saved(totals.saved_vs_static)} saved")
    if totals.reference_s:
        lines.append(f"against the reference budget — {'; '.join(totals.reference_labels)}: "
                     f"{format_duration(totals.reference_s)}, {_saved(totals.saved_vs_reference)} saved")
    if totals.excluded:
        lines.append(f"{totals.excluded} failed benchmark(s) left out of these figures")
    return lines


def decision_to_json(d: StopDecision) -> dict:
    return {"stop": d.stop, "reason": d.reason, "values": dict(d.values), "warning": d.warning}


def trail_to_json(t: StopTrail, checkpoints: bool = True) -> dict:
    data = {
        "suite": t.suite, "benchmark": t.key, "status": t.status, "policy": t.policy, "criteria": list(t.criteria),
        "forks": [{
            "fork": f.index, "status": f.status, "warmup_iterations": f.warmup_iterations,
            "measurement_iterations": f.measurement_iterations, "warmup_reason": f.reason,
            "values": dict(f.values), "warning": f.warning, "remeasured": f.remeasured,
            "measurement_warning": f.measurement_warning,
            **({"checkpoints": [decision_to_json(d) for d in f.checkpoints]} if checkpoints else {}),
        } for f in t.forks],
        "fork_reason": t.fork_reason, "fork_values": dict(t.fork_values),
        **({"fork_checkpoints": [decision_to_json(d) for d in t.fork_checkpoints]} if checkpoints else {}),
        "warnings": list(t.warnings),
        "iterations": t.iterations, "static_iterations": t.static_iterations,
        "iteration_time_s": t.iteration_time_s, "time_s": t.model_s, "wall_s": round(t.wall_s, 3),
        "static_s": t.static_s, "saved_vs_static": t.saved_vs_static, "counted": t.counted,
        "measured_s": t.measured_s,
        "reference": None if t.reference is None else {"label": t.reference.label, "seconds": t.reference_s,
                                                       "saved": t.saved_vs_reference},
    }
    return data


def totals_to_json(totals: BudgetTotals) -> dict:
    return {"time_s": totals.model_s, "wall_s": round(totals.wall_s, 3), "static_s": totals.static_s,
            "saved_vs_static": totals.saved_vs_static, "reference_s": totals.reference_s or None,
            "reference": list(totals.reference_labels), "saved_vs_reference": totals.saved_vs_reference,
            "excluded_failed": totals.excluded}
