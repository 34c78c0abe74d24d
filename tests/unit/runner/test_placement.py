"""Where forks run (runner/placement.py): the machine a cluster's runs are stored under, and what follows from it
for history keys and check's reuse fingerprints."""

from __future__ import annotations

from benchwarden.adapters.base import SuiteContext
from benchwarden.config import RunSettings, Suite
from benchwarden.environment import MACHINE_KEY_MAX, machine_identity, machine_key
from benchwarden.model import RunMeta
from benchwarden.runner.placement import HERE, Placement
from benchwarden.spl.reuse import fingerprint

CLUSTER = Placement(concurrency=4, cluster="tcp://10.0.0.1:8786")


def _meta() -> RunMeta:
    return RunMeta(created_at=0.0, tool_version="0", commit="a" * 40, dirty=False,
                   machine={"hostname": "driver", "cpu": "x86"})


def test_here_is_this_machine_one_fork_at_a_time():
    assert not HERE.remote and HERE.machine_name is None and HERE.concurrency == 1
    assert HERE.machine() == machine_identity()
    meta = _meta()
    assert HERE.meta(meta) is meta
    assert HERE.runner(store=None).concurrency == 1


def test_a_clusters_runs_are_the_clusters_not_the_drivers():
    assert CLUSTER.remote and CLUSTER.machine_name == "cluster tcp://10.0.0.1:8786"
    assert machine_key(CLUSTER.machine()) == "cluster tcp://10.0.0.1:8786" != machine_key(machine_identity())
    meta = CLUSTER.meta(_meta())
    assert meta.machine == {"hostname": "driver", "cpu": "x86", "name": "cluster tcp://10.0.0.1:8786"}
    runner = CLUSTER.runner(store=None)
    assert runner.concurrency == 4
    long = Placement(cluster="tcp://" + "h" * 100 + ":1")
    assert len(long.machine_name) == MACHINE_KEY_MAX  # the history key's bound


def test_checks_reuse_fingerprint_tells_a_cluster_from_this_machine():
    suite = Suite(SuiteContext(name="s", kind="python", root="."), RunSettings())
    here = {"hostname": "driver", "cpu": "x86"}
    # an undeclared name leaves the fingerprint as before names counted (forks stored earlier stay reusable)
    assert fingerprint(suite, ".", here) == fingerprint(suite, ".", {**here, "name": ""})
    on_cluster = fingerprint(suite, ".", {**here, "name": "cluster tcp://10.0.0.1:8786"})
    assert on_cluster != fingerprint(suite, ".", here)
    assert on_cluster != fingerprint(suite, ".", {**here, "name": "cluster tcp://10.0.0.2:8786"})
