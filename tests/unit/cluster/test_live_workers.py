"""ClusterSession.live_workers: one thread asks the scheduler at a time, the others use the list they have."""

from __future__ import annotations

import threading

from benchwarden.cluster import session as cluster_session
from benchwarden.cluster.address import ClusterAddress
from benchwarden.cluster.session import ClusterSession


class _Client:
    """Answers nthreads() with the current workers; ``gate`` (when set) holds each answer until released."""

    def __init__(self):
        self.workers = {"tcp://w1": 1}
        self.asked = 0
        self.gate: threading.Event | None = None
        self.asking = threading.Event()

    def nthreads(self):
        self.asked += 1
        self.asking.set()
        if self.gate is not None:
            assert self.gate.wait(5)
        return dict(self.workers)


def _session(client) -> ClusterSession:
    return ClusterSession(client, ClusterAddress(local_workers=1))


def test_the_list_is_asked_for_once_per_age_and_fresh_on_request(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(cluster_session.time, "monotonic", lambda: now[0])
    client = _Client()
    s = _session(client)
    assert s.live_workers() == {"tcp://w1"} and client.asked == 1  # no list yet: asked
    client.workers["tcp://w2"] = 1
    assert s.live_workers() == {"tcp://w1"} and client.asked == 1  # young enough
    assert s.live_workers(fresh=True) == {"tcp://w1", "tcp://w2"} and client.asked == 2
    now[0] += cluster_session.LIVE_WORKERS_MAX_AGE_S + 0.1
    del client.workers["tcp://w1"]
    assert s.live_workers() == {"tcp://w2"} and client.asked == 3  # too old: asked again


def test_while_one_thread_asks_the_others_use_the_list_they_have(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(cluster_session.time, "monotonic", lambda: now[0])
    client = _Client()
    s = _session(client)
    assert s.live_workers() == {"tcp://w1"}
    now[0] += cluster_session.LIVE_WORKERS_MAX_AGE_S + 0.1
    client.workers["tcp://w2"] = 1
    client.gate, client.asking = threading.Event(), threading.Event()
    answer: list = []
    asker = threading.Thread(target=lambda: answer.append(s.live_workers()))
    asker.start()
    assert client.asking.wait(5)  # the asker is waiting for the scheduler
    assert s.live_workers() == {"tcp://w1"} and client.asked == 2  # not queued behind it: the list of before
    client.gate.set()
    asker.join(5)
    assert answer == [{"tcp://w1", "tcp://w2"}] and s.live_workers() == {"tcp://w1", "tcp://w2"}


def test_the_first_list_is_waited_for(monkeypatch):
    """Before any answer there is no list to fall back on (an empty one would call every worker gone)."""
    client = _Client()
    client.gate = threading.Event()
    s = _session(client)
    answers: list = []
    threads = [threading.Thread(target=lambda: answers.append(s.live_workers())) for _ in range(3)]
    for t in threads:
        t.start()
    assert client.asking.wait(5)
    client.gate.set()
    for t in threads:
        t.join(5)
    assert answers == [{"tcp://w1"}] * 3 and client.asked == 1
