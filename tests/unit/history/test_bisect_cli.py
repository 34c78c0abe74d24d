"""`benchwarden bisect` refuses what it cannot search, with exit 2 and the reason, before measuring anything."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from benchwarden.cli import main

TOML = '[suites.one]\nkind = "command"\ncommands = { noop = "true" }\n[suites.two]\nkind = "command"\n' \
    'commands = { noop = "true" }\n'


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


@pytest.fixture()
def repo(tmp_path) -> Path:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "PATH": "/usr/bin:/bin"}
    (tmp_path / "benchwarden.toml").write_text(TOML)
    subprocess.run(["git", "-C", str(tmp_path), "init", "-q", "-b", "main"], check=True, env=env)
    for i in range(3):
        subprocess.run(["git", "-C", str(tmp_path), "add", "-A"], check=True, env=env)
        subprocess.run(["git", "-C", str(tmp_path), "commit", "-q", "--allow-empty", "-m", f"c{i}"], check=True,
                       env=env)
    return tmp_path


@pytest.mark.parametrize("argv,message", [
    (("HEAD~2", "HEAD", "--benchmark", "noop"), "give it as SUITE:KEY"),
    (("HEAD~2", "HEAD", "--benchmark", "three:noop"), "no suite 'three'"),
    (("HEAD", "HEAD", "--benchmark", "one:noop"), "HEAD..HEAD: no commit after HEAD"),
    (("nosuch", "HEAD", "--benchmark", "one:noop"), "unknown revision 'nosuch'"),
    (("HEAD~2", "HEAD", "--benchmark", "one:noop", "--min-change", "lots"), "--min-change"),
    (("HEAD~2", "HEAD", "--benchmark", "one:noop", "--filter", "x"), "No such option '--filter'"),
])
def test_bad_input_is_exit_2_with_the_reason(repo, argv, message):
    code, out, err = bw("bisect", *argv, "--config", str(repo / "benchwarden.toml"),
                        "--store", f"sqlite:///{repo / 'store.db'}")
    assert code == 2, (out, err)
    assert message in err, err
    assert "Traceback" not in err and out == ""
