"""``history --confirm``: a change point found in stored history is a hypothesis; ``compare`` re-measures it.

For each change point, the two commits around it (``before`` and ``after``) are compared by ``compare``'s own
session (revision worktrees built once, forks of both commits interleaved in random order, the sequential
verdict; docs/compare.md), for that one benchmark only.  The outcome (:func:`judge`):

* **confirmed**: the verdict is a change in the same direction (``slower`` for a step up in time);
* **refuted**: the verdict is ``unchanged``, or a change the other way, or the re-measured interval lies wholly
  outside the change point's interval (both cannot be right: a step of x3 in history re-measured as
  ``[0.98, 1.01]``);
* **inconclusive**: anything else (the re-measurement could not settle it within its budget).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from benchwarden.compare.verdict import Verdict
from benchwarden.config import Suite
from benchwarden.history.analysis import Change
from benchwarden.stats.results import Interval


@dataclass(frozen=True)
class Confirmation:
    """``state``: confirmed / refuted / inconclusive; ``verdict``: compare's; ``ratio``: its time ratio (after/before)
    with the interval it judged by; ``runs``: the two stored runs of the re-measurement."""

    state: str
    verdict: str
    ratio: float | None
    low: float | None
    high: float | None
    runs: tuple[int | None, int | None]
    machine_time_s: float

    def to_json(self) -> dict[str, object]:
        return {"state": self.state, "verdict": self.verdict, "ratio": self.ratio, "low": self.low,
                "high": self.high, "runs": list(self.runs), "machine_time_s": round(self.machine_time_s, 3)}


def judge(claimed: Interval, verdict: Verdict, low: float | None, high: float | None) -> str:
    """The rule of the module docstring: the change point's ratio interval against compare's verdict and interval."""
    up = claimed.point > 1
    if verdict is (Verdict.SLOWER if up else Verdict.FASTER):
        return "confirmed"
    if verdict is Verdict.UNCHANGED or verdict is (Verdict.FASTER if up else Verdict.SLOWER):
        return "refuted"
    if low is not None and high is not None and (high < claimed.low or low > claimed.high):
        return "refuted"
    return "inconclusive"


def confirm(change: Change, benchmark: str, suites: Sequence[Suite], repo: Path, store, settings,
            listener=None) -> Confirmation:
    """Re-measure ``before`` against ``after`` for ``benchmark`` (``suite:key``) with compare's session."""
    from benchwarden.history.remeasure import remeasure

    done = remeasure(benchmark, suites, repo, change.before.commit, change.after.commit, store, settings,
                     label="history --confirm", listener=listener)
    result = done.result
    if result is None:
        return Confirmation("inconclusive", "missing", None, None, None, done.runs, done.comparison.machine_time_s)
    state = judge(change.test.ratio, result.verdict, result.ci_low, result.ci_high)
    return Confirmation(state, result.verdict.value, result.ratio, result.ci_low, result.ci_high, done.runs,
                        done.comparison.machine_time_s)
