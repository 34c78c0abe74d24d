"""Which benchmarks a change affects (issue #16 item 2): changed methods against what each benchmark reaches.

The second half of selection. Each benchmark's reach is *traced*, not guessed: one short fork per benchmark with
every method and constructor of the project's code counted (the agent / rewriter / hook of ``assess`` in their
every-method mode, :mod:`benchwarden.assess.reach`), at the base *and* at the candidate, so a method that only one
version calls still counts. A benchmark is affected when either version of it called a changed method. The rule
errs one way only — towards measuring:

* a change no method accounts for (:class:`~.changes.OtherChange`: a skeleton, a build file, a file that does
  not parse) affects every benchmark -- except in Python, where a module's skeleton and any other ``.py`` file of
  the repository (benchmark code, tests) are units ``file:<repository path>`` and the trace records which
  processes imported each file: a change there affects the benchmarks whose process imported it;
* a benchmark whose trace failed, or that one version does not have, is affected;
* Java overloads share a name, so changing one selects callers of any (:mod:`.java_code`);
* traces count calls made anywhere in the fork (setup included), which over-approximates what is measured.

Static call graphs (Peass's other source) are not used: reflection, dependency injection and interface dispatch
make them miss callees, and a missed callee is a missed regression.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from benchwarden.assess.reach import ReachMap
from benchwarden.codelevel.changes import ChangeSet
from benchwarden.codelevel.python_code import FILE_PREFIX

#: How many reasons a selection lists before "and N more".
SHOWN_REASONS = 3


@dataclass(frozen=True)
class Selection:
    """One benchmark: affected or not, and why (changed methods it reaches, or the changes no method explains)."""

    key: str
    affected: bool
    reasons: tuple[str, ...]

    def to_json(self) -> dict:
        return {"benchmark": self.key, "affected": self.affected, "reasons": list(self.reasons)}


def method_of(traced: str) -> str:
    """A traced name as change detection names it: Java's parameter list dropped (overloads share a name)."""
    return traced.split("(", 1)[0]


def _reached(traced: str, changed: Mapping[str, object]) -> list[str]:
    """The changed methods one traced name stands for: itself, or — ``module:?``, Python before 3.11, which
    cannot name methods — every changed method of that module."""
    if traced.endswith(":?"):
        return [name for name in changed if name.startswith(traced[:-1])]
    name = method_of(traced)
    return [name] if name in changed else []


def _shown(reasons: Sequence[str]) -> tuple[str, ...]:
    if len(reasons) <= SHOWN_REASONS:
        return tuple(reasons)
    return (*reasons[:SHOWN_REASONS], f"and {len(reasons) - SHOWN_REASONS} more")


def select(keys: Sequence[str], reaches: Mapping[str, ReachMap], changes: ChangeSet) -> list[Selection]:
    """The selection for every benchmark of ``keys``; ``reaches`` = the traces by revision label."""
    if changes.other:
        why = _shown([f"{c.path}: {c.why}" for c in changes.other])
        return [Selection(key, True, why) for key in keys]
    changed = {c.method: c for c in changes.methods}
    out = []
    for key in keys:
        reasons: list[str] = []
        reached: set[str] = set()
        for label, reach in reaches.items():
            if key in reach.failed:
                reasons.append(f"its trace at {label} failed: {reach.failed[key].splitlines()[0]}")
            elif key not in reach.calls:
                reasons.append(f"not traced at {label} (a new or renamed benchmark)")
            else:
                reached.update(name for m, n in reach.calls[key].items() if n > 0 for name in _reached(m, changed))
        reasons += [_reason(name, changed[name].how) for name in sorted(reached)]
        if reasons:
            out.append(Selection(key, True, _shown(reasons)))
        else:
            out.append(Selection(key, False, (_reaches_none(changed),) if changed else ("no code changed",)))
    return out


def _reason(name: str, how: str) -> str:
    if name.startswith(FILE_PREFIX):
        return f"imports {name[len(FILE_PREFIX):]} ({how})"
    return f"calls {name} ({how})"


def _reaches_none(changed: Mapping[str, object]) -> str:
    files = sum(name.startswith(FILE_PREFIX) for name in changed)
    methods = len(changed) - files
    parts = [f"calls none of the {methods} changed method{'s' * (methods != 1)}"] if methods else []
    parts += [f"imports none of the {files} changed file{'s' * (files != 1)}"] if files else []
    return " and ".join(parts)
