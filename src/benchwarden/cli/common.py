"""What every subcommand shares: the common options, the invocation context, exit statuses.

Subcommands are thin: they parse options into a :class:`Invocation`, call
domain code, and render.  Domain code raises typed errors
(:mod:`benchwarden.errors`); only :func:`benchwarden.cli.main` turns them into
messages and exit statuses.  With ``--json`` the machine-readable result is
the only thing written to stdout; progress and messages go to stderr.
"""

from __future__ import annotations

import enum
import functools
import math
import json
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TextIO

import click

if TYPE_CHECKING:  # heavy modules are imported where they are used (start-up time, docs/performance.md)
    from rich.console import Console

    from benchwarden.config import RunSettings, Suite


class ExitStatus(enum.IntEnum):
    OK = 0
    REGRESSION = 1  # a comparison found a regression / an assertion failed: the tool worked
    ERROR = 2  # usage error, bad config, missing toolchain, a benchmark failed to run
    INTERRUPTED = 130


@dataclass
class Invocation:
    """Resolved common options plus the streams a command writes to (injected for tests)."""

    config_path: Path | None = None
    suite: tuple[str, ...] = ()
    filter: str | None = None
    store_url: str | None = None
    json: bool = False
    quiet: bool = False
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)

    # emoji=False: ":x:" in a benchmark name must stay ":x:" (names are data, see report/escaping.py)
    @functools.cached_property
    def console(self) -> Console:
        """Human output: stdout normally, stderr under --json (stdout then carries only JSON)."""
        from rich.console import Console

        stream = self.stderr if self.json else self.stdout
        return Console(file=stream, highlight=False, soft_wrap=False, width=_width(stream), emoji=False)

    @functools.cached_property
    def err_console(self) -> Console:
        from rich.console import Console

        return Console(file=self.stderr, highlight=False, width=_width(self.stderr), emoji=False)

    def emit_json(self, payload: Any) -> None:
        self.stdout.write(json.dumps(payload, indent=2, sort_keys=False, default=str))
        self.stdout.write("\n")


def parse_duration_option(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    """click callback for duration options (``--iteration-time 200ms``): seconds, or a usage error naming the option."""
    if value is None:
        return None
    from benchwarden.units import parse_duration_s

    try:
        return parse_duration_s(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


class FiniteFloatRange(click.FloatRange):
    """``click.FloatRange`` that also refuses ``nan`` and ``inf`` (click lets them through: nan compares false)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


def _width(stream: TextIO) -> int | None:
    """Terminal width for a TTY (rich decides); a wide fixed width for logs and files, so names never wrap."""
    isatty = getattr(stream, "isatty", None)
    return None if (isatty is not None and isatty()) else 200


def common_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--config --suite --filter --store --json`` and pass an :class:`Invocation` as ``inv``."""

    @click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False),
                  help="benchwarden.toml to use (default: searched from the working directory upwards).")
    @click.option("--suite", "suite", multiple=True, metavar="NAME",
                  help="Only this suite (repeatable). Default: every suite in the config.")
    @click.option("--filter", "filter_", metavar="REGEX",
                  help="Only benchmarks whose key matches this regular expression (re.search).")
    @click.option("--store", "store_url", metavar="URL",
                  help="Result store: a SQLAlchemy URL or a path to a SQLite file (default: .benchwarden/results.db next to the config).")
    @click.option("--json", "as_json", is_flag=True, help="Print the machine-readable result on stdout and nothing else there.")
    @functools.wraps(func)
    def wrapper(*args: Any, config_path: Path | None, suite: tuple[str, ...], filter_: str | None,
                store_url: str | None, as_json: bool, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        streams = ctx.obj or {}
        inv = Invocation(config_path=config_path, suite=suite, filter=filter_, store_url=store_url, json=as_json,
                         stdout=streams.get("stdout", sys.stdout), stderr=streams.get("stderr", sys.stderr))
        return func(*args, inv=inv, **kwargs)

    return wrapper


def with_bound_flags(suite: Suite, forks: int | None = None, warmup: int | None = None,
                     iterations: int | None = None, iteration_time: float | None = None,
                     settings: RunSettings | None = None) -> Suite:
    """``suite`` with the shared ``--forks N``, ``--warmup N``, ``--iterations N``, ``--iteration-time D`` flags
    applied to ``settings`` (default: the suite's own); a fixed count sets both bounds, and flags win over
    per-benchmark overrides (:meth:`RunSettings.with_flags`)."""
    changed: dict[str, Any] = {}
    if forks is not None:
        changed.update(forks_min=forks, forks_max=forks)
    if warmup is not None:
        changed.update(warmup_min=warmup, warmup_max=warmup)
    if iterations is not None:
        changed["iterations"] = iterations
    if iteration_time is not None:
        changed["iteration_time_s"] = iteration_time
    return replace(suite, settings=(settings or suite.settings).with_flags(**changed))
