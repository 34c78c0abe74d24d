"""``benchwarden serve``: the site live from the store, with measurement on demand (docs/site.md, "serve")."""

from __future__ import annotations

import shutil
import socket
import tempfile
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import click
import uvicorn

from benchwarden.cli.common import ExitStatus, Invocation, common_options
from benchwarden.cli.store_access import store_url_for

if TYPE_CHECKING:
    from benchwarden.serve.measure import MeasurementService


@click.command("serve")
@common_options("config", "suite", "store")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Loopback by default: anyone who can reach the server can make this "
                   "machine measure.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port, printed at start).")
@click.option("--repo", type=click.Path(path_type=Path, file_okay=False),
              help="git work tree whose history orders the commits (default: the config file's folder).")
def serve_command(inv: Invocation, host: str, port: int, repo: Path | None) -> int:
    """Serve the site live from the store, and measure parameter values on demand.

    The pages are `site build`'s, rebuilt when the store changes. Each benchmark page whose benchmark has
    parameters gets a form: a reader picks values within the benchmark's declared domain and the server
    measures them on this machine at the served commit, a quick fork first and then the suite's own forks,
    streaming each refinement to the page. Every fork is stored; values measured before are answered from the
    store. One measurement at a time; Ctrl-C stops the server and keeps every completed fork.
    """
    from benchwarden.cli.history import _default_repo
    from benchwarden.cli.site import documented_methods
    from benchwarden.config import load_config
    from benchwarden.runner.engine import plan_run
    from benchwarden.serve.app import allowed_hosts, create_app
    from benchwarden.serve.domain import families
    from benchwarden.serve.live import LiveSite
    from benchwarden.serve.measure import MeasurementService

    config = load_config(inv.config_path)
    url = store_url_for(inv)
    suites = config.select(inv.suite)
    inv.err_console.print(f"preparing {len(suites)} suite(s): building and listing their benchmarks …",
                          markup=False, highlight=False, soft_wrap=True)
    plan = plan_run(suites)
    for name, exc in plan.failed_suites.items():
        inv.err_console.print(f"warning: suite {name} cannot be measured: {exc}", markup=False, highlight=False, soft_wrap=True)
    found, adapters = {}, {}
    for suite in suites:
        listed = [p.benchmark for p in plan.benchmarks if p.suite.name == suite.name]
        adapters.update({p.suite.name: p.adapter for p in plan.benchmarks if p.suite.name == suite.name})
        found.update(families(suite.name, suite.kind, listed))
    out = Path(tempfile.mkdtemp(prefix="benchwarden-serve-"))
    site = LiveSite(url, repo or _default_repo(inv), documented_methods(inv), out,
                    {key: family.to_json() for key, family in found.items()})
    try:
        site.rebuild()
        service = MeasurementService(config, url, {s.name: s for s in suites}, adapters, found, plan.toolchain,
                                     runs=site.runs, on_stored=site.rebuild)
        server = _Server(uvicorn.Config(create_app(service, site, allowed_hosts(host)), host=host, port=port, log_level="warning",
                                        access_log=False, timeout_graceful_shutdown=5, lifespan="on"),
                         service, inv, len(found))
        try:
            server.run()
        except KeyboardInterrupt:  # uvicorn re-raises the signal it stopped on, once it has shut down cleanly
            pass
        if not server.started:
            raise click.UsageError(f"cannot listen on {host}:{port} (in use, or not an address of this machine)")
        done = [j for j in service.jobs.values() if j.state == "done"]
        inv.err_console.print(f"stopped: {len(service.jobs)} request(s), {len(done)} measured, "
                              f"{len(service.made)} run(s) stored", markup=False, highlight=False, soft_wrap=True)
        for job in service.jobs.values():
            if job.state == "cancelled" and job.events and "run" in job.events[-1]:
                inv.err_console.print(f"{job.name}: {job.events[-1]['message']}", markup=False, highlight=False, soft_wrap=True)
    finally:
        site.close()
        shutil.rmtree(out, ignore_errors=True)
    return ExitStatus.OK


class _Server(uvicorn.Server):
    """uvicorn's server, telling the measurement service to stop as soon as a signal arrives (before uvicorn
    waits for open event streams to close), and printing the address once it listens."""

    def __init__(self, config: uvicorn.Config, service: MeasurementService, inv: Invocation, measurable: int):
        super().__init__(config)
        self.service, self.inv, self.measurable = service, inv, measurable

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.service.request_stop()
        super().handle_exit(sig, frame)

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started and self.servers:
            host, port = self.servers[0].sockets[0].getsockname()[:2]
            shown = f"[{host}]" if ":" in host else host
            self.inv.console.print(f"serving http://{shown}:{port}/ ({self.measurable} benchmark(s) with parameters "
                                   "can be measured on demand; Ctrl-C stops)", markup=False, highlight=False, soft_wrap=True)
            self.inv.console.file.flush()
