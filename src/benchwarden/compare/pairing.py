"""Prepare (build, list) both sides of a comparison and pair their benchmarks by identity.

A benchmark is compared when both versions list it (same suite and key, e.g.
``wordstat:wordstat.bench.TokenizeBench.tokenize[size=1000]``); benchmarks only
one version has are reported as unmatched, never silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from benchwarden.adapters import get_adapter
from benchwarden.adapters.base import Adapter
from benchwarden.compare.sources import GO_BINARY_SPEC_KEY, Side, Sources
from benchwarden.errors import UsageError
from benchwarden.model import BenchmarkId
from benchwarden.runner.engine import Plan, PlannedBenchmark, plan_run
from benchwarden.runner.progress import ProgressListener


@dataclass(frozen=True)
class MatchedBenchmark:
    """The same benchmark planned on both sides."""

    base: PlannedBenchmark
    candidate: PlannedBenchmark

    @property
    def id(self) -> BenchmarkId:
        return self.base.benchmark.id


@dataclass
class Pairing:
    matched: list[MatchedBenchmark] = field(default_factory=list)
    unmatched: list[tuple[str, str]] = field(default_factory=list)  # (benchmark, "base only" | "candidate only")
    failed_suites: dict[str, str] = field(default_factory=dict)  # "suite (side)" -> message
    toolchain: dict[str, dict[str, str]] = field(default_factory=dict)  # role -> toolchain versions


def pair_sides(sources: Sources, cli_filter: str | None = None,
               adapter_factory: Callable[[str], Adapter] = get_adapter,
               listener: ProgressListener | None = None) -> Pairing:
    """Plan the base, then the candidate (sharing the base's build for run-time variants), and match."""
    base_plan = plan_run(list(sources.base.suites), cli_filter, adapter_factory, listener)
    candidate_suites = list(sources.candidate.suites)
    if sources.candidate.build_shared_with_base:
        candidate_suites = [s if s.name in base_plan.failed_suites else
                            replace(s, context=replace(s.context, build=None)) for s in candidate_suites]
    candidate_plan = plan_run(candidate_suites, cli_filter, adapter_factory, listener)
    base_planned = _apply_overrides(sources.base, base_plan)
    candidate_planned = _apply_overrides(sources.candidate, candidate_plan)
    pairing = Pairing(toolchain={"base": dict(base_plan.toolchain), "candidate": dict(candidate_plan.toolchain)})
    for role, plan in (("base", base_plan), ("candidate", candidate_plan)):
        for suite, error in plan.failed_suites.items():
            pairing.failed_suites[f"{suite} ({role})"] = str(error)
    by_id = {str(p.benchmark.id): p for p in candidate_planned}
    base_ids = set()
    for planned in base_planned:
        key = str(planned.benchmark.id)
        base_ids.add(key)
        other = by_id.get(key)
        if other is None:
            if planned.suite.name not in candidate_plan.failed_suites:
                pairing.unmatched.append((key, "base only"))
        else:
            pairing.matched.append(MatchedBenchmark(planned, other))
    for planned in candidate_planned:
        key = str(planned.benchmark.id)
        if key not in base_ids and planned.suite.name not in base_plan.failed_suites:
            pairing.unmatched.append((key, "candidate only"))
    return pairing


def _apply_overrides(side: Side, plan: Plan) -> list[PlannedBenchmark]:
    """Benchmarks of the side with its spec overrides applied (Go test binary given as an artifact)."""
    if not side.spec_overrides:
        return list(plan.benchmarks)
    binaries = {p.benchmark.spec.get(GO_BINARY_SPEC_KEY) for p in plan.benchmarks}
    if len(binaries) > 1:
        raise UsageError(f"--artifacts: the suite has benchmarks in {len(binaries)} Go packages; a test binary "
                         "holds one package, so narrow the suite's `packages` to the package of the binaries")
    return [replace(p, benchmark=replace(p.benchmark, spec={**p.benchmark.spec, **side.spec_overrides}))
            for p in plan.benchmarks]
