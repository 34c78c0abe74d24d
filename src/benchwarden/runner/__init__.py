"""Runner: plans a run, drives forks through an adapter, asks a stop policy when to stop, persists each fork."""

from benchwarden.runner.engine import Runner, RunOutcome
from benchwarden.runner.policy import Bounds, StaticPolicy, StopPolicy, make_policy

__all__ = ["Bounds", "Runner", "RunOutcome", "StaticPolicy", "StopPolicy", "make_policy"]
