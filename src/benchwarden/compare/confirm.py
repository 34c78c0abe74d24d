"""``--confirm N``: re-measure every benchmark flagged slower before it may fail the gate.

Each confirmation is a fresh, independent sequential comparison of only the
flagged benchmarks (new forks, new runs in the store labelled
``confirm k``).  A regression stands only if every confirmation calls it
slower again; otherwise its verdict becomes *inconclusive* with the
confirmation verdicts in ``confirmations`` and a warning saying so.

Rationale: teams re-run a flagged benchmark by hand before turning main red
(peers.md, "What users ask for", item 5).  Requiring N + 1 independent
agreements multiplies the false-positive probability of a regression by
roughly α per confirmation, at the price of (N + 1)-fold measurement of the
flagged benchmarks only.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

from benchwarden.compare.result import BenchmarkComparison
from benchwarden.compare.verdict import Verdict

#: re-measures the named benchmarks (by ``BenchmarkComparison.name``) in confirmation round k
Remeasure = Callable[[Sequence[str], int], Sequence[BenchmarkComparison]]


def confirm_regressions(results: Sequence[BenchmarkComparison], rounds: int,
                        remeasure: Remeasure) -> tuple[list[BenchmarkComparison], float]:
    """Results with every SLOWER verdict confirmed or downgraded; also the machine time the rounds took."""
    current = {r.name: r for r in results}
    flagged = [r.name for r in results if r.verdict is Verdict.SLOWER]
    spent_s = 0.0
    for round_index in range(1, rounds + 1):
        if not flagged:
            break
        again = {r.name: r for r in remeasure(flagged, round_index)}
        still = []
        for name in flagged:
            original = current[name]
            repeat = again.get(name)
            verdict = repeat.verdict if repeat is not None else Verdict.ERROR
            spent_s += repeat.time_s if repeat is not None else 0.0
            updated = replace(original, confirmations=(*original.confirmations, verdict))
            if verdict is Verdict.SLOWER:
                still.append(name)
            else:
                ratio = f" (ratio {repeat.ratio:.4f})" if repeat is not None and repeat.ratio else ""
                updated = replace(updated, verdict=Verdict.INCONCLUSIVE, warnings=(
                    *updated.warnings, f"flagged slower, but confirmation {round_index} of {rounds} said "
                    f"{verdict.value}{ratio}: not reported as a regression"))
            current[name] = updated
        flagged = still
    for name in flagged:
        current[name] = replace(current[name], warnings=(
            *current[name].warnings, f"regression confirmed by {rounds} independent re-measurement(s)"))
    return [current[r.name] for r in results], spent_s
