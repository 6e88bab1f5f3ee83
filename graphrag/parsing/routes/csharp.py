"""ASP.NET Core: attribute routing on controllers (``[Route]``, ``[HttpGet("{id}")]``
with the ``[controller]``/``[action]`` tokens) and minimal APIs (``app.MapGet``,
``app.MapGroup("/api")``)."""

from __future__ import annotations

import re
from collections.abc import Callable

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
)

_HTTP_ATTRIBUTES = {
    "HttpGet": "GET", "HttpPost": "POST", "HttpPut": "PUT", "HttpDelete": "DELETE",
    "HttpPatch": "PATCH", "HttpHead": "HEAD", "HttpOptions": "OPTIONS",
}


def aspnet_endpoint(site: RouteSite) -> Endpoint | None:
    """An ASP.NET Core controller action: ``[HttpGet("{id}")]``... or ``[Route]`` +
    ``[AcceptVerbs]``/``[HttpX]`` under the controller's ``[Route]`` prefix, with the
    ``[controller]`` and ``[action]`` tokens replaced; a template starting with ``/`` or
    ``~/`` ignores the prefix."""
    methods: list[str] = []
    template: str | None = None
    for ann in site.method:
        if ann.name in _HTTP_ATTRIBUTES:
            methods.append(_HTTP_ATTRIBUTES[ann.name])
            value = ann.first("", "template", "Template")
            if value is not None and template is None:
                template = value
        elif ann.name == "AcceptVerbs":
            methods.extend(v.upper() for v in ann.args.get("", []))
        elif ann.name == "Route" and template is None:
            template = ann.first("", "template", "Template")
    if not methods and not any(a.name == "Route" for a in site.method):
        return None
    prefix = next((a.first("", "template", "Template") for a in reversed(site.cls)
                   if a.name == "Route"), None)
    if template is not None and template.startswith(("/", "~/")):
        prefix = None
        template = template.lstrip("~")
    route = join_segments(prefix, template)
    controller = site.class_name.removesuffix("Controller")
    route = re.sub(r"\[controller\]", controller, route, flags=re.IGNORECASE)
    route = re.sub(r"\[action\]", site.method_name, route, flags=re.IGNORECASE)
    return ",".join(dict.fromkeys(methods)) or "ANY", route


def minimal_api_route(call: RouteCall) -> CalledRoute | None:
    """ASP.NET Core minimal APIs: ``app.MapGet("/x", handler)`` and the other verbs,
    ``app.MapMethods("/x", new[] { "GET", "HEAD" }, handler)``."""
    if call.name == "MapMethods":
        if len(call.args) < 3 or call.args[0] is None:
            return None
        verbs = re.findall(r'"(\w+)"', call.texts[1])
        return CalledRoute(",".join(v.upper() for v in verbs) or "ANY", call.args[0], 2)
    if len(call.args) < 2 or call.args[0] is None:
        return None
    return CalledRoute(call.name.removeprefix("Map").upper(), call.args[0], 1)


def map_group(call: RouteCall) -> Router:
    """Minimal APIs' ``app.MapGroup("/api")``: a router whose routes get ``/api``."""
    return Router(call.args[0] or "" if call.args else "")


def register(register: Callable[[str, RouteFramework], object]) -> None:
    """The built-in registration hook (the same shape a plugin's entry point has)."""
    register("aspnetcore", DeclaredRoutes(("csharp",), aspnet_endpoint))
    register("minimal-apis", CalledRoutes(("csharp",), ("MapGet", "MapPost", "MapPut",
                                                        "MapDelete", "MapPatch", "MapMethods"),
                                           minimal_api_route))
    register("minimal-api-groups", CalledRoutes(("csharp",), ("MapGroup",), map_group))
