"""Network screening of a test by the system calls of one untimed execution (Go test functions, issue #16).

A test that talks to another host measures that host and the network between, not the code. JUnit tests are
screened inside their JVM by the launcher's Security Manager (docs/code-level.md); a Go test binary has no such
hook — ``net.Dial`` to an address literal passes no resolver and no transport that a driver could replace — so
the screening watches the process from outside: one execution of the test runs under ``strace``, tracing only
the calls that name a peer (``connect``, ``sendto``, ``sendmsg``; ``--seccomp-bpf`` so that no other system call
stops), and every IPv4/IPv6 peer that is not this machine's loopback or wildcard address is a request to the
network. A query to a name server (port 53) is one too, wherever the server listens (``127.0.0.53`` is a local
resolver that forwards the name): Go answers ``localhost`` from ``/etc/hosts`` without one. Unix sockets and
netlink (how Go lists interfaces) are not the network.

Unlike the JUnit guard, this one observes and does not refuse: the screening execution's first request does go
out (its result is not used, and the test is then not measured). ``strace`` is an optional tool: without it (or
where ``ptrace`` is not allowed) tests run unscreened, and ``prepare`` records that in the run's toolchain.
"""

from __future__ import annotations

import ipaddress
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

#: the system calls that name a peer address
TRACED = "connect,sendto,sendmsg"
_CALL = re.compile(r"^(?:\[pid\s+)?\d*\]?\s*(connect|sendto|sendmsg)\((.*)$")
_FAMILY = re.compile(r"sa_family=(AF_INET6?)\b")
_PORT = re.compile(r"sin6?_port=htons\((\d+)\)")
_V4 = re.compile(r'sin_addr=inet_addr\("([^"]+)"\)')
_V6 = re.compile(r'inet_pton\(AF_INET6,\s*"([^"]+)"')
#: strace's own complaint when it cannot trace here (no ptrace in a container, an old strace); a missing
#: seccomp filter is only slower, not a failure
_STRACE_FAILED = re.compile(r"^strace: (?!.*seccomp)", re.MULTILINE)


def strace_path() -> str | None:
    """The ``strace`` on PATH, or None (tests then run unscreened)."""
    return shutil.which("strace")


def strace_argv(strace: str, log: Path) -> list[str]:
    """The prefix that runs a command under ``strace``, writing the peer-naming calls of it and its threads and
    children to ``log``."""
    return [strace, "-f", "-qq", "--seccomp-bpf", "-e", "signal=none", "-e", f"trace={TRACED}", "-o", str(log), "--"]


def probe(strace: str) -> str | None:
    """Whether ``strace`` can trace here: None, or why not (its own complaint, e.g. ``ptrace`` refused in a
    container). Runs ``true`` under it, the way the screening runs a test."""
    with tempfile.TemporaryDirectory(prefix="benchwarden-probe-") as tmp:
        try:
            done = subprocess.run([*strace_argv(strace, Path(tmp) / "trace"), "true"], capture_output=True, text=True,
                                  timeout=30)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{strace} could not be run: {exc}"
    if done.returncode != 0:
        return strace_failed(done.stderr) or f"{strace} exited with status {done.returncode}"
    return strace_failed(done.stderr)


def strace_failed(stderr: str) -> str | None:
    """strace's own error line when it could not trace (pure), or None."""
    match = _STRACE_FAILED.search(stderr)
    if match is None:
        return None
    return stderr[match.start():].splitlines()[0]


def is_local(address: str) -> bool:
    """Loopback, the wildcard address, or IPv4 loopback mapped into IPv6 (pure)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_unspecified


def network_requests(trace: str) -> list[str]:
    """Requests to the network in an ``strace`` log of :func:`strace_argv` (pure), in order, each once:
    ``"connect 203.0.113.1:9"``, ``"send to [2001:db8::1]:443"``, ``"resolve (a query to 10.0.0.53:53)"``."""
    found: list[str] = []
    for line in trace.splitlines():
        call = _CALL.match(line.strip())
        if call is None:
            continue
        family = _FAMILY.search(call.group(2))
        port = _PORT.search(call.group(2))
        address = (_V6 if family and family.group(1) == "AF_INET6" else _V4).search(call.group(2))
        if family is None or port is None or address is None:
            continue  # no peer (a connected socket's send), or not IP: AF_UNIX, AF_NETLINK
        host, number = address.group(1), int(port.group(1))
        peer = f"[{host}]:{number}" if ":" in host else f"{host}:{number}"
        if number == 53:
            request = f"resolve (a query to {peer})"
        elif is_local(host):
            continue
        else:
            request = f"{'connect' if call.group(1) == 'connect' else 'send to'} {peer}"
        if request not in found:
            found.append(request)
    return found
