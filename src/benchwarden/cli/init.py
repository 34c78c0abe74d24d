"""`benchwarden init`: detect suites in a repository, write a commented benchwarden.toml, count their benchmarks."""

from __future__ import annotations

from pathlib import Path

import click

from benchwarden.cli.common import ExitStatus, Invocation, common_options, reject_options
from benchwarden.errors import BenchwardenError
from benchwarden.locations import CONFIG_NAME, ignore_store_folder
from benchwarden.report.escaping import visible


@click.command("init")
@common_options("config", "json")
@click.argument("path", type=click.Path(path_type=Path, file_okay=False, exists=True), default=".")
@click.option("--force", is_flag=True, help=f"Overwrite an existing {CONFIG_NAME}.")
@click.option("--print", "print_only", is_flag=True, help="Print the config instead of writing it (lists nothing).")
@click.option("--no-list", is_flag=True, help="Do not build and list the suites afterwards (no benchmark counts).")
def init_command(inv: Invocation, path: Path, force: bool, print_only: bool, no_list: bool) -> int:
    """Detect JMH, Go and asv-format Python suites under PATH and write a commented benchwarden.toml.

    Unit tests (JUnit tests of Maven projects, Go test functions) become suites too, measured as
    workloads; beside benchmark suites they are only proposed, commented out.

    Then builds and lists each suite as `run` would and prints how many benchmarks it has (and how long
    a run may take), so a suite that does not build shows up now; --no-list skips that. The config goes
    to PATH/benchwarden.toml, or to --config.
    """
    from benchwarden.detect import detect_suites, render_config

    if print_only:
        reject_options(click.get_current_context(), ("force", "no_list", "config_path"),
                       "--print writes nothing and lists nothing")
    suites = detect_suites(path)
    text = render_config(suites)
    detected = [{**s.__dict__} for s in suites]
    if print_only:
        if inv.json:
            inv.emit_json({"suites": detected, "config": text})
        else:
            inv.stdout.write(text)
        return ExitStatus.OK
    target = inv.config_path or path / CONFIG_NAME
    if target.exists() and not force:
        raise BenchwardenError(f"{target} already exists; pass --force to overwrite it, or --print to see "
                               f"what would be written")
    target.write_text(text, encoding="utf-8")
    ignored = ignore_store_folder(target.parent)
    if not inv.json:
        found = ", ".join(f"{s.name} ({s.kind}, {s.path}{'; proposed, commented out' if s.proposed else ''})"
                          for s in suites) or "none"
        inv.console.print(visible(f"wrote {target}; suites found: {found}"), markup=False, highlight=False)
        if ignored is not None:
            inv.console.print(visible(f"added .benchwarden/ (the result store) to {ignored}"), markup=False,
                              highlight=False)
    listed = {} if (no_list or all(s.proposed for s in suites)) else _list_suites(inv, target)
    if inv.json:
        inv.emit_json({"config_path": str(target), "gitignore": str(ignored) if ignored else None, "suites": [{**d, **listed.get(d["name"], {})} for d in detected]})
    return ExitStatus.OK


def _list_suites(inv: Invocation, config_path: Path) -> dict[str, dict]:
    """Prepare and list every suite of the new config, one at a time; print what each has (or why not)."""
    from benchwarden.cli.listing import planned_rows
    from benchwarden.cli.progress import run_progress
    from benchwarden.config import load_config
    from benchwarden.errors import in_suite
    from benchwarden.report.plan_table import plan_summary
    from benchwarden.runner.engine import plan_run

    config = load_config(config_path)
    listed: dict[str, dict] = {}
    for suite in config.suites.values():
        with run_progress(inv.err_console, quiet=True) as progress:  # failures are reported below, once
            plan = plan_run([suite], listener=progress, measure=False)
        if suite.name in plan.failed_suites:
            error = in_suite(suite.name, plan.failed_suites[suite.name])
            listed[suite.name] = {"benchmarks": None, "error": error}
            inv.console.print(visible(f"  {suite.name}: could not be listed — {error}", keep_newlines=True),
                              style="yellow", markup=False, highlight=False)
            continue
        rows = planned_rows(plan)
        listed[suite.name] = {"benchmarks": len(rows), "functions": len({r.name for r in rows})}
        inv.console.print(visible(f"  {suite.name}: {plan_summary(rows)}"), markup=False, highlight=False)
    if any(v["benchmarks"] is None for v in listed.values()):
        inv.console.print(f"fix the build or path of those suites in {visible(str(config_path))}, then check with "
                          "`benchwarden list`", markup=False, highlight=False)
    return listed
