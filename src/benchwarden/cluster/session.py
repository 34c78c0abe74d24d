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
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from benchwarden.adapters import get_adapter
from benchwarden.adapters.base import Adapter, ForkPlan, PreparedSuite, SuiteContext
from benchwarden.cluster.address import ClusterAddress
from benchwarden.cluster.remote import RemoteFork
from benchwarden.cluster.worker import run_remote_fork, stop_event_name
from benchwarden.errors import BenchwardenError
from benchwarden.model import Benchmark

#: how long to wait for the first worker with the fork resource (seconds)
WORKER_WAIT_S = 60.0
#: how old the list of live workers may be when a fork looks for its worker (seconds)
LIVE_WORKERS_MAX_AGE_S = 0.5


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

    def __init__(self, client: Any, where: ClusterAddress, cluster: Any = None):
        self.client = client
        self.where = where
        self._cluster = cluster  # the LocalCluster we started, closed with the session
        self._local = threading.local()
        self._lock = threading.Lock()
        self._live: tuple[float, frozenset[str]] = (0.0, frozenset())
        self._running: dict[str, RemoteFork] = {}
        self._inflight: dict[str, Any] = {}  # futures kept referenced until their task ends
        self.interrupted = False

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

    def live_workers(self) -> frozenset[str]:
        with self._lock:
            at, live = self._live
            if time.monotonic() - at > LIVE_WORKERS_MAX_AGE_S:
                live = frozenset(self.client.scheduler_info(n_workers=-1)["workers"])
                self._live = (time.monotonic(), live)
            return live

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

    def submit_fork(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> RemoteFork:
        from distributed import Event, Queue

        key = f"benchwarden-fork-{uuid.uuid4().hex}"
        queue = Queue(key, client=self.client)
        stop_event = Event(stop_event_name(key), client=self.client)
        pin: Pin | None = getattr(self._local, "pin", None)
        pinned_to = pin.worker if pin is not None and pin.worker in self.live_workers() else None
        future = self.client.submit(run_remote_fork, key, ctx, benchmark, plan, key=key, pure=False,
                                    resources={self.where.resource: 1},
                                    workers=[pinned_to] if pinned_to else None, allow_other_workers=False)
        fork = RemoteFork(self, key, future, queue, stop_event, str(benchmark.id), plan.timeout_s,
                          pin=pin, pinned_to=pinned_to)
        with self._lock:
            self._running[key] = fork
            self._inflight[key] = future
        future.add_done_callback(lambda _f, key=key: self._task_done(key))
        if self.interrupted:
            fork.interrupt()
        return fork

    def fork_ended(self, key: str, future: Any, stop_event: Any) -> None:
        """A fork was stopped (or ended): tell its worker, forget it; its future stays held until the task ends."""
        with self._lock:
            self._running.pop(key, None)
        if not future.done():
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
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            with self._lock:
                if not self._inflight:
                    break
            time.sleep(0.05)
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
            client = Client(where.scheduler, timeout=f"{worker_wait_s:.0f}s")
    except (OSError, TimeoutError) as exc:
        if cluster is not None:
            cluster.close()
        raise ClusterError(f"cluster {where.describe()}: cannot connect: {exc}") from None
    session = ClusterSession(client, where, cluster)
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
