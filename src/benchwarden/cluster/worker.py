"""The task a dask worker runs for one fork: the suite's own adapter, started on the worker, streamed back.

The worker holds one unit of the fork's resource (``bench=1``) for the whole task, so a benchmark machine runs
one fork at a time.  It sends ``hello`` (where it runs), one message per iteration and ``end`` through the
driver's dask ``Queue`` (tagged with the fork's key); a watcher thread waits on the fork's stop ``Event`` and
stops the fork's process group when the driver sets it — so dynamic stopping ends a remote fork at an
iteration boundary, exactly as it ends a local one (the runner decides; the fork just runs until told).

The suite is found at the same path as on the scheduler side (shared filesystem; docs/distributed.md): the
adapter gets the suite context, benchmark and fork plan the planner made there, built artefacts included.
"""

from __future__ import annotations

import socket
import threading
import uuid
from typing import Any, Callable

from benchwarden.adapters import get_adapter
from benchwarden.adapters.base import ForkPlan, RunningFork, SuiteContext
from benchwarden.cluster import messages
from benchwarden.errors import BenchwardenError, ForkFailed
from benchwarden.model import Benchmark

#: how often the watcher looks at the stop event (seconds); bounds how long a stopped fork runs on
STOP_POLL_S = 0.25


def stop_event_name(fork_key: str) -> str:
    return f"{fork_key}-stop"


def worker_machine() -> dict[str, str]:
    """This worker as a fork's machine: its address and name in the cluster, its host, machine key and kind."""
    from distributed import get_worker

    from benchwarden.environment import machine_identity, machine_key, machine_kind

    worker = get_worker()
    identity = machine_identity()
    return {"worker": str(worker.address), "name": str(worker.name), "host": socket.gethostname(),
            "machine_key": machine_key(identity), "kind": machine_kind(identity)}


def machine_kind_probe() -> dict[str, str]:
    """Run on a worker before any fork: the kind of machine it is (its key and a description)."""
    from benchwarden.environment import machine_identity, machine_kind, machine_kind_label

    identity = machine_identity()
    return {"kind": machine_kind(identity), "label": machine_kind_label(identity)}


def run_remote_fork(fork_key: str, inbox: str, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan,
                    artefact: bytes | None = None, digest: str | None = None, driver_root: str | None = None) -> str:
    """Run one fork here and stream it into the driver's Queue ``inbox``, each message tagged with ``fork_key``;
    returns how it ended (for the record).  With ``artefact`` (``[cluster] ship``): the suite's tree as the
    driver built it, verified against ``digest``, unpacked once into this worker's cache, and the fork run there
    (cluster/artefact.py).

    Never raises for a fork's own failure (that is a message); an exception here means the worker itself could
    not talk to the scheduler, or a shipped artefact arrived corrupted.
    """
    from distributed import Event, Queue

    if artefact is not None and digest is not None and driver_root is not None:
        from benchwarden.cluster.artefact import cache_dir, relocate, unpack

        here = str(unpack(artefact, digest, cache_dir()))
        ctx, benchmark, plan = (relocate(x, driver_root, here) for x in (ctx, benchmark, plan))

    attempt = uuid.uuid4().hex
    queue = Queue(inbox)
    stop = Event(stop_event_name(fork_key))
    return stream_fork(attempt, lambda m: queue.put({**m, "fork": fork_key}), stop.is_set,
                       lambda: stop.wait(STOP_POLL_S), worker_machine(),
                       lambda: get_adapter(ctx.kind).start_fork(ctx, benchmark, plan))


def stream_fork(attempt: str, send: Callable[[dict[str, Any]], None], stop_is_set: Callable[[], bool],
                wait_for_stop: Callable[[], bool], machine: dict[str, str], start: Callable[[], RunningFork]) -> str:
    """The fork's life on the worker, independent of dask (tested with a local adapter).

    ``stop_is_set`` says at once whether the stop event is set; ``wait_for_stop`` waits for it a short while
    (:data:`STOP_POLL_S`) and says whether it is set.
    """
    send(messages.hello(attempt, machine))
    if stop_is_set():  # stopped (or the run interrupted) while the task waited for this worker
        send(messages.end(attempt, "stopped", "stopped before it started"))
        return "stopped"
    finished = threading.Event()
    fork: RunningFork | None = None
    try:
        fork = start()
        started = fork

        def watch() -> None:
            while not finished.is_set():
                try:
                    stopped = wait_for_stop()
                except Exception:  # noqa: BLE001 - the scheduler went away (the driver closing its cluster after
                    return  # the fork's end, or lost): nobody is left to stop the fork; it ends by itself
                if stopped:
                    started.stop()
                    return

        threading.Thread(target=watch, name="benchwarden-stop-watch", daemon=True).start()
        for result in fork:
            send(messages.iteration(attempt, result))
        send(messages.end(attempt))
        return "ended"
    except ForkFailed as exc:
        send(messages.end(attempt, exc.reason, exc.detail, exc.output))
        return exc.reason
    except BenchwardenError as exc:
        send(messages.end(attempt, "crashed", str(exc)))
        return "crashed"
    finally:
        finished.set()
        if fork is not None:
            fork.stop()
