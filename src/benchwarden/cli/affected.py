"""`benchwarden affected`: which benchmarks a change between two revisions affects, and why (issue #16)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import cast

import click

from benchwarden.cli.common import ExitStatus, Invocation, common_options
from benchwarden.errors import BenchwardenError, in_suite
from benchwarden.report.escaping import rich_text


@click.command("affected")
@click.argument("base", required=False)
@click.argument("candidate", required=False)
@common_options("config", "suite", "filter", "json")
def affected_command(inv: Invocation, base, candidate) -> int:
    """List the benchmarks that BASE → CANDIDATE affects: those that call a changed method.

    BASE defaults to HEAD and CANDIDATE to the working tree (WORKTREE). Changed methods come from the
    two versions' code (formatting and comments do not count); what each benchmark calls is traced at
    both revisions, one short fork per benchmark. A change outside any method (a field, an import, a
    build file) or in code that is not traced affects every benchmark. Measures nothing; exit 0.
    """
    from benchwarden.codelevel.selector import find_affected
    from benchwarden.codelevel.settings import AffectedSettings
    from benchwarden.config import load_config
    from benchwarden.report.affected_table import affected_summary, affected_table
    from benchwarden.report.escaping import visible
    from benchwarden.report.table import to_rich
    from benchwarden.revisions import WORKTREE, repository_root

    config = load_config(inv.config_path)
    settings = cast(AffectedSettings, config.section("affected", AffectedSettings))
    repo = repository_root(config.root)
    base_ref, candidate_ref = base or "HEAD", candidate or WORKTREE
    reports, failed = [], False
    with tempfile.TemporaryDirectory(prefix="benchwarden-affected-") as tmp:
        for suite in config.select(inv.suite):
            try:
                reports.append(find_affected(
                    suite, repo, base_ref, candidate_ref, inv.filter, Path(tmp) / suite.name,
                    log=lambda m: inv.err_console.print(f"affected: {rich_text(m)}", highlight=False),
                    ignore=settings.ignore))
            except BenchwardenError as exc:
                if len(config.select(inv.suite)) == 1:
                    raise
                inv.err_console.print(f"error: {rich_text(in_suite(suite.name, exc))}", highlight=False)
                failed = True
    if inv.json:
        inv.emit_json({"v": 1, "suites": [r.to_json() for r in reports]})
    else:
        for report in reports:
            inv.console.print(to_rich(affected_table(report)))
            inv.console.print(visible(affected_summary(report)), markup=False, highlight=False)
            for key, why in report.failed.items():
                inv.err_console.print(f"warning: tracing {rich_text(key)} failed, so it counts as affected: "
                                      f"{rich_text(why.splitlines()[0])}", highlight=False)
    return ExitStatus.ERROR if failed else ExitStatus.OK
