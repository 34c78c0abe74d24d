"""Network screening by strace (adapters/screening.py): which traced calls are requests to the network.

``tests/data/screening/strace-peers.txt``: the first twelve lines were written by strace 6.1 on this project's
development VM (`strace -f -qq --seccomp-bpf -e signal=none -e trace=connect,sendto,sendmsg`, a Python client
connecting over IPv6 and IPv4 to loopback and TEST-NET addresses, sending UDP datagrams with sendto and sendmsg, and
resolving a name through nscd and the configured name server); the last six are composed in the same format for
what that run did not produce: netlink (how Go lists interfaces), a call split by another thread, a send on a
connected socket (no address), a local resolver and a repeated request.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchwarden.adapters import screening

TRACE = Path(__file__).resolve().parents[2] / "data" / "screening" / "strace-peers.txt"


def test_requests_to_other_hosts_in_order_each_once():
    assert screening.network_requests(TRACE.read_text()) == [
        "connect [2001:db8::1]:443",
        "send to 198.51.100.7:5000",
        "send to 198.51.100.8:5001",
        "resolve (a query to [2001:db8::2]:53)",
        "connect 203.0.113.1:9",
        "resolve (a query to 10.255.255.53:53)",
        "connect 192.0.2.10:443",
        "resolve (a query to 127.0.0.53:53)",  # a local resolver forwards the name: still a lookup
    ]


def test_loopback_and_non_ip_peers_are_not_the_network():
    lines = [line for line in TRACE.read_text().splitlines()
             if any(k in line for k in ('"::1"', "::ffff:127", '"127.0.0.1"', "AF_UNIX", "AF_NETLINK", "NULL, 0"))]
    assert len(lines) == 7 and screening.network_requests("\n".join(lines)) == []


@pytest.mark.parametrize(("address", "local"), [
    ("127.0.0.1", True), ("127.3.4.5", True), ("0.0.0.0", True), ("::1", True), ("::", True),
    ("::ffff:127.0.0.1", True), ("fe80::1%eth0", False), ("10.0.0.1", False), ("203.0.113.1", False),
    ("::ffff:203.0.113.1", False), ("2001:db8::1", False), ("not an address", False)])
def test_is_local(address, local):
    assert screening.is_local(address) is local


def test_strace_that_cannot_trace_is_told_from_a_missing_seccomp_filter():
    assert screening.strace_failed("strace: test_ptrace_get_syscall_info: PTRACE_TRACEME: Operation not permitted\n"
                                   "strace: ptrace(PTRACE_TRACEME, ...): Operation not permitted\n").startswith(
        "strace: test_ptrace_get_syscall_info")
    assert screening.strace_failed("strace: --seccomp-bpf is not enabled because it is not supported by the kernel\n"
                                   ) is None
    assert screening.strace_failed("=== RUN   TestX\nsome output\n") is None


def test_the_strace_prefix_traces_threads_and_children_and_only_peer_naming_calls(tmp_path):
    argv = screening.strace_argv("/usr/bin/strace", tmp_path / "log")
    assert argv[0] == "/usr/bin/strace" and argv[-1] == "--" and "-f" in argv
    assert argv[argv.index("-o") + 1] == str(tmp_path / "log")
    assert "trace=connect,sendto,sendmsg" in argv and "--seccomp-bpf" in argv


def test_probe_tells_a_working_strace_from_one_that_cannot_trace(tmp_path):
    """A strace refused ptrace (as in a container without it) says so on stderr and fails: the probe returns its
    complaint, and the run's toolchain then says the tests were not screened."""
    refused = tmp_path / "strace"
    refused.write_text("#!/bin/sh\necho 'strace: ptrace(PTRACE_TRACEME, ...): Operation not permitted' >&2\nexit 1\n")
    refused.chmod(0o755)
    assert screening.probe(str(refused)) == "strace: ptrace(PTRACE_TRACEME, ...): Operation not permitted"
    assert "could not be run" in screening.probe(str(tmp_path / "missing"))
    real = screening.strace_path()
    if real is None:
        pytest.skip("no strace on PATH")
    assert screening.probe(real) is None
