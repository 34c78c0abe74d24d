"""Result store: every run, benchmark, fork and iteration in SQLite (default) or PostgreSQL, plus JSON export/import.

The names below are loaded on first use (PEP 562), so importing :mod:`benchwarden.store.listing` does not
import SQLAlchemy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchwarden.store.jsonio import export_run_json, import_run_json
    from benchwarden.store.listing import RunSummary
    from benchwarden.store.store import Store, open_store

_WHERE = {"RunSummary": "listing", "Store": "store", "open_store": "store", "export_run_json": "jsonio",
          "import_run_json": "jsonio"}

__all__ = ["RunSummary", "Store", "export_run_json", "import_run_json", "open_store"]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'benchwarden.store' has no attribute {name!r}")
    return getattr(importlib.import_module(f"benchwarden.store.{module}"), name)
