"""Shipping a suite's built tree to workers that do not share the driver's filesystem (``[cluster] ship = true``).

Without a shared filesystem a worker cannot run what the driver built.  With ``ship``, the driver packs the
suite's root as it stands after building (the Go test binaries under ``.benchwarden/build``, the JMH jar, the
Python benchmarks and the code they import) into one gzip'd tar, **content-addressed**: entries in path order,
with the owner's mode bits only and no time stamps or owners, so the same tree gives the same bytes and the same
SHA-256 digest — a commit's worktree is one artefact, whoever built it and when.  dask carries the bytes to a
worker once (``Client.scatter(..., hash=True)``: the key is the content); the worker **verifies** the digest,
unpacks into its cache (``$BENCHWARDEN_ARTEFACTS``, else ``$XDG_CACHE_HOME/benchwarden/artefacts``, one folder
per digest, written under a temporary name and renamed, so a half-unpacked tree is never used) and runs the
fork there, every path under the driver's root *relocated* to the unpacked copy (the suite context, the
benchmark's spec, the fork plan's environment).  A later fork or command with the same digest finds the copy
and unpacks nothing.

Not shipped: version-control folders, ``__pycache__``, and the suite's ``.benchwarden/`` except its ``build/``
(stores and caches are the driver's).  What a fork writes under the relocated root stays on the worker, so
``assess`` (whose helpers report through files) still needs a shared filesystem (docs/distributed.md).
Standard library only (tarfile, gzip, hashlib): this module runs on the workers too.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import io
import os
import re
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from benchwarden.errors import BenchwardenError

#: folders never shipped, wherever they are in the tree
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__"})
#: the one part of the suite's own ``.benchwarden/`` folder that ships: what the adapters built there
SHIPPED_STATE = "build"
#: an artefact larger than this is refused (a shared filesystem is the way for such trees)
MAX_BYTES = 1 << 30
#: the file that marks a completely unpacked artefact
MARKER = ".benchwarden-artefact"


class ArtefactError(BenchwardenError):
    """The tree cannot be packed, or what arrived is not what was sent."""


@dataclass(frozen=True)
class Artefact:
    """A packed tree: its driver-side ``root``, the gzip'd tar ``data`` and the SHA-256 ``digest`` of ``data``."""

    root: str
    data: bytes
    digest: str


def _entries(root: Path) -> list[Path]:
    """Files, symbolic links and folders below ``root`` that ship, in path order (the order makes the bytes).
    A symbolic link ships as a link (``os.walk`` does not follow it)."""
    out: list[Path] = []
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        rel = here.relative_to(root)
        kept = []
        for d in sorted(dirs):
            if d in SKIPPED_DIRS or (rel == Path(".benchwarden") and d != SHIPPED_STATE):
                continue
            out.append(here / d)
            if not (here / d).is_symlink():
                kept.append(d)
        dirs[:] = kept
        if rel != Path(".benchwarden"):  # its own files are the driver's (stores, logs); build/ below ships
            out.extend(here / f for f in sorted(files))
    return sorted(out, key=lambda p: p.relative_to(root).as_posix())


def pack(root: Path) -> Artefact:
    """The tree below ``root`` as a content-addressed artefact (see the module docstring)."""
    root = Path(root)
    if not root.is_dir():
        raise ArtefactError(f"cannot ship {root}: not a folder")
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in _entries(root):
            info = tar.gettarinfo(str(path), arcname=path.relative_to(root).as_posix())
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            # the owner's execute bit is all that matters; umasks differ between machines
            info.mode = 0o755 if info.isdir() or info.mode & 0o100 else 0o644
            if info.isfile():
                with open(path, "rb") as fh:
                    tar.addfile(info, fh)
            else:
                tar.addfile(info)
            if raw.tell() > MAX_BYTES:
                raise ArtefactError(f"cannot ship {root}: more than {MAX_BYTES >> 20} MiB packed; give the "
                                    "workers a shared filesystem instead ([cluster] ship = false)")
    data = raw.getvalue()
    return Artefact(str(root), data, hashlib.sha256(data).hexdigest())


def cache_dir() -> Path:
    """Where a worker keeps unpacked artefacts."""
    configured = os.environ.get("BENCHWARDEN_ARTEFACTS")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "benchwarden" / "artefacts"


def unpack(data: bytes, digest: str, cache: Path) -> Path:
    """The unpacked tree of the artefact ``digest`` in ``cache``, unpacking ``data`` first unless it is there;
    ArtefactError when ``data`` does not have that digest (it is then not unpacked)."""
    target = cache / digest
    if (target / MARKER).is_file():
        return target
    actual = hashlib.sha256(data).hexdigest()
    if actual != digest:
        raise ArtefactError(f"the artefact {digest[:12]} arrived corrupted (its SHA-256 is {actual[:12]}); "
                            "nothing was unpacked")
    cache.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{digest[:12]}-", dir=cache))
    try:
        try:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
                tar.extractall(scratch, filter="data")  # no absolute paths, no escaping links, no device files
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise ArtefactError(f"the artefact {digest[:12]} cannot be unpacked: {exc}") from None
        (scratch / MARKER).write_text(digest + "\n", encoding="utf-8")
        try:
            os.rename(scratch, target)
        except OSError:  # another fork on this worker unpacked it meanwhile
            if not (target / MARKER).is_file():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target


def relocate(value: Any, old: str, new: str) -> Any:
    """``value`` with every path under ``old`` (a string or Path, at any depth of dicts, lists, tuples and
    dataclasses) moved under ``new``; everything else unchanged."""
    if isinstance(value, Path):
        moved = relocate(str(value), old, new)
        return Path(moved) if moved != str(value) else value
    if isinstance(value, str):
        # the root, or a path below it, wherever a path may start: the whole string, after ':' or '=' (a
        # PYTHONPATH, -javaagent:/root/x.jar, -Dkey=/root/y) or whitespace; /rootling is another folder
        base = old.rstrip("/")
        pattern = r"(?<![^:=\s])" + re.escape(base) + r"(?=[/:\s]|$)"
        return re.sub(pattern, lambda _m: new.rstrip("/"), value)
    if isinstance(value, Mapping):
        return {k: relocate(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [relocate(v, old, new) for v in value]
    if isinstance(value, tuple):
        return tuple(relocate(v, old, new) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: relocate(getattr(value, f.name), old, new) for f in dataclasses.fields(value)
                   if f.init}
        return dataclasses.replace(value, **changes)
    return value
