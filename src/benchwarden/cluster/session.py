"""A connection to a dask.distributed cluster for one command: forks submitted as tasks, adapters wrapped.

:func:`connect` gives a :class:`ClusterSession` (a context manager): it connects to the scheduler (or starts a
``LocalCluster`` of N single-thread worker processes for ``local:N``), waits for workers, and refuses a cluster
on which no worker declares the fork resource.  :meth:`ClusterSession.adapter_factory` wraps each harness's
adapter so that ``prepare`` and ``list_benchmarks`` run here (the build lands on the shared filesystem) and
``start_fork`` submits the fork to a worker and returns a :class:`~.remote.RemoteFork`.  The runner, the stop
policies and the store never learn the difference.

:meth:`ClusterSession.same_worker` pins the forks started inside it (in this thread) to the worker the first
of them ran on — compare runs a base and a candidate fork of a pair on the same machine (blocking by machine).
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from benchwarden.adapters import get_adapter
from benchwarden.adapters.base import Adapter, ForkPlan, PreparedSuite, SuiteContext, prepare_metric
from benchwarden.cluster.address import ClusterAddress
from benchwarden.cluster.remote import RemoteFork
from benchwarden.cluster.worker import run_remote_fork, stop_event_name
from benchwarden.errors import BenchwardenError
from benchwarden.model import Benchmark

#: how long to wait for the first worker with the fork resource (seconds)
WORKER_WAIT_S = 60.0
#: how old the list of live workers may be when a fork looks for its worker (seconds)
LIVE_WORKERS_MAX_AGE_S = 0.5
#: the dispatcher drains the driver's queue every POLL_MIN_S after a message, backing off to POLL_MAX_S while it
#: stays empty (seconds): an iteration reaches its fork's stop policy at most POLL_MAX_S after it arrived.  Each
#: poll is one small request to the scheduler (≤ 100/s).  A blocking ``Queue.get(timeout=…)`` would wake at once,
#: but the scheduler logs every timed-out get as an error with a traceback.  Measured (quiet, Python example):
#: backing off to 50 ms cost 60 ms per fork against a local fork, to 10 ms 36 ms (docs/distributed.md)
POLL_MIN_S = 0.002
POLL_MAX_S = 0.01
#: how long the client tries to reconnect to a scheduler that went away before the run counts it as lost
#: (seconds; dask's Client timeout, which also bounds the first connection)
SCHEDULER_LOST_S = 20.0


class ClusterError(BenchwardenError):
    """The cluster cannot be reached, or has no worker that can run forks."""


@dataclass
class Pin:
    """The worker the forks of one :meth:`ClusterSession.same_worker` block run on (None until the first says)."""

    worker: str | None = None


@dataclass(frozen=True)
class WorkerInfo:
    address: str
    name: str
    host: str
    slots: float  # units of the fork resource: forks it runs at once
    threads: int


class ClusterSession:
    """See the module docstring.  Use :func:`connect`."""

    def __init__(self, client: Any, where: ClusterAddress, cluster: Any = None,
                 log: Callable[[str], None] = lambda _line: None):
        self.client = client
        self.where = where
        self._cluster = cluster  # the LocalCluster we started, closed with the session
        self._log = log
        self._local = threading.local()
        self._lock = threading.Lock()
        self._live: tuple[float, frozenset[str]] = (0.0, frozenset())
        self._refreshing = threading.Lock()  # held by the one thread asking the scheduler for the live workers
        self._artefacts: dict[str, tuple[str, Any]] = {}  # suite root -> (digest, its bytes scattered), with ship
        self._packing = threading.Lock()
        self._running: dict[str, RemoteFork] = {}
        self._inflight: dict[str, Any] = {}  # futures kept referenced until their task ends
        self._mailboxes: dict[str, queue.Queue[object]] = {}
        self._inbox_name = f"benchwarden-driver-{uuid.uuid4().hex}"
        self._dispatcher: threading.Thread | None = None
        self._closing = threading.Event()
        self.interrupted = False
        self.scheduler_lost: str | None = None  # why, once the scheduler cannot be reached

    # -- workers ---------------------------------------------------------------------------------

    def workers(self) -> list[WorkerInfo]:
        """Workers that declare the fork resource, by address."""
        info = self.client.scheduler_info(n_workers=-1)["workers"]
        found = []
        for address, w in sorted(info.items()):
            slots = float((w.get("resources") or {}).get(self.where.resource, 0))
            if slots > 0:
                found.append(WorkerInfo(address=address, name=str(w.get("name", address)), host=str(w.get("host", "")),
                                        slots=slots, threads=int(w.get("nthreads", 0))))
        return found

    @property
    def fork_slots(self) -> int:
        """How many forks the cluster runs at once (benchmarks to run concurrently)."""
        return max(1, int(sum(w.slots for w in self.workers())))

    def live_workers(self, fresh: bool = False) -> frozenset[str]:
        """Addresses of the workers the scheduler knows now: at most LIVE_WORKERS_MAX_AGE_S old, or, while another
        thread is asking the scheduler, the list before that; ``fresh``: ask the scheduler now (before calling a
        worker gone).  The last list seen while the scheduler does not answer.

        Only one thread asks at a time and the others do not wait for it: with 100 forks polling, threads queueing
        behind one round trip to the scheduler were most of the driver's time (benchmarks/distributed_scaling.py).
        """
        with self._lock:
            at, live = self._live
        if not fresh and time.monotonic() - at <= LIVE_WORKERS_MAX_AGE_S:
            return live
        if not self._refreshing.acquire(blocking=fresh or at == 0.0):  # no list yet, or a fresh one: wait
            return live
        try:
            with self._lock:
                at, live = self._live
            if not fresh and time.monotonic() - at <= LIVE_WORKERS_MAX_AGE_S:  # refreshed while we waited
                return live
            try:  # nthreads: the workers' addresses and little else (scheduler_info carries every worker's
                # metrics: at 100 workers, refreshed twice a second, it was the driver's biggest cost)
                live = frozenset(self.client.nthreads())
            except Exception:  # noqa: BLE001 - the dispatcher judges the scheduler's loss
                return live
            with self._lock:
                self._live = (time.monotonic(), live)
            return live
        finally:
            self._refreshing.release()

    # -- the driver's inbox ----------------------------------------------------------------------

    def _start_dispatcher(self) -> None:
        from distributed import Queue

        inbox = Queue(self._inbox_name, client=self.client)
        self._dispatcher = threading.Thread(target=self._dispatch, args=(inbox,), name="benchwarden-dispatch",
                                            daemon=True)
        self._dispatcher.start()

    def _dispatch(self, inbox: Any) -> None:
        """Drain the driver's queue into the forks' mailboxes until the session closes or the scheduler is lost."""
        wait_s = POLL_MIN_S
        while not self._closing.is_set():
            try:
                batch = inbox.get(batch=True)
            except Exception:  # noqa: BLE001 - the connection to the scheduler: reconnecting, or gone for good
                if self.scheduler_gone():
                    return
                self._closing.wait(0.5)
                continue
            for raw in batch:
                key = raw.get("fork") if isinstance(raw, dict) else None
                with self._lock:
                    mailbox = self._mailboxes.get(key) if isinstance(key, str) else None
                if mailbox is not None:
                    mailbox.put(raw)
            if batch:
                wait_s = POLL_MIN_S
            else:
                self._closing.wait(wait_s)
                wait_s = min(POLL_MAX_S, wait_s * 2)

    def toolchain_report(self, contexts: list[SuiteContext]) -> list[str]:
        """Ask every fork-running worker for the suites' tool versions (:mod:`.toolchain`); a line for each odd
        one out.  Called before the first fork is submitted."""
        from benchwarden.cluster.toolchain import odd_workers, probe, tool_commands

        commands = tool_commands(contexts)
        workers = {w.address: w.name for w in self.workers()}
        if not commands or len(workers) < 2:
            return []
        answers = self.client.run(probe, commands, workers=list(workers))
        return [f"cluster {self.where.describe()}: {line}" for line in odd_workers(
            {f"{workers.get(a, a)} ({a})" if workers.get(a, a) != a else a: v for a, v in answers.items()})]

    def machine_kinds(self) -> dict[str, dict[str, str]]:
        """Each fork-running worker's machine kind (``{"kind", "label"}``), by worker name; asked before any fork."""
        from benchwarden.cluster.worker import machine_kind_probe

        workers = {w.address: w.name for w in self.workers()}
        if not workers:
            return {}
        answers = self.client.run(machine_kind_probe, workers=list(workers))
        return {workers.get(a, a): dict(v) for a, v in answers.items()}

    # -- forks -----------------------------------------------------------------------------------

    def adapter_factory(self, kind: str) -> Adapter:
        return ClusterAdapter(get_adapter(kind), self)

    @contextlib.contextmanager
    def same_worker(self) -> Iterator[Pin]:
        pin = Pin()
        self._local.pin = pin
        try:
            yield pin
        finally:
            self._local.pin = None

    def scheduler_gone(self) -> bool:
        """Whether the connection to the scheduler is lost for good: the client gave up reconnecting (after
        SCHEDULER_LOST_S).  While it reconnects, forks wait; once it is gone, the run ends as interrupted."""
        if self.scheduler_lost is None and not self._closing.is_set() and self.client.status in ("closing", "closed"):
            self.scheduler_lost = (f"cluster {self.where.describe()}: lost the connection to the scheduler "
                                   f"(no answer for {SCHEDULER_LOST_S:.0f} s)")
            self._log(self.scheduler_lost)
        return self.scheduler_lost is not None

    def reconnecting(self) -> bool:
        return self.client.status == "connecting"

    def submit_fork(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> RemoteFork:
        from benchwarden.cluster.remote import SchedulerLost

        if self.scheduler_gone():
            raise SchedulerLost(str(self.scheduler_lost))
        try:
            return self._submit(ctx, benchmark, plan)
        except Exception:
            if self.scheduler_gone() or self.reconnecting():
                raise SchedulerLost(self.scheduler_lost or f"cluster {self.where.describe()}: the scheduler does "
                                                           "not answer") from None
            raise

    def _submit(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> RemoteFork:
        from distributed import Event

        with self._lock:
            if self._dispatcher is None:
                self._start_dispatcher()
        key = f"benchwarden-fork-{uuid.uuid4().hex}"
        mailbox: queue.Queue[object] = queue.Queue()
        with self._lock:
            self._mailboxes[key] = mailbox
        stop_event = Event(stop_event_name(key), client=self.client)
        pin: Pin | None = getattr(self._local, "pin", None)
        pinned_to = pin.worker if pin is not None and pin.worker in self.live_workers() else None
        shipped = self._artefact(ctx.root) if self.where.ship else None
        future = self.client.submit(run_remote_fork, key, self._inbox_name, ctx, benchmark, plan, key=key,
                                    pure=False, resources={self.where.resource: 1},
                                    workers=[pinned_to] if pinned_to else None, allow_other_workers=False,
                                    **({"artefact": shipped[1], "digest": shipped[0], "driver_root": str(ctx.root)}
                                       if shipped else {}))
        fork = RemoteFork(self, key, future, mailbox, stop_event, str(benchmark.id), plan.timeout_s,
                          pin=pin, pinned_to=pinned_to)
        with self._lock:
            self._running[key] = fork
            self._inflight[key] = future
        future.add_done_callback(lambda _f, key=key: self._task_done(key))
        if self.interrupted:
            fork.interrupt()
        return fork

    def _artefact(self, root: Path) -> tuple[str, Any]:
        """(digest, future of the bytes) of the suite tree at ``root``, packed and scattered once per session:
        dask carries the bytes to each worker once (the key is the content), the worker keeps them unpacked."""
        from benchwarden.cluster.artefact import pack

        with self._packing:
            known = self._artefacts.get(str(root))
            if known is None:
                t0 = time.monotonic()
                artefact = pack(root)
                # broadcast: every worker holds the bytes before its first fork; scattered to one worker only, the
                # scheduler's data locality kept every fork of a shipped suite on that worker while the other was
                # idle (a clean-clone CI run, 29 Nov 2026: all six forks on w1)
                data = self.client.scatter(artefact.data, hash=True, broadcast=True)
                known = self._artefacts[str(root)] = (artefact.digest, data)
                self._log(f"cluster {self.where.describe()}: shipping {root} to the workers: "
                          f"{len(artefact.data) / 2 ** 20:.1f} MiB, sha256 {artefact.digest[:12]} "
                          f"(packed in {time.monotonic() - t0:.1f} s)")
            return known

    def fork_ended(self, key: str, future: Any, stop_event: Any) -> None:
        """A fork was stopped (or ended): tell its worker, forget it; its future stays held until the task ends."""
        with self._lock:
            self._running.pop(key, None)
            self._mailboxes.pop(key, None)
        if not future.done() and self.scheduler_lost is None:
            stop_event.set()

    def _task_done(self, key: str) -> None:
        with self._lock:
            self._inflight.pop(key, None)

    def interrupt(self) -> None:
        """Ctrl-C: every running fork ends as interrupted; forks submitted later end at once."""
        self.interrupted = True
        with self._lock:
            running = list(self._running.values())
        for fork in running:
            fork.interrupt()

    def close(self, wait_s: float = 30.0) -> None:
        """Wait (bounded) for stopped forks' tasks to end, then disconnect (and stop a LocalCluster we started)."""
        deadline = time.monotonic() + (wait_s if self.scheduler_lost is None else 0)
        while time.monotonic() < deadline:
            with self._lock:
                if not self._inflight:
                    break
            time.sleep(0.05)
        self._closing.set()
        if self._dispatcher is not None:
            self._dispatcher.join(5)
        try:
            self.client.close()
        finally:
            if self._cluster is not None:
                self._cluster.close()

    def __enter__(self) -> "ClusterSession":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ClusterAdapter:
    """A harness's adapter whose forks run on cluster workers; preparing and listing stay here."""

    def __init__(self, inner: Adapter, session: ClusterSession):
        self.inner = inner
        self.kind = inner.kind
        self.session = session

    def prepare(self, ctx: SuiteContext) -> PreparedSuite:
        return self.inner.prepare(ctx)

    def prepare_metric(self, ctx: SuiteContext, metric: str) -> None:
        prepare_metric(self.inner, ctx, metric)

    def list_benchmarks(self, ctx: SuiteContext) -> list[Benchmark]:
        return self.inner.list_benchmarks(ctx)

    def start_fork(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> RemoteFork:
        return self.session.submit_fork(ctx, benchmark, plan)


def connect(where: ClusterAddress, worker_wait_s: float = WORKER_WAIT_S,
            log: Callable[[str], None] = lambda _line: None) -> ClusterSession:
    """Connect to the scheduler (or start ``local:N``) and wait for a worker with the fork resource."""
    from distributed import Client, LocalCluster

    cluster = None
    try:
        if where.local_workers is not None:
            cluster = LocalCluster(n_workers=where.local_workers, threads_per_worker=1, processes=True,
                                   resources={where.resource: 1}, dashboard_address=None,
                                   silence_logs=logging.ERROR)
            client = Client(cluster)
        else:
            client = Client(where.scheduler, timeout=f"{SCHEDULER_LOST_S:.0f}s")
    except (OSError, TimeoutError) as exc:
        if cluster is not None:
            cluster.close()
        raise ClusterError(f"cluster {where.describe()}: cannot connect: {exc}") from None
    session = ClusterSession(client, where, cluster, log=log)
    try:
        deadline = time.monotonic() + worker_wait_s
        while not session.workers():
            if time.monotonic() > deadline:
                raise ClusterError(
                    f"cluster {where.describe()}: no worker declares the resource '{where.resource}' after "
                    f"{worker_wait_s:.0f} s; start workers with: dask worker {where.describe()} "
                    f"--nthreads 1 --resources {where.resource}=1")
            time.sleep(0.2)
        for w in session.workers():
            log(f"cluster {where.describe()}: worker {w.name} ({w.address}) runs {w.slots:g} fork(s) at a time")
    except BaseException:
        session.close(wait_s=0)
        raise
    return session
