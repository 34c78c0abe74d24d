"""JSON export/import: identity through a store, the kept fixture, the documented example, and clear errors."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from store_run_strategies import runs
from store_samples import make_run, write_incrementally

from benchwarden.errors import ImportFormatError
from benchwarden.model import BenchmarkStatus, Direction, ForkStatus, IterationResult, RunData, RunStatus
from benchwarden.store import export_run_json, import_run_json, open_store

ROOT = Path(__file__).parents[3]
DATA = ROOT / "tests" / "data" / "store"


@pytest.mark.parametrize("status", [RunStatus.COMPLETE, RunStatus.INTERRUPTED])
def test_export_import_export_is_byte_identical_through_a_store(store_url, status):
    with open_store(store_url) as store:
        first = export_run_json(store.load_run(write_incrementally(store, make_run(status=status))))
        again_id = store.import_run(import_run_json(first))
        second = export_run_json(store.load_run(again_id))
    assert second == first
    assert json.loads(first)["run"]["status"] == status.value


def test_export_of_a_model_run_imports_to_an_equal_run():
    original = make_run(status=RunStatus.INTERRUPTED)
    back = import_run_json(export_run_json(original), source="mem")
    assert back == original
    assert [dict(r.benchmark.spec) for r in back.results] == [dict(r.benchmark.spec) for r in original.results]


def test_id_is_not_exported():
    data = dataclasses.replace(make_run(n_benchmarks=1, n_forks=1), id=17)
    assert import_run_json(export_run_json(data)).id is None


@pytest.mark.parametrize("version", [1, 2])
def test_fixture_written_by_an_older_version_still_imports(version):
    """run-vN.json was written by format version N; every later version must keep reading it."""
    data = import_run_json((DATA / f"run-v{version}.json").read_bytes(), source=f"run-v{version}.json")
    assert data.status is RunStatus.INTERRUPTED
    assert data.meta.commit == "0123456789abcdef0123456789abcdef01234567" and data.meta.dirty is False
    keys = [r.benchmark.id.key for r in data.results]
    assert keys == ["BenchmarkTokenize1[size=100,impl=hash]", "org.wordstat.Bench.count2[size=12]",
                    "BenchmarkTokenize3[size=300,impl=hash]"]
    ok, failed, unfinished = data.results
    assert ok.benchmark.direction is Direction.LOWER_IS_BETTER and ok.benchmark.spec["package"] == "./wordstat"
    assert failed.benchmark.direction is Direction.HIGHER_IS_BETTER and failed.benchmark.unit == "ops/s"
    assert [f.status for f in failed.forks] == [ForkStatus.COMPLETE, ForkStatus.FAILED]
    assert "üñíçødé" in failed.forks[1].message
    assert failed.status is BenchmarkStatus.FAILED
    assert len(unfinished.forks) == 1 and unfinished.fork_decisions == ()
    first = ok.forks[0].measurement[0]
    assert first.secondary == {"B/op": first.secondary["B/op"], "allocs/op": 1.0}
    assert all(len(f.warmup) == 2 for r in data.results for f in r.forks)


def test_documented_example_imports():
    text = (ROOT / "docs" / "store.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```json\n(.*?)```", text, flags=re.S)
    assert blocks, "docs/store.md has no ```json example"
    data = import_run_json(blocks[0], source="docs/store.md")
    assert data.results and data.results[0].forks[0].measurement


def _document(**changes) -> dict:
    doc = json.loads(export_run_json(make_run(n_benchmarks=2, n_forks=2, warmup=1, measurement=3)))
    for path, value in changes.items():
        target = doc
        parts = path.split("__")
        for part in parts[:-1]:
            target = target[int(part)] if part.isdigit() else target[part]
        last = parts[-1]
        if value is _DELETE:
            del target[int(last) if last.isdigit() else last]
        else:
            target[int(last) if last.isdigit() else last] = value
    return doc


_DELETE = object()


@pytest.mark.parametrize(("changes", "message"), [
    ({"benchmarks__1__forks__0__measurement__2__value_ns": -3.0},
     r"benchmarks\[1\]\.forks\[0\]\.measurement\[2\]\.value_ns: Input should be greater than 0"),
    ({"benchmarks__0__forks__1__measurement__0__value_ns": "12"},
     r"benchmarks\[0\]\.forks\[1\]\.measurement\[0\]\.value_ns: Input should be a valid number"),
    ({"benchmarks__0__status": "great"}, r"benchmarks\[0\]\.status: Input should be 'ok', 'failed' or 'skipped'"),
    ({"benchmarks__0__forks__0__index": 0}, r"benchmarks\[0\]\.forks\[0\]\.index: Input should be greater than or equal to 1"),
    ({"run__surprise": 1}, r"run\.surprise: Extra inputs are not permitted"),
    ({"run__tool_version": _DELETE}, r"run\.tool_version: Field required"),
    ({"benchmarks__0__params__0": ["size"]}, r"benchmarks\[0\]\.params\[0\]\[1\]: Field required"),
    ({"benchmarks__0__key": "Other[size=1]"}, r"benchmarks\[0\]\.key: 'Other\[size=1\]' does not match"),
    ({"benchmarks__1__forks__1__index": 1}, r"benchmarks\[1\]\.forks: duplicate fork index in \[1, 1\]"),
    ({"format": "jmh"}, r"not a benchwarden run export: expected \"format\": \"benchwarden-run\", found 'jmh'"),
    ({"schema_version": 99}, r"schema_version 99 was written by a newer benchwarden; this one reads versions up to 3"),
    ({"schema_version": "1"}, r"schema_version: expected a positive integer, found '1'"),
])
def test_invalid_documents_are_rejected_naming_the_place(changes, message):
    blob = json.dumps(_document(**changes)).encode()
    with pytest.raises(ImportFormatError, match=message) as info:
        import_run_json(blob, source="results/run.json")
    assert str(info.value).startswith("results/run.json: ")


def test_invalid_json_reports_the_line():
    good = json.dumps(_document(), indent=2).splitlines()
    broken = "\n".join(good[:10] + ['  "oops": ,'] + good[10:])
    with pytest.raises(ImportFormatError, match=r"^r\.json:11: not valid JSON") as info:
        import_run_json(broken, source="r.json")
    assert info.value.line == 11
    with pytest.raises(ImportFormatError, match="not a benchwarden run export"):
        import_run_json("[1, 2]", source="r.json")
    with pytest.raises(ImportFormatError, match="not UTF-8"):
        import_run_json(b"\xff\xfe{", source="r.json")


def test_many_problems_are_summarised():
    doc = _document()
    for fork in doc["benchmarks"][0]["forks"]:
        for it in fork["measurement"]:
            it["value_ns"] = 0
    with pytest.raises(ImportFormatError, match=r"\(and 1 more\)$"):
        import_run_json(json.dumps(doc))


def test_non_finite_values_cannot_be_exported():
    data = make_run(n_benchmarks=1, n_forks=1)
    bad_fork = dataclasses.replace(data.results[0].forks[0], measurement=(IterationResult(float("nan"), 1.0),))
    bad = dataclasses.replace(data, results=(dataclasses.replace(data.results[0], forks=(bad_fork,)),))
    with pytest.raises(ValueError, match=r"wordstat:BenchmarkTokenize1\[size=100,impl=hash\] fork 1"):
        export_run_json(bad)


# -- property: any representable run survives export -> import ----------------------------------------

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs())
def test_any_run_survives_export_and_import(data: RunData):
    blob = export_run_json(data)
    back = import_run_json(blob)
    assert back == data
    assert [dict(r.benchmark.spec) for r in back.results] == [dict(r.benchmark.spec) for r in data.results]
    assert export_run_json(back) == blob


def test_version_3_keeps_where_each_fork_ran_and_lost_forks():
    """Format 3 (schema 5): a fork on a cluster worker names it; a fork whose worker died is ``lost``."""
    data = import_run_json((DATA / "run-v3.json").read_bytes(), source="run-v3.json")
    on_cluster = data.results[0]
    assert [f.status for f in on_cluster.forks] == [ForkStatus.COMPLETE, ForkStatus.LOST, ForkStatus.COMPLETE]
    assert [f.index for f in on_cluster.forks] == [1, 2, 3]
    assert [f.machine["name"] for f in on_cluster.forks] == ["bench-2", "bench-1", "bench-1"]
    assert on_cluster.forks[1].message.startswith("lost:")
    assert all(f.machine == {} for r in data.results[1:] for f in r.forks)  # local forks: the run's machine
    assert export_run_json(data) == export_run_json(import_run_json(export_run_json(data)))
