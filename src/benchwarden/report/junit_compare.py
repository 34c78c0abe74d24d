"""A comparison as JUnit XML (through :func:`benchwarden.report.junit.junit_xml`): one case per benchmark.

slower → ``<failure>`` (when ``fail_on`` gates the primary verdict), and so is a metric of ``fail_on`` that
got worse (the metrics are listed in every case's details); error (a fork failed) → ``<error>``; inconclusive, skipped and
benchmarks present in one version only → ``<skipped>`` with the reason; unchanged and faster pass.
A suite that could not be prepared is one ``<error>`` case, so a CI dashboard never shows green
for something that was not measured. With ``compare --explain`` a case's details end with its explanation (the
summary and the ranked causes), so the failing test in the CI's report names the function that got slower.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchwarden.compare.metrics import MetricComparison
from benchwarden.compare.result import BenchmarkComparison, Comparison
from benchwarden.compare.verdict import Verdict
from benchwarden.report.comparison_table import fmt_change, fmt_interval, fmt_mde, fmt_p, fmt_ratio, fmt_threshold
from benchwarden.report.explain_table import explanation_lines
from benchwarden.report.junit import JUnitCase, Outcome, junit_xml
from benchwarden.report.metrics_table import fmt_rule, fmt_value

if TYPE_CHECKING:
    from benchwarden.codelevel.explain import Explanation

_OUTCOME: dict[Verdict, Outcome] = {
    Verdict.SLOWER: "failure", Verdict.ERROR: "error", Verdict.INCONCLUSIVE: "skipped", Verdict.SKIPPED: "skipped",
    Verdict.UNCHANGED: "passed", Verdict.FASTER: "passed",
}


def _summary(r: BenchmarkComparison) -> str:
    if r.ratio is None:
        return f"{r.verdict.value}: {r.message or 'no data'}"
    return (f"{r.verdict.value}: ratio {fmt_ratio(r.ratio)} {fmt_interval(r.ci_low, r.ci_high)} "
            f"({fmt_change(r)}), p = {fmt_p(r.p_value)}, threshold {fmt_threshold(r.threshold)}, "
            f"detectable ≥ {fmt_mde(r.mde)}, {len(r.base_ns)}+{len(r.candidate_ns)} forks")


def _metric_line(m: MetricComparison) -> str:
    return f"{m.name}: {m.verdict.value} ({fmt_value(m.base)} → {fmt_value(m.candidate)} {m.unit}, {fmt_rule(m)})"


def _case(r: BenchmarkComparison, fail_on: tuple[str, ...], explanation: Explanation | None = None) -> JUnitCase:
    extra = [r.message] if r.message and r.ratio is not None else []
    failing = r.failing_metrics(fail_on)
    message = _summary(r)
    outcome = _OUTCOME[r.verdict]
    if r.verdict is Verdict.SLOWER and not any(r.gates(n) for n in fail_on):
        outcome = "passed"  # slower, but fail_on does not gate the primary verdict
    if failing:
        outcome = "failure"
        message = "; ".join(_metric_line(m) for m in failing) + " — " + message
    why = explanation_lines(explanation) if explanation is not None else []
    details = "\n".join([_summary(r), *(_metric_line(m) for m in r.metrics), *r.warnings, *extra, *why])
    return JUnitCase(name=r.key, classname=r.suite, outcome=outcome, message=message, details=details,
                     time_s=r.time_s)


def comparison_junit(c: Comparison, suite_name: str = "benchwarden compare") -> bytes:
    explained = {e.benchmark: e for e in c.explanations}
    cases = [_case(r, c.fail_on, explained.get(f"{r.suite}:{r.key}")) for r in c.benchmarks]
    cases += [JUnitCase(name="(prepare)", classname=suite, outcome="error", message=message.splitlines()[0],
                        details=message) for suite, message in c.failed_suites.items()]
    cases += [JUnitCase(name=name, classname="(unmatched)", outcome="skipped", message=f"{where}: not compared")
              for name, where in c.unmatched]
    cases += [JUnitCase(name=name, classname="(not affected)", outcome="skipped", message=f"not affected: {why}")
              for name, why in c.not_affected]
    return junit_xml(f"{suite_name}: {c.base.label} vs {c.candidate.label}", cases)
