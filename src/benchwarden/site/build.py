"""Writing the site: HTML pages from :mod:`.pages`' data through jinja2 templates, and the shared assets once.

Layout of the output folder (every link relative, so it works from ``file://`` and any static host)::

    index.html                 overview
    benchmarks/<slug>.html     one page per benchmark (suite:key)
    comparisons/<n>.html       one page per stored comparison session (the compare report, with a link home)
    assessment.html            the assessments given with --assessment
    audit.html                 the audit of the JMH project given with --audit
    methods/<slug>.html        one page per documented method ([docs.methods])
    assets/plotly.min.js       plotly.js as the installed plotly package ships it (written once, shared)
    assets/site.js             draws each page's figures from its embedded JSON

Pages carry no inline script: the figures' data is JSON in ``<script type="application/json">`` (``<``, ``>``,
``&`` escaped, :func:`benchwarden.report.html.json_for_script`) and the two scripts are files, so a
Content-Security-Policy of ``script-src 'self'`` holds.  Everything else is jinja2 autoescaped.
"""

from __future__ import annotations

import importlib.resources
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import jinja2
from markupsafe import Markup

from benchwarden import __version__
from benchwarden.errors import BenchwardenError
from benchwarden.report.escaping import visible
from benchwarden.report.html import json_for_script
from benchwarden.site import pages
from benchwarden.site.collect import SiteData

ASSETS = ("plotly.min.js", "site.js")
#: the script of the *Measure now* form, written only for the live site (``benchwarden serve``)
LIVE_ASSET = "serve.js"


class SiteError(BenchwardenError):
    """The site could not be written (the folder is not writable, or plotly's bundled script is missing)."""


@dataclass
class BuildReport:
    """What was written: each page's path (relative to the output folder) and size in bytes, and the time taken."""

    out: Path
    pages: dict[str, int] = field(default_factory=dict)
    assets: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def environment() -> jinja2.Environment:
    """The site's templates (and the reports', for the shared stylesheet), autoescaped; plain strings show control
    characters as escapes before escaping (as the compare report's)."""
    loader = jinja2.ChoiceLoader([jinja2.PackageLoader("benchwarden.site", "templates"),
                                  jinja2.PackageLoader("benchwarden.report", "templates")])
    return jinja2.Environment(loader=loader, autoescape=True, trim_blocks=True, lstrip_blocks=True,
                              undefined=jinja2.StrictUndefined, finalize=_visible_text)


def _visible_text(value: Any) -> Any:
    return visible(value, keep_newlines=True) if isinstance(value, str) and not isinstance(value, Markup) else value


def plotly_js() -> bytes:
    """plotly.js exactly as the installed ``plotly`` package bundles it (no network, no CDN)."""
    try:
        return (importlib.resources.files("plotly") / "package_data" / "plotly.min.js").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError) as exc:
        raise SiteError(f"plotly's bundled plotly.min.js could not be read ({exc}); reinstall benchwarden's "
                        "dependencies (the plotly package)") from None


def prepare_output(out: Path) -> None:
    """Create ``out`` (and parents) and check that files can be written in it; SiteError names the folder."""
    if out.exists() and not out.is_dir():
        raise SiteError(f"output {out} exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".benchwarden-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise SiteError(f"cannot write the site into {out}: {exc.strerror or exc}") from None


def build_site(data: SiteData, out: Path, live: Mapping[str, Mapping[str, Any]] | None = None) -> BuildReport:
    """Write the whole site for ``data`` into ``out`` (created; existing pages of the same names are replaced).

    ``live`` (``benchwarden serve`` only): benchmark family (``suite:name``) -> the parameter axes a reader may
    ask to measure (serve/domain.py's ``Family.to_json``); each page of such a benchmark gets the *Measure now*
    form, and the pages may connect to the server that serves them.
    """
    started = time.perf_counter()
    prepare_output(out)
    report = BuildReport(out)
    env = environment()
    common = {"version": __version__, "store": visible(data.store_url), "live": live is not None}

    def write(relative: str, content: bytes, assets: bool = False) -> None:
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        try:
            temporary.write_bytes(content)
            os.replace(temporary, path)
        except OSError as exc:
            raise SiteError(f"cannot write {path}: {exc.strerror or exc}") from None
        (report.assets if assets else report.pages)[relative] = len(content)

    write("assets/plotly.min.js", plotly_js(), assets=True)
    write("assets/site.js", (importlib.resources.files("benchwarden.site") / "templates" / "site.js").read_bytes(),
          assets=True)
    if live is not None:
        write(f"assets/{LIVE_ASSET}",
              (importlib.resources.files("benchwarden.site") / "templates" / LIVE_ASSET).read_bytes(), assets=True)

    latest = data.latest_results()
    summaries = {name: pages.summarize(result) for name, (_, result) in latest.items()}
    names = sorted({*latest, *(h.series.benchmark for h in data.histories)})
    links = {name: f"benchmarks/{pages.slug(name)}.html" for name in names}
    by_benchmark: dict[str, list] = {}
    for h in data.histories:
        by_benchmark.setdefault(h.series.benchmark, []).append(h)
    families = pages.families((name, result) for name, (_, result) in latest.items())

    for name in names:
        write(links[name], _benchmark_page(env, common, name, latest.get(name), by_benchmark.get(name, []),
                                           families, latest, summaries, links, live or {}))
    method_links = {method: f"methods/{pages.slug(method)}.html" for method in data.methods}
    method_rows = []
    if data.methods:
        from benchwarden.site import methods as docs

        bound = docs.documented(data.methods, latest, summaries)
        for method, benches in bound.items():
            content, rows = _method_page(env, common, method, benches, links)
            write(method_links[method], content)
            method_rows.append({"method": method, "link": method_links[method], "rows": rows})
    comparison_links = []
    from benchwarden.report.html import comparison_html

    for number, stored in enumerate(data.comparisons, start=1):
        relative = f"comparisons/{number}.html"
        write(relative, comparison_html(stored.comparison, home="../index.html"))
        comparison_links.append((relative, stored))
    if data.audit is not None:
        write("audit.html", _render(env, "audit.html.j2", [], **common, home="index.html", assets="assets",
                                    audit=data.audit))
    if data.assessments:
        from benchwarden.report.assess_html import assessment_html

        write("assessment.html", assessment_html(data.assessments, home="index.html"))
    write("index.html", _overview(env, common, data, latest, summaries, links, comparison_links, by_benchmark,
                                  method_rows, live or {}))
    report.seconds = time.perf_counter() - started
    return report


def _render(env: jinja2.Environment, template: str, figures: list[pages.Figure], **context: Any) -> bytes:
    payload = {"v": 1, "figures": [f.spec() for f in figures]}
    return env.get_template(template).render(figures=figures, data_json=json_for_script(payload),
                                             **context).encode()


def _benchmark_page(env, common, name, latest, histories, families, all_latest, summaries, links,
                    live: Mapping[str, Mapping[str, Any]]) -> bytes:
    figures: list[pages.Figure] = []
    series = []
    for i, h in enumerate(histories):
        figure = pages.history_figure(h, i)
        figures.append(figure)
        level = h.level
        low, high = pages.display_interval(level.low, level.high, h.series.unit) if level.high < float("inf") \
            else (None, None)
        series.append({"h": h, "figure": figure, "changes": pages.change_rows(h),
                       "level": pages.fmt(pages.from_ns_per_op(level.point, h.series.unit)),
                       "level_interval": pages.fmt_interval(low, high), "notes": [*h.series.notes,
                                                                                   *h.detection.warnings]})
    run_facts = summary = None
    siblings: list[tuple[str, str]] = []
    if latest is not None:
        run, result = latest
        run_facts = pages.run_facts(run)
        mean, interval = pages.summary_text(summaries[name])
        summary = {"mean": mean, "interval": interval, "s": summaries[name]}
        figures += [pages.iterations_figure(result, 0), pages.forks_figure(result, 0)]
        family_names = families.get((result.benchmark.id.suite, result.benchmark.id.name), [])
        if result.benchmark.id.params and len(family_names) > 1:
            members = [(all_latest[n][1], summaries[n]) for n in sorted(family_names)]
            figures += pages.param_figures(result.benchmark.id.name, members, 0)
            siblings = [(n, "../" + links[n]) for n in sorted(family_names) if n != name]
    kind = histories[0].series if histories else None
    form = None
    if latest is not None:
        bid = latest[1].benchmark.id
        if f"{bid.suite}:{bid.name}" in live:
            form = {**live[f"{bid.suite}:{bid.name}"], "current": dict(bid.params)}
    return _render(env, "benchmark.html.j2", figures, **common, home="../index.html", assets="../assets", name=name,
                   latest=latest, run_facts=run_facts, summary=summary, series=series, siblings=siblings, form=form,
                   unit=latest[1].benchmark.unit if latest else kind.unit if kind else "",
                   mode=latest[1].benchmark.mode if latest else "", metric=latest[1].benchmark.metric if latest
                   else kind.metric if kind else "")


_GATE_ORDER = {"regression": 0, "error": 1, "pass": 2}


def _method_page(env, common, method: str, benches, links) -> tuple[bytes, list[tuple[str, str]]]:
    """A documented method's page, and its (benchmark, fit summary) rows for the overview."""
    from benchwarden.environment import machine_label
    from benchwarden.site import methods as docs

    figures: list[pages.Figure] = []
    sections, rows = [], []
    for bench, members in benches.items():
        fits = docs.axis_fits(bench, [(result, summary) for _, result, summary in members])
        axes: dict[str, list] = {}
        for line in fits:
            axes.setdefault(line.axis, []).append(line)
        shown = []
        for axis, lines in axes.items():
            figure = docs.fit_figure(lines, len(figures))
            figures.append(figure)
            shown.append({"axis": axis, "lines": lines, "figure": figure})
            rows += [(bench, line.summary() + (f" ({line.label})" if line.others else "")) for line in lines]
        if not fits:
            rows.append((bench, "no numeric parameter with two or more measured values" if members
                         else "not measured"))
        measured = sorted({((run.meta.commit or "")[:12] or "no commit", machine_label(run.meta.machine))
                           for run, _, _ in members})
        sections.append({"benchmark": bench, "axes": shown, "measured": measured,
                         "members": [(str(r.benchmark.id), "../" + links[str(r.benchmark.id)]) for _, r, _ in members]})
    content = _render(env, "method.html.j2", figures, **common, home="../index.html", assets="../assets",
                      method=method, sections=sections)
    return content, rows


def _overview(env, common, data: SiteData, latest, summaries, links, comparison_links, by_benchmark,
              method_rows, live: Mapping[str, Mapping[str, Any]]) -> bytes:
    changes = []
    for h in data.histories:
        for row, change in zip(pages.change_rows(h), h.changes):
            changes.append({**row, "benchmark": h.series.benchmark, "link": links[h.series.benchmark],
                            "machine": visible(h.series.machine), "order": change.after.generation or 0})
    changes.sort(key=lambda c: (c["direction"] != "slower", -c["order"], c["benchmark"]))
    comparisons = sorted(
        ({"link": link, "c": s.comparison, "gate": s.comparison.gate, "counts": s.comparison.counts(),
          "regressions": [b.name for b in s.comparison.failures], "runs": f"{s.base_run} → {s.candidate_run}",
          "when": pages._when(s.comparison.created_at)} for link, s in comparison_links),
        key=lambda c: _GATE_ORDER.get(c["gate"], 3))
    benchmarks = []
    for name in sorted(links):
        entry = latest.get(name)
        histories = by_benchmark.get(name, [])
        mean, interval = pages.summary_text(summaries[name]) if name in summaries else ("-", "-")
        benchmarks.append({"name": name, "link": links[name], "mean": mean, "interval": interval,
                           "unit": entry[1].benchmark.unit if entry else histories[0].series.unit,
                           "run": entry[0].id if entry else "-",
                           "commits": max((len(h.series.points) for h in histories), default=0),
                           "changes": sum(len(h.changes) for h in histories)})
    latest_runs = [{"suite": suite, "machine": machine, "facts": pages.run_facts(run),
                    "benchmarks": sum(1 for r in run.results if r.benchmark.id.suite == suite)}
                   for suite, machine, run in data.latest_runs()]
    measurable = [{**live[key], "current": {}} for key in sorted(live)]
    return _render(env, "overview.html.j2", [], **common, home=None, assets="assets", changes=changes,
                   measurable=measurable,
                   comparisons=comparisons, benchmarks=benchmarks, latest_runs=latest_runs,
                   runs=len(data.runs), assessments=data.assessments, notes=data.notes, methods=method_rows,
                   audit=data.audit,
                   regressions=sum(1 for c in comparisons if c["gate"] == "regression"),
                   slower=sum(1 for c in changes if c["direction"] == "slower"))
