"""A command accepts only the options it honours (STYLE item 22): anything else is a usage error, exit 2.

Before, `compare --runs` ignored --filter/--suite/--confirm/bounds/--seed/--label, `run --resume` ignored every
bound, stopping, filter and label flag, `import`/`export`/`runs` ignored --suite/--filter and `init` ignored
--suite/--filter/--store, all silently.
"""

from __future__ import annotations

import io
import json

import pytest

from benchwarden.adapters import REGISTRY
from benchwarden.cli import main

CONFIG = """
[defaults]
iteration_time = "10ms"
warmup = { min = 1, max = 1 }
iterations = 3
forks = { min = 2, max = 2 }

[suites.demo]
kind = "fake"

[suites.other]
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


@pytest.mark.parametrize("argv", [
    ["runs", "--suite", "demo"], ["runs", "--filter", "x"],
    ["export", "--suite", "demo"], ["export", "--filter", "x"], ["export", "--json"],
    ["import", "f.json", "--suite", "demo"], ["import", "f.json", "--filter", "x"],
    ["init", "--suite", "demo"], ["init", "--filter", "x"], ["init", "--store", "s.db"],
])
def test_options_a_command_does_not_honour_are_not_accepted(project, argv):
    (project / "f.json").write_text("{}")
    status, out, err = bw(*argv)
    assert status == 2 and "No such option" in err and argv[-2] in err


@pytest.mark.parametrize("extra", [["--forks", "3"], ["--warmup", "2"], ["--iterations", "4"],
                                   ["--iteration-time", "5ms"], ["--stop", "static"], ["--criteria", "cv"],
                                   ["--threshold", "cv=0.1"], ["--window", "3"], ["--filter", "parse"],
                                   ["--suite", "demo"], ["--label", "x"]])
def test_resume_refuses_options_that_would_change_the_run(project, extra):
    status, _, err = bw("run", "--resume", *extra)
    assert status == 2
    assert f"{extra[0]}: --resume finishes a run with the suites, filter, bounds" in err


@pytest.mark.parametrize("extra", [["--confirm", "1"], ["--seed", "3"], ["--label", "x"], ["--warmup", "1"],
                                   ["--iterations", "2"], ["--iteration-time", "5ms"], ["--min-forks", "3"],
                                   ["--max-forks", "5"], ["--artifacts"], ["--variant-env", "A=1"],
                                   ["--base-jvm-arg", "-Dx"], ["--quiet"], ["--mix-machines"]])
def test_compare_runs_refuses_measuring_options(project, extra):
    status, _, err = bw("compare", "--runs", "1", "2", *extra)
    assert status == 2
    assert f"{extra[0]}: --runs analyses two stored runs and measures nothing" in err


@pytest.mark.parametrize("argv", [["run", "--mix-machines"], ["compare", "HEAD", "--mix-machines"]])
def test_mix_machines_goes_with_a_cluster(project, argv):
    status, out, err = bw(*argv)
    assert status == 2 and "--mix-machines goes with --cluster" in err and out == ""


def test_several_refused_options_are_named_together(project):
    status, _, err = bw("compare", "--runs", "1", "2", "--seed", "1", "--label", "x")
    assert status == 2 and "--seed, --label: --runs analyses" in err


def test_compare_runs_honours_suite_and_filter(project):
    for _ in range(2):
        assert bw("run", "--quiet")[0] == 0
    status, out, err = bw("compare", "--runs", "1", "2", "--json")
    assert status in (0, 1), err
    everything = {(b["suite"], b["benchmark"]) for b in json.loads(out)["benchmarks"]}
    assert everything == {(s, k) for s in ("demo", "other") for k in ("parse[size=10]", "format")}
    status, out, err = bw("compare", "--runs", "1", "2", "--json", "--suite", "other", "--filter", "^format")
    assert status in (0, 1), err
    assert {(b["suite"], b["benchmark"]) for b in json.loads(out)["benchmarks"]} == {("other", "format")}
    status, _, err = bw("compare", "--runs", "1", "2", "--suite", "nope")
    assert status == 2 and "--suite nope: run 1 has no such suite (it has: demo, other)" in err


def test_show_and_replay_refuse_a_suite_the_run_does_not_have(project):
    assert bw("run", "--quiet")[0] == 0
    for command in ("show", "replay"):
        status, _, err = bw(command, "--suite", "typo")
        assert status == 2 and "run 1 has no such suite" in err, (command, err)
    status, out, _ = bw("show", "--suite", "other", "--json")
    assert status == 0 and {b["suite"] for b in json.loads(out)["benchmarks"]} == {"other"}
