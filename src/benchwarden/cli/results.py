"""`benchwarden runs | export | import`: list stored runs, move runs in and out as files."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from benchwarden.cli.common import ExitStatus, Invocation, common_options
from benchwarden.cli.store_access import store_for, store_url_for
from benchwarden.errors import ImportFormatError
from benchwarden.report.escaping import visible


@click.command("runs")
@common_options("config", "store", "json")
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
def runs_command(inv: Invocation, limit: int) -> int:
    """List stored runs, newest first."""
    from benchwarden.report.table import Column, TableModel, to_rich
    from benchwarden.store.listing import list_runs_sqlite

    url = store_url_for(inv)
    runs = list_runs_sqlite(url, limit) if "://" not in url else None  # without SQLAlchemy when it can
    if runs is None:
        with store_for(inv) as store:
            runs = store.list_runs(limit=limit)
    if inv.json:
        inv.emit_json([_summary_json(r) for r in runs])
        return ExitStatus.OK
    model = TableModel([Column("run", "right"), Column("created"), Column("status"), Column("commit", drop=3),
                        Column("label", names=True), Column("benchmarks", "right", drop=2),
                        Column("forks", "right", drop=1)])
    for r in runs:
        j = _summary_json(r)
        model.add([str(j["id"]), j["created"], j["status"], j["commit"] or "-", j["label"] or "-",
                   str(j["benchmarks"]), str(j["forks"])])
    inv.console.print(to_rich(model))
    return ExitStatus.OK


def _summary_json(r) -> dict:
    created = dt.datetime.fromtimestamp(r.created_at).strftime("%Y-%m-%d %H:%M:%S")
    commit = (r.commit[:12] + ("+dirty" if getattr(r, "dirty", False) else "")) if r.commit else None
    return {"id": r.id, "created": created, "status": getattr(r.status, "value", r.status), "commit": commit,
            "label": r.label, "benchmarks": r.n_benchmarks, "forks": r.n_forks}


@click.command("export")
@common_options("config", "store")
@click.argument("run", required=False)
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), help="File to write (default: stdout).")
def export_command(inv: Invocation, run: str | None, output: Path | None) -> int:
    """Export a stored run (default: the latest) as JSON (schema: docs/store.md)."""
    from benchwarden.store import export_run_json

    with store_for(inv) as store:
        data = store.load_run(store.resolve_run(run))
    payload = export_run_json(data)
    if output is None:
        inv.stdout.write(payload.decode("utf-8"))
        if not payload.endswith(b"\n"):
            inv.stdout.write("\n")
    else:
        output.write_bytes(payload)
        inv.err_console.print(visible(f"wrote run {data.id} to {output}"), markup=False, highlight=False)
    return ExitStatus.OK


FORMATS = ("auto", "benchwarden", "jmh", "go")


@click.command("import")
@common_options("config", "store", "json")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="benchwarden JSON export, JMH JSON result (-rf json), or `go test -bench` text output.")
@click.option("--as-suite", "suite_name", default="imported", show_default=True,
              help="Suite name for imported JMH/Go results.")
@click.option("--label", help="Label to store with the imported run.")
def import_command(inv: Invocation, file: Path, fmt: str, suite_name: str, label: str | None) -> int:
    """Import results into the store: a benchwarden export, a JMH JSON result file, or `go test -bench` output."""
    data = read_results_file(file, fmt, suite_name)
    if label:
        from dataclasses import replace

        data = replace(data, meta=replace(data.meta, label=label))
    with store_for(inv) as store:
        run_id = store.import_run(data)
    n_forks = sum(len(r.forks) for r in data.results)
    if inv.json:
        inv.emit_json({"run": run_id, "benchmarks": len(data.results), "forks": n_forks})
    else:
        inv.console.print(visible(f"imported {file} as run {run_id}: {len(data.results)} benchmarks, {n_forks} forks"),
                          markup=False, highlight=False)
    return ExitStatus.OK


def read_results_file(path: Path, fmt: str, suite_name: str):
    """Parse a results file in the given (or sniffed) format into RunData; ImportFormatError if malformed."""
    raw = path.read_bytes()
    if fmt == "auto":
        fmt = sniff_format(raw, path)
    if fmt == "benchwarden":
        from benchwarden.store import import_run_json

        return import_run_json(raw, source=str(path))
    if fmt == "jmh":
        from benchwarden.adapters.jmh_output import load_jmh_json

        return load_jmh_json(path, suite=suite_name)
    from benchwarden.adapters.gotest_output import import_go_bench

    return import_go_bench(path, suite=suite_name)


def sniff_format(raw: bytes, path: Path) -> str:
    head = raw.lstrip()[:4096].decode("utf-8", errors="replace")
    if head.startswith("{") and '"benchwarden' in head:
        return "benchwarden"
    if head.startswith("["):
        return "jmh"
    if "Benchmark" in head:
        return "go"
    raise ImportFormatError(str(path), "cannot tell the format (benchwarden JSON, JMH JSON, or go test output); "
                                       "pass --format")
