"""Instruction counts from Valgrind's cachegrind: command lines, environments and the count in its output.

Cachegrind runs the program on Valgrind's synthetic CPU and counts every instruction it executes
(``Ir``).  With ``--cache-sim=no --branch-sim=no`` it simulates nothing else, which makes it the
cheapest Valgrind tool that counts instructions (callgrind also keeps a call graph).  The count is a
property of the program and its input, not of the machine's load: two runs differ only by what the
program itself does differently (a random seed, a timer-driven thread).

Making the count repeatable (docs/metrics.md, "Instructions"):

* **Go**: ``GOMAXPROCS=1`` (one P: no idle-priority GC workers whose work depends on how idle the
  machine is), ``GOGC=off`` with ``GOMEMLIMIT=1GiB`` (the collector runs only if the heap reaches the
  limit: its cycles would otherwise land in one execution and not the next, a quantisation noise of a
  whole marking pass), and enough operations between the two points for at least 10⁸ instructions:
  each execution also runs ~10⁵ instructions of timer-driven runtime work (``sysmon``), which is then
  ≤ 0.1 %.  Measured on the Go example: per-op counts within 0.19 % of each other over 6 runs of
  1,000 operations (±3 % with the default concurrent collector).  The count therefore covers the
  benchmark's own work and its allocations (``mallocgc``), not the collector's marking: allocation
  changes are judged by ``B/op`` and ``allocs/op`` beside it.
* **Python**: ``PYTHONHASHSEED`` fixed per fork (string hashing, hence dict and set layouts, is
  randomised per process otherwise); the value is the fork number, so the forks still sample
  different layouts and pair ``k`` of the two versions uses the same one.

Valgrind slows native code by 20–100×; the two-point sizes (:mod:`.twopoint`) take that into account.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Iterable, Mapping

from benchwarden.errors import ToolchainMissing

#: how much slower code runs under cachegrind without cache simulation, to size executions (measured on
#: the Go and Python examples; docs/performance.md)
SLOWDOWN = 30.0
#: the least instructions between the two points (see "Go" above)
MIN_INSTRUCTIONS = 1e8

HINT = "install Valgrind (e.g. apt-get install valgrind); instruction counts need it"


def require(suite: str) -> str:
    """The ``valgrind`` on PATH; raises :class:`~benchwarden.errors.ToolchainMissing` naming ``suite``."""
    found = shutil.which("valgrind")
    if found is None:
        raise ToolchainMissing("valgrind", suite, HINT)
    return found


_SUMMARY = re.compile(r"^summary:\s+(\d+)", re.MULTILINE)
_EVENTS = re.compile(r"^events:\s+(.+)$", re.MULTILINE)


def cachegrind_argv(valgrind: str, out_file: str | Path, *, trace_children: bool = False) -> list[str]:
    """The Valgrind prefix of a counted execution; ``out_file`` may contain ``%p`` (one file per process)."""
    return [valgrind, "--tool=cachegrind", "--cache-sim=no", "--branch-sim=no",
            f"--cachegrind-out-file={out_file}", f"--trace-children={'yes' if trace_children else 'no'}",
            "--quiet"]


def read_instructions(text: str, source: str = "cachegrind output") -> int:
    """Total ``Ir`` of one cachegrind output file; ValueError naming ``source`` when it has none."""
    events = _EVENTS.search(text)
    summary = _SUMMARY.search(text)
    if events is None or summary is None:
        raise ValueError(f"{source}: no 'events:'/'summary:' lines (not a cachegrind output file?)")
    names = events.group(1).split()
    if not names or names[0] != "Ir":
        raise ValueError(f"{source}: the first event is {names[0] if names else 'missing'}, not Ir")
    return int(summary.group(1))


def total_instructions(files: Iterable[Path]) -> int:
    """Sum of ``Ir`` over output files (one per process of a traced execution); ValueError if there are none."""
    paths = list(files)
    if not paths:
        raise ValueError("cachegrind wrote no output file")
    return sum(read_instructions(p.read_text(encoding="utf-8", errors="replace"), str(p)) for p in paths)


def go_environment(env: Mapping[str, str], metric: str) -> dict[str, str]:
    """``env`` plus what makes a Go program's cost repeatable: one P for CPU time and instructions, and for
    instructions no collector cycles below ``GOMEMLIMIT`` (the user's ``GOMEMLIMIT`` wins)."""
    out = dict(env)
    out["GOMAXPROCS"] = "1"
    if metric == "instructions":
        out["GOGC"] = "off"
        out.setdefault("GOMEMLIMIT", "1GiB")
    return out


def python_environment(env: Mapping[str, str], fork_index: int) -> dict[str, str]:
    """``env`` with ``PYTHONHASHSEED`` = the fork number (unless the user fixed it)."""
    out = dict(env)
    out.setdefault("PYTHONHASHSEED", str(fork_index))
    return out
