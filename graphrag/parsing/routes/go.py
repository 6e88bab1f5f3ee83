"""Go's routers registered by calls: net/http's ``ServeMux`` (Go 1.22 patterns),
gorilla/mux (``.Methods(...)`` chained on the registration, ``PathPrefix("/p")
.Subrouter()``) and chi (``r.Get``, ``r.Route("/p", func(r chi.Router) {...})``)."""

from __future__ import annotations

from collections.abc import Callable

from graphrag.parsing.routes import CalledRoute, CalledRoutes, RouteCall, Router

_HTTP_METHODS = {"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "CONNECT",
                 "TRACE"}


def parse_pattern(pattern: str) -> tuple[str, str]:
    """Go 1.22 ServeMux pattern -> (method, route): ``"GET /x"`` -> ``("GET", "/x")``,
    ``"/x"`` -> ``("ANY", "/x")``; a host part before the path is dropped."""
    method, route = "ANY", pattern.strip()
    head, _, rest = route.partition(" ")
    if rest and head.upper() in _HTTP_METHODS:
        method, route = head.upper(), rest.strip()
    if not route.startswith("/") and "/" in route:
        route = route[route.index("/"):]
    return method, route


def _route_args(call: RouteCall) -> str | None:
    """The pattern of a ``(pattern, handler)`` registration, else None."""
    return call.args[0] if len(call.args) == 2 else None


def _handler(method: str, route: str, call: RouteCall) -> CalledRoute:
    """The route with its handler, the second argument: the function a
    ``http.HandlerFunc(h)`` conversion there converts."""
    wrapped = call.arg_call(1)
    if wrapped is not None and wrapped.name == "HandlerFunc" and len(wrapped.texts) == 1:
        return CalledRoute(method, route, 0, of=wrapped)
    return CalledRoute(method, route, 1)


def nethttp_route(call: RouteCall) -> CalledRoute | None:
    """net/http ``mux.HandleFunc("GET /x", h)`` (Go 1.22 patterns)."""
    pattern = _route_args(call)
    if pattern is None:
        return None
    method, route = parse_pattern(pattern)
    return _handler(method, route, call)


def chi_route(call: RouteCall) -> CalledRoute | None:
    """chi ``r.Get("/x", h)``: the verb is the method; the path must start with "/"."""
    pattern = _route_args(call)
    if pattern is None or not pattern.startswith("/"):
        return None
    return _handler(call.name.upper(), parse_pattern(pattern)[1], call)


def gorilla_route(call: RouteCall) -> CalledRoute | None:
    """gorilla/mux ``r.HandleFunc("/x", h).Methods("GET", "POST")``."""
    pattern = _route_args(call)
    methods = next((c for c in call.chained if c.name == "Methods"), None)
    if pattern is None or methods is None:
        return None
    found = [m.upper() for m in map(_method_name, methods.args, methods.texts) if m]
    return _handler(",".join(found), parse_pattern(pattern)[1], call) if found else None


def _method_name(literal: str | None, text: str) -> str | None:
    """``"GET"`` or the net/http constant ``http.MethodGet``."""
    if literal is not None:
        return literal
    field = text.rpartition(".")[2]
    name = field[len("Method"):].upper() if field.startswith("Method") else ""
    return name if name in _HTTP_METHODS else None


def gorilla_subrouter(call: RouteCall) -> Router | None:
    """gorilla/mux ``r.PathPrefix("/api").Subrouter()``: a router under ``/api``."""
    inner = call.base[0] if call.base else None
    if inner is None or inner.name != "PathPrefix" or len(inner.args) != 1 \
            or inner.args[0] is None:
        return None
    return Router(inner.args[0])


def chi_group(call: RouteCall) -> Router | None:
    """chi ``r.Route("/p", func(r chi.Router) {...})``: the routes the closure registers
    are under ``/p``."""
    if len(call.args) != 2 or call.args[0] is None:
        return None
    return Router(call.args[0])


def register(register: Callable[[str, CalledRoutes], object]) -> None:
    """The built-in registration hook (the same shape a plugin's entry point has)."""
    # before net/http: the same call, with the methods chained on it
    register("gorilla/mux", CalledRoutes(("go",), ("HandleFunc", "Handle"), gorilla_route))
    register("net/http", CalledRoutes(("go",), ("HandleFunc", "Handle"), nethttp_route))
    register("gorilla/mux-subrouters", CalledRoutes(("go",), ("Subrouter",),
                                                    gorilla_subrouter))
    register("chi", CalledRoutes(("go",), ("Get", "Post", "Put", "Delete", "Patch", "Head",
                                           "Options", "Connect", "Trace"), chi_route))
    register("chi-groups", CalledRoutes(("go",), ("Route",), chi_group))
