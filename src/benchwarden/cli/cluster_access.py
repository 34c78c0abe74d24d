"""``--cluster``: the option of the commands that run forks, and the session it opens (docs/distributed.md).

The cluster package (and dask with it) is imported only when a cluster is asked for, by the option or by the
``[cluster]`` table; without one, forks run here as always.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, Iterator

import click

from benchwarden.report.escaping import visible

if TYPE_CHECKING:
    from benchwarden.cluster.session import ClusterSession
    from benchwarden.config import Config

cluster_option = click.option(
    "--cluster", "cluster", metavar="ADDRESS",
    help="Run forks on a dask.distributed cluster: a scheduler address (tcp://HOST:PORT) or local:N (N worker "
         "processes here); default: [cluster] address in the config. Workers declare --resources bench=1.")


def wants_cluster(cli_value: str | None, config: "Config | None") -> bool:
    return cli_value is not None or bool(config is not None and config.sections.get("cluster", {}).get("address"))


@contextlib.contextmanager
def cluster_session(cli_value: str | None, config: "Config | None", err_console: Any,
                    quiet: bool = False) -> Iterator["ClusterSession | None"]:
    """The cluster session for this command (closed on exit), or None when forks run here."""
    if not wants_cluster(cli_value, config):
        yield None
        return
    from benchwarden.cluster.address import ClusterTable, resolve_cluster
    from benchwarden.cluster.session import connect

    table = config.section("cluster", ClusterTable) if config is not None else ClusterTable()
    where = resolve_cluster(cli_value, table, str(config.path) if config is not None else None)  # type: ignore[arg-type]
    if where is None:
        yield None
        return

    def log(line: str) -> None:
        if not quiet:
            err_console.print(visible(line), markup=False, highlight=False)

    session = connect(where, log=log)
    try:
        yield session
    finally:
        session.close()
        if session.scheduler_lost is not None and quiet:  # said already unless quiet; the cause of the interrupt
            err_console.print(visible(session.scheduler_lost), markup=False, highlight=False)


def warn_odd_toolchains(session: "ClusterSession", contexts: list[Any], err_console: Any) -> None:
    """Before any fork: a warning per worker whose toolchain differs from the others' (printed even with -q)."""
    for line in session.toolchain_report(contexts):
        err_console.print(visible(f"warning: {line}"), markup=False, highlight=False)
