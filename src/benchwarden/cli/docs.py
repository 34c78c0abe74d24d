"""``benchwarden docs --javadoc DIR``: performance sections in an existing Javadoc tree (docs/site.md)."""

from __future__ import annotations

from pathlib import Path

import click

from benchwarden.cli.common import ExitStatus, Invocation, common_options
from benchwarden.cli.store_access import store_url_for


@click.command("docs")
@common_options("config", "store")
@click.option("--javadoc", "javadoc", type=click.Path(path_type=Path), required=True,
              help="An existing Javadoc HTML tree (the standard doclet's output, JDK 17 or later) to add the "
                   "Performance sections to.")
@click.option("--site", "site", metavar="URL",
              help="Where the site of `site build` is published (a URL or a path relative to each page's folder is "
                   "not guessed: give the site's root); each section links to the method's page there.")
def docs_command(inv: Invocation, javadoc: Path, site: str | None) -> int:
    """Add a Performance section to the Javadoc page of each documented Java method.

    The methods are those @Documents names on the benchmarks of a built JMH jar and the config's [docs.methods]
    keys in Javadoc notation (package.Class#method(Type)); each
    section shows how the method's time grows with each numeric parameter of its benchmarks (the fitted
    complexity class, R², the machine and commit measured, a plot), leaving the rest of the tree untouched.
    """
    from benchwarden.cli.site import documented_methods
    from benchwarden.environment import machine_label
    from benchwarden.site import methods as docs
    from benchwarden.site.collect import latest_results
    from benchwarden.site.javadoc import block_html, check_tree, insert_section, parse_java_method
    from benchwarden.site.pages import slug, summarize
    from benchwarden.store import open_store

    check_tree(javadoc)
    bindings = documented_methods(inv)
    java = {key: parse_java_method(key) for key in bindings}
    if not any(java.values()):
        raise click.UsageError("no documented method (@Documents in a built JMH jar, [docs.methods] in the config) "
                               "is a Java method named as package.Class#method(Type): nothing to document")
    url = store_url_for(inv)
    if "://" not in url and not Path(url).is_file():
        raise click.UsageError(f"no store at {url}: run the benchmarks first, or name one with --store")
    store = open_store(url)
    try:
        runs = [store.load_run(s.id) for s in store.list_runs(limit=2**62)]
    finally:
        store.close()
    latest = latest_results(runs)
    summaries = {name: summarize(result) for name, (_, result) in latest.items()}
    bound = docs.documented({k: v for k, v in bindings.items() if java[k]}, latest, summaries)
    written, problems = 0, 0
    for key, benches in bound.items():
        method = java[key]
        assert method is not None
        sections = []
        for bench, members in benches.items():
            fits = docs.axis_fits(bench, [(result, summary) for _, result, summary in members])
            measured = sorted({((run.meta.commit or "")[:12] or "no commit", machine_label(run.meta.machine))
                               for run, _, _ in members})
            sections.append((bench, fits, measured))
        if not any(members for members in benches.values()):
            inv.err_console.print(f"{key}: not measured (no stored run of {', '.join(benches)})", markup=False,
                                  highlight=False)
            problems += 1
            continue
        link = f"{site.rstrip('/')}/methods/{slug(key)}.html" if site else None
        page = next((p for p in method.pages(javadoc) if p.is_file()), None)
        if page is None:
            inv.err_console.print(f"{key}: no page {method.pages(javadoc)[0]} in the Javadoc tree", markup=False,
                                  highlight=False)
            problems += 1
            continue
        text = page.read_text(encoding="utf-8")
        updated = insert_section(text, method, block_html(key, sections, link))
        if updated is None:
            inv.err_console.print(f"{key}: {page} has no method section {method.name}({', '.join(method.params)})",
                                  markup=False, highlight=False)
            problems += 1
            continue
        page.write_text(updated, encoding="utf-8")
        written += 1
        inv.console.print(f"{key}: Performance section in {page}", markup=False, highlight=False)
    skipped = [k for k, m in java.items() if m is None]
    if skipped:
        inv.err_console.print(f"not Java methods (left to the site): {', '.join(skipped)}", markup=False,
                              highlight=False)
    inv.console.print(f"docs: {written} method page(s) updated, {problems} not", markup=False, highlight=False)
    return ExitStatus.OK if written else ExitStatus.ERROR
