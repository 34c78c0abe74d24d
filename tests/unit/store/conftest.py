"""Store test fixtures: a fresh SQLite file per test, or a fresh database in the throwaway PostgreSQL cluster
(``tests/support/postgres.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.postgres import PgCluster


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A location for a fresh, empty store: a SQLite file path, or a new database in the PostgreSQL cluster."""
    if request.param == "sqlite":
        return str(tmp_path / "store" / "results.db")
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    return cluster.url(cluster.create_database())
