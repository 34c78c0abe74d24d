"""Command-line interface: ``benchwarden <command>``; one module per subcommand, all of them thin.

:func:`main` is the only place where errors become messages and exit
statuses (see :class:`~benchwarden.cli.common.ExitStatus`): domain code raises
typed errors, commands return an exit status.
"""

from __future__ import annotations

import contextlib
import importlib
import signal
import sys
from pathlib import Path
from typing import Sequence, TextIO

import click

from benchwarden import __version__
from benchwarden.cli.common import ExitStatus
from benchwarden.errors import BenchwardenError
from benchwarden.report.escaping import visible

#: subcommand -> (module under benchwarden.cli, attribute, one-line help for `benchwarden --help`), in help order.
#: Modules are imported only when their command runs (or shows its own --help), so `benchwarden --help` and light
#: commands start without numpy, scipy, matplotlib or SQLAlchemy (docs/performance.md, "Start-up").
COMMANDS: dict[str, tuple[str, str, str]] = {
    "init": ("init", "init_command", "Detect benchmark suites and write a commented benchwarden.toml."),
    "list": ("listing", "list_command", "List what a run would measure: benchmarks, bounds, time range."),
    "run": ("run", "run_command", "Run benchmarks and store every iteration of every fork."),
    "show": ("show", "show_command", "Show a stored run: mean, CI, CV and effort per benchmark."),
    "runs": ("results", "runs_command", "List stored runs, newest first."),
    "backfill": ("backfill", "backfill_command", "Measure past commits A..B, one run each, in cached worktrees."),
    "history": ("history", "history_command", "Series per benchmark and machine in commit order, with change points."),
    "bisect": ("bisect", "bisect_command", "Find the first commit of GOOD..BAD that made a benchmark slower."),
    "compare": ("compare", "compare_command", "Compare two versions: faster, slower, unchanged or inconclusive."),
    "explain": ("explain", "explain_command", "Explain a stored comparison: the methods where the time changed."),
    "affected": ("affected", "affected_command", "Which benchmarks a change affects: those calling a changed method."),
    "check": ("check", "check_command", "Check performance assertions (Stochastic Performance Logic)."),
    "assess": ("assess", "assess_command", "Assess the suite: variability and API benchmarking score."),
    "audit": ("audit", "audit_command", "Audit a project's JMH configuration: cost, defaults, findings."),
    "site": ("site", "site_group", "Build a static, offline site: overview, benchmark pages, comparisons."),
    "serve": ("serve", "serve_command", "Serve the site live and measure parameter values on demand."),
    "docs": ("docs", "docs_command", "Add Performance sections to the Javadoc of documented methods."),
    "replay": ("replay", "replay_command", "Simulate dynamic stopping on a stored wide static run."),
    "export": ("results", "export_command", "Export a stored run as JSON."),
    "import": ("results", "import_command", "Import results: a benchwarden export, JMH JSON or go test output."),
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use (click's documented LazyGroup pattern).

    ``benchwarden --help`` lists :data:`COMMANDS` without importing any of them.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*COMMANDS, *(name for name in super().list_commands(ctx) if name not in COMMANDS)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return super().get_command(ctx, cmd_name)  # added with add_command (tests)
        module, attribute, short_help = entry
        command = getattr(importlib.import_module(f"benchwarden.cli.{module}"), attribute)
        command.short_help = short_help
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, short) for name, (_, _, short) in COMMANDS.items()])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="benchwarden")
def cli() -> None:
    """benchwarden: run microbenchmark suites fast, compare versions soundly, assess the suite itself.

    Works with JMH jars, `go test` benchmarks, asv-format Python suites and plain commands,
    configured in benchwarden.toml (create one with `benchwarden init`).
    """


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
        err.write(f"error: {visible(exc.format_message(), keep_newlines=True)}\n")
        return ExitStatus.ERROR
    except click.exceptions.Exit as exc:  # --help, --version
        return int(exc.exit_code or 0)
    except (click.exceptions.Abort, KeyboardInterrupt):
        err.write("interrupted\n")
        return ExitStatus.INTERRUPTED
    except click.ClickException as exc:
        err.write(f"error: {visible(exc.format_message(), keep_newlines=True)}\n")
        return ExitStatus.ERROR
    except BenchwardenError as exc:
        from benchwarden.runner.engine import RunInterrupted

        if isinstance(exc, RunInterrupted):
            err.write(f"{visible(str(exc), keep_newlines=True)}\n")
            return ExitStatus.INTERRUPTED
        err.write(f"error: {visible(str(exc), keep_newlines=True)}\n")
        return ExitStatus.ERROR
    except Exception as exc:  # noqa: BLE001 - the one place that turns a defect into a message, not a traceback
        err.write(internal_error_message(exc))
        return ExitStatus.ERROR
    if rv is None:
        return ExitStatus.OK
    return int(rv)


BUG_REPORT_HINT = "this is a bug in benchwarden: please report it with the command you ran and this message"


def internal_error_message(exc: BaseException, limit: int = 300) -> str:
    """One short line for an unexpected exception: its type, a capped and escaped message, where it was raised.

    Exit status 2 (tool error), never 1 (which means "regression found"), and never a traceback: the
    innermost frame inside benchwarden is enough to file a report.
    """
    import traceback

    text = str(exc)
    if len(text) > limit:
        text = text[:limit] + f"... ({len(text) - limit} more characters)"
    text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    where = ""
    package = Path(__file__).resolve().parents[1]
    inside = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).resolve().is_relative_to(package)]
    if inside:
        last = inside[-1]
        where = f" at benchwarden/{Path(last.filename).resolve().relative_to(package).as_posix()}:{last.lineno}"
    detail = f": {text}" if text else ""
    return f"error: internal error ({type(exc).__name__}{detail}){where}\n{BUG_REPORT_HINT}\n"


def _sigterm_to_interrupt(signum, frame):  # pragma: no cover - exercised by the e2e kill test
    raise KeyboardInterrupt()


def entry_point() -> None:
    """Console-script entry: SIGTERM behaves like Ctrl-C (stop the fork, keep completed forks)."""
    signal.signal(signal.SIGTERM, _sigterm_to_interrupt)
    sys.exit(main())
