"""``benchwarden bisect GOOD BAD --benchmark X``: the first commit that made X slower, by sound comparisons only.

The commits of ``GOOD..BAD`` along first parents are ``c_1 … c_n`` (``c_n`` = BAD); ``c_0`` = GOOD.  Every step
is a whole ``compare`` session (interleaved fork pairs, the sequential verdict of docs/compare.md) of two of
them for benchmark X alone — never a single measurement read against a threshold.

1. **Premise**: GOOD against BAD must be ``slower``.  Anything else ends the search: ``unchanged`` or
   ``faster`` means there is no slowdown to find; ``inconclusive`` means this budget cannot see one.
2. **Binary search** on the predicate "``c_m`` is slower than GOOD" over the open range ``(good, bad)``:
   ``m = ⌊(good + bad) / 2⌋``; GOOD against ``c_m``: ``slower`` moves ``bad`` to ``m``; ``unchanged`` or
   ``faster`` moves ``good`` to ``m`` (not slower than GOOD: the slowdown came later).
3. **An inconclusive step measures more, it never guesses**: ``c_m`` against BAD, a second, independent
   session.  ``unchanged`` (``c_m`` already as slow as BAD) moves ``bad`` to ``m``; ``slower`` (BAD is slower
   still) moves ``good`` to ``m``; anything else stops the search with the range ``c_good..c_bad`` that could
   not be narrowed, stated as such.

With every step decided at once the search takes ``1 + ⌈log2 n⌉`` sessions (the premise and the halvings);
each inconclusive halving adds one.  The predicate is assumed monotone along the range (one slowdown, possibly
followed by smaller changes that keep the level above GOOD's); when the history holds a slowdown that is later
undone completely, ``history``'s change points are the tool, and bisect finds one of the slowdowns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

from benchwarden.compare.verdict import Verdict


@dataclass(frozen=True)
class Step:
    """One comparison of the search: ``base`` against ``candidate`` (full shas), the verdict and ratio
    (candidate/base time per op) with the change interval it was judged on, its runs and machine time."""

    purpose: str  # "premise", "halving", "second look"
    base: str
    candidate: str
    verdict: Verdict
    ratio: float | None
    low: float | None
    high: float | None
    runs: tuple[int | None, int | None]
    machine_time_s: float
    rule: str = "interval"  # "exact": instruction counts, decided by the exact rule (the interval is for the record)

    @property
    def shown_ratio(self) -> str:
        """The ratio as the terminal shows it: with its interval when the interval decided, else with the rule."""
        if self.ratio is None:
            return "no ratio"
        if self.rule == "exact":
            return f"×{self.ratio:.3f} (exact rule on instruction counts)"
        interval = f" [{self.low:.3f}, {self.high:.3f}]" if self.low is not None and self.high is not None else ""
        return f"×{self.ratio:.3f}{interval}"

    def to_json(self) -> dict[str, object]:
        return {"purpose": self.purpose, "base": self.base, "candidate": self.candidate,
                "verdict": self.verdict.value, "ratio": self.ratio, "low": self.low, "high": self.high,
                "rule": self.rule, "runs": list(self.runs), "machine_time_s": round(self.machine_time_s, 3)}


@dataclass(frozen=True)
class Outcome:
    """``state``: ``found`` (``first_bad`` is the commit; ``parent`` the one before it), ``no-slowdown`` (the
    premise was unchanged or faster), ``undecided`` (an inconclusive premise or step: ``good``..``bad`` is
    the range it could not narrow)."""

    state: str
    good: str
    bad: str
    first_bad: str | None
    parent: str | None
    steps: tuple[Step, ...] = field(default=())
    commits: int = 0

    @property
    def machine_time_s(self) -> float:
        return sum(s.machine_time_s for s in self.steps)

    @property
    def evidence(self) -> Step | None:
        """The step that showed ``first_bad`` slower: the last ``slower`` verdict against GOOD on it (the premise
        when ``first_bad`` is BAD itself), or the second look that found it as slow as BAD."""
        for step in reversed(self.steps):
            if step.verdict is Verdict.SLOWER and step.purpose != "second look" and step.candidate == self.first_bad \
                    or step.verdict is Verdict.UNCHANGED and step.purpose == "second look" and \
                    step.base == self.first_bad:
                return step
        return None

    def to_json(self) -> dict[str, object]:
        evidence = self.evidence
        return {"state": self.state, "good": self.good, "bad": self.bad, "first_bad": self.first_bad,
                "parent": self.parent, "commits": self.commits, "steps": [s.to_json() for s in self.steps],
                "step_bound": step_bound(self.commits), "machine_time_s": round(self.machine_time_s, 3),
                "evidence": evidence.to_json() if evidence else None}


Judge = Callable[[str, str, str], Step]
"""``judge(purpose, base, candidate)``: one compare session of the two commits for the benchmark."""


def step_bound(commits: int) -> int:
    """``⌈log2 n⌉ + 2``: what issue #15 allows a search over ``n`` commits (premise, halvings, one second look)."""
    return math.ceil(math.log2(commits)) + 2 if commits > 0 else 1


def bisect(good: str, commits: Sequence[str], judge: Judge,
           on_step: Callable[[Step], None] | None = None) -> Outcome:
    """The search of the module docstring over ``commits`` (``GOOD..BAD`` oldest first, BAD last)."""
    if not commits:
        raise ValueError("bisect needs at least one commit after GOOD")
    chain = [good, *commits]
    steps: list[Step] = []

    def ask(purpose: str, base: str, candidate: str) -> Verdict:
        step = judge(purpose, base, candidate)
        steps.append(step)
        if on_step is not None:
            on_step(step)
        return step.verdict

    low, high = 0, len(chain) - 1

    def outcome(state: str) -> Outcome:
        found = state == "found"
        return Outcome(state, chain[low], chain[high], chain[high] if found else None,
                       chain[high - 1] if found else None, tuple(steps), len(commits))

    premise = ask("premise", good, chain[high])
    if premise is not Verdict.SLOWER:
        return outcome("undecided" if premise not in (Verdict.UNCHANGED, Verdict.FASTER) else "no-slowdown")
    while high - low > 1:
        middle = (low + high) // 2
        verdict = ask("halving", good, chain[middle])
        if verdict is Verdict.SLOWER:
            high = middle
            continue
        if verdict in (Verdict.UNCHANGED, Verdict.FASTER):
            low = middle
            continue
        second = ask("second look", chain[middle], chain[-1])
        if second is Verdict.UNCHANGED:
            high = middle
        elif second is Verdict.SLOWER:
            low = middle
        else:
            return outcome("undecided")
    return outcome("found")
