"""Rust's web frameworks: axum's routers (``Router::new().route("/x", get(h).post(p))``,
``on(MethodFilter::GET, h)``, ``nest``, ``nest_service``, ``merge``) and actix-web's
route attributes (``#[get("/x")]``, ``#[route("/x", method = "GET")]``) and builders
(``web::resource("/x").route(web::get().to(h))``, ``.to(h)``, ``web::scope("/api")``)."""

from __future__ import annotations

from collections.abc import Callable

from graphrag.parsing.routes import (
    CalledRoute,
    CalledRoutes,
    CallFact,
    DeclaredRoutes,
    Endpoint,
    Mount,
    RouteCall,
    Router,
    RouteSite,
)

_HTTP_VERBS = {"get", "post", "put", "delete", "patch", "head", "options", "trace",
               "connect"}
_ANY_VERBS = {"any", "route"}
# Router calls that pass the routes built in their arguments through unchanged.
_PASSTHROUGH = {"layer", "route_layer", "with_state", "wrap", "guard", "app_data",
                "fallback", "data"}


def actix_endpoint(site: RouteSite) -> Endpoint | None:
    """The first route attribute of a function with a literal path."""
    for ann in site.method:
        if ann.name not in _HTTP_VERBS and ann.name != "route":
            continue
        path = ann.first("")
        if path is None:
            continue
        if ann.name != "route":
            return ann.name.upper(), path
        found = [m.upper() for m in ann.args.get("method", []) if m]
        return (",".join(found) if found else "ANY"), path
    return None


def _chain(call: RouteCall) -> list[RouteCall]:
    """A builder chain, its root first: ``[get(h), post(p)]`` of ``get(h).post(p)``."""
    return [*reversed(call.base), call]


def _verb_of(call: RouteCall | None) -> str | None:
    """``GET`` for a method builder called bare (actix's ``web::get()``)."""
    if call is None or not call.function or call.texts:
        return None
    return call.name.upper() if call.name in _HTTP_VERBS else \
        "ANY" if call.name in _ANY_VERBS else None


def _method_router(chain: list[RouteCall]) -> list[CalledRoute]:
    """(method, handler) of a method router, as routes without a path yet: axum's
    ``get(h).post(p)``, ``on(MethodFilter::GET, h)``, actix's ``web::get().to(h)``."""
    if not chain:
        return []
    call = chain[-1]
    if call.function:
        if call.name in _HTTP_VERBS and len(call.texts) == 1:
            return [CalledRoute(call.name.upper(), "", 0, of=call)]
        if call.name == "any" and len(call.texts) == 1:
            return [CalledRoute("ANY", "", 0, of=call)]
        if call.name == "on" and len(call.texts) == 2:
            verb = call.texts[0].rsplit("::", 1)[-1].upper()
            return [CalledRoute(verb if verb.lower() in _HTTP_VERBS else "ANY", "", 1, of=call)]
        return []
    if len(chain) < 2:
        return []
    if call.name in _HTTP_VERBS and len(call.texts) == 1:
        return [*_method_router(chain[:-1]), CalledRoute(call.name.upper(), "", 0, of=call)]
    if call.name == "to" and len(call.texts) == 1:
        verb = _verb_of(chain[-2])
        return [CalledRoute(verb, "", 0, of=call)] if verb is not None else []
    if call.name in _PASSTHROUGH:
        return _method_router(chain[:-1])
    return []


def _resource_path(call: RouteCall) -> str | None:
    """Path of an actix ``web::resource("/x")`` at the root of the receiver chain."""
    root = call.base[-1] if call.base else None
    if root is not None and root.function and root.name == "resource":
        return root.args[0] if root.texts else None
    return None


def _routes(path: str, router: RouteCall | None) -> list[CalledRoute]:
    chain = _chain(router) if router is not None else []
    return [CalledRoute(r.method, path, r.handler, of=r.of) for r in _method_router(chain)]


def builder_call(call: RouteCall) -> CallFact | list[CalledRoute] | None:
    """A call of a router builder: ``.route("/x", <method router>)``, actix's
    ``resource("/x").route(<method router>)`` and ``resource("/x").to(h)``, the mounts
    ``.nest("/api", r)``/``.merge(r)``, and actix's ``web::scope("/api")`` router."""
    if call.function:
        return Router(call.args[0]) if call.name == "scope" and call.texts \
            and call.args[0] is not None else None
    args = call.texts
    if call.name == "route" and len(args) == 2:
        return _routes(call.args[0], call.arg_call(1)) if call.args[0] is not None else None
    if call.name == "route" and len(args) == 1:
        path = _resource_path(call)
        return _routes(path, call.arg_call(0)) if path is not None else None
    if call.name == "to" and len(args) == 1 and call.base:
        path = _resource_path(call)
        if path is not None and _verb_of(call.base[0]) is None:
            return [CalledRoute("ANY", path, 0)]
        return None
    if call.name in ("nest", "nest_service") and len(args) == 2:
        return Mount(1, call.args[0]) if call.args[0] is not None else None
    if call.name == "merge" and len(args) == 1:
        return Mount(0, "")
    return None


def register(register: Callable[[str, DeclaredRoutes], object]) -> None:
    """The built-in registration hook (the same shape a plugin's entry point has)."""
    register("actix-web", DeclaredRoutes(("rust",), actix_endpoint))
    register("axum/actix-web builders", CalledRoutes(
        ("rust",), ("route", "to", "nest", "nest_service", "merge", "scope"), builder_call))
