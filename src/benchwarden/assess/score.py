"""The API benchmarking score (ABS) in the study's three variants, and redundancy per method.

Laaber & Leitner (MSR 2018, §6.5, Eq. 3; digest seed-003 §3.7–3.10)::

    covered(k) = 1  iff  some benchmark b detects the slowdown of k (in every repetition)
    ABS        = 100 · Σ_k covered(k) / |K′|

Variants (which benchmarks may count as detectors):

* ``total``: all benchmarks;
* ``relative``: without the worst 5 % by maxSpread (ranks above ⌊0.95·n⌋, the same rank that defines v);
* ``absolute``: without benchmarks whose maxSpread exceeds 0.5.

Redundancy of a method = how many benchmarks detect it (total variant).  Methods are reported
uncovered first, then by redundancy, so the gaps lead.

With the compare rule each method also gets a **detection threshold**: the smallest slowdown of it that
some benchmark detects within the budget (the minimum over its benchmarks of
:attr:`~benchwarden.assess.detect.Detection.detectable_from`), and the benchmarks that could not decide
within the budget ("not detectable at this budget").  An uncovered method gets a **lower bound** instead when
every benchmark reaching it has a known MDC (the benchmark change it detects with 80 % power at the full budget,
measured or from the screening): a slowdown ``u`` of the method changes a benchmark by at most ``u`` (its calls
are at most all of the benchmark's time), so no benchmark detects it reliably below ``min MDC``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from benchwarden.assess.detect import Detection, Outcome
from benchwarden.assess.variability import relative_exclusion

ABSOLUTE_LIMIT = 0.5
VARIANTS = ("total", "relative", "absolute")


@dataclass(frozen=True)
class MethodCoverage:
    """One method of K′: the benchmarks that reach it (run with it slowed) and those that detect it."""

    method: str
    reached_by: tuple[str, ...]
    detected_by: tuple[str, ...]
    error: str | None = None  # the injection failed (method not found...): counted as uncovered
    undecided_by: tuple[str, ...] = ()  # compare rule: not decided within the budget
    threshold: float | None = None  # compare rule: smallest slowdown some benchmark detects (None: unknown)
    threshold_at_least: float | None = None  # compare rule, uncovered: no benchmark detects a smaller slowdown

    @property
    def covered(self) -> bool:
        return bool(self.detected_by)

    @property
    def redundancy(self) -> int:
        return len(self.detected_by)


@dataclass(frozen=True)
class AbsVariant:
    name: str
    excluded: tuple[str, ...]
    covered: tuple[str, ...]
    n_methods: int

    @property
    def score(self) -> float:
        """ABS in percent (0–100); 0 for an empty K′."""
        return 100.0 * len(self.covered) / self.n_methods if self.n_methods else 0.0


@dataclass(frozen=True)
class AbsReport:
    slowdown: float
    methods: tuple[MethodCoverage, ...]  # uncovered first
    variants: tuple[AbsVariant, ...]

    def variant(self, name: str) -> AbsVariant:
        return next(v for v in self.variants if v.name == name)

    @property
    def uncovered(self) -> tuple[str, ...]:
        return tuple(m.method for m in self.methods if not m.covered)


def excluded_benchmarks(variant: str, spreads: Mapping[str, float]) -> set[str]:
    """The benchmarks a variant does not count (see the module docstring)."""
    if variant == "total":
        return set()
    if variant == "relative":
        return relative_exclusion(spreads)
    if variant == "absolute":
        return {k for k, s in spreads.items() if s > ABSOLUTE_LIMIT}
    raise ValueError(f"unknown ABS variant {variant!r}; expected one of {', '.join(VARIANTS)}")


def score(methods: Sequence[str], detections: Iterable[Detection], spreads: Mapping[str, float],
          slowdown: float, reached: Mapping[str, Sequence[str]] | None = None,
          errors: Mapping[str, str] | None = None) -> AbsReport:
    """ABS of ``methods`` (K′) from the detections of every (method, benchmark) pair that was run.

    ``spreads``: maxSpread per benchmark (for the variants); ``reached``: benchmarks run per method;
    ``errors``: methods whose injection failed (reported, and uncovered).
    """
    detected: dict[str, list[str]] = {m: [] for m in methods}
    undecided: dict[str, list[str]] = {m: [] for m in methods}
    thresholds: dict[str, list[float]] = {m: [] for m in methods}
    mdcs: dict[str, list[float | None]] = {m: [] for m in methods}  # None: a pair with no known MDC
    for d in detections:
        if d.method not in detected:
            continue
        mdcs[d.method].append(_mdc(d))
        if d.detected:
            detected[d.method].append(d.benchmark)
        elif d.outcome is Outcome.UNDECIDED:
            undecided[d.method].append(d.benchmark)
        if d.detectable_from is not None:
            thresholds[d.method].append(d.detectable_from)
    reached = reached or {}
    errors = errors or {}
    coverage = [MethodCoverage(m, tuple(sorted(reached.get(m, ()))), tuple(sorted(detected[m])), errors.get(m),
                               tuple(sorted(undecided[m])), min(thresholds[m]) if thresholds[m] else None,
                               _at_least(mdcs[m], len(reached.get(m, mdcs[m])))
                               if not detected[m] and m not in errors else None)
                for m in methods]
    coverage.sort(key=lambda c: (c.covered, c.redundancy, c.method))
    variants = []
    for name in VARIANTS:
        excluded = excluded_benchmarks(name, spreads)
        covered = tuple(c.method for c in coverage if any(b not in excluded for b in c.detected_by))
        variants.append(AbsVariant(name, tuple(sorted(excluded)), covered, len(methods)))
    return AbsReport(slowdown, tuple(coverage), tuple(variants))


def _mdc(d: Detection) -> float | None:
    """The benchmark change the pair's benchmark detects with 80 % power at the full budget; None if unknown."""
    value = d.screened_mdc if d.screened_mdc is not None else (d.look.mdc if d.look is not None else None)
    return value if value is not None and math.isfinite(value) else None


def _at_least(mdcs: Sequence[float | None], reaching: int) -> float | None:
    """min MDC over a method's pairs, when every one of the ``reaching`` benchmarks gave a pair with one (module
    docstring; a benchmark whose forks failed gave none, and might detect less); None otherwise."""
    if not mdcs or len(mdcs) < reaching or any(m is None for m in mdcs):
        return None
    return min(m for m in mdcs if m is not None)
