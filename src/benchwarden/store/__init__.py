"""Result store: every run, benchmark, fork and iteration in SQLite (default) or PostgreSQL, plus JSON export/import."""

from benchwarden.store.jsonio import export_run_json, import_run_json
from benchwarden.store.store import RunSummary, Store, open_store

__all__ = ["RunSummary", "Store", "export_run_json", "import_run_json", "open_store"]
