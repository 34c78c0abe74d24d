"""`benchwarden init`: detect suites in a repository and write a commented benchwarden.toml."""

from __future__ import annotations

from pathlib import Path

import click

from benchwarden.cli.common import ExitStatus, Invocation, common_options
from benchwarden.locations import CONFIG_NAME
from benchwarden.detect import detect_suites, render_config
from benchwarden.errors import BenchwardenError
from benchwarden.report.escaping import visible


@click.command("init")
@common_options("config", "json")
@click.argument("path", type=click.Path(path_type=Path, file_okay=False, exists=True), default=".")
@click.option("--force", is_flag=True, help=f"Overwrite an existing {CONFIG_NAME}.")
@click.option("--print", "print_only", is_flag=True, help="Print the config instead of writing it.")
def init_command(inv: Invocation, path: Path, force: bool, print_only: bool) -> int:
    """Detect JMH, Go and asv-format Python suites under PATH and write a commented benchwarden.toml."""
    suites = detect_suites(path)
    text = render_config(suites)
    if inv.json:
        inv.emit_json({"suites": [s.__dict__ for s in suites], "config": text})
        return ExitStatus.OK
    if print_only:
        inv.stdout.write(text)
        return ExitStatus.OK
    target = (inv.config_path or path / CONFIG_NAME)
    if target.exists() and not force:
        raise BenchwardenError(f"{target} already exists; pass --force to overwrite it, or --print to see "
                               f"what would be written")
    target.write_text(text, encoding="utf-8")
    found = ", ".join(f"{s.name} ({s.kind}, {s.path})" for s in suites) or "none"
    inv.console.print(visible(f"wrote {target}; suites found: {found}"), markup=False, highlight=False)
    return ExitStatus.OK
