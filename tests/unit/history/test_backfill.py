"""backfill's pure parts (range, thinning, what counts as measured) and its refusals, without measuring."""

from __future__ import annotations

import io
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from benchwarden.backfill import SNAPSHOT_KEY, already_measured, parse_range, thinned
from benchwarden.cli import main
from benchwarden.config import load_config
from benchwarden.errors import UsageError
from benchwarden.model import RunMeta, RunStatus
from benchwarden.store.commits import StoredRun


def bw(*args: str, cwd: Path) -> tuple[int, str, str]:
    import os

    out, err = io.StringIO(), io.StringIO()
    old = Path.cwd()
    os.chdir(cwd)
    try:
        return main(list(args), stdout=out, stderr=err), out.getvalue(), err.getvalue()
    finally:
        os.chdir(old)


@pytest.mark.parametrize("spec, expected", [("v1..main", ("v1", "main")), ("abc..HEAD~2", ("abc", "HEAD~2"))])
def test_a_range_is_two_revisions(spec, expected):
    assert parse_range(spec) == expected


@pytest.mark.parametrize("spec", ["main", "v1...main", "..main", "v1..", "a..b..c"])
def test_anything_but_a_two_dot_range_is_refused(spec):
    with pytest.raises(UsageError, match="expected a range A..B"):
        parse_range(spec)


def test_every_nth_counts_back_from_the_tip():
    commits = [f"c{i}" for i in range(1, 8)]
    assert thinned(commits, 1) == commits
    assert thinned(commits, 2) == ["c1", "c3", "c5", "c7"]
    assert thinned(commits, 3) == ["c1", "c4", "c7"]
    assert thinned(commits, 100) == ["c7"]


def stored(run_id, commit, *, key="m", status=RunStatus.COMPLETE, dirty=False, filter_=None, suites=("s",),
           compare=False):
    config = {"filter": filter_, "suites": {name: {} for name in suites}}
    if compare:  # the snapshot a compare session stores (bisect's steps): no filter, the session's settings
        config = {"compare": {"role": "candidate", "source": "revisions"}, "suites": config["suites"]}
    meta = RunMeta(created_at=0.0, tool_version="0", commit=commit, dirty=dirty, machine={}, toolchain={},
                   config=config)
    return StoredRun(run_id, meta, status, key)


def test_only_a_complete_clean_run_on_this_machine_with_the_same_suites_and_filter_counts(tmp_path):
    (tmp_path / "benchwarden.toml").write_text('[suites.s]\nkind = "command"\ncommands = { a = "true" }\n')
    suites = list(load_config(tmp_path / "benchwarden.toml").suites.values())
    runs = [stored(1, "a"), stored(2, "b", key="other"), stored(3, "c", status=RunStatus.INTERRUPTED),
            stored(4, "d", dirty=True), stored(5, "e", filter_="x"), stored(6, "f", suites=("s", "t")),
            stored(7, "a"), stored(8, "g", compare=True)]
    # run 8 is a bisect step: one benchmark of the suite, chosen by the session (found in a trial on gin)
    assert already_measured(runs, "m", suites, None) == {"a": 7}
    assert already_measured(runs, "m", suites, "x") == {"e": 5}


def git(root: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


@pytest.fixture()
def project(tmp_path) -> Path:
    (tmp_path / "benchwarden.toml").write_text('[store]\nurl = "results.db"\n\n[suites.s]\nkind = "command"\n'
                                               'commands = { a = "true" }\n')
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "one")
    return tmp_path


@pytest.mark.parametrize("spec, message", [
    ("main", "expected a range A..B"),
    ("nosuch..main", "unknown revision 'nosuch'"),
    ("main..main", "main..main: no commit after main up to main"),
])
def test_bad_ranges_are_usage_errors(project, spec, message):
    code, _, err = bw("backfill", spec, cwd=project)
    assert code == 2 and message in err


def test_run_resume_refuses_an_interrupted_backfill_run(project):
    from benchwarden.store import open_store
    from tests.unit.store.store_samples import make_run

    data = make_run(n_benchmarks=1, n_forks=1, status=RunStatus.INTERRUPTED)
    data = replace(data, meta=replace(data.meta, config={**data.meta.config, SNAPSHOT_KEY: "abcdef0123456789"}))
    with open_store(project / "results.db") as store:
        store.import_run(data)
    code, _, err = bw("run", "--resume", cwd=project)
    assert code == 2 and "measured commit abcdef012345 for `backfill`; run the same backfill again" in err
