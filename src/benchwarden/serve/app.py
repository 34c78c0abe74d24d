"""The web application of ``benchwarden serve`` (Starlette, run by uvicorn).

Routes:

* ``GET /…`` — the live site (serve/live.py): the pages ``site build`` writes, rebuilt when the store changed;
* ``POST /api/measure`` — body ``{"benchmark": "suite:name", "params": {"size": "500"}}``: answer from the
  store, join a running measurement, or queue one (serve/measure.py).  202 with the job, or 400 with
  ``{"error": …}`` naming what is outside the benchmark's declared domain, 503 when the queue is full;
* ``GET /api/jobs/{id}`` — the job and every event so far; ``GET /api/jobs/{id}/events`` — the same events as
  server-sent events (``text/event-stream``), replayed from the start, then live until the job ends;
* ``GET /api/queue`` — the running job and the waiting ones.

The server binds to loopback unless told otherwise.  A measurement request must be a JSON body from the
server's own pages: a browser sends a cross-site JSON POST only after a CORS preflight, which this server
never grants, and a request whose ``Origin`` is another site's is refused as well, so a web page the reader
visits cannot queue measurements on the reader's machine.  On loopback, a request must name a loopback host
(``Host: 127.0.0.1``, ``localhost``, ``[::1]``): a site that rebinds its own name to 127.0.0.1 (DNS rebinding)
would otherwise be "same origin" with the server.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Sequence
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from benchwarden.errors import BenchwardenError
from benchwarden.serve.domain import DomainError
from benchwarden.serve.live import LiveSite
from benchwarden.serve.measure import Job, MeasurementService, QueueFull

MAX_BODY = 16 * 1024
#: how often an event stream looks for new events, and sends a comment to keep idle connections open
POLL_S, KEEPALIVE_S = 0.1, 15.0
#: the Host header values accepted when the server listens on loopback
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class _LiveFiles:
    """The site's folder as static files; a page request first rebuilds the site if the store changed."""

    def __init__(self, site: LiveSite):
        self.site = site
        self.files = StaticFiles(directory=site.out, html=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and (path.endswith("/") or path.endswith(".html")):
            await run_in_threadpool(self.site.refresh_if_changed)
        await self.files(scope, receive, send)


def allowed_hosts(bind: str) -> list[str]:
    """The Host header values to accept for a server listening on ``bind``: loopback names only on loopback."""
    return list(LOOPBACK_HOSTS) if bind in ("127.0.0.1", "localhost", "::1") else ["*"]


def create_app(service: MeasurementService, site: LiveSite, hosts: Sequence[str] = ("*",)) -> Starlette:
    """The application; ``service`` and ``site`` are started and stopped by its lifespan; ``hosts``: the Host
    header values accepted (:func:`allowed_hosts`)."""

    async def measure(request: Request) -> Response:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return error(415, "send the request as JSON (Content-Type: application/json)")
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
            return error(403, "measurements may only be requested from this server's own pages")
        body = await request.body()
        if len(body) > MAX_BODY:
            return error(413, f"the request is larger than {MAX_BODY} bytes")
        try:
            document = json.loads(body)
        except ValueError as exc:
            return error(400, f"the request is not JSON: {exc}")
        if not isinstance(document, dict) or not isinstance(document.get("benchmark"), str) \
                or not isinstance(document.get("params", {}), dict):
            return error(400, 'expected {"benchmark": "suite:name", "params": {"name": "value", …}}')
        params = document.get("params", {})
        if not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in params.values()):
            return error(400, "each parameter value must be a string or a number")
        try:
            job = await run_in_threadpool(service.submit, document["benchmark"],
                                          {str(k): str(v) for k, v in params.items()})
        except QueueFull as exc:
            return error(503, str(exc))
        except DomainError as exc:
            return error(400, str(exc))
        except BenchwardenError as exc:
            return error(503, str(exc))
        return JSONResponse({**job.to_json(), "events": f"/api/jobs/{job.id}/events"}, status_code=202)

    def _job(request: Request) -> Job | None:
        return service.jobs.get(request.path_params["job"])

    async def job_state(request: Request) -> Response:
        job = _job(request)
        if job is None:
            return error(404, f"no job {request.path_params['job']}")
        return JSONResponse({**job.to_json(), "events": job.events_from(0)})

    async def job_events(request: Request) -> Response:
        job = _job(request)
        if job is None:
            return error(404, f"no job {request.path_params['job']}")
        return StreamingResponse(_stream(job), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    async def _stream(job: Job) -> AsyncIterator[str]:
        sent, idle = 0, 0.0
        while True:
            events = job.events_from(sent)
            for event in events:
                yield f"event: {event['event']}\ndata: {json.dumps(event)}\n\n"
            sent += len(events)
            if job.finished and not job.events_from(sent):
                return
            if service.stopping.is_set() and not events:
                yield f"event: shutdown\ndata: {json.dumps({'job': job.id})}\n\n"
                return
            idle = 0.0 if events else idle + POLL_S
            if idle >= KEEPALIVE_S:
                idle = 0.0
                yield ": waiting\n\n"
            await asyncio.sleep(POLL_S)

    async def queue_state(request: Request) -> Response:
        return JSONResponse(service.queue_state())

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        service.start()
        try:
            yield
        finally:
            service.request_stop()
            await run_in_threadpool(service.join, 60.0)

    routes: list[Any] = [
        Route("/api/measure", measure, methods=["POST"]),
        Route("/api/jobs/{job:int}", job_state),
        Route("/api/jobs/{job:int}/events", job_events),
        Route("/api/queue", queue_state),
        Mount("/", app=_LiveFiles(site)),
    ]
    return Starlette(routes=routes, lifespan=lifespan,
                     middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))])
