"""A stand-in for a Go test binary's benchmark mode, burning known CPU time (tests/unit/adapters/test_gotest_cpu.py).

Understands ``-test.benchtime Nx`` and ``-test.count C`` as Go does: each repetition calls the benchmark
function with b.N = 1, then with b.N = N, and each call runs its set-up (``FAKE_SETUP_MS`` of CPU) before
its operations (``FAKE_PER_OP_US`` of CPU each).  ``FAKE_WORKER=1`` runs the work on a second thread that
lives until exit (as a Go benchmark's goroutine runs on some thread of the runtime's); ``FAKE_TOGETHER=1``
prints the last result line and PASS in one write and exits at once (a reader that wakes late finds the
threads gone).  A benchtime that is a duration prints one result (the calibration).
"""

import os
import queue
import sys
import threading
import time

args = sys.argv[1:]
benchtime = args[args.index("-test.benchtime") + 1]
count = int(args[args.index("-test.count") + 1])
setup_s = float(os.environ.get("FAKE_SETUP_MS", "0")) / 1e3
per_op_s = float(os.environ.get("FAKE_PER_OP_US", "20")) / 1e6


def burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def call(ops: int) -> None:
    burn(setup_s)
    burn(ops * per_op_s)


def repetition(n: int) -> None:
    call(1)
    if n > 1:
        call(n)


jobs: "queue.Queue[int | None]" = queue.Queue()
done: "queue.Queue[None]" = queue.Queue()


def worker() -> None:
    while (n := jobs.get()) is not None:
        repetition(n)
        done.put(None)


def run(n: int) -> None:
    if os.environ.get("FAKE_WORKER") == "1":
        jobs.put(n)
        done.get()
    else:
        repetition(n)


if os.environ.get("FAKE_WORKER") == "1":
    threading.Thread(target=worker, daemon=True).start()
out = sys.stdout.buffer
out.write(b"goos: linux\ngoarch: amd64\npkg: fake\ncpu: fake\n")
out.flush()
if not benchtime.endswith("x"):
    run(100)
    out.write(f"BenchmarkFake \t     100\t{per_op_s * 1e9:.0f} ns/op\n".encode())
    out.write(b"PASS\n")
    out.flush()
    sys.exit(0)
n = int(benchtime[:-1])
for k in range(count):
    started = time.perf_counter()
    run(n)
    line = f"BenchmarkFake \t{n:8d}\t{(time.perf_counter() - started) * 1e9 / n:.0f} ns/op\t16 B/op\t1 allocs/op\n"
    if k == count - 1 and os.environ.get("FAKE_TOGETHER") == "1":
        out.write(line.encode() + b"PASS\n")
        out.flush()
        os._exit(0)
    out.write(line.encode())
    out.flush()
out.write(b"PASS\n")
out.flush()
