"""A damaged store and hostile imports: a StoreError/ImportFormatError naming what and where, never a traceback.

Found on main: a row edited by hand (unknown status, JSON that is not JSON, a text where a number belongs,
a timestamp of 1e300) made `show`, `runs` and `export` fail with ValueError, KeyError or OverflowError
deep inside reports; a 0-byte store file was silently used as a new, empty store; `import` of deeply
nested JSON was a RecursionError, and NaN or a huge timestamp imported fine and broke every later read.
"""

from __future__ import annotations

import io
import json
import math
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from store_samples import make_benchmark, make_fork, make_meta, make_run, write_incrementally

from benchwarden.cli import main
from benchwarden.errors import ImportFormatError, StoreError
from benchwarden.model import IterationResult
from benchwarden.store import export_run_json, import_run_json, open_store


@pytest.fixture
def stored(tmp_path) -> Path:
    path = tmp_path / "results.db"
    with open_store(path) as store:
        write_incrementally(store, make_run(n_benchmarks=2, n_forks=2, warmup=2, measurement=3))
    return path


def _damage(path: Path, sql: str) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute(sql)


# (SQL that damages one value, the table and column the error must name)
DAMAGE = [
    ("UPDATE runs SET status = 'bogus'", "runs", "status"),
    ("UPDATE runs SET machine = '{not json'", "runs", "machine"),
    ("UPDATE runs SET config = '\"a string\"'", "runs", "config"),
    ("UPDATE runs SET toolchain = '{\"java\": [1, 2]}'", "runs", "toolchain"),
    ("UPDATE runs SET created_at = 'yesterday'", "runs", "created_at"),
    ("UPDATE runs SET created_at = 1e300", "runs", "created_at"),
    ("UPDATE runs SET tool_version = x'ff'", "runs", "tool_version"),  # a blob, not a text
    ("UPDATE benchmarks SET params = '[1'", "benchmarks", "params"),
    ("UPDATE benchmarks SET params = '[[\"size\"]]'", "benchmarks", "params"),
    ("UPDATE benchmarks SET direction = 'sideways'", "benchmarks", "direction"),
    ("UPDATE benchmarks SET metric = 'cycles'", "benchmarks", "metric"),  # schema version 2
    ("UPDATE benchmarks SET spec = '[1, 2]'", "benchmarks", "spec"),
    ("UPDATE benchmarks SET fork_decisions = '[{\"stop\": 1}]'", "benchmarks", "fork_decisions"),
    ("UPDATE forks SET warmup_decisions = '[{\"stop\": true}]'", "forks", "warmup_decisions"),
    ("UPDATE forks SET status = 'exploded'", "forks", "status"),
    ("UPDATE forks SET started_at = -1", "forks", "started_at"),
    ("UPDATE forks SET fork_index = 'one' WHERE fork_index = 1", "forks", "fork_index"),
    ("UPDATE iterations SET value_ns = 'abc' WHERE idx = 0", "iterations", "*"),
    ("UPDATE iterations SET value_ns = -5", "iterations", "*"),
    ("UPDATE iterations SET raw_value = 9e999", "iterations", "*"),  # SQLite reads 9e999 as Inf
    ("UPDATE iterations SET phase = 'cooldown' WHERE idx = 1 AND phase = 'warmup'", "iterations", "*"),
    ("UPDATE iterations SET secondary = '{x'", "iterations", "*"),
    ("UPDATE iterations SET secondary = '{\"B/op\": \"many\"}'", "iterations", "*"),
]


@pytest.mark.parametrize("sql, table, column", DAMAGE, ids=[d[0] for d in DAMAGE])
def test_a_damaged_value_is_a_store_error_naming_table_row_and_column(stored, sql, table, column):
    _damage(stored, sql)
    with open_store(stored) as store:
        with pytest.raises(StoreError) as info:
            store.load_run(1)
    message = str(info.value)
    assert "holds a value benchwarden did not write" in message and f"table {table}, row " in message, message
    assert f"column {column}:" in message, message


@pytest.mark.parametrize("sql", ["UPDATE runs SET status = 'bogus'", "UPDATE runs SET created_at = 1e300",
                                 "UPDATE runs SET dirty = 'perhaps'"])
def test_a_damaged_run_row_also_fails_the_listing_cleanly(stored, sql):
    _damage(stored, sql)
    with open_store(stored) as store, pytest.raises(StoreError, match="table runs, row 1"):
        store.list_runs()


def test_unfinished_benchmarks_with_damaged_params(stored):
    _damage(stored, "UPDATE benchmarks SET status = NULL, params = '{}'")
    with open_store(stored) as store, pytest.raises(StoreError, match="column params"):
        store.unfinished_benchmarks(1)


def bw(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue() + err.getvalue()


@pytest.mark.parametrize("command", [["show"], ["runs"], ["export", "1"], ["show", "--json"]])
@pytest.mark.parametrize("sql, table", [(d[0], d[1]) for d in DAMAGE[:8]] + [("UPDATE iterations SET value_ns = -5",
                                                                            "iterations")])
def test_cli_on_a_damaged_store_is_exit_2_without_traceback(stored, command, sql, table):
    _damage(stored, sql)
    status, output = bw(*command, "--store", str(stored))
    assert "Traceback" not in output and "internal error" not in output, output
    if command == ["runs"]:  # the listing reads a few columns of the runs table: it fails only if one is damaged
        assert status in (0, 2) and (status == 0 or f"table {table}" in output), output
    else:
        assert status == 2 and f"table {table}" in output, output


def test_an_empty_store_file_is_refused_not_treated_as_new(tmp_path):
    path = tmp_path / "results.db"
    path.write_bytes(b"")
    with pytest.raises(StoreError, match=r"empty \(0 bytes\)"):
        open_store(path)
    assert path.stat().st_size == 0  # nothing was written into it
    status, output = bw("runs", "--store", str(path))
    assert status == 2 and "empty (0 bytes)" in output


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    path = tmp_path / "results.db"
    path.write_text("these are my notes\n" * 100)
    with pytest.raises(StoreError, match="not a database"):
        open_store(path)


@pytest.mark.parametrize("change", [
    lambda f: replace(f, measurement=(IterationResult(math.inf, 1.0),)),
    lambda f: replace(f, measurement=(IterationResult(math.nan, 1.0),)),
    lambda f: replace(f, measurement=(IterationResult(0.0, 1.0),)),
    lambda f: replace(f, warmup=(IterationResult(5.0, math.nan),)),
    lambda f: replace(f, measurement=(IterationResult(5.0, 5.0, secondary={"B/op": math.inf}),)),
    lambda f: replace(f, started_at=1e300),
], ids=["inf", "nan", "zero", "raw-nan", "secondary-inf", "timestamp"])
def test_values_that_could_not_be_read_back_are_not_written(tmp_path, change):
    with open_store(tmp_path / "r.db") as store:
        run_id = store.create_run(make_meta())
        store.add_benchmark(run_id, make_benchmark(1))
        with pytest.raises(StoreError, match="not stored"):
            store.save_fork(run_id, make_benchmark(1).id, change(make_fork(1, 1, 2, 3)))
        assert store.load_run(run_id).results[0].forks == ()  # nothing half-written
        data = make_run(n_benchmarks=1, n_forks=1)
        bad = replace(data, results=(replace(data.results[0], forks=(change(data.results[0].forks[0]),)),))
        with pytest.raises(StoreError, match="not stored"):
            store.import_run(bad)
        assert [r.id for r in store.list_runs()] == [run_id]


def test_a_run_created_in_the_year_10_to_the_300_is_not_stored(tmp_path):
    with open_store(tmp_path / "r.db") as store, pytest.raises(StoreError, match="created_at"):
        store.create_run(replace(make_meta(), created_at=1e300))


# -- import -----------------------------------------------------------------------------------------

def _export() -> dict:
    return json.loads(export_run_json(make_run(n_benchmarks=1, n_forks=1, warmup=1, measurement=2)))


def _with(path: str, value) -> bytes:
    doc = _export()
    node = doc
    keys = path.split(".")
    for key in keys[:-1]:
        node = node[int(key)] if key.isdigit() else node[key]
    node[keys[-1]] = value
    return json.dumps(doc).encode()


HOSTILE_IMPORTS = {
    "deep arrays": b"[" * 100_000 + b"]" * 100_000,
    "deep config": _with("run.config", json.loads("[" * 200 + "]" * 200)),
    "config just too deep": _with("run.config", json.loads("[" * 62 + "]" * 62)),
    "NaN timestamp": _with("run.created_at", 1.0).replace(b'"created_at": 1.0', b'"created_at": NaN'),
    "Infinity value": _with("benchmarks.0.forks.0.measurement.0.value_ns", 1.0).replace(
        b'"value_ns": 1.0', b'"value_ns": Infinity'),
    "timestamp 1e300": _with("run.created_at", 1e300),
    "negative timestamp": _with("benchmarks.0.forks.0.started_at", -5.0),
    "huge fork index": _with("benchmarks.0.forks.0.index", 2**70),
    "5000-digit integer": b'{"format": "benchwarden-run", "schema_version": ' + b"9" * 5000 + b"}",
    "5000-digit string version": b'{"format": "benchwarden-run", "schema_version": "' + b"9" * 5000 + b'"}',
    "not UTF-8": b'{"format": "\xff"}',
}


@pytest.mark.parametrize("name", HOSTILE_IMPORTS)
def test_hostile_import_documents_are_format_errors(name):
    with pytest.raises(ImportFormatError) as info:
        import_run_json(HOSTILE_IMPORTS[name], "x.json")
    assert str(info.value).startswith("x.json") and len(str(info.value)) < 400


def test_an_export_nested_to_the_limit_still_imports():
    doc = import_run_json(_with("run.config", {"deep": json.loads("[" * 50 + "]" * 50)}), "x.json")
    assert doc.meta.config["deep"] == json.loads("[" * 50 + "]" * 50)


@pytest.mark.parametrize("name", ["deep arrays", "NaN timestamp", "timestamp 1e300", "5000-digit integer"])
def test_cli_import_of_hostile_documents_is_exit_2(tmp_path, name):
    path = tmp_path / "run.json"
    path.write_bytes(HOSTILE_IMPORTS[name])
    status, output = bw("import", str(path), "--format", "benchwarden", "--store", str(tmp_path / "r.db"))
    assert status == 2 and "Traceback" not in output and "internal error" not in output, output
    assert str(path) in output


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '[{"benchmark": NaN}]', "[" + "1" * 5000 + "]"])
def test_jmh_import_of_hostile_json_is_exit_2(tmp_path, text):
    path = tmp_path / "jmh.json"
    path.write_text(text)
    status, output = bw("import", str(path), "--format", "jmh", "--store", str(tmp_path / "r.db"))
    assert status == 2 and "Traceback" not in output and "internal error" not in output, output
