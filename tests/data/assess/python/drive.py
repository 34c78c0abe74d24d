"""Driver of the Python injection tests: installs the hook from BENCHWARDEN_INJECT, then measures or calls.

``ratio N TARGET``: prints {"slowed_ns":..,"twin_ns":..}: per-call means of 151 interleaved rounds of 200
calls, the 5th percentile of the rounds (as timeit takes the minimum: rounds that other processes
disturbed are the slow ones, and they inflate a slowed call by (1+v) times the disturbance).
``calls``: makes a known number of calls for the trace test.
"""

import json
import sys
import time

sys.path.insert(0, sys.argv[1])  # directory of asv_worker.py
import asv_worker  # noqa: E402

asv_worker.install_injection_from_env()
import pyprobe  # noqa: E402  (imported after the hook: it is wrapped on import)


def median_ns(func, args, calls=200, rounds=1):
    start = time.perf_counter_ns()
    for _ in range(calls):
        func(*args)
    return (time.perf_counter_ns() - start) / calls


def ratio(n, target):
    slowed_f, twin_f = (pyprobe.work, pyprobe.work_twin) if target == "work" else (pyprobe.recurse, pyprobe.recurse_twin)
    args = (n,) if target == "work" else (5, n)
    slowed, twin = [], []
    for _ in range(151):
        slowed.append(median_ns(slowed_f, args))
        twin.append(median_ns(twin_f, args))
    slowed.sort()
    twin.sort()
    print(json.dumps({"slowed_ns": slowed[7], "twin_ns": twin[7]}))


def calls():
    for i in range(1234):
        pyprobe.add(i, 1)
    c = pyprobe.Counter.make()
    for _ in range(56):
        c.inc()
    pyprobe.Counter.build()
    pyprobe._private(1)
    c._hidden()
    for _ in range(7):
        pyprobe.dispatch(1)


if sys.argv[2] == "ratio":
    ratio(int(sys.argv[3]), sys.argv[4])
else:
    calls()
