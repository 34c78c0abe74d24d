"""Command-line interface: ``benchwarden <command>``; one module per subcommand, all of them thin.

:func:`main` is the only place where errors become messages and exit
statuses (see :class:`~benchwarden.cli.common.ExitStatus`): domain code raises
typed errors, commands return an exit status.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from typing import Sequence, TextIO

import click

from benchwarden import __version__
from benchwarden.cli.common import ExitStatus
from benchwarden.errors import BenchwardenError


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="benchwarden")
def cli() -> None:
    """benchwarden: run microbenchmark suites fast, compare versions soundly, assess the suite itself.

    Works with JMH jars, `go test` benchmarks, asv-format Python suites and plain commands,
    configured in benchwarden.toml (create one with `benchwarden init`).
    """


def _register() -> None:
    from benchwarden.cli.assess import assess_command
    from benchwarden.cli.audit import audit_command
    from benchwarden.cli.check import check_command
    from benchwarden.cli.compare import compare_command
    from benchwarden.cli.init import init_command
    from benchwarden.cli.replay import replay_command
    from benchwarden.cli.results import export_command, import_command, runs_command
    from benchwarden.cli.run import run_command
    from benchwarden.cli.show import show_command

    for command in (init_command, run_command, show_command, runs_command, export_command, import_command,
                    audit_command, replay_command, compare_command, check_command, assess_command):
        cli.add_command(command)


_register()


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run the CLI with injected arguments and streams; return the exit status (never calls sys.exit)."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        # click writes --help, --version and its own messages to sys.stdout/sys.stderr: point them at our streams.
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rv = cli.main(args=list(argv) if argv is not None else None, prog_name="benchwarden",
                          standalone_mode=False, obj={"stdout": out, "stderr": err})
    except click.exceptions.UsageError as exc:
        if exc.ctx is not None:
            err.write(exc.ctx.get_usage() + "\n")
        err.write(f"error: {exc.format_message()}\n")
        return ExitStatus.ERROR
    except click.exceptions.Exit as exc:  # --help, --version
        return int(exc.exit_code or 0)
    except (click.exceptions.Abort, KeyboardInterrupt):
        err.write("interrupted\n")
        return ExitStatus.INTERRUPTED
    except click.ClickException as exc:
        err.write(f"error: {exc.format_message()}\n")
        return ExitStatus.ERROR
    except BenchwardenError as exc:
        from benchwarden.runner.engine import RunInterrupted

        if isinstance(exc, RunInterrupted):
            err.write(f"{exc}\n")
            return ExitStatus.INTERRUPTED
        err.write(f"error: {exc}\n")
        return ExitStatus.ERROR
    if rv is None:
        return ExitStatus.OK
    return int(rv)


def _sigterm_to_interrupt(signum, frame):  # pragma: no cover - exercised by the e2e kill test
    raise KeyboardInterrupt()


def entry_point() -> None:
    """Console-script entry: SIGTERM behaves like Ctrl-C (stop the fork, keep completed forks)."""
    signal.signal(signal.SIGTERM, _sigterm_to_interrupt)
    sys.exit(main())
