"""Adapters: one module per harness, behind the protocol in ``base.py``, found through this registry."""

from __future__ import annotations

import importlib

from benchwarden.adapters.base import Adapter

#: kind -> "module:Class". Adding a harness means adding one line here and one module.
REGISTRY: dict[str, str] = {
    "jmh": "benchwarden.adapters.jmh:JmhAdapter",
    "go": "benchwarden.adapters.gotest:GoAdapter",
    "python": "benchwarden.adapters.asv:AsvAdapter",
    "command": "benchwarden.adapters.command:CommandAdapter",
    "junit": "benchwarden.adapters.junit:JunitAdapter",
    "gounit": "benchwarden.adapters.gounit:GoUnitAdapter",
}


#: kind -> the build a suite runs when its configuration names none.  Set by the configuration, not the adapter,
#: because a suite whose ``build`` is None is one already built (a revision's cached worktree, the candidate of
#: a comparison sharing the base's build) and its adapter must not build it again.
DEFAULT_BUILDS: dict[str, tuple[str, ...]] = {
    "junit": ("mvn", "-q", "-B", "test-compile"),
}


def kinds() -> list[str]:
    return sorted(REGISTRY)


def get_adapter(kind: str) -> Adapter:
    """Instantiate the adapter for ``kind``; raises KeyError for an unknown kind."""
    target = REGISTRY[kind]
    module_name, class_name = target.split(":")
    module = importlib.import_module(module_name)
    return getattr(module, class_name)()
