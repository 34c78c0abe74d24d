"""Run environment metadata: the machine, the source revision, the tool version — one collector.

:func:`collect_run_meta` is the only builder of a new run's :class:`~benchwarden.model.RunMeta`
(``run``, ``compare``, ``check`` and ``assess`` all call it), as pyperf gathers its metadata in one
module; importers rebuild the metadata of runs taken elsewhere from their files instead.

These figures go into :class:`~benchwarden.model.RunMeta` so that a stored
result says where and on what it was measured (two runs on different CPUs
should not be compared blindly).  Every function here *never fails*: a probe
that cannot answer yields ``None`` or leaves its key out, because missing
metadata must not cost a benchmark run.  Harness toolchain versions (java,
go, python of the suite) come from the adapters' ``prepare``, not from here.
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import subprocess
import time
from pathlib import Path
from types import MappingProxyType
from typing import Mapping, NamedTuple

from benchwarden import __version__
from benchwarden.model import RunMeta

#: git must answer within this long; a hung network filesystem must not hold up a run
GIT_TIMEOUT_S = 10.0


def tool_version() -> str:
    """The running benchwarden's version, e.g. ``"0.1.0"``."""
    return __version__


def machine_info(proc_root: Path = Path("/proc")) -> dict[str, str]:
    """Describe this machine; all values are strings (``RunMeta.machine`` is ``Mapping[str, str]``).

    Keys: ``cpu`` (model name), ``cores`` (logical CPUs), ``arch``, ``os``
    (system and release, e.g. ``Linux 6.8.0-45-generic``), ``kernel`` (full
    kernel version string), ``hostname``, and ``memory_bytes`` (total RAM)
    when known.  ``proc_root`` exists so tests can point at a fixture tree.
    """
    info = {
        "cpu": cpu_model(proc_root) or platform.processor() or platform.machine() or "unknown",
        "cores": str(os.cpu_count() or 0),
        "arch": platform.machine() or "unknown",
        "os": f"{platform.system()} {platform.release()}".strip() or "unknown",
        "kernel": platform.version() or "unknown",
        "hostname": platform.node() or "unknown",
    }
    memory = total_memory_bytes(proc_root)
    if memory is not None:
        info["memory_bytes"] = str(memory)
    name = " ".join(os.environ.get(MACHINE_NAME_VAR, "").split())
    if name:
        info["name"] = name[:MACHINE_KEY_MAX]
    kind = " ".join(os.environ.get(MACHINE_KIND_VAR, "").split())
    if kind:
        info["kind"] = kind[:MACHINE_KEY_MAX]
    return info


#: names the machine explicitly (``BENCHWARDEN_MACHINE=ci-bench-1``): its history key, for machines whose
#: hostname changes (ephemeral CI runners of one hardware kind) or hosts that are rebuilt
MACHINE_NAME_VAR = "BENCHWARDEN_MACHINE"
MACHINE_KEY_MAX = 64
#: what makes two machines "the same" for a history series when no name is given: the hardware and the host
MACHINE_KEY_FIELDS = ("hostname", "cpu", "cores", "arch", "memory_bytes")


def machine_key(machine: Mapping[str, str]) -> str:
    """The identity of a machine in history: numbers from different keys are never one series (docs/history.md).

    ``machine["name"]`` (from ``BENCHWARDEN_MACHINE``) when given; else ``hw-`` and 16 hex digits of a SHA-256
    over :data:`MACHINE_KEY_FIELDS`.  The operating system and kernel are left out on purpose: an update
    must not end a series (a step it causes is a change point to see, and ``history`` shows it).
    """
    name = machine.get("name")
    if name:
        return str(name)[:MACHINE_KEY_MAX]
    identity = "\x1f".join(f"{k}={machine.get(k, '')}" for k in MACHINE_KEY_FIELDS)
    return "hw-" + hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16]


#: declares the machine's kind (``BENCHWARDEN_MACHINE_KIND=c6i.large``) where the hardware description does not
#: tell it: machines whose numbers may be pooled in one mean or verdict (docs/distributed.md)
MACHINE_KIND_VAR = "BENCHWARDEN_MACHINE_KIND"
#: what makes two machines of one kind when none is declared: the hardware, not the host
MACHINE_KIND_FIELDS = ("cpu", "cores", "arch", "memory_bytes")


def machine_kind(machine: Mapping[str, str]) -> str:
    """The kind of a machine: numbers from machines of different kinds are never pooled unless asked for.

    ``machine["kind"]`` (from ``BENCHWARDEN_MACHINE_KIND``) when given; else ``kind-`` and 12 hex digits of a
    SHA-256 over :data:`MACHINE_KIND_FIELDS` — :func:`machine_key` without the host name (and the given name),
    so two hosts of one hardware are one kind.
    """
    declared = machine.get("kind")
    if declared:
        return str(declared)[:MACHINE_KEY_MAX]
    identity = "\x1f".join(f"{k}={machine.get(k, '')}" for k in MACHINE_KIND_FIELDS)
    return "kind-" + hashlib.sha256(identity.encode("utf-8")).hexdigest()[:12]


def machine_kind_label(machine: Mapping[str, str]) -> str:
    """A short description of the kind: the declared kind, else cores, CPU model and memory."""
    if machine.get("kind"):
        return str(machine["kind"])
    memory = machine.get("memory_bytes", "")
    size = f", {int(memory) / 2**30:.0f} GiB" if memory.isdigit() else ""
    return f"{machine.get('cores', '?')} × {machine.get('cpu', 'unknown CPU')}{size}"


def machine_label(machine: Mapping[str, str]) -> str:
    """A short human description: the name or hostname, cores and CPU model."""
    who = machine.get("name") or machine.get("hostname") or "unknown host"
    cpu = machine.get("cpu") or "unknown CPU"
    cores = machine.get("cores")
    return f"{who} ({cores + ' cores, ' if cores else ''}{cpu})"


def cpu_model(proc_root: Path = Path("/proc")) -> str | None:
    """The first ``model name`` (x86) or ``Model``/``Hardware`` (ARM) line of ``cpuinfo``, or None."""
    text = _read_text(proc_root / "cpuinfo")
    if text is None:
        return None
    for wanted in ("model name", "Model", "Hardware", "cpu model"):
        for line in text.splitlines():
            name, sep, value = line.partition(":")
            if sep and name.strip() == wanted and value.strip():
                return " ".join(value.split())
    return None


def total_memory_bytes(proc_root: Path = Path("/proc")) -> int | None:
    """``MemTotal`` from ``meminfo`` (reported in kB = KiB there), else ``sysconf``, else None."""
    text = _read_text(proc_root / "meminfo")
    if text is not None:
        for line in text.splitlines():
            if line.startswith("MemTotal:"):
                parts = line.split()
                if len(parts) >= 2 and parts[1].isdigit():
                    factor = 1024 if len(parts) < 3 or parts[2].lower() == "kb" else 1
                    return int(parts[1]) * factor
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


class GitState(NamedTuple):
    """Source revision of a directory: unpack as ``commit, dirty = git_state(path)``; ``_asdict()`` for a dict."""

    commit: str | None  # full sha of HEAD
    dirty: bool | None  # tracked files differ from HEAD


def git_state(directory: Path) -> GitState:
    """``GitState(commit, dirty)`` for the git work tree containing ``directory``.

    Both are None when ``directory`` is not in a git repository, git is not
    installed, or git fails.  ``dirty`` means tracked files differ from the
    commit (staged or not); untracked files are ignored on purpose, because
    the result store (``.benchwarden/``) itself usually lives untracked in
    the tree and would otherwise mark every run dirty.
    """
    commit = _git(directory, "rev-parse", "--verify", "HEAD")
    if commit is None:
        return GitState(None, None)
    status = _git(directory, "status", "--porcelain", "--untracked-files=no")
    return GitState(commit, None if status is None else bool(status))


def collect_run_meta(directory: Path | None, *, toolchain: Mapping[str, str] | None = None,
                     config: Mapping[str, object] | None = None, label: str | None = None,
                     created_at: float | None = None, source: GitState | None = None) -> RunMeta:
    """The metadata of a run taken now: the one builder every command uses (run, compare, check, assess).

    ``directory``: the work tree whose commit the run measures (the config file's folder, or a suite's root);
    ``source``: the commit and dirty flag when they are already known instead (a compared revision, a checked
    commit), so git is not asked again. ``toolchain``: versions the adapters reported while preparing
    (``Plan.toolchain``); ``config``: the command's snapshot (what ``--resume``, ``show`` and re-analysis read
    back). The machine description is collected once per process (:func:`machine_identity`).
    """
    if source is None:
        source = git_state(directory) if directory is not None else GitState(None, None)
    return RunMeta(created_at=time.time() if created_at is None else created_at, tool_version=tool_version(),
                   commit=source.commit, dirty=source.dirty, machine=dict(machine_identity()),
                   toolchain=dict(toolchain or {}), config=dict(config or {}), label=label)


def machine_identity() -> Mapping[str, str]:
    """:func:`machine_info` of this machine: the hardware collected once per process (it cannot change while we
    run), the name (``BENCHWARDEN_MACHINE``) read at each call, since a caller may set it after the first run
    of the process (the test suite found a cached name deciding later runs' history key); the declared kind
    (``BENCHWARDEN_MACHINE_KIND``) likewise."""
    hardware = _hardware_identity()
    declared = {key: " ".join(os.environ.get(var, "").split())[:MACHINE_KEY_MAX]
                for key, var in (("name", MACHINE_NAME_VAR), ("kind", MACHINE_KIND_VAR))}
    declared = {k: v for k, v in declared.items() if v}
    return MappingProxyType({**hardware, **declared}) if declared else hardware


@functools.lru_cache(maxsize=1)
def _hardware_identity() -> Mapping[str, str]:
    return MappingProxyType({k: v for k, v in machine_info().items() if k not in ("name", "kind")})


def _git(directory: Path, *args: str) -> str | None:
    """Output of ``git -C directory args`` stripped, or None on any failure."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}  # status must not take the index lock
    try:
        done = subprocess.run(["git", "-C", str(directory), *args], capture_output=True, text=True,
                              timeout=GIT_TIMEOUT_S, env=env, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip()


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
