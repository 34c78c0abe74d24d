"""`benchwarden check` through an in-process harness (spl_fake) and a real SQLite store and git.

Covers: exactly the named benchmarks run, interleaved; reuse of stored forks of unchanged code (and no
reuse for a dirty tree or a changed environment); measuring more while undecided, within the bounds;
revisions from git tags; exit statuses, --json purity, --junit, --strict, --filter, [check] config.
"""

from __future__ import annotations

import io
import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import spl_fake

from benchwarden.adapters import REGISTRY
from benchwarden.cli import main

CONFIG = """
[defaults]
iteration_time = "10ms"
warmup = {{ min = 1, max = 1 }}
iterations = 8
forks = {{ min = 3, max = 3 }}
stop = "static"

[suites.fake]
kind = "splfake"
path = "."
{extra}
"""


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
                   check=True, capture_output=True)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setitem(REGISTRY, "splfake", "spl_fake:SplFakeAdapter")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("SPL_FAKE_SLOW", raising=False)
    root = tmp_path / "proj"
    root.mkdir()
    (root / "benchwarden.toml").write_text(CONFIG.format(extra=""))
    (root / ".gitignore").write_text(".benchwarden/\n")
    monkeypatch.chdir(root)
    spl_fake.STARTED.clear()
    return root


def check(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(["check", *args], stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def check_json(*args: str) -> tuple[int, dict]:
    status, out, err = check("--json", *args)
    assert out.strip(), err
    return status, json.loads(out)


def started_keys() -> list[str]:
    return [key for _, key in spl_fake.STARTED]


def test_runs_exactly_the_named_benchmarks_interleaved(project):
    (project / "perf.spl").write_text("fast <= slow\nfor n in {10} sized(n) <= 2 * sized(100)\n")
    status, data = check_json()
    assert status == 0, data
    assert [a["verdict"] for a in data["assertions"]] == ["holds", "holds"]
    assert sorted(set(started_keys())) == ["fast", "sized[n=100]", "sized[n=10]", "slow"]
    assert all(started_keys().count(k) == 3 for k in set(started_keys()))
    # interleaved: each pass runs one fork of every instance before any instance gets its next fork
    first_pass = started_keys()[:4]
    assert sorted(first_pass) == ["fast", "sized[n=100]", "sized[n=10]", "slow"]
    assert len(data["runs"]) == 3


def test_failing_assertion_exits_1_and_reports_numbers(project):
    (project / "perf.spl").write_text("slow <= fast  # slow is 30% slower\n")
    status, out, err = check()
    assert status == 1, err
    assert "FAILS" in out and "p fails" in out and "slow <= fast" in out
    status, data = check_json("--no-reuse")
    [comparison] = data["assertions"][0]["comparisons"]
    assert comparison["verdict"] == "fails" and comparison["p_fails"] < 0.0167
    assert comparison["left_mean_ns"] == pytest.approx(130, rel=0.05)
    assert comparison["low_ns"] > 0  # the interval of left − right excludes 0


def test_reuse_of_unchanged_code_and_its_limits(project, monkeypatch):
    (project / "perf.spl").write_text("fast <= slow\n")
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "initial")
    status, first = check_json()
    assert status == 0 and len(spl_fake.STARTED) == 6
    spl_fake.STARTED.clear()
    status, second = check_json()
    assert status == 0 and spl_fake.STARTED == []  # every fork reused: same clean commit, same settings
    assert all(sorted(i["reused_runs"]) == first["runs"] for i in second["instances"])
    assert second["runs"] == []
    # the environment reaches the benchmark processes, so a changed one is measured afresh
    monkeypatch.setenv("SPL_FAKE_SLOW", "1")
    status, slow = check_json()
    assert len(spl_fake.STARTED) == 6 and all(i["reused_runs"] == [] for i in slow["instances"])
    monkeypatch.delenv("SPL_FAKE_SLOW")
    # a dirty tree has no identity: nothing is reused
    spl_fake.STARTED.clear()
    (project / "perf.spl").write_text("fast <= slow\n# edited\n")
    status, dirty = check_json()
    assert len(spl_fake.STARTED) == 6
    # --no-reuse measures afresh even on a clean tree
    git(project, "commit", "-qam", "edit")
    check_json()
    spl_fake.STARTED.clear()
    check_json("--no-reuse")
    assert len(spl_fake.STARTED) == 6


def test_undecided_measures_more_within_bounds(project):
    (project / "perf.spl").write_text("using parametric(alpha=0.001): fast <= same\n")  # equal means: undecided
    status, data = check_json("--max-rounds", "2")
    assert status == 0 and data["assertions"][0]["verdict"] == "undecided"
    assert data["rounds"] == 2
    assert sorted(i["forks"] for i in data["instances"]) == [9, 9]  # 3 forks, then 3 more per round
    assert data["assertions"][0]["alpha_per_look"] == pytest.approx(0.001 / 3)
    spl_fake.STARTED.clear()
    status, data = check_json("--no-reuse", "--max-rounds", "5", "--max-forks", "4")
    assert sorted(i["forks"] for i in data["instances"]) == [4, 4]  # the bound, not the rounds, stopped it
    status, _ = check_json("--no-reuse", "--strict")
    assert status == 1  # undecided fails with --strict


def test_decided_assertions_are_not_measured_more(project):
    (project / "perf.spl").write_text("fast <= slow\n")
    status, data = check_json("--max-rounds", "3")
    assert data["rounds"] == 0 and len(spl_fake.STARTED) == 6


def test_lenient_reading_has_no_undecided(project):
    (project / "perf.spl").write_text("fast <= same\n")
    status, data = check_json("--lenient")
    assert data["assertions"][0]["verdict"] == "holds" and data["rounds"] == 0


def test_revision_bound_against_a_tag(project):
    (project / "fast.txt").write_text("100\n")
    (project / "perf.spl").write_text("old := fast@v1\nfast <= 1.05 * old\n")
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "v1")
    git(project, "tag", "v1")
    status, data = check_json()
    assert status == 0, data  # the same commit: measured once, a paired comparison
    assert {i["source"].split(" ")[0] for i in data["instances"]} == {"working", "v1"}
    assert len(spl_fake.STARTED) == 3
    (project / "fast.txt").write_text("150\n")  # a 50% regression, committed
    git(project, "commit", "-qam", "slower")
    spl_fake.STARTED.clear()
    status, data = check_json()
    assert status == 1, data
    # v1's forks are reused: the first check measured that very commit (then the working tree)
    assert started_keys() == ["fast"] * 3
    v1 = next(i for i in data["instances"] if i["instance"].endswith("@v1"))
    assert v1["reused_runs"] and v1["measured_runs"] == []
    [comparison] = data["assertions"][0]["comparisons"]
    assert comparison["verdict"] == "fails" and comparison["comparison"].endswith("fast@v1")
    spl_fake.STARTED.clear()
    status, data = check_json("--no-reuse")
    assert status == 1
    roots = {root for root, _ in spl_fake.STARTED}
    assert len(roots) == 2 and any(r.startswith(str(project.parent / "cache")) for r in roots)  # v1's worktree


def test_crashing_benchmark_exits_2(project):
    (project / "perf.spl").write_text("crash <= fast\nfast <= slow\n")
    status, out, err = check()
    assert status == 2
    assert "crash" in err and "fork crashed" in err
    assert "fast <= slow" in out


def test_a_tool_the_metric_needs_missing_exits_2_before_any_fork(project, monkeypatch):
    monkeypatch.setenv("SPL_FAKE_NO_TOOL", "1")
    (project / "perf.spl").write_text("fast <= slow\n")
    status, out, err = check()
    assert status == 2 and "'faketool' was not found on PATH (time needs it)" in err, (out, err)
    assert "Traceback" not in err and started_keys() == []


def test_junit_and_json_purity(project, tmp_path):
    (project / "perf.spl").write_text("fast <= slow\nslow <= fast\nfast <= same\n")
    junit = tmp_path / "check.xml"
    status, out, err = check("--json", "--junit", str(junit), "--max-rounds", "0")
    assert status == 1
    json.loads(out)  # stdout holds only the JSON document
    suite = ET.parse(junit).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "1")
    failure = suite.find("testcase/failure")
    assert "slow <= fast" in failure.get("message")


def test_config_assertions_filter_and_options(project):
    (project / "benchwarden.toml").write_text(CONFIG.format(extra='\n[check]\ninterpretation = "bootstrap"\n'
                                                                  'alpha = 0.01\nresamples = 2000\n'
                                                                  '[check.assertions]\nhash = "fast <= slow"\n'
                                                                  'scaling = "sized(10) <= 2 * sized(100)"\n'))
    status, data = check_json("--filter", "sized")
    assert status == 0
    [a] = data["assertions"]
    assert a["name"].startswith("benchwarden.toml[check.assertions.scaling]")
    assert (a["interpretation"], a["alpha"]) == ("bootstrap", 0.01)
    assert sorted(set(started_keys())) == ["sized[n=100]", "sized[n=10]"]


def test_named_files_replace_discovery(project, tmp_path):
    (project / "perf.spl").write_text("slow <= fast\n")
    other = project / "other.spl"
    other.write_text("using quick: fast <= slow\n")
    status, data = check_json(str(other))
    assert status == 0 and [a["interpretation"] for a in data["assertions"]] == ["quick"]


@pytest.mark.parametrize("text,message", [
    ("fast <= \n", "perf.spl:1:8: expected a benchmark"),
    ("fats <= slow\n", "perf.spl:1:1: no benchmark 'fats' in the selected suites; did you mean fast?"),
    ("fast <= slow@nope\n", "perf.spl:1:9: revision 'nope':"),
])
def test_bad_assertions_exit_2_with_location(project, text, message):
    (project / "perf.spl").write_text(text)
    status, out, err = check()
    assert status == 2 and message in err, err
    assert spl_fake.STARTED == []  # nothing ran


def test_config_errors_and_nothing_to_check(project):
    (project / "benchwarden.toml").write_text(CONFIG.format(extra="\n[check]\nalpha = 0.9\n"))
    status, _, err = check()
    assert status == 2 and "check.alpha" in err
    (project / "benchwarden.toml").write_text(CONFIG.format(extra=""))
    status, _, err = check()
    assert status == 2 and "no assertions to check" in err


def test_the_machine_level_of_an_instance_whose_forks_ran_on_several_machines():
    """Forks a check measured on a cluster's workers (or reused from such a check): the machine level of their
    means, as `show` gives it (stats.machine_spread); none for forks of one machine."""
    from benchwarden.model import ForkResult, ForkStatus, IterationResult
    from benchwarden.spl.evaluate import Collected
    from benchwarden.stats.machines import machine_spread

    def fork(index: int, worker: str, value: float) -> ForkResult:
        its = tuple(IterationResult(value_ns=value * (1 + d), raw_value=value * (1 + d)) for d in (-0.01, 0.0, 0.01))
        return ForkResult(index=index, status=ForkStatus.COMPLETE, warmup=(), measurement=its,
                          machine={"name": worker} if worker else {})

    here = Collected()
    here.add([fork(1, "", 100.0), fork(2, "", 104.0)])
    assert here.machine_level() is None and here.machines == ["", ""]
    cluster = Collected()
    cluster.add([fork(1, "w1", 100.0), fork(2, "w2", 120.0), fork(3, "w1", 102.0), fork(4, "w2", 118.0)])
    level = cluster.machine_level()
    assert level == machine_spread([100.0, 120.0, 102.0, 118.0], ["w1", "w2", "w1", "w2"])
    assert level.machines == ("w1", "w2") and level.counts == (2, 2) and level.between > 0.05
