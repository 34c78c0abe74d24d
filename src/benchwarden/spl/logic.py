"""Three-valued logic for SPL verdicts: holds, fails, undecided (strong Kleene connectives).

An atomic comparison is decided by a statistical test (:mod:`benchwarden.spl.interpretations`)
and may be *undecided*: the data neither support nor contradict it at the chosen α.  Connectives
and quantifiers combine verdicts with Kleene's strong three-valued logic (Kleene 1952, §64), which
is the only choice that agrees with two-valued logic whenever every operand is decided and lets a
decided operand settle the result on its own:

* ``not``: holds <-> fails, undecided stays undecided;
* ``and`` / ``for``: fails if any operand fails, else holds if all hold, else undecided;
* ``or`` / ``exists``: holds if any operand holds, else fails if all fail, else undecided.

The thesis (seed-000 §2.6) evaluates connectives as Booleans and has no formal "undecided"; see
docs/spl.md, "Resolutions", for how the three values relate to its definitions.
"""

from __future__ import annotations

import enum
from typing import Iterable


class Verdict(str, enum.Enum):
    HOLDS = "holds"
    FAILS = "fails"
    UNDECIDED = "undecided"

    @property
    def decided(self) -> bool:
        return self is not Verdict.UNDECIDED


def v_not(v: Verdict) -> Verdict:
    """Negation: swaps holds and fails."""
    if v is Verdict.HOLDS:
        return Verdict.FAILS
    if v is Verdict.FAILS:
        return Verdict.HOLDS
    return Verdict.UNDECIDED


def v_all(verdicts: Iterable[Verdict]) -> Verdict:
    """Conjunction (and, ``for``): fails if any fails, holds if all hold, else undecided. Empty -> holds."""
    seen = list(verdicts)
    if any(v is Verdict.FAILS for v in seen):
        return Verdict.FAILS
    if all(v is Verdict.HOLDS for v in seen):
        return Verdict.HOLDS
    return Verdict.UNDECIDED


def v_any(verdicts: Iterable[Verdict]) -> Verdict:
    """Disjunction (or, ``exists``): holds if any holds, fails if all fail, else undecided. Empty -> fails."""
    seen = list(verdicts)
    if any(v is Verdict.HOLDS for v in seen):
        return Verdict.HOLDS
    if all(v is Verdict.FAILS for v in seen):
        return Verdict.FAILS
    return Verdict.UNDECIDED
