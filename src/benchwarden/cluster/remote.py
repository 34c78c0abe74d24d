"""The scheduler side of one fork running on a worker: a RunningFork fed by the session's dispatcher.

Workers send every fork's messages to one dask ``Queue`` per driver; the session's dispatcher thread drains it
and hands each message to its fork's mailbox (a local queue), so the number of requests to the scheduler does not
grow with the number of forks running at once (docs/performance.md, "Forks on a cluster").

To the runner this is a fork like any other: iterate for iteration results, ``stop()`` at an iteration
boundary.  Stopping sets the fork's dask ``Event``; the worker's watcher stops the process group
(:mod:`.worker`).  While the queue is quiet the fork checks what can go wrong on the way:

* the worker it runs on left the cluster (killed, crashed, network) — ``ForkFailed`` with reason ``"lost"``:
  the runner keeps the iterations so far as a LOST fork and runs the fork again under the next index;
* dask started a second attempt of the task (it reschedules a task whose worker died): also lost — a
  benchwarden fork is never continued by another process;
* the task failed (an exception on the worker outside the fork) — ``"crashed"``;
* no message for longer than the fork's whole time bound — ``"timeout"``;
* the scheduler itself is gone — :class:`SchedulerLost`, which ends the whole run as interrupted (resumable).
"""

from __future__ import annotations

import queue
import time
from typing import TYPE_CHECKING, Any, Iterator

from benchwarden.cluster import messages
from benchwarden.errors import ForkFailed
from benchwarden.model import IterationResult

if TYPE_CHECKING:
    from benchwarden.cluster.session import ClusterSession, Pin

#: how often a quiet fork looks at its worker and task (seconds)
CHECK_EVERY_S = 0.5
#: beyond the fork's own time bound, how long a fork may send nothing before it counts as hung (seconds);
#: the worker's adapter enforces the fork's timeouts itself, this only catches a worker that stopped talking
SILENCE_GRACE_S = 60.0


class SchedulerLost(KeyboardInterrupt):
    """The cluster's scheduler cannot be reached any more: every fork stops, the run ends as interrupted.

    A KeyboardInterrupt on purpose: the runner and compare already end a run that way — the running forks'
    iterations stored as interrupted, the run marked ``interrupted`` and ``--resume`` offered — and a lost
    scheduler is exactly that, an interruption from outside that says nothing about the benchmarks.
    """


class RemoteFork:
    """One fork on a cluster worker (see the module docstring).  ``machine`` is known once the worker said hello."""

    def __init__(self, session: "ClusterSession", key: str, future: Any, mailbox: "queue.Queue[object]",
                 stop_event: Any, label: str, fork_timeout_s: float, pin: "Pin | None" = None,
                 pinned_to: str | None = None):
        self.machine: dict[str, str] = {}
        self._session = session
        self._key = key
        self._future = future
        self._mailbox = mailbox
        self._stop_event = stop_event
        self._label = label
        self._silence_limit_s = fork_timeout_s + SILENCE_GRACE_S
        self._pin = pin
        self._pinned_to = pinned_to
        self._attempt: str | None = None
        self._stopped = False
        self._interrupted = False

    def __iter__(self) -> Iterator[IterationResult]:
        last_message = time.monotonic()
        checks_after_task_ended = 0
        while True:
            if self._interrupted or self._session.interrupted:
                raise KeyboardInterrupt
            try:
                raw = self._mailbox.get(timeout=CHECK_EVERY_S)
            except queue.Empty:
                if self._session.scheduler_gone():
                    raise SchedulerLost(str(self._session.scheduler_lost)) from None
                if self._session.reconnecting():  # the client's futures and worker list mean nothing meanwhile
                    continue
                if self._future.status == "finished":
                    checks_after_task_ended += 1
                    if checks_after_task_ended >= 3:
                        raise ForkFailed(self._label, "crashed", "the worker's task ended without saying how the "
                                                                 "fork ended") from None
                self._check(last_message)
                continue
            last_message = time.monotonic()
            try:
                message = messages.decode(raw)
            except messages.MessageError as exc:
                raise ForkFailed(self._label, "garbage", f"from worker {self._where()}: {exc}") from None
            if self._attempt is None:
                if isinstance(message, messages.Hello):
                    self._attempt = message.attempt
                    self.machine = dict(message.machine)
                    if self._pin is not None and self._pin.worker is None:
                        self._pin.worker = self.machine.get("worker")
                continue  # anything before a hello belongs to no attempt we follow
            if message.attempt != self._attempt:
                raise ForkFailed(self._label, "lost", f"worker {self._where()} left the cluster mid-fork "
                                                      "(dask started the task again elsewhere)")
            if self._stopped:  # after stop(), an iteration still in the mailbox is not reported (the protocol)
                return
            if isinstance(message, messages.Iteration):
                yield message.result
            elif isinstance(message, messages.End):
                if message.reason is None or message.reason == "stopped":
                    return
                raise ForkFailed(self._label, message.reason, f"{message.detail} (on worker {self._where()})",
                                 message.output)

    def _check(self, last_message: float) -> None:
        status = self._future.status
        if status == "error":
            exc = self._future.exception()
            if type(exc).__name__ == "KilledWorker":
                raise ForkFailed(self._label, "lost", f"dask gave up on the task: {exc}")
            raise ForkFailed(self._label, "crashed", f"the task failed on worker {self._where()}: "
                                                     f"{type(exc).__name__}: {exc}")
        if status in ("cancelled", "lost"):
            raise ForkFailed(self._label, "lost", f"the scheduler dropped the task ({status})")
        live = self._session.live_workers()
        if self._attempt is not None:
            worker = self.machine.get("worker")
            if worker is not None and worker not in live and worker not in self._session.live_workers(fresh=True):
                raise ForkFailed(self._label, "lost", f"worker {self._where()} left the cluster mid-fork")
            if time.monotonic() - last_message > self._silence_limit_s:
                raise ForkFailed(self._label, "timeout", f"worker {self._where()} sent nothing for "
                                                         f"{self._silence_limit_s:.0f} s")
        elif self._pinned_to is not None and self._pinned_to not in live:
            raise ForkFailed(self._label, "lost", f"worker {self._pinned_to}, where this fork's pair runs, left the "
                                                  "cluster before the fork started")

    def _where(self) -> str:
        name, worker = self.machine.get("name"), self.machine.get("worker", "?")
        return f"{name} ({worker})" if name and name != worker else worker

    def stop(self) -> None:
        """Ask the worker to stop the fork's process group (idempotent, any thread); does not wait."""
        if self._stopped:
            return
        self._stopped = True
        self._session.fork_ended(self._key, self._future, self._stop_event)

    def interrupt(self) -> None:
        """End iteration with KeyboardInterrupt (Ctrl-C of the run) and stop the remote fork."""
        self._interrupted = True
        self.stop()

    def output_tail(self) -> str:
        return ""  # the worker sends the tail with a failure (ForkFailed.output)
