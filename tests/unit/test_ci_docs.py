"""docs/ci.md: the GitHub Actions workflow parses, does what the page says, and calls benchwarden correctly."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
import yaml

from benchwarden.cli import COMMANDS, cli

DOC = Path(__file__).resolve().parents[2] / "docs" / "ci.md"


@pytest.fixture(scope="module")
def workflow() -> dict:
    text = DOC.read_text(encoding="utf-8")
    (block,) = re.findall(r"^```yaml\n(.*?)^```", text, re.S | re.M)
    return yaml.safe_load(block)


def steps(workflow) -> list[dict]:
    (job,) = workflow["jobs"].values()
    return job["steps"]


def test_it_runs_on_pull_requests_and_may_comment(workflow):
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 (PyYAML) reads the key `on` as True
    assert "pull_request" in triggers
    assert workflow["permissions"]["pull-requests"] == "write"
    checkout = next(s for s in steps(workflow) if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0  # the base commit must be there


def test_the_store_is_kept_between_runs(workflow):
    cache = next(s for s in steps(workflow) if s.get("uses", "").startswith("actions/cache@"))
    assert cache["with"]["path"] == ".benchwarden"
    assert "${{ github.run_id }}" in cache["with"]["key"]  # a new key each run, so the growing store is saved
    assert cache["with"]["key"].startswith(cache["with"]["restore-keys"].strip())  # ... and the newest restored


def test_the_summary_is_posted_and_a_regression_fails_the_job(workflow):
    all_steps = steps(workflow)
    compare = next(s for s in all_steps if s.get("id") == "compare")
    assert "set +e" in compare["run"] and 'echo "status=$?" >> "$GITHUB_OUTPUT"' in compare["run"]
    assert "--markdown compare.md" in compare["run"]
    post = next(s for s in all_steps if "gh pr comment" in s.get("run", ""))
    assert post["if"].startswith("always()") and "--body-file compare.md" in post["run"]
    last = all_steps[-1]
    assert last["if"] == "steps.compare.outputs.status != '0'" and "steps.compare.outputs.status" in last["run"]
    assert all_steps.index(post) < all_steps.index(last)


def benchwarden_lines(workflow) -> list[str]:
    lines = []
    for step in steps(workflow):
        for line in step.get("run", "").splitlines():
            line = line.strip()
            if line.startswith("benchwarden "):
                lines.append(re.sub(r"\$\{\{[^}]*\}\}", "X", line))  # expressions are filled in by Actions
    return lines


def test_its_benchwarden_commands_are_valid_invocations(workflow):
    lines = benchwarden_lines(workflow)
    assert any(line.startswith("benchwarden compare ") for line in lines)
    for line in lines:
        argv = shlex.split(line)[1:]
        assert argv[0] in COMMANDS, line
        command = cli.get_command(click.Context(cli), argv[0])
        try:
            command.make_context(argv[0], argv[1:], resilient_parsing=False)
        except click.UsageError as exc:
            pytest.fail(f"`{line}`: {exc.format_message()}")
