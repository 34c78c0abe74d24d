"""JMH version and Java target from Maven (``pom.xml``) and Gradle (``build.gradle[.kts]``) build files.

Maven poms are read with a real XML parser (:mod:`xml.etree.ElementTree`;
CPython's expat refuses entity-expansion bombs).  Versions are resolved the
way Maven would for the common cases: ``${property}`` interpolation through
the pom's own ``<properties>``, ``${project.version}``/``${project.parent.version}``,
the parent pom's properties and ``<dependencyManagement>`` when the parent is
in the project (``<relativePath>``, default ``../pom.xml``), dependency blocks,
plugin dependencies and ``annotationProcessorPaths``.  Only when no
``org.openjdk.jmh`` coordinate resolves does the thesis's fallback apply: a
property whose name contains both "jmh" and "version".

Gradle build scripts are programs (Groovy or Kotlin) that no Python library
parses; we strip comments with a string-aware scanner (so a version in a
comment is never read, a failure mode of the thesis's line heuristic) and
then recognise the common declarative forms: the ``me.champeau.jmh`` /
``me.champeau.gradle.jmh`` plugin's ``jmhVersion``, ``org.openjdk.jmh:jmh-core:V``
coordinates (with ``$var``/``${var}`` from ``ext``/``def``/``val``/
``gradle.properties``), map-style dependencies and the version catalog
``gradle/libs.versions.toml``.  Anything computed at build time stays
unknown, with a diagnostic.

Known failure modes (docs/audit.md): multi-module builds whose modules use
different JMH versions (each benchmark takes the version of its nearest
module, else the project's most common one), dynamic versions (``1.+``,
ranges) read as their numeric prefix with a warning, versions that come only
from a remote parent pom or a BOM, and the Gradle plugin's built-in default
JMH version (depends on the plugin version; reported as unknown).
"""

from __future__ import annotations

import re
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Iterator

from benchwarden.audit.javasource import Diagnostic, SourceLocation
from benchwarden.audit.sourcetree import SourceTree

JMH_GROUP = "org.openjdk.jmh"
#: artifacts whose version is the JMH version, most telling first
JMH_ARTIFACTS = ("jmh-core", "jmh-generator-annprocess", "jmh-generator-bytecode", "jmh-generator-reflection")
GRADLE_JMH_PLUGINS = ("me.champeau.jmh", "me.champeau.gradle.jmh")
GRADLE_FILES = ("build.gradle", "build.gradle.kts")


@dataclass(frozen=True)
class BuildInfo:
    """What one build file says.  ``module_dir`` is the file's directory relative to the project root ("" = root)."""

    path: str
    system: str  # "maven" | "gradle"
    module_dir: str
    jmh_version: str | None = None
    jmh_version_source: str | None = None  # how it was found, e.g. "property jmh.version"
    java_target: str | None = None
    artifact: str | None = None  # built benchmark jar relative to module_dir, when the build says
    jmh_plugin: bool = False  # Gradle JMH plugin applied
    diagnostics: tuple[Diagnostic, ...] = ()


def read_build_files(tree: SourceTree) -> list[BuildInfo]:
    """Every ``pom.xml`` / ``build.gradle[.kts]`` of the project, read."""
    paths = tree.paths()
    poms = [p for p in paths if PurePosixPath(p).name == "pom.xml"]
    infos = [_MavenReader(tree, set(poms)).read(p) for p in poms]
    gradle_props = _gradle_properties(tree, paths)
    catalog = _version_catalog(tree, paths)
    for p in paths:
        if PurePosixPath(p).name in GRADLE_FILES:
            infos.append(read_gradle(p, tree.read(p).decode("utf-8", errors="replace"), gradle_props, catalog))
    return infos


def normalise_java_version(text: str | None) -> str | None:
    """``1.8``, ``8``, ``JavaVersion.VERSION_1_8``, ``VERSION_17`` -> ``"8"`` / ``"17"``; None if unrecognised."""
    if text is None:
        return None
    t = text.strip().strip("'\"")
    t = t.rsplit(".", 1)[-1] if t.startswith(("JavaVersion.", "JavaLanguageVersion.")) else t
    t = t.removeprefix("VERSION_").replace("_", ".")
    if t.startswith("1.") and t[2:].isdigit():
        t = t[2:]
    return t if t.isdigit() else None


# --------------------------------------------------------------------------------------------
# Maven


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child(el: ET.Element | None, name: str) -> ET.Element | None:
    if el is None:
        return None
    for c in el:
        if _local(c.tag) == name:
            return c
    return None


def _children(el: ET.Element | None, name: str) -> list[ET.Element]:
    return [] if el is None else [c for c in el if _local(c.tag) == name]


def _text_of(el: ET.Element | None, name: str) -> str | None:
    c = _child(el, name)
    return c.text.strip() if c is not None and c.text is not None else None


_PROP = re.compile(r"\$\{([^}]+)\}")


@dataclass
class _Pom:
    path: str
    root: ET.Element
    props: dict[str, str]
    parent: "_Pom | None"
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def interpolate(self, value: str | None) -> str | None:
        """Resolve ``${...}`` through this pom and its local parents; None when something stays unresolved."""
        if value is None:
            return None
        for _ in range(10):
            missing = False

            def sub(m: re.Match[str]) -> str:
                nonlocal missing
                found = self.lookup(m.group(1))
                if found is None:
                    missing = True
                    return m.group(0)
                return found

            new = _PROP.sub(sub, value)
            if new == value or missing:
                return None if missing or "${" in new else new
            value = new
        return None

    def lookup(self, name: str) -> str | None:
        pom: _Pom | None = self
        while pom is not None:
            if name in pom.props:
                return pom.props[name]
            pom = pom.parent
        return None


class _MavenReader:
    def __init__(self, tree: SourceTree, poms: set[str]):
        self.tree = tree
        self.poms = poms
        self._cache: dict[str, _Pom | None] = {}

    def read(self, path: str) -> BuildInfo:
        module_dir = _module_dir(path)
        pom = self._load(path, set())
        if pom is None:
            return BuildInfo(path, "maven", module_dir, diagnostics=(self._parse_error(path),))
        version, source = self._jmh_version(pom)
        diags = list(pom.diagnostics)
        if version is None and self._mentions_jmh(pom):
            diags.append(Diagnostic(SourceLocation(path, 1),
                                    "pom.xml uses org.openjdk.jmh but its version could not be resolved "
                                    "(defined in a parent pom or BOM outside the project?)"))
        version, d = _check_dynamic(version, path)
        diags.extend(d)
        return BuildInfo(path, "maven", module_dir, jmh_version=version, jmh_version_source=source,
                         java_target=self._java_target(pom), artifact=self._artifact(pom), diagnostics=tuple(diags))

    def _parse_error(self, path: str) -> Diagnostic:
        try:
            ET.fromstring(self.tree.read(path))
        except ET.ParseError as exc:
            line = exc.position[0] if exc.position else 1
            return Diagnostic(SourceLocation(path, line), f"pom.xml is not well-formed XML ({exc}); skipped")
        return Diagnostic(SourceLocation(path, 1), "pom.xml could not be read; skipped")

    def _load(self, path: str, seen: set[str]) -> _Pom | None:
        if path in self._cache:
            return self._cache[path]
        if path in seen:
            return None
        seen.add(path)
        try:
            root = ET.fromstring(self.tree.read(path))
        except (ET.ParseError, OSError, KeyError):
            self._cache[path] = None
            return None
        parent_el = _child(root, "parent")
        parent = None
        if parent_el is not None:
            rel = _text_of(parent_el, "relativePath")
            rel = "../pom.xml" if rel is None else rel
            if rel:
                target = PurePosixPath(path).parent / rel
                if not rel.endswith(".xml"):
                    target = target / "pom.xml"
                norm = _normpath(str(target))
                if norm in self.poms:
                    parent = self._load(norm, seen)
        props: dict[str, str] = {}
        properties_el = _child(root, "properties")
        for p in (properties_el if properties_el is not None else []):
            if p.text is not None and isinstance(p.tag, str):
                props[_local(p.tag)] = p.text.strip()
        own_version = _text_of(root, "version")
        parent_version = _text_of(parent_el, "version")
        for key, value in (("project.version", own_version or parent_version), ("version", own_version or parent_version),
                           ("project.parent.version", parent_version), ("parent.version", parent_version),
                           ("project.groupId", _text_of(root, "groupId") or _text_of(parent_el, "groupId")),
                           ("project.artifactId", _text_of(root, "artifactId"))):
            if value is not None:
                props.setdefault(key, value)
        pom = _Pom(path, root, props, parent)
        self._cache[path] = pom
        return pom

    def _dependency_blocks(self, pom: _Pom) -> Iterator[tuple[str, ET.Element]]:
        """(where, <dependency>-like element) in the order that tells most: direct deps, plugin deps, management."""
        roots = [pom.root, *_children(_child(pom.root, "profiles"), "profile")]
        for r in roots:
            for d in _children(_child(r, "dependencies"), "dependency"):
                yield "dependency", d
        for r in roots:
            build = _child(r, "build")
            for plugins in (_child(build, "plugins"), _child(_child(build, "pluginManagement"), "plugins")):
                for plugin in _children(plugins, "plugin"):
                    for d in _children(_child(plugin, "dependencies"), "dependency"):
                        yield "plugin dependency", d
                    conf = _child(plugin, "configuration")
                    for d in _children(_child(conf, "annotationProcessorPaths"), "path"):
                        yield "annotation processor path", d
        for r in roots:
            for d in _children(_child(_child(r, "dependencyManagement"), "dependencies"), "dependency"):
                yield "dependencyManagement", d

    def _jmh_version(self, pom: _Pom) -> tuple[str | None, str | None]:
        for artifact in JMH_ARTIFACTS:
            for where, dep in self._dependency_blocks(pom):
                if _text_of(dep, "groupId") != JMH_GROUP or _text_of(dep, "artifactId") != artifact:
                    continue
                raw = _text_of(dep, "version")
                if raw is None:
                    managed = self._managed_version(pom.parent, artifact)
                    if managed:
                        return managed, f"parent dependencyManagement {JMH_GROUP}:{artifact}"
                    continue
                value = pom.interpolate(raw)
                if value is not None:
                    return value, f"{where} {JMH_GROUP}:{artifact} {raw}"
        # Inherited from a local parent?
        if pom.parent is not None:
            inherited, source = self._jmh_version(pom.parent)
            if inherited is not None:
                return inherited, f"parent {pom.parent.path}: {source}"
        for name, value in pom.props.items():  # thesis fallback: a property named like jmh...version
            low = name.lower()
            if "jmh" in low and "version" in low:
                resolved = pom.interpolate(value)
                if resolved:
                    return resolved, f"property {name}"
        return None, None

    def _managed_version(self, pom: _Pom | None, artifact: str) -> str | None:
        while pom is not None:
            for d in _children(_child(_child(pom.root, "dependencyManagement"), "dependencies"), "dependency"):
                if _text_of(d, "groupId") == JMH_GROUP and _text_of(d, "artifactId") == artifact:
                    v = pom.interpolate(_text_of(d, "version"))
                    if v:
                        return v
            pom = pom.parent
        return None

    def _mentions_jmh(self, pom: _Pom) -> bool:
        return any(_text_of(d, "groupId") == JMH_GROUP for _, d in self._dependency_blocks(pom))

    def _java_target(self, pom: _Pom) -> str | None:
        for name in ("maven.compiler.release", "maven.compiler.target", "maven.compiler.source"):
            v = pom.interpolate(pom.lookup(name))
            if v:
                return normalise_java_version(v)
        p: _Pom | None = pom
        while p is not None:
            for plugin in _plugins(p.root):
                if _text_of(plugin, "artifactId") == "maven-compiler-plugin":
                    conf = _child(plugin, "configuration")
                    for key in ("release", "target", "source"):
                        v = p.interpolate(_text_of(conf, key))
                        if v:
                            return normalise_java_version(v)
            p = p.parent
        return None

    def _artifact(self, pom: _Pom) -> str | None:
        for plugin in _plugins(pom.root):
            if _text_of(plugin, "artifactId") != "maven-shade-plugin":
                continue
            confs = [_child(plugin, "configuration")] + [
                _child(e, "configuration") for e in _children(_child(plugin, "executions"), "execution")]
            for conf in confs:
                name = pom.interpolate(_text_of(conf, "finalName"))
                if name:
                    return f"target/{name}.jar"
        return None


def _plugins(root: ET.Element) -> list[ET.Element]:
    build = _child(root, "build")
    return _children(_child(build, "plugins"), "plugin") + _children(
        _child(_child(build, "pluginManagement"), "plugins"), "plugin")


def _module_dir(path: str) -> str:
    parent = str(PurePosixPath(path).parent)
    return "" if parent == "." else parent


def _normpath(path: str) -> str:
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/".join(parts)


def _check_dynamic(version: str | None, path: str) -> tuple[str | None, list[Diagnostic]]:
    """Flag dynamic versions (``1.+``, ``[1.20,1.30)``, ``latest.release``); keep them as written."""
    if version is None:
        return None, []
    if any(ch in version for ch in "+[]()") or version.startswith("latest"):
        return version, [Diagnostic(SourceLocation(path, 1),
                                    f"JMH version '{version}' is dynamic; the audit uses its major.minor "
                                    "prefix if it has one, else assumes JMH >= 1.21 defaults")]
    return version, []


# --------------------------------------------------------------------------------------------
# Gradle


def strip_comments(source: str) -> str:
    """Remove ``//`` and ``/* */`` comments from Groovy/Kotlin source, leaving strings intact; keeps line breaks."""
    out: list[str] = []
    i, n = 0, len(source)
    quote: str | None = None
    while i < n:
        ch = source[i]
        if quote is not None:
            if source.startswith(quote, i):
                out.append(quote)
                i += len(quote)
                quote = None
                continue
            if ch == "\\" and len(quote) == 1 and i + 1 < n:
                out.append(source[i:i + 2])
                i += 2
                continue
            out.append(ch)
            i += 1
            continue
        if source.startswith("//", i):
            while i < n and source[i] != "\n":
                i += 1
            continue
        if source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * source.count("\n", i, end))
            i = end
            continue
        for q in ('"""', "'''", '"', "'"):
            if source.startswith(q, i):
                quote = q
                out.append(q)
                i += len(q)
                break
        else:
            out.append(ch)
            i += 1
    return "".join(out)


_STR = r"""(?:"([^"\n]*)"|'([^'\n]*)')"""
_ASSIGN = re.compile(r"""(?:\b(?:def|val|var|String)\s+)?([A-Za-z_][\w.]*?)\s*(?:=|\.set\(|\bby\s+extra\()\s*""" + _STR)
_EXTRA_INDEX = re.compile(r"""extra\[\s*["']([\w.]+)["']\s*\]\s*=\s*""" + _STR)
_COORD = re.compile(r"""["']org\.openjdk\.jmh:(jmh-[\w-]+):([^"'\s]+)["']""")
_MAP_DEP = re.compile(r"""group\s*[:=]\s*["']org\.openjdk\.jmh["']\s*,\s*name\s*[:=]\s*["'](jmh-[\w-]+)["']\s*,\s*version\s*[:=]\s*""" + _STR)
_PLUGIN = re.compile(r"""(?:\bid\s*\(?\s*|apply\s+plugin\s*:\s*)["'](me\.champeau\.(?:gradle\.)?jmh)["']""")
_LANG_VERSION = re.compile(r"""JavaLanguageVersion\.of\(\s*["']?(\d+)["']?\s*\)""")
_JAVA_COMPAT = re.compile(r"""\b(targetCompatibility|sourceCompatibility)\s*(?:=|\.set\()\s*(JavaVersion\.VERSION_[\d_]+|["']?[\d.]+["']?)""")
_RELEASE = re.compile(r"""\brelease\s*(?:=|\.set\()\s*(\d+)""")
_TOOLCHAIN = re.compile(r"""\bjvmToolchain\(\s*(\d+)\s*\)""")
_VAR = re.compile(r"""\$\{?([A-Za-z_][\w.]*)\}?""")


def read_gradle(path: str, source: str, properties: dict[str, str] | None = None,
                catalog: dict[str, str] | None = None) -> BuildInfo:
    """Read a ``build.gradle``/``build.gradle.kts``: JMH version (plugin ``jmhVersion`` first), Java target."""
    module_dir = _module_dir(path)
    code = strip_comments(source)
    variables = dict(properties or {})
    assignments = [(m.start(), m.group(1).rsplit(".", 1)[-1], m.group(2) if m.group(2) is not None else m.group(3))
                   for pattern in (_ASSIGN, _EXTRA_INDEX) for m in pattern.finditer(code)]
    for _, name, value in sorted(assignments):
        # expand against what is known so far, so `jmhVersion = "$jmhVersion"` (from gradle.properties) works
        expanded = _expand(value, variables)
        if expanded is not None:
            variables[name] = expanded
    plugin = _PLUGIN.search(code) is not None
    diags: list[Diagnostic] = []
    version, source_desc = _gradle_jmh_version(code, variables, catalog or {}, plugin)
    if version is None and plugin:
        diags.append(Diagnostic(SourceLocation(path, 1),
                                "the Gradle JMH plugin is applied without jmhVersion: JMH's version is the plugin's "
                                "built-in default, which the audit cannot know (assuming JMH >= 1.21 defaults)"))
    version, d = _check_dynamic(version, path)
    diags.extend(d)
    return BuildInfo(path, "gradle", module_dir, jmh_version=version, jmh_version_source=source_desc,
                     java_target=_gradle_java_target(code), jmh_plugin=plugin, diagnostics=tuple(diags))


def _gradle_jmh_version(code: str, variables: dict[str, str], catalog: dict[str, str],
                        plugin: bool) -> tuple[str | None, str | None]:
    def expand(value: str) -> str | None:
        return _expand(value, variables)

    if plugin and "jmhVersion" in variables:
        v = expand(variables["jmhVersion"])
        if v:
            return v, "JMH Gradle plugin jmhVersion"
    for artifact in JMH_ARTIFACTS:
        for m in _COORD.finditer(code):
            if m.group(1) == artifact:
                v = expand(m.group(2))
                if v:
                    return v, f"dependency {JMH_GROUP}:{artifact}"
        for m in _MAP_DEP.finditer(code):
            if m.group(1) == artifact:
                v = expand(m.group(2) if m.group(2) is not None else m.group(3))
                if v:
                    return v, f"dependency {JMH_GROUP}:{artifact}"
    if catalog.get("jmh"):
        return catalog["jmh"], "version catalog gradle/libs.versions.toml"
    for name, value in variables.items():
        low = name.lower()
        if "jmh" in low and "version" in low:
            v = expand(value)
            if v:
                return v, f"variable {name}"
    return None, None


def _expand(value: str, variables: dict[str, str]) -> str | None:
    """Substitute ``$name``/``${name}``/``${project.name}``; None if something stays unresolved."""
    expanded = _VAR.sub(lambda m: variables.get(m.group(1).rsplit(".", 1)[-1], m.group(0)), value)
    return None if "$" in expanded else expanded


def _gradle_java_target(code: str) -> str | None:
    found: dict[str, str] = {}
    for m in _JAVA_COMPAT.finditer(code):
        found.setdefault(m.group(1), m.group(2))
    for key in ("targetCompatibility", "sourceCompatibility"):
        if key in found and normalise_java_version(found[key]):
            return normalise_java_version(found[key])
    for pattern in (_RELEASE, _LANG_VERSION, _TOOLCHAIN):
        found_version = pattern.search(code)
        if found_version:
            return normalise_java_version(found_version.group(1))
    return None


def _gradle_properties(tree: SourceTree, paths: list[str]) -> dict[str, str]:
    """Root ``gradle.properties`` (``key=value`` / ``key: value`` lines)."""
    if "gradle.properties" not in paths:
        return {}
    out = {}
    for line in tree.read("gradle.properties").decode("utf-8", errors="replace").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "!")):
            continue
        for sep in ("=", ":"):
            if sep in line:
                key, _, value = line.partition(sep)
                out[key.strip()] = value.strip()
                break
    return out


def _version_catalog(tree: SourceTree, paths: list[str]) -> dict[str, str]:
    """``{"jmh": version}`` from ``gradle/libs.versions.toml`` when a library there is org.openjdk.jmh:jmh-*."""
    path = "gradle/libs.versions.toml"
    if path not in paths:
        return {}
    try:
        data = tomllib.loads(tree.read(path).decode("utf-8", errors="replace"))
    except tomllib.TOMLDecodeError:
        return {}
    versions = data.get("versions", {}) if isinstance(data.get("versions"), dict) else {}
    libraries = data.get("libraries", {}) if isinstance(data.get("libraries"), dict) else {}
    for artifact in JMH_ARTIFACTS:
        for lib in libraries.values():
            if isinstance(lib, str):
                group, _, rest = lib.partition(":")
                name, _, version = rest.partition(":")
                if group == JMH_GROUP and name == artifact and version:
                    return {"jmh": version}
                continue
            if not isinstance(lib, dict):
                continue
            module = lib.get("module") or f"{lib.get('group')}:{lib.get('name')}"
            if module != f"{JMH_GROUP}:{artifact}":
                continue
            v = lib.get("version")
            if isinstance(v, dict) and isinstance(v.get("ref"), str):
                v = versions.get(v["ref"])
            if isinstance(v, str):
                return {"jmh": v}
    return {}
