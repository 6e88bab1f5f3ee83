"""Python's web frameworks: FastAPI (``@app.get("/x")``, ``@router.api_route``) and
Flask (``@bp.route("/x", methods=[...])``), routes declared by a decorator call."""

from __future__ import annotations

from collections.abc import Callable

from graphrag.parsing.routes import CalledRoute, CalledRoutes, RouteCall

_HTTP_VERBS = {"get", "post", "put", "delete", "patch", "head", "options"}


def decorator_route(call: RouteCall) -> CalledRoute | None:
    """FastAPI's ``@app.get("/x")``, ``@router.api_route("/x", methods=[...])`` and
    Flask's ``@bp.route("/x", methods=[...])``. ``@cache.get("key")`` is no route:
    routes start with "/" unless the receiver is a router of this module
    (``@router.get("")`` is the prefix itself)."""
    if call.args:
        route = call.args[0]
    else:
        path = call.keyword("path") or call.keyword("rule")
        route = path[0] if path else None
    if route is None or not (route.startswith("/") or call.local_router):
        return None
    if call.name in _HTTP_VERBS:
        return CalledRoute(call.name.upper(), route, None)
    listed = call.keyword("methods")
    methods = [m for m in (listed[1] or ()) if m] if listed else []
    return CalledRoute(",".join(m.upper() for m in methods) or "GET", route, None)


def register(register: Callable[[str, CalledRoutes], object]) -> None:
    """The built-in registration hook (the same shape a plugin's entry point has)."""
    register("fastapi", CalledRoutes(("python",), ("get", "post", "put", "delete", "patch",
                                                  "head", "options", "api_route"),
                                      decorator_route))
    register("flask", CalledRoutes(("python",), ("route",), decorator_route))
