"""Write the store fixtures under tests/data/store/ (run by hand when a new schema version is introduced).

Fixtures written by a released version are never regenerated: they are what
that version left on users' disks, and every later version must keep reading
them.  A new schema version adds new files (``run-v2.json``, ``store-v2.sql``)
next to the old ones.  Usage: ``python tests/unit/store/make_fixtures.py``.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from store_samples import make_run, write_incrementally  # noqa: E402

from benchwarden.model import RunStatus  # noqa: E402
from benchwarden.store import export_run_json, open_store  # noqa: E402
from benchwarden.store.jsonio import JSON_SCHEMA_VERSION  # noqa: E402
from benchwarden.store.schema import SCHEMA_VERSION  # noqa: E402

DATA = HERE.parent.parent / "data" / "store"


def fixture_run():
    """Small but complete: parameters, secondary metrics, a failed fork, an unfinished benchmark, forks on
    cluster workers and a lost one (schema 5)."""
    return make_run(n_benchmarks=3, n_forks=2, warmup=2, measurement=3, status=RunStatus.INTERRUPTED, cluster=True)


def main() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    blob = export_run_json(fixture_run())
    pretty = json.dumps(json.loads(blob), indent=2, ensure_ascii=False) + "\n"
    (DATA / f"run-v{JSON_SCHEMA_VERSION}.json").write_text(pretty, encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "results.db"
        with open_store(db) as store:
            write_incrementally(store, fixture_run())
        with sqlite3.connect(db) as conn:
            dump = "\n".join(conn.iterdump()) + "\n"
        conn.close()
    (DATA / f"store-v{SCHEMA_VERSION}.sql").write_text(dump, encoding="utf-8")


if __name__ == "__main__":
    main()
