"""``benchwarden site build``: the static, offline site of everything the store holds (docs/site.md)."""

from __future__ import annotations

from pathlib import Path

import click

from benchwarden.cli.common import ExitStatus, Invocation, common_options
from benchwarden.cli.store_access import store_url_for


@click.group("site")
def site_group() -> None:
    """The benchwarden site: an overview, one page per benchmark, the comparisons (docs/site.md)."""


@site_group.command("build")
@common_options("config", "store")
@click.option("-o", "--out", "out", type=click.Path(path_type=Path), default=Path("benchwarden-site"),
              show_default=True, help="Folder to write the site into (created; pages of the same names replaced).")
@click.option("--repo", type=click.Path(path_type=Path, file_okay=False),
              help="git work tree whose history orders the commits (default: the config file's folder, else the "
                   "working directory).")
@click.option("--audit", "audit_path", type=click.Path(path_type=Path, file_okay=False, exists=True),
              help="Also audit the JMH project in this folder (`benchwarden audit`: configuration, cost, findings) "
                   "and give the site a page of it.")
@click.option("--assessment", "assessments", multiple=True, type=click.Path(path_type=Path, dir_okay=False),
              help="An `assess --json` document to show (repeatable): the store keeps an assessment's runs, not "
                   "its results.")
def build_command(inv: Invocation, out: Path, repo: Path | None, audit_path: Path | None,
                  assessments: tuple[Path, ...]) -> int:
    """Build a static site from the store: open OUT/index.html from disk or put OUT on any static host.

    The overview leads with comparisons that found a regression and with change points in the benchmarks'
    history; each benchmark has a page with its history (commits in git order, intervals, change points), the
    forks and iterations of its latest run, and its parameter curves; each method of the config's
    [docs.methods] a page with the complexity class fitted to each parameter. Plots are interactive (plotly.js,
    bundled into OUT/assets, no network) and each has a table view.
    """
    from benchwarden.cli.history import _default_repo
    from benchwarden.site.build import build_site, prepare_output
    from benchwarden.site.collect import collect
    from benchwarden.site.methods import reached_methods
    from benchwarden.store import open_store

    url = store_url_for(inv)
    if "://" not in url and not Path(url).is_file():
        raise click.UsageError(f"no store at {url}: run benchmarks first (`benchwarden run`), or name one with "
                               "--store")
    docs = [suite for path in assessments for suite in _assessment(path)]
    methods = documented_methods(inv)
    for method, names in reached_methods(docs).items():  # the implicit binding: what assess traced
        methods[method] = [*methods.get(method, []), *(n for n in names if n not in methods.get(method, []))]
    prepare_output(out)  # before reading anything: an unwritable folder is reported at once
    audit = _audit_tables(audit_path, url) if audit_path is not None else None
    store = open_store(url)
    try:
        data = collect(store, repo or _default_repo(inv), docs, methods)
    finally:
        store.close()
    data.audit = audit
    report = build_site(data, out)
    largest = max(report.pages.items(), key=lambda item: item[1])
    inv.console.print(f"site: {len(report.pages)} page(s) in {out} ({report.seconds:.1f} s; largest "
                      f"{largest[0]}, {largest[1] / 1024:.0f} KiB; shared assets "
                      f"{sum(report.assets.values()) / 1e6:.1f} MB); open {out / 'index.html'}",
                      markup=False, highlight=False)
    return ExitStatus.OK


def _audit_tables(path: Path, store_url: str) -> dict:
    """The audit of the JMH project in ``path`` as plain tables (what `audit` prints), with observed times from the
    store, for the site's audit page."""
    from benchwarden.audit.project import audit_project
    from benchwarden.audit.render import build_tables
    from benchwarden.cli.audit import _observed_from_store

    report = audit_project(path, observed=_observed_from_store(store_url))
    return {"project": str(path.resolve()), "tables": [
        {"title": t.title, "headers": list(t.headers), "rows": [list(r) for r in t.rows],
         "right": sorted(t.right_aligned), "note": t.note} for t in build_tables(report)]}


def documented_methods(inv: Invocation) -> dict[str, list[str]]:
    """The documented methods: ``[docs.methods]`` of the config (--config, else the nearest benchwarden.toml), and
    ``@Documents`` on the benchmark methods of each JMH suite whose jar is built; none without a config."""
    from benchwarden.adapters.jmh import artifact_path
    from benchwarden.config import load_config
    from benchwarden.errors import ArtifactMissing, ConfigError
    from benchwarden.locations import find_config
    from benchwarden.site.methods import DocsSettings
    from benchwarden.spl.annotations import scan_jar

    path = inv.config_path
    if path is None:
        try:
            path = find_config()
        except ConfigError:
            return {}
    config = load_config(path)
    settings = config.section("docs", DocsSettings)
    methods = {k: list(v) for k, v in settings.methods.items()}  # type: ignore[attr-defined]
    for suite in config.suites.values():
        if suite.kind != "jmh":
            continue
        try:
            jar = artifact_path(suite.context)
        except ArtifactMissing:
            continue  # @Documents is read from the built jar (as @SPL): `benchwarden run` builds it
        for annotated in scan_jar(jar, "Documents"):
            for method in annotated.formulas:
                bound = methods.setdefault(method, [])
                name = f"{suite.name}:{annotated.benchmark_name}"
                if name not in bound:
                    bound.append(name)
    return methods


def _assessment(path: Path) -> list[dict]:
    """The suite documents of an `assess --json` file; a usage error names what is wrong with it."""
    from benchwarden import jsontext

    try:
        document = jsontext.loads(path.read_bytes())
    except OSError as exc:
        raise click.UsageError(f"--assessment {path}: {exc.strerror or exc}") from None
    except jsontext.JsonTextError as exc:
        raise click.UsageError(f"--assessment {path}: not JSON: {exc}") from None
    suites = document.get("suites") if isinstance(document, dict) else None
    if not isinstance(suites, list) or not suites or not all(isinstance(s, dict) and "suite" in s for s in suites):
        raise click.UsageError(f"--assessment {path}: not an `assess --json` document (no \"suites\" list)")
    return suites
