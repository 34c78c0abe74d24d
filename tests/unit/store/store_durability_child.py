"""Child process for the durability tests: writes forks into a store until it is killed.

Usage: ``python store_durability_child.py STORE_PATH [HOLD_AT]``

Prints ``run ID`` once, then ``saved K`` after ``save_fork`` for fork K has
returned (i.e. after its commit).  With ``HOLD_AT``, it prints
``committing K`` just before fork K's COMMIT reaches the database and then
sleeps, so the parent can kill it while that transaction is open.  On
Ctrl-C (SIGINT) it marks the run INTERRUPTED, prints ``interrupted`` and
exits 130, as the runner does.
"""

from __future__ import annotations

import signal
import sys
import time

import sqlalchemy as sa
from store_samples import make_benchmark, make_fork, make_meta

from benchwarden.model import RunStatus
from benchwarden.store import open_store

WARMUP, MEASUREMENT = 10, 200


def main(store_path: str, hold_at: int | None) -> int:
    current = {"fork": 0}

    def on_commit(_conn: sa.Connection) -> None:
        if current["fork"] == hold_at:
            print(f"committing {hold_at}", flush=True)
            time.sleep(600)  # until the parent kills or interrupts us, however long a loaded machine takes

    # Python turns SIGINT into KeyboardInterrupt only if SIGINT was not ignored when it started, and a shell
    # starts background jobs (`cmd &`) with SIGINT ignored: a test run launched that way made this child
    # sleep through the parent's Ctrl-C.  The runner's Ctrl-C path is what is tested, so install it.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sa.event.listen(sa.engine.Engine, "commit", on_commit)
    store = open_store(store_path)
    bench = make_benchmark(1)
    run_id = store.create_run(make_meta())
    store.add_benchmark(run_id, bench)
    print(f"run {run_id}", flush=True)
    try:
        for index in range(1, 100_000):
            current["fork"] = index
            store.save_fork(run_id, bench.id, make_fork(1, index, WARMUP, MEASUREMENT))
            current["fork"] = 0
            print(f"saved {index}", flush=True)
    except KeyboardInterrupt:
        current["fork"] = 0
        store.finish_run(run_id, RunStatus.INTERRUPTED)
        print("interrupted", flush=True)
        return 130
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else None))
