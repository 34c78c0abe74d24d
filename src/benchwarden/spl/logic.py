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


class Truth(str, enum.Enum):
    HOLDS = "holds"
    FAILS = "fails"
    UNDECIDED = "undecided"

    @property
    def decided(self) -> bool:
        return self is not Truth.UNDECIDED


def v_not(v: Truth) -> Truth:
    """Negation: swaps holds and fails."""
    if v is Truth.HOLDS:
        return Truth.FAILS
    if v is Truth.FAILS:
        return Truth.HOLDS
    return Truth.UNDECIDED


def v_all(verdicts: Iterable[Truth]) -> Truth:
    """Conjunction (and, ``for``): fails if any fails, holds if all hold, else undecided. Empty -> holds."""
    seen = list(verdicts)
    if any(v is Truth.FAILS for v in seen):
        return Truth.FAILS
    if all(v is Truth.HOLDS for v in seen):
        return Truth.HOLDS
    return Truth.UNDECIDED


def v_any(verdicts: Iterable[Truth]) -> Truth:
    """Disjunction (or, ``exists``): holds if any holds, fails if all fail, else undecided. Empty -> fails."""
    seen = list(verdicts)
    if any(v is Truth.HOLDS for v in seen):
        return Truth.HOLDS
    if all(v is Truth.FAILS for v in seen):
        return Truth.FAILS
    return Truth.UNDECIDED
