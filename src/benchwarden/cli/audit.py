"""``benchwarden audit``: audit a project's JMH configuration (extraction, cost, findings; --history; --apply)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from benchwarden.cli.common import Invocation, common_options
from benchwarden.errors import StoreError
from benchwarden.locations import CONFIG_NAME
from benchwarden.report.escaping import visible

if TYPE_CHECKING:
    from benchwarden.audit.project import AuditReport

#: parameter grids with more combinations than this are reported (audit.findings.DEFAULT_GRID_THRESHOLD, which
#: imports tree-sitter; a test keeps the two equal)
DEFAULT_GRID_THRESHOLD = 50



def _observed_from_store(url: str) -> dict:
    """Observed dynamic-mode times from the most recent stored runs (oldest first, so newer ones win)."""
    from benchwarden.audit.cost import observed_seconds
    try:
        from benchwarden.store import open_store
    except ImportError as exc:
        raise StoreError(f"--store {url}: the result store is not available in this build ({exc})") from None
    store = open_store(url)
    try:
        summaries = store.list_runs(limit=20)
        runs = [store.load_run(s.id) for s in sorted(summaries, key=lambda s: s.created_at)]
    finally:
        store.close()
    return observed_seconds(runs)


def _observed(inv: Invocation, project: Path) -> dict | None:
    """Observed times from --store, else from the store of the audited project's config (--config, else the nearest
    benchwarden.toml at or above PATH), when that store exists; None when there is none (audit creates no store)."""
    from benchwarden.errors import ConfigError
    from benchwarden.locations import find_config, store_location

    if inv.store_url:
        return _observed_from_store(inv.store_url)
    if inv.config_path is not None and not inv.config_path.is_file():
        return None  # --apply may be about to create it
    try:
        config = inv.config_path or find_config(project)
    except ConfigError:
        return None
    url = store_location(config)
    if "://" not in url and not Path(url).is_file():
        return None
    return _observed_from_store(url)


def _audited_path(ctx: click.Context, path: Path, inv: Invocation) -> Path:
    """PATH, or with ``--suite NAME`` the directory of that jmh suite in the config."""
    if not inv.suite:
        return path
    from click.core import ParameterSource

    from benchwarden.config import load_config

    if ctx.get_parameter_source("path") is ParameterSource.COMMANDLINE:
        raise click.UsageError("give PATH or --suite, not both")
    if len(inv.suite) > 1:
        raise click.UsageError("--suite: audit one suite at a time")
    suite = load_config(inv.config_path).select(inv.suite)[0]
    if suite.kind != "jmh":
        raise click.UsageError(f"--suite {suite.name}: audit reads JMH projects; this suite is of kind {suite.kind!r}")
    return suite.context.root


def _apply_target(explicit: str, inv: Invocation) -> Path:
    if explicit:
        return Path(explicit)
    if inv.config_path is not None:
        return inv.config_path
    here = Path.cwd()
    for directory in (here, *here.parents):
        if (directory / CONFIG_NAME).is_file():
            return directory / CONFIG_NAME
    return here / CONFIG_NAME


def _print(report: AuditReport, inv: Invocation, markdown: bool) -> None:
    if inv.json:
        return
    from benchwarden.audit.render import build_tables, report_to_markdown, to_rich

    if markdown:
        inv.stdout.write(report_to_markdown(report))
        return
    for table in build_tables(report):
        inv.console.print(to_rich(table))
        inv.console.print()


@click.command("audit")
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--markdown", is_flag=True, help="Print the report as Markdown instead of terminal tables.")
@click.option("--history", is_flag=True,
              help="Also sample the git history monthly and report configuration changes and benchmarks "
                   "left unchanged since JMH changed its defaults (1.21).")
@click.option("--apply", "apply_to", is_flag=False, flag_value="", default=None, metavar="[FILE]",
              help="Append a [suites.NAME] table with dynamic bounds derived from the project's settings to FILE "
                   "(default: --config, else the nearest benchwarden.toml, else ./benchwarden.toml). "
                   "An existing table of that name is never replaced.")
@click.option("--name", "suite_name", metavar="NAME", help="Suite name for --apply (default: <directory>-jmh).")
@click.option("--jmh-version", metavar="VERSION", help="JMH version to assume instead of reading build files.")
@click.option("--grid-threshold", type=click.IntRange(min=1), default=DEFAULT_GRID_THRESHOLD, show_default=True,
              help="Report parameter grids with more combinations than this.")
@common_options("config", "suite", "filter", "store", "json")
def audit_command(path: Path, markdown: bool, history: bool, apply_to: str | None, suite_name: str | None,
                  jmh_version: str | None, grid_threshold: int, inv: Invocation) -> None:
    """Audit the JMH configuration of the project in PATH (default: the current directory, or --suite's).

    Reads @Benchmark methods and their @Fork/@Warmup/@Measurement/@BenchmarkMode/@Param settings with a Java
    parser, the JMH version from Maven/Gradle build files, and reports each benchmark's estimated time under
    its own configuration, JMH's defaults and benchwarden's dynamic mode, with findings and their consequences.
    Observed times come from the project's result store (--store, else its config's) when it has runs.
    """
    from benchwarden.audit.apply import apply_suite, available_stop_policy
    from benchwarden.audit.history import analyse_history
    from benchwarden.audit.project import audit_project, with_history
    from benchwarden.audit.render import report_to_json

    path = _audited_path(click.get_current_context(), path, inv)
    observed = _observed(inv, path)
    report = audit_project(path, jmh_version=jmh_version, grid_threshold=grid_threshold, observed=observed,
                           name_filter=inv.filter)
    if history:
        hist, findings = analyse_history(path, report, jmh_version=jmh_version)
        report = with_history(report, hist, findings)
    applied = None
    if apply_to is not None:
        target = _apply_target(apply_to, inv)
        name, table = apply_suite(report, path, target, suite_name, available_stop_policy())
        applied = {"file": str(target), "suite": name, "table": table}
    if inv.json:
        payload = report_to_json(report)
        if applied is not None:
            payload["applied"] = applied
        inv.emit_json(payload)
        return
    _print(report, inv, markdown)
    if applied is not None:
        inv.err_console.print(visible(f"Wrote [suites.{applied['suite']}] to {applied['file']}:"), markup=False,
                              highlight=False)
        inv.err_console.print(visible(applied["table"], keep_newlines=True), markup=False, highlight=False)


__all__ = ["audit_command"]
