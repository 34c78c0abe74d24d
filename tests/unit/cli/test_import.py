"""`benchwarden import` on real JMH and go test result files: sniffed format, stored, shown; malformed -> clear error."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from benchwarden.cli import main

DATA = Path(__file__).resolve().parents[2] / "data"


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


@pytest.mark.parametrize("path, suite, expect_key", [
    (DATA / "jmh" / "result-1.37.json", "jmh", "wordstat.bench.TokenizeBench.tokenize[size=100]"),
    (DATA / "go" / "output" / "wordstat-benchmem.txt", "go", "BenchmarkTokenize[size=100]"),
])
def test_import_then_show(tmp_path, path, suite, expect_key):
    store = str(tmp_path / "r.db")
    status, out, err = bw("import", str(path), "--store", store, "--as-suite", suite, "--json")
    assert status == 0, err
    imported = json.loads(out)
    assert imported["run"] == 1 and imported["benchmarks"] > 0 and imported["forks"] > 0
    status, out, err = bw("show", "--store", store, "--json")
    assert status == 0, err
    keys = {b["benchmark"]: b for b in json.loads(out)["benchmarks"]}
    assert expect_key in keys, sorted(keys)
    b = keys[expect_key]
    assert b["mean"] > 0 and b["forks"] >= 1 and b["measurement_iterations"] >= 1


def test_malformed_file_is_a_clear_error_naming_the_file(tmp_path):
    bad = DATA / "go" / "output" / "garbage.txt"
    status, out, err = bw("import", str(bad), "--store", str(tmp_path / "r.db"), "--format", "go")
    assert status == 2 and out == ""
    assert "garbage.txt" in err


def test_unknown_format_asks_for_format(tmp_path):
    f = tmp_path / "x.txt"
    f.write_text("hello\n")
    status, _, err = bw("import", str(f), "--store", str(tmp_path / "r.db"))
    assert status == 2 and "--format" in err
