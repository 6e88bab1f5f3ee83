"""Joining a router's prefix and a route, shared by the extractors (Go) and the graph
step's mount resolution (:mod:`graphrag.graph.routes`)."""

from __future__ import annotations


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
