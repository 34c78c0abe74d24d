"""The CLI's one top-level guard: an unexpected exception is exit 2 with a short message, never a traceback."""

from __future__ import annotations

import io

import click
import pytest

from benchwarden.cli import cli, main


@pytest.fixture
def broken_command():
    """A command that fails the way a defect does (not a BenchwardenError), registered only for this test."""
    failures = {
        "recursion": RecursionError("maximum recursion depth exceeded"),
        "assertion": AssertionError(),
        "long": ValueError("x" * 100_000 + "\x1b[31m"),
    }
    from benchwarden.units import to_ns_per_op

    @click.command("explode", hidden=True)
    @click.argument("kind")
    def explode(kind: str) -> None:
        if kind == "inside":
            to_ns_per_op(1.0, "bogus")  # a ValueError raised inside the package
        raise failures[kind]

    cli.add_command(explode)
    yield
    cli.commands.pop("explode", None)


@pytest.mark.parametrize("kind", ["recursion", "assertion", "long"])
def test_unexpected_exception_is_exit_2_with_a_short_message(broken_command, kind):
    out, err = io.StringIO(), io.StringIO()
    status = main(["explode", kind], stdout=out, stderr=err)
    message = err.getvalue()
    assert status == 2  # a tool error, never 1 ("regression found")
    assert "Traceback" not in message and out.getvalue() == ""
    assert message.startswith("error: internal error (")
    assert "report it" in message
    assert len(message) < 600 and "\x1b" not in message
    assert "\n" not in message.rstrip("\n").split("\n", 1)[0][:-1]


def test_the_message_names_the_exception_and_where_it_was_raised(broken_command):
    err = io.StringIO()
    main(["explode", "inside"], stdout=io.StringIO(), stderr=err)
    first = err.getvalue().splitlines()[0]
    assert "(ValueError: unknown unit 'bogus'" in first
    assert first.endswith(" at benchwarden/units.py:" + first.rsplit(":", 1)[1]) and first.rsplit(":", 1)[1].isdigit()
