"""PHP's web frameworks: Symfony's ``#[Route]`` attributes (or ``@Route`` doc-comment
annotations) on a controller and its methods, and the verb routes of Laravel
(``Route::get('/x', h)``, ``any``, ``match``) and Slim (``$app->get``)."""

from __future__ import annotations

from collections.abc import Callable

from graphrag.parsing.routes import (
    CalledRoute,
    CalledRoutes,
    DeclaredRoutes,
    Endpoint,
    RouteCall,
    RouteFramework,
    RouteSite,
    join_segments,
)

# the receivers of Laravel's (``Route::get``, ``$router->get``) and Slim's (``$app->get``) routes
_ROUTERS = ("route", "router", "app")


def symfony_endpoint(site: RouteSite) -> Endpoint | None:
    """Symfony's ``#[Route('/x', methods: ['GET'])]`` on a controller method, joined to
    the class's ``#[Route('/prefix')]``; no ``methods`` means any."""
    route = next((a for a in site.method if a.name == "Route"), None)
    if route is None:
        return None
    path = route.first("", "path")
    if path is None:
        return None
    prefix = next((a.first("", "path") for a in site.cls if a.name == "Route"), None) or ""
    methods = [m.upper() for m in route.args.get("methods", [])]
    return ",".join(methods) or "ANY", join_segments(prefix, path)


def laravel_route(call: RouteCall) -> CalledRoute | None:
    """Laravel's ``Route::get('/x', h)``, ``Route::any``, ``Route::match(['get',
    'post'], '/x', h)`` (and Slim's ``$app->get``)."""
    if len(call.receiver) != 1 or call.receiver[0].lower() not in _ROUTERS:
        return None
    if call.name == "match":
        if len(call.args) < 3 or call.args[1] is None:
            return None
        methods = [(m or "").upper() for m in (call.items[0] or ())]
        return CalledRoute(",".join(methods), call.args[1], 2) \
            if methods and all(methods) else None
    if len(call.args) < 2 or call.args[0] is None:
        return None
    return CalledRoute("ANY" if call.name == "any" else call.name.upper(), call.args[0], 1)


def register(register: Callable[[str, RouteFramework], object]) -> None:
    """The built-in registration hook (the same shape a plugin's entry point has)."""
    register("symfony", DeclaredRoutes(("php",), symfony_endpoint))
    register("laravel", CalledRoutes(("php",), ("get", "post", "put", "patch", "delete",
                                                 "options", "head", "any", "match"),
                                      laravel_route))
