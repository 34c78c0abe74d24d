"""Operations per iteration found by one fork's calibration, reused by the later forks of the same benchmark.

Harnesses that run a *fixed* number of operations per iteration find that number by a calibration execution
at the start of a fork: Go's forks in every metric (``-test.benchtime Nx`` after a run of Go's own b.N
search, :class:`~benchwarden.adapters.gotest.GoFork`) and every two-point fork (the long execution's ``n``,
:class:`~benchwarden.adapters.twopoint.TwoPointFork`).  That execution measures nothing we keep, and it is a
process of its own: on the Go example in CPU time it was one process of seven per fork and ~15 % of a fork's
CPU time (a search of 1, 100, … operations, then about half an iteration), at 100-ms iterations.

Its answer hardly changes between the forks of one benchmark in one version, and nothing measured depends on
it: the value of an iteration is per operation, and N only sets how long an iteration lasts (Go's own search
lands anywhere within 20 % of its target).  So the first fork of a benchmark calibrates and the later ones
reuse its N; a fork then running at another speed has iterations somewhat longer or shorter than
``iteration_time`` — which the iteration and fork timeouts allow for (they are several iterations long).
The two versions of a comparison calibrate separately, so a much slower candidate gets iterations of the
planned length too.

The cache lives in the adapter instance, which the runner makes once per suite and version
(:func:`~benchwarden.runner.engine.plan_run`); a remote worker that makes an adapter per fork simply
calibrates every fork, as before.  The key is everything that could change the answer
(:func:`~benchwarden.adapters.base.benchmark_version_key`): the suite's directory and environment, the
benchmark and its spec, the metric, the iteration time, the plan's environment and its extra process
arguments.  Per-fork settings the adapters add themselves (the layout padding,
``PYTHONHASHSEED``) are not in it: they move the speed by a few percent at most, which the tolerance above
absorbs.
"""

from __future__ import annotations

import threading
from typing import Hashable


class CalibrationCache:
    """Operations per iteration by :func:`~benchwarden.adapters.base.benchmark_version_key`; safe to share between threads (forks of a
    simultaneous pair run in two)."""

    def __init__(self) -> None:
        self._ops: dict[Hashable, int] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> int | None:
        """The N a previous fork found for ``key``, or None (this fork calibrates)."""
        with self._lock:
            return self._ops.get(key)

    def put(self, key: Hashable, ops: int) -> None:
        """Keep the N a fork found (the first answer stays: later forks of the key do not calibrate)."""
        if ops < 1:
            raise ValueError(f"operations per iteration must be at least 1, not {ops}")
        with self._lock:
            self._ops.setdefault(key, ops)
