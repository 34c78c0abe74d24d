"""A Go fork's sampling CPU profile as a call tree (``compare --explain`` and ``explain`` for Go suites).

``-test.cpuprofile FILE`` makes the test binary sample its goroutines' stacks about 100 times per CPU-second (Go's
runtime/pprof) and write the profile at exit; ``go tool pprof -traces FILE`` prints every distinct stack with the
time sampled in it, inlined calls as frames of their own. The call tree keeps the stacks that pass through the
benchmark function — ``pkg.BenchmarkX``, or a closure ``pkg.BenchmarkX.funcN`` that ``b.Run`` runs for a
sub-benchmark (a closure is the benchmark itself, not a node) — and, below it, the **module's own functions**
(the ``module`` line of go.mod); a function of the standard library or of a dependency is not a node, its time is
its caller's self time, as the other profilers do with functions outside the profiled packages. GC workers and
other goroutines outside the benchmark are left out.

What sampling changes against the Java and Python probes: nothing is instrumented, so nothing runs slower or is
"too short to probe", but time is counted in 10-ms samples — a function's time in one fork is known to about
±√samples — and calls are not counted at all (``calls`` is 0 below the root; the root's calls are the
operations the fork's iterations reported, Go's ``b.N``, which leaves out the one call per repetition Go makes
with ``b.N = 1`` before it).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Sequence

from benchwarden.codelevel.profiles import CallPath, CallTree, NodeTimes, ProfileUnreadable

_UNITS_NS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}
_SAMPLE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)(ns|us|µs|ms|s)\s+(\S.*?)\s*$")
_SEPARATOR = re.compile(r"^-+\+-+$")
PPROF_TIMEOUT_S = 120.0


def go_root_and_module(package_dir: Path, full_name: str) -> tuple[str, str]:
    """The benchmark function's pprof name (``import/path.BenchmarkX``) and the module path, from the package's
    directory (the go.mod above it) and the benchmark's full name (``BenchmarkX/sub=1``)."""
    module_dir = next((d for d in (package_dir, *package_dir.parents) if (d / "go.mod").is_file()), None)
    if module_dir is None:
        raise ProfileUnreadable(f"no go.mod above {package_dir}")
    match = re.search(r"^module\s+(\S+)", (module_dir / "go.mod").read_text(encoding="utf-8"), re.MULTILINE)
    if match is None:
        raise ProfileUnreadable(f"{module_dir / 'go.mod'} has no module line")
    module = match.group(1).strip('"')
    rel = package_dir.resolve().relative_to(module_dir.resolve()).as_posix()
    import_path = module if rel == "." else f"{module}/{rel}"
    return f"{import_path}.{full_name.split('/')[0]}", module


def parse_traces(text: str) -> list[tuple[float, list[str]]]:
    """``go tool pprof -traces`` output as (sampled ns, frames leaf first), one per distinct stack (pure)."""
    traces: list[tuple[float, list[str]]] = []
    frames: list[str] | None = None
    for line in text.splitlines():
        if _SEPARATOR.match(line.strip()):
            frames = None
            continue
        sample = _SAMPLE.match(line)
        if sample and frames is None:
            frames = [_function(sample.group(3))]
            traces.append((float(sample.group(1)) * _UNITS_NS[sample.group(2)], frames))
        elif frames is not None and line.strip():
            frames.append(_function(line.strip()))
    return traces


def _function(frame: str) -> str:
    return frame.removesuffix(" (inline)").strip()


def call_tree(traces: Sequence[tuple[float, Sequence[str]]], root: str, module: str, operations: float) -> CallTree:
    """The call tree of ``traces`` below ``root`` over ``module``'s functions, ``operations`` benchmark operations
    (pure; module docstring). ProfileUnreadable when no sample passed through the benchmark function."""
    package, _, name = root.rpartition(".")
    is_root = re.compile(rf"^{re.escape(package)}(?:_test)?\.{re.escape(name)}(?:\.func\d+(?:\.\d+)*)?$").match
    inclusive: dict[CallPath, float] = {}
    own: dict[CallPath, float] = {}
    for ns, frames in traces:
        outer_first = list(reversed(frames))
        start = next((i for i, f in enumerate(outer_first) if is_root(f)), None)
        if start is None:
            continue
        path: CallPath = (root,)
        chain = [path]
        for frame in outer_first[start + 1:]:
            if is_root(frame) or not frame.startswith((module + ".", module + "/")):
                continue
            path = path + (frame,)
            chain.append(path)
        for p in chain:
            inclusive[p] = inclusive.get(p, 0.0) + ns
        own[chain[-1]] = own.get(chain[-1], 0.0) + ns
    if (root,) not in inclusive:
        raise ProfileUnreadable(f"no CPU sample passed through {root}: the profiled fork measured too little "
                                "(Go samples 100 times per CPU-second)")
    nodes = {p: NodeTimes(max(1, round(operations)) if p == (root,) else 0, inclusive[p], own.get(p, 0.0))
             for p in inclusive}
    return CallTree(root, nodes, sampled=True)


def read_pprof(profile: Path, root: str, module: str, operations: float) -> CallTree:
    """The call tree of one fork's ``-test.cpuprofile`` file (``go tool pprof -traces``)."""
    if not profile.is_file():
        raise ProfileUnreadable(f"{profile}: the profiled fork wrote no CPU profile")
    go = shutil.which("go")
    if go is None:
        raise ProfileUnreadable("reading a Go CPU profile needs 'go' on PATH (go tool pprof)")
    try:
        done = subprocess.run([go, "tool", "pprof", "-traces", str(profile)], capture_output=True, text=True,
                              timeout=PPROF_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ProfileUnreadable(f"{profile}: go tool pprof took longer than {PPROF_TIMEOUT_S:.0f}s") from None
    if done.returncode != 0:
        raise ProfileUnreadable(f"{profile}: go tool pprof failed: {done.stderr.strip()[-500:]}")
    return call_tree(parse_traces(done.stdout), root, module, operations)
