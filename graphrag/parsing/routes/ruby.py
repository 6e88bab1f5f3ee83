"""Ruby's web frameworks: Sinatra (``get '/x' do ... end``: the block is the handler)."""

from __future__ import annotations

from collections.abc import Callable

from graphrag.parsing.routes import CalledRoute, CalledRoutes, RouteCall


def sinatra_route(call: RouteCall) -> CalledRoute | None:
    """Sinatra's ``get '/x' do ... end`` (no receiver, a path starting with "/")."""
    route = call.args[0] if call.args else None
    if call.receiver or not call.block or route is None or not route.startswith("/"):
        return None
    return CalledRoute(call.name.upper(), route, None)


def register(register: Callable[[str, CalledRoutes], object]) -> None:
    """The built-in registration hook (the same shape a plugin's entry point has)."""
    register("sinatra", CalledRoutes(("ruby",), ("get", "post", "put", "patch", "delete",
                                                 "head", "options"), sinatra_route))
