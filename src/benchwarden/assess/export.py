"""The JSON document of an assessment (``assess --json``, and the data embedded in the HTML report).

Versioned (``"v": 1``); relative values are fractions (0.05 = 5 %), times in seconds, means in ns/op.
"""

from __future__ import annotations

import math
from typing import Any

from benchwarden.assess.campaign import SuiteAssessment
from benchwarden.assess.detect import Detection
from benchwarden.assess.variability import spread_percentile

SCHEMA_VERSION = 1


def _num(value: float | None, digits: int = 6) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return round(float(value), digits)


def assessment_to_json(a: SuiteAssessment) -> dict[str, Any]:
    v = a.variability
    spreads = list(v.spreads.values())
    return {
        "v": SCHEMA_VERSION,
        "suite": a.suite,
        "kind": a.kind,
        "slowdown": {"v": _num(a.slowdown), "source": a.slowdown_source, "clock": a.wait_clock},
        "rule": a.rule,
        "variability": {
            "runs": v.n_runs,
            "baseline_runs": list(a.baseline_runs),
            "reused_runs": list(a.reused_runs),
            "control": a.control,
            "p95_max_spread": _num(spread_percentile(spreads)) if spreads else None,
            "buckets": v.bucket_counts(),
            "unstable": list(v.unstable),
            "thresholds": {"unstable_cv": v.unstable_cv, "unstable_spread": v.unstable_spread},
            "skipped": list(v.skipped),
            "benchmarks": [{
                "key": b.key, "max_spread": _num(b.max_spread), "cv": _num(b.cv), "rciw": _num(b.rciw),
                "bucket": b.bucket, "unstable": b.unstable, "reasons": list(b.reasons),
                "recommended_threshold": _num(b.recommended_threshold),
                "run_means_ns": [_num(m, 3) for m in b.run_means_ns],
                "expected_s": _num(a.benchmark_cost_s.get(b.key), 3),
                "warnings": list(b.warnings),
            } for b in v.benchmarks],
        },
        "methods": {"source": a.methods_source, "selected": list(a.methods),
                    "calls": {m: a.method_calls[m] for m in sorted(a.method_calls)}},
        "reach": {k: dict(sorted(c.items())) for k, c in sorted(a.reach.calls.items())},
        "reach_failed": dict(a.reach.failed),
        "abs": {
            "variants": [{"name": x.name, "score": _num(x.score, 2), "covered": list(x.covered),
                          "excluded": list(x.excluded)} for x in a.abs.variants],
            "methods": [{"method": m.method, "covered": m.covered, "redundancy": m.redundancy,
                         "detected_by": list(m.detected_by), "reached_by": list(m.reached_by), "error": m.error,
                         "undecided_by": list(m.undecided_by), "detection_threshold": _num(m.threshold),
                         "detection_threshold_at_least": _num(m.threshold_at_least)}
                        for m in a.abs.methods],
        },
        "detections": [_detection(d) for d in a.detections],
        "smoke": {"benchmarks": list(a.smoke.benchmarks), "expected_s": _num(a.smoke.expected_s, 3),
                  "budget_s": _num(a.smoke.budget_s, 3), "covered": list(a.smoke.covered),
                  "not_covered": list(a.smoke.not_covered)},
        "stubs": [{"method": s.method, "path": s.path} for s in a.stubs],
        "injection_precision": {m: {"activations": p.activations, "short": p.short,
                                    "short_fraction": _num(p.short_fraction, 4),
                                    "mean_elapsed_ns": _num(p.mean_elapsed_ns, 1), "clock_ns": _num(p.clock_ns, 1),
                                    "precise": p.precise}
                                for m, p in sorted(a.precision.items())},
        "cost": {
            "full_run_s": _num(a.cost.full_run_s, 3), "study_runs": a.cost.repetitions * (a.cost.n_methods + 1),
            "study_s": _num(a.cost.study_s, 3), "trace_s": _num(a.cost.trace_s, 3),
            "prepare_s": _num(a.cost.prepare_s, 3), "variants": a.cost.variants, "methods": a.cost.n_methods,
            "injected_s": _num(a.cost.injected_s, 3),
            "used_s": _num(a.cost.used_s, 3), "ratio": _num(a.cost.ratio, 4),
            "variability_s": _num(a.cost.variability_s, 3), "wall_s": _num(a.cost.wall_s, 3),
        },
        "warnings": list(a.warnings),
    }


def _detection(d: Detection) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "method": d.method, "benchmark": d.benchmark, "detected": d.detected, "outcome": d.outcome.value,
        "rule": d.rule, "relative_change": _num(d.relative_change),
        "repetitions": [{"p_value": _num(c.p_value, 8), "relative_change": _num(c.relative_change),
                         "significant": c.significant, "large_enough": c.large_enough}
                        for c in d.checks],
        "warnings": list(d.warnings),
        "screened": d.screened_mdc is not None,
    }
    if d.screened_mdc is not None:  # never slowed: the change its baseline forks alone say it could detect
        doc["mdc"] = _num(d.screened_mdc)
    if d.look is not None:
        look = d.look
        doc.update({
            "base_forks": look.base_forks, "slowed_forks": look.slowed_forks, "ratio": _num(look.ratio),
            "interval": [_num(look.change[0]), _num(look.change[1])],
            "equivalence_interval": [_num(look.equivalence[0]), _num(look.equivalence[1])],
            "rank_p": _num(look.rank_p, 8), "threshold": _num(look.threshold), "mdc": _num(look.mdc),
            "left_out": look.left_out, "detectable_from": _num(d.detectable_from),
        })
    return doc
