"""The site, live: built from the store into a folder the server serves, and rebuilt when the store changes.

The pages are exactly ``site build``'s (site/build.py), with one addition on each benchmark page whose
benchmark has parameters: the *Measure now* form (serve/domain.py's axes) and the script that talks to the
server.  The store changes when a measurement stores a run, or when anything else writes to it (a ``run`` in
another terminal): before serving a page, the server compares the newest run's id, status and fork count with
those of the last build and rebuilds when they differ (at most once a second).  A build reads the whole
store (site/collect.py), so this suits the stores ``site build`` suits.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

from benchwarden.model import RunData
from benchwarden.site.build import build_site
from benchwarden.site.collect import SiteData, collect

#: at most one check of the store per this many seconds
CHECK_INTERVAL_S = 1.0


class LiveSite:
    """The served folder ``out``, rebuilt from ``store_url`` on change; ``forms``: family key -> its axes (JSON)."""

    def __init__(self, store_url: str, repo: Path, methods: Mapping[str, Sequence[str]], out: Path,
                 forms: Mapping[str, Mapping[str, Any]]):
        from benchwarden.store import open_store

        self.store_url = store_url
        self.repo = repo
        self.methods = dict(methods)
        self.out = out
        self.forms = dict(forms)
        self.data: SiteData | None = None
        self.builds = 0
        self._lock = threading.Lock()
        self._store = open_store(store_url)
        self._stamp: tuple | None = None
        self._checked = 0.0

    def _current_stamp(self) -> tuple:
        newest = self._store.list_runs(limit=1)
        return tuple((r.id, r.status.value, r.n_forks) for r in newest)

    def rebuild(self) -> None:
        """Build the whole site from the store now."""
        with self._lock:
            stamp = self._current_stamp()
            self.data = collect(self._store, self.repo, [], self.methods)
            build_site(self.data, self.out, live=self.forms)
            self._stamp = stamp
            self.builds += 1

    def refresh_if_changed(self) -> bool:
        """Rebuild when the store changed since the last build (checked at most once a second); True if rebuilt."""
        with self._lock:
            now = time.monotonic()
            if self._stamp is not None and now - self._checked < CHECK_INTERVAL_S:
                return False
            self._checked = now
            if self._stamp is not None and self._current_stamp() == self._stamp:
                return False
        self.rebuild()
        return True

    def runs(self) -> list[RunData]:
        """The runs of the last build, newest first (what the measurement cache answers from)."""
        data = self.data
        return list(data.runs) if data is not None else []

    def close(self) -> None:
        self._store.close()
