"""JMH's own rules applied to the parsed sources: which benchmarks exist and which annotation value wins.

The rules mirror JMH's annotation processor (``BenchmarkGenerator``,
``MethodGroup``, ``BenchmarkGeneratorUtils`` in jmh-core), not folklore:

* **Which benchmarks.** Every non-abstract class (outside ``jmh_generated``)
  gets every ``@Benchmark`` method declared in it *or in any superclass*;
  abstract classes get none themselves.  Methods sharing a ``@Group`` name
  form one benchmark named after the group; others are named after the
  method: ``pkg.Outer.Inner.method``.
* **Which value.** For ``@Fork``, ``@Warmup``, ``@Measurement``, ``@Threads``,
  ``@OutputTimeUnit``, ``@OperationsPerInvocation``: the method's annotation,
  then the benchmark class's, then each superclass's, *element by element*:
  ``@Warmup(iterations=3)`` on the method and ``@Warmup(time=2)`` on the class
  give 3 iterations of 2 s.  Enclosing (outer) classes do not count.  A time
  comes with the ``timeUnit`` *of the same annotation*: a ``timeUnit``
  without ``time`` is ignored (the thesis's pitfall).  ``@BenchmarkMode``
  is taken whole from the first level that has one; a group's modes are the
  union over its methods.  Negative values are JMH's "blank" markers.
* **Which parameters.** ``@Param`` fields of the benchmark class and its
  superclasses, and of every state class passed as an argument (with its
  superclasses), recursively through ``@Setup``/``@TearDown`` arguments;
  the first declaration of a name wins.  A ``@Param`` without values on an
  enum field takes all the enum's constants.

Command-line options and the Java builder API override all of this at run
time; they are outside the sources and not seen (docs/audit.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from benchwarden.audit.javasource import (
    AnnotationUse,
    DeadResult,
    Diagnostic,
    JavaClass,
    JavaFile,
    JavaMethod,
    SourceLocation,
    SymbolRef,
    Unresolved,
)

#: JMH's TimeUnit names -> seconds
TIME_UNIT_S = {"NANOSECONDS": 1e-9, "MICROSECONDS": 1e-6, "MILLISECONDS": 1e-3, "SECONDS": 1.0,
               "MINUTES": 60.0, "HOURS": 3600.0, "DAYS": 86400.0}
TIMED_MODES = ("Throughput", "AverageTime", "SampleTime")
ALL_MODES = ("Throughput", "AverageTime", "SampleTime", "SingleShotTime")
#: JMH infrastructure types a benchmark may take as arguments (not user state)
INFRA_TYPES = frozenset({"Blackhole", "Control", "BenchmarkParams", "IterationParams", "ThreadParams"})
_PRIMITIVES = frozenset({"int", "long", "short", "byte", "char", "boolean", "float", "double"})
CONFIG_ANNOTATIONS = ("Fork", "Warmup", "Measurement", "BenchmarkMode", "OutputTimeUnit", "Threads")


@dataclass(frozen=True)
class Setting:
    """An explicit value and where it came from: ``origin`` is "method", "class" or "superclass <Name>"."""

    value: object
    origin: str
    location: SourceLocation


@dataclass(frozen=True)
class ParamSpec:
    name: str
    values: tuple[str, ...]
    declared_in: str  # qualified class name
    location: SourceLocation


@dataclass(frozen=True)
class TimeUnitWithoutTime:
    """A ``@Warmup``/``@Measurement`` that sets ``timeUnit`` but no ``time`` (JMH ignores the unit)."""

    annotation: str
    unit: str
    location: SourceLocation


@dataclass(frozen=True)
class BenchmarkConfig:
    """One JMH benchmark (a method, or a ``@Group`` of methods) with its *explicit* configuration.

    A ``None`` setting means "not set in the sources": JMH's default for the
    project's version applies (see :mod:`.defaults` and :mod:`.cost`).
    Times are in seconds.
    """

    name: str
    class_name: str
    package: str
    methods: tuple[str, ...]
    group: str | None
    location: SourceLocation
    forks: Setting | None = None
    warmup_forks: Setting | None = None
    warmup_iterations: Setting | None = None
    warmup_time_s: Setting | None = None
    warmup_batch_size: Setting | None = None
    measurement_iterations: Setting | None = None
    measurement_time_s: Setting | None = None
    measurement_batch_size: Setting | None = None
    threads: Setting | None = None
    modes: Setting | None = None  # value: tuple of mode names, Mode.All expanded
    output_time_unit: Setting | None = None
    jvm_args_append: Setting | None = None
    params: tuple[ParamSpec, ...] = ()
    returns_void: bool = False  # every method of the benchmark returns void
    uses_blackhole: bool = False  # some method takes a Blackhole
    dead_results: tuple[DeadResult, ...] = ()  # values its methods compute and never use (audit.deadcode)
    time_unit_without_time: tuple[TimeUnitWithoutTime, ...] = ()
    source_path: str = ""

    @property
    def combinations(self) -> int:
        """Number of parameter combinations: the Cartesian product of the ``@Param`` value lists (>= 1)."""
        return math.prod(max(1, len(p.values)) for p in self.params)

    @property
    def has_annotations(self) -> bool:
        return any(s is not None for s in (self.forks, self.warmup_forks, self.warmup_iterations, self.warmup_time_s,
                                           self.measurement_iterations, self.measurement_time_s, self.modes))


class ClassIndex:
    """Every type of the project by qualified name, with Java-like name resolution.

    Files that do not mention JMH are parsed only when a name points at them: first by file name
    (``Foo`` -> any ``Foo.java``, and ``Outer.Inner`` -> ``Outer.java``), then, for a type declared in a
    file of another name (a nested enum, a second top-level class), through ``declared_in``, which
    names the unparsed files declaring a simple name.  That keeps large projects fast.
    """

    def __init__(self, files: Iterable[JavaFile], lazy: dict[str, list[str]] | None = None,
                 loader: Callable[[str], JavaFile | None] | None = None,
                 declared_in: Callable[[str], list[str]] | None = None):
        self.files: list[JavaFile] = []
        self.by_name: dict[str, JavaClass] = {}
        self.by_simple: dict[str, list[JavaClass]] = {}
        self.file_of: dict[str, JavaFile] = {}
        self._lazy = dict(lazy or {})  # simple name -> unparsed paths
        self._loader = loader
        self._declared_in = declared_in
        self._super_cache: dict[str, JavaClass | None] = {}
        self._loaded_paths: set[str] = set()
        self._searched: set[str] = set()
        for f in files:
            self.add(f)

    def add(self, f: JavaFile) -> None:
        self.files.append(f)
        self._loaded_paths.add(f.path)
        for c in f.classes:
            self.by_name.setdefault(c.qualified_name, c)
            self.by_simple.setdefault(c.name, []).append(c)
            self.file_of[c.qualified_name] = f

    def _load_simple(self, simple: str) -> None:
        for path in self._lazy.pop(simple, []):
            self._load(path)

    def _load(self, path: str) -> None:
        if self._loader is not None and path not in self._loaded_paths:
            self._loaded_paths.add(path)
            parsed = self._loader(path)
            if parsed is not None:
                self.add(parsed)

    def _load_declaring(self, simple: str) -> bool:
        """Parse the unparsed files that declare a type named ``simple``; whether any was new."""
        if self._declared_in is None or simple in self._searched:
            return False
        self._searched.add(simple)
        paths = [p for p in self._declared_in(simple) if p not in self._loaded_paths]
        for path in paths:
            self._load(path)
        return bool(paths)

    def resolve(self, text: str, context: JavaClass, exclude: str | None = None) -> JavaClass | None:
        """The class a type name written inside ``context`` refers to, or None if not in the project.

        Lookup order: nested types of ``context`` and its enclosing types, nested types inherited from
        their superclasses, single-type imports, the package, on-demand imports, then a unique match by
        (qualified-suffix) name anywhere in the project.  ``exclude`` skips one class (a class never
        extends itself).
        """
        text = text.strip()
        if not text or text in _PRIMITIVES:
            return None
        for segment in text.split("."):
            self._load_simple(segment)
        found = self._resolve_loaded(text, context, exclude)
        if found is None and self._load_declaring(text.rsplit(".", 1)[-1]):
            found = self._resolve_loaded(text, context, exclude)
        return found

    def _resolve_loaded(self, text: str, context: JavaClass, exclude: str | None) -> JavaClass | None:
        first = text.split(".", 1)[0]
        f = self.file_of.get(context.qualified_name)
        package = context.package
        candidates: list[str] = []
        scope: str | None = context.qualified_name
        while scope:  # nested types of this class and of its enclosing classes
            candidates.append(f"{scope}.{text}")
            scope = self.by_name[scope].outer if scope in self.by_name else None
        imports = f.imports if f is not None else ()
        for imp in imports:
            imp = imp.removeprefix("static ").strip()
            if imp.endswith("." + first):
                candidates.append(imp + text[len(first):])
                for segment in imp.split("."):  # `import a.b.Outer.Inner;`: Inner is declared in Outer.java
                    self._load_simple(segment)
            elif imp.endswith(".*"):
                candidates.append(f"{imp[:-2]}.{text}")
        candidates.append(f"{package}.{text}" if package else text)
        candidates.append(text)
        for c in candidates:
            if c in self.by_name and c != exclude:
                return self.by_name[c]
        inherited = self._inherited_member(text, context, exclude)
        if inherited is not None:
            return inherited
        same = [c for c in self.by_simple.get(text.rsplit(".", 1)[-1], [])
                if c.qualified_name.endswith(text) and c.qualified_name != exclude]
        if len(same) == 1:
            return same[0]
        return None

    def _inherited_member(self, text: str, context: JavaClass, exclude: str | None) -> JavaClass | None:
        """A type nested in a superclass of ``context`` or of its enclosing classes (Java's inherited member
        types): ``offer(OfferCounters c)`` inherited from the class that declares ``OfferCounters``."""
        scope: JavaClass | None = context
        while scope is not None:
            for sup in self.superclasses(scope)[1:]:
                name = f"{sup.qualified_name}.{text}"
                if name in self.by_name and name != exclude:
                    return self.by_name[name]
            scope = self.by_name.get(scope.outer) if scope.outer else None
        return None

    def superclasses(self, cls: JavaClass | None) -> list[JavaClass]:
        """``cls`` followed by its superclasses within the project (stops at the first one not found)."""
        chain: list[JavaClass] = []
        seen: set[str] = set()
        while cls is not None and cls.qualified_name not in seen:
            chain.append(cls)
            seen.add(cls.qualified_name)
            cls = self._superclass(cls)
        return chain

    def _superclass(self, cls: JavaClass) -> JavaClass | None:
        if not cls.superclass:
            return None
        key = cls.qualified_name
        if key not in self._super_cache:
            self._super_cache[key] = None  # a superclass naming a type nested in itself must not loop
            self._super_cache[key] = self.resolve(cls.superclass, cls, exclude=cls.qualified_name)
        return self._super_cache[key]


class _Diagnostics:
    def __init__(self) -> None:
        self._items: dict[tuple[SourceLocation, str], Diagnostic] = {}

    def add(self, location: SourceLocation, message: str) -> None:
        self._items.setdefault((location, message), Diagnostic(location, message))

    def items(self) -> list[Diagnostic]:
        return sorted(self._items.values(), key=lambda d: (d.location, d.message))


def discover_benchmarks(index: ClassIndex) -> tuple[list[BenchmarkConfig], list[Diagnostic]]:
    """Every benchmark of the project with its explicit configuration, plus what could not be resolved."""
    diags = _Diagnostics()
    facts = _ClassFacts()
    out: list[BenchmarkConfig] = []
    for cls in sorted(index.by_name.values(), key=lambda c: c.qualified_name):
        if cls.kind != "class" or cls.is_abstract or "jmh_generated" in cls.qualified_name:
            continue
        chain = index.superclasses(cls)
        methods = _benchmark_methods(chain)
        if not methods:
            continue
        if cls.superclass and len(chain) == 1:
            diags.add(cls.location, f"superclass '{cls.superclass}' of {cls.name} is not in the project: "
                                    "annotations and benchmarks it may declare are not seen")
        groups: dict[str, list[tuple[JavaMethod, JavaClass]]] = {}
        for method, owner in methods:
            group_ann = method.annotations.get("Group")
            gname = method.name
            if group_ann is not None:
                gv = group_ann.elements.get("value")
                if isinstance(gv, str) and gv:
                    gname = gv
                elif gv is not None:
                    diags.add(group_ann.location, f"@Group value `{_describe(gv)}` is not a string literal; "
                                                  f"the method name '{method.name}' is used")
            groups.setdefault(gname, []).append((method, owner))
        for gname, members in groups.items():
            is_group = any("Group" in m.annotations for m, _ in members)
            out.append(_Resolver(index, cls, chain, diags, facts).benchmark(gname, members, is_group))
    return out, diags.items()


def _benchmark_methods(chain: list[JavaClass]) -> list[tuple[JavaMethod, JavaClass]]:
    """``@Benchmark`` methods of a class and its superclasses; an override (same name and parameter types)
    counts once.  Overloads are distinct methods (JMH's FalseSharing sample groups overloaded ``reader``s)."""
    seen: set[tuple[str, tuple[str, ...]]] = set()
    out = []
    for owner in chain:
        for m in owner.methods:
            signature = (m.name, tuple(p.type_name for p in m.parameters))
            if "Benchmark" in m.annotations and signature not in seen:
                seen.add(signature)
                out.append((m, owner))
    return out


def _describe(value: object) -> str:
    if isinstance(value, (SymbolRef, Unresolved)):
        return value.text
    return repr(value)


class _ClassFacts:
    """What a class contributes to any benchmark's parameters, worked out once per audit: its ``@Param`` fields
    (with its superclasses') and the state classes its ``@Setup``/``@TearDown`` methods take.

    Without it, every benchmark re-read every method of its class: 6,000 benchmarks in one class took
    36 million method visits (quadratic)."""

    def __init__(self) -> None:
        self._facts: dict[str, tuple[list[ParamSpec], list[JavaClass]]] = {}

    def of(self, host: JavaClass, resolver: "_Resolver") -> tuple[list[ParamSpec], list[JavaClass]]:
        found = self._facts.get(host.qualified_name)
        if found is None:
            found = self._facts[host.qualified_name] = self._work_out(host, resolver)
        return found

    @staticmethod
    def _work_out(host: JavaClass, resolver: "_Resolver") -> tuple[list[ParamSpec], list[JavaClass]]:
        chain = resolver.index.superclasses(host)
        own: dict[str, ParamSpec] = {}
        for c in chain:
            for f in c.fields:
                ann = f.annotations.get("Param")
                if ann is not None and f.name not in own:
                    own[f.name] = ParamSpec(f.name, resolver._param_values(f.type_text or f.type_name, ann, c),
                                            c.qualified_name, f.location)
        deps = []
        for c in chain:
            for m in c.methods:
                if "Setup" in m.annotations or "TearDown" in m.annotations:
                    for p in m.parameters:
                        if p.type_name in INFRA_TYPES or p.type_name in _PRIMITIVES:
                            continue
                        dep = resolver.index.resolve(_strip_type(p.type_text), c)
                        if dep is not None:
                            deps.append(dep)
        return list(own.values()), deps


class _Resolver:
    """Resolution for one concrete benchmark class."""

    def __init__(self, index: ClassIndex, cls: JavaClass, chain: list[JavaClass], diags: _Diagnostics,
                 facts: _ClassFacts | None = None):
        self.index = index
        self.cls = cls
        self.chain = chain
        self.diags = diags
        self.facts = facts if facts is not None else _ClassFacts()

    def levels(self, method: JavaMethod, ann_name: str) -> Iterator[tuple[AnnotationUse, str]]:
        """The annotation on the method, then on the class, then on each superclass (JMH's getAnnSuperAll)."""
        if ann_name in method.annotations:
            yield method.annotations[ann_name], "method"
        for i, c in enumerate(self.chain):
            if ann_name in c.annotations:
                yield c.annotations[ann_name], "class" if i == 0 else f"superclass {c.name}"

    def benchmark(self, gname: str, members: list[tuple[JavaMethod, JavaClass]], is_group: bool) -> BenchmarkConfig:
        first = members[0][0]
        int_setting = lambda ann, key: self.int_element(first, ann, key)  # noqa: E731
        modes = self.modes([m for m, _ in members])
        params = self.params(members)
        return BenchmarkConfig(
            name=f"{self.cls.qualified_name}.{gname}",
            class_name=self.cls.qualified_name,
            package=self.cls.package,
            methods=tuple(m.name for m, _ in members),
            group=gname if is_group else None,
            location=first.location,
            forks=int_setting("Fork", "value"),
            warmup_forks=int_setting("Fork", "warmups"),
            warmup_iterations=int_setting("Warmup", "iterations"),
            warmup_time_s=self.time_element(first, "Warmup"),
            warmup_batch_size=int_setting("Warmup", "batchSize"),
            measurement_iterations=int_setting("Measurement", "iterations"),
            measurement_time_s=self.time_element(first, "Measurement"),
            measurement_batch_size=int_setting("Measurement", "batchSize"),
            threads=self.threads(first),
            modes=modes,
            output_time_unit=self.enum_element(first, "OutputTimeUnit", "value", TIME_UNIT_S),
            jvm_args_append=self.strings_element(first, "Fork", "jvmArgsAppend"),
            params=params,
            returns_void=all(m.returns_void for m, _ in members),
            uses_blackhole=any(p.type_name == "Blackhole" for m, _ in members for p in m.parameters),
            dead_results=tuple(d for m, _ in members for d in m.dead_results),
            time_unit_without_time=self.unit_without_time(first),
            source_path=first.location.path,
        )

    def int_element(self, method: JavaMethod, ann_name: str, key: str) -> Setting | None:
        for ann, origin in self.levels(method, ann_name):
            if not ann.has(key):
                continue
            value = ann.elements[key]
            if isinstance(value, bool) or not isinstance(value, int):
                hint = "" if "nested more than" in _describe(value) else " (a constant declared in another file?)"
                self.diags.add(ann.location, f"cannot resolve `{_describe(value)}` in @{ann_name}({key}=...) to a "
                                             f"number{hint}; treated as not set")
                continue
            if value < 0:  # JMH's BLANK marker
                continue
            return Setting(value, origin, ann.location)
        return None

    def time_element(self, method: JavaMethod, ann_name: str) -> Setting | None:
        for ann, origin in self.levels(method, ann_name):
            if not ann.has("time"):
                continue
            time = ann.elements["time"]
            if isinstance(time, bool) or not isinstance(time, int):
                self.diags.add(ann.location, f"cannot resolve `{_describe(time)}` in @{ann_name}(time=...) to a "
                                             "number; treated as not set")
                continue
            if time < 0:
                continue
            unit = "SECONDS"
            if ann.has("timeUnit"):
                u = ann.elements["timeUnit"]
                if isinstance(u, SymbolRef) and u.simple in TIME_UNIT_S:
                    unit = u.simple
                else:
                    self.diags.add(ann.location, f"unknown timeUnit `{_describe(u)}` in @{ann_name}; assuming SECONDS")
            return Setting(time * TIME_UNIT_S[unit], origin, ann.location)
        return None

    def unit_without_time(self, method: JavaMethod) -> tuple[TimeUnitWithoutTime, ...]:
        out = []
        for ann_name in ("Warmup", "Measurement"):
            for ann, _ in self.levels(method, ann_name):
                time = ann.elements.get("time")
                time_set = ann.has("time") and not (isinstance(time, int) and not isinstance(time, bool) and time < 0)
                if time_set:
                    break  # a time (with its own unit) at a higher level: lower levels do not matter
                if ann.has("timeUnit"):
                    u = ann.elements["timeUnit"]
                    out.append(TimeUnitWithoutTime(ann_name, u.simple if isinstance(u, SymbolRef) else _describe(u),
                                                   ann.location))
        return tuple(out)

    def enum_element(self, method: JavaMethod, ann_name: str, key: str, allowed: dict[str, float]) -> Setting | None:
        for ann, origin in self.levels(method, ann_name):
            if ann.has(key):
                v = ann.elements[key]
                if isinstance(v, SymbolRef) and v.simple in allowed:
                    return Setting(v.simple, origin, ann.location)
                self.diags.add(ann.location, f"unknown value `{_describe(v)}` in @{ann_name}; ignored")
                return None
        return None

    def strings_element(self, method: JavaMethod, ann_name: str, key: str) -> Setting | None:
        for ann, origin in self.levels(method, ann_name):
            if ann.has(key):
                v = ann.elements[key]
                items = v if isinstance(v, tuple) else (v,)
                return Setting(tuple(_describe(i) if not isinstance(i, str) else i for i in items), origin, ann.location)
        return None

    def threads(self, method: JavaMethod) -> Setting | None:
        for ann, origin in self.levels(method, "Threads"):
            v = ann.elements.get("value")
            if isinstance(v, SymbolRef) and v.simple == "MAX":
                return Setting("MAX", origin, ann.location)
            if isinstance(v, int) and not isinstance(v, bool):
                return Setting("MAX" if v == -1 else v, origin, ann.location)
            self.diags.add(ann.location, f"cannot resolve `{_describe(v)}` in @Threads; treated as not set")
        return None

    def modes(self, methods: list[JavaMethod]) -> Setting | None:
        found: list[str] = []
        first: tuple[AnnotationUse, str] | None = None
        for m in methods:
            for ann, origin in self.levels(m, "BenchmarkMode"):
                first = first or (ann, origin)
                v = ann.elements.get("value")
                items = v if isinstance(v, tuple) else (v,)
                for item in items:
                    name = item.simple if isinstance(item, SymbolRef) else None
                    if name == "All":
                        found.extend(ALL_MODES)
                    elif name in ALL_MODES:
                        found.append(name)
                    else:
                        self.diags.add(ann.location, f"unknown benchmark mode `{_describe(item)}`; ignored")
                break  # getAnnSuper: the first level with the annotation wins
        if first is None or not found:
            return None
        ordered = tuple(mode for mode in ALL_MODES if mode in found)
        return Setting(ordered, first[1], first[0].location)

    # -- parameters -------------------------------------------------------------------------

    def params(self, members: list[tuple[JavaMethod, JavaClass]]) -> tuple[ParamSpec, ...]:
        collected: dict[str, ParamSpec] = {}
        visited: set[str] = set()
        for m, owner in members:
            for p in m.parameters:
                if p.type_name in INFRA_TYPES or p.type_name in _PRIMITIVES:
                    continue
                # names in an inherited method mean what they mean where it is declared
                state = self.index.resolve(_strip_type(p.type_text), owner)
                if state is None:
                    self.diags.add(m.location, f"state class '{p.type_text}' of {m.name}() is not in the project; "
                                               "@Param fields it may declare are not counted")
                    continue
                self._collect_params(state, collected, visited)
        self._collect_params(self.cls, collected, visited)
        return tuple(collected.values())

    def _collect_params(self, host: JavaClass, collected: dict[str, ParamSpec], visited: set[str]) -> None:
        """``@Param`` fields of ``host`` and its superclasses, then, depth first, of the state classes its
        ``@Setup``/``@TearDown`` methods take; the first declaration of a name wins.  Iterative (a long chain
        of state classes cannot exhaust the stack), and each class's facts are worked out once per audit."""
        stack = [host]
        while stack:
            current = stack.pop()
            if current.qualified_name in visited:
                continue
            visited.add(current.qualified_name)
            own, deps = self.facts.of(current, self)
            for spec in own:
                collected.setdefault(spec.name, spec)
            stack.extend(reversed(deps))

    def _param_values(self, type_text: str, ann: AnnotationUse, owner: JavaClass) -> tuple[str, ...]:
        raw = ann.elements.get("value")
        items = raw if isinstance(raw, tuple) else (() if raw is None else (raw,))
        values = []
        for item in items:
            if isinstance(item, (SymbolRef, Unresolved)):
                self.diags.add(ann.location, f"cannot resolve @Param value `{item.text}`; counted as one value")
                values.append(item.text)
            else:
                values.append(item if isinstance(item, str) else str(item))
        if values:
            return tuple(values)
        enum = self.index.resolve(type_text, owner)
        if enum is not None and enum.kind == "enum" and enum.enum_constants:
            return enum.enum_constants
        self.diags.add(ann.location, f"@Param on a field of type {type_text} has no values (supplied at run time "
                                     "with -p?); counted as one combination")
        return ()


def _strip_type(type_text: str) -> str:
    depth = 0
    out = []
    for ch in type_text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0 and ch not in "[] ":
            out.append(ch)
    return "".join(out)
