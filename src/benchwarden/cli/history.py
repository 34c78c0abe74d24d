"""``benchwarden history [BENCHMARK...]``: per benchmark and machine, the series in commit order and its change points."""

from __future__ import annotations

from pathlib import Path

import click

from benchwarden.cli.common import ExitStatus, FiniteFloatRange, Invocation, common_options
from benchwarden.cli.store_access import store_for


@click.command("history")
@common_options("config", "suite", "filter", "store", "json")
@click.argument("benchmarks", nargs=-1, metavar="[BENCHMARK]...")
@click.option("--machine", "machines", multiple=True, metavar="KEY",
              help="Only the series of this machine key (repeatable; `history --json` shows the keys).")
@click.option("--repo", type=click.Path(path_type=Path, file_okay=False, exists=True),
              help="git work tree whose history orders the commits (default: the config file's folder, else the "
                   "working directory).")
@click.option("--alpha", type=FiniteFloatRange(1e-9, 0.1), default=0.001, show_default=True,
              help="Significance level of a change point (its interval is at 1 - alpha).")
@click.option("--markdown", "markdown_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Also write the tables as Markdown to this file.")
def history_command(inv: Invocation, benchmarks: tuple[str, ...], machines: tuple[str, ...], repo: Path | None,
                    alpha: float, markdown_path: Path | None) -> int:
    """Show each benchmark's series per machine in commit order, and the change points found in it.

    BENCHMARK is `suite:key` or a key (default: every benchmark; --suite and --filter narrow it). A change
    point is reported when PELT proposes it and Student's t on the commits of both segments holds it at
    --alpha, with a step of at least the run-to-run noise (docs/history.md). Commits are ordered by git's
    history in --repo; their place is also stored.
    """
    from benchwarden.history.analysis import analyse
    from benchwarden.history.changepoints import DetectionSettings
    from benchwarden.history.gitlog import commit_infos, is_repository
    from benchwarden.history.series import build_series
    from benchwarden.runner.engine import compile_filters

    keep_key = compile_filters(inv.filter)

    def keep(name: str) -> bool:
        suite, _, key = name.partition(":")
        return (not inv.suite or suite in inv.suite) and keep_key(key) and \
            (not benchmarks or name in benchmarks or key in benchmarks)

    root = repo or _default_repo(inv)
    notes = []
    with store_for(inv) as store:
        stored = store.stored_runs()
        shas = sorted({r.meta.commit for r in stored if r.meta.commit})
        known = store.commits(shas)
        if is_repository(root):
            from_git = commit_infos(root, shas)
            if from_git:
                store.record_commits(list(from_git.values()))
            known = {**known, **from_git}
        else:
            notes.append(f"{root} is not a git work tree: commits are placed by what the store knows")
        series = build_series(stored, store.load_run, known, keep)
    if inv.suite:
        present = {s.benchmark.partition(":")[0] for s in series}
        missing = [name for name in inv.suite if name not in present]
        if missing:
            raise click.UsageError(f"--suite {', '.join(missing)}: no stored runs of that suite")
    if benchmarks:
        found = {s.benchmark for s in series} | {s.benchmark.partition(":")[2] for s in series}
        missing = [b for b in benchmarks if b not in found]
        if missing:
            raise click.UsageError(f"no stored runs of {', '.join(missing)} (give `suite:key` or a key as `show` "
                                   "lists them)")
    if machines:
        present = {s.machine_key for s in series}
        missing = [m for m in machines if m not in present]
        if missing:
            raise click.UsageError(f"--machine {', '.join(missing)}: no series on that machine (machines: "
                                   f"{', '.join(sorted(present)) or 'none'})")
        series = [s for s in series if s.machine_key in machines]
    settings = DetectionSettings(alpha=alpha)
    histories = [analyse(s, settings) for s in series if s.points]
    if inv.json:
        inv.emit_json({"alpha": alpha, "series": [h.to_json() for h in histories], "notes": notes})
    else:
        _print(inv, histories, notes, alpha)
    if markdown_path is not None:
        from benchwarden.report.history_table import changes_table, series_table
        from benchwarden.report.table import to_markdown

        text = to_markdown(series_table(histories, "series")) + "\n" + to_markdown(changes_table(histories,
                                                                                                 "change points"))
        markdown_path.write_text(text, encoding="utf-8")
    return ExitStatus.OK


def _default_repo(inv: Invocation) -> Path:
    from benchwarden.errors import ConfigError
    from benchwarden.locations import find_config

    if inv.config_path is not None:
        return inv.config_path.resolve().parent
    try:
        return find_config().parent
    except ConfigError:
        return Path.cwd()


def _print(inv: Invocation, histories: list, notes: list[str], alpha: float) -> None:
    from benchwarden.report.escaping import rich_text
    from benchwarden.report.history_table import changes_table, series_table
    from benchwarden.report.table import to_rich

    console = inv.console
    if not histories:
        console.print("no stored runs with a commit for these benchmarks")
    else:
        console.print(to_rich(series_table(histories, "series (per benchmark and machine, in commit order)")))
        console.print("level now: geometric mean of the commits since the last change point; noise: run-to-run "
                      "standard deviation (relative).", style="dim")
        changes = changes_table(histories, "change points")
        if changes.rows:
            console.print(to_rich(changes))
            console.print(f"commits: the change lies in this git range; ratio: new/old time per op with its "
                          f"{1 - alpha:.1%} interval; n: commits tested before+after.", style="dim")
        else:
            console.print("no change points")
    for h in histories:
        for note in [*h.series.notes, *h.detection.warnings]:
            console.print(f"note: {rich_text(h.series.benchmark)} on {rich_text(h.series.machine_key)}: "
                          f"{rich_text(note)}", style="dim")
    for note in notes:
        console.print(f"note: {rich_text(note)}", style="dim")
