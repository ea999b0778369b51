"""What every request passes before the app sees it: its Host, its origin, its content type, its size.

:class:`Guard` is plain ASGI middleware in front of the FastAPI app. It refuses, with a
JSON ``{"error": ...}`` body like every other refusal of the server:

* a ``Host`` header that is not one of the server's names (400): a page on another
  site that got its name pointed at this machine (DNS rebinding) reaches nothing;
* a state-changing request (POST) whose ``Origin`` is another site (403), or that is not
  JSON (``application/json``; uploads ``application/x-ndjson``; 415): a cross-site form
  can send neither without the browser asking first, and no CORS header ever allows it;
* a body larger than the path's limit (413): a ``Content-Length`` over it is refused
  before a byte is read, a body without one is read in chunks only up to the limit;
* a JSON body that is not JSON within :mod:`president_env.core.jsonio`'s limits (400);
* a client (an address) with ``in_flight`` requests in progress already (429): one client
  cannot take every worker of the server;
* a request that would take the memory of the requests in progress past ``busy_bytes``
  (503, with ``Retry-After``): every request counts ``request_bytes`` while it is handled
  (its body and the answer being built), an upload ``upload_factor`` times its body (its
  ``Content-Length``, or the limit when it has none), counted before a byte is read. So the
  requests of many clients together cannot take the server's memory, whatever each sends.

The body read is handed to the app, so the app never reads more than the limit either.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from president_env.core.jsonio import JSONInputError, loads

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

JSON = "application/json"
NDJSON = "application/x-ndjson"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def host_name(value: str) -> str:
    """The host of a ``Host`` header or an origin's authority, without the port, lower case."""
    value = value.strip().lower()
    if value.startswith("["):                       # [::1]:8000
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class Guard:
    """ASGI middleware: the checks of this module (``upload_path``: the one path that takes records text)."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str], body_bytes: int, upload_bytes: int,
                 upload_path: str, in_flight: int = 8, busy_bytes: int = 128 << 20, request_bytes: int = 2 << 20,
                 upload_factor: int = 4) -> None:
        self.app = app
        self.allowed = frozenset(host_name(h) for h in allowed_hosts)
        self.body_bytes, self.upload_bytes, self.upload_path = body_bytes, upload_bytes, upload_path
        self.in_flight = in_flight
        self.busy_bytes, self.request_bytes, self.upload_factor = busy_bytes, request_bytes, upload_factor
        self._busy: dict[str, int] = {}   # requests in progress by client (touched only on the event loop)
        self.held = 0                     # bytes counted for the requests in progress (on the event loop)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = (scope.get("client") or ("unknown", 0))[0]
        if self._busy.get(client, 0) >= self.in_flight:
            await _refuse(send, 429, f"{self.in_flight} requests of yours are in progress already; wait for them")
            return
        self._busy[client] = self._busy.get(client, 0) + 1
        try:
            await self._checked(scope, receive, send)
        finally:
            self._busy[client] -= 1
            if not self._busy[client]:
                del self._busy[client]

    async def _checked(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if host_name(host) not in self.allowed:
            await _refuse(send, 400, f"Host {host[:100]!r} is not a name of this server; it answers to "
                                     f"{', '.join(sorted(self.allowed))} (president serve --allowed-host)")
            return
        cost = self.request_bytes
        if scope["method"] in WRITE_METHODS and scope["path"] == self.upload_path:
            length = headers.get("content-length", "")
            size = int(length) if length.isdigit() and int(length) <= self.upload_bytes else self.upload_bytes
            cost = max(cost, self.upload_factor * size)
        if self.held + cost > self.busy_bytes:
            await _refuse(send, 503, f"the server is busy: the requests in progress hold "
                                     f"{self.held / 2**20:.0f} MiB of its {self.busy_bytes / 2**20:.0f} MiB for "
                                     "requests; try again in a moment", retry_after=1)
            return
        self.held += cost
        try:
            await self._admitted(scope, receive, send, headers, host)
        finally:
            self.held -= cost

    async def _admitted(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str],
                        host: str) -> None:
        if scope["method"] not in WRITE_METHODS:
            await self.app(scope, receive, send)
            return
        origin = headers.get("origin")
        if origin is not None and origin not in (f"http://{host}", f"https://{host}"):
            await _refuse(send, 403, f"a request from the page of another site ({origin[:100]}) is refused")
            return
        upload = scope["path"] == self.upload_path
        want = NDJSON if upload else JSON
        media = headers.get("content-type", "").split(";")[0].strip().lower()
        if media != want:
            await _refuse(send, 415, f"send the body as {want} (Content-Type), not "
                                     + (repr(media[:60]) if media else "without a Content-Type"))
            return
        limit = self.upload_bytes if upload else self.body_bytes
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            await _refuse(send, 413, _too_large(upload, limit))
            return
        body = await _read_body(receive, limit)
        if body is None:
            await _refuse(send, 413, _too_large(upload, limit))
            return
        if not upload and body:
            try:
                loads(body)
            except JSONInputError as e:
                await _refuse(send, 400, f"request body: {e}")
                return
        await self.app(scope, _replay(body, receive), send)


def _too_large(upload: bool, limit: int) -> str:
    what = "a records file" if upload else "a request body"
    return f"{what} may take at most {limit:,} bytes ({limit / 2**20:.2f} MiB); this one is larger"


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The request body, read in the chunks the server gives; None as soon as it passes ``limit``."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"".join(chunks)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the app the body already read, then waits on the real one (for a disconnect)."""
    sent = False

    async def again() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


async def _refuse(send: Send, status: int, message: str, retry_after: int | None = None) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
