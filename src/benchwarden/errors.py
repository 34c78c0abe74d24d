"""Typed errors. Domain code raises these; only the CLI turns them into messages and exit codes.

Every error names *where* the problem is (file and key, benchmark, command)
and *what* was expected, so the message can be shown to the user as it is.
"""

from __future__ import annotations

#: longest ``detail`` and ``output`` a failure keeps (and so stores): whatever a benchmark prints, a message
#: stays readable and a run's failures stay small in the store
MAX_DETAIL_CHARS = 4000
MAX_OUTPUT_CHARS = 16000


def clip(text: str, limit: int, keep_end: bool = False) -> str:
    """``text`` cut to about ``limit`` characters with a marker saying how many were dropped.

    ``keep_end``: keep the last characters (an output tail, where the cause usually is) instead of the first.
    """
    if len(text) <= limit:
        return text
    dropped = len(text) - limit
    if keep_end:
        return f"[... {dropped} characters before]{text[-limit:]}"
    return f"{text[:limit]}[... {dropped} more characters]"


class BenchwardenError(Exception):
    """Base class: an error we can explain to the user (exit status 2)."""


def in_suite(suite: str, error: object) -> str:
    """``"suite 'NAME': message"``, without repeating the prefix when the message already starts with it."""
    message = str(error)
    prefix = f"suite '{suite}'"
    return message if message.startswith(prefix) else f"{prefix}: {message}"


class ConfigError(BenchwardenError):
    """A configuration file is missing, unreadable or invalid.

    ``path``: the file; ``key``: dotted key path (``suites.jmh.forks.max``) or None.
    """

    def __init__(self, message: str, path: str | None = None, key: str | None = None):
        self.path = path
        self.key = key
        self.message = message  # without the location
        where = ""
        if path:
            where = f"{path}"
            if key:
                where += f": {key}"
            where += ": "
        super().__init__(f"{where}{message}")


def option_error(message: str, key: str, path: str | None = None) -> ConfigError:
    """A ConfigError that names the key even when the config file's path is unknown (an adapter checking its
    suite's options): ``suites.unit.invocations: expected true or false, got 'yes'``."""
    return ConfigError(message if path else f"{key}: {message}", path=path, key=key)


class ToolchainMissing(BenchwardenError):
    """A program a suite needs (java, go, mvn, python) is not on PATH or unusable."""

    def __init__(self, tool: str, suite: str, hint: str = ""):
        self.tool = tool
        self.suite = suite
        msg = f"suite '{suite}': '{tool}' was not found on PATH"
        if hint:
            msg += f" ({hint})"
        super().__init__(msg)


class BuildFailed(BenchwardenError):
    """A suite's build command failed; ``output`` holds the tail of its output."""

    def __init__(self, suite: str, command: str, returncode: int, output: str = ""):
        self.suite = suite
        self.command = command
        self.returncode = returncode
        self.output = output = clip(output, MAX_OUTPUT_CHARS, keep_end=True)
        tail = f"\n{output}" if output else ""
        super().__init__(f"suite '{suite}': build command `{command}` failed with exit status {returncode}{tail}")


class ArtifactMissing(BenchwardenError):
    def __init__(self, suite: str, path: str):
        super().__init__(f"suite '{suite}': artifact '{path}' does not exist (did the build produce it?)")


class ListingFailed(BenchwardenError):
    """The harness could not list the suite's benchmarks."""


class ForkFailed(BenchwardenError):
    """One fork of one benchmark crashed, hung, or printed output we cannot parse.

    ``reason``: one of ``"crashed"``, ``"timeout"``, ``"garbage"``, ``"no-results"``, or ``"skipped"`` when
    the benchmark itself declines this combination (asv: ``setup`` raising NotImplementedError) — the
    runner then marks the benchmark SKIPPED, which is not a failure — or ``"lost"`` when the machine running
    the fork went away (a cluster worker died, docs/distributed.md): the fork is stored as LOST and run again
    elsewhere, the benchmark goes on.
    ``output``: the last lines of the process output, for the user.  Both are clipped
    (:data:`MAX_DETAIL_CHARS`, :data:`MAX_OUTPUT_CHARS`): a benchmark printing a 20-MB
    line must not become a 20-MB message in the store.
    Iterations already streamed before the failure stay valid and are kept.
    """

    def __init__(self, benchmark: str, reason: str, detail: str, output: str = ""):
        self.benchmark = benchmark
        self.reason = reason
        self.detail = detail = clip(detail, MAX_DETAIL_CHARS)
        self.output = clip(output, MAX_OUTPUT_CHARS, keep_end=True)
        super().__init__(f"{benchmark}: fork {reason}: {detail}")


class StoreError(BenchwardenError):
    """The result store cannot be opened, has an unknown schema, or a run is not found."""


class ImportFormatError(BenchwardenError):
    """An imported result file is malformed; ``line`` is 1-based when known."""

    def __init__(self, path: str, message: str, line: int | None = None):
        self.path = path
        self.line = line
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")


class UsageError(BenchwardenError):
    """A command-line value is invalid (e.g. a --filter that is not a regular expression)."""
