"""``--apply``: a benchwarden suite table whose dynamic bounds come from the project's own JMH settings.

Derivation (:func:`derive_bounds`, pure).  The project's *representative*
configuration is its most common effective static configuration, weighted by
parameter combinations (ties: the larger budget).  With 1-s iterations (the
study's iteration length, fine enough for a stopping check after each one):

* ``warmup.max = ceil(wi x wt / 1 s)``: the project's own warmup budget per
  fork becomes the upper bound (JMH >= 1.21 defaults: 5 x 10 s -> 50, the
  study's bound); ``warmup.min = 5`` (the study's minimum; the sliding window
  needs 5 points), and ``max`` is raised to ``min`` when the project warms up
  less than that;
* ``iterations = clamp(ceil(mi x mt / 1 s), 5, 10)``: the measurement phase
  stays fixed in dynamic mode; 10 x 1 s was enough in the study (RQ2.1, the
  curve is flat beyond), and fewer than 5 gives no usable spread;
* ``forks.max = max(project forks, 2)``, ``forks.min = 2``: at least two JVMs
  to see between-fork variation, never more than the project budgets;
* ``stop``: the dynamic stop policy if this benchwarden has one; otherwise
  ``static`` with a comment (the bounds are then run to their maximum).

So the dynamic run can never take longer per fork than the project's own
configuration, apart from raising a single fork to two.

Writing (:func:`apply_suite`): the table is appended to the file (created if
missing).  An existing ``[suites.NAME]`` is never replaced: that raises
:class:`~benchwarden.errors.ConfigError`.  The new text is validated (TOML,
and benchwarden's config loader) before the file is replaced atomically.
"""

from __future__ import annotations

import json
import math
import os
import re
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from benchwarden.audit.cost import RunShape
from benchwarden.audit.project import AuditReport
from benchwarden.errors import BenchwardenError, ConfigError

ITERATION_TIME_S = 1.0
WARMUP_MIN = 5
MEASUREMENT_MIN, MEASUREMENT_MAX = 5, 10
FORKS_MIN = 2
#: dynamic stop policies in order of preference (divergence was the study's default criterion)
DYNAMIC_POLICIES = ("divergence", "kld", "dynamic", "rciw", "ci", "cov")


@dataclass(frozen=True)
class SuggestedBounds:
    warmup_min: int
    warmup_max: int
    iterations: int
    forks_min: int
    forks_max: int
    iteration_time_s: float
    basis: RunShape  # the representative project configuration the bounds come from
    basis_share: float  # share of combinations that use exactly this configuration


def representative_shape(report: AuditReport) -> RunShape | None:
    """Most common effective configuration, weighted by combinations; ties go to the larger budget."""
    weights: Counter[RunShape] = Counter()
    for b in report.benchmarks:
        if b.cost.timed_modes:
            weights[b.cost.own] += b.config.combinations
    if not weights:
        return None
    return max(weights, key=lambda s: (weights[s], s.combination_s))


def derive_bounds(shape: RunShape, share: float = 1.0, iteration_time_s: float = ITERATION_TIME_S) -> SuggestedBounds:
    """Dynamic bounds from one static JMH configuration (see the module docstring for the rules)."""
    warmup_max = max(WARMUP_MIN, math.ceil(shape.warmup_iterations * shape.warmup_time_s / iteration_time_s - 1e-9))
    iterations = min(MEASUREMENT_MAX, max(MEASUREMENT_MIN, math.ceil(
        shape.measurement_iterations * shape.measurement_time_s / iteration_time_s - 1e-9)))
    forks_max = max(shape.forks, FORKS_MIN)
    return SuggestedBounds(WARMUP_MIN, warmup_max, iterations, FORKS_MIN, forks_max, iteration_time_s, shape, share)


def _toml_str(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def suite_name_for(project: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", project.resolve().name).strip("-") or "jmh"
    return name if name.endswith("jmh") else f"{name}-jmh"


def _build_command(report: AuditReport, project: Path) -> tuple[str, str | None, str]:
    """(build command, artifact, note) for the project's build system."""
    systems = {b.system for b in report.builds}
    maven = next((b for b in report.builds if b.system == "maven" and b.module_dir == ""), None)
    if "maven" in systems:
        mvn = "./mvnw" if (project / "mvnw").exists() else "mvn"
        artifact = (maven.artifact if maven is not None and maven.artifact else None) or next(
            (b.artifact for b in report.builds if b.artifact), None)
        return (f"{mvn} -q -B package -DskipTests", artifact or "target/benchmarks.jar",
                "" if artifact else "artifact guessed (JMH archetype layout); check it")
    if "gradle" in systems:
        gradle = "./gradlew" if (project / "gradlew").exists() else "gradle"
        return (f"{gradle} -q jmhJar", f"build/libs/{project.resolve().name}-jmh.jar",
                "artifact guessed (Gradle JMH plugin: build/libs/<project>-<version>-jmh.jar); check it")
    return "mvn -q -B package -DskipTests", "target/benchmarks.jar", "no build file found; build and artifact guessed"


def available_stop_policy() -> str | None:
    """The preferred dynamic stop policy this benchwarden knows, or None if it has only static ones."""
    try:
        from benchwarden.config import STOP_POLICIES
    except ImportError:  # pragma: no cover - config module always ships with the package
        return None
    return next((p for p in DYNAMIC_POLICIES if p in STOP_POLICIES), None)


def render_suite_table(report: AuditReport, project: Path, config_dir: Path, name: str,
                       stop_policy: str | None) -> str:
    """The ``[suites.NAME]`` table as TOML text, with the derivation in comments."""
    shape = representative_shape(report)
    if shape is None:
        raise BenchwardenError(f"audit --apply: no timed JMH benchmark found under '{project}'; nothing to configure")
    total = sum(b.config.combinations for b in report.benchmarks if b.cost.timed_modes)
    share = sum(b.config.combinations for b in report.benchmarks if b.cost.own == shape) / total
    bounds = derive_bounds(shape, share)
    build, artifact, note = _build_command(report, project)
    rel = os.path.relpath(project.resolve(), config_dir.resolve())
    lines = [
        "# Written by `benchwarden audit --apply` from the project's own JMH configuration:",
        f"# {share:.0%} of the parameter combinations run {shape.forks} fork(s) x ({shape.warmup_iterations} x "
        f"{shape.warmup_time_s:g}s warmup + {shape.measurement_iterations} x {shape.measurement_time_s:g}s measurement).",
        f"# warmup.max = {shape.warmup_iterations} x {shape.warmup_time_s:g}s / {bounds.iteration_time_s:g}s "
        f"(at least {WARMUP_MIN}); iterations = measurement budget in {bounds.iteration_time_s:g}s iterations, "
        f"clamped to [{MEASUREMENT_MIN}, {MEASUREMENT_MAX}];",
        f"# forks.max = max(project forks, {FORKS_MIN}). See docs/audit.md (--apply).",
    ]
    if note:
        lines.append(f"# Note: {note}.")
    if stop_policy is None:
        lines.append("# This benchwarden has no dynamic stop policy yet: `static` runs every bound to its maximum;")
        lines.append("# switch `stop` to the dynamic policy once available.")
    lines += [
        f"[suites.{name}]",
        'kind = "jmh"',
        f"path = {_toml_str(Path(rel).as_posix())}",
        f"build = {_toml_str(build)}",
        f"artifact = {_toml_str(artifact)}" if artifact else "",
        f'iteration_time = "{bounds.iteration_time_s:g}s"',
        f"warmup = {{ min = {bounds.warmup_min}, max = {bounds.warmup_max} }}",
        f"iterations = {bounds.iterations}",
        f"forks = {{ min = {bounds.forks_min}, max = {bounds.forks_max} }}",
        f"stop = {_toml_str(stop_policy or 'static')}",
    ]
    return "\n".join(line for line in lines if line) + "\n"


def apply_suite(report: AuditReport, project: Path, config_path: Path, name: str | None = None,
                stop_policy: str | None = None) -> tuple[str, str]:
    """Append the derived suite table to ``config_path``; return (suite name, table text).

    Raises :class:`ConfigError` if the file is not valid TOML, already has
    ``[suites.NAME]``, or would not validate afterwards (the file is then
    left untouched).
    """
    name = name or suite_name_for(project)
    if not re.fullmatch(r"[A-Za-z0-9_-]+", name):
        raise ConfigError("suite names for --apply may use letters, digits, '_' and '-' only", str(config_path),
                          f"suites.{name}")
    old = config_path.read_text(encoding="utf-8") if config_path.exists() else ""
    try:
        existing = tomllib.loads(old)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML, not changed: {exc}", str(config_path)) from None
    suites = existing.get("suites", {})
    if isinstance(suites, dict) and name in suites:
        raise ConfigError(f"a [suites.{name}] table already exists; it was not changed "
                          "(choose another name with --name, or remove the table first)", str(config_path),
                          f"suites.{name}")
    table = render_suite_table(report, project, config_path.parent, name, stop_policy)
    new = old + ("\n" if old and not old.endswith("\n") else "") + ("\n" if old else "") + table
    _write_validated(config_path, new)
    return name, table


def _write_validated(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.audit-tmp")
    tmp.write_text(text, encoding="utf-8")
    try:
        tomllib.loads(text)
        from benchwarden.config import load_config

        load_config(tmp)
        os.replace(tmp, path)
    except (tomllib.TOMLDecodeError, ConfigError) as exc:
        raise ConfigError(f"the derived suite table would make the file invalid, not changed: {exc}",
                          str(path)) from None
    finally:
        if tmp.exists():
            tmp.unlink()
