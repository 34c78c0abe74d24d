"""benchwarden's asv-format benchmark worker: a standalone, stdlib-only script.

The asv adapter runs this file by path under the *user's* interpreter
(``python3 /path/to/asv_worker.py ...``), which may not have benchwarden
installed, so it imports nothing but the standard library and stays valid
Python 3.7+ syntax.  It measures; every statistic lives in benchwarden.

Commands
--------
``list --benchmark-dir DIR``
    Import every module under DIR (an asv benchmark package, recursively) and
    print one ``{"v":1,"benchmarks":[...]}`` line describing the ``time_*``
    benchmarks, their parameters (values as asv shows them: ``repr`` with
    memory addresses removed) and attributes.
``run --benchmark-dir DIR --module M --qualname Q --params JSON
--iteration-time-s T --max-iterations N [--number B] [--trace-memory]``
    Run one benchmark x parameter combination: ``setup_cache`` once,
    ``setup``, calibrate a batch size so one batch takes about T seconds
    (or use ``--number``, else the benchmark's ``number``), then up to N
    iterations, each one batch timed with ``time.perf_counter_ns`` and
    ``time.process_time_ns`` (CPU time of the process); ``teardown`` +
    ``setup`` run again between iterations, untimed, as asv re-runs setup
    before each sample.  One line per iteration, flushed as it finishes.

Protocol (version 1), one JSON object per line, each with ``"v": 1``::

    {"v":1,"benchmarks":[...]}                         list result
    {"v":1,"iteration":1,"ns_per_op":812.5,"ops":24000,"elapsed_ns":19500000,"cpu_ns":19100000}
                     (with --trace-memory also "mem_peak": bytes, "mem_retained": bytes per call)
    {"v":1,"skip":"setup raised NotImplementedError: ..."}   then exit 0
    {"v":1,"error":"ValueError: ...","traceback":"..."}      then exit 1

Protocol lines go to the process's *original* stdout.  Before any user code
is imported the worker moves that descriptor aside and points descriptor 1
(and ``sys.stdout``) at stderr, so whatever a benchmark prints, from Python
or from C, ends up on stderr and can never be mistaken for a result.

Exit status: 0 done (or skipped), 1 the benchmark or its setup failed, 2 bad
arguments or the benchmark could not be found (or ``BENCHWARDEN_INJECT`` / ``BENCHWARDEN_PROFILE`` is malformed).

For ``benchwarden assess`` the ``run`` command honours ``BENCHWARDEN_INJECT``: a slowdown injected into
one function, or call counting for the public functions of given modules (see "injection" below); for
``benchwarden compare --explain`` it honours ``BENCHWARDEN_PROFILE``: a call tree of the benchmark's calls, timed
(see "profiling" below).
"""

from __future__ import annotations

import argparse
import atexit
import functools
import gc
import importlib
import inspect
import itertools
import json
import os
import pkgutil
import re
import signal
import sys
import threading
import time
import traceback

PROTOCOL_VERSION = 1

#: asv's timing-benchmark names, in snake_case or CamelCase (``time_x`` / ``TimeX``).
TIME_NAME = re.compile(r"^(?:time_.+|Time[A-Z_].*)$")
#: other asv benchmark kinds: recognised so they can be reported, but not run.
UNSUPPORTED_NAME = re.compile(r"^(?:(?:mem|peakmem|track|timeraw)_.+|(?:Mem|Peakmem|Track|Timeraw)[A-Z_].*)$")

_WORKER_FILE = os.path.abspath(__file__)
_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+")

#: calibration: grow the batch until one batch takes this fraction of the iteration time, then scale it up.
_CALIBRATION_FRACTION = 0.1
_MAX_BATCH = 10 ** 12


class WorkerError(Exception):
    """A problem to report as an ``error`` line (exit status ``status``)."""

    def __init__(self, message, tb="", status=1):
        super().__init__(message)
        self.message = message
        self.tb = tb
        self.status = status


class Skipped(Exception):
    """``setup`` raised NotImplementedError: asv's way of skipping a parameter combination."""


# --------------------------------------------------------------------------- protocol channel

class Channel:
    """The protocol stream: a private duplicate of the original stdout; fd 1 is re-pointed at stderr."""

    def __init__(self):
        sys.stdout.flush()
        fd = os.dup(1)  # non-inheritable: user subprocesses do not get it
        os.dup2(2, 1)
        self._out = os.fdopen(fd, "w", encoding="utf-8", newline="\n")

    def send(self, **fields):
        payload = {"v": PROTOCOL_VERSION}
        payload.update(fields)
        # a benchmark's exception may carry megabytes of text: keep a protocol line short enough to be read whole
        for key, limit in (("error", 4000), ("traceback", 16000)):
            text = payload.get(key)
            if isinstance(text, str) and len(text) > limit:
                payload[key] = text[:limit // 2] + "\n[... {} characters ...]\n".format(len(text) - limit) \
                    + text[-(limit // 2):]
        self._out.write(json.dumps(payload, separators=(",", ":"), allow_nan=False) + "\n")
        self._out.flush()


# --------------------------------------------------------------------------- discovery

def param_repr(value):
    """How asv shows a parameter value: ``repr`` without `` at 0x...`` addresses (stable across processes)."""
    return _ADDRESS.sub("", repr(value))


def first_attr(sources, name, default):
    """asv's attribute lookup: the first of function, class/instance, module that has ``name``.

    Submodules are skipped: a package's ``params`` may be its submodule ``params.py``, not a parameter list.
    """
    for source in sources:
        if source is not None and hasattr(source, name):
            value = getattr(source, name)
            if not inspect.ismodule(value):
                return value
    return default


def all_attrs(sources, name):
    """Every distinct ``name`` attribute of the sources, in source order (function, class, module)."""
    found = []
    for source in sources:
        if source is None:
            continue
        value = getattr(source, name, None)
        if value is not None and not any(value == seen for seen in found):
            found.append(value)
    return found


def normalise_params(label, params, param_names):
    """asv's parameter rules: a flat list means one parameter; names default to ``param1``, ``param2``...

    Returns ``(names, values)``, ``values`` a list of lists.  Raises WorkerError on inconsistent input.
    """
    if params is None:
        params = []
    if not isinstance(params, (list, tuple)):
        raise WorkerError("{}: params must be a list (or a list of lists), got {}".format(
            label, type(params).__name__), status=2)
    params = list(params)
    if params and not isinstance(params[0], (list, tuple)):
        params = [params]
    values = []
    for i, group in enumerate(params):
        if not isinstance(group, (list, tuple)):
            raise WorkerError("{}: params[{}] must be a list of values, got {!r}".format(label, i, group), status=2)
        values.append(list(group))
    names = [str(n) for n in (param_names or [])]
    if not names:
        names = ["param{}".format(i + 1) for i in range(len(values))]
    if len(names) != len(values):
        raise WorkerError("{}: param_names has {} names but params has {} value lists".format(
            label, len(names), len(values)), status=2)
    for name, group in zip(names, values):
        reprs = [param_repr(v) for v in group]
        if len(set(reprs)) != len(reprs):
            raise WorkerError("{}: values of parameter '{}' are not unique by repr: {}".format(
                label, name, reprs), status=2)
    return names, values


def import_root(benchmark_dir):
    """Import the benchmark directory as a package, as asv does; returns the root module."""
    path = os.path.abspath(benchmark_dir)
    if not os.path.isdir(path):
        raise WorkerError("benchmark directory {} does not exist".format(path), status=2)
    parent, package = os.path.split(path)
    sys.path.insert(0, parent)
    return import_module(package)


def import_module(name):
    try:
        return importlib.import_module(name)
    except Exception as exc:  # noqa: BLE001 - any failure of user code is reported, with its traceback
        raise WorkerError("cannot import benchmark module '{}': {}: {}".format(name, type(exc).__name__, exc),
                          user_traceback(exc)) from None


def user_traceback(exc):
    """The traceback of ``exc`` without the worker's own frames on top (they say nothing to the user)."""
    tb = exc.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) == _WORKER_FILE:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb if tb is not None else exc.__traceback__))


def iter_modules(root):
    """The root package and every module below it (recursively), in name order."""
    yield root
    for sub in sorted(pkgutil.iter_modules(getattr(root, "__path__", []), root.__name__ + "."),
                      key=lambda info: info.name):
        module = import_module(sub.name)
        if sub.ispkg:
            for inner in iter_modules(module):
                yield inner
        else:
            yield module


def candidates(module):
    """``(qualname, function, cls)`` for every benchmark-named callable defined in ``module``.

    Only functions and classes *defined* in the module count (not ones imported into it), so a
    base class shared through imports is not listed twice; classes named ``_x`` and abstract classes
    are skipped.
    """
    for attr_name, obj in list(vars(module).items()):
        if attr_name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isclass(obj):
            if inspect.isabstract(obj):
                continue
            for meth_name, meth in inspect.getmembers(obj, callable):
                if TIME_NAME.match(meth_name) or UNSUPPORTED_NAME.match(meth_name):
                    yield "{}.{}".format(obj.__name__, meth_name), meth, obj
        elif inspect.isfunction(obj) and (TIME_NAME.match(attr_name) or UNSUPPORTED_NAME.match(attr_name)):
            yield attr_name, obj, None


def describe(root, module, qualname, func, cls):
    """The listing entry of one benchmark (all parameter values as repr strings)."""
    relative = module.__name__[len(root.__name__) + 1:]
    default_name = "{}.{}".format(relative, qualname) if relative else qualname
    sources = [func, cls, module]
    name = str(first_attr(sources, "benchmark_name", None) or default_name)
    names, values = normalise_params(name, first_attr(sources, "params", []), first_attr(sources, "param_names", []))
    pretty = first_attr(sources, "pretty_name", None)
    number = first_attr(sources, "number", 0)
    timeout = first_attr(sources, "timeout", None)
    return {
        "name": name,
        "module": module.__name__,
        "qualname": qualname,
        "param_names": names,
        "param_values": [[param_repr(v) for v in group] for group in values],
        "pretty_name": None if pretty is None else str(pretty),
        "number": int(number) if number else None,
        "timeout_s": float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else None,
    }


def list_benchmarks(benchmark_dir):
    """``(benchmarks, unsupported)``: listing entries sorted by name, and names of unsupported kinds."""
    root = import_root(benchmark_dir)
    found, unsupported = [], []
    for module in iter_modules(root):
        for qualname, func, cls in candidates(module):
            short = qualname.rsplit(".", 1)[-1]
            if TIME_NAME.match(short):
                found.append(describe(root, module, qualname, func, cls))
            else:
                relative = module.__name__[len(root.__name__) + 1:]
                unsupported.append("{}.{}".format(relative, qualname) if relative else qualname)
    found.sort(key=lambda entry: entry["name"])
    return found, sorted(unsupported)


# --------------------------------------------------------------------------- running one benchmark

class Runnable:
    """One benchmark x parameter combination, resolved and ready to call."""

    def __init__(self, benchmark_dir, module_name, qualname, params_json):
        import_root(benchmark_dir)
        module = import_module(module_name)
        parts = qualname.split(".")
        if len(parts) not in (1, 2):
            raise WorkerError("bad qualname {!r}: expected 'function' or 'Class.method'".format(qualname), status=2)
        owner = getattr(module, parts[0], None)
        if owner is None:
            raise WorkerError("{} has no attribute {!r} (did the suite change since listing?)".format(
                module_name, parts[0]), status=2)
        self.instance = owner() if len(parts) == 2 else None
        self.func = getattr(self.instance, parts[1], None) if self.instance is not None else owner
        if not callable(self.func):
            raise WorkerError("{}.{} is not a callable benchmark".format(module_name, qualname), status=2)
        self.sources = [self.func, self.instance, module]
        self.label = "{}.{}".format(module_name, qualname)
        self.params = self._resolve_params(json.loads(params_json))
        self.number = int(first_attr(self.sources, "number", 0) or 0)
        self._setups = all_attrs(self.sources, "setup")[::-1]  # module, class, function: outermost first
        self._teardowns = all_attrs(self.sources, "teardown")
        self._setup_cache = first_attr(self.sources, "setup_cache", None)
        self.args = ()

    def _resolve_params(self, wanted_reprs):
        names, values = normalise_params(self.label, first_attr(self.sources, "params", []),
                                         first_attr(self.sources, "param_names", []))
        if len(wanted_reprs) != len(values):
            raise WorkerError("{}: expected {} parameter values, got {}".format(
                self.label, len(values), len(wanted_reprs)), status=2)
        chosen = []
        for name, group, wanted in zip(names, values, wanted_reprs):
            matches = [v for v in group if param_repr(v) == wanted]
            if not matches:
                raise WorkerError("{}: parameter '{}' has no value {} (values: {})".format(
                    self.label, name, wanted, ", ".join(param_repr(v) for v in group)), status=2)
            chosen.append(matches[0])
        return tuple(chosen)

    def start(self):
        """Run ``setup_cache`` (its result becomes the first argument of everything) and the setups."""
        cache = ()
        if self._setup_cache is not None:
            cache = (self._setup_cache(),)
        self.args = cache + self.params
        self.setup()

    def setup(self):
        for setup in self._setups:
            try:
                setup(*self.args)
            except NotImplementedError as exc:
                raise Skipped(str(exc) or "setup raised NotImplementedError") from None

    def teardown(self):
        for teardown in self._teardowns:
            teardown(*self.args)

    def call(self):
        """One call of the benchmark with its arguments (untimed)."""
        return self.func(*self.args)

    def time_batch_ns(self, batch):
        """Wall-clock ns of ``batch`` consecutive calls; the GC is off while timing, as in asv/timeit."""
        func, args, loop = self.func, self.args, itertools.repeat(None, batch)
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            if args:
                start = time.perf_counter_ns()
                for _ in loop:
                    func(*args)
                end = time.perf_counter_ns()
            else:
                start = time.perf_counter_ns()
                for _ in loop:
                    func()
                end = time.perf_counter_ns()
        finally:
            if gc_was_enabled:
                gc.enable()
        return max(1, end - start)


def calibrate_batch(time_batch_ns, target_ns):
    """Calls per batch so that one batch takes about ``target_ns``.

    Grows the batch (x2 to x10 per step) until a batch takes at least 10% of the target, then scales
    linearly: ``round(batch * target / elapsed)``.  The calibration batches double as warmup; their
    total cost is bounded by about 25% of the target plus the last batch.  At least 1 call.
    """
    batch = 1
    while True:
        elapsed = time_batch_ns(batch)
        if elapsed >= target_ns * _CALIBRATION_FRACTION or batch >= _MAX_BATCH:
            break
        grow = target_ns * _CALIBRATION_FRACTION / elapsed
        batch = min(_MAX_BATCH, batch * int(min(10, max(2, grow))))
    return max(1, min(_MAX_BATCH, int(round(batch * target_ns / elapsed))))


def run_benchmark(channel, target, iteration_time_s, max_iterations, number=0, trace_memory=False):
    """Up to ``max_iterations`` timed batches, each reported with its wall-clock and CPU time.

    ``number`` fixes the batch size (two-point instruction counts need exact operation counts); else the
    benchmark's own ``number``, else a calibrated one.  ``trace_memory``: before the first batch, measure
    the call's memory with tracemalloc (:func:`trace_memory_of`) and report it with every iteration.
    """
    target.start()
    batch = number or target.number or calibrate_batch(target.time_batch_ns, iteration_time_s * 1e9)
    memory = {}
    if trace_memory:
        target.teardown()
        target.setup()
        memory = trace_memory_of(target.call)
    for k in range(1, max_iterations + 1):
        target.teardown()
        target.setup()
        cpu_start = time.process_time_ns()
        elapsed = target.time_batch_ns(batch)
        cpu = time.process_time_ns() - cpu_start
        channel.send(iteration=k, ns_per_op=elapsed / batch, ops=batch, elapsed_ns=elapsed, cpu_ns=cpu, **memory)
    target.teardown()


#: calls whose retained memory is averaged (after one warm call, which may fill caches)
_RETAINED_CALLS = 3


def trace_memory_of(call):
    """Memory of one call as Python's tracemalloc sees it: ``mem_peak`` (bytes above the level before the
    call at its highest point) and ``mem_retained`` (bytes still held after a call, per call, over
    ``_RETAINED_CALLS`` calls after a first one).

    tracemalloc traces *live* blocks: CPython's standard library cannot count allocations that are freed
    again (docs/metrics.md), so these are the peak and the growth of traced memory, both deterministic for
    a deterministic benchmark.  The bookkeeping's own objects (the numbers read from tracemalloc) are
    measured with a call that does nothing and subtracted.  The GC is off while tracing, as while timing.
    Tracing slows the traced calls several times; they are not timed.
    """
    import tracemalloc

    gc_was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    tracemalloc.start()
    try:
        call()  # the first call may fill caches: neither its peak nor what it keeps counts
        peak, retained = _traced(call)
        idle_peak, idle_retained = _traced(_nothing)
    finally:
        tracemalloc.stop()
        if gc_was_enabled:
            gc.enable()
    return {"mem_peak": max(0, peak - idle_peak),
            "mem_retained": max(0.0, (retained - idle_retained) / _RETAINED_CALLS)}


def _nothing():
    return None


def _traced(call):
    """(peak above the start during one call, growth over ``_RETAINED_CALLS`` calls) of traced memory."""
    import tracemalloc

    start = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    call()
    peak = tracemalloc.get_traced_memory()[1] - start
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(_RETAINED_CALLS):
        call()
    return peak, tracemalloc.get_traced_memory()[0] - before


# --------------------------------------------------------------------------- injection (benchwarden assess)
#
# With BENCHWARDEN_INJECT set (JSON, protocol version 1), the worker -- or any interpreter that runs
# install_injection_from_env(), e.g. through the sitecustomize.py benchwarden writes for tracing a test
# command -- changes functions of the user's modules as they are imported:
#
#   {"v":1,"mode":"slowdown","target":"wordstat:tokenize","factor":0.5,"report":"/path/report.jsonl"}
#       every outermost call of the target (per thread) busy-waits factor x its own elapsed time, so
#       the function takes (1+factor) times as long; nested and recursive calls of it add nothing.
#       "module:function" or "module:Class.method" (static and class methods included).
#       Optional "clock": "wall" (default, perf_counter_ns) or "cpu" (thread_time_ns: the call's own CPU
#       time, and the wait burns that much CPU; for suites measured in CPU time, where a wall-clock wait
#       overshoots whenever the call was preempted, docs/assess.md).
#   {"v":1,"mode":"trace","modules":["wordstat"],"out":"/path/dir"}
#       counts the calls of every public function and public method of public classes defined in the
#       listed modules (and their submodules); written as JSON lines {"v":1,"method":"m:f","calls":n}
#       to <out>/trace-<pid>.jsonl at exit (atexit, and on SIGTERM, which benchwarden uses to stop forks).
#       Optional: "every_method": true (every function and method, by a profile hook), and "files_under": a
#       directory -- then each source file under it that the process imported is written too, as
#       {"v":1,"method":"file:<path relative to it, / separated>","calls":1} (``benchwarden affected``
#       attributes a change outside any function, or to a file outside the traced modules, to its importers).
#
# Functions are wrapped right after their module has executed and before any importer sees it, so
# "from wordstat import tokenize" and the module's own calls through its globals both get the wrapper.

INJECT_ENV = "BENCHWARDEN_INJECT"
INJECT_VERSION = 1


class InjectionError(Exception):
    """BENCHWARDEN_INJECT is malformed or names nothing that exists."""


def _spec_from_env(name, environ=None):
    """The JSON object (protocol version 1) in environment variable ``name``, or None when it is unset."""
    text = (os.environ if environ is None else environ).get(name)
    if not text:
        return None
    try:
        spec = json.loads(text)
    except ValueError as exc:
        raise InjectionError("{} is not JSON: {}".format(name, exc)) from None
    if not isinstance(spec, dict) or spec.get("v") != INJECT_VERSION:
        raise InjectionError("{} must be an object with \"v\": {}, got {!r}".format(name, INJECT_VERSION, text))
    return spec


def _write_at_exit(write):
    """Call ``write`` at interpreter exit and on SIGTERM (how benchwarden stops forks), then exit as before."""
    atexit.register(write)
    previous = signal.getsignal(signal.SIGTERM)

    def on_sigterm(signum, frame):
        write()
        if callable(previous):
            previous(signum, frame)
        else:
            os._exit(128 + signum)
    signal.signal(signal.SIGTERM, on_sigterm)


def install_injection_from_env(environ=None):
    """Install the slowdown or trace hook that ``BENCHWARDEN_INJECT`` asks for; no-op when unset."""
    spec = _spec_from_env(INJECT_ENV, environ)
    if spec is None:
        return None
    mode = spec.get("mode")
    if mode == "slowdown":
        hook = SlowdownHook(str(spec.get("target", "")), spec.get("factor"), spec.get("report"),
                            spec.get("clock", "wall"))
    elif mode == "trace":
        hook = TraceHook(spec.get("modules"), spec.get("out"), spec.get("every_method", False), spec.get("files_under"))
    else:
        raise InjectionError("{}: mode must be 'slowdown' or 'trace', got {!r}".format(INJECT_ENV, mode))
    hook.install()
    return hook


class _PatchingFinder(object):
    """A meta-path finder that lets the normal finders find a module and patches it after it executed."""

    def __init__(self, wants, patch):
        self._wants = wants  # fullname -> bool
        self._patch = patch  # module -> None

    def find_spec(self, fullname, path=None, target=None):
        if not self._wants(fullname):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchingLoader(spec.loader, self._patch)
                return spec
        return None


class _PatchingLoader(object):
    def __init__(self, loader, patch):
        self._loader = loader
        self._patch = patch

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._patch(module)

    def __getattr__(self, name):  # get_source, is_package, get_resource_reader...
        return getattr(self._loader, name)


def _install_finder(wants, patch):
    for name, module in list(sys.modules.items()):  # already imported: patch now
        if module is not None and wants(name):
            patch(module)
    sys.meta_path.insert(0, _PatchingFinder(wants, patch))


def _append_json_line(path, payload):
    if not path:
        return
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(payload, separators=(",", ":")) + "\n")


def _busy_wait_until(deadline_ns, clock=time.perf_counter_ns):
    while clock() < deadline_ns:
        pass


def slowed(func, factor, overhead_reads=0.0, nested_reads=0.0, clock=time.perf_counter_ns, clock_ns=0,
           tail_reads=0.0):
    """``func`` wrapped so that each outermost call (per thread) takes ``(1 + factor)`` times as long.

    The wait is ``factor x elapsed`` minus the wrapper's own cost: ``overhead_reads`` per outermost call
    and ``(1 + factor) x nested_reads`` per nested call made during it (recursion through the wrapper
    costs time the unslowed function would not spend). Both are in units of *one clock read as this
    call saw it*: the wrapper reads the clock twice back to back on entry, and the difference scales the
    calibrated costs to the machine's speed at that moment. On the 2-vCPU VMs of issue #20 a CPU-bound
    neighbour puts the whole process into stretches, tens of milliseconds to seconds long, where every
    operation takes 1.7-2x as long; an overhead calibrated in nanoseconds during such a stretch was
    subtracted from calls made after it and injected 0.75 x v (and a quiet calibration followed by a
    slow stretch overshot to 1.3 x v). In clock-read units the wrapper's cost varied by under 10 %
    between the two states (docs/assess.md). Timed and busy-waited with ``clock``: ``perf_counter_ns``
    (``time.sleep`` cannot do microseconds), or ``thread_time_ns`` for a suite measured in CPU time
    (:data:`WAIT_CLOCKS`). Exceptions pass through, slowed too.

    ``tail_reads`` more reads are subtracted from each wait: on the CPU clock, where a read is a system call
    (~1.4 µs from Python on the 2-core VM, against ~70 ns for ``perf_counter_ns``), the one read inside
    ``elapsed`` slowed by ``factor`` and the busy wait's last read, which ends on average one read past the
    deadline: ``1 + factor`` (:class:`SlowdownHook`). The wall clock keeps 0, as measured before it existed.

    ``counts`` (an attribute of the wrapper) says how precise that was: outermost calls, their total
    elapsed time, the *short* ones, whose wait was under 5 x ``clock_ns`` (one clock read): a busy wait
    ends up to one clock read late, more than 20 % of such a wait; and the total of the entry reads.

    Per-thread state is ``[depth, nested calls]`` in a dict keyed by ``threading.get_ident()``: integer
    keys make its cost the same in every process (``threading.local`` attribute lookups varied by a
    factor of two between interpreters with different hash seeds, which made the calibrated overhead
    wrong in some processes).
    """
    states = {}
    counts = [0, 0, 0, 0]  # outermost calls, their total elapsed ns, short ones (wait < 5 clock reads), reads ns
    short_ns = 5 * clock_ns
    get_ident = threading.get_ident
    nested_scale = (1 + factor) * nested_reads

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        state = states.get(get_ident())
        if state is None:
            state = states[get_ident()] = [0, 0]
        if state[0]:
            state[0] += 1
            state[1] += 1
            try:
                return func(*args, **kwargs)
            finally:
                state[0] -= 1
        state[0] = 1
        state[1] = 0
        entry = clock()
        start = clock()
        try:
            return func(*args, **kwargs)
        finally:
            state[0] = 0
            now = clock()
            elapsed = now - start
            read = start - entry
            wait = int(factor * elapsed - (overhead_reads + tail_reads + state[1] * nested_scale) * read)
            counts[0] += 1
            counts[1] += elapsed
            counts[3] += read
            if wait < short_ns:
                counts[2] += 1
            if wait > 0:
                _busy_wait_until(now + wait, clock)

    wrapper.__benchwarden_wrapped__ = func
    wrapper.__benchwarden_states__ = states
    wrapper.__benchwarden_counts__ = counts
    return wrapper


#: the code every slowdown wrapper runs (compare --explain counts its frames as the slowed function's)
_SLOWED_WRAPPER_CODE = slowed(lambda: None, 0.0).__code__


_GLOBAL_READS = frozenset(("LOAD_GLOBAL", "LOAD_NAME"))


def unwrapped_recursion(module, name, func):
    """``func``, made to call *itself* directly when it recurses, not through the slowed wrapper.

    A module-level function recurses by looking its own name up in the module's globals, which after
    patching is the wrapper: every nested call would pay the wrapper's bookkeeping (a few hundred ns),
    and ``slowed`` would have to subtract an *estimate* of that cost times ``(1 + factor)`` per nested
    call -- an estimate that was off by 2x on some machines, which made a depth-5 recursion slowed by
    0.52 instead of 1.0 (issue #20). Instead the function gets a twin whose code reads its own name
    from an alias global bound to the twin itself: nested calls cost exactly what they cost unslowed,
    and only the outermost call (through the wrapper) waits. Done only when the name is used in the
    code as a global read and nothing else (an attribute or a store of the same name keeps the
    wrapper path); a function that does not mention its name is returned unchanged.
    """
    code = getattr(func, "__code__", None)
    if code is None or name not in code.co_names or not hasattr(code, "replace"):
        return func
    import dis
    import types
    uses = {ins.opname for ins in dis.get_instructions(code) if ins.argval == name and ins.opcode in dis.hasname}
    if not uses or not uses <= _GLOBAL_READS:
        return func
    alias = "__benchwarden_unslowed_{}".format(name)
    twin = types.FunctionType(code.replace(co_names=tuple(alias if n == name else n for n in code.co_names)),
                              func.__globals__, func.__name__, func.__defaults__, func.__closure__)
    twin.__kwdefaults__ = func.__kwdefaults__
    twin.__dict__.update(func.__dict__)
    twin.__qualname__ = func.__qualname__
    twin.__doc__ = func.__doc__
    setattr(module, alias, twin)
    return twin


#: the clocks a slowdown can wait on: "wall" for suites measured in wall time, "cpu" (this thread's CPU time) for
#: suites measured in CPU time, so that a call preempted part-way is neither timed nor repaid for the lost slice
WAIT_CLOCKS = {"wall": time.perf_counter_ns, "cpu": time.thread_time_ns}


def clock_read_ns(rounds=9, reads=20000, clock=time.perf_counter_ns):
    """Median cost (ns) of one ``clock()`` call: how late a busy wait can end. ``perf_counter_ns``: 57-184 ns on the
    VMs of issue #20, where it decides the shortest method a slowdown can be injected into precisely."""
    costs = []
    for _ in range(rounds):
        start = clock()
        for _ in range(reads):
            clock()
        costs.append((clock() - start) // reads)
    costs.sort()
    return int(costs[len(costs) // 2])


def wrapper_overhead_reads(rounds=40, calls=500, clock=time.perf_counter_ns):
    """The wrapper's extra cost over a direct call, in units of its own entry clock read: ``(outermost, nested)``.

    Measured with a one-argument function (the typical API call). Each of ``rounds`` rounds, 1 ms apart
    after 10 rounds that let the interpreter specialise the loops, times ``calls`` outermost calls
    through a ``slowed(..., factor=0)`` wrapper (which sum their entry reads), ``calls`` nested calls
    (made while an outer call is in progress) and ``calls`` direct calls; the round's costs are divided by
    that round's mean entry read, so a round run while the machine was slow (a CPU-bound neighbour makes
    everything 1.7-2x slower for long stretches, issue #20) gives the same ratio as a quiet one. The
    estimate is the median over rounds: a round preempted part-way is an outlier either way.
    """
    def noop(value):
        return value
    wrapped = slowed(noop, 0.0, clock=clock)
    counts = wrapped.__benchwarden_counts__
    states = wrapped.__benchwarden_states__
    outer, nested = [], []
    try:
        for warm in range(rounds + 10):
            reads_before = counts[3]
            t0 = clock()
            for i in range(calls):
                wrapped(i)
            t1 = clock()
            states[threading.get_ident()] = [1, 0]
            for i in range(calls):
                wrapped(i)
            states[threading.get_ident()] = [0, 0]
            t2 = clock()
            for i in range(calls):
                noop(i)
            t3 = clock()
            read = (counts[3] - reads_before) / calls
            if warm >= 10 and read > 0:
                direct = t3 - t2
                outer.append(((t1 - t0) - direct) / calls / read)
                nested.append(((t2 - t1) - direct) / calls / read)
                time.sleep(0.001)
    finally:
        states.clear()
    outer.sort()
    nested.sort()
    return max(0.0, outer[len(outer) // 2]), max(0.0, nested[len(nested) // 2])


def split_target(target):
    """``"pkg.mod:Class.method"`` -> ``("pkg.mod", ["Class", "method"])``; InjectionError if malformed."""
    module, sep, qualname = target.partition(":")
    parts = qualname.split(".") if qualname else []
    if not sep or not module or not parts or not all(p.isidentifier() for p in parts) or len(parts) > 2:
        raise InjectionError("target {!r}: expected 'module:function' or 'module:Class.method'".format(target))
    return module, parts


def _wrap_attribute(owner, name, make):
    """Replace ``owner.name`` (a function, staticmethod or classmethod) with ``make(function)``."""
    raw = vars(owner).get(name) if isinstance(owner, type) else getattr(owner, name, None)
    if isinstance(raw, (staticmethod, classmethod)):
        setattr(owner, name, type(raw)(make(raw.__func__)))
    elif inspect.isfunction(raw) or inspect.isbuiltin(raw):
        setattr(owner, name, make(raw))
    else:
        return False
    return True


class SlowdownHook(object):
    def __init__(self, target, factor, report=None, clock="wall"):
        self.module_name, self.parts = split_target(target)
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not factor >= 0:
            raise InjectionError("factor must be a number >= 0, got {!r}".format(factor))
        if clock not in WAIT_CLOCKS:
            raise InjectionError("clock must be one of {}, got {!r}".format(", ".join(sorted(WAIT_CLOCKS)), clock))
        self.clock_name = clock
        self.clock = WAIT_CLOCKS[clock]
        self.target = target
        self.factor = float(factor)
        self.report = report
        self.overhead_reads = 0.0
        self.nested_reads = 0.0
        self.clock_ns = 0
        self.wrapper = None
        self.done = False

    def calibrate(self):
        """The wrapper's own cost and the clock's, on the clock in use (before :meth:`wrap`)."""
        self.overhead_reads, self.nested_reads = wrapper_overhead_reads(clock=self.clock)
        # a CPU-clock read costs ~20 times a perf_counter_ns one: 2,000 reads a round keep this to ~25 ms
        self.clock_ns = clock_read_ns(reads=2000 if self.clock_name == "cpu" else 20000, clock=self.clock)

    def wrap(self, func):
        """``func`` slowed as this hook slows its target (the calibrated costs, the clock and its tail)."""
        tail = 1.0 + self.factor if self.clock_name == "cpu" else 0.0
        return slowed(func, self.factor, self.overhead_reads, self.nested_reads, clock=self.clock,
                      clock_ns=self.clock_ns, tail_reads=tail)

    def install(self):
        self.calibrate()
        _append_json_line(self.report, {"v": 1, "event": "installed", "mode": "slowdown", "method": self.target,
                                        "factor": self.factor, "clock": self.clock_name,
                                        "overhead_reads": round(self.overhead_reads, 2),
                                        "nested_reads": round(self.nested_reads, 2), "clock_ns": self.clock_ns})
        atexit.register(self.write_activations)
        _install_finder(lambda name: name == self.module_name and not self.done, self.patch)

    def patch(self, module):
        owner = module
        if len(self.parts) == 2:
            owner = getattr(module, self.parts[0], None)

        def make(func):
            if owner is module:
                func = unwrapped_recursion(module, self.parts[-1], func)
            self.wrapper = self.wrap(func)
            return self.wrapper
        if owner is None or not _wrap_attribute(owner, self.parts[-1], make):
            _append_json_line(self.report, {"v": 1, "event": "error", "method": self.target,
                                            "message": "no function {} in module {}".format(
                                                ".".join(self.parts), module.__name__)})
            return
        self.done = True
        _append_json_line(self.report, {"v": 1, "event": "instrumented", "methods": [self.target]})

    def write_activations(self):
        """At exit: the line from which benchwarden estimates how precisely v was injected (as the Java agent's)."""
        if self.wrapper is None:
            return
        calls, elapsed, short, reads = self.wrapper.__benchwarden_counts__
        _append_json_line(self.report, {"v": 1, "event": "activations", "method": self.target, "activations": calls,
                                        "short": short, "mean_elapsed_ns": elapsed / calls if calls else 0.0,
                                        "clock_ns": self.clock_ns, "mean_read_ns": reads / calls if calls else 0.0,
                                        "overhead_reads": round(self.overhead_reads, 2)})


class TraceHook(object):
    """Counts calls of the public functions and methods of ``modules`` by wrapping them as their module executes.

    ``every_method`` (what ``benchwarden affected`` needs) counts every function and method instead, by a profile
    hook on the code objects that run: a wrapper misses calls through references taken before it was installed
    (``_IMPL = _helper`` at module level, a dispatch table of functions), the code object never does. Code nested
    in a function counts for the function (``f.<locals>.g`` as ``f``); module and class bodies are not methods.
    """

    def __init__(self, modules, out, every_method=False, files_under=None):
        if not isinstance(modules, list) or not modules or not all(isinstance(m, str) and m for m in modules):
            raise InjectionError("trace: 'modules' must be a non-empty list of module names, got {!r}".format(modules))
        if not isinstance(out, str) or not out:
            raise InjectionError("trace: 'out' must name a directory, got {!r}".format(out))
        if not isinstance(every_method, bool):
            raise InjectionError("trace: 'every_method' must be true or false, got {!r}".format(every_method))
        if files_under is not None and (not isinstance(files_under, str) or not files_under):
            raise InjectionError("trace: 'files_under' must name a directory, got {!r}".format(files_under))
        self.modules = modules
        self.out = out
        self.every_method = every_method
        self.files_under = files_under
        self.counts = {}  # method name -> [calls]
        self._lock = threading.Lock()
        self._patched = set()

    def wants(self, name):
        return name not in self._patched and any(name == m or name.startswith(m + ".") for m in self.modules)

    def install(self):
        os.makedirs(self.out, exist_ok=True)
        _write_at_exit(self.write)
        if self.every_method:
            profile = self.profiler()
            threading.setprofile(profile)
            sys.setprofile(profile)
        else:
            _install_finder(self.wants, self.patch)

    def code_name(self, frame):
        """``module:qualname`` of the function a frame runs (``module:?`` before Python 3.11, which has no
        ``co_qualname``: any method of the module), or None outside the traced modules and for module-level code."""
        module = frame.f_globals.get("__name__")
        if not isinstance(module, str) or not any(module == m or module.startswith(m + ".") for m in self.modules):
            return None
        code = frame.f_code
        qualname = getattr(code, "co_qualname", None)
        if qualname is None:
            return None if code.co_name.startswith("<") else "{}:?".format(module)
        qualname = qualname.split(".<locals>", 1)[0]
        return None if qualname.startswith("<") else "{}:{}".format(module, qualname)

    def profiler(self):
        counts, names, code_name = self.counts, {}, self.code_name

        def profile(frame, event, arg):
            if event != "call":
                return
            code = frame.f_code
            name = names.get(code, 0)
            if name == 0:
                name = names[code] = code_name(frame)
            if name is not None:
                cell = counts.get(name)
                if cell is None:
                    cell = counts[name] = [0]
                cell[0] += 1
        return profile

    def counter(self, name, func):
        cell = self.counts.setdefault(name, [0])
        lock = self._lock

        @functools.wraps(func)
        def counted(*args, **kwargs):
            with lock:
                cell[0] += 1
            return func(*args, **kwargs)
        counted.__benchwarden_wrapped__ = func
        return counted

    def traced(self, name):
        return not name.startswith("_") or self.every_method

    def patch(self, module):
        self._patched.add(module.__name__)
        for name, obj in list(vars(module).items()):
            if not self.traced(name) or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj):
                _wrap_attribute(module, name, lambda f, n=name: self.counter("{}:{}".format(module.__name__, n), f))
            elif inspect.isclass(obj):
                for attr in list(vars(obj)):
                    if self.traced(attr):
                        qual = "{}:{}.{}".format(module.__name__, name, attr)
                        _wrap_attribute(obj, attr, lambda f, q=qual: self.counter(q, f))

    def imported_files(self):
        """The ``.py`` files under ``files_under`` whose modules this process imported, relative to it, ``/``
        separated (symbolic links resolved on both sides); empty without ``files_under``."""
        if not self.files_under:
            return []
        root = os.path.realpath(self.files_under)
        found = set()
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if not isinstance(path, str) or not path.endswith(".py"):
                continue
            real = os.path.realpath(path)
            if real.startswith(root + os.sep):
                found.add(os.path.relpath(real, root).replace(os.sep, "/"))
        return sorted(found)

    def write(self):
        path = os.path.join(self.out, "trace-{}.jsonl".format(os.getpid()))
        tmp = path + ".tmp"
        lines = [(name, self.counts[name][0]) for name in sorted(self.counts)]
        lines += [("file:" + name, 1) for name in self.imported_files()]
        with open(tmp, "w", encoding="utf-8") as out:
            for name, calls in lines:
                out.write(json.dumps({"v": 1, "method": name, "calls": calls}, separators=(",", ":")) + "\n")
        os.replace(tmp, path)


# --------------------------------------------------------------------------- profiling (compare --explain)
#
# With BENCHWARDEN_PROFILE set (JSON, protocol version 1) the worker records, for the calls of the benchmark
# function only (setup and teardown are not part of it), a call tree of the functions of the listed modules
# with calls, inclusive and self time per node:
#
#   {"v":1,"modules":["wordstat"],"out":"/path/dir","skip":["wordstat:_is_word"]}
#
# ("skip", optional: functions not to record, whose time then counts as their caller's: those too short for the
# probe, which compare --explain finds in a first profiled pair)
# written at exit to <out>/profile-<pid>.json as {"v":1,"root":"bench_x:Class.time_y","traced_call_ns":t,
# "untraced_call_ns":u,"nodes":[[parent, "module:qualname", calls, inclusive_ns, self_ns], ...]} (node 0 is the
# benchmark function, parent -1; a parent always comes before its children). Functions outside the modules
# (the standard library, C functions) are not nodes: their time is their caller's self time, and functions of
# the modules they call are children of that caller. ``traced_call_ns``/``untraced_call_ns``: what the probe
# adds to one call of a node / of any other Python function, measured in this process at start.
# Composes with BENCHWARDEN_INJECT: the slowdown's wrapper and busy wait count as the slowed function's own time,
# as the Java agent's advice does.

PROFILE_ENV = "BENCHWARDEN_PROFILE"
#: calls per round and rounds of the probe-cost calibration
_CALIBRATION_CALLS = 2000
_CALIBRATION_ROUNDS = 9


def _calibration_leaf(value):
    return value


def _calibration_loop(calls):
    leaf = _calibration_leaf
    for i in range(calls):
        leaf(i)


class ProfileHook(object):
    """A call tree of the benchmark function's calls into ``modules``, by a ``sys.settrace`` hook.

    A trace hook, not a profile hook: it sees Python frames only (C calls cost nothing extra and count as their
    caller's time), and asks for the ``return`` event only of the frames it records (line events off). A node is
    a path of ``module:qualname`` names from the benchmark function; recursion makes deeper paths.
    """

    def __init__(self, modules, out, skip=()):
        if not isinstance(skip, (list, tuple)) or not all(isinstance(n, str) for n in skip):
            raise InjectionError("{}: 'skip' must be a list of function names, got {!r}".format(PROFILE_ENV, skip))
        if not isinstance(modules, list) or not all(isinstance(m, str) and m for m in modules):
            raise InjectionError("{}: 'modules' must be a list of module names, got {!r}".format(PROFILE_ENV, modules))
        if not isinstance(out, str) or not out:
            raise InjectionError("{}: 'out' must name a directory, got {!r}".format(PROFILE_ENV, out))
        self.modules = tuple(modules)
        self.out = out
        self.skip = frozenset(skip)  # "module:qualname" of functions too short to profile: their caller's time
        self.root_code = None
        self.root_name = None
        self.merged_code = None  # the slowdown wrapper's code: its frame is named after the function it slows
        self.merged_name = None
        self.extra_codes = {}  # code -> name, traced whatever its module (calibration)
        self.names = {}  # code -> name or None (cache)
        self.children = [{}]  # node -> {name: child node}
        self.parents = [-1]
        self.node_names = [None]
        self.calls = [0]
        self.inclusive = [0]
        self.self_ns = [0]
        self.stack = []  # [node, start_ns, children_ns] of the recorded frames in progress
        self.traced_call_ns = 0.0
        self.untraced_call_ns = 0.0

    def install(self):
        os.makedirs(self.out, exist_ok=True)
        self.calibrate()
        _write_at_exit(self.write)

    def set_root(self, func):
        """Record the calls of ``func`` (the benchmark; a bound method's function) and what they call."""
        func = getattr(func, "__func__", func)
        self.root_code = func.__code__
        self.root_name = "{}:{}".format(func.__module__, func.__qualname__)
        self.modules = self.modules + (func.__module__,)
        self.names.clear()

    def merge_wrapper(self, wrapper_code, name):
        """Frames of ``wrapper_code`` (the slowdown's wrapper) are ``name``'s own time, and the wrapped call's
        frame inside it is not a node of its own."""
        self.merged_code, self.merged_name = wrapper_code, name
        self.names.clear()

    def name_of(self, code, frame):
        if code in self.extra_codes:
            return self.extra_codes[code]
        if code is self.merged_code:
            return self.merged_name
        module = frame.f_globals.get("__name__")
        if not isinstance(module, str) or not any(module == m or module.startswith(m + ".") for m in self.modules):
            return None
        qualname = getattr(code, "co_qualname", None) or code.co_name
        if qualname.startswith("<") and qualname != "<lambda>":
            return None
        name = "{}:{}".format(module, qualname)
        return None if name in self.skip else name

    def start(self):
        sys.settrace(self.trace)

    def stop(self):
        sys.settrace(None)

    def node(self, parent, name):
        found = self.children[parent].get(name)
        if found is None:
            found = self.children[parent][name] = len(self.parents)
            self.children.append({})
            self.parents.append(parent)
            self.node_names.append(name)
            self.calls.append(0)
            self.inclusive.append(0)
            self.self_ns.append(0)
        return found

    def trace(self, frame, event, arg):
        if event != "call":
            return None
        code = frame.f_code
        stack = self.stack
        if not stack:
            if code is not self.root_code:
                return None
            node = 0
            self.node_names[0] = self.root_name
        else:
            name = self.names.get(code, 0)
            if name == 0:
                name = self.names[code] = self.name_of(code, frame)
            if name is None:
                return None
            top = stack[-1][0]
            if self.node_names[top] == name and self.parents_merge(top):
                return None  # the slowed function inside its wrapper: the wrapper's node
            node = self.node(top, name)
        frame.f_trace_lines = False
        stack.append([node, time.perf_counter_ns(), 0])
        return self.on_return

    def parents_merge(self, node):
        return self.merged_name is not None and self.node_names[node] == self.merged_name

    def on_return(self, frame, event, arg):
        if event == "return":
            now = time.perf_counter_ns()
            node, start, children = self.stack.pop()
            elapsed = now - start
            self.calls[node] += 1
            self.inclusive[node] += elapsed
            self.self_ns[node] += elapsed - children
            if self.stack:
                self.stack[-1][2] += elapsed
        return self.on_return

    def calibrate(self):
        """What the probe adds per call: the median over rounds of (hooked - unhooked) / calls, for a recorded
        call (``traced_call_ns``) and for any other Python call (``untraced_call_ns``)."""
        clock = time.perf_counter_ns
        root, root_name = self.root_code, self.root_name
        self.root_code, self.root_name = _calibration_loop.__code__, "calibration"
        traced, untraced = [], []
        try:
            for mode in ("traced", "untraced"):
                if mode == "traced":
                    self.extra_codes[_calibration_leaf.__code__] = "calibration:leaf"
                else:
                    self.extra_codes.pop(_calibration_leaf.__code__, None)
                    self.names.pop(_calibration_leaf.__code__, None)
                for _ in range(_CALIBRATION_ROUNDS):
                    t0 = clock()
                    _calibration_loop(_CALIBRATION_CALLS)
                    t1 = clock()
                    self.start()
                    _calibration_loop(_CALIBRATION_CALLS)
                    self.stop()
                    t2 = clock()
                    (traced if mode == "traced" else untraced).append(((t2 - t1) - (t1 - t0)) / _CALIBRATION_CALLS)
        finally:
            self.stop()
            self.extra_codes.clear()
            self.names.clear()
            self.root_code, self.root_name = root, root_name
            self.children, self.parents, self.node_names = [{}], [-1], [None]
            self.calls, self.inclusive, self.self_ns, self.stack = [0], [0], [0], []
        traced.sort()
        untraced.sort()
        self.traced_call_ns = max(0.0, traced[len(traced) // 2])
        self.untraced_call_ns = max(0.0, untraced[len(untraced) // 2])

    def write(self):
        if self.root_name is None:
            return
        path = os.path.join(self.out, "profile-{}.json".format(os.getpid()))
        nodes = [[self.parents[i], self.node_names[i], self.calls[i], self.inclusive[i], self.self_ns[i]]
                 for i in range(len(self.parents))]
        payload = {"v": 1, "root": self.root_name, "traced_call_ns": round(self.traced_call_ns, 1),
                   "untraced_call_ns": round(self.untraced_call_ns, 1), "nodes": nodes}
        with open(path + ".tmp", "w", encoding="utf-8") as out:
            json.dump(payload, out, separators=(",", ":"))
        os.replace(path + ".tmp", path)


def install_profile_from_env(environ=None):
    """The profile hook ``BENCHWARDEN_PROFILE`` asks for (installed, not yet started), or None when unset."""
    spec = _spec_from_env(PROFILE_ENV, environ)
    if spec is None:
        return None
    hook = ProfileHook(spec.get("modules"), spec.get("out"), spec.get("skip", []))
    hook.install()
    return hook


def profiled(time_batch_ns, hook):
    """``time_batch_ns`` with the profile hook on during each timed batch only."""
    def timed(batch):
        hook.start()
        try:
            return time_batch_ns(batch)
        finally:
            hook.stop()
    return timed


# --------------------------------------------------------------------------- entry point

def parse_args(argv):
    parser = argparse.ArgumentParser(prog="asv_worker", description="benchwarden's asv-format benchmark worker")
    sub = parser.add_subparsers(dest="command", required=True)
    lister = sub.add_parser("list", help="list the benchmarks of an asv benchmark directory")
    lister.add_argument("--benchmark-dir", required=True)
    runner = sub.add_parser("run", help="run one benchmark x parameter combination")
    runner.add_argument("--benchmark-dir", required=True)
    runner.add_argument("--module", required=True)
    runner.add_argument("--qualname", required=True)
    runner.add_argument("--params", default="[]", help="JSON list of parameter value reprs")
    runner.add_argument("--iteration-time-s", type=float, required=True)
    runner.add_argument("--max-iterations", type=int, required=True)
    runner.add_argument("--number", type=int, default=0, help="fixed calls per batch (default: calibrated)")
    runner.add_argument("--trace-memory", action="store_true", help="report the call's memory (tracemalloc)")
    return parser.parse_args(argv)


def _drop_own_directory_from_path():
    """``python3 /x/asv_worker.py`` puts /x first on sys.path; it must not shadow the user's modules."""
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        del sys.path[0]


def main(argv=None):
    _drop_own_directory_from_path()
    args = parse_args(sys.argv[1:] if argv is None else argv)
    channel = Channel()
    try:
        if args.command == "list":
            benchmarks, unsupported = list_benchmarks(args.benchmark_dir)
            channel.send(benchmarks=benchmarks, unsupported=unsupported)
        else:
            if args.iteration_time_s <= 0 or args.max_iterations < 1 or args.number < 0:
                raise WorkerError("--iteration-time-s must be > 0, --max-iterations >= 1 and --number >= 0",
                                  status=2)
            injection = install_injection_from_env()
            profile = install_profile_from_env()
            target = Runnable(args.benchmark_dir, args.module, args.qualname, args.params)
            if profile is not None:
                profile.set_root(target.func)
                if isinstance(injection, SlowdownHook):
                    profile.merge_wrapper(_SLOWED_WRAPPER_CODE, injection.target)
                target.time_batch_ns = profiled(target.time_batch_ns, profile)
            run_benchmark(channel, target, args.iteration_time_s, args.max_iterations, args.number,
                          args.trace_memory)
    except Skipped as exc:
        channel.send(skip=str(exc))
        return 0
    except WorkerError as exc:
        channel.send(error=exc.message, traceback=exc.tb)
        return exc.status
    except InjectionError as exc:
        channel.send(error=str(exc) if str(exc).startswith(PROFILE_ENV) else "{}: {}".format(INJECT_ENV, exc),
                     traceback="")
        return 2
    except BaseException as exc:  # noqa: BLE001 - user code may raise anything, even SystemExit
        if isinstance(exc, KeyboardInterrupt):
            raise
        channel.send(error="{}: {}".format(type(exc).__name__, exc), traceback=user_traceback(exc))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
