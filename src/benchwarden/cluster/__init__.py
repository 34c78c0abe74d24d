"""Forks on a dask.distributed cluster: each worker a benchmark machine running one fork at a time (docs/distributed.md).

``address`` parses ``--cluster`` and the ``[cluster]`` table (pure); ``messages`` is the versioned stream a
remote fork sends back (pure); ``worker`` is the task a worker runs (the suite's own adapter, started there);
``remote`` is the scheduler side of one fork, a :class:`~benchwarden.adapters.base.RunningFork` like any other;
``session`` connects (or starts a LocalCluster), submits forks, pins a compare pair to one worker, and wraps
each adapter so that the runner, its stop policies and the store work unchanged.
"""
