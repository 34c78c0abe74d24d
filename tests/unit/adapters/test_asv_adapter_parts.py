"""Pure parts of the asv adapter: protocol decoding, listing expansion, suite options."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchwarden.adapters.asv import (
    ProtocolError,
    benchmarks_from_listing,
    parse_worker_line,
    resolve_suite,
    suite_env,
)
from benchwarden.adapters.base import SuiteContext
from benchwarden.errors import ConfigError, ListingFailed, ToolchainMissing
from benchwarden.model import BenchmarkId


def test_iteration_line_becomes_an_iteration_result_in_ns_per_op():
    msg = parse_worker_line('{"v":1,"iteration":3,"ns_per_op":812.5,"ops":24000,"elapsed_ns":19500000}')
    assert msg.iteration is not None
    assert (msg.iteration.value_ns, msg.iteration.raw_value, msg.iteration.ops) == (812.5, 812.5, 24000.0)


def test_error_and_skip_lines():
    err = parse_worker_line('{"v":1,"error":"ValueError: x","traceback":"Traceback ..."}')
    assert (err.error, err.traceback, err.iteration) == ("ValueError: x", "Traceback ...", None)
    assert parse_worker_line('{"v":1,"skip":"not here"}').skip == "not here"


@pytest.mark.parametrize(("line", "complaint"), [
    ("Iteration 1: 812 ns/op", "not a JSON protocol line"),
    ("", "not a JSON protocol line"),
    ('{"iteration":1,"ns_per_op":1,"ops":1}', "no version field"),
    ("[1, 2]", "no version field"),
    ('{"v":2,"iteration":1,"ns_per_op":1,"ops":1}', "protocol version 2, expected 1"),
    ('{"v":1,"iteration":1,"ns_per_op":-5,"ops":1}', "positive ns_per_op"),
    ('{"v":1,"iteration":1,"ns_per_op":0,"ops":1}', "positive ns_per_op"),
    ('{"v":1,"iteration":1,"ns_per_op":"fast","ops":1}', "positive ns_per_op"),
    ('{"v":1,"iteration":1,"ns_per_op":true,"ops":1}', "positive ns_per_op"),
    ('{"v":1,"iteration":1,"ns_per_op":5,"ops":0}', "positive integer ops"),
    ('{"v":1,"iteration":1,"ns_per_op":5}', "positive integer ops"),
    ('{"v":1,"hello":"there"}', "unknown protocol message"),
    ('{"v":1,"iteration":1,"ns_per_op":5,"ops":', "not a JSON protocol line"),  # truncated
])
def test_malformed_lines_are_protocol_errors_naming_the_problem(line, complaint):
    with pytest.raises(ProtocolError, match=complaint):
        parse_worker_line(line)


LISTING = {
    "v": 1,
    "benchmarks": [
        {"name": "m.C.time_x", "module": "benchmarks.m", "qualname": "C.time_x", "param_names": ["n", "impl"],
         "param_values": [["10", "100"], ["'hash'", "'sorted'"]], "pretty_name": "X", "number": None,
         "timeout_s": 30.0},
        {"name": "m.time_y", "module": "benchmarks.m", "qualname": "time_y", "param_names": [],
         "param_values": [], "pretty_name": None, "number": 5, "timeout_s": None},
    ],
    "unsupported": [],
}


def test_listing_expands_to_one_benchmark_per_combination_in_declaration_order():
    benchmarks = benchmarks_from_listing("py", LISTING)
    assert [b.id for b in benchmarks] == [
        BenchmarkId("py", "m.C.time_x", (("n", "10"), ("impl", "'hash'"))),
        BenchmarkId("py", "m.C.time_x", (("n", "10"), ("impl", "'sorted'"))),
        BenchmarkId("py", "m.C.time_x", (("n", "100"), ("impl", "'hash'"))),
        BenchmarkId("py", "m.C.time_x", (("n", "100"), ("impl", "'sorted'"))),
        BenchmarkId("py", "m.time_y"),
    ]
    first = benchmarks[0]
    assert first.id.key == "m.C.time_x[n=10,impl='hash']"
    assert (first.mode, first.unit) == ("time", "ns/op")
    assert json.loads(first.spec["params"]) == ["10", "'hash'"]
    assert (first.spec["pretty_name"], float(first.spec["timeout_s"])) == ("X", 30.0)
    assert benchmarks[-1].spec["number"] == "5" and json.loads(benchmarks[-1].spec["params"]) == []


def test_a_listing_without_benchmarks_is_rejected():
    with pytest.raises(ListingFailed, match="malformed"):
        benchmarks_from_listing("py", {"v": 1})


def ctx_for(root: Path, **options) -> SuiteContext:
    return SuiteContext(name="py", kind="python", root=root, options=options)


def test_pythonpath_is_resolved_against_the_suite_root_and_prepended(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/already/there")
    env = suite_env(ctx_for(tmp_path, pythonpath=[".", "src"]), {"X": "1"})
    assert env["PYTHONPATH"].split(os.pathsep) == [str(tmp_path), str(tmp_path / "src"), "/already/there"]
    assert env["X"] == "1"


def test_bad_pythonpath_names_the_key(tmp_path):
    with pytest.raises(ConfigError, match=r"suites\.py\.pythonpath"):
        suite_env(ctx_for(tmp_path, pythonpath=[1]), {})


def test_benchmark_dir_comes_from_the_option_then_asv_conf_then_default(tmp_path):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "perf").mkdir()
    (tmp_path / "other").mkdir()
    assert resolve_suite(ctx_for(tmp_path)).benchmark_dir == tmp_path / "benchmarks"
    (tmp_path / "asv.conf.json").write_text('{\n  // asv allows comment lines\n  "benchmark_dir": "perf"\n}\n')
    assert resolve_suite(ctx_for(tmp_path)).benchmark_dir == tmp_path / "perf"
    assert resolve_suite(ctx_for(tmp_path, benchmarks="other")).benchmark_dir == tmp_path / "other"


def test_missing_benchmark_dir_and_broken_asv_conf_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match=r"suites\.py\.benchmarks.*does not exist"):
        resolve_suite(ctx_for(tmp_path))
    (tmp_path / "asv.conf.json").write_text("{ not json")
    with pytest.raises(ConfigError, match="asv.conf.json"):
        resolve_suite(ctx_for(tmp_path))


def test_missing_interpreter_is_a_toolchain_error_naming_the_suite(tmp_path):
    (tmp_path / "benchmarks").mkdir()
    with pytest.raises(ToolchainMissing, match="suite 'py': 'python-does-not-exist-9'"):
        resolve_suite(ctx_for(tmp_path, python="python-does-not-exist-9"))
    with pytest.raises(ToolchainMissing, match="not an executable file"):
        resolve_suite(ctx_for(tmp_path, python="./venv/bin/python"))


def test_a_virtualenv_interpreter_keeps_its_packages(tmp_path):
    """`python = ".venv/bin/python"` must run the virtualenv: its bin/python is a symbolic link to the base
    interpreter, which resolved found none of the virtualenv's packages (networkx's benchmarks lost numpy)."""
    import subprocess
    import sys

    venv = tmp_path / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    site = subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "only_in_the_venv.py").write_text("HERE = True\n")
    (tmp_path / "benchmarks").mkdir()
    python = resolve_suite(ctx_for(tmp_path, python=".venv/bin/python")).python
    assert python == str(venv / "bin" / "python")
    done = subprocess.run([python, "-c", "import only_in_the_venv; print(only_in_the_venv.HERE)"], capture_output=True,
                          text=True, timeout=60)
    assert done.stdout.strip() == "True", done.stderr
