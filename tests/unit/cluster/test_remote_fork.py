"""The driver's side of a remote fork without dask: what it yields, and how each way of going wrong ends it."""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field

import pytest

from benchwarden.cluster import messages, remote
from benchwarden.cluster.remote import RemoteFork, SchedulerLost
from benchwarden.cluster.session import Pin
from benchwarden.errors import ForkFailed
from benchwarden.model import IterationResult

W1 = {"worker": "tcp://10.0.0.1:4000", "name": "w1", "host": "h1", "machine_key": "hw-1"}


@dataclass
class _Future:
    status: str = "pending"
    error: BaseException | None = None

    def exception(self):
        return self.error


@dataclass
class _Session:
    live: set[str] = field(default_factory=lambda: {W1["worker"]})
    interrupted: bool = False
    scheduler_lost: str | None = None
    ended: list[str] = field(default_factory=list)

    fresh_asks: int = 0
    joined: set[str] = field(default_factory=set)  # workers the scheduler knows but the cached list does not yet

    def live_workers(self, fresh=False):
        if fresh:
            self.fresh_asks += 1
            return frozenset(self.live | self.joined)
        return frozenset(self.live)

    def scheduler_gone(self):
        return self.scheduler_lost is not None

    def reconnecting(self):
        return False

    def fork_ended(self, key, future, stop_event):
        self.ended.append(key)


def _fork(raw_messages, session=None, future=None, **kw) -> tuple[RemoteFork, _Session]:
    mailbox: queue.Queue = queue.Queue()
    for m in raw_messages:
        mailbox.put(m)
    session = session or _Session()
    return RemoteFork(session, "k1", future or _Future(), mailbox, None, "s:b", 60.0, **kw), session


@pytest.fixture(autouse=True)
def _quick_checks(monkeypatch):
    monkeypatch.setattr(remote, "CHECK_EVERY_S", 0.01)


def _it(v: float) -> IterationResult:
    return IterationResult(value_ns=v, raw_value=v)


def test_iterations_of_the_attempt_that_said_hello_and_the_machine_it_named():
    pin = Pin()
    fork, session = _fork([messages.hello("a", W1), messages.iteration("a", _it(1.0)),
                           messages.iteration("a", _it(2.0)), messages.end("a")], pin=pin)
    assert list(fork) == [_it(1.0), _it(2.0)]
    assert fork.machine == W1 and pin.worker == W1["worker"]  # the pair's next fork goes to the same worker
    fork.stop()
    fork.stop()
    assert session.ended == ["k1"]  # stopping is idempotent


def test_after_stop_iterations_still_in_the_mailbox_are_not_reported():
    # the worker sent a third iteration before it heard the stop: the fork ends at the boundary it was stopped at
    fork, _ = _fork([messages.hello("a", W1), *(messages.iteration("a", _it(v)) for v in (1.0, 2.0, 3.0)),
                     messages.end("a", "stopped")])
    got = []
    for it in fork:
        got.append(it)
        if len(got) == 2:
            fork.stop()
    assert got == [_it(1.0), _it(2.0)]


def test_a_second_attempt_means_the_first_worker_was_lost():
    fork, _ = _fork([messages.hello("a", W1), messages.iteration("a", _it(1.0)),
                     messages.hello("b", {**W1, "name": "w2"})])
    got = []
    with pytest.raises(ForkFailed) as info:
        for it in fork:
            got.append(it)
    assert got == [_it(1.0)] and info.value.reason == "lost" and "w1" in info.value.detail


def test_a_worker_that_left_the_cluster_loses_the_fork():
    session = _Session(live=set())
    fork, _ = _fork([messages.hello("a", W1)], session=session)
    with pytest.raises(ForkFailed, match="left the cluster mid-fork") as info:
        list(fork)
    assert info.value.reason == "lost" and session.fresh_asks == 1  # the scheduler asked, not a cached list


def test_a_worker_newer_than_the_cached_list_is_not_called_gone():
    """The list of live workers is cached; a worker that joined after it and took the fork is not lost."""
    session = _Session(live=set(), joined={W1["worker"]})
    fork, _ = _fork([messages.hello("a", W1)], session=session)
    later = threading.Timer(0.1, lambda: [fork._mailbox.put(m) for m in (messages.iteration("a", _it(1.0)),
                                                                         messages.end("a"))])
    later.start()
    try:
        assert list(fork) == [_it(1.0)] and session.fresh_asks >= 1
    finally:
        later.cancel()


def test_the_forks_own_failure_keeps_its_reason_and_output():
    fork, _ = _fork([messages.hello("a", W1), messages.end("a", "timeout", "no iteration for 10 s", "tail")])
    with pytest.raises(ForkFailed) as info:
        list(fork)
    assert (info.value.reason, info.value.output) == ("timeout", "tail") and "on worker w1" in info.value.detail


def test_a_message_of_another_protocol_is_garbage():
    fork, _ = _fork([messages.hello("a", W1), {"v": 99, "kind": "iteration", "attempt": "a"}])
    with pytest.raises(ForkFailed) as info:
        list(fork)
    assert info.value.reason == "garbage" and "another benchwarden version" in info.value.detail


def test_a_task_that_failed_on_the_worker_is_a_crash_and_killed_worker_a_loss():
    fork, _ = _fork([], future=_Future("error", TypeError("run_remote_fork() takes 4 positional arguments")))
    with pytest.raises(ForkFailed, match="TypeError") as info:
        list(fork)
    assert info.value.reason == "crashed"
    killed = type("KilledWorker", (Exception,), {})
    fork, _ = _fork([], future=_Future("error", killed("gave up after 3 workers died")))
    with pytest.raises(ForkFailed) as info:
        list(fork)
    assert info.value.reason == "lost"


def test_a_pinned_fork_whose_worker_left_before_it_started_is_lost():
    fork, _ = _fork([], session=_Session(live=set()), pinned_to=W1["worker"])
    with pytest.raises(ForkFailed, match="where this fork's pair runs") as info:
        list(fork)
    assert info.value.reason == "lost"


def test_the_schedulers_loss_and_an_interrupt_end_the_fork_as_an_interrupt():
    fork, _ = _fork([messages.hello("a", W1)], session=_Session(scheduler_lost="gone"))
    with pytest.raises(SchedulerLost):
        list(fork)
    assert issubclass(SchedulerLost, KeyboardInterrupt)  # the runner stores the partial fork and ends the run
    fork, session = _fork([messages.hello("a", W1)])
    fork.interrupt()
    with pytest.raises(KeyboardInterrupt):
        list(fork)
    assert session.ended == ["k1"]
