"""Spring MVC and JAX-RS: routes declared by annotations on a controller (resource)
class and its methods, for Java and Kotlin."""

from __future__ import annotations

from collections.abc import Callable

from graphrag.parsing.languages._jvm import declares_client
from graphrag.parsing.routes import Annotation, DeclaredRoutes, Endpoint, RouteSite
from graphrag.parsing.routes import join_segments as join_route

_SPRING_METHODS = {
    "GetMapping": "GET", "PostMapping": "POST", "PutMapping": "PUT",
    "DeleteMapping": "DELETE", "PatchMapping": "PATCH",
}
_JAXRS_METHODS = frozenset({"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"})


def _prefix(annotations: list[Annotation], name: str, *keys: str) -> str | None:
    """A class-level ``@RequestMapping`` / ``@Path`` route prefix."""
    return next((a.first(*keys) for a in annotations if a.name == name), None)


def spring_endpoint(site: RouteSite) -> Endpoint | None:
    """A Spring MVC handler: ``@GetMapping(...)``..., ``@RequestMapping(method=...)``
    under the class's ``@RequestMapping`` prefix (not in a declared client)."""
    if declares_client(site.cls):
        return None
    prefix = _prefix(site.cls, "RequestMapping", "value", "path", "")
    for ann in site.method:
        if ann.name in _SPRING_METHODS:
            return _SPRING_METHODS[ann.name], join_route(prefix, ann.first("value", "path", ""))
        if ann.name == "RequestMapping":
            methods = [m.rsplit(".", 1)[-1].upper() for m in ann.args.get("method", [])]
            route = join_route(prefix, ann.first("value", "path", ""))
            return (",".join(methods) or "ANY"), route
    return None


def jaxrs_endpoint(site: RouteSite) -> Endpoint | None:
    """A JAX-RS resource method: ``@GET`` ... with ``@Path`` under the class's ``@Path``
    (not in a declared client)."""
    jaxrs = [a.name for a in site.method if a.name in _JAXRS_METHODS]
    if not jaxrs or declares_client(site.cls):
        return None
    path = _prefix(site.method, "Path", "value", "")
    return ",".join(jaxrs), join_route(_prefix(site.cls, "Path", "value", ""), path)


def register(register: Callable[[str, DeclaredRoutes], object]) -> None:
    """The built-in registration hook (the same shape a plugin's entry point has)."""
    register("spring", DeclaredRoutes(("java", "kotlin"), spring_endpoint))
    register("jax-rs", DeclaredRoutes(("java", "kotlin"), jaxrs_endpoint))
