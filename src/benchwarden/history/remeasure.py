"""Two commits re-measured for one benchmark by ``compare``'s own session: what ``history --confirm`` and
``bisect`` build on.

Revision worktrees are built once per commit (cached, docs/compare.md), the forks of both commits run
interleaved in random order, and the sequential verdict decides; the two runs are stored as any comparison's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from benchwarden.compare.result import BenchmarkComparison, Comparison
from benchwarden.config import Suite
from benchwarden.errors import ConfigError


@dataclass(frozen=True)
class Remeasured:
    """The comparison session, and the benchmark's result in it (None when it was not measured in both)."""

    comparison: Comparison
    result: BenchmarkComparison | None

    @property
    def runs(self) -> tuple[int | None, int | None]:
        return self.comparison.base.run_id, self.comparison.candidate.run_id


def suite_of(benchmark: str, suites: Sequence[Suite], what: str) -> Suite:
    """The configured suite of ``suite:key``; ConfigError naming ``what`` (the option) when it is not configured."""
    suite_name = benchmark.partition(":")[0]
    chosen = [s for s in suites if s.name == suite_name]
    if not chosen:
        raise ConfigError(f"{what}: suite {suite_name!r} of {benchmark} is not in the configuration")
    return chosen[0]


def remeasure(benchmark: str, suites: Sequence[Suite], repo: Path, base: str, candidate: str, store, settings,
              *, label: str, listener=None) -> Remeasured:
    """``compare base candidate`` for ``benchmark`` (``suite:key``) alone, in revision worktrees of ``repo``."""
    from benchwarden.compare.session import SessionOptions, run_comparison
    from benchwarden.compare.sources import from_revisions

    suite = suite_of(benchmark, suites, label)
    key = benchmark.partition(":")[2]
    sources = from_revisions([suite], repo, base, candidate)
    options = SessionOptions(settings=settings, cli_filter=f"^{re.escape(key)}$", label=label)
    comparison = run_comparison(sources, store, options, listener=listener)
    found = [b for b in comparison.benchmarks if b.suite == suite.name and b.key == key]
    return Remeasured(comparison, found[0] if found else None)
