"""Where a command's forks run: here, one after another (the default), or on a cluster's workers.

One value carries the three things that change when forks run elsewhere, so a command that measures (``run``,
``check``, ``backfill``, ``assess``) takes a placement instead of knowing about clusters:

* the **adapter factory** (a cluster wraps each harness's adapter so its forks start on a worker; the stop
  policies, the runner and the store stay on this machine, unchanged);
* how many **benchmarks run at once** and how a Ctrl-C reaches forks outside this process group;
* the **machine** the runs are stored under: forks on a cluster are not this machine's numbers, so the run's
  machine is named after the cluster (``cluster tcp://…``) and its history series, reuse fingerprints and
  ``backfill``'s "already measured" never join the driver's own runs (each fork still records its worker).

The CLI builds a cluster's placement from its session (:func:`benchwarden.cli.cluster_access.placement_of`); the
cluster package cannot import the runner, and this module knows nothing of dask.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Mapping

from benchwarden.adapters import get_adapter
from benchwarden.adapters.base import Adapter
from benchwarden.environment import MACHINE_KEY_MAX, machine_identity
from benchwarden.model import RunMeta
from benchwarden.runner.engine import Runner
from benchwarden.runner.progress import ProgressListener


@dataclass(frozen=True)
class Placement:
    """See the module docstring.  ``cluster``: where forks run when not here (the cluster's address, described)."""

    adapter_factory: Callable[[str], Adapter] = get_adapter
    concurrency: int = 1
    on_interrupt: Callable[[], None] | None = None
    cluster: str | None = None

    @property
    def remote(self) -> bool:
        return self.cluster is not None

    @property
    def machine_name(self) -> str | None:
        """The runs' machine name when forks do not run here."""
        return None if self.cluster is None else f"cluster {self.cluster}"[:MACHINE_KEY_MAX]

    def runner(self, store, listener: ProgressListener | None = None) -> Runner:
        return Runner(store, listener, concurrency=self.concurrency, on_interrupt=self.on_interrupt)

    def machine(self) -> Mapping[str, str]:
        """The identity the runs are stored under (:func:`benchwarden.environment.machine_key` of it is their
        history key): this machine's, or the cluster's name over it."""
        here = machine_identity()
        if self.machine_name is None:
            return here
        return {**here, "name": self.machine_name}

    def meta(self, meta: RunMeta) -> RunMeta:
        """``meta`` (collected on this machine) with the runs' machine."""
        if self.machine_name is None:
            return meta
        return replace(meta, machine={**meta.machine, "name": self.machine_name})


#: forks run here, one at a time
HERE = Placement()

