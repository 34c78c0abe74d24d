"""Two-point estimates of a per-operation cost from whole executions.

A process that runs ``n`` operations costs ``c(n) = s + n·u``: start-up, calibration, the harness's
own first call and teardown (``s``), and ``u`` per operation.  Two executions with ``n_1 < n_2``
operations give ``u = (c(n_2) − c(n_1)) / (n_2 − n_1)``, whatever ``s`` is, as long as it is the same
in both — which holds for CPU time up to the noise of the machine and for instruction counts up to
a fraction of a percent (docs/metrics.md, "Two-point").  It is the method of Laaber & Leitner's
cheap cloud benchmarking and of CodSpeed's instruction counts, and the one the issue measured
((cpu(300 ops) − cpu(30 ops)) / 270).

Sizes: the long execution should be long enough that the start-up noise is small beside it;
:func:`long_ops` picks ``n_2`` from a native estimate of the CPU time per operation.  The short
execution is as short as the harness allows while taking the same code paths as the long one (Go:
3 operations, see :mod:`benchwarden.adapters.gotest_twopoint`), so a cold first call cancels too.
"""

from __future__ import annotations

import math

#: a rough instructions-per-ns of native code, only to size the long execution
INSTRUCTIONS_PER_NS = 8.0
#: the most operations the long execution may run
MAX_OPS = 10**9


def per_op(short: float, long: float, short_ops: int, long_ops: int) -> float:
    """``(long − short) / (long_ops − short_ops)``; ValueError unless the long execution ran more and cost more."""
    if long_ops <= short_ops:
        raise ValueError(f"the long execution must run more operations ({long_ops} <= {short_ops})")
    if not (math.isfinite(short) and math.isfinite(long)):
        raise ValueError(f"non-finite cost: {short!r}, {long!r}")
    difference = long - short
    if difference <= 0:
        raise ValueError(f"{long_ops} operations cost no more than {short_ops} ({long:g} <= {short:g}): the "
                         "start-up varies more than the operations cost; run more operations per iteration "
                         "(a longer iteration_time)")
    return difference / (long_ops - short_ops)


def long_ops(ns_per_op: float, target_s: float, *, slowdown: float = 1.0, min_instructions: float = 0.0) -> int:
    """Operations for the long execution: about ``target_s`` of native time divided by ``slowdown``
    (the simulator's), but at least enough for ``min_instructions`` and at least 2."""
    if not (ns_per_op > 0 and math.isfinite(ns_per_op)):
        raise ValueError(f"time per operation must be positive, got {ns_per_op!r}")
    by_time = target_s * 1e9 / slowdown / ns_per_op
    by_count = min_instructions / (INSTRUCTIONS_PER_NS * ns_per_op)
    return int(min(MAX_OPS, max(2, math.ceil(by_time), math.ceil(by_count))))


def ops_for_count(count_per_op: float, min_count: float, *, short_ops: int, long_ops: int,
                  slack: float = 0.8) -> int | None:
    """The long execution's operations that give at least ``min_count`` between the two points, now that
    one execution measured ``count_per_op``; None when ``long_ops`` already gives ``slack`` of it.

    :func:`long_ops` sizes from a native *time* per operation and a guessed instructions-per-ns, which
    undershoots when the code runs fewer instructions per ns than guessed or the machine is loaded (its
    time per operation is inflated): on the loaded development VM the Go example's slow variant got
    ``n_2 = 62`` (34 M instructions) and its forks' counts spread by 0.7 %, beyond the exact rule's 0.5 %
    tolerance.  The count per operation itself does not depend on load, so it sizes the rest exactly.
    """
    if not (count_per_op > 0 and math.isfinite(count_per_op)):
        raise ValueError(f"count per operation must be positive, got {count_per_op!r}")
    if (long_ops - short_ops) * count_per_op >= slack * min_count:
        return None
    return int(min(MAX_OPS, short_ops + math.ceil(min_count / count_per_op)))

