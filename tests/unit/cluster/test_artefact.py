"""Shipping a built suite tree to workers (cluster/artefact.py): content-addressed, verified, unpacked once,
every path relocated."""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchwarden.cluster.artefact import MARKER, ArtefactError, pack, relocate, unpack


def _tree(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "code.py").write_text("X = 1\n")
    (root / "pkg" / "__pycache__").mkdir()
    (root / "pkg" / "__pycache__" / "code.pyc").write_bytes(b"stale")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref\n")
    (root / ".benchwarden" / "build" / "go").mkdir(parents=True)
    binary = root / ".benchwarden" / "build" / "go" / "pkg.test"
    binary.write_bytes(b"\x7fELF binary")
    binary.chmod(0o755)
    (root / ".benchwarden" / "results.db").write_bytes(b"the driver's store")
    (root / ".benchwarden" / "worktrees").mkdir()
    (root / "link").symlink_to("pkg/code.py")
    return root


def _names(data: bytes) -> set[str]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        return set(tar.getnames())


def test_the_same_tree_is_the_same_artefact_whenever_and_wherever_it_was_built(tmp_path):
    one, two = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    os.utime(two / "pkg" / "code.py", (1, 1))  # another checkout time
    (two / "pkg" / "code.py").chmod(0o664)  # another umask
    a, b = pack(one), pack(two)
    assert a.digest == b.digest == hashlib.sha256(a.data).hexdigest() and a.data == b.data
    assert a.root == str(one)
    (two / "pkg" / "code.py").write_text("X = 2\n")
    assert pack(two).digest != a.digest  # the content is the address
    # what ships: the code, the build, links as links; not version control, bytecode or the driver's store
    assert _names(a.data) == {"pkg", "pkg/code.py", ".benchwarden", ".benchwarden/build", ".benchwarden/build/go",
                              ".benchwarden/build/go/pkg.test", "link"}


def test_unpacked_once_verified_and_executable(tmp_path):
    art = pack(_tree(tmp_path / "tree"))
    cache = tmp_path / "cache"
    where = unpack(art.data, art.digest, cache)
    assert where == cache / art.digest and (where / MARKER).read_text().strip() == art.digest
    assert (where / "pkg" / "code.py").read_text() == "X = 1\n"
    assert os.access(where / ".benchwarden" / "build" / "go" / "pkg.test", os.X_OK)
    assert (where / "link").is_symlink() and (where / "link").read_text() == "X = 1\n"
    stamp = (where / MARKER).stat().st_mtime_ns
    assert unpack(b"not even looked at", art.digest, cache) == where  # there already: nothing unpacked
    assert (where / MARKER).stat().st_mtime_ns == stamp
    assert [p.name for p in cache.iterdir()] == [art.digest]  # no half-unpacked folders left


def test_a_corrupted_artefact_is_refused_and_nothing_unpacked(tmp_path):
    art = pack(_tree(tmp_path / "tree"))
    broken = art.data[:-10] + b"0123456789"
    with pytest.raises(ArtefactError, match="arrived corrupted"):
        unpack(broken, art.digest, tmp_path / "cache")
    assert not (tmp_path / "cache" / art.digest).exists()


def test_an_artefact_reaching_outside_its_folder_is_refused(tmp_path):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        info = tarfile.TarInfo("../escaped.txt")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"bad"))
    data = raw.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    with pytest.raises(ArtefactError, match="cannot be unpacked"):
        unpack(data, digest, tmp_path / "cache")
    assert not (tmp_path / "escaped.txt").exists() and not (tmp_path / "cache" / digest).exists()


@dataclass(frozen=True)
class _Ctx:
    root: Path
    env: dict
    args: tuple
    name: str


def test_every_path_under_the_drivers_root_is_relocated():
    ctx = _Ctx(Path("/src/app"), {"PYTHONPATH": "/src/app:/src/app/lib:/usr/lib", "HOME": "/home/u"},
               ("-javaagent:/src/app/agent.jar", "/src/application/x", "plain"), "wordstat")
    moved = relocate(ctx, "/src/app", "/cache/d1")
    assert moved == _Ctx(Path("/cache/d1"), {"PYTHONPATH": "/cache/d1:/cache/d1/lib:/usr/lib", "HOME": "/home/u"},
                         ("-javaagent:/cache/d1/agent.jar", "/src/application/x", "plain"), "wordstat")
    assert relocate({"binary": "/src/app/.benchwarden/build/go/p.test", "n": 3}, "/src/app", "/c") == \
        {"binary": "/c/.benchwarden/build/go/p.test", "n": 3}
