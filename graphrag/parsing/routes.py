"""HTTP routes: joining a router's prefix and a route (shared by the extractors and the
graph step's mount resolution, :mod:`graphrag.graph.routes`), and the registry of web
frameworks whose routes are declared by annotations (attributes) on a controller class
and its methods (Spring, JAX-RS, ASP.NET Core): an extractor reads a method's and its
class's annotations into :class:`Annotation` values and asks :func:`declared_endpoint`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from graphrag.parsing import registry
from graphrag.plugins import ROUTE_FRAMEWORKS_GROUP, Registry


def join_route(prefix: str, route: str, keep_slash: bool = False) -> str:
    """``/api/users`` + ``/:id`` -> ``/api/users/:id``; ``/api`` + ``/`` -> ``/api``
    (Express, chi, gorilla/mux), or ``/api/`` with ``keep_slash`` (FastAPI and Flask
    concatenate; a language's spec says which via ``route_keep_slash``)."""
    if not prefix:
        return route
    head = prefix.rstrip("/")
    tail = route if route.startswith("/") else f"/{route}"
    if tail == "/" and not keep_slash:
        return head or "/"
    return head + tail


def join_segments(*parts: str | None) -> str:
    """Join route pieces with single slashes; always starts with ``/``."""
    pieces = [p.strip("/") for p in parts if p and p.strip("/")]
    return "/" + "/".join(pieces)


def singular(word: str) -> str:
    """The member name of a resource collection (``photos`` -> ``photo``, ``categories``
    -> ``category``): Rails' and Laravel's resource routes name the id parameter by it."""
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


@dataclass
class Annotation:
    """An annotation (attribute) reduced to what routing needs: simple name and argument
    values. Positional arguments are stored under ``""``; each value is a list (arrays
    keep every element) of strings: string literal contents or expressions as written."""

    name: str
    args: dict[str, list[str]] = field(default_factory=dict)

    def first(self, *keys: str) -> str | None:
        for key in keys:
            values = self.args.get(key)
            if values:
                return values[0]
        return None


@dataclass(frozen=True)
class RouteSite:
    """A method that may be a handler: its annotations, its class's (outermost first
    where a language nests controllers), and the names a route template may refer to
    (ASP.NET's ``[controller]``, ``[action]``)."""

    method: list[Annotation]
    cls: list[Annotation]
    class_name: str = ""
    method_name: str = ""


# (http_method, route) of a handler; several methods joined by ",", "ANY" unrestricted
Endpoint = tuple[str, str]


@dataclass(frozen=True)
class DeclaredRoutes:
    """A framework declaring routes by annotations: the ``languages`` whose extractors
    ask it, and ``recognise`` ("module:function", a module under
    ``graphrag.parsing.languages`` or a full dotted path) taking a :class:`RouteSite`
    and returning an :data:`Endpoint` or None."""

    languages: tuple[str, ...]
    recognise: str


def _register_builtins(register: Callable[[str, DeclaredRoutes], DeclaredRoutes]) -> None:
    register("spring", DeclaredRoutes(("java", "kotlin"), "_jvm:spring_endpoint"))
    register("jax-rs", DeclaredRoutes(("java", "kotlin"), "_jvm:jaxrs_endpoint"))
    register("aspnetcore", DeclaredRoutes(("csharp",), "csharp:aspnet_endpoint"))
    register("symfony", DeclaredRoutes(("php",), "php:symfony_endpoint"))


_FRAMEWORKS: Registry[DeclaredRoutes] = Registry(
    "route framework", ROUTE_FRAMEWORKS_GROUP, _register_builtins)


def frameworks() -> Registry[DeclaredRoutes]:
    """The registry of annotation-declared route frameworks (plugins add theirs through
    the ``graphrag.route_frameworks`` entry point group)."""
    return _FRAMEWORKS


def declared_endpoint(lang: str, site: RouteSite) -> Endpoint | None:
    """The endpoint the first framework of ``lang`` (registration order) recognises in
    ``site``, or None when the method is no handler."""
    for framework in _FRAMEWORKS:
        if lang in framework.languages:
            found = registry.hook(framework.recognise)(site)
            if found is not None:
                return found
    return None

