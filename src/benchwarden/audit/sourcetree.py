"""A project's files at one point in time: the working directory, or one git commit.

The audit reads sources and build files through this small interface so the
same extraction runs on the working tree and, for ``--history``, on old
commits without checking anything out (``git ls-tree`` + ``git cat-file
--batch``; the work tree is never touched).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Iterable, Protocol

from benchwarden.errors import BenchwardenError

#: Directories never searched: VCS metadata, build output, IDE and tool caches.
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "target", "build", "out", "node_modules", ".gradle", ".idea",
                          ".mvn", ".benchwarden", ".venv", "__pycache__", "jmh_generated"})


class SourceTree(Protocol):
    """Read-only view of a project's files; paths are POSIX, relative to the project root."""

    def paths(self) -> list[str]: ...

    def read(self, path: str) -> bytes: ...

    def containing(self, needle: bytes, suffix: str) -> list[str]:
        """Paths ending in ``suffix`` whose content contains ``needle`` (a plain byte string)."""
        ...


def _kept(parts: Iterable[str]) -> bool:
    return not any(p in SKIPPED_DIRS for p in parts)


class DirectoryTree:
    """The files under ``root`` on disk (symlinked directories are not followed)."""

    def __init__(self, root: Path):
        self.root = root.resolve()
        if not self.root.is_dir():
            raise BenchwardenError(f"audit: project path '{root}' is not a directory")
        self._paths: list[str] | None = None

    def paths(self) -> list[str]:
        if self._paths is None:
            found = []
            for dirpath, dirnames, filenames in os.walk(self.root):
                dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
                rel = Path(dirpath).relative_to(self.root)
                for name in sorted(filenames):
                    found.append((rel / name).as_posix())
            self._paths = found
        return self._paths

    def read(self, path: str) -> bytes:
        return (self.root / path).read_bytes()

    def containing(self, needle: bytes, suffix: str) -> list[str]:
        out = []
        for p in self.paths():
            if p.endswith(suffix):
                try:
                    if needle in self.read(p):
                        out.append(p)
                except OSError:
                    continue
        return out


class GitTree:
    """The files of one commit of the git repository at ``repo``; blobs read in one ``cat-file --batch`` process."""

    def __init__(self, repo: Path, commit: str, prefix: str = ""):
        self.repo = repo
        self.commit = commit
        self.prefix = prefix  # sub-directory of the repository that is the project root ("" or "a/b/")
        self._blobs: dict[str, str] = {}
        self._cache: dict[str, bytes] = {}
        out = _git(repo, ["ls-tree", "-r", "-z", "--full-tree", commit])
        for entry in out.split(b"\0"):
            if not entry:
                continue
            meta, _, path_b = entry.partition(b"\t")
            fields = meta.split()
            if len(fields) < 3 or fields[1] != b"blob":
                continue
            path = path_b.decode("utf-8", errors="replace")
            if not path.startswith(prefix):
                continue
            rel = path[len(prefix):]
            if _kept(rel.split("/")[:-1]):
                self._blobs[rel] = fields[2].decode()

    def paths(self) -> list[str]:
        return sorted(self._blobs)

    def read(self, path: str) -> bytes:
        if path not in self._cache:
            self.prefetch([path])
        return self._cache[path]

    def containing(self, needle: bytes, suffix: str) -> list[str]:
        proc = subprocess.run(["git", "-C", str(self.repo), "grep", "-l", "-F", "--full-name", "-e",
                               needle.decode(), self.commit, "--", f"*{suffix}"], capture_output=True, check=False)
        if proc.returncode not in (0, 1):  # 1 = nothing found
            raise BenchwardenError(f"audit --history: git grep failed in '{self.repo}': "
                                   f"{proc.stderr.decode(errors='replace').strip()}")
        lead = f"{self.commit}:"
        out = []
        for line in proc.stdout.decode("utf-8", errors="replace").splitlines():
            path = line[len(lead):] if line.startswith(lead) else line
            if path.startswith(self.prefix) and path[len(self.prefix):] in self._blobs:
                out.append(path[len(self.prefix):])
        return sorted(out)

    def prefetch(self, paths: Iterable[str]) -> None:
        """Read many blobs with one ``git cat-file --batch`` call."""
        wanted = [p for p in paths if p in self._blobs and p not in self._cache]
        if not wanted:
            return
        request = b"".join(self._blobs[p].encode() + b"\n" for p in wanted)
        proc = subprocess.run(["git", "-C", str(self.repo), "cat-file", "--batch"], input=request,
                              capture_output=True, check=False)
        if proc.returncode != 0:
            raise BenchwardenError(f"audit --history: git cat-file failed in '{self.repo}': "
                                   f"{proc.stderr.decode(errors='replace').strip()}")
        data = proc.stdout
        pos = 0
        for p in wanted:
            header_end = data.index(b"\n", pos)
            header = data[pos:header_end].split()
            size = int(header[2])
            start = header_end + 1
            self._cache[p] = data[start:start + size]
            pos = start + size + 1


def _git(repo: Path, args: list[str]) -> bytes:
    try:
        proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)
    except FileNotFoundError:
        raise BenchwardenError("audit --history: 'git' was not found on PATH") from None
    if proc.returncode != 0:
        raise BenchwardenError(f"audit --history: `git {' '.join(args)}` failed in '{repo}': "
                               f"{proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout
