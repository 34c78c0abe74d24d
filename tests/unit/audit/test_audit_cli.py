"""The ``audit`` click command: output modes, --apply, errors."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchwarden.cli.audit import audit_command
from benchwarden.errors import BenchwardenError, ConfigError

DATA = Path(__file__).resolve().parents[2] / "data" / "audit"


def run(args):
    return CliRunner().invoke(audit_command, [str(a) for a in args])


def test_json_only_json_on_stdout():
    r = run([DATA / "annotations", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["suite"]["benchmarks"] == 25


def test_terminal_output_has_summary_benchmarks_findings_and_warnings():
    r = run([DATA / "annotations"])
    assert r.exit_code == 0, r.output
    for title in ("JMH configuration audit", "Benchmarks (package fixture)", "Findings", "Warnings"):
        assert title in r.stdout
    assert "zero-forks" in r.stdout and "ExternalSettings.FORKS" in r.stdout


def test_markdown_output():
    r = run([DATA / "annotations", "--markdown"])
    assert r.exit_code == 0 and r.stdout.startswith("# benchwarden audit")


def test_options_change_the_analysis():
    legacy = json.loads(run([DATA / "annotations", "--json", "--jmh-version", "1.19"]).stdout)
    assert legacy["benchmarks"][0]["defaults"] == "<= 1.20"
    strict = json.loads(run([DATA / "annotations", "--json", "--grid-threshold", "10"]).stdout)
    assert sum(f["code"] == "huge-param-grid" for f in strict["findings"]) == 3


def test_apply_through_the_cli(tmp_path):
    project = tmp_path / "proj"
    shutil.copytree(DATA / "annotations", project)
    config = tmp_path / "benchwarden.toml"
    r = run([project, "--json", "--apply", config, "--name", "fixture"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["applied"]["suite"] == "fixture"
    assert "fixture" in tomllib.loads(config.read_text())["suites"]
    again = run([project, "--apply", config, "--name", "fixture"])
    assert isinstance(again.exception, ConfigError), "a typed error for the CLI's main to turn into exit 2"


def test_apply_defaults_to_the_config_option(tmp_path):
    project = tmp_path / "proj"
    shutil.copytree(DATA / "annotations", project)
    config = tmp_path / "bw.toml"
    r = run([project, "--config", config, "--apply"])
    assert r.exit_code == 0, r.output
    assert "Wrote [suites.proj-jmh]" in r.stderr and config.exists()


def test_bad_path_is_a_usage_error(tmp_path):
    r = run([tmp_path / "missing"])
    assert r.exit_code == 2


def test_history_outside_git_raises_a_typed_error(tmp_path):
    (tmp_path / "A.java").write_text("class A {}")
    r = run([tmp_path, "--history"])
    assert isinstance(r.exception, BenchwardenError)


def test_store_runs_give_the_observed_dynamic_time(tmp_path):
    store_mod = pytest.importorskip("benchwarden.store")
    from benchwarden.model import Benchmark, BenchmarkId, BenchmarkResult, ForkResult, ForkStatus, RunData, RunMeta
    bench = Benchmark(BenchmarkId("fixture", "fixture.Pitfalls.singleFork"), mode="avgt", unit="ns/op")
    forks = (ForkResult(1, ForkStatus.COMPLETE, started_at=10.0, finished_at=25.0),
             ForkResult(2, ForkStatus.COMPLETE, started_at=30.0, finished_at=42.0))
    db = tmp_path / "results.db"
    store = store_mod.open_store(db)
    try:
        store.import_run(RunData(RunMeta(created_at=1.0, tool_version="test"), (BenchmarkResult(bench, forks),)))
    finally:
        store.close()
    r = run([DATA / "annotations", "--json", "--store", db])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    single = next(b for b in data["benchmarks"] if b["name"] == "fixture.Pitfalls.singleFork")
    assert single["time_s"]["dynamic"] == pytest.approx(27.0) and single["time_s"]["dynamic_observed_combinations"] == 1
    assert data["suite"]["dynamic_source"] == "stored runs + estimate"


def test_filter_narrows_the_benchmarks():
    data = json.loads(run([DATA / "annotations", "--json", "--filter", r"Pitfalls\."]).stdout)
    assert [b["name"] for b in data["benchmarks"]] == [
        "fixture.Pitfalls.zeroForks", "fixture.Pitfalls.singleFork", "fixture.Pitfalls.noWarmup",
        "fixture.Pitfalls.unitWithoutTime", "fixture.Pitfalls.voidWithoutBlackhole", "fixture.Pitfalls.deadResult"]
    bad = run([DATA / "annotations", "--filter", "("])
    assert isinstance(bad.exception, BenchwardenError) and "invalid regular expression" in str(bad.exception)


def test_suite_option_audits_that_suite_and_its_config_store_gives_observed_times(tmp_path, monkeypatch):
    from benchwarden.model import Benchmark, BenchmarkId, BenchmarkResult, ForkResult, ForkStatus, RunData, RunMeta
    from benchwarden.store import open_store

    project = tmp_path / "project"
    shutil.copytree(DATA / "annotations", project / "bench")
    (project / "benchwarden.toml").write_text('[suites.j]\nkind = "jmh"\npath = "bench"\n'
                                             'artifact = "target/benchmarks.jar"\n'
                                             '[suites.py]\nkind = "command"\ncommands = { a = "true" }\n')
    bench = Benchmark(BenchmarkId("j", "fixture.Pitfalls.singleFork"), mode="avgt", unit="ns/op")
    forks = (ForkResult(1, ForkStatus.COMPLETE, started_at=10.0, finished_at=25.0),
             ForkResult(2, ForkStatus.COMPLETE, started_at=30.0, finished_at=42.0))
    with open_store(project / ".benchwarden" / "results.db") as store:
        store.import_run(RunData(RunMeta(created_at=1.0, tool_version="test"), (BenchmarkResult(bench, forks),)))
    monkeypatch.chdir(tmp_path)  # not the project: --suite and --config say where
    r = run(["--json", "--config", project / "benchwarden.toml", "--suite", "j"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["suite"]["benchmarks"] == 25
    single = next(b for b in data["benchmarks"] if b["name"] == "fixture.Pitfalls.singleFork")
    assert single["time_s"]["dynamic_observed_combinations"] == 1  # from the config's store, no --store given
    # PATH inside a project: its config's store is found from PATH upwards
    monkeypatch.chdir(project)
    data = json.loads(run(["bench", "--json"]).stdout)
    assert data["suite"]["dynamic_source"] == "stored runs + estimate"
    for args, message in ([["bench", "--suite", "j"], "PATH or --suite"], [["--suite", "py"], "kind 'command'"],
                          [["--suite", "j", "--suite", "py"], "one suite at a time"]):
        r = run([*args, "--config", project / "benchwarden.toml"])
        assert r.exit_code == 2 and message in r.output, r.output


def test_no_store_is_created_by_auditing(tmp_path, monkeypatch):
    shutil.copytree(DATA / "annotations", tmp_path / "bench")
    (tmp_path / "benchwarden.toml").write_text('[suites.j]\nkind = "jmh"\npath = "bench"\n')
    monkeypatch.chdir(tmp_path)
    assert run(["bench", "--json"]).exit_code == 0
    assert not (tmp_path / ".benchwarden").exists()
