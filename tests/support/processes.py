"""Reading live processes from /proc for end-to-end tests: no orphans after a fork is stopped, killed or fails.

Zombies (state ``Z``) count as gone: they have exited and only wait for their parent to reap them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator


@dataclass(frozen=True)
class Proc:
    pid: int
    pgid: int
    argv: tuple[str, ...]


def live_processes() -> Iterator[Proc]:
    """Every live (non-zombie) process we can read."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # state ppid pgrp ...
        if fields[0] == "Z":
            continue
        yield Proc(int(entry.name), int(fields[2]), tuple(a.decode(errors="replace") for a in argv if a))


def group_members(pgid: int) -> set[int]:
    """Live processes whose process group is ``pgid``."""
    return {p.pid for p in live_processes() if p.pgid == pgid}


def matching(predicate: Callable[[Proc], bool]) -> list[Proc]:
    return [p for p in live_processes() if predicate(p)]


def is_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def eventually(predicate: Callable[[], bool], timeout_s: float = 5.0) -> bool:
    """Poll ``predicate`` until it holds or ``timeout_s`` passes; returns its last value."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()
