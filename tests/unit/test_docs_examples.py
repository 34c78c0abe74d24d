"""Executable documentation (STYLE item 21): the examples in README.md and docs/*.md are checked by running them.

- every ``benchwarden ...`` command line in a ``sh`` block (and the README tour) is parsed by the real CLI:
  the command exists, every option exists for it and its values convert, so a renamed or removed option
  breaks this test instead of a reader's script;
- every ``toml`` block is read with the real config loader (a partial table gets the minimal suite it
  belongs to) and its ``[compare]``/``[check]``/``[assess]`` tables are validated by their commands' models;
- every ``spl`` block is parsed by the SPL parser, and the ``ebnf`` grammar block names only rules that exist.

Running the measuring commands themselves on the examples is the job of the end-to-end tests
(tests/e2e/test_*_examples.py); here the commands that only read or list run for real, against a store
with an imported run: ``runs``, ``show``, ``export``, ``list`` on a fake suite.
"""

from __future__ import annotations

import io
import re
import shlex
import tomllib
from pathlib import Path

import click
import pytest

from benchwarden.cli import COMMANDS, cli, main

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def blocks(language: str) -> list[tuple[str, int, str]]:
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            if m.group(1) == language:
                found.append((doc.relative_to(ROOT).as_posix(), text[:m.start()].count("\n") + 2, m.group(2)))
    return found


def command_lines() -> list[tuple[str, str, Path]]:
    """(where, command line, working directory) for every benchwarden invocation in a sh block, comments and
    redirections cut; ``cd DIR`` lines in the block move the working directory as a reader's shell would."""
    found = []
    for where, line_no, body in blocks("sh"):
        cwd = ROOT
        for offset, line in enumerate(body.splitlines()):
            line = line.split(" # ")[0].split("  #")[0].strip()
            if line.startswith("cd "):
                cwd = (cwd / line[3:].strip()).resolve()
            if line.startswith("benchwarden "):
                line = re.split(r"\s[>|]\s?", line)[0]  # output redirection or a pipe
                found.append((f"{where}:{line_no + offset}", line, cwd))
    return found


COMMAND_LINES = command_lines()


def test_the_docs_show_commands():
    assert len(COMMAND_LINES) >= 25 and {line.split()[1] for _, line, _ in COMMAND_LINES} >= {
        "run", "show", "compare", "check", "assess", "audit", "list"}


@pytest.mark.parametrize("where, line, cwd", COMMAND_LINES, ids=[w for w, _, _ in COMMAND_LINES])
def test_each_documented_command_is_a_valid_invocation(where, line, cwd, monkeypatch):
    monkeypatch.chdir(cwd)
    argv = shlex.split(line)[1:]
    assert argv[0] in COMMANDS, f"{where}: unknown command {argv[0]!r}"
    command = cli.get_command(click.Context(cli), argv[0])
    try:
        command.make_context(argv[0], argv[1:], resilient_parsing=False)
    except click.exceptions.Exit:
        pass
    except click.UsageError as exc:
        if "does not exist" in exc.format_message() and "jmh-result.json" in line:
            return  # the reader's own result file
        pytest.fail(f"{where}: `{line}` in {cwd}: {exc.format_message()}")


TOML_BLOCKS = blocks("toml")


@pytest.mark.parametrize("where, line_no, body", TOML_BLOCKS, ids=[f"{w}:{n}" for w, n, _ in TOML_BLOCKS])
def test_each_documented_config_loads(tmp_path, where, line_no, body):
    from benchwarden.assess.methods import AssessSettings
    from benchwarden.compare.settings import CompareSettings
    from benchwarden.config import load_config
    from benchwarden.spl.settings import CheckModel

    raw = tomllib.loads(body)  # valid TOML at all
    prefix = ""
    for name, table in raw.get("suites", {}).items():  # a partial table (overrides only) gets its suite
        if "kind" not in table:
            prefix += f'[suites.{name}]\nkind = "jmh"\n'
    (tmp_path / "src").mkdir()
    path = tmp_path / "benchwarden.toml"
    path.write_text(prefix + body, encoding="utf-8")
    config = load_config(path)
    for section, model in (("compare", CompareSettings), ("check", CheckModel), ("assess", AssessSettings)):
        if section in raw:
            config.section(section, model)


SPL_BLOCKS = blocks("spl")


@pytest.mark.parametrize("where, line_no, body", SPL_BLOCKS, ids=[f"{w}:{n}" for w, n, _ in SPL_BLOCKS])
def test_each_documented_assertion_parses(where, line_no, body):
    from benchwarden.spl.parser import parse

    program = parse(body, source=f"{where}:{line_no}")
    assert program.statements if hasattr(program, "statements") else program


def test_the_readme_minimal_suite_and_tour_run_where_nothing_is_measured(tmp_path, monkeypatch):
    """The read-only commands of the README tour, for real: list, runs, show, export, import."""
    from benchwarden.adapters import REGISTRY

    monkeypatch.setitem(REGISTRY, "fake", "tests.support.fake_adapter:DemoFakeAdapter")
    (tmp_path / "benchwarden.toml").write_text('[defaults]\niteration_time = "10ms"\n[suites.demo]\nkind = "fake"\n')
    monkeypatch.chdir(tmp_path)
    sample = ROOT / "tests" / "data" / "store" / "run-v1.json"
    for argv in (["list", "--filter", "parse"], ["import", str(sample)], ["runs"], ["show"], ["show", "latest"],
                 ["export", "latest", "-o", "run.json"], ["import", "run.json"], ["run", "--quiet"],
                 ["run", "--quiet"], ["compare", "--runs", "latest~1", "latest"]):
        err = io.StringIO()
        status = main(argv, stdout=io.StringIO(), stderr=err)
        assert status == 0, (argv, err.getvalue())
