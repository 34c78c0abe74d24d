"""JMH version and Java target from Maven and Gradle fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchwarden.audit.buildfile import normalise_java_version, read_build_files, strip_comments
from benchwarden.audit.sourcetree import DirectoryTree

BUILDS = Path(__file__).resolve().parents[2] / "data" / "audit" / "builds"


def read(name):
    return {b.path: b for b in read_build_files(DirectoryTree(BUILDS / name))}


@pytest.mark.parametrize("project, path, version, java", [
    ("maven-parent", "pom.xml", "1.19", "11"),
    ("maven-parent", "bench/pom.xml", "1.19", "11"),  # version managed by the parent, release inherited
    ("maven-comment", "pom.xml", "1.17.2", "17"),  # versions in XML comments are not read; profile dependency
    ("gradle-groovy", "build.gradle", "1.36", "8"),  # plugin jmhVersion, not the commented-out 1.10/1.11
    ("gradle-kotlin", "build.gradle.kts", "1.35", "17"),  # $jmhVersion in coordinates, toolchain
    ("gradle-catalog", "build.gradle.kts", "1.34", "21"),  # libs.versions.toml version.ref
    ("gradle-properties", "build.gradle", "1.33", None),  # ${jmhVersion} from gradle.properties
    ("gradle-plugin-default", "build.gradle", None, "11"),
])
def test_versions_and_java_targets(project, path, version, java):
    info = read(project)[path]
    assert (info.jmh_version, info.java_target) == (version, java)


def test_version_sources_are_reported():
    assert read("maven-parent")["bench/pom.xml"].jmh_version_source == \
        "parent dependencyManagement org.openjdk.jmh:jmh-core"
    assert read("gradle-groovy")["build.gradle"].jmh_version_source == "JMH Gradle plugin jmhVersion"
    assert read("gradle-kotlin")["build.gradle.kts"].jmh_version_source == "dependency org.openjdk.jmh:jmh-core"


def test_shade_final_name_gives_the_artifact():
    assert read("maven-parent")["bench/pom.xml"].artifact == "target/bench-benchmarks.jar"


def test_malformed_pom_is_a_located_warning_not_a_crash():
    info = read("maven-malformed")["pom.xml"]
    assert info.jmh_version is None
    assert [str(d) for d in info.diagnostics] == [
        "pom.xml:11: pom.xml is not well-formed XML (mismatched tag: line 11, column 2); skipped"]


def test_dynamic_and_plugin_default_versions_warn():
    dyn = read("gradle-dynamic")["build.gradle"]
    assert dyn.jmh_version == "1.+" and "dynamic" in dyn.diagnostics[0].message
    plugin = read("gradle-plugin-default")["build.gradle"]
    assert plugin.jmh_plugin and "built-in default" in plugin.diagnostics[0].message


def test_strip_comments_keeps_strings():
    code = 'a = "x // y" // gone\nb = \'/* kept */\' /* gone\n too */ c'
    assert strip_comments(code) == 'a = "x // y" \nb = \'/* kept */\' \n c'


@pytest.mark.parametrize("text, expected", [("1.8", "8"), ("8", "8"), ("JavaVersion.VERSION_1_8", "8"),
                                            ("JavaVersion.VERSION_17", "17"), ("'11'", "11"), ("abc", None)])
def test_normalise_java_version(text, expected):
    assert normalise_java_version(text) == expected
