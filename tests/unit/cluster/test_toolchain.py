"""Each worker's toolchain, asked before any fork: the commands per suite kind, the probe (real processes), and
which workers are reported as odd ones out."""

from __future__ import annotations

import sys
from pathlib import Path

from benchwarden.adapters.base import SuiteContext
from benchwarden.cluster.toolchain import mixed_kinds, odd_workers, probe, tool_commands


def _ctx(kind: str, **options) -> SuiteContext:
    return SuiteContext(name=kind, kind=kind, root=Path("."), options=options)


def test_each_kind_asks_its_own_tool_the_suite_binary_when_set():
    commands = tool_commands([_ctx("go"), _ctx("jmh", java="/opt/jdk21/bin/java"), _ctx("python"),
                              _ctx("python", python="/usr/bin/python3.12"), _ctx("command")])
    assert commands == {"go": ("go", "version"), "java (/opt/jdk21/bin/java)": ("/opt/jdk21/bin/java", "-version"),
                        "python (python3)": ("python3", "--version"),
                        "python (/usr/bin/python3.12)": ("/usr/bin/python3.12", "--version")}


def test_the_probe_reads_the_first_version_line_and_names_a_missing_tool():
    found = probe({"python": (sys.executable, "--version"), "nope": ("/no/such/tool-bw", "--version")})
    assert found["python"] == f"Python {sys.version.split()[0]}"
    assert found["nope"] == "unavailable (FileNotFoundError)"


def test_a_worker_unlike_the_others_is_reported_and_agreement_is_silent():
    same = {"go": "go version go1.26.0 linux/amd64"}
    assert odd_workers({"w1": same, "w2": same, "w3": same}) == []
    answers = {"w1": same, "w2": same, "w3": {"go": "go version go1.25.4 linux/amd64"}}
    assert odd_workers(answers) == ["worker w3: go is 'go version go1.25.4 linux/amd64', where 2 of 3 workers have "
                                    "'go version go1.26.0 linux/amd64'"]


def test_a_tie_reports_every_worker():
    answers = {"w1": {"java": "openjdk 17"}, "w2": {"java": "openjdk 21"}}
    assert odd_workers(answers) == ["worker w1: java is 'openjdk 17'", "worker w2: java is 'openjdk 21'"]


def test_workers_of_one_kind_are_not_mixed_and_other_kinds_are_named():
    a, b = {"kind": "kind-aaa", "label": "2 × AMD EPYC, 24 GiB"}, {"kind": "kind-bbb", "label": "4 × Intel Xeon, 16 GiB"}
    assert mixed_kinds({}) is None and mixed_kinds({"w1": a, "w2": a}) is None
    assert mixed_kinds({"w3": b, "w1": a, "w2": a}) == (
        "the cluster's workers are machines of 2 kinds (w1, w2: 2 × AMD EPYC, 24 GiB; w3: 4 × Intel Xeon, 16 GiB)")
