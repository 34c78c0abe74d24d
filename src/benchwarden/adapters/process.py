"""Child processes for adapters: own process group, streamed lines, timeouts, no orphans.

Every fork runs in a new session (``start_new_session=True``) so that
:meth:`ManagedProcess.terminate` can signal the whole group: a JMH host JVM
and the benchmark JVM it forks, or ``go test`` binaries, all go together.
Output is read by background threads into a queue so the adapter can wait
for the next line with a deadline (hung benchmarks) without blocking forever.
"""

from __future__ import annotations

import collections
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Mapping, Sequence

from benchwarden.errors import BuildFailed, ToolchainMissing

_EOF = object()


class LineTimeout(Exception):
    """No line arrived before the deadline."""


class ManagedProcess:
    """A child process in its own process group whose stdout lines can be awaited with a deadline.

    stderr is merged into the same stream unless ``merge_stderr=False``, in which
    case it is only kept in the tail buffer (for error messages).
    """

    def __init__(
        self,
        argv: Sequence[str],
        cwd: Path | str | None = None,
        env: Mapping[str, str] | None = None,
        merge_stderr: bool = True,
        tail_lines: int = 60,
    ):
        self.argv = list(argv)
        self._lines: queue.Queue[object] = queue.Queue()
        self._tail: collections.deque[str] = collections.deque(maxlen=tail_lines)
        self._tail_lock = threading.Lock()
        full_env = dict(os.environ)
        if env:
            full_env.update(env)
        self.proc = subprocess.Popen(
            self.argv,
            cwd=str(cwd) if cwd else None,
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
            start_new_session=True,
            bufsize=0,
        )
        self._readers = [threading.Thread(target=self._pump, args=(self.proc.stdout, True), daemon=True)]
        if not merge_stderr:
            self._readers.append(threading.Thread(target=self._pump, args=(self.proc.stderr, False), daemon=True))
        for t in self._readers:
            t.start()
        self._terminated = False

    def _pump(self, stream, forward: bool) -> None:
        try:
            for raw in iter(stream.readline, b""):
                line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                with self._tail_lock:
                    self._tail.append(line)
                if forward:
                    self._lines.put(line)
        finally:
            if forward:
                self._lines.put(_EOF)

    def readline(self, deadline: float | None) -> str | None:
        """Next stdout line, or None at end of output. Raises LineTimeout past ``deadline`` (monotonic)."""
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            item = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise LineTimeout() from None
        if item is _EOF:
            return None
        return item  # type: ignore[return-value]

    def wait(self, timeout: float | None = None) -> int | None:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    @property
    def returncode(self) -> int | None:
        return self.proc.poll()

    def tail(self) -> str:
        with self._tail_lock:
            return "\n".join(self._tail)

    def terminate(self, grace_s: float = 3.0) -> None:
        """SIGKILL the whole process group, reap it, and close the pipes. Idempotent.

        No SIGTERM first: every caller stops a fork whose results it already has (or that hung or
        crashed), and a graceful JVM shutdown costs ~0.35 s per fork for nothing — SIGTERM runs no
        JMH teardown either, and Go test binaries and Python workers die on it at once anyway.
        ``grace_s`` bounds the wait for the kernel to reap the leader.
        """
        if self._terminated:
            return
        self._terminated = True
        pgid = self.proc.pid
        # Children (e.g. JMH's forked JVM) may outlive the leader: always sweep the whole group.
        _killpg(pgid, signal.SIGKILL)
        try:
            self.proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:  # pragma: no cover - kernel did not reap in time
            pass
        # Let the reader threads reach end of file before the pipes are closed under them
        # (closing first races a blocked readline: "I/O operation on closed file" in the thread).
        for reader in self._readers:
            reader.join(timeout=grace_s)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:  # pragma: no cover
                    pass


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def require_tool(tool: str, suite: str, hint: str = "") -> str:
    """Absolute path of ``tool`` on PATH, or raise :class:`ToolchainMissing` naming the suite."""
    path = shutil.which(tool)
    if path is None:
        raise ToolchainMissing(tool, suite, hint)
    return path


def run_build(argv: Sequence[str], cwd: Path, suite: str, env: Mapping[str, str] | None = None,
              timeout_s: float = 3600.0) -> str:
    """Run a build command (no shell); return its output or raise :class:`BuildFailed` with the output tail."""
    if not argv:
        return ""
    require_tool(argv[0], suite, "needed by the suite's build command")
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    try:
        done = subprocess.run(
            list(argv), cwd=str(cwd), env=full_env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout_s, start_new_session=True,
        )
    except subprocess.TimeoutExpired as exc:
        out = (exc.output or b"").decode("utf-8", errors="replace")
        raise BuildFailed(suite, " ".join(argv), -1, _last_lines(out) + f"\n(timed out after {timeout_s:.0f}s)") from None
    out = done.stdout.decode("utf-8", errors="replace")
    if done.returncode != 0:
        raise BuildFailed(suite, " ".join(argv), done.returncode, _last_lines(out))
    return out


def capture(argv: Sequence[str], cwd: Path | None = None, env: Mapping[str, str] | None = None,
            timeout_s: float = 120.0) -> subprocess.CompletedProcess[str]:
    """Run a short helper command (listing, version query) in its own group and capture text output."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run(
        list(argv), cwd=str(cwd) if cwd else None, env=full_env, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=timeout_s, start_new_session=True,
    )


def _last_lines(text: str, n: int = 40) -> str:
    lines = text.rstrip().splitlines()
    return "\n".join(lines[-n:])
