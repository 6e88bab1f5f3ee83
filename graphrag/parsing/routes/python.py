"""Python's web frameworks: FastAPI (``@app.get("/x")``, ``@router.api_route``,
``router.add_api_route``, ``APIRouter(prefix=)``, ``include_router``, ``Depends``) and
Flask (``@bp.route("/x", methods=[...])``, ``add_url_rule``, ``Blueprint(url_prefix=)``,
``register_blueprint``)."""

from __future__ import annotations

from collections.abc import Callable

from graphrag.parsing.routes import (
    CalledRoute,
    CalledRoutes,
    CallFact,
    Injected,
    Mount,
    RouteCall,
    Router,
)

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


def _methods(call: RouteCall) -> str:
    listed = call.keyword("methods")
    return ",".join(m.upper() for m in (listed[1] or ()) if m) if listed else ""


def added_route(call: RouteCall) -> CalledRoute | None:
    """FastAPI's ``router.add_api_route("/x", handler, methods=["POST"])`` and Flask's
    ``app.add_url_rule("/x", "name", view_func=handler, methods=[...])``."""
    if call.texts:
        route = call.args[0]
    else:
        path = call.keyword("path") or call.keyword("rule")
        route = path[0] if path else None
    if route is None:
        return None
    slot, keyword = (1, "endpoint") if call.name == "add_api_route" else (2, "view_func")
    return CalledRoute(_methods(call) or "GET", route,
                       slot if len(call.texts) > slot else keyword)


def router_or_mount(call: RouteCall) -> CallFact | None:
    """``APIRouter(prefix="/p")`` / ``Blueprint(..., url_prefix="/p")`` make a router;
    ``include_router(r, prefix=)`` / ``register_blueprint(bp, url_prefix=)`` mount one
    (Flask's prefix replaces the blueprint's own)."""
    keyword = "prefix" if call.name in ("APIRouter", "include_router") else "url_prefix"
    given = call.keyword(keyword)
    prefix = given[0] if given else None
    if call.name in ("APIRouter", "Blueprint"):
        return Router(prefix or "")
    flask = call.name == "register_blueprint"
    slot = 0 if call.texts else "blueprint" if flask else "router"
    return Mount(slot, prefix, replaces_base=flask and prefix is not None)


def dependency(call: RouteCall) -> Injected | None:
    """FastAPI's ``Depends(get_service)``: the framework calls ``get_service`` for the
    endpoint."""
    return Injected(0) if call.texts else None


def fastapi_call(call: RouteCall) -> CallFact | None:
    """FastAPI's routers, mounts, added routes and dependencies."""
    if call.name == "Depends":
        return dependency(call)
    return added_route(call) if call.name == "add_api_route" else router_or_mount(call)


def flask_call(call: RouteCall) -> CallFact | None:
    """Flask's blueprints, their mounts and added rules."""
    return added_route(call) if call.name == "add_url_rule" else router_or_mount(call)


def register(register: Callable[[str, CalledRoutes], object]) -> None:
    """The built-in registration hook (the same shape a plugin's entry point has)."""
    register("fastapi", CalledRoutes(("python",), ("get", "post", "put", "delete", "patch",
                                                  "head", "options", "api_route"),
                                      decorator_route, block_only=True))
    register("flask", CalledRoutes(("python",), ("route",), decorator_route, block_only=True))
    register("fastapi-routers", CalledRoutes(
        ("python",), ("APIRouter", "include_router", "add_api_route", "Depends"), fastapi_call))
    register("flask-blueprints", CalledRoutes(
        ("python",), ("Blueprint", "register_blueprint", "add_url_rule"), flask_call))
