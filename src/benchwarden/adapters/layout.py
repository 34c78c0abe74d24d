"""A process layout that differs from fork to fork and is the same in fork ``k`` of both versions.

Where a process's data lands in memory depends on things no benchmark means to measure: the size of the
environment moves the stack, and CPython copies the environment into ``os.environ`` at start-up, so its size
also moves every heap block allocated after it.  Mytkowicz et al. ("Producing wrong data without doing
anything obviously wrong!", ASPLOS 2009, §4) measured speed-ups and slow-downs of several percent from the
environment's size alone; Curtsinger and Berger (STABILIZER, ASPLOS 2013) answer by *randomising* the
layout, so that it becomes noise that more runs average out instead of a bias that no number of runs shows.

benchwarden measured the same effect on the Python example's instruction counts (docs/metrics.md,
"Instructions"): its small change counts 2.465 M or 2.583 M instructions per call depending only on the
environment's size (a growing list is re-allocated in place or copied depending on what lies after it),
while the unchanged code counts 2.515–2.521 M in every layout.  A fork whose environment is the same every
time samples one layout only; a candidate given one more variable (``compare --variant-env``) samples
another, and the comparison then reports the layout as the change (it called that change *faster*, 3 of 3).
The same holds for time: in CPU time that change cost −10 % to +15 % depending on the layout, each layout's
ratio repeatable (``benchmarks/layout_effect.py``, docs/performance.md), so the padding applies to every metric.

So each fork gets a padding variable, :data:`PADDING_VARIABLE`, whose length depends on the fork number:
``frac(k·φ)·4096`` bytes rounded down to 16 (φ the golden ratio, a low-discrepancy sequence: any ``n``
consecutive forks spread their sizes evenly over 0–4 KiB, a page, the range over which the example's two
layouts alternate several times).  Fork ``k`` of the base and fork ``k`` of the candidate get the same
padding, so a pair still shares its layout and the pair's ratio cancels it; the pairs' spread then shows how
much the layout matters, and the verdict's interval widens by that much instead of pretending to a precision
the layout does not allow.  A suite that sets the variable itself (its ``env``) fixes the layout.
"""

from __future__ import annotations

import math
from typing import Mapping

#: the environment variable that carries the padding
PADDING_VARIABLE = "BENCHWARDEN_LAYOUT_PADDING"
#: the padding's sizes span [0, SPAN_BYTES)
SPAN_BYTES = 4096
#: sizes are multiples of this (the allocators' alignment: smaller steps move nothing)
STEP_BYTES = 16

_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def padding_bytes(fork_index: int) -> int:
    """The padding's length for fork ``fork_index``: ``⌊frac(k·φ)·4096 / 16⌋·16``, in [0, 4096)."""
    fraction = (fork_index * _GOLDEN) % 1.0
    return int(fraction * SPAN_BYTES) // STEP_BYTES * STEP_BYTES


def with_padding(env: Mapping[str, str], fork_index: int) -> dict[str, str]:
    """``env`` with :data:`PADDING_VARIABLE` set for fork ``fork_index`` (unless ``env`` sets it already)."""
    out = dict(env)
    out.setdefault(PADDING_VARIABLE, "x" * padding_bytes(fork_index))
    return out
