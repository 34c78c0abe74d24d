"""Where the cluster is: ``--cluster ADDRESS`` or ``local:N``, and the ``[cluster]`` table of benchwarden.toml.

Pure parsing, no dask import: a bad address is a usage error (exit 2) before anything connects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from pydantic import BaseModel, ConfigDict, Field

from benchwarden.errors import ConfigError, UsageError

#: the worker resource a fork holds while it runs; workers declare it with ``--resources bench=1`` so that a
#: benchmark machine runs one fork at a time and nothing else of ours shares its cores
DEFAULT_RESOURCE = "bench"

_SCHEMES = ("tcp", "tls", "ucx", "ws", "wss", "inproc")
_HOST_PORT = re.compile(r"^(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.\-]+):(?P<port>\d{1,5})$")
_RESOURCE = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


@dataclass(frozen=True)
class ClusterAddress:
    """A scheduler to connect to (``scheduler``), or a LocalCluster of ``local_workers`` workers to start here.

    ``resource``: the worker resource each fork holds (one unit); ``ship``: send each suite's built tree to the
    workers (they do not share the driver's filesystem; cluster/artefact.py).
    """

    scheduler: str | None = None
    local_workers: int | None = None
    resource: str = DEFAULT_RESOURCE
    ship: bool = False

    def describe(self) -> str:
        return f"local:{self.local_workers}" if self.local_workers is not None else str(self.scheduler)


def parse_cluster(text: str, resource: str = DEFAULT_RESOURCE, where: str = "--cluster") -> ClusterAddress:
    """``local:N`` (N >= 1), ``SCHEME://HOST:PORT`` (tcp, tls, ...) or ``HOST:PORT`` (tcp); UsageError otherwise."""
    value = text.strip()
    if not _RESOURCE.match(resource):
        raise UsageError(f"{where}: resource name {resource!r} is not a name (letters, digits, _ and -)")
    if value.startswith("local:") or value == "local":
        count = value.partition(":")[2]
        if not count.isdigit() or int(count) < 1:
            raise UsageError(f"{where}: expected local:N with N a number of workers >= 1, got {text!r}")
        return ClusterAddress(local_workers=int(count), resource=resource)
    scheme, sep, rest = value.partition("://")
    if not sep:
        scheme, rest = "tcp", value
    if scheme not in _SCHEMES:
        raise UsageError(f"{where}: unknown protocol {scheme!r} in {text!r} (expected one of {', '.join(_SCHEMES)})")
    match = _HOST_PORT.match(rest)
    if match is None or not 0 < int(match["port"]) < 65536:
        raise UsageError(f"{where}: expected a scheduler address HOST:PORT (e.g. tcp://10.0.0.5:8786) or local:N, "
                         f"got {text!r}")
    return ClusterAddress(scheduler=f"{scheme}://{rest}", resource=resource)


class ClusterTable(BaseModel):
    """The ``[cluster]`` table: ``address`` (as ``--cluster``), ``resource`` (default ``bench``) and ``ship``
    (default false: the workers share the driver's filesystem)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    address: str | None = Field(default=None, min_length=1)
    resource: str = DEFAULT_RESOURCE
    ship: bool = False


def resolve_cluster(cli_value: str | None, table: ClusterTable, config_path: str | None = None
                    ) -> ClusterAddress | None:
    """``--cluster`` if given, else the table's address, else None (forks run here)."""
    if cli_value is not None:
        return replace(parse_cluster(cli_value, table.resource), ship=table.ship)
    if table.address is None:
        return None
    try:
        return replace(parse_cluster(table.address, table.resource, where="[cluster] address"), ship=table.ship)
    except UsageError as exc:
        raise ConfigError(str(exc), config_path, "cluster.address") from None
