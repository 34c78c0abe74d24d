"""The toolchain each worker would run forks with, asked before any fork is submitted; odd workers reported.

A worker whose Go, Java or Python differs from the others' measures something else: its forks would land in
the same benchmark as the others'.  Before the first fork, the driver asks every worker for the version line of
each tool the suites run (``go version``, ``java -version``, the asv suite's interpreter) and reports a worker
whose answer differs from the most common one — before it receives work.  A report, not a refusal: the user
decides (a patch release may be fine; a major one is not).
"""

from __future__ import annotations

import subprocess
from collections import Counter
from typing import Iterable, Mapping

from benchwarden.adapters.base import SuiteContext

#: seconds a tool may take to print its version
PROBE_TIMEOUT_S = 20.0


def tool_commands(contexts: Iterable[SuiteContext]) -> dict[str, tuple[str, ...]]:
    """Tool name -> the command printing its version, for the suites' kinds (the suite's own binary if set)."""
    commands: dict[str, tuple[str, ...]] = {}
    for ctx in contexts:
        if ctx.kind == "go":
            commands["go"] = ("go", "version")
        elif ctx.kind == "jmh":
            java = ctx.options.get("java")
            commands[f"java ({java})" if isinstance(java, str) else "java"] = \
                (java if isinstance(java, str) else "java", "-version")
        elif ctx.kind == "python":
            python = ctx.options.get("python", "python3")
            if isinstance(python, str):
                commands[f"python ({python})"] = (python, "--version")
    return commands


def probe(commands: Mapping[str, tuple[str, ...]]) -> dict[str, str]:
    """Run on a worker: each tool's first line of version output, or why there is none."""
    found = {}
    for tool, argv in commands.items():
        try:
            done = subprocess.run(list(argv), capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            found[tool] = f"unavailable ({type(exc).__name__})"
            continue
        lines = (done.stdout + done.stderr).strip().splitlines()
        found[tool] = lines[0].strip() if lines else f"no version (exit status {done.returncode})"
    return found


def odd_workers(answers: Mapping[str, Mapping[str, str]]) -> list[str]:
    """One line per worker and tool whose version differs from the most common answer (ties: reported all)."""
    lines = []
    tools = sorted({tool for versions in answers.values() for tool in versions})
    for tool in tools:
        counts = Counter(versions.get(tool, "not asked") for versions in answers.values())
        if len(counts) < 2:
            continue
        (common, n), *rest = counts.most_common()
        tie = bool(rest) and rest[0][1] == n
        for worker, versions in sorted(answers.items()):
            mine = versions.get(tool, "not asked")
            if tie or mine != common:
                lines.append(f"worker {worker}: {tool} is {mine!r}" +
                             ("" if tie else f", where {n} of {len(answers)} workers have {common!r}"))
    return lines


def mixed_kinds(kinds: Mapping[str, Mapping[str, str]]) -> str | None:
    """None when every worker is a machine of one kind; else a sentence naming each kind and its workers."""
    groups: dict[str, list[str]] = {}
    labels: dict[str, str] = {}
    for worker, answer in sorted(kinds.items()):
        kind = answer.get("kind", "unknown")
        groups.setdefault(kind, []).append(worker)
        labels.setdefault(kind, answer.get("label", kind))
    if len(groups) < 2:
        return None
    parts = [f"{', '.join(workers)}: {labels[kind]}" for kind, workers in sorted(groups.items(),
                                                                                 key=lambda kv: kv[1][0])]
    return f"the cluster's workers are machines of {len(groups)} kinds ({'; '.join(parts)})"
