"""Resource usage of a finished child process: CPU time and peak memory from ``wait4``.

``wait4`` returns the exit status and the ``rusage`` of the child *and of every descendant it
waited for* — the whole execution of a command, or a test binary with all its threads.  Linux
accounts CPU time in nanoseconds (``sum_exec_runtime``) and reports it in microseconds here, so
CPU time per execution is precise to about a microsecond; ``ru_maxrss`` is the peak resident set
size in KiB (the largest of the process and its waited-for descendants).

Children started through :class:`~benchwarden.adapters.process.ManagedProcess` are reaped here
instead of by :mod:`subprocess`; the exit status is handed back to the ``Popen`` object so that its
``wait``/``returncode`` keep working.
"""

from __future__ import annotations

import os
import resource
import select
import time
from dataclasses import dataclass

from benchwarden.adapters.process import ManagedProcess


@dataclass(frozen=True)
class Usage:
    """CPU time (user, system) in ns and peak resident set size in KiB of one finished execution."""

    user_ns: int
    sys_ns: int
    max_rss_kib: int

    @property
    def cpu_ns(self) -> int:
        return self.user_ns + self.sys_ns


def _usage(ru: resource.struct_rusage) -> Usage:
    return Usage(user_ns=int(round(ru.ru_utime * 1e9)), sys_ns=int(round(ru.ru_stime * 1e9)),
                 max_rss_kib=int(ru.ru_maxrss))


def reap_with_usage(process: ManagedProcess, timeout_s: float | None) -> tuple[int, Usage] | None:
    """Wait for ``process`` to exit (at most ``timeout_s``; None = no limit) and reap it with ``wait4``.

    Returns ``(exit code, usage)`` — the exit code as :attr:`subprocess.Popen.returncode` gives it
    (negative for a signal) — or None when it did not exit in time (it is then still running and not
    reaped).  Precise about the moment of exit: blocks in ``poll`` on a pidfd where Linux has them.
    """
    proc = process.proc
    if proc.returncode is not None:
        raise RuntimeError("the process was already reaped; its resource usage is lost")
    if not _wait_exit(proc.pid, timeout_s):
        return None
    try:
        _, status, ru = os.wait4(proc.pid, 0)
    except ChildProcessError:
        # reaped meanwhile by another thread: a concurrent stop() terminates and waits for the process
        # (seen under load: the stop's Popen.wait won the race). Its usage is lost; the caller discards a
        # stopped execution anyway.
        code = proc.returncode if proc.returncode is not None else -9
        return code, Usage(0, 0, 0)
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code  # Popen.wait() now returns at once instead of waiting for a reaped pid
    return code, _usage(ru)


def _wait_exit(pid: int, timeout_s: float | None) -> bool:
    """True once ``pid`` has exited (still unreaped), False after ``timeout_s``."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is not None:
        try:
            pidfd = pidfd_open(pid)
        except OSError:
            pidfd = None
        if pidfd is not None:
            try:
                poller = select.poll()
                poller.register(pidfd, select.POLLIN)
                return bool(poller.poll(None if timeout_s is None else max(0.0, timeout_s) * 1000.0))
            finally:
                os.close(pidfd)
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while True:  # no pidfd: peek with waitid(WNOWAIT), which leaves the child to be reaped by wait4
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if info is not None:
            return True
        if deadline is not None and time.monotonic() >= deadline:
            return False
        time.sleep(0.001)
