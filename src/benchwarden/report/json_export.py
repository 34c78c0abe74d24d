"""JSON export of a comparison (format ``benchwarden-comparison``, version 2): ``compare --json``.

Version 2 (the paired log-scale verdict): ``ratio`` is the robust estimate, ``mean_ratio`` the ratio
of means; ``equivalence`` is the interval "unchanged" is judged on; ``mde`` and ``pairs_needed``;
``outliers``; ``noise_floor`` is gone (the threshold is ``min_change``).  Since metrics (docs/metrics.md),
also: ``fail_on`` and, per benchmark, ``metric`` (what the ratio is of) and ``metrics`` (every other
metric, judged: name, unit, rule, verdict, typical values, fork values) — additions only.  Since machines
(docs/distributed.md), per benchmark ``machines``: when the pairs ran on several cluster workers, each
machine's pairs and geometric-mean ratio, the spread of the change between machines and the test that it
differs (``null`` otherwise) — an addition.

Everything the verdicts were decided from is included — ratios and intervals, p-values,
thresholds, the look trail, the fork-level measurements (ns/op) — so another tool can
re-plot or re-judge without the store.  Non-finite numbers (an unbounded interval end) become
``null``, keeping the output strict JSON.  The same document is embedded in the HTML report.
"""

from __future__ import annotations

import json
import math
from typing import Any

from benchwarden.compare.result import BenchmarkComparison, Comparison

FORMAT = "benchwarden-comparison"
VERSION = 2


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


def _finite_tree(value: Any) -> Any:
    if isinstance(value, float):
        return _finite(value)
    if isinstance(value, dict):
        return {k: _finite_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite_tree(v) for v in value]
    return value


def benchmark_to_dict(r: BenchmarkComparison) -> dict[str, Any]:
    return {
        "suite": r.suite, "benchmark": r.key, "mode": r.mode, "unit": r.unit, "direction": r.direction.value,
        "verdict": r.verdict.value, "ratio": _finite(r.ratio), "ci": [_finite(r.ci_low), _finite(r.ci_high)]
        if r.ci_low is not None else None, "confidence": r.confidence, "change": _finite(r.display_change()),
        "mean_ratio": _finite(r.mean_ratio),
        "equivalence": [_finite(r.equivalence_low), _finite(r.equivalence_high)]
        if r.equivalence_low is not None else None, "equivalence_confidence": r.equivalence_confidence,
        "p_value": r.p_value, "threshold": r.threshold, "min_change": r.min_change, "mde": _finite(r.mde),
        "pairs_needed": r.pairs_needed, "paired": r.paired, "outliers": list(r.outliers),
        "forks": {"base": len(r.base_ns), "candidate": len(r.candidate_ns)}, "order": list(r.order),
        "time_s": round(r.time_s, 3), "confirmations": [v.value for v in r.confirmations],
        "message": r.message, "warnings": list(r.warnings),
        "looks": [{k: (_finite(v) if isinstance(v, float) else v) for k, v in look.to_dict().items()}
                  for look in r.looks],
        "measurements_ns": {"base": [list(f) for f in r.base_ns], "candidate": [list(f) for f in r.candidate_ns]},
        "metric": r.metric,
        "machines": None if r.machines is None else _finite_tree(r.machines.to_json()),
        "metrics": [{k: (_finite(v) if isinstance(v, float) else v) for k, v in m.to_dict().items()}
                    for m in r.metrics],
    }


def comparison_to_dict(c: Comparison) -> dict[str, Any]:
    return {
        "format": FORMAT, "version": VERSION, "source": c.source, "gate": c.gate, "fail_on": list(c.fail_on),
        "base": c.base.to_dict(), "candidate": c.candidate.to_dict(), "design": dict(c.design),
        "counts": c.counts(), "created_at": c.created_at, "elapsed_s": round(c.elapsed_s, 3),
        "machine_time_s": round(c.machine_time_s, 3), "machine": dict(c.machine),
        "benchmarks": [benchmark_to_dict(r) for r in c.benchmarks],
        "unmatched": [{"benchmark": name, "where": where} for name, where in c.unmatched],
        "not_affected": [{"benchmark": name, "why": why} for name, why in c.not_affected],
        "explanations": [_finite_tree(e.to_dict()) for e in c.explanations],
        "failed_suites": dict(c.failed_suites),
    }


def comparison_json(c: Comparison, indent: int | None = 2) -> bytes:
    """The comparison as UTF-8 JSON bytes (strict: no NaN/Infinity)."""
    return (json.dumps(comparison_to_dict(c), indent=indent, allow_nan=False, ensure_ascii=False) + "\n").encode()
