"""The browser's key: set once by the login form in an HttpOnly, SameSite=Strict session
cookie (gone when the browser session ends; never in a URL, never readable by scripts),
and turned into the caller's scope exactly as a ``Authorization: Bearer`` header is."""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response

from graphrag.server.operations import Scope

COOKIE = "graphrag_key"


def authorization_of(request: Request) -> str | None:
    """The cookie's key as the API's Authorization header value (None without one)."""
    key = request.cookies.get(COOKIE)
    return f"Bearer {key}" if key else None


def page_scope(request: Request, scope_for: Callable[[str | None], Scope]) -> Scope:
    """The scope of the browser's key (raises the API's ``Unauthorized``)."""
    return scope_for(authorization_of(request))


def remember(response: Response, key: str, secure: bool) -> None:
    """Keep ``key`` for this browser session."""
    response.set_cookie(COOKIE, key, httponly=True, samesite="strict", secure=secure,
                        path="/")


def forget(response: Response) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")


def safe_next(value: str | None) -> str:
    """A local path to go back to after logging in (anything else: the search page)."""
    if value and value.startswith("/") and not value.startswith("//") and "\\" not in value:
        return value
    return "/"


def cross_site(request: Request) -> bool:
    """A form posted from another site (its ``Origin`` is not this server's): refused, so
    another page cannot log this browser in with a key of its own choosing."""
    origin = request.headers.get("origin")
    return bool(origin) and origin != f"{request.url.scheme}://{request.url.netloc}"
