"""Pure ASGI middleware at the server's edge, before any route runs:

- :class:`LoopbackGuard` (``--no-auth`` only): a request must name a loopback host and
  must not come from another site's page (``Origin``, ``Sec-Fetch-Site``). Without keys a
  page the user visits could otherwise post to the server (a cross-site form) or reach
  it under its own name (DNS rebinding).
- :class:`BodyLimit`: a request body is counted as it streams, with or without a
  ``Content-Length``; past the limit the answer is 413 and no more of it is read.
  (Starlette's own limiter answers in plain text, not in the error shape.)
- :class:`Failsafe`: an unexpected exception is answered 500 (or 503 for a lost
  database) in the JSON error shape, and the keep-alive connection stays open.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphrag.db.engine import lost_database
from graphrag.errors import size_text
from graphrag.server.errors import error_body

log = logging.getLogger("graphrag.server")
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1")
            for k, v in scope.get("headers", [])}


def host_name(host: str) -> str:
    """The name part of a ``Host`` header (``[::1]:8000`` -> ``::1``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def refusal(headers: dict[str, str]) -> str | None:
    """Why a request to a loopback server without keys is refused, or None."""
    host = headers.get("host")
    if host is not None and host_name(host) not in LOOPBACK_NAMES:
        return f"host {host!r} is not a loopback name (the server runs without keys)"
    if headers.get("sec-fetch-site", "").lower() == "cross-site":
        return "cross-site requests are refused (the server runs without keys)"
    origin = headers.get("origin")
    if origin is not None:
        parts = urlsplit(origin.strip().lower())
        if parts.scheme not in ("http", "https") or parts.netloc != (host or "").lower():
            return (f"origin {origin!r} is not this server's (the server runs without"
                    " keys)")
    return None


class LoopbackGuard:
    """403 for a request of another site, or naming a host other than a loopback name."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            reason = refusal(_headers(scope))
            if reason is not None:
                await JSONResponse(error_body("forbidden", reason), status_code=403)(
                    scope, receive, send)
                return
        await self.app(scope, receive, send)


class BodyTooLarge(Exception):
    """Raised by the counting ``receive`` once a body passed its limit."""


class BodyLimit:
    """413 for a body over its limit (``limit_of(scope)`` bytes): at once when its
    ``Content-Length`` says so, else as soon as the bytes received pass it; whatever the
    application answers then (a parse error of the cut body) is replaced by the 413."""

    def __init__(self, app: ASGIApp, limit_of: Callable[[Scope], int]) -> None:
        self.app, self.limit_of = app, limit_of

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_of(scope)
        refusal = JSONResponse(error_body("too_large", f"request body too large (limit"
                                          f" {size_text(limit)})"), status_code=413)
        length = _headers(scope).get("content-length", "")
        if length.isdigit() and int(length) > limit:
            await refusal(scope, receive, send)
            return
        seen, over, answered = 0, False, False

        async def counted() -> Message:
            nonlocal seen, over
            if over:  # never read past the limit
                raise BodyTooLarge()
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    over = True
                    raise BodyTooLarge()
            return message

        async def answer(message: Message) -> None:
            nonlocal answered
            if not over:
                await send(message)
            elif not answered:
                answered = True
                await refusal(scope, receive, send)

        try:
            await self.app(scope, counted, answer)
        except Exception:
            if not over:
                raise
        if over and not answered:
            await refusal(scope, receive, send)


class Failsafe:
    """The last handler: an exception no route handled becomes the JSON error shape (503
    when the database went away, else 500, logged) instead of a dropped connection."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            if started:
                raise
            lost = lost_database(exc)
            status: int
            body: dict[str, Any]
            if lost is not None:
                status, body = 503, error_body("database_unavailable", lost)
            else:
                log.exception("unexpected error")
                status = 500
                body = error_body("internal", f"internal error: {type(exc).__name__}")
            await JSONResponse(body, status_code=status)(scope, receive, send)
