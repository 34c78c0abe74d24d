"""Monthly history sampling (pure) and the history analysis on a real git repository built in a temp dir."""

from __future__ import annotations

import calendar
import os
import shutil
import subprocess

import pytest

from benchwarden.audit.history import Commit, analyse_history, month_starts, sample_commits
from benchwarden.audit.project import audit_project, with_history

DAY = 86400


def t(y, m, d, h=12):
    return calendar.timegm((y, m, d, h, 0, 0))


def test_month_starts():
    assert month_starts(t(2019, 11, 20), t(2020, 2, 1, 0)) == [t(2019, 12, 1, 0), t(2020, 1, 1, 0), t(2020, 2, 1, 0)]


def test_sampling_keeps_first_last_and_closest_within_half_a_month():
    commits = [Commit("a", t(2019, 1, 10)), Commit("b", t(2019, 1, 30)), Commit("c", t(2019, 2, 3)),
               Commit("d", t(2019, 3, 20)), Commit("e", t(2019, 5, 2))]
    sampled = [c.sha for c in sample_commits(commits)]
    # Feb 1 -> b (1.5 days before) beats c (2.5 days after); Mar 1 -> d is 19.5 days away: skipped;
    # Apr 1 -> d is 12.5 days before: taken; May 1 -> e; a and e are first and last anyway
    assert sampled == ["a", "b", "d", "e"]


def test_sampling_of_one_commit_and_none():
    assert sample_commits([]) == []
    assert sample_commits([Commit("x", 5)]) == [Commit("x", 5)]


def test_dense_history_is_reduced_to_about_one_commit_per_month():
    commits = [Commit(str(i), t(2019, 1, 1) + i * DAY // 4) for i in range(4 * 365)]  # 4 a day for a year
    sampled = sample_commits(commits)
    assert 12 <= len(sampled) <= 14
    gaps = [b.time - a.time for a, b in zip(sampled, sampled[1:])]
    assert max(gaps) <= 32 * DAY


POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>h</groupId><artifactId>h</artifactId><version>1</version>
<dependencies><dependency><groupId>org.openjdk.jmh</groupId><artifactId>jmh-core</artifactId>
<version>{v}</version></dependency></dependencies></project>
"""


def bench(c_fork: str = "", d_warmup: str = "") -> str:
    return f"""package h;
import org.openjdk.jmh.annotations.*;
@State(Scope.Thread)
public class Bench {{
    @Benchmark @Fork(1) public int a() {{ return 1; }}
    @Benchmark @Fork(2) @Warmup(iterations = 3, time = 1) @Measurement(iterations = 3, time = 1)
    public int b() {{ return 2; }}
    @Benchmark {c_fork} public int c() {{ return 3; }}
    @Benchmark {d_warmup} public int d() {{ return 4; }}
}}
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path_factory.mktemp("history")
    src = root / "src" / "h"
    src.mkdir(parents=True)

    def commit(when: int, pom_version: str, c_fork: str = "", d_warmup: str = "") -> None:
        (root / "pom.xml").write_text(POM.format(v=pom_version))
        (src / "Bench.java").write_text(bench(c_fork, d_warmup))
        env = {**os.environ, "GIT_AUTHOR_DATE": f"@{when} +0000", "GIT_COMMITTER_DATE": f"@{when} +0000"}
        git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
        subprocess.run([*git, "add", "-A"], check=True, env=env)
        subprocess.run([*git, "commit", "-q", "-m", f"at {when}"], check=True, env=env)

    subprocess.run(["git", "init", "-q", str(root)], check=True)
    commit(t(2018, 1, 10), "1.19")
    commit(t(2018, 3, 5), "1.19", c_fork="@Fork(3)")  # c changes before the upgrade
    commit(t(2018, 6, 20), "1.21", c_fork="@Fork(3)")  # the upgrade
    commit(t(2018, 9, 2), "1.21", c_fork="@Fork(3)", d_warmup="@Warmup(iterations = 10)")  # d changes after it
    return root


@pytest.fixture(scope="module")
def analysed(repo):
    current = audit_project(repo)
    history, findings = analyse_history(repo, current)
    return with_history(current, history, findings), history, findings


def test_samples_follow_the_monthly_rule(analysed):
    _, history, _ = analysed
    assert [s.commit.date for s in history.samples] == ["2018-01-10", "2018-03-05", "2018-06-20", "2018-09-02"]
    assert [s.jmh_version for s in history.samples] == ["1.19", "1.19", "1.21", "1.21"]
    assert all(s.benchmarks == 4 for s in history.samples)


def test_configuration_changes_are_reported(analysed):
    _, history, _ = analysed
    changes = [(c.benchmark, c.commit.date, {k: (c.before[k], c.after[k]) for k in c.before
                                             if c.before[k] != c.after[k]}) for c in history.changes]
    assert changes == [("h.Bench.c", "2018-03-05", {"forks": (None, 3)}),
                       ("h.Bench.d", "2018-09-02", {"warmup_iterations": (None, 10)})]
    assert history.upgrade[0].date == "2018-06-20" and history.upgrade[1:] == ("1.19", "1.21")


def test_unchanged_since_defaults_changed(analysed):
    report, _, findings = analysed
    flagged = {f.benchmark: f for f in findings}
    # a: only forks pinned; c: changed before the upgrade, untouched since; b: fully pinned; d: changed after
    assert set(flagged) == {"h.Bench.a", "h.Bench.c"}
    a = flagged["h.Bench.a"]
    assert a.code == "unchanged-since-defaults" and str(a.location) == "src/h/Bench.java:5"
    assert "moved from JMH 1.19 to 1.21" in a.message
    assert "warmup iterations, warmup time, measurement iterations, measurement time" in a.message
    assert "went from 40.0s to 1m40s per combination" in a.consequence  # 1 x (20+20) x 1 s -> 1 x (5+5) x 10 s
    assert any(f.code == "unchanged-since-defaults" for f in report.findings)


def test_history_outside_git_is_a_clear_error(tmp_path):
    from benchwarden.errors import BenchwardenError
    (tmp_path / "A.java").write_text("class A {}")
    with pytest.raises(BenchwardenError, match="not inside a git repository"):
        analyse_history(tmp_path, audit_project(tmp_path))


def test_history_is_rendered(analysed):
    import json

    from benchwarden.audit.render import report_to_json, report_to_markdown
    report, _, _ = analysed
    data = json.loads(json.dumps(report_to_json(report)))
    assert [s["jmh_version"] for s in data["history"]["samples"]] == ["1.19", "1.19", "1.21", "1.21"]
    assert data["history"]["upgrade"]["from"] == "1.19" and data["history"]["changes"][0]["after"]["forks"] == "3"
    md = report_to_markdown(report)
    assert "## History (monthly samples)" in md and "| h.Bench.c | forks: default -> 3 |" in md
