"""Opening the result store for a command: --store, else the config's store, else the default location."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from benchwarden.cli.common import Invocation

if TYPE_CHECKING:
    from benchwarden.store import Store


def store_url_for(inv: Invocation) -> str:
    """--store wins; then the config's [store] url; then .benchwarden/results.db in the working directory.

    Only the config's ``[store]`` table is read (:func:`benchwarden.locations.store_location`).
    """
    from benchwarden.errors import ConfigError
    from benchwarden.locations import DEFAULT_STORE, find_config, resolve_store_url, store_location

    if inv.store_url:
        return resolve_store_url(inv.store_url, Path.cwd())
    if inv.config_path is not None:
        return store_location(inv.config_path)
    try:
        path = find_config()
    except ConfigError:
        return resolve_store_url(DEFAULT_STORE, Path.cwd())
    return store_location(path)


@contextlib.contextmanager
def store_for(inv: Invocation) -> Iterator[Store]:
    from benchwarden.store import open_store

    store = open_store(store_url_for(inv))
    try:
        yield store
    finally:
        store.close()
