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
import json
import math
import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, TextIO

import click

if TYPE_CHECKING:  # heavy modules are imported where they are used (start-up time, docs/performance.md)
    from rich.console import Console

    from benchwarden.compare.settings import CompareSettings
    from benchwarden.config import Config, RunSettings, Suite
    from benchwarden.model import RunData


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

    def select_results(self, data: RunData) -> RunData:
        """``data`` with only the benchmarks ``--suite`` and ``--filter`` select (for commands that read stored
        runs); a usage error when ``--suite`` names a suite the run does not have."""
        from dataclasses import replace as replace_

        from benchwarden.runner.engine import compile_filters

        present = {r.benchmark.id.suite for r in data.results}
        missing = [s for s in self.suite if s not in present]
        if missing:
            raise click.UsageError(f"--suite {', '.join(missing)}: run {data.id} has no such suite "
                                   f"(it has: {', '.join(sorted(present)) or 'no benchmarks'})")
        keep = compile_filters(self.filter)
        return replace_(data, results=tuple(r for r in data.results if keep(r.benchmark.id.key)
                                            and (not self.suite or r.benchmark.id.suite in self.suite)))

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


#: width of output that is not a terminal (CI logs, files): wide, so names rarely need shortening
LOG_WIDTH = 200


def _width(stream: TextIO) -> int | None:
    """``COLUMNS`` when set; else the terminal's width for a TTY (rich decides); else :data:`LOG_WIDTH`."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    isatty = getattr(stream, "isatty", None)
    return None if (isatty is not None and isatty()) else LOG_WIDTH


_COMMON = {
    "config": click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False),
                           help="benchwarden.toml to use (default: searched from the working directory upwards)."),
    "suite": click.option("--suite", "suite", multiple=True, metavar="NAME",
                          help="Only this suite (repeatable). Default: every suite in the config."),
    "filter": click.option("--filter", "filter_", metavar="REGEX",
                           help="Only benchmarks whose key matches this regular expression (re.search)."),
    "store": click.option("--store", "store_url", metavar="URL",
                          help="Result store: a SQLAlchemy URL or a path to a SQLite file (default: the config's "
                               "[store], else .benchwarden/results.db next to the config)."),
    "json": click.option("--json", "as_json", is_flag=True,
                         help="Print the machine-readable result on stdout and nothing else there."),
}


def common_options(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add the shared options a command honours (any of ``config suite filter store json``, in that order) and
    pass an :class:`Invocation` as ``inv``.

    A command lists only the options it uses: one it does not list is not accepted at all (click's "no such
    option", exit 2), so ``benchwarden runs --filter X`` is an error instead of being silently ignored.
    """
    unknown = set(names) - set(_COMMON)
    if unknown or not names:
        raise ValueError(f"common_options: unknown or no option names {sorted(unknown)}")

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapper(*args: Any, config_path: Path | None = None, suite: tuple[str, ...] = (),
                    filter_: str | None = None, store_url: str | None = None, as_json: bool = False,
                    **kwargs: Any) -> Any:
            ctx = click.get_current_context()
            streams = ctx.obj or {}
            inv = Invocation(config_path=config_path, suite=suite, filter=filter_, store_url=store_url,
                             json=as_json, stdout=streams.get("stdout") or sys.stdout,
                             stderr=streams.get("stderr") or sys.stderr)
            return func(*args, inv=inv, **kwargs)

        for name in reversed([n for n in _COMMON if n in names]):
            wrapper = _COMMON[name](wrapper)
        return wrapper

    return decorate


def given_options(ctx: click.Context, names: Iterable[str]) -> list[str]:
    """The options among ``names`` (parameter names) that the user gave, as their flags (``--filter``)."""
    from click.core import ParameterSource

    by_name = {p.name: p for p in ctx.command.params}
    found = []
    for name in names:
        source = ctx.get_parameter_source(name)
        if source in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
            param = by_name[name]
            found.append(param.opts[0] if param.opts else name)
    return found


def reject_options(ctx: click.Context, names: Iterable[str], reason: str) -> None:
    """A usage error (exit 2) naming every option among ``names`` that was given; ``reason`` says why none apply."""
    given = given_options(ctx, names)
    if given:
        raise click.UsageError(f"{', '.join(given)}: {reason}", ctx)


def _parse_params(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    from benchwarden.adapters.params import parse_assignments

    try:
        return parse_assignments(values, "-p")
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


#: ``-p NAME=V1,V2`` (repeatable): parameter overrides on top of each suite's ``params`` table
param_option = click.option(
    "-p", "--param", "params", multiple=True, callback=_parse_params, metavar="NAME=V1,V2",
    help="Parameter values (repeatable): JMH @Param values to run (as JMH's -p), asv params or Go sub-benchmark "
         "path elements to select. Wins over the suite's params table.")


def with_params(suite: Suite, params: dict[str, tuple[str, ...]]) -> Suite:
    """``suite`` with ``-p`` overrides on top of its ``params`` table (a name given on the command line wins)."""
    if not params:
        return suite
    return replace(suite, context=replace(suite.context, params={**suite.context.params, **params}))


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


def compare_settings(config: "Config | None", **overrides: Any) -> "CompareSettings":
    """The config's ``[compare]`` settings with the command line's options on top (None: not given), for every
    command that judges with compare's rule (``compare``, ``bisect``); a bad value is a usage error naming the
    option."""
    from pydantic import ValidationError

    from benchwarden.compare.settings import CompareSettings
    from benchwarden.errors import UsageError

    base = config.section("compare", CompareSettings) if config is not None else CompareSettings()
    given = {k: v for k, v in overrides.items() if v is not None}
    if not given:
        return base  # type: ignore[return-value]
    try:
        return CompareSettings.model_validate({**base.model_dump(), **given})
    except ValidationError as exc:
        first = exc.errors()[0]
        option = "--" + str(first["loc"][0]).replace("_", "-") if first["loc"] else "options"
        raise UsageError(f"{option}: {first['msg'].removeprefix('Value error, ')}") from None
