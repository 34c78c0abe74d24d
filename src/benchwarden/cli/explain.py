"""`benchwarden explain [RUN [RUN]]`: ``compare --explain`` for a comparison already stored."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import click

from benchwarden.cli.common import ExitStatus, Invocation, common_options, compare_settings
from benchwarden.cli.store_access import store_url_for
from benchwarden.errors import UsageError
from benchwarden.report.escaping import visible


@click.command("explain")
@common_options("config", "suite", "filter", "store", "json")
@click.argument("runs", nargs=-1, metavar="[RUN [RUN]]")
@click.option("--pairs", type=click.IntRange(2, 100), help="Profiled fork pairs per explained benchmark and look: while "
              "they name no cause, as many more, 3 looks at most (default 6).")
@click.option("--seed", type=int, help="Seed of the profiled pairs' fork order (default: the comparison's).")
@click.option("--markdown", "markdown_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the comparison and its explanations as Markdown here.")
@click.option("--html", "html_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the HTML report here (default: .benchwarden/reports/ next to the config).")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines; only the final tables.")
def explain_command(inv: Invocation, runs: tuple[str, ...], pairs: int | None, seed: int | None,
                    markdown_path: Path | None, html_path: Path | None, quiet: bool) -> int:
    """Explain a stored comparison: where the time went in each benchmark it found slower or faster.

    The comparison is analysed again from its two stored runs (the verdicts `compare --runs` gives), and
    each benchmark found slower or faster is profiled in more fork pairs of both versions, measured again
    as compare measured them: the recorded commits (built in cached worktrees), artifacts or variants,
    with the recorded settings. The methods whose time changed are ranked, as with `compare --explain`.

    RUN is a run that `compare` stored (id, `latest` or `latest~N`; default `latest`); the other run of
    its comparison is found. Two RUNs are the base and the candidate, both stored by one `compare`.
    """
    from benchwarden.adapters import get_adapter
    from benchwarden.cli.compare import default_report_path, print_comparison, write_outputs
    from benchwarden.cli.progress import CompareProgressLines
    from benchwarden.codelevel.profiling import DEFAULT_PAIRS, PROFILERS, ExplainSettings, explain_changes
    from benchwarden.compare.pairing import pair_sides
    from benchwarden.compare.schedule import CompareListener
    from benchwarden.compare.sources import from_session
    from benchwarden.compare.stored import compare_runs, stored_session
    from benchwarden.compare.verdict import Verdict
    from benchwarden.config import load_config
    from benchwarden.store import open_store

    config = load_config(inv.config_path)
    store = open_store(store_url_for(inv))
    try:
        session = stored_session(store, runs)
    finally:
        store.close()
    recorded = session.recorded
    # the gate's own threshold and confidences, as recorded; the config's only for sessions that recorded none
    settings = session.settings or compare_settings(config)
    comparison = compare_runs(inv.select_results(session.base), inv.select_results(session.candidate), settings)
    changed = [r for r in comparison.benchmarks if r.verdict in (Verdict.SLOWER, Verdict.FASTER)]
    explanations: tuple = ()
    if changed:
        names = sorted({r.suite for r in changed})
        missing = [n for n in names if n not in config.suites]
        if missing:
            raise UsageError(f"suite(s) {', '.join(missing)} of the stored comparison are not in {config.path}")
        unprofiled = sorted({config.suites[n].kind for n in names} - set(PROFILERS))
        if unprofiled:
            raise UsageError(f"explain profiles {', '.join(sorted(PROFILERS))} suites; the changed benchmarks are in "
                             f"suites of kind {', '.join(unprofiled)} (not yet: docs/code-level.md)")
        suites = []
        for name in names:
            keys = "|".join(re.escape(r.key) for r in changed if r.suite == name)
            suite = config.suites[name]
            suites.append(replace(suite, context=replace(suite.context, filter=f"^(?:{keys})$")))
        sources = from_session(suites, config.root, str(recorded["candidate"]["source"] or "revisions"), recorded)
        for role, side in recorded.items():
            if side["side"].get("dirty"):
                inv.err_console.print(visible(f"warning: the {role} was a working tree with uncommitted changes; "
                                              "it is measured as it is now"), markup=False, highlight=False)
        listener = CompareListener() if quiet else CompareProgressLines(inv.err_console)
        pairing = pair_sides(sources, None, get_adapter, listener)
        if pairing.failed_suites:
            raise UsageError("; ".join(f"{k}: {v}" for k, v in pairing.failed_suites.items()))
        present = {f"{m.id.suite}:{m.id.key}" for m in pairing.matched}
        lost = [r.name for r in changed if f"{r.suite}:{r.key}" not in present]
        if lost:
            raise UsageError(f"not found again in both versions: {', '.join(lost)}")
        stored_seed = recorded["candidate"].get("seed")
        explanations = explain_changes(pairing.matched, changed, ExplainSettings(
            pairs or DEFAULT_PAIRS, settings.min_change, seed if seed is not None else int(stored_seed or 0)),
            log=listener.note)
    comparison = replace(comparison, explanations=explanations)
    report_path = html_path or default_report_path(config, comparison, "explain")
    write_outputs(comparison, markdown_path, None, report_path)
    print_comparison(inv, comparison, report_path)
    if not changed:
        inv.console.print("nothing to explain: the comparison found no benchmark slower or faster", markup=False)
    return ExitStatus.ERROR if any(e.error for e in explanations) else ExitStatus.OK
