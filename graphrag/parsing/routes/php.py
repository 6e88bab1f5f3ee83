"""PHP's web frameworks: Symfony's ``#[Route]`` attributes (or ``@Route`` doc-comment
annotations) on a controller and its methods; Laravel's verb routes (``Route::get('/x',
h)``, ``any``, ``match``; ``'C@m'`` handlers in the default controller namespace),
``Route::resource``/``apiResource`` (``->only``/``->except``), groups
(``Route::prefix('x')->controller(C::class)->group(fn)``, ``Route::group(['prefix' =>
'x'], fn)``) and ``routes/api.php`` served under ``/api``; Slim's ``$app->get``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from graphrag.parsing.routes import (
    CalledRoute,
    CalledRoutes,
    DeclaredRoutes,
    Endpoint,
    RouteCall,
    RouteFramework,
    Router,
    RouteSite,
    join_segments,
    singular,
)

# the receivers of Laravel's (``Route::get``, ``$router->get``) and Slim's (``$app->get``) routes
_ROUTERS = ("route", "router", "app")
# where a ``'Controller@method'`` handler's class is when the string names no namespace
_CONTROLLERS = "\\App\\Http\\Controllers\\"
# Laravel's resource actions: (action, method, path after the resource, needs the id).
_RESOURCE_ACTIONS = (
    ("index", "GET", "", False), ("create", "GET", "/create", False),
    ("store", "POST", "", False), ("show", "GET", "", True),
    ("edit", "GET", "/edit", True), ("update", "PUT,PATCH", "", True),
    ("destroy", "DELETE", "", True),
)
_API_ACTIONS = frozenset({"index", "store", "show", "update", "destroy"})


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


def _is_router(call: RouteCall) -> bool:
    return len(call.receiver) == 1 and call.receiver[0].lower() in _ROUTERS


def laravel_route(call: RouteCall) -> CalledRoute | None:
    """Laravel's ``Route::get('/x', h)``, ``Route::any``, ``Route::match(['get',
    'post'], '/x', h)`` (and Slim's ``$app->get``)."""
    if not _is_router(call):
        return None
    if call.name == "match":
        if len(call.args) < 3 or call.args[1] is None:
            return None
        methods = [(m or "").upper() for m in (call.items[0] or ())]
        return _named_handler(CalledRoute(",".join(methods), call.args[1], 2), call) \
            if methods and all(methods) else None
    if len(call.args) < 2 or call.args[0] is None:
        return None
    return _named_handler(
        CalledRoute("ANY" if call.name == "any" else call.name.upper(), call.args[0], 1), call)


def _named_handler(route: CalledRoute, call: RouteCall) -> CalledRoute:
    """``'UserController@show'``: method ``show`` of a class in the default controller
    namespace (or the namespace the string gives)."""
    slot = route.handler if isinstance(route.handler, int) else None
    text = call.args[slot] if slot is not None and slot < len(call.args) else None
    if not text or "@" not in text:
        return route
    cls, _, action = text.partition("@")
    return replace(route, action=action,
                   controller=cls if "\\" in cls else _CONTROLLERS + cls)


def laravel_resource(call: RouteCall) -> list[CalledRoute] | None:
    """``Route::resource('photos', PhotoController::class)`` (``apiResource`` without
    the form pages; ``'photos.comments'`` nested under ``{photo}``): the controller's
    resource actions, filtered by a chained ``->only([...])``/``->except([...])``."""
    if not _is_router(call) or len(call.texts) < 2 or not call.args[0]:
        return None
    only: set[str] = set()
    except_: set[str] = set()
    for chained in call.chained:
        values = {v for v in (chained.items[0] if chained.items and chained.items[0]
                              is not None else chained.args) if v}
        if chained.name == "only":
            only |= values
        elif chained.name == "except":
            except_ |= values
    *outer, last = call.args[0].split(".")
    base = ""
    for name in outer:
        base = join_segments(base, name, "{" + singular(name) + "}")
    path = join_segments(base, last)
    param = "{" + singular(last) + "}"
    api = call.name == "apiresource"
    return [CalledRoute(method, (join_segments(path, param) if with_id else path) + tail, 1,
                        action=action)
            for action, method, tail, with_id in _RESOURCE_ACTIONS
            if not ((api and action not in _API_ACTIONS) or (only and action not in only)
                    or action in except_)]


def laravel_group(call: RouteCall) -> Router:
    """``Route::prefix('x')->controller(C::class)->group(fn)`` / ``Route::group(['prefix'
    => 'x'], fn)``: the routes the closure registers get the prefix, and name methods
    of the controller."""
    given = call.keyword("prefix")
    prefix = (given[0] if given else None) or ""
    controller = None
    for inner in call.base:
        name = inner.name.lower()
        if name == "prefix" and inner.texts:
            prefix = join_segments(inner.args[0] or "", prefix)
        elif name == "controller" and inner.texts:
            controller = inner.texts[0]
    return Router(prefix, controller)


def register(register: Callable[[str, RouteFramework], object]) -> None:
    """The built-in registration hook (the same shape a plugin's entry point has)."""
    register("symfony", DeclaredRoutes(("php",), symfony_endpoint))
    register("laravel", CalledRoutes(("php",), ("get", "post", "put", "patch", "delete",
                                                 "options", "head", "any", "match"),
                                      laravel_route, (("routes/api.php", "/api"),)))
    register("laravel-resources", CalledRoutes(("php",), ("resource", "apiresource"),
                                                laravel_resource))
    register("laravel-groups", CalledRoutes(("php",), ("group",), laravel_group))
