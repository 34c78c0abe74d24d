"""Call trees of a benchmark's operations, as a profiled fork records them (``compare --explain``).

One profiled fork gives one :class:`CallTree`: from the benchmark function (the root), every path of the
suite's functions it reached, with calls, inclusive and self time summed over the fork's benchmark calls.
Dividing by the root's calls gives time per benchmark operation, comparable between forks and versions
whatever the batch sizes. Functions outside the profiled modules are not nodes: their time is their caller's
self time. The probe's own cost per call is measured in the fork and kept with the tree, so the explanation
can say when a function is too short for its time to be trusted (docs/code-level.md, "Root cause").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from benchwarden.errors import BenchwardenError

#: a call path from the benchmark function: ``(root, child, grandchild, ...)``
CallPath = tuple[str, ...]


class ProfileUnreadable(BenchwardenError):
    """A profiled fork wrote no profile, or one that cannot be read."""


@dataclass(frozen=True)
class NodeTimes:
    """One call-tree node summed over a fork: calls, inclusive and self time (ns)."""

    calls: int
    inclusive_ns: float
    self_ns: float


@dataclass(frozen=True)
class CallTree:
    """One fork's profile. ``nodes[path]``; ``ops`` = calls of the root (benchmark operations);
    ``traced_call_ns``/``untraced_call_ns``: the probe's cost per recorded / other call, measured in the fork
    (0 for a sampling profile, which probes nothing)."""

    root: str
    nodes: Mapping[CallPath, NodeTimes]
    traced_call_ns: float = 0.0
    untraced_call_ns: float = 0.0
    sampled: bool = False  # a sampling profile (Go's): times from samples, no calls counted below the root

    @property
    def ops(self) -> int:
        return self.nodes[(self.root,)].calls

    def per_op(self, path: CallPath, field: str) -> float:
        """``field`` (``calls``, ``inclusive_ns``, ``self_ns``) of ``path`` per benchmark operation (0 if absent)."""
        node = self.nodes.get(path)
        return 0.0 if node is None else float(getattr(node, field)) / self.ops


def parse_call_tree(payload: object, where: str) -> CallTree:
    """A :class:`CallTree` from the worker's ``profile-<pid>.json`` object (protocol version 1)."""
    try:
        if not isinstance(payload, dict) or payload.get("v") != 1:
            raise ValueError("not a version-1 profile")
        rows = payload["nodes"]
        paths: list[CallPath] = []
        nodes: dict[CallPath, NodeTimes] = {}
        for index, row in enumerate(rows):
            parent, name, calls, inclusive, self_ns = row
            if not isinstance(name, str) or not isinstance(parent, int) or not -1 <= parent < index:
                raise ValueError(f"node {index}: bad name or parent")
            if (parent == -1) != (index == 0):
                raise ValueError("node 0, and only it, is the root")
            path = (name,) if parent == -1 else paths[parent] + (name,)
            paths.append(path)
            nodes[path] = NodeTimes(int(calls), float(inclusive), float(self_ns))
        root = str(payload["root"])
        if not paths or paths[0] != (root,):
            raise ValueError("the first node is not the root")
        if nodes[(root,)].calls < 1:
            raise ValueError("the benchmark function was never called")
        return CallTree(root, nodes, float(payload.get("traced_call_ns", 0.0)),
                        float(payload.get("untraced_call_ns", 0.0)))
    except (KeyError, TypeError, ValueError) as exc:
        raise ProfileUnreadable(f"{where}: not a profile: {exc}") from None


def read_call_tree(out_dir: Path) -> CallTree:
    """The profile one fork wrote in ``out_dir`` (the fork's benchmark process: the file whose root was called)."""
    trees = []
    for path in sorted(out_dir.glob("profile-*.json")):
        try:
            payload = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ProfileUnreadable(f"{path}: {exc}") from None
        trees.append(parse_call_tree(payload, str(path)))
    if len(trees) != 1:
        raise ProfileUnreadable(f"{out_dir}: expected the profile of one benchmark process, found {len(trees)}")
    return trees[0]
