"""The schema version this code reads and writes, importable without SQLAlchemy (history: :mod:`.schema`)."""

SCHEMA_VERSION = 5
