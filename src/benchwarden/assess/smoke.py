"""A CI smoke subset: the fewest benchmarks, by expected time, that still detect every covered method.

The study proposes this (§7.1, "future work"; digest seed-003 §4.2) without an algorithm. It is
weighted set cover, NP-hard in general; we use Chvátal's greedy heuristic (Chvátal 1979, "A greedy
heuristic for the set-covering problem"), which is within a factor H(d) ≤ 1 + ln d of the optimum
cost, d = the most methods one benchmark detects:

1. repeatedly take the benchmark that detects the most not-yet-covered methods per second of
   expected time (ties: cheaper, then by key), skipping any that no longer fits the budget;
2. stop when every covered method is covered, or nothing that fits covers anything new;
3. drop picks made redundant by later ones, most expensive first.

Expected time of a benchmark = its machine time in one baseline run (all its forks), averaged over
the variability runs: what running it in CI with the suite's settings costs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Set


@dataclass(frozen=True)
class SmokeSubset:
    benchmarks: tuple[str, ...]  # in pick order
    expected_s: float
    budget_s: float
    covered: tuple[str, ...]
    not_covered: tuple[str, ...]  # covered by the full suite but not within the budget

    @property
    def complete(self) -> bool:
        return not self.not_covered


def smoke_subset(detected_by: Mapping[str, Set[str]], cost_s: Mapping[str, float], budget_s: float) -> SmokeSubset:
    """Greedy budgeted cover of the methods in ``detected_by`` (method -> benchmarks detecting it).

    ``cost_s``: expected seconds per benchmark (a benchmark without a cost is treated as free only if
    its cost is really 0; missing costs raise KeyError so a bug cannot hide as a cheap benchmark).
    """
    universe = {m for m, bs in detected_by.items() if bs}
    covers: dict[str, set[str]] = {}
    for method, benches in detected_by.items():
        for b in benches:
            covers.setdefault(b, set()).add(method)
    picked: list[str] = []
    covered: set[str] = set()
    remaining = budget_s
    while covered != universe:
        best, best_key = None, None
        for bench, methods in covers.items():
            gain = len(methods - covered)
            cost = cost_s[bench]
            if bench in picked or gain == 0 or cost > remaining:
                continue
            key = (-(gain / cost) if cost > 0 else -float("inf"), cost, bench)
            if best_key is None or key < best_key:
                best, best_key = bench, key
        if best is None:
            break
        picked.append(best)
        covered |= covers[best]
        remaining -= cost_s[best]
    for bench in sorted(picked, key=lambda b: -cost_s[b]):
        others = set().union(*(covers[o] for o in picked if o != bench)) if len(picked) > 1 else set()
        if covers[bench] <= others:
            picked.remove(bench)
    total = sum(cost_s[b] for b in picked)
    final_cover = set().union(*(covers[b] for b in picked)) if picked else set()
    return SmokeSubset(tuple(picked), total, budget_s, tuple(sorted(final_cover & universe)),
                       tuple(sorted(universe - final_cover)))
