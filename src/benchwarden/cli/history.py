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
@click.option("--metric", "metric_name", metavar="NAME",
              help="The series of a secondary metric instead of the primary one: allocs, bytes, mem.peak, ... "
                   "(docs/metrics.md).")
@click.option("--alpha", type=FiniteFloatRange(1e-9, 0.1), default=0.001, show_default=True,
              help="Significance level of a change point (its interval is at 1 - alpha).")
@click.option("--markdown", "markdown_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Also write the tables as Markdown to this file.")
@click.option("--html", "html_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Also write an HTML report here: per series a plot of the commits with the change points marked.")
@click.option("--confirm", is_flag=True,
              help="Re-measure each change point found on this machine: `compare` of its two commits (interleaved, "
                   "sequential verdict); marks it confirmed, refuted or inconclusive.")
def history_command(inv: Invocation, benchmarks: tuple[str, ...], machines: tuple[str, ...], repo: Path | None,
                    metric_name: str | None, alpha: float, markdown_path: Path | None, html_path: Path | None, confirm: bool) -> int:
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
    view = _view(metric_name, confirm)

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
        series = build_series(stored, store.load_run, known, keep, view,
                              skipped=lambda name, why: notes.append(f"{name}: {why}"))
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
    confirmations = _confirm(inv, histories, root, notes) if confirm else {}
    if inv.json:
        documents = [h.to_json() for h in histories]
        for h, document in zip(histories, documents):
            for change, point in zip(h.changes, document["change_points"]):  # type: ignore[call-overload]
                outcome = confirmations.get((h.series.benchmark, h.series.machine_key, change.after.commit))
                if outcome is not None:
                    point["confirmation"] = outcome.to_json()
        inv.emit_json({"alpha": alpha, "series": documents, "notes": notes})
    else:
        _print(inv, histories, notes, alpha, confirmations)
    if markdown_path is not None:
        from benchwarden.report.history_table import changes_table, series_table
        from benchwarden.report.table import to_markdown

        text = to_markdown(series_table(histories, "series")) + "\n" + to_markdown(
            changes_table(histories, "change points", _states(confirmations) if confirm else None))
        _write(markdown_path, text.encode())
    if html_path is not None:
        from benchwarden.report.history_html import history_html

        _write(html_path, history_html(histories, notes, alpha, _states(confirmations) if confirm else None))
    return ExitStatus.OK


def _write(path: Path, data: bytes) -> None:
    from benchwarden.errors import UsageError

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def _view(metric_name: str | None, confirm: bool):
    """The series' metric: the primary one, or the secondary metric ``--metric`` names (a usage error otherwise)."""
    from benchwarden.history.series import primary_view, secondary_view
    from benchwarden.metrics.catalog import SECONDARY

    if metric_name is None:
        return primary_view
    judged = sorted(name for name, m in SECONDARY.items() if m.judged)
    if metric_name not in judged:
        raise click.UsageError(f"--metric {metric_name}: not a secondary metric benchwarden judges "
                               f"(one of: {', '.join(judged)}; the primary metric is the default)")
    if confirm:
        raise click.UsageError("--confirm re-measures change points of the primary metric; not with --metric")
    return secondary_view(metric_name)


def _confirm(inv: Invocation, histories: list, root: Path, notes: list[str]) -> dict:
    """(benchmark, machine key, after commit) -> Confirmation, for every change point found on this machine."""
    from benchwarden.cli.progress import CompareProgressLines
    from benchwarden.compare.settings import CompareSettings
    from benchwarden.config import load_config
    from benchwarden.environment import machine_identity, machine_key
    from benchwarden.history.confirm import confirm

    config = load_config(inv.config_path)
    settings = config.section("compare", CompareSettings)
    here = machine_key(machine_identity())
    found = {}
    with store_for(inv) as store:
        for h in histories:
            if not h.changes:
                continue
            if h.series.machine_key != here:
                notes.append(f"{h.series.benchmark}: its change points on {h.series.machine_key} were not "
                             f"re-measured (this machine is {here})")
                continue
            for change in h.changes:
                inv.err_console.print(f"confirming {h.series.benchmark}: {change.before.commit[:8]}.."
                                      f"{change.after.commit[:8]}", markup=False, highlight=False)
                found[(h.series.benchmark, h.series.machine_key, change.after.commit)] = confirm(
                    change, h.series.benchmark, list(config.suites.values()), root, store, settings,
                    listener=CompareProgressLines(inv.err_console))
    return found


def _states(confirmations: dict) -> dict:
    return {key: c.state for key, c in confirmations.items()}


def _default_repo(inv: Invocation) -> Path:
    from benchwarden.errors import ConfigError
    from benchwarden.locations import find_config

    if inv.config_path is not None:
        return inv.config_path.resolve().parent
    try:
        return find_config().parent
    except ConfigError:
        return Path.cwd()


def _print(inv: Invocation, histories: list, notes: list[str], alpha: float, confirmations: dict) -> None:
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
        changes = changes_table(histories, "change points", _states(confirmations) if confirmations else None)
        if changes.rows:
            console.print(to_rich(changes))
            console.print(f"commits: the change lies in this git range; ratio: new/old value per op with its "
                          f"{1 - alpha:.1%} interval; n: commits tested before+after.", style="dim")
        else:
            console.print("no change points")
    for h in histories:
        for note in [*h.series.notes, *h.detection.warnings]:
            console.print(f"note: {rich_text(h.series.benchmark)} on {rich_text(h.series.machine_key)}: "
                          f"{rich_text(note)}", style="dim")
    for note in notes:
        console.print(f"note: {rich_text(note)}", style="dim")
