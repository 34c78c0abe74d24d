"""``@SPL("…")`` annotations on JMH benchmark methods, read from the class files of the built jar.

The annotation (``io.benchwarden.spl.SPL``, in ``java/spl-annotations``) has RUNTIME retention, so
javac writes it into each method's ``RuntimeVisibleAnnotations`` attribute (JVMS §4.7.16).  We read
those attributes directly with a small class-file reader rather than running ``javap -v``:

* no process per class and no JDK needed to *read* (a shaded JMH jar has hundreds of classes; only
  the few whose bytes mention ``SPL;`` are parsed at all);
* ``javap``'s text output is meant for people and changes between JDK releases, while the class-file
  format is specified (JVMS chapter 4) and stable; the reader below parses only the constant pool,
  the member tables and annotation attributes, and rejects anything malformed with a clear error.

Any annotation type whose simple name is ``SPL`` is accepted (``Lio/benchwarden/spl/SPL;``, or a
project's own copy), with a ``value`` that is a string or an array of strings (several formulas).
RuntimeInvisibleAnnotations are read too, so a copy declared with CLASS retention also works.
"""

from __future__ import annotations

import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path

from benchwarden.errors import BenchwardenError


class ClassFileError(BenchwardenError):
    """A class file (in a jar) cannot be read: names the file and the offset."""


@dataclass(frozen=True)
class AnnotatedMethod:
    """``@SPL`` formulas of one method: ``class_name`` is the binary name with dots (``a.b.C``)."""

    class_name: str
    method: str
    formulas: tuple[str, ...]
    origin: str  # "target/benchmarks.jar!a/b/C.class"

    @property
    def benchmark_name(self) -> str:
        """The name JMH gives the benchmark: ``package.Class.method`` (nested classes keep their ``$``)."""
        return f"{self.class_name}.{self.method}"


_CONSTANT_SIZES = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2, 17: 4, 18: 4,
                   19: 2, 20: 2}
_ANNOTATION_ATTRIBUTES = ("RuntimeVisibleAnnotations", "RuntimeInvisibleAnnotations")


def _modified_utf8(data: bytes) -> str:
    """Decode the JVM's modified UTF-8 (JVMS §4.4.7): NUL as C0 80, supplementary characters as surrogates."""
    text = data.replace(b"\xc0\x80", b"\x00").decode("utf-8", errors="surrogatepass")
    return text.encode("utf-16", "surrogatepass").decode("utf-16")


class _Reader:
    def __init__(self, data: bytes, origin: str):
        self.data = data
        self.pos = 0
        self.origin = origin

    def take(self, fmt: str) -> int:
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise ClassFileError(f"{self.origin}: truncated class file at offset {self.pos}")
        (value,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return value

    def skip(self, n: int) -> None:
        if self.pos + n > len(self.data):
            raise ClassFileError(f"{self.origin}: truncated class file at offset {self.pos}")
        self.pos += n

    def bytes(self, n: int) -> bytes:
        start = self.pos
        self.skip(n)
        return self.data[start:self.pos]


class ClassFile:
    """The parts of a class file that annotations need: constant pool, this class, methods' annotations."""

    def __init__(self, data: bytes, origin: str = "<class>"):
        self.origin = origin
        r = _Reader(data, origin)
        if r.take(">I") != 0xCAFEBABE:
            raise ClassFileError(f"{origin}: not a class file (bad magic number)")
        r.skip(4)  # minor, major version
        self.utf8: dict[int, str] = {}
        self.classes: dict[int, int] = {}
        self.strings: dict[int, int] = {}
        count = r.take(">H")
        index = 1
        while index < count:
            tag = r.take(">B")
            if tag == 1:
                self.utf8[index] = _modified_utf8(r.bytes(r.take(">H")))
            elif tag == 7:
                self.classes[index] = r.take(">H")
            elif tag == 8:
                self.strings[index] = r.take(">H")
            elif tag in _CONSTANT_SIZES:
                r.skip(_CONSTANT_SIZES[tag])
            else:
                raise ClassFileError(f"{origin}: unknown constant pool tag {tag} at entry {index}")
            index += 2 if tag in (5, 6) else 1  # long and double take two entries (JVMS §4.4.5)
        r.skip(2)  # access flags
        self.name = self.text(self.classes.get(r.take(">H"), 0)).replace("/", ".")
        r.skip(2)  # super class
        r.skip(2 * r.take(">H"))  # interfaces
        self._members(r)  # fields (skipped)
        self.methods = self._members(r)
        for _ in range(r.take(">H")):  # class attributes: skipped, but a truncated file is still noticed
            r.skip(2)
            r.skip(r.take(">I"))
        if r.pos != len(data):
            raise ClassFileError(f"{origin}: {len(data) - r.pos} unexpected byte(s) after the class file's end")

    def text(self, index: int) -> str:
        if index not in self.utf8:
            raise ClassFileError(f"{self.origin}: constant pool entry {index} is not a UTF-8 string")
        return self.utf8[index]

    def _members(self, r: _Reader) -> list[tuple[str, list[tuple[str, dict[str, object]]]]]:
        members = []
        for _ in range(r.take(">H")):
            r.skip(2)
            name = self.text(r.take(">H"))
            r.skip(2)  # descriptor
            annotations: list[tuple[str, dict[str, object]]] = []
            for _ in range(r.take(">H")):
                attr_name = self.text(r.take(">H"))
                length = r.take(">I")
                if attr_name in _ANNOTATION_ATTRIBUTES:
                    sub = _Reader(r.bytes(length), self.origin)
                    annotations.extend(self._annotation(sub) for _ in range(sub.take(">H")))
                else:
                    r.skip(length)
            members.append((name, annotations))
        return members

    def _annotation(self, r: _Reader) -> tuple[str, dict[str, object]]:
        type_name = self.text(r.take(">H"))
        values = {}
        for _ in range(r.take(">H")):
            key = self.text(r.take(">H"))
            values[key] = self._element(r)
        return type_name, values

    def _element(self, r: _Reader) -> object:
        tag = chr(r.take(">B"))
        if tag == "s":
            return self.text(r.take(">H"))
        if tag in "BCDFIJSZ":
            r.skip(2)
            return None  # numeric constants are not needed here
        if tag == "e":
            r.skip(4)
            return None
        if tag == "c":
            r.skip(2)
            return None
        if tag == "@":
            return self._annotation(r)
        if tag == "[":
            return [self._element(r) for _ in range(r.take(">H"))]
        raise ClassFileError(f"{self.origin}: unknown annotation element tag {tag!r} at offset {r.pos - 1}")


def _is_named(descriptor: str, simple_name: str) -> bool:
    return descriptor == f"L{simple_name};" or descriptor.endswith(f"/{simple_name};")


def spl_formulas(cls: ClassFile, annotation: str = "SPL") -> list[AnnotatedMethod]:
    """Every method of ``cls`` carrying ``@SPL`` (or another annotation of that simple name whose ``value`` is a
    string or strings, such as ``@Documents``), with its string value(s)."""
    out = []
    for method, found in cls.methods:
        formulas: list[str] = []
        for descriptor, values in found:
            if not _is_named(descriptor, annotation):
                continue
            value = values.get("value")
            items = value if isinstance(value, list) else [value]
            formulas.extend(v for v in items if isinstance(v, str))
        if formulas:
            out.append(AnnotatedMethod(cls.name, method, tuple(formulas), cls.origin))
    return out


def scan_jar(jar: Path, annotation: str = "SPL") -> list[AnnotatedMethod]:
    """Every ``@SPL``-annotated method in the jar's class files, in entry order (``annotation``: another simple
    name of a string-valued method annotation, e.g. ``Documents``; the values come back as ``formulas``).

    Raises ClassFileError (naming the jar entry) for a malformed class that mentions the annotation, and
    BenchwardenError when the jar cannot be opened.
    """
    try:
        archive = zipfile.ZipFile(jar)
    except (OSError, zipfile.BadZipFile) as exc:
        raise BenchwardenError(f"cannot read jar {jar}: {exc}") from None
    found: list[AnnotatedMethod] = []
    with archive:
        for entry in archive.infolist():
            if not entry.filename.endswith(".class") or entry.filename.endswith("module-info.class"):
                continue
            data = archive.read(entry)
            if f"{annotation};".encode() not in data:
                continue
            found.extend(spl_formulas(ClassFile(data, f"{jar}!{entry.filename}"), annotation))
    return found
