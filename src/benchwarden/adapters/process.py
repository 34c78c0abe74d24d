"""Child processes for adapters: own process group, streamed lines, timeouts, no orphans.

Every fork runs in a new session (``start_new_session=True``) so that
:meth:`ManagedProcess.terminate` can signal the whole group: a JMH host JVM
and the benchmark JVM it forks, or ``go test`` binaries, all go together.
Output is read by background threads into a queue so the adapter can wait
for the next line with a deadline (hung benchmarks) without blocking forever.

Reading never slows the child: the pipe is drained in blocks of :data:`READ_CHUNK`
bytes (one ``read`` per block, not per byte), so a benchmark that prints does not
block on a full pipe while it is being measured.  What is kept is bounded whatever
the child prints: a forwarded line is cut at :data:`MAX_LINE_BYTES`, and the tail
kept for error messages is the last ``tail_lines`` lines, each cut at
:data:`TAIL_LINE_CHARS` characters.
"""

from __future__ import annotations

import collections
import os
import queue
import shutil
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Mapping, Sequence, cast

from benchwarden.errors import BuildFailed, ToolchainMissing, clip

_EOF = object()

#: bytes asked of the pipe per ``read``: one system call drains what the child wrote, up to this much
READ_CHUNK = 64 * 1024
#: longest line handed to an adapter; the rest of a longer line is dropped and counted in a marker
MAX_LINE_BYTES = 1 << 20
#: longest line kept in the output tail (error messages and stored failures)
TAIL_LINE_CHARS = 2000


def clip_line(text: str, limit: int = TAIL_LINE_CHARS) -> str:
    """One output line as kept in the tail: at most ``limit`` characters, with a marker for the rest."""
    return clip(text, limit)


class LineSplitter:
    """Bytes in blocks -> complete lines, each at most ``max_line_bytes`` long (the excess is counted, not kept).

    Memory stays bounded by ``max_line_bytes`` whatever the input: a 20-MB line without a newline
    costs 1 MiB, not 20.  ``\n`` never occurs inside a multi-byte UTF-8 sequence, so lines are
    decoded one by one.
    """

    def __init__(self, max_line_bytes: int = MAX_LINE_BYTES):
        self._max = max_line_bytes
        self._partial = bytearray()
        self._cut = 0

    def feed(self, chunk: bytes) -> list[str]:
        """The lines completed by ``chunk`` (without line ends), in order."""
        parts = chunk.split(b"\n")
        lines = []
        for part in parts[:-1]:
            self._append(part)
            lines.append(self._take())
        self._append(parts[-1])
        return lines

    def finish(self) -> list[str]:
        """The last line if the output did not end with a newline."""
        return [self._take()] if self._partial or self._cut else []

    def _append(self, part: bytes) -> None:
        room = self._max - len(self._partial)
        if len(part) <= room:
            self._partial += part
        else:
            self._partial += part[:room]
            self._cut += len(part) - room

    def _take(self) -> str:
        line = bytes(self._partial).decode("utf-8", errors="replace").rstrip("\r")
        if self._cut:
            line += f"[... {self._cut} more bytes]"
        self._partial.clear()
        self._cut = 0
        return line


class LineTimeout(Exception):
    """No line arrived before the deadline."""


def drain_lines(stream: BinaryIO, on_lines: Callable[[list[str]], None],
                max_line_bytes: int = MAX_LINE_BYTES) -> None:
    """Read ``stream`` to its end in blocks of :data:`READ_CHUNK` bytes, passing each block's complete lines on.

    ``stream`` is unbuffered (``Popen(bufsize=0)``): ``read(n)`` is one system call returning whatever
    the child has written, so a line arrives as soon as it is written, and a chatty child never waits
    for us.  (``readline`` on such a stream reads one byte per system call: 4.8 s for 2 MB.)
    """
    splitter = LineSplitter(max_line_bytes)
    while chunk := stream.read(READ_CHUNK):
        lines = splitter.feed(chunk)
        if lines:
            on_lines(lines)
    last = splitter.finish()
    if last:
        on_lines(last)


class ManagedProcess:
    """A child process in its own process group whose stdout lines can be awaited with a deadline.

    stderr is merged into the same stream unless ``merge_stderr=False``, in which
    case it is only kept in the tail buffer (for error messages).  With
    ``forward_lines=False`` nothing is handed to :meth:`readline` (which then only
    reports the end of output) and the output is kept only as the tail: for
    children whose output is not a protocol, such as command benchmarks.
    """

    def __init__(
        self,
        argv: Sequence[str],
        cwd: Path | str | None = None,
        env: Mapping[str, str] | None = None,
        merge_stderr: bool = True,
        tail_lines: int = 60,
        forward_lines: bool = True,
    ):
        self.argv = list(argv)
        # blocks of lines (one list per read) or _EOF; readline hands them out one by one from _pending
        self._lines: queue.Queue[object] = queue.Queue()
        self._pending: collections.deque[str] = collections.deque()
        self._at_eof = False
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
        self._readers = [threading.Thread(target=self._pump, args=(self.proc.stdout, forward_lines, True),
                                         daemon=True)]
        if not merge_stderr:
            self._readers.append(threading.Thread(target=self._pump, args=(self.proc.stderr, False, False),
                                                  daemon=True))
        for t in self._readers:
            t.start()
        self._terminated = False

    def _pump(self, stream, forward: bool, ends_output: bool) -> None:
        """Drain ``stream``: forward its lines (stdout) and keep the last ones, clipped, as the tail."""
        keep = self._tail.maxlen or 0
        try:
            drain_lines(stream, lambda lines: self._take_lines(lines, forward, keep))
        except (OSError, ValueError):  # pragma: no cover - the pipe was closed under us by terminate()
            pass
        finally:
            if ends_output:
                self._lines.put(_EOF)

    def _take_lines(self, lines: list[str], forward: bool, keep: int) -> None:
        if not lines:
            return
        if forward:
            self._lines.put(lines)
        with self._tail_lock:
            self._tail.extend(clip_line(line) for line in lines[-keep:])

    def readline(self, deadline: float | None) -> str | None:
        """Next stdout line, or None at end of output. Raises LineTimeout past ``deadline`` (monotonic)."""
        while not self._pending:
            if self._at_eof:
                return None
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                item = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise LineTimeout() from None
            if item is _EOF:
                self._at_eof = True
            else:
                self._pending.extend(cast("list[str]", item))  # the reader thread puts lists of lines or _EOF
        return self._pending.popleft()

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

    def drained(self, timeout_s: float = 2.0) -> None:
        """Wait (at most ``timeout_s``) until every pipe has been read to its end, so that :meth:`tail` holds the
        last words of a process that exited: stdout's end comes first, and a panic written to a separate stderr
        may still be in its pipe (a loaded machine showed it)."""
        deadline = time.monotonic() + timeout_s
        for reader in self._readers:
            reader.join(timeout=max(0.0, deadline - time.monotonic()))

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
    """Run a build command (no shell); return its output or raise :class:`BuildFailed` with the output tail.

    On timeout the build's whole process group is killed (Maven's forked compilers, ``go build``'s
    tool processes), not only the command itself.
    """
    if not argv:
        return ""
    require_tool(argv[0], suite, "needed by the suite's build command")
    try:
        done = run_in_group(argv, cwd=cwd, env=env, timeout_s=timeout_s, merge_stderr=True)
    except subprocess.TimeoutExpired as exc:
        out = _text(exc.output)
        raise BuildFailed(suite, " ".join(argv), -1, _last_lines(out) + f"\n(timed out after {timeout_s:.0f}s)") from None
    out = _text(done.stdout)
    if done.returncode != 0:
        raise BuildFailed(suite, " ".join(argv), done.returncode, _last_lines(out))
    return out


def capture(argv: Sequence[str], cwd: Path | None = None, env: Mapping[str, str] | None = None,
            timeout_s: float = 120.0) -> subprocess.CompletedProcess[str]:
    """Run a short helper command (listing, version query) in its own group and capture text output.

    Raises :class:`subprocess.TimeoutExpired` after killing the whole group when ``timeout_s`` passes.
    """
    done = run_in_group(argv, cwd=cwd, env=env, timeout_s=timeout_s, merge_stderr=False)
    return subprocess.CompletedProcess(done.args, done.returncode, _text(done.stdout), _text(done.stderr))


#: how long to wait for the pipes to close after a timed-out group was killed (a child that left the
#: group with its own ``setsid`` may hold them open forever)
_AFTER_KILL_S = 5.0


def run_in_group(argv: Sequence[str], cwd: Path | str | None = None, env: Mapping[str, str] | None = None,
                 timeout_s: float | None = None, merge_stderr: bool = False) -> subprocess.CompletedProcess[bytes]:
    """``subprocess.run`` with the child in its own process group, and the whole group killed on timeout.

    ``subprocess.run(timeout=)`` kills only the process it started: the build's own children live on
    (and keep the output pipe open).  Here the group is SIGKILLed and then reaped; the output produced
    so far travels with :class:`subprocess.TimeoutExpired` (``output``/``stderr``, bytes).  A command
    that ends normally keeps whatever it started on purpose (a build may start a daemon or a database).
    """
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    with subprocess.Popen(list(argv), cwd=str(cwd) if cwd else None, env=full_env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
                          start_new_session=True) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _killpg(proc.pid, signal.SIGKILL)
            try:
                stdout, stderr = proc.communicate(timeout=_AFTER_KILL_S)
            except subprocess.TimeoutExpired:  # pragma: no cover - a child escaped the group and holds the pipe
                proc.kill()
                stdout, stderr = b"", b""
            raise subprocess.TimeoutExpired(proc.args, timeout_s or 0.0, output=stdout, stderr=stderr) from None
        except BaseException:  # Ctrl-C during a build: nothing of it may survive us
            _killpg(proc.pid, signal.SIGKILL)
            raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", errors="replace")


def _last_lines(text: str, n: int = 40) -> str:
    lines = text.rstrip().splitlines()
    return "\n".join(clip_line(line) for line in lines[-n:])


# -- forks left behind by a process that was killed ------------------------------------------------

#: environment variable set in every fork a run starts; its value (a token unique to one invocation of
#: ``benchwarden run``) is inherited by everything the fork starts, so those processes can be recognised later
MARKER_VAR = "BENCHWARDEN_FORK"


@dataclass(frozen=True)
class MarkedProcess:
    """A live process carrying one of our markers: ``pgid`` is its process group."""

    pid: int
    pgid: int
    marker: str
    argv: tuple[str, ...]

    def describe(self) -> str:
        return f"pid {self.pid} (group {self.pgid}): {clip(' '.join(self.argv) or '?', 120)}"


def machine_identity() -> tuple[str, str | None]:
    """``(hostname, boot id)``: process ids mean something only on the same machine since the same boot."""
    try:
        boot_id = Path("/proc/sys/kernel/random/boot_id").read_text().strip() or None
    except OSError:
        boot_id = None
    return socket.gethostname(), boot_id


def processes_marked(markers: Iterable[str], proc: Path = Path("/proc")) -> list[MarkedProcess]:
    """Live processes whose environment carries ``MARKER_VAR=<one of markers>`` (Linux ``/proc``; elsewhere none).

    The marker, not the process id, is the proof: a recorded process-group id may have been reused by an
    unrelated process since, but nothing else carries a token made for one invocation of benchwarden.
    Zombies (exited, waiting to be reaped) do not count; processes of other users cannot be read and are skipped.
    """
    wanted = {f"{MARKER_VAR}={m}".encode(): m for m in markers}
    if not wanted:
        return []
    found = []
    try:
        entries = [e for e in proc.iterdir() if e.name.isdigit()]
    except OSError:
        return []
    for entry in entries:
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        hit = next((wanted[v] for v in environ if v in wanted), None)
        fields = stat[stat.rindex(")") + 2:].split()  # state ppid pgrp ...
        if hit is None or fields[0] == "Z":
            continue
        found.append(MarkedProcess(int(entry.name), int(fields[2]), hit,
                                   tuple(a.decode(errors="replace") for a in argv if a)))
    return found


def end_marked_processes(markers: Iterable[str], grace_s: float = 5.0) -> list[MarkedProcess]:
    """SIGKILL every process carrying one of ``markers``, with its whole process group; return what was found.

    Waits up to ``grace_s`` for them to be gone (the kernel reaps asynchronously; an orphan's new parent
    reaps it).  Processes that survive (another user's) are still returned: the caller reports them.
    """
    marked = processes_marked(list(markers))
    for group in sorted({p.pgid for p in marked}):
        _killpg(group, signal.SIGKILL)
    for p in marked:  # a process that left its group (setsid) is still ours
        try:
            os.kill(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    deadline = time.monotonic() + grace_s
    pids = {p.pid for p in marked}
    while pids and time.monotonic() < deadline:
        pids = {p.pid for p in processes_marked(list(markers)) if p.pid in pids}
        if pids:
            time.sleep(0.05)
    return marked
