"""`docs --javadoc`: method keys in Javadoc notation, the section inserted into a real Javadoc tree (the JMH example's
`wordstat` package, made by the JDK's javadoc) with nothing else changed, idempotent, and the command's errors."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from benchwarden.cli import main
from benchwarden.site.javadoc import END, START, insert_section, parse_java_method
from tests.support.site_store import make_store

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "jmh" / "src" / "main" / "java"


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def test_method_keys_in_javadoc_notation():
    m = parse_java_method("com.acme.Parser#parse(java.util.List<java.lang.String>, int[])")
    assert (m.cls, m.name, m.params) == ("com.acme.Parser", "parse", ("List", "int[]"))
    assert m.matches("parse(java.util.List,int[])") and not m.matches("parse(java.util.List)")
    assert m.pages(Path("/d")) == [Path("/d/com/acme/Parser.html")]
    assert parse_java_method("com.acme.Outer.Inner#f()").pages(Path("/d")) == [Path("/d/com/acme/Outer.Inner.html")]
    assert parse_java_method("wordstat.tokenize(text)") is None  # Python: left to the site


def test_insertion_changes_nothing_else_and_replaces_its_own_block():
    page = ('<html><body><section class="detail" id="f(int)"><h3>f</h3><section id="inner">x</section>'
            '<div>doc</div></section>\n<section class="detail" id="g()"></section></body></html>')
    method = parse_java_method("p.C#f(int)")
    once = insert_section(page, method, f"{START}\nA\n{END}\n")
    assert once == page.replace('<div>doc</div></section>', f'<div>doc</div>{START}\nA\n{END}\n</section>')
    twice = insert_section(once, method, f"{START}\nB\n{END}\n")
    assert twice == once.replace("\nA\n", "\nB\n")
    assert insert_section(page, parse_java_method("p.C#h()"), "x") is None


@pytest.mark.skipif(shutil.which("javadoc") is None, reason="the JDK's javadoc is not on PATH")
def test_docs_javadoc_on_the_jmh_example_s_javadoc(tmp_path):
    tree = tmp_path / "javadoc"
    subprocess.run(["javadoc", "-quiet", "-d", str(tree), "-sourcepath", str(EXAMPLE), "wordstat"], check=True,
                   capture_output=True, timeout=300)
    made = make_store(str(tmp_path / "results.db"), n_benchmarks=12, commits=4, comparison=False)
    config = tmp_path / "benchwarden.toml"
    config.write_text(f'[store]\nurl = "{made.path}"\n\n[docs.methods]\n'
                      '"wordstat.WordStat#tokenize(String)" = ["wordstat:Parse.parse"]\n'
                      '"wordstat.WordStat#countWordsHash(java.util.List<String>)" = ["bulk:Bench000"]\n'
                      '"wordstat.WordStat#nope()" = ["wordstat:Parse.parse"]\n'
                      '"wordstat.count(words)" = ["wordstat:Parse.parse"]\n')
    page = tree / "wordstat" / "WordStat.html"
    before = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    status, out, err = bw("docs", "--config", str(config), "--javadoc", str(tree), "--site", "https://example.org/s")
    assert status == 0, err
    assert "2 method page(s) updated, 1 not" in out and "has no method section nope()" in err
    assert "not Java methods (left to the site): wordstat.count(words)" in err
    text = page.read_text(encoding="utf-8")
    assert text.count(START) == 2 and "≈ linear in size (O(n))" in text and "<svg" in text
    assert 'href="https://example.org/s/methods/wordstat.wordstat-tokenize-string-' in text
    assert "No numeric parameter with two or more measured values." in text  # countWordsHash: no parameter
    # every other file untouched; this one only by the two blocks, each inside its method's section
    assert {p: p.read_bytes() for p in tree.rglob("*") if p.is_file() and p != page} == \
        {p: b for p, b in before.items() if p != page}
    stripped = text
    while START in stripped:
        stripped = stripped[:stripped.index(START)] + stripped[stripped.index(END) + len(END) + 1:]
    assert stripped.encode() == before[page]
    tokenize = text.index('id="tokenize(java.lang.String)"')
    assert tokenize < text.index(START) < text.index("</section>", tokenize)
    # again: the same page (idempotent)
    assert bw("docs", "--config", str(config), "--javadoc", str(tree), "--site", "https://example.org/s")[0] == 0
    assert page.read_text(encoding="utf-8") == text

    status, _, err = bw("docs", "--config", str(config), "--javadoc", str(tmp_path))
    assert status == 2 and "not a Javadoc HTML tree" in err
    config.write_text(f'[store]\nurl = "{made.path}"\n\n[docs.methods]\n"wordstat.count(words)" = ["a:b"]\n')
    status, _, err = bw("docs", "--config", str(config), "--javadoc", str(tree))
    assert status == 2 and "no documented method" in err and "is a Java method" in err


@pytest.mark.skipif(shutil.which("javac") is None, reason="the JDK's javac is not on PATH")
def test_documents_annotations_in_a_built_jar_bind_methods(tmp_path):
    import zipfile

    from benchwarden.spl.annotations import scan_jar

    annotations = EXAMPLE.parents[4] / "java" / "spl-annotations" / "src" / "main" / "java"
    source = tmp_path / "src" / "fixture" / "Bench.java"
    source.parent.mkdir(parents=True)
    source.write_text("package fixture;\nimport io.benchwarden.spl.Documents;\nimport io.benchwarden.spl.SPL;\n"
                      "public class Bench {\n"
                      '  @Documents("com.acme.Parser#parse(String)") @SPL("SELF <= 1ms") public void parse() {}\n'
                      '  @Documents({"com.acme.A#a()", "com.acme.B#b(int)"}) public void both() {}\n'
                      "  public void none() {}\n}\n")
    classes = tmp_path / "classes"
    subprocess.run(["javac", "-d", str(classes), "-sourcepath", f"{tmp_path / 'src'}:{annotations}", str(source)],
                   check=True, capture_output=True, timeout=300)
    suite = tmp_path / "suite"
    (suite / "target").mkdir(parents=True)
    jar = suite / "target" / "benchmarks.jar"
    with zipfile.ZipFile(jar, "w") as archive:
        for path in classes.rglob("*.class"):
            archive.write(path, path.relative_to(classes).as_posix())
    found = {m.benchmark_name: m.formulas for m in scan_jar(jar, "Documents")}
    assert found == {"fixture.Bench.parse": ("com.acme.Parser#parse(String)",),
                     "fixture.Bench.both": ("com.acme.A#a()", "com.acme.B#b(int)")}
    assert [m.benchmark_name for m in scan_jar(jar)] == ["fixture.Bench.parse"]  # @SPL as before

    made = make_store(str(tmp_path / "results.db"), n_benchmarks=3, commits=3, comparison=False)
    config = tmp_path / "benchwarden.toml"
    config.write_text(f'[store]\nurl = "{made.path}"\n\n[suites.s]\nkind = "jmh"\npath = "suite"\n'
                      'artifact = "target/benchmarks.jar"\n\n[docs.methods]\n"com.acme.A#a()" = ["wordstat:Parse.parse"]\n')
    status, out, err = bw("site", "build", "--config", str(config), "-o", str(tmp_path / "site"))
    assert status == 0, err
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    for method in ("com.acme.Parser#parse(String)", "com.acme.A#a()", "com.acme.B#b(int)"):
        assert method in index
    a = next((tmp_path / "site" / "methods").glob("com.acme.a-a-*.html")).read_text(encoding="utf-8")
    assert "wordstat:Parse.parse" in a and "s:fixture.Bench.both" in a  # the config's binding and the annotation's
