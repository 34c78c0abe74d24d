"""Audit output: terminal tables (rich), Markdown and JSON, from one table builder.

:func:`build_tables` decides *what* is shown (plain :class:`TableData`:
title, headers, rows of strings); :func:`to_rich` and :func:`to_markdown`
only decide *how*.  So the terminal and the Markdown report always carry the
same content.  :func:`report_to_json` is the machine-readable form (stable
keys, seconds as numbers, documented in docs/audit.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.table import Table
from rich.text import Text

from benchwarden.audit.cost import STUDY_DYNAMIC, RunShape
from benchwarden.audit.findings import Finding
from benchwarden.audit.project import AuditedBenchmark, AuditReport
from benchwarden.audit.resolve import Setting
from benchwarden.report.escaping import visible
from benchwarden.units import format_duration

DEFAULT_MARK = "*"
JSON_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class TableData:
    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    right_aligned: frozenset[int] = frozenset()
    wrap: frozenset[int] = frozenset()  # columns that may wrap in a terminal (others never do)
    note: str = ""


def _short(name: str, package_prefix: str) -> str:
    return name[len(package_prefix):] if package_prefix and name.startswith(package_prefix) else name


def _common_package(report: AuditReport) -> str:
    packages = {b.config.package for b in report.benchmarks}
    return f"{packages.pop()}." if len(packages) == 1 and "" not in packages else ""


def _mark(setting: Setting | None, text: str) -> str:
    return text if setting is not None else f"{text}{DEFAULT_MARK}"


def _secs(seconds: float) -> str:
    if 0 < seconds < 1:
        return f"{seconds * 1000:g}ms"
    return f"{seconds:g}s"


def _config_text(shape: RunShape, c) -> str:
    """``forks x (warmup + measurement)``, defaults marked: ``1 x (5*x10s* + 5x100ms)``."""
    warm = f"{_mark(c.warmup_iterations, str(shape.warmup_iterations))}x{_mark(c.warmup_time_s, _secs(shape.warmup_time_s))}"
    meas = (f"{_mark(c.measurement_iterations, str(shape.measurement_iterations))}"
            f"x{_mark(c.measurement_time_s, _secs(shape.measurement_time_s))}")
    wf = f" + {shape.warmup_forks} warmup" if shape.warmup_forks else ""
    return f"{_mark(c.forks, str(shape.forks))}{wf} x ({warm} + {meas})"


def summary_table(report: AuditReport) -> TableData:
    s = report.suite
    versions = ", ".join(report.jmh_versions) or "unknown (assuming >= 1.21)"
    ratio = f" ({s.own_s / s.default_s:.0%} of JMH's defaults)" if s.default_s > 0 else ""
    dyn = (f"{format_duration(s.dynamic_s)} ({s.dynamic_source}"
           + (f": {STUDY_DYNAMIC.expected_s:.1f}s per combination, study's dynamic configuration <5,50,10,2,5>)"
              if s.dynamic_observed < s.combinations else ")"))
    rows = (
        ("Project", report.root),
        ("JMH version", versions),
        ("Java target", report.java_target or "unknown"),
        ("Benchmarks", f"{len(report.benchmarks)} ({s.combinations} timed parameter combinations)"),
        ("Estimated time, own configuration", f"{format_duration(s.own_s)}{ratio}"),
        ("Estimated time, JMH defaults", format_duration(s.default_s)),
        ("Expected time, benchwarden dynamic", dyn),
        ("Findings", _count_findings(report.findings)),
    )
    return TableData("JMH configuration audit", ("", ""), rows, wrap=frozenset({1}))


def _count_findings(findings: tuple[Finding, ...]) -> str:
    if not findings:
        return "none"
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.code] = counts.get(f.code, 0) + 1
    return ", ".join(f"{n} {code}" for code, n in counts.items())


def benchmark_row(b: AuditedBenchmark, prefix: str) -> tuple[str, ...]:
    c, cost = b.config, b.cost
    modes = ", ".join(_mode_label(m) for m in (cost.timed_modes + cost.untimed_modes))
    if c.modes is None:
        modes += DEFAULT_MARK
    if not cost.timed_modes:
        times = ("untimed",) * 3
    else:
        times = (format_duration(cost.own_s), format_duration(cost.default_s), format_duration(cost.dynamic_s))
    return (_short(c.name, prefix), str(c.combinations), modes, _config_text(cost.own, c), *times)


def _mode_label(mode: str) -> str:
    return {"Throughput": "thrpt", "AverageTime": "avgt", "SampleTime": "sample", "SingleShotTime": "ss"}.get(mode, mode)


def benchmarks_table(report: AuditReport) -> TableData:
    prefix = _common_package(report)
    rows = tuple(benchmark_row(b, prefix) for b in report.benchmarks)
    return TableData(
        f"Benchmarks{f' (package {prefix[:-1]})' if prefix else ''}",
        ("Benchmark", "Params", "Modes", "Forks x (warmup + measurement)", "Own", "JMH defaults", "Dynamic"),
        rows, right_aligned=frozenset({1, 4, 5, 6}), wrap=frozenset({0, 2, 3}),
        note=f"{DEFAULT_MARK} = JMH default for the project's version (not set in the sources). Times cover all "
             "parameter combinations and timed modes of a benchmark; single-shot modes are not timed.")


def findings_table(report: AuditReport) -> TableData:
    prefix = _common_package(report)
    rows = tuple((f"{f.severity.value}\n{f.code}",
                  f"{_short(f.benchmark, prefix) if f.benchmark else '-'}\n{f.location}",
                  f"{f.message}.\n{f.consequence}") for f in report.findings)
    return TableData("Findings", ("Finding", "Benchmark / where", "What, and why it matters"), rows,
                     wrap=frozenset({0, 1, 2}))


def diagnostics_table(report: AuditReport) -> TableData:
    return TableData("Warnings (what the audit could not read or had to assume)", ("Where", "Warning"),
                     tuple((str(d.location), d.message) for d in report.diagnostics), wrap=frozenset({0, 1}))


def history_tables(report: AuditReport) -> list[TableData]:
    h = report.history
    if h is None:
        return []
    samples = TableData("History (monthly samples)", ("Commit", "Date", "JMH", "Benchmarks", "Own time"),
                        tuple((s.commit.sha[:10], s.commit.date, s.jmh_version or "?", str(s.benchmarks),
                               format_duration(s.own_s)) for s in h.samples), right_aligned=frozenset({3, 4}))
    changes = TableData("Configuration changes between samples", ("Commit", "Date", "Benchmark", "Changed"),
                        tuple((c.commit.sha[:10], c.commit.date, c.benchmark, _diff(c.before, c.after))
                              for c in h.changes), wrap=frozenset({2, 3}))
    return [samples, changes]


def _diff(before: dict[str, object], after: dict[str, object]) -> str:
    parts = []
    for key in before:
        if before[key] != after.get(key):
            parts.append(f"{key}: {_val(before[key])} -> {_val(after.get(key))}")
    return "; ".join(parts)


def _val(v: object) -> str:
    if v is None:
        return "default"
    if isinstance(v, tuple):
        return ",".join(map(str, v))
    return f"{v:g}" if isinstance(v, float) else str(v)


def build_tables(report: AuditReport) -> list[TableData]:
    """Every table of the audit, in display order (empty tables are dropped)."""
    tables = [summary_table(report), benchmarks_table(report), findings_table(report), diagnostics_table(report),
              *history_tables(report)]
    return [t for t in tables if t.rows]


def to_rich(table: TableData) -> Table:
    show_header = any(table.headers)
    # benchmark names, @Param values and paths are user data: never markup, emoji codes or control characters
    rich = Table(title=Text(visible(table.title), style="table.title"), show_header=show_header, title_justify="left", caption=table.note or None,
                 caption_justify="left")
    for i, h in enumerate(table.headers):
        wraps = i in table.wrap
        rich.add_column(h, justify="right" if i in table.right_aligned else "left",
                        overflow="fold" if wraps else "ellipsis", no_wrap=not wraps)
    for row in table.rows:
        rich.add_row(*(Text(visible(c, keep_newlines=True)) for c in row))
    return rich


def _md_cell(text: str) -> str:
    return visible(text, keep_newlines=True).replace("|", "\\|").replace("*", "\\*").replace("\n", "<br>")


def to_markdown(table: TableData) -> str:
    lines = [f"## {table.title}", ""]
    headers = table.headers if any(table.headers) else ("Item", "Value")
    lines.append("| " + " | ".join(_md_cell(h) for h in headers) + " |")
    lines.append("|" + "|".join("---:" if i in table.right_aligned else "---" for i in range(len(headers))) + "|")
    for row in table.rows:
        lines.append("| " + " | ".join(_md_cell(c) for c in row) + " |")
    if table.note:
        lines += ["", table.note.replace("*", "\\*")]
    return "\n".join(lines) + "\n"


def report_to_markdown(report: AuditReport) -> str:
    return "# benchwarden audit\n\n" + "\n".join(to_markdown(t) for t in build_tables(report))


# --------------------------------------------------------------------------------------------
# JSON


def _setting(s: Setting | None) -> dict[str, Any] | None:
    if s is None:
        return None
    value = list(s.value) if isinstance(s.value, tuple) else s.value
    return {"value": value, "origin": s.origin, "location": str(s.location)}


def _shape(shape: RunShape) -> dict[str, Any]:
    return {"forks": shape.forks, "warmup_forks": shape.warmup_forks, "warmup_iterations": shape.warmup_iterations,
            "warmup_time_s": shape.warmup_time_s, "measurement_iterations": shape.measurement_iterations,
            "measurement_time_s": shape.measurement_time_s}


def benchmark_to_json(b: AuditedBenchmark) -> dict[str, Any]:
    c = b.config
    return {
        "name": c.name, "class": c.class_name, "methods": list(c.methods), "group": c.group,
        "location": str(c.location), "jmh_version": b.jmh_version, "defaults": b.defaults.label,
        "explicit": {k: _setting(getattr(c, k)) for k in (
            "forks", "warmup_forks", "warmup_iterations", "warmup_time_s", "warmup_batch_size",
            "measurement_iterations", "measurement_time_s", "measurement_batch_size", "threads", "modes",
            "output_time_unit", "jvm_args_append")},
        "effective": _shape(b.cost.own),
        "modes": {"timed": list(b.cost.timed_modes), "untimed": list(b.cost.untimed_modes)},
        "params": [{"name": p.name, "values": list(p.values), "declared_in": p.declared_in,
                    "location": str(p.location)} for p in c.params],
        "combinations": c.combinations, "returns_void": c.returns_void, "uses_blackhole": c.uses_blackhole,
        "dead_results": [{"kind": d.kind, "text": d.text, "location": str(d.location)} for d in c.dead_results],
        "time_s": {"own": b.cost.own_s, "jmh_defaults": b.cost.default_s, "dynamic": b.cost.dynamic_s,
                   "dynamic_observed_combinations": b.cost.dynamic_observed},
    }


def finding_to_json(f: Finding) -> dict[str, Any]:
    return {"code": f.code, "severity": f.severity.value, "benchmark": f.benchmark, "location": str(f.location),
            "message": f.message, "consequence": f.consequence}


def report_to_json(report: AuditReport) -> dict[str, Any]:
    s = report.suite
    out: dict[str, Any] = {
        "schema": JSON_SCHEMA_VERSION,
        "project": report.root,
        "jmh_versions": list(report.jmh_versions),
        "java_target": report.java_target,
        "build_files": [{"path": b.path, "system": b.system, "jmh_version": b.jmh_version,
                         "jmh_version_source": b.jmh_version_source, "java_target": b.java_target,
                         "artifact": b.artifact} for b in report.builds],
        "files_parsed": report.files_parsed,
        "suite": {"benchmarks": len(report.benchmarks), "combinations": s.combinations,
                  "time_s": {"own": s.own_s, "jmh_defaults": s.default_s, "dynamic": s.dynamic_s},
                  "dynamic_source": s.dynamic_source,
                  "dynamic_estimate": {"per_combination_s": STUDY_DYNAMIC.expected_s,
                                       "min_s": STUDY_DYNAMIC.min_s, "max_s": STUDY_DYNAMIC.max_s,
                                       "basis": "Würsten 2020 Table 5.8 (divergence): 4.1 forks x "
                                                "(14.1 warmup + 10 measurement) x 1 s; bounds <5,50,10,2,5>"}},
        "benchmarks": [benchmark_to_json(b) for b in report.benchmarks],
        "findings": [finding_to_json(f) for f in report.findings],
        "warnings": [{"location": str(d.location), "message": d.message} for d in report.diagnostics],
    }
    h = report.history
    if h is not None:
        out["history"] = {
            "samples": [{"commit": x.commit.sha, "date": x.commit.date, "jmh_version": x.jmh_version,
                         "benchmarks": x.benchmarks, "own_time_s": x.own_s} for x in h.samples],
            "changes": [{"commit": c.commit.sha, "date": c.commit.date, "benchmark": c.benchmark,
                         "before": {k: _val(v) for k, v in c.before.items()},
                         "after": {k: _val(v) for k, v in c.after.items()}} for c in h.changes],
            "upgrade": None if h.upgrade is None else {"commit": h.upgrade[0].sha, "date": h.upgrade[0].date,
                                                      "from": h.upgrade[1], "to": h.upgrade[2]},
        }
    return out
