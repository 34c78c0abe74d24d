"""A throwaway PostgreSQL server for the tests: ``initdb`` in a temporary directory, ``pg_ctl start`` on a free
loopback port, one fresh database per test (``PgCluster.create_database``), ``pg_ctl stop`` and removal at the end
of the session.

Without the server binaries or the ``psycopg`` driver the tests that need it are skipped with the reason, except
in CI (``CI=true``), where that is a failure: the PostgreSQL store must be tested there, never silently not.
``scripts/bootstrap.sh`` installs Debian's ``postgresql`` package when run as root.  The fixture is made
available to every test folder by ``tests/conftest.py``.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, NoReturn

import pytest


def _unavailable(reason: str) -> NoReturn:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: the PostgreSQL tests must run)", pytrace=False)
    pytest.skip(reason)


PG_START_TIMEOUT_S = 60


@dataclass(frozen=True)
class PgCluster:
    host: str
    port: int
    user: str

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://{self.user}@{self.host}:{self.port}/{database}"

    def create_database(self) -> str:
        import psycopg

        name = f"bw_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(host=self.host, port=self.port, user=self.user, dbname="postgres", autocommit=True) as conn:
            try:  # FILE_COPY (PostgreSQL >= 15) is much faster for tiny databases
                conn.execute(f'CREATE DATABASE "{name}" STRATEGY = FILE_COPY')
            except psycopg.errors.SyntaxError:
                conn.execute(f'CREATE DATABASE "{name}"')
        return name


def _pg_bin_dir() -> Path | None:
    on_path = shutil.which("pg_ctl")
    candidates = [Path(on_path).resolve().parent] if on_path else []
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for directory in candidates:
        if (directory / "pg_ctl").exists() and (directory / "initdb").exists() and (directory / "postgres").exists():
            return directory
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_user() -> tuple[str | None, dict]:
    """PostgreSQL refuses to run as root: run it as the 'postgres' (or 'nobody') account then."""
    if os.geteuid() != 0:
        return None, {}
    for name in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        return name, {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
    _unavailable("running as root and no unprivileged account (postgres, nobody) to run the PostgreSQL server as")
    return None, {}


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    bin_dir = _pg_bin_dir()
    if bin_dir is None:
        _unavailable("PostgreSQL server binaries (pg_ctl, initdb, postgres) not found on PATH or in /usr/lib/postgresql "
                     "(scripts/bootstrap.sh installs Debian's postgresql package when run as root)")
        raise AssertionError("unreachable")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("the psycopg driver is not installed (pip install 'benchwarden[postgres]')")
    account, run_as = _server_user()
    root = Path(tempfile.mkdtemp(prefix="bw-pg-"))
    data_dir, log_file = root / "data", root / "server.log"
    if account is not None:
        os.chown(root, run_as["user"], run_as["group"])
    port = _free_port()
    try:
        subprocess.run([str(bin_dir / "initdb"), "-D", str(data_dir), "-U", "bench", "--auth=trust", "-E", "UTF8",
                        "--no-sync", "--no-instructions"], check=True, capture_output=True, timeout=120, **run_as)
        subprocess.run([str(bin_dir / "pg_ctl"), "-D", str(data_dir), "-l", str(log_file), "-w",
                        "-t", str(PG_START_TIMEOUT_S), "-o",
                        f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
                       check=True, capture_output=True, timeout=PG_START_TIMEOUT_S + 10, **run_as)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        log = log_file.read_text(errors="replace") if log_file.exists() else ""
        _stop(bin_dir, data_dir, run_as)
        shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"could not start a throwaway PostgreSQL cluster: {exc}\n{getattr(exc, 'stderr', b'')!r}\n{log}")
    try:
        yield PgCluster(host="127.0.0.1", port=port, user="bench")
    finally:
        _stop(bin_dir, data_dir, run_as)
        shutil.rmtree(root, ignore_errors=True)


def _stop(bin_dir: Path, data_dir: Path, run_as: dict) -> None:
    if (data_dir / "postmaster.pid").exists():
        subprocess.run([str(bin_dir / "pg_ctl"), "-D", str(data_dir), "-m", "fast", "-w", "stop"],
                       capture_output=True, timeout=60, check=False, **run_as)
