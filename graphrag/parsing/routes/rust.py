"""Rust's web frameworks: actix-web's route attributes (``#[get("/x")]``,
``#[route("/x", method = "GET", method = "POST")]``)."""

from __future__ import annotations

from collections.abc import Callable

from graphrag.parsing.routes import DeclaredRoutes, Endpoint, RouteSite

_HTTP_VERBS = {"get", "post", "put", "delete", "patch", "head", "options", "trace",
               "connect"}


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


def register(register: Callable[[str, DeclaredRoutes], object]) -> None:
    """The built-in registration hook (the same shape a plugin's entry point has)."""
    register("actix-web", DeclaredRoutes(("rust",), actix_endpoint))
