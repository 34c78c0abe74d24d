"""A fork's life on a worker (cluster.worker.stream_fork) without dask: what it sends, and stopping on request."""

from __future__ import annotations

import threading

from benchwarden.adapters.base import ForkPlan
from benchwarden.cluster import messages
from benchwarden.cluster.worker import stream_fork
from benchwarden.model import IterationResult
from tests.support.fake_adapter import FakeBenchmarkSpec, FakeFork

MACHINE = {"worker": "tcp://127.0.0.1:4000", "name": "w1", "host": "h", "machine_key": "hw-1"}


def _plan(max_iterations: int = 8) -> ForkPlan:
    return ForkPlan(fork_index=1, iteration_time_s=0.01, max_iterations=max_iterations, timeout_s=60,
                    iteration_timeout_s=10)


def _decoded(sent):
    return [messages.decode(m) for m in sent]


def test_a_fork_sends_hello_every_iteration_and_end():
    sent: list = []
    fork = FakeFork(FakeBenchmarkSpec("a", values=lambda f, i: float(i)), _plan(3))
    how = stream_fork("at1", sent.append, lambda: False, lambda: False, MACHINE, lambda: fork)
    assert how == "ended"
    assert _decoded(sent) == [messages.Hello("at1", MACHINE),
                              *(messages.Iteration("at1", IterationResult(float(i), float(i))) for i in (1, 2, 3)),
                              messages.End("at1")]
    assert fork.stopped  # its process group is always ended


def test_a_fork_stopped_before_it_started_never_starts():
    sent: list = []
    started = []
    how = stream_fork("at1", sent.append, lambda: True, lambda: True, MACHINE, lambda: started.append(1))
    assert how == "stopped" and started == []
    assert _decoded(sent)[-1] == messages.End("at1", "stopped", "stopped before it started")


def test_a_failing_fork_sends_its_reason_detail_and_output():
    sent: list = []
    fork = FakeFork(FakeBenchmarkSpec("a", crash_at=(1, 2)), _plan())
    assert stream_fork("at1", sent.append, lambda: False, lambda: False, MACHINE, lambda: fork) == "crashed"
    decoded = _decoded(sent)
    assert [type(m).__name__ for m in decoded] == ["Hello", "Iteration", "End"]
    assert decoded[-1] == messages.End("at1", "crashed", "exit status 1", "boom")


def test_a_stop_request_stops_the_fork_between_iterations():
    """The watcher sees the stop event and stops the fork; the fork ends at its next iteration boundary."""
    sent: list = []
    stop_requested = threading.Event()
    stopped = threading.Event()

    def value(fork_index, i):
        if i == 3:
            stop_requested.set()  # the runner decided after iteration 2 (the scheduler set the event)
            assert stopped.wait(30), "the watcher never stopped the fork"
        return float(i)

    inner = FakeFork(FakeBenchmarkSpec("a", values=value), _plan(100))

    class Watched:
        def __iter__(self):
            return iter(inner)

        def stop(self):
            inner.stop()
            stopped.set()

        def output_tail(self):
            return ""

    how = stream_fork("at1", sent.append, stop_requested.is_set, lambda: stop_requested.wait(0.05), MACHINE,
                      lambda: Watched())
    assert how == "ended"
    iterations = [m for m in _decoded(sent) if isinstance(m, messages.Iteration)]
    assert len(iterations) == 3  # the iteration under way when the stop came, then nothing more of 100


def test_a_scheduler_gone_while_the_watcher_waits_is_no_traceback(monkeypatch):
    """The stop watcher's wait fails once the scheduler is gone (found on gin: `backfill --cluster local:2`
    printed a worker thread's StreamClosedError while the driver closed its LocalCluster): the watcher ends
    quietly, the fork runs to its end."""
    uncaught: list = []
    monkeypatch.setattr(threading, "excepthook", uncaught.append)
    waited = threading.Event()

    def gone() -> bool:
        waited.set()
        raise OSError("Stream is closed")

    sent: list = []
    fork = FakeFork(FakeBenchmarkSpec("a", values=lambda f, i: float(i)), _plan(3))
    how = stream_fork("at1", sent.append, lambda: False, gone, MACHINE, lambda: fork)
    assert waited.wait(5) and how == "ended" and isinstance(_decoded(sent)[-1], messages.End)
    for thread in threading.enumerate():
        if thread.name == "benchwarden-stop-watch":
            thread.join(5)
    assert uncaught == []
