"""Opening the result store for a command: --store, else the config's store, else the default location."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator

from benchwarden.cli.common import Invocation
from benchwarden.config import DEFAULT_STORE, find_config, load_config, resolve_store_url
from benchwarden.errors import ConfigError
from benchwarden.store import Store, open_store


def store_url_for(inv: Invocation) -> str:
    """--store wins; then the config's [store] url; then .benchwarden/results.db in the working directory."""
    if inv.store_url:
        return resolve_store_url(inv.store_url, Path.cwd())
    try:
        config = load_config(inv.config_path)
    except ConfigError:
        if inv.config_path is not None:
            raise
        try:
            find_config()
        except ConfigError:
            return resolve_store_url(DEFAULT_STORE, Path.cwd())
        raise
    return config.store_url


@contextlib.contextmanager
def store_for(inv: Invocation) -> Iterator[Store]:
    store = open_store(store_url_for(inv))
    try:
        yield store
    finally:
        store.close()
