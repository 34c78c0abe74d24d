"""`site build` end to end: a store filled by real runs of the Python example (two commits of a git repository and a
real `compare` session) and by a seeded synthetic history (tests/support/site_store.py: twelve commits with a step,
hostile names, a comparison with a regression), built by the CLI (with the JMH example's audit and the Python
example's documented methods) and opened from file:// in headless chromium.

Every page: no console errors, exceptions or CSP violations; every request is a file inside the site; every
plot drawn (plotly's SVG root inside each figure element); every relative link resolves to an existing file (or
anchor).  The hostile benchmark name stays text in the page, and its markup parameter value stays text in a plotly
legend.  No timing asserts (the machine is loaded).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from benchwarden.cli import main
from tests.e2e.cdp_pipe import Browser, chromium
from tests.support.site_store import HOSTILE, TAG, make_store

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(chromium() is None, reason="chromium is not installed (scripts/bootstrap.sh "
                                                            "installs it when run as root)"),
              pytest.mark.skipif(shutil.which("git") is None, reason="git is not on PATH")]

REPO = Path(__file__).resolve().parents[2]
SHORT = ("--warmup", "1", "--iterations", "3", "--iteration-time", "20ms")
FILTER = "Tokenize|CountWordsBySize"  # the two documented methods' benchmarks, 3 sizes each
GIT_ENV = {"GIT_AUTHOR_NAME": "bw", "GIT_AUTHOR_EMAIL": "bw@example.org", "GIT_COMMITTER_NAME": "bw",
           "GIT_COMMITTER_EMAIL": "bw@example.org"}

PAGE_STATE = """JSON.stringify({
  figures: document.querySelectorAll('.plotly-figure').length,
  drawn: [...document.querySelectorAll('.plotly-figure')].filter(f => f.querySelector('svg.main-svg')
           && f.getBoundingClientRect().height > 100).length,
  links: [...document.querySelectorAll('a[href]')].map(a => a.href),
  sources: [...document.querySelectorAll('script[src]')].map(s => s.src),
  scripts: [...document.scripts].map(s => s.type || s.src.split('/').pop()),
  title: (document.querySelector('h1') || {}).textContent,
  legends: [...document.querySelectorAll('.legendtext')].map(e => e.textContent),
  legendMarkup: document.querySelectorAll('.legendtext *').length,
  tables: document.querySelectorAll('details.table-view table').length,
  plotly: typeof Plotly === 'object' && typeof Plotly.newPlot === 'function'
})"""


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env={**os.environ, **GIT_ENV})


def _local(url: str) -> Path:
    parsed = urlparse(url)
    assert parsed.scheme == "file", url
    return Path(unquote(parsed.path))


def test_site_of_real_runs_opens_offline_with_plots_links_and_names_as_text(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(REPO / "examples" / "python", root, ignore=shutil.ignore_patterns(".benchwarden", "__pycache__"))
    (root / ".gitignore").write_text(".benchwarden/\n")
    store = tmp_path / "results.db"
    made = make_store(str(store), n_benchmarks=12, commits=12)  # another machine's history: a series of its own
    config = str(root / "benchwarden.toml")
    git(root, "init", "-q", "-b", "main")
    for commit in range(2):
        if commit:
            with (root / "README.md").open("a") as readme:
                readme.write("\nEdit.\n")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"commit {commit}")
        status, _, err = bw("run", "--config", config, "--store", str(store), "--suite", "wordstat", "--filter",
                            FILTER, "--forks", "2", *SHORT, "-q")
        assert status == 0, err
    status, _, err = bw("compare", "--config", config, "--store", str(store), "--variant-env", "WORDSTAT_SLOW=1",
                        "--suite", "wordstat", "--filter", "Tokenize", "--min-forks", "2", "--max-forks", "2", *SHORT,
                        "--seed", "1", "-q")
    assert status in (0, 1), err
    site = tmp_path / "site"
    status, out, err = bw("site", "build", "--config", config, "--store", str(store), "-o", str(site), "--audit",
                          str(REPO / "examples" / "jmh"))
    assert status == 0, err
    pages = sorted(site.rglob("*.html"))
    real = [p for p in pages if "bench_wordstat" in p.name]
    assert len(real) == 6 and len(list(site.glob("comparisons/*.html"))) == 2, out
    methods = sorted(site.glob("methods/*.html"))  # the example's [docs.methods]: tokenize and count_words_hash
    assert len(methods) == 2
    assert len(pages) == 1 + 12 + 6 + 2 + 2 + 1 and f"site: {len(pages)} page(s)" in out  # + the JMH example's audit

    with Browser(tmp_path / "profile", timeout_s=60.0) as browser:
        seen = {}
        for page in pages:
            browser.events.clear()
            session = browser.open(page.as_uri())
            state = json.loads(browser.evaluate(PAGE_STATE, session))
            for _ in range(50):  # plotly draws on load; wait (not a timing assert) until every figure has its SVG
                if state["drawn"] == state["figures"]:
                    break
                time.sleep(0.2)
                state = json.loads(browser.evaluate(PAGE_STATE, session))
            dialogs = [e for e in browser.events if e.get("method") == "Page.javascriptDialogOpening"]
            assert browser.problems() == [] and dialogs == [], page
            for url in browser.requests():
                assert _local(url).is_file() and _local(url).resolve().is_relative_to(site.resolve()), (page, url)
            for url in state["links"] + state["sources"]:
                target = _local(url.split("#")[0])
                assert target.is_file() and target.resolve().is_relative_to(site.resolve()), (page, url)
            seen[page.relative_to(site).as_posix()] = state

    overview = seen["index.html"]
    assert overview["plotly"] and len({u.split("#")[0] for u in overview["links"]}) >= 12 + 3 + 2
    for relative, state in seen.items():
        if relative.startswith("benchmarks/"):
            assert state["plotly"] and state["figures"] >= 3 and state["drawn"] == state["figures"], relative
            assert state["tables"] == state["figures"], relative  # each plot has its table view
            assert state["scripts"] == ["application/json", "plotly.min.js", "site.js"], relative
    # a real benchmark of the example: its history (two commits), latest forks and its parameter curve
    tokenize = next(s for r, s in seen.items() if "time_tokenize-size-100-" in r)
    assert tokenize["figures"] == 4 and {"per commit", "fork 1", "fork 2"} <= set(tokenize["legends"])
    # the documented methods: each plotted over its three sizes with a fitted class (both grow with the input)
    for method in ("wordstat.tokenize", "wordstat.count_words_hash"):
        doc = next(s for r, s in seen.items() if r.startswith(f"methods/{method}"))
        assert doc["figures"] == 1 and doc["drawn"] == 1, method
        text = (site / "methods").joinpath(next(p.name for p in methods if p.name.startswith(method))).read_text(
            encoding="utf-8")
        assert "≈ " in text and " in size (O(" in text and "value(s) of size measured" not in text, method
        assert "≈ constant" not in text, method
    # the hostile name: shown as text, never an element; its markup parameter value is text in plotly's legend
    evil = next(s for r, s in seen.items() if r.startswith("benchmarks/evil-"))
    assert evil["title"].startswith(f"evil:{HOSTILE}[size=")
    assert f"tag={TAG}" in evil["legends"] and evil["legendMarkup"] == 0
    # the comparison pages: a link home, the synthetic regression shown
    assert all(any(u.endswith("/index.html") for u in s["links"]) for r, s in seen.items()
               if r.startswith("comparisons/"))
    assert made.stepped
