"""The CLI end to end through a fake harness kind: exit statuses, --json purity, show/runs/export/import."""

from __future__ import annotations

import io
import json

import pytest

from benchwarden.adapters import REGISTRY
from benchwarden.cli import main

CONFIG = """
[defaults]
iteration_time = "10ms"
warmup = { min = 1, max = 2 }
iterations = 3
forks = { min = 1, max = 2 }

[suites.demo]
kind = "fake"
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setitem(REGISTRY, "fake", "tests.support.fake_adapter:DemoFakeAdapter")
    (tmp_path / "benchwarden.toml").write_text(CONFIG)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_run_then_show_runs_export_import(project):
    status, out, err = bw("run", "--quiet")
    assert status == 0, err
    assert "demo:parse[size=10]" in out and "demo:format" in out
    assert (project / ".benchwarden" / "results.db").exists()

    status, out, _ = bw("show", "--json")
    shown = json.loads(out)  # nothing but JSON on stdout
    assert shown["run"] == 1 and shown["toolchain"] == {"fake": "1.0"}
    by_key = {b["benchmark"]: b for b in shown["benchmarks"]}
    fmt = by_key["format"]
    # format: values 250/251 alternating by iteration (warmup 2, measure iterations 3..5 -> 251,250,251), 2 forks
    assert fmt["forks"] == 2 and fmt["measurement_iterations"] == 6 and fmt["warmup_iterations"] == 4
    assert fmt["mean"] == pytest.approx((251 + 250 + 251) / 3)
    assert fmt["ci"][0] <= fmt["mean"] <= fmt["ci"][1]

    status, out, _ = bw("runs", "--json")
    assert status == 0 and [r["id"] for r in json.loads(out)] == [1]

    status, out, _ = bw("export", "1")
    exported = json.loads(out)
    assert status == 0
    (project / "run.json").write_text(out)
    status, out, err = bw("import", "run.json", "--json")
    assert status == 0, err
    assert json.loads(out)["run"] == 2
    status, out, _ = bw("show", "2", "--json")
    again = json.loads(out)
    assert [b["mean"] for b in again["benchmarks"]] == [b["mean"] for b in shown["benchmarks"]]
    status, out2, _ = bw("export", "2")
    assert status == 0 and len(out2) > 100
    # the same measurements survive export -> import -> export (only ids and import metadata may differ)
    assert _values(exported) and _values(json.loads(out2)) == _values(exported)


def _values(doc) -> list:
    """Every number in the document except top-level ids, in order: a format-agnostic fingerprint."""
    found: list = []

    def walk(node, key=None):
        if isinstance(node, dict):
            for k in sorted(node):
                if k not in ("id", "run_id", "exported_at", "imported_from", "source"):
                    walk(node[k], k)
        elif isinstance(node, list):
            for item in node:
                walk(item, key)
        elif isinstance(node, (int, float)) and not isinstance(node, bool) and key in ("value_ns", "raw_value"):
            found.append(node)

    walk(doc)
    return found


def test_json_mode_prints_only_json_on_stdout(project):
    status, out, err = bw("run", "--json", "--filter", "parse")
    assert status == 0, err
    payload = json.loads(out)
    assert [b["benchmark"] for b in payload["benchmarks"]] == ["parse[size=10]"]
    assert payload["status"] == "complete"


def test_flags_override_bounds(project):
    status, out, err = bw("run", "--json", "--forks", "3", "--warmup", "0", "--iterations", "2")
    assert status == 0, err
    b = json.loads(out)["benchmarks"][0]
    assert (b["forks"], b["warmup_iterations"], b["measurement_iterations"]) == (3, 0, 6)


def test_crashing_benchmark_exits_2_names_it_and_keeps_others(project, monkeypatch):
    monkeypatch.setenv("FAKE_CRASH", "1")
    status, out, err = bw("run", "--json")
    assert status == 2
    payload = json.loads(out)
    statuses = {b["benchmark"]: b["status"] for b in payload["benchmarks"]}
    assert statuses == {"parse[size=10]": "ok", "format": "ok", "broken": "failed"}
    broken = next(b for b in payload["benchmarks"] if b["benchmark"] == "broken")
    assert "crashed" in broken["message"] and "boom" in broken["message"]


def test_missing_config_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, err = bw("run")
    assert status == 2 and out == ""
    assert "no benchwarden.toml found" in err and "benchwarden init" in err


def test_bad_filter_and_unknown_suite(project):
    status, _, err = bw("run", "--filter", "((")
    assert status == 2 and "invalid --filter regular expression" in err
    status, _, err = bw("run", "--suite", "nope")
    assert status == 2 and "no suite named 'nope'" in err


def test_no_matching_benchmark(project):
    status, _, err = bw("run", "--filter", "zzz")
    assert status == 2 and "no benchmark matches" in err


def test_show_without_runs(project):
    status, _, err = bw("show")
    assert status == 2 and err.startswith("error:")


@pytest.mark.parametrize("command", ["run", "show", "runs", "export", "import", "init", "audit"])
def test_every_command_has_help(command):
    status, out, _ = bw(command, "--help")
    assert status == 0 and "Usage:" in out and "--config" in out
