"""`docs --javadoc` on the JMH example as a user runs it (issue #17's Done-when): the example built by `run`, its two
documented benchmarks measured (`TokenizeBench.tokenize` and `CountWordsBySizeBench.count`, three sizes each, short
settings), the example's Javadoc made by the JDK's `javadoc`, then `benchwarden docs --javadoc`: a *Performance*
section inside each documented method's detail, with a complexity class fitted from the three real measurements, and
nothing else in the tree changed. Both methods are linear in the number of words; the assertion is only that a
growing class was fitted (100 to 10,000 words is a 100x range: no machine's noise makes that look constant)."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from benchwarden.cli import main
from benchwarden.site.javadoc import END, START
from tests.support.jmh import private_jmh_lock

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
DOCUMENTED = {"tokenize(java.lang.String)": "TokenizeBench.tokenize",
              "countWordsHash(java.util.List)": "CountWordsBySizeBench.count"}


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


@pytest.fixture()
def example(tmp_path: Path) -> Path:
    for tool in ("java", "javadoc", "mvn"):
        if shutil.which(tool) is None:
            pytest.skip(f"'{tool}' is not on PATH")
    root = tmp_path / "jmh"
    shutil.copytree(REPO / "examples" / "jmh", root, ignore=shutil.ignore_patterns(".benchwarden", "target"))
    private_jmh_lock(root, tmp_path)
    return root


def test_docs_javadoc_documents_both_methods_from_real_measurements(example, tmp_path):
    config = str(example / "benchwarden.toml")
    status, _, err = bw("run", "--config", config, "--suite", "wordstat", "--filter", "TokenizeBench|CountWordsBySize",
                        "--stop", "static", "--forks", "1", "--warmup", "3", "--iterations", "3",
                        "--iteration-time", "50ms", "-q")
    assert status == 0, err
    tree = tmp_path / "javadoc"
    subprocess.run(["javadoc", "-quiet", "-d", str(tree), "-sourcepath", str(example / "src" / "main" / "java"),
                    "wordstat"], check=True, capture_output=True, timeout=300)
    page = tree / "wordstat" / "WordStat.html"
    before = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}

    status, out, err = bw("docs", "--config", config, "--javadoc", str(tree))
    assert status == 0, err
    assert "2 method page(s) updated" in out, (out, err)
    text = page.read_text(encoding="utf-8")
    assert text.count(START) == 2
    for section, benchmark in DOCUMENTED.items():
        start = text.index(f'id="{section}"')
        block = text[text.index(START, start):text.index(END, start)]
        assert text.index(START, start) < text.index("</section>", start), section  # inside the method's section
        assert benchmark in block and "<svg" in block, section
        fitted = re.search(r"≈ ([a-z ]+) in size \(O\(", block)
        assert fitted and fitted.group(1) != "constant", (section, block[:2000])
        assert "value(s) of size measured" not in block, section
    # every other file of the tree untouched
    assert {p: p.read_bytes() for p in tree.rglob("*") if p.is_file() and p != page} == \
        {p: b for p, b in before.items() if p != page}
