"""The stream between a worker's fork and the runner: each message decodes to what was sent; others are refused."""

from __future__ import annotations

import msgpack
import pytest

from benchwarden.cluster import messages
from benchwarden.model import IterationResult


def _wire(message: dict) -> object:
    """Through msgpack, as a dask Queue carries it."""
    return msgpack.unpackb(msgpack.packb(message))


def test_messages_survive_the_wire():
    it = IterationResult(value_ns=123.5, raw_value=8.1e6, ops=4096.0, secondary={"B/op": 16.0})
    assert messages.decode(_wire(messages.iteration("a1", it))) == messages.Iteration("a1", it)
    no_ops = IterationResult(value_ns=2.0, raw_value=2.0)
    assert messages.decode(_wire(messages.iteration("a1", no_ops))) == messages.Iteration("a1", no_ops)
    machine = {"worker": "tcp://127.0.0.1:4000", "name": "w1", "host": "h", "machine_key": "hw-1"}
    assert messages.decode(_wire(messages.hello("a1", machine))) == messages.Hello("a1", machine)
    assert messages.decode(_wire(messages.end("a1"))) == messages.End("a1")
    assert messages.decode(_wire(messages.end("a1", "crashed", "exit 1", "tail"))) == \
        messages.End("a1", "crashed", "exit 1", "tail")


@pytest.mark.parametrize("raw, problem", [
    ([1, 2], r"expected a message object"),
    ({"v": 99, "kind": "end", "attempt": "a"}, r"protocol version 99, expected 1 \(the worker runs another"),
    ({"v": 1, "kind": "end"}, r"without attempt"),
    ({"v": 1, "kind": "chat", "attempt": "a"}, r"unknown message kind 'chat'"),
    ({"v": 1, "kind": "iteration", "attempt": "a", "raw_value": 1.0}, r"malformed iteration message"),
    ({"v": 1, "kind": "iteration", "attempt": "a", "value_ns": "x", "raw_value": 1.0}, r"malformed iteration"),
    ({"v": 1, "kind": "hello", "attempt": "a", "machine": "w1"}, r"malformed hello"),
])
def test_foreign_messages_are_refused(raw, problem):
    with pytest.raises(messages.MessageError, match=problem):
        messages.decode(raw)
