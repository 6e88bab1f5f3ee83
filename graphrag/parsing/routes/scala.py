"""Scala's web frameworks: http4s (``case GET -> Root / "users" / IntVar(id) => body``,
``req @ GET ->`` too: the clause's body is the handler; literal segments as written,
extractor segments as ``{name}``) and Play (``conf/routes``: each route is registered by
the file declaring its controller class, linked to the action)."""

from __future__ import annotations

import re
from collections.abc import Callable

from graphrag.parsing.routes import (
    ConfigRoutes,
    Endpoint,
    MatchedRoutes,
    RouteFramework,
    RoutePattern,
    join_segments,
)

_HTTP_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
_EXTRACTOR = re.compile(r"^\w+(?:\.\w+)*\((.*)\)$", re.DOTALL)
# `GET  /books/:id  controllers.Books.show(id: Long)` (`@` marks an injected controller)
_PLAY_ROUTE = re.compile(r"^\s*([A-Z]+)\s+(/\S*)\s+@?([\w.$]+)\.(\w+)\s*(?:\(|$)")


def _segment(text: str, literal: str | None) -> str:
    if literal is not None:
        return literal
    match = _EXTRACTOR.match(text.strip())
    return "{" + (match.group(1).strip() or "?" if match else text.strip()) + "}"


def http4s_route(pattern: RoutePattern) -> Endpoint | None:
    """``METHOD -> Root / segment / ...``."""
    ops, operands = pattern.operators, pattern.operands
    if len(operands) < 2 or ops[:1] != ("->",) or operands[1] != "Root" or \
            any(op != "/" for op in ops[1:]):
        return None
    method = operands[0].rpartition("@")[2].strip()
    if method not in _HTTP_METHODS:
        return None
    return method, join_segments(*(_segment(t, lit) for t, lit in
                                   zip(operands[2:], pattern.literals[2:], strict=True)))


def play_routes(text: str) -> list[list[str]]:
    """Play's ``conf/routes`` lines as [method, path, controller class, action]."""
    routes: list[list[str]] = []
    for line in text.splitlines():
        match = _PLAY_ROUTE.match(line)
        if match and not line.lstrip().startswith("#"):
            method, path, controller, action = match.groups()
            routes.append(["ANY" if method == "*" else method, path, controller, action])
    return routes


def register(register: Callable[[str, RouteFramework], object]) -> None:
    """The built-in registration hook (the same shape a plugin's entry point has)."""
    register("http4s", MatchedRoutes(("scala",), http4s_route))
    register("play", ConfigRoutes(("scala",), ("routes",), play_routes, folder="conf"))
