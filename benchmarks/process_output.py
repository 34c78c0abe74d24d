"""What a benchmark's own output costs: measured time and stored failure message with a chatty child process.

A benchmark that prints must not be measured slower because benchwarden reads its output slowly: the
child blocks on a full pipe (64 KiB on Linux) until the reader drains it.  Three cases, each through the
real adapters and :class:`~benchwarden.adapters.process.ManagedProcess`:

1. ``command`` suite, one execution per iteration: ``python3 -c`` writing ``--megabytes`` MB to stdout
   (short lines), against the same command run directly by ``subprocess`` with output to ``/dev/null``
   (the reference: what the program costs when nobody reads its output slowly).  Interleaved A B A B.
2. Line-forwarding pipe (how JMH, Go and asv forks are read): a child printing the same amount, read line
   by line through ``ManagedProcess.readline``; wall time against the same reference.
3. A failing command printing one ``--line-megabytes`` MB line: the size of the failure message that would
   be stored (``str(ForkFailed) + output``) and how long the failing execution took to be reported.

References, measured in the same run: the child with its output to ``/dev/null``, and the child read through
a pipe by ``subprocess.run`` (CPython's C-level ``communicate`` loop, the best a Python parent does); plus the
same child printing nothing, to separate process start-up from output.  Target: ratio <= 1.2 against the
piped reference for cases 1 and 2, and a stored message of a few KB for case 3.  Usage: ``.venv/bin/python benchmarks/process_output.py [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchwarden.adapters.base import ForkPlan, SuiteContext
from benchwarden.adapters.command import CommandAdapter
from benchwarden.adapters.process import ManagedProcess
from benchwarden.errors import ForkFailed


def _printer(megabytes: float, line_bytes: int, status: int = 0) -> list[str]:
    code = (
        "import sys\n"
        f"line = b'x' * {line_bytes - 1} + b'\\n'\n"
        f"n = int({megabytes} * 1e6) // {line_bytes}\n"
        "w = sys.stdout.buffer.write\n"
        "for _ in range(n): w(line)\n"
        "sys.stdout.flush()\n"
        f"sys.exit({status})\n"
    )
    return [sys.executable, "-c", code]


def _direct_s(argv: list[str], read: bool = False) -> float:
    """Wall time of ``argv`` run by ``subprocess``: output to /dev/null, or read through a pipe by ``communicate``."""
    sink = subprocess.PIPE if read else subprocess.DEVNULL
    start = time.perf_counter()
    subprocess.run(argv, stdout=sink, stderr=sink, check=True)
    return time.perf_counter() - start


def _command_fork_s(adapter: CommandAdapter, ctx: SuiteContext, name: str) -> float:
    benchmark = next(b for b in adapter.list_benchmarks(ctx) if b.id.name == name)
    plan = ForkPlan(fork_index=0, iteration_time_s=1.0, max_iterations=1, timeout_s=600.0, iteration_timeout_s=600.0)
    fork = adapter.start_fork(ctx, benchmark, plan)
    try:
        (iteration,) = list(fork)
    finally:
        fork.stop()
    return iteration.value_ns / 1e9


def _forwarded_s(argv: list[str]) -> float:
    start = time.perf_counter()
    process = ManagedProcess(argv)
    lines = 0
    while process.readline(time.monotonic() + 600) is not None:
        lines += 1
    process.wait()
    process.terminate()
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--megabytes", type=float, default=2.0)
    ap.add_argument("--line-bytes", type=int, default=100)
    ap.add_argument("--line-megabytes", type=float, default=20.0)
    args = ap.parse_args()

    loud = _printer(args.megabytes, args.line_bytes)
    work = Path(tempfile.mkdtemp(prefix="bw-output-"))
    failing = _printer(args.line_megabytes, int(args.line_megabytes * 1e6), status=3)
    ctx = SuiteContext(name="out", kind="command", root=work,
                       options={"commands": {"loud": loud, "failing": failing}})
    adapter = CommandAdapter()
    adapter.prepare(ctx)

    quiet = _printer(0, args.line_bytes)
    ctx_quiet = SuiteContext(name="q", kind="command", root=work, options={"commands": {"quiet": quiet}})
    times: dict[str, list[float]] = {k: [] for k in ("null", "piped", "command", "forwarded", "quiet", "quiet_cmd")}
    for _ in range(args.rounds):
        times["null"].append(_direct_s(loud))
        times["piped"].append(_direct_s(loud, read=True))
        times["command"].append(_command_fork_s(adapter, ctx, "loud"))
        times["forwarded"].append(_forwarded_s(loud))
        times["quiet"].append(_direct_s(quiet))
        times["quiet_cmd"].append(_command_fork_s(adapter, ctx_quiet, "quiet"))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"child writing {args.megabytes:g} MB in {args.line_bytes}-byte lines, median of {args.rounds} rounds")
    print(f"  reference: subprocess, output to /dev/null      {med['null'] * 1e3:9.1f} ms")
    print(f"  reference: subprocess.run, pipe read (C loop)   {med['piped'] * 1e3:9.1f} ms")
    for label, key in (("command adapter (one execution)", "command"), ("line-forwarding ManagedProcess", "forwarded")):
        print(f"  {label:47s} {med[key] * 1e3:9.1f} ms   ratio {med[key] / med['piped']:5.2f} against the piped"
              f" reference, {med[key] / med['null']:5.2f} against /dev/null")
    print(f"the same child printing nothing: subprocess {med['quiet'] * 1e3:.1f} ms, command adapter "
          f"{med['quiet_cmd'] * 1e3:.1f} ms (ratio {med['quiet_cmd'] / med['quiet']:.2f})")

    benchmark = next(b for b in adapter.list_benchmarks(ctx) if b.id.name == "failing")
    plan = ForkPlan(fork_index=0, iteration_time_s=1.0, max_iterations=1, timeout_s=600.0, iteration_timeout_s=600.0)
    start = time.perf_counter()
    fork = adapter.start_fork(ctx, benchmark, plan)
    try:
        list(fork)
        message = "(no failure?)"
    except ForkFailed as exc:
        message = str(exc) + (f"\n--- last output ---\n{exc.output}" if exc.output else "")
    finally:
        fork.stop()
    took = time.perf_counter() - start
    print(f"failing command printing one {args.line_megabytes:g} MB line: reported after {took * 1e3:.0f} ms, "
          f"stored message {len(message):,} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
