"""`benchwarden serve` end to end: the real command in its own process (uvicorn on a free loopback port), real
Python harness processes measuring on demand, a real store, and headless chromium driving the page.

* In the browser: a benchmark page of the Python example offers the declared parameter values; asking for a
  value not measured yet shows the quick value, then each fork's refinement, then the final value (the page's
  own table, observed through every change of its phase attribute, and the job's events from the API in the
  same order); after a reload the value comes from the store at once; a value outside the declared domain
  is refused with the server's message; the overview offers every family with parameters, and a hostile
  parameter value measured from there stays text.  No console errors or CSP violations.
* Without a browser: ten concurrent requests for ten values are all queued, measured one at a time (no two
  measurements overlap) and stored; a request for a value being measured joins that job; Ctrl-C during a
  measurement stops the server (exit 0) with every completed fork stored and the interrupted run resumable.

No timing asserts (the machine may be loaded): waits are bounded polls for states.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from benchwarden.cli import main
from benchwarden.store import open_store
from tests.e2e.cdp_pipe import Browser, chromium

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(shutil.which("git") is None, reason="git is not on PATH")]

REPO = Path(__file__).resolve().parents[2]
GIT_ENV = {"GIT_AUTHOR_NAME": "bw", "GIT_AUTHOR_EMAIL": "bw@example.org", "GIT_COMMITTER_NAME": "bw",
           "GIT_COMMITTER_EMAIL": "bw@example.org"}
HOSTILE = "<img src=x onerror=alert(1)>"
TOKENIZE = "wordstat:bench_wordstat.Tokenize.time_tokenize"


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def commit_all(root: Path) -> None:
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def ask_and_watch(browser: Browser, session: str, value: str) -> None:
    """Ask the page's first form for ``value``, recording every value its result row's phase takes, in order,
    however fast the events come (``window.phases``)."""
    browser.evaluate(f"""window.phases = [];
      new MutationObserver(records => records.forEach(r => window.phases.push(r.target.dataset.phase)))
        .observe(document.querySelector('section.measure .measure-results'),
                 {{subtree: true, attributes: true, attributeFilter: ['data-phase']}});
      document.querySelector('section.measure form select').value = {json.dumps(value)};
      document.querySelector('section.measure form').requestSubmit(); 'ok'""", session)


class Serve:
    """`benchwarden serve --port 0` in its own process; ``url`` once it listens; ``stop()`` sends Ctrl-C."""

    def __init__(self, config: Path):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "benchwarden", "serve", "--config", str(config), "--port", "0", "--suite",
             "wordstat"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=config.parent)
        self.lines: list[str] = []
        reader = threading.Thread(target=self._read, daemon=True)
        reader.start()
        deadline = time.monotonic() + 300
        while not any("serving http://" in line for line in self.lines):
            assert self.process.poll() is None, (self.lines, self.process.stderr.read())
            assert time.monotonic() < deadline, self.lines
            time.sleep(0.1)
        line = next(line for line in self.lines if "serving http://" in line)
        self.url = line.split()[1]
        assert self.url.startswith("http://127.0.0.1:")

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line)

    def post(self, body: dict | bytes, content_type: str = "application/json") -> tuple[int, dict]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(self.url + "api/measure", data=data, method="POST",
                                         headers={"Content-Type": content_type})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def get(self, path: str) -> dict:
        with urllib.request.urlopen(self.url + path, timeout=60) as response:
            return json.loads(response.read())

    def wait_job(self, job: int, states: tuple[str, ...] = ("done", "cached", "failed", "cancelled"),
                 timeout_s: float = 600) -> dict:
        deadline = time.monotonic() + timeout_s
        while True:
            state = self.get(f"api/jobs/{job}")
            if state["state"] in states:
                return state
            assert time.monotonic() < deadline, state
            time.sleep(0.2)

    def stop(self) -> tuple[int, str]:
        self.process.send_signal(signal.SIGINT)
        try:
            rc = self.process.wait(120)
        finally:
            if self.process.poll() is None:
                self.process.kill()
        return rc, self.process.stderr.read()


def test_serve_measures_on_demand_in_a_real_browser(tmp_path):
    if chromium() is None:
        pytest.skip("chromium is not installed (scripts/bootstrap.sh installs it when run as root)")
    root = tmp_path / "project"
    shutil.copytree(REPO / "examples" / "python", root, ignore=shutil.ignore_patterns(".benchwarden", "__pycache__"))
    (root / ".gitignore").write_text(".benchwarden/\nresults.db*\n")
    (root / "benchmarks" / "bench_hostile.py").write_text(
        f"class Hostile:\n    params = [{HOSTILE!r}, 'plain']\n    param_names = ['tag']\n\n"
        "    def time_tag(self, tag):\n        len(tag)\n")
    commit_all(root)
    config = root / "benchwarden.toml"
    status, _, err = bw("run", "--config", str(config), "--suite", "wordstat", "--filter", "Tokenize|Hostile",
                        "-p", "size=100", "-p", "tag=plain", "--forks", "2", "--warmup", "1", "--iterations", "3",
                        "--iteration-time", "20ms", "-q")
    assert status == 0, err
    server = Serve(config)
    try:
        index = urllib.request.urlopen(server.url, timeout=60).read().decode()
        page = next(part.split('"')[0] for part in index.split('href="')[1:]
                    if "time_tokenize-size-100-" in part.split('"')[0])
        hostile_page = next(part.split('"')[0] for part in index.split('href="')[1:]
                            if "time_tag-tag-" in part.split('"')[0])
        with Browser(tmp_path / "profile", timeout_s=120.0) as browser:
            session = browser.open(server.url + page)
            form = json.loads(browser.evaluate("""JSON.stringify({
              benchmark: document.querySelector('section.measure').dataset.benchmark,
              options: [...document.querySelectorAll('section.measure form select option')].map(o => o.value),
              accepts: document.querySelector('section.measure form small').textContent,
              csp: document.querySelector('meta[http-equiv]').content})""", session))
            assert form["benchmark"] == TOKENIZE and form["options"] == ["100", "1000", "10000"], form
            assert form["accepts"] == "one of 100, 1000, 10000" and "connect-src 'self'" in form["csp"]
            ask_and_watch(browser, session, "1000")
            phases: list[str] = []
            deadline = time.monotonic() + 600
            while "done" not in phases:
                assert time.monotonic() < deadline, (phases, browser.evaluate(
                    "document.querySelector('section.measure .measure-status').textContent", session))
                time.sleep(0.2)
                phases = browser.evaluate("window.phases", session)
            assert phases[0] == "quick" and phases[-1] == "done" and "fork 2" in phases, phases
            shown = json.loads(browser.evaluate("""JSON.stringify([...document.querySelectorAll(
              'section.measure .measure-results tbody tr')].map(tr => [...tr.cells].map(c => c.textContent)))""", session))
            assert len(shown) == 1 and shown[0][0] == f"{TOKENIZE}[size=1000]" and shown[0][1] == "done", shown
            assert shown[0][2].endswith(" ns/op") and shown[0][3].startswith("[") and shown[0][4] == "2", shown
            events = [e["event"] for e in server.get("api/jobs/1")["events"] if e["event"] != "iteration"]
            assert events == ["queued", "started", "phase", "quick", "phase", "fork", "fork", "done"], events

            # reload: the value now comes from the store, and the site is rebuilt with the new value's page
            browser.events.clear()  # open() waits for a load event: not the first page's
            session = browser.open(server.url + page)
            ask_and_watch(browser, session, "1000")
            deadline = time.monotonic() + 60
            while not browser.evaluate("window.phases", session):
                assert time.monotonic() < deadline, browser.evaluate(
                    "document.querySelector('section.measure .measure-status').textContent", session)
                time.sleep(0.1)
            assert browser.evaluate("window.phases", session) == ["cached"]
            assert server.get("api/jobs/2")["state"] == "cached"
            deadline = time.monotonic() + 120  # the site is rebuilt after the measurement's last event
            while "time_tokenize-size-1000-" not in urllib.request.urlopen(server.url, timeout=60).read().decode():
                assert time.monotonic() < deadline
                time.sleep(0.2)

            # a value outside the declared domain: refused, and the page says why
            browser.evaluate("""const o = document.createElement('option'); o.value = '5000';
              document.querySelector('section.measure form select').append(o);
              document.querySelector('section.measure form select').value = '5000';
              document.querySelector('section.measure form').requestSubmit(); 'ok'""", session)
            deadline = time.monotonic() + 60
            status_text = ""
            while not status_text.startswith("refused"):
                assert time.monotonic() < deadline, status_text
                time.sleep(0.1)
                status_text = browser.evaluate("document.querySelector('section.measure .measure-status').textContent", session)
            assert status_text == "refused: parameter 'size': expected one of 100, 1000, 10000, got '5000'"

            # a hostile declared value is an option's text, never markup
            browser.events.clear()
            session = browser.open(server.url + hostile_page)
            hostile = json.loads(browser.evaluate("""JSON.stringify({
              options: [...document.querySelectorAll('section.measure form select option')].map(o => o.textContent),
              images: document.querySelectorAll('img').length})""", session))
            assert hostile == {"options": [repr(HOSTILE), "'plain'"], "images": 0}, hostile
            dialogs = [e for e in browser.events if e.get("method") == "Page.javascriptDialogOpening"]
            assert browser.problems() == [] and dialogs == []

            # the overview offers every family, measured or not; measuring the hostile value there shows its
            # name as text in the results
            browser.events.clear()
            session = browser.open(server.url)
            families = json.loads(browser.evaluate(
                "JSON.stringify([...document.querySelectorAll('section.measure')].map(s => s.dataset.benchmark))",
                session))
            assert families == ["wordstat:bench_hostile.Hostile.time_tag",
                                "wordstat:bench_wordstat.CountWordsBySize.time_count", TOKENIZE], families
            browser.evaluate(f"""const s = document.querySelector('section.measure');
              s.querySelector('select').value = {json.dumps(repr(HOSTILE))};
              s.querySelector('form').requestSubmit(); 'ok'""", session)
            deadline = time.monotonic() + 600
            cells: list = []
            while not cells or cells[1] != "done":
                assert time.monotonic() < deadline, cells
                time.sleep(0.2)
                cells = json.loads(browser.evaluate("""JSON.stringify([...(document.querySelector(
                  'section.measure .measure-results tbody tr') || {cells: []}).cells].map(c => c.textContent))""",
                                                    session))
            assert cells[0] == f"wordstat:bench_hostile.Hostile.time_tag[tag={HOSTILE!r}]", cells
            assert browser.evaluate("document.querySelectorAll('img').length", session) == 0
            dialogs = [e for e in browser.events if e.get("method") == "Page.javascriptDialogOpening"]
            assert browser.problems() == [] and dialogs == []
    finally:
        rc, err = server.stop()
    assert rc == 0, err
    assert "stopped: 3 request(s), 2 measured, 4 run(s) stored" in err, err


QUEUE_SUITE = """
class Sizes:
    params = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    param_names = ["n"]

    def time_sum(self, n):
        sum(range(200 * n))
"""

QUEUE_CONFIG = """
[store]
url = "results.db"

[suites.wordstat]
kind = "python"
path = "."
benchmarks = "benchmarks"
python = "python3"
iteration_time = "20ms"
warmup = { min = 1, max = 1 }
iterations = 2
forks = { min = 3, max = 3 }
stop = "static"
"""


def test_serve_queues_concurrent_requests_one_at_a_time_and_keeps_forks_on_ctrl_c(tmp_path):
    root = tmp_path / "queue"
    (root / "benchmarks").mkdir(parents=True)
    (root / "benchmarks" / "bench_sizes.py").write_text(QUEUE_SUITE)
    (root / "benchwarden.toml").write_text(QUEUE_CONFIG)
    (root / ".gitignore").write_text(".benchwarden/\nresults.db*\n")
    commit_all(root)
    server = Serve(root / "benchwarden.toml")
    family = "wordstat:bench_sizes.Sizes.time_sum"
    try:
        with ThreadPoolExecutor(10) as pool:
            answers = list(pool.map(lambda n: server.post({"benchmark": family, "params": {"n": n}}), range(1, 11)))
        assert all(status == 202 for status, _ in answers), answers
        jobs = sorted(answer["job"] for _, answer in answers)
        assert jobs == list(range(1, 11))
        # the value queued last, asked again while it waits: the same job, not a second measurement
        last_queued = next(a for _, a in answers if a["job"] == 10)
        status, again = server.post({"benchmark": family, "params": last_queued["params"]})
        assert status == 202 and again["job"] == 10
        queue = server.get("api/queue")
        assert len(queue["waiting"]) + (queue["running"] is not None) >= 1
        finished = [server.wait_job(job) for job in jobs]
        assert all(f["state"] == "done" for f in finished), [(f["job"], f["state"], f["events"][-1]) for f in finished]
        spans = sorted((next(e["t"] for e in f["events"] if e["event"] == "started"),
                        next(e["t"] for e in f["events"] if e["event"] == "done")) for f in finished)
        assert all(end <= next_start for (_, end), (next_start, _) in zip(spans, spans[1:])), spans  # one at a time
        for f in finished:  # a waiting job heard its place move up; the final value has all three forks
            positions = [e["position"] for e in f["events"] if e["event"] == "queued"]
            assert positions == sorted(positions, reverse=True) and positions[-1] >= 1, positions
            assert [e["fork"] for e in f["events"] if e["event"] == "fork"] == [1, 2, 3]
        assert server.get("api/queue") == {"running": None, "waiting": []}
        status, refused = server.post({"benchmark": family, "params": {"n": "12"}})
        assert status == 400 and "expected one of 1, 2, 3" in refused["error"]
        assert server.post(b"n=3", "application/x-www-form-urlencoded")[0] == 415
        # DNS rebinding: a page of another name that resolves to 127.0.0.1 is not this server's
        rebound = urllib.request.Request(server.url + "api/queue", headers={"Host": "evil.example:80"})
        with pytest.raises(urllib.error.HTTPError) as refused_host:
            urllib.request.urlopen(rebound, timeout=60)
        assert refused_host.value.code == 400

        # Ctrl-C while the eleventh value is measured, after its first accurate fork is stored
        status, last = server.post({"benchmark": family, "params": {"n": 11}})
        assert status == 202
        deadline = time.monotonic() + 300
        while not any(e["event"] == "fork" for e in server.get(f"api/jobs/{last['job']}")["events"]):
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        rc, err = server.stop()
    assert rc == 0, err
    assert "every completed fork of run" in err and "benchwarden run --resume" in err, err
    store = open_store(str(root / "results.db"))
    try:
        runs = [store.load_run(s.id) for s in store.list_runs(limit=100)]
    finally:
        store.close()
    interrupted = [r for r in runs if r.status.value == "interrupted"]
    assert len(runs) == 22 and len(interrupted) == 1 and interrupted[0].meta.label == "serve"
    kept = [f for f in interrupted[0].results[0].forks if f.status.value == "complete"]
    assert 1 <= len(kept) <= 2 and interrupted[0].results[0].benchmark.id.params == (("n", "11"),)
    status, _, err = bw("run", "--config", str(root / "benchwarden.toml"), "--resume", str(interrupted[0].id), "-q")
    assert status == 0, err
