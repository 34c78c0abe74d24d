"""Forks a killed benchwarden left running: recorded in the store as they start, ended by ``run --resume``.

Every fork runs in its own session (``adapters.process``), so ``kill -9`` of benchwarden does not reach
it: a hung fork, reparented to init, would run forever.  Each invocation of ``run`` puts a marker unique
to it in every fork's environment (``MARKER_VAR``), inherited by whatever the fork starts, and records
each fork (process group, marker, machine) in the store when it starts; saving the fork clears the
record.  ``run --resume`` looks for processes carrying the markers of the run's leftover records and
ends them with their process groups before it runs anything.  The marker, not the process id, is the
proof of identity, so a process group id reused by an unrelated program is never touched.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any

from benchwarden.adapters.process import MARKER_VAR, end_marked_processes, machine_identity


@dataclass(frozen=True)
class ForkRecorder:
    """Marks and records the forks of one invocation of ``run`` (for one run id)."""

    store: Any  # the Store API (record_fork_process)
    run_id: int
    marker: str

    @classmethod
    def for_run(cls, store: Any, run_id: int) -> "ForkRecorder":
        return cls(store, run_id, f"{run_id}-{uuid.uuid4().hex[:16]}")

    @property
    def env(self) -> dict[str, str]:
        """Environment for every fork of this invocation."""
        return {MARKER_VAR: self.marker}

    def started(self, benchmark_id: object, fork_index: int, fork: object) -> None:
        """Record a fork that has just started (its process group, when the adapter exposes ``pid``)."""
        host, boot_id = machine_identity()
        pgid = getattr(fork, "pid", None)
        self.store.record_fork_process(self.run_id, benchmark_id, fork_index,
                                       pgid=pgid if isinstance(pgid, int) else None, marker=self.marker,
                                       host=host, boot_id=boot_id, started_at=time.time())


def end_orphan_forks(store: Any, run_id: int) -> list[str]:
    """End the processes of forks the run recorded and never saved; one line per fork for the user.

    Forks recorded on another machine (or before a reboot) cannot be checked from here and are only
    reported.  The records are cleared afterwards: the resumed run records its own forks.
    """
    records = store.fork_processes(run_id)
    if not records:
        return []
    host, boot_id = machine_identity()
    here = [r for r in records if r.host == host and (r.boot_id is None or boot_id is None or r.boot_id == boot_id)]
    ended = end_marked_processes({r.marker for r in here})
    lines = [f"{r.benchmark} fork {r.fork_index} ran on {r.host} (or before a reboot): not checked from here"
             for r in records if r not in here]
    claimed: set[int] = set()
    for r in here:
        # one invocation runs one fork at a time, so its marker names that fork; should several records share a
        # marker, the recorded process group tells them apart (a command suite's fork has none yet at start)
        alone = sum(1 for other in here if other.marker == r.marker) == 1
        mine = [p for p in ended if p.marker == r.marker and (alone or p.pgid == r.pgid)]
        claimed.update(p.pid for p in mine)
        if mine:
            lines.append(f"{r.benchmark} fork {r.fork_index} was still running: ended "
                         + "; ".join(p.describe() for p in mine))
    rest = [p for p in ended if p.pid not in claimed]  # in no recorded group: Go forks, or left their group
    if rest:
        lines.append("ended processes the interrupted run had started: " + "; ".join(p.describe() for p in rest))
    store.clear_fork_processes(run_id)
    return lines
