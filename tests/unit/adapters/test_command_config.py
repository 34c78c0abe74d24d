"""The command adapter's suite options: commands as argv, never a shell, errors naming the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchwarden.adapters.base import SuiteContext
from benchwarden.adapters.command import CommandAdapter, parse_commands
from benchwarden.errors import ConfigError, ToolchainMissing
from benchwarden.model import BenchmarkId


def ctx(**options) -> SuiteContext:
    return SuiteContext(name="cli", kind="command", root=Path("/tmp"), options=options)


def test_strings_are_split_like_a_shell_would_and_lists_kept():
    commands = parse_commands(ctx(commands={
        "quoted": "python3 -c 'print(\"a b\")' --flag=\"x y\"",
        "pipe": "echo a | wc",  # no shell: '|' is just an argument
        "argv": ["echo", "a b"],
    }))
    assert commands == {
        "quoted": ("python3", "-c", 'print("a b")', "--flag=x y"),
        "pipe": ("echo", "a", "|", "wc"),
        "argv": ("echo", "a b"),
    }


def test_single_command_is_named_after_the_suite():
    assert parse_commands(ctx(command="true")) == {"cli": ("true",)}


@pytest.mark.parametrize(("options", "key", "message"), [
    ({}, "suites.cli.commands", "needs `commands"),
    ({"commands": {}}, "suites.cli.commands", "non-empty table"),
    ({"commands": "echo hi"}, "suites.cli.commands", "non-empty table"),
    ({"commands": {"a": "echo 'unterminated"}}, "suites.cli.commands.a", "cannot split"),
    ({"commands": {"a": ""}}, "suites.cli.commands.a", "empty"),
    ({"commands": {"a": ["echo", 1]}}, "suites.cli.commands.a", "list of strings"),
    ({"commands": {"a": 42}}, "suites.cli.commands.a", "list of strings"),
    ({"commands": {"a": "true"}, "shell": True}, "suites.cli.shell", "never runs commands through a shell"),
    ({"commands": {"a": "true"}, "command": "true"}, "suites.cli.command", "either"),
])
def test_bad_commands_are_config_errors_naming_the_key(options, key, message):
    with pytest.raises(ConfigError, match=message) as info:
        parse_commands(ctx(**options))
    assert info.value.key == key


def test_shell_false_is_accepted():
    assert parse_commands(ctx(commands={"a": "true"}, shell=False)) == {"a": ("true",)}


def test_listing_one_benchmark_per_command_in_ms_per_op():
    benchmarks = CommandAdapter().list_benchmarks(ctx(commands={"b": "echo b", "a": ["true"]}))
    assert [b.id for b in benchmarks] == [BenchmarkId("cli", "b"), BenchmarkId("cli", "a")]
    assert {(b.mode, b.unit) for b in benchmarks} == {("wall", "ms/op")}
    assert json.loads(benchmarks[0].spec["argv"]) == ["echo", "b"]


def test_prepare_requires_every_program(tmp_path):
    adapter = CommandAdapter()
    good = SuiteContext(name="cli", kind="command", root=tmp_path, options={"commands": {"a": "true"}})
    assert adapter.prepare(good).toolchain == {}
    missing = SuiteContext(name="cli", kind="command", root=tmp_path,
                           options={"commands": {"a": "true", "b": "no-such-program-xyz --x"}})
    with pytest.raises(ToolchainMissing, match="suite 'cli': 'no-such-program-xyz'"):
        adapter.prepare(missing)
    relative = SuiteContext(name="cli", kind="command", root=tmp_path, options={"commands": {"a": "./run.sh"}})
    with pytest.raises(ToolchainMissing, match="not an executable file"):
        adapter.prepare(relative)
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    assert adapter.prepare(relative).toolchain == {}
