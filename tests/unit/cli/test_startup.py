"""Start-up guard: help and light commands must not import the heavy libraries (STYLE item 22).

Timing belongs in benchmarks/startup.py (docs/performance.md); this test checks the cause of slow
start-up instead, which does not depend on machine load: which modules a command imports.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from benchwarden.cli import COMMANDS

HEAVY = ("scipy", "matplotlib", "sqlalchemy", "numpy", "tree_sitter", "jinja2")


def run_fresh(argv: list[str], cwd) -> tuple[list[str], str]:
    """(heavy top-level packages imported, stdout) of ``benchwarden argv`` run in a fresh interpreter."""
    code = textwrap.dedent(f"""
        import io, json, sys
        from benchwarden.cli import main
        out, err = io.StringIO(), io.StringIO()
        status = main({argv!r}, stdout=out, stderr=err)
        heavy = sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))
        print(json.dumps([status, heavy, out.getvalue(), err.getvalue()]))
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    status, heavy, out, err = json.loads(done.stdout.strip().splitlines()[-1])
    assert status == 0, (argv, status, err)
    return heavy, out


def imported_heavy(argv: list[str], cwd) -> list[str]:
    return run_fresh(argv, cwd)[0]


def test_top_level_help_imports_no_command_module(tmp_path):
    code = ("import io, sys\nfrom benchwarden.cli import main\nmain(['--help'], stdout=io.StringIO())\n"
            "print(sorted(m for m in sys.modules if m.startswith('benchwarden.')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    loaded = eval(done.stdout)  # a list literal printed by the child  # noqa: S307
    assert not [m for m in loaded if m.startswith("benchwarden.cli.") and m not in (
        "benchwarden.cli.common",)], loaded
    assert imported_heavy(["--help"], tmp_path) == []


@pytest.mark.parametrize("command", list(COMMANDS))
def test_command_help_imports_nothing_heavy(command, tmp_path):
    assert imported_heavy([command, "--help"], tmp_path) == []


def test_runs_lists_a_sqlite_store_without_sqlalchemy(tmp_path):
    from benchwarden.store import open_store
    from tests.unit.store.store_samples import make_run

    with open_store(tmp_path / ".benchwarden" / "results.db") as store:
        for label in ("first", "second"):
            store.import_run(_labelled(make_run(n_benchmarks=2, n_forks=3), label))
        expected = store.list_runs(limit=20)
    heavy, out = run_fresh(["runs", "--json"], tmp_path)
    assert heavy == []
    listed = json.loads(out)
    assert [(r["id"], r["label"], r["benchmarks"], r["forks"]) for r in listed] == \
        [(r.id, r.label, r.n_benchmarks, r.n_forks) for r in expected] == [(2, "second", 2, 6), (1, "first", 2, 6)]


def _labelled(data, label):
    from dataclasses import replace

    return replace(data, meta=replace(data.meta, label=label))


def test_audit_grid_threshold_default_matches_the_audit_package():
    from benchwarden.audit.findings import DEFAULT_GRID_THRESHOLD
    from benchwarden.cli.audit import DEFAULT_GRID_THRESHOLD as CLI_DEFAULT

    assert CLI_DEFAULT == DEFAULT_GRID_THRESHOLD


def test_top_level_help_lists_each_command_with_its_own_short_help():
    import importlib

    for name, (module, attribute, short) in COMMANDS.items():
        command = getattr(importlib.import_module(f"benchwarden.cli.{module}"), attribute)
        assert command.name == name
        assert len(short) <= 70 and short.endswith(".")
