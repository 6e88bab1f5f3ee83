"""Vapor (Swift): ``app.get("x", ":id") { req in ... }`` (the trailing closure is the
handler), ``use: handler``, ``on(.GET, "x")``, and ``grouped("api", "v1")`` builders;
``app`` and ``routes`` (``boot(routes:)`` of a ``RouteCollection``) are routers."""

from __future__ import annotations

from collections.abc import Callable

from graphrag.parsing.routes import CalledRoute, CalledRoutes, RouteCall, Router, join_segments

_VERBS = ("get", "post", "put", "patch", "delete", "on")


def vapor_route(call: RouteCall) -> CalledRoute | None:
    """A route on a builder (or on ``app``/``routes``): its path segments, the method
    (``on``'s first argument), the ``use:`` handler or the trailing closure."""
    if not call.local_router and call.receiver not in (("app",), ("routes",)):
        return None
    method = call.name.upper()
    segments: list[str] = []
    for literal, text in zip(call.args, call.texts, strict=True):
        if literal is None:
            if call.name == "on" and text.startswith("."):
                method = text.lstrip(".").upper()
                continue
            return None
        segments.append(literal)
    return CalledRoute(method, join_segments(*segments),
                       "use" if call.keyword("use") is not None else None)


def vapor_group(call: RouteCall) -> Router | None:
    """``grouped("api", "v1")``: a builder whose routes get ``/api/v1``."""
    if any(a is None for a in call.args):
        return None
    return Router(join_segments(*call.args))


def register(register: Callable[[str, CalledRoutes], object]) -> None:
    """The built-in registration hook (the same shape a plugin's entry point has)."""
    register("vapor", CalledRoutes(("swift",), _VERBS, vapor_route))
    register("vapor-groups", CalledRoutes(("swift",), ("grouped",), vapor_group))
