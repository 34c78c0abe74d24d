"""Fixtures shared by every test folder."""

from tests.support.postgres import pg_cluster  # noqa: F401 - a session fixture, found by name
