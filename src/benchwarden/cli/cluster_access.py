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
    from benchwarden.runner.placement import Placement

cluster_option = click.option(
    "--cluster", "cluster", metavar="ADDRESS",
    help="Run forks on a dask.distributed cluster: a scheduler address (tcp://HOST:PORT) or local:N (N worker "
         "processes here); default: [cluster] address in the config. Workers declare --resources bench=1.")


mix_machines_option = click.option(
    "--mix-machines", is_flag=True,
    help="With --cluster: run even when the workers are machines of different kinds (their forks are then pooled "
         "in one mean and verdict); without it such a cluster is refused before any fork.")


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


def check_mix_machines(mix_machines: bool, cli_value: str | None, config: "Config | None") -> None:
    """``--mix-machines`` is honoured only with a cluster: a usage error without one."""
    if mix_machines and not wants_cluster(cli_value, config):
        raise click.UsageError("--mix-machines goes with --cluster (or [cluster] address): forks that run here all "
                               "run on one machine")


def check_machine_kinds(session: "ClusterSession", mix_machines: bool, err_console: Any) -> None:
    """Before any fork: refuse a cluster whose workers are machines of different kinds — their numbers do not belong
    in one mean or verdict — unless ``--mix-machines``; then a warning (printed even with -q)."""
    from benchwarden.cluster.toolchain import mixed_kinds
    from benchwarden.errors import BenchwardenError

    found = mixed_kinds(session.machine_kinds())
    if found is None:
        return
    if not mix_machines:
        raise BenchwardenError(f"{found}: numbers from machines of different kinds do not belong in one mean or "
                               "verdict. Start workers of one kind (or declare their kind with "
                               "BENCHWARDEN_MACHINE_KIND on each worker), or pass --mix-machines to pool them")
    err_console.print(visible(f"warning: {found}; --mix-machines: their forks are pooled"), markup=False,
                      highlight=False)


def warn_odd_toolchains(session: "ClusterSession", contexts: list[Any], err_console: Any) -> None:
    """Before any fork: a warning per worker whose toolchain differs from the others' (printed even with -q)."""
    for line in session.toolchain_report(contexts):
        err_console.print(visible(f"warning: {line}"), markup=False, highlight=False)


def placement_of(session: "ClusterSession") -> "Placement":
    """Forks on the session's workers, as many benchmarks at once as the cluster has fork slots, stored under the
    cluster's machine name (docs/distributed.md)."""
    from benchwarden.runner.placement import Placement

    return Placement(adapter_factory=session.adapter_factory, concurrency=session.fork_slots,
                     on_interrupt=session.interrupt, cluster=session.where.describe())


@contextlib.contextmanager
def fork_placement(cli_value: str | None, mix_machines: bool, config: "Config | None", contexts: list[Any],
                   err_console: Any, quiet: bool = False) -> Iterator["Placement"]:
    """Where this command's forks run: here, or on the cluster asked for — whose workers are first checked
    (toolchains warned about, machines of different kinds refused unless ``mix_machines``)."""
    from benchwarden.runner.placement import HERE

    check_mix_machines(mix_machines, cli_value, config)
    with cluster_session(cli_value, config, err_console, quiet) as session:
        if session is None:
            yield HERE
            return
        warn_odd_toolchains(session, contexts, err_console)
        check_machine_kinds(session, mix_machines, err_console)
        yield placement_of(session)
