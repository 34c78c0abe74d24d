"""Compare two versions: interleaved fork pairs, sequential stopping, a sound verdict per benchmark.

Modules, one concept each (docs/compare.md):

* ``sources``    what is compared — git revisions, artifacts, run-time variants (stored runs: ``stored``)
* ``pairing``    prepare and list both sides, pair benchmarks by identity
* ``schedule``   randomised interleaved fork pairs into two stored runs
* ``sequential`` repeated confidence intervals with alpha spending (when to stop)
* ``verdict``    faster / slower / unchanged / inconclusive from two ratio intervals, a rank guard and a threshold
* ``analysis``   a look / a benchmark's comparison from its forks (shared by live and stored analysis)
* ``confirm``    ``--confirm N``: re-measure regressions before failing the gate
* ``session``    the whole comparison, from sources to a :class:`Comparison`
* ``settings``   the ``[compare]`` config table
* ``result``     the frozen result types exporters render
"""

from benchwarden.compare.result import BenchmarkComparison, Comparison, Look, SideInfo
from benchwarden.compare.sequential import SequentialDesign, critical_values, spent_alpha
from benchwarden.compare.settings import CompareSettings, parse_fraction
from benchwarden.compare.verdict import (
    Judgement,
    Verdict,
    classify_log,
    equivalence_band,
    judge,
    minimal_detectable_change,
)

__all__ = [
    "BenchmarkComparison",
    "CompareSettings",
    "Comparison",
    "Judgement",
    "Look",
    "SequentialDesign",
    "SideInfo",
    "Verdict",
    "classify_log",
    "critical_values",
    "equivalence_band",
    "judge",
    "minimal_detectable_change",
    "parse_fraction",
    "spent_alpha",
]
