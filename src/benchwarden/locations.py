"""Where things are: the config file (found from the working directory upwards) and the result store it names.

Kept apart from :mod:`benchwarden.config` (which validates the whole file with pydantic) because the
commands that only need the store — ``runs``, ``show``, ``export``, ``import`` — must start fast and must
not be stopped by a problem in a table they do not read. Imports nothing but the standard library and
:mod:`benchwarden.errors`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Mapping

from benchwarden.errors import ConfigError

CONFIG_NAME = "benchwarden.toml"
DEFAULT_STORE = ".benchwarden/results.db"


def find_config(start: Path | None = None) -> Path:
    """The nearest ``benchwarden.toml`` in ``start`` or its parents; ConfigError if there is none."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        candidate = directory / CONFIG_NAME
        if candidate.is_file():
            return candidate
    raise ConfigError(f"no {CONFIG_NAME} found in {here} or any parent directory "
                      f"(create one with `benchwarden init`, or pass --config PATH)")


def read_toml(path: Path) -> dict[str, Any]:
    """The parsed TOML file at ``path``; ConfigError naming the file when it is missing, unreadable or invalid."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("file does not exist", str(path)) from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror}", str(path)) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", str(path)) from None


def store_url_from_table(table: object, path: Path) -> str:
    """The store named by a config's ``[store]`` table (``url``: a SQLAlchemy URL or a path), resolved against
    the config file's directory; the default location when the table or its ``url`` is absent.

    This is the only validation of ``[store]`` (``load_config`` uses it too); ConfigError names the key.
    """
    if not isinstance(table, Mapping):
        raise ConfigError("expected a table", str(path), "store")
    unknown = sorted(set(table) - {"url"})
    if unknown:
        raise ConfigError("unknown key", str(path), f"store.{unknown[0]}")
    url = table.get("url")
    if url is not None and (not isinstance(url, str) or not url.strip()):
        raise ConfigError("expected a non-empty string: a SQLAlchemy URL or a file path", str(path), "store.url")
    return resolve_store_url(url or DEFAULT_STORE, path.parent)


def store_location(path: Path) -> str:
    """The result store named by the config file at ``path``, reading only its ``[store]`` table."""
    cfg_path = path.resolve()
    return store_url_from_table(read_toml(cfg_path).get("store", {}), cfg_path)


def resolve_store_url(url_or_path: str, base: Path) -> str:
    """A SQLAlchemy URL stays as is; a plain path becomes an absolute SQLite path relative to ``base``."""
    if "://" in url_or_path:
        return url_or_path
    p = Path(url_or_path).expanduser()
    if not p.is_absolute():
        p = base / p
    return str(p.resolve())


def ignore_store_folder(folder: Path) -> Path | None:
    """Add ``.benchwarden/`` (the default store's folder) to ``folder/.gitignore`` when ``folder`` is in a git
    work tree that does not ignore it yet; the ``.gitignore`` written, or None (not a work tree, no git, already
    ignored).  The store must not be committed by accident: it grows with every run and is machine-specific."""
    import subprocess

    store_dir = DEFAULT_STORE.split("/")[0]
    try:
        inside = subprocess.run(["git", "-C", str(folder), "rev-parse", "--is-inside-work-tree"],
                                capture_output=True, text=True, timeout=30)
        if inside.returncode != 0 or inside.stdout.strip() != "true":
            return None
        ignored = subprocess.run(["git", "-C", str(folder), "check-ignore", "-q", f"{store_dir}/"],
                                 capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if ignored.returncode == 0:
        return None
    gitignore = folder / ".gitignore"
    existing = gitignore.read_text(encoding="utf-8") if gitignore.is_file() else ""
    separator = "" if not existing or existing.endswith("\n") else "\n"
    with gitignore.open("a", encoding="utf-8") as out:
        out.write(f"{separator}# benchwarden's result store (benchwarden.toml [store]); machine-specific\n{store_dir}/\n")
    return gitignore
