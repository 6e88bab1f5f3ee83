"""Express (JavaScript and TypeScript): ``app.get('/x', ...handlers)``, the chain
``app.route('/x').get(h).post(h2)``, ``app.use('/prefix', router)`` mounts and the
routers ``express()``, ``Router()`` and ``express.Router()`` make."""

from __future__ import annotations

from collections.abc import Callable

from graphrag.parsing.routes import CalledRoute, CalledRoutes, CallFact, Mount, RouteCall, Router

_VERBS = ("get", "post", "put", "delete", "patch", "all", "options", "head")
_FACTORIES = {("express", ()), ("Router", ()), ("Router", ("express",))}


def _is_router(call: RouteCall) -> bool:
    """A receiver this file makes a router of, or one named like a router (``app``,
    ``router``, ``usersRouter``)."""
    last = call.receiver[-1] if call.receiver else ""
    return call.local_router or last in ("app", "router") or last.endswith("Router")


def _route_path(call: RouteCall) -> tuple[str | None, int] | None:
    """(path, arguments before the handlers): the first argument, or in a chain
    ``app.route('/x').get(h)`` the argument of ``route()``; None when the chain holds
    another call."""
    for inner in call.base:
        if inner.name == "route" and call.name != "use":
            return (inner.args[0], 0) if len(inner.args) == 1 else None
        if inner.name not in _VERBS:
            return None
    return (call.args[0] if call.args else None), 1


def express_call(call: RouteCall) -> CallFact | None:
    """A router made, a route registered (the handler is the last argument, the ones
    between are middleware) or a router (or middleware) mounted by ``use``."""
    if call.name in ("express", "Router"):
        return Router() if (call.name, call.receiver) in _FACTORIES and not call.base \
            else None
    if not call.receiver or not _is_router(call):
        return None
    found = _route_path(call)
    if found is None:
        return None
    path, before = found
    if call.name == "use":
        return Mount(1, path, spread=True) if path is not None else Mount(0, spread=True)
    if len(call.args) + (1 - before) < 2 or path is None:
        return None  # `app.get('env')` reads a setting
    return CalledRoute("ANY" if call.name == "all" else call.name.upper(), path, -1)


def register(register: Callable[[str, CalledRoutes], object]) -> None:
    """The built-in registration hook (the same shape a plugin's entry point has)."""
    register("express", CalledRoutes(("javascript", "typescript", "tsx"),
                                      (*_VERBS, "use", "express", "Router"), express_call))
