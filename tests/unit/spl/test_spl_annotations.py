"""@SPL annotations read from class files: a golden jar compiled by javac (tests/data/spl/Annotated.java)."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import pytest

from benchwarden.errors import BenchwardenError
from benchwarden.spl.annotations import ClassFile, ClassFileError, scan_jar
from benchwarden.spl.discover import annotation_programs

DATA = Path(__file__).resolve().parents[2] / "data" / "spl"
JAR = DATA / "annotated.jar"


def test_scan_finds_every_annotated_method_with_its_formulas():
    found = {m.benchmark_name: m.formulas for m in scan_jar(JAR)}
    assert found == {
        "fixture.Annotated.single": ("SELF <= 2 * Annotated.other",),
        "fixture.Annotated.several": ("SELF(1000) <= 12 * SELF(100)", "SELF(100) >= 1us"),
        "fixture.Annotated.unicode": ("SELF <= 1.05 * Annotated.other  # ≤ in a comment",),
        "fixture.Annotated$Nested.inner": ("SELF <= 1ms",),
    }


def test_constant_pool_with_long_double_and_modified_utf8():
    with zipfile.ZipFile(JAR) as jar:
        cls = ClassFile(jar.read("fixture/Annotated.class"), "Annotated.class")
    assert cls.name == "fixture.Annotated"
    assert "naïve ≤ ünïcödé \x00 😀" in cls.utf8.values()  # NUL as C0 80, the emoji as a surrogate pair
    assert [name for name, _ in cls.methods] == ["<init>", "single", "several", "other", "unicode"]
    other = dict(cls.methods)["other"]
    assert [d for d, _ in other] == ["Ljava/lang/Deprecated;"]


def test_annotation_programs_bind_self_and_name_their_source():
    programs = annotation_programs("suite", JAR)
    sources = [p.program.source for p in programs]
    assert "@SPL fixture.Annotated.several[0]" in sources and "@SPL fixture.Annotated.single" in sources
    assert {p.self_ref for p in programs} >= {"suite:fixture.Annotated.single", "suite:fixture.Annotated.several"}


def test_malformed_class_files_are_clear_errors():
    with zipfile.ZipFile(JAR) as jar:
        data = jar.read("fixture/Annotated.class")
    with pytest.raises(ClassFileError, match="bad magic number"):
        ClassFile(b"\x00" * 16, "x.class")
    for cut in (10, len(data) // 2, len(data) - 3):
        with pytest.raises(ClassFileError, match=r"x.class: truncated class file at offset \d+"):
            ClassFile(data[:cut], "x.class")
    with pytest.raises(ClassFileError, match="2 unexpected byte"):
        ClassFile(data + b"\x00\x00", "x.class")
    bad_tag = data[:10] + struct.pack(">B", 99) + data[11:]
    with pytest.raises(ClassFileError, match="unknown constant pool tag 99 at entry 1"):
        ClassFile(bad_tag, "x.class")


def test_unreadable_jar(tmp_path):
    bad = tmp_path / "not.jar"
    bad.write_text("nope")
    with pytest.raises(BenchwardenError, match="cannot read jar"):
        scan_jar(bad)
