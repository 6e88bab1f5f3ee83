"""Read-side walks over the stored graph for agents: call trees (callers-of, callees-of),
call paths between two nodes, and the HTTP endpoints. Bounded in depth and size; one
query per level of the walk (never one per node)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from graphrag.db.context import AppContext
from graphrag.errors import InvalidInput
from graphrag.graph import store
from graphrag.graph.dispatch import call_neighbours
from graphrag.graph.lookup import like_escape
from graphrag.graph.queries import find_nodes

DIRECTIONS = ("callees", "callers")
MAX_DEPTH = 8
MAX_TREE_NODES = 200
MAX_PATHS = 10


@dataclass
class _Edge:
    near: int
    far: int
    confidence: float
    resolution: str | None
    via: str | None = None


def _brief(row: Any) -> dict[str, Any]:
    return {"id": row["id"], "kind": row["kind"], "fqn": row["fqn"],
            "file_path": row["file_path"], "line_start": row["line_start"],
            "line_end": row["line_end"]}


def _seed_ids(conn: Connection, app_id: int, fqn: str) -> list[dict[str, Any]]:
    return [_brief(r) for r in find_nodes(conn, app_id, fqn)]  # UnknownSymbol if none


def _level(conn: Connection, app_id: int, frontier: Sequence[int], outgoing: bool,
           static_only: bool = False) -> tuple[list[_Edge], dict[int, dict[str, Any]]]:
    """The calls leaving (or entering) the frontier, with those dispatch adds unless
    ``static_only`` (:mod:`graphrag.graph.dispatch`), and the nodes at their far end."""
    rows = call_neighbours(conn, frontier, direction="out" if outgoing else "in",
                           app_ids=[app_id], static_only=static_only)
    edges = [_Edge(n.this_id, n.node_id, n.confidence, n.resolution, n.via) for n in rows]
    return edges, {n.node_id: {"id": n.node_id, "kind": n.kind, "fqn": n.fqn,
                               "file_path": n.file_path, "line_start": n.line_start,
                               "line_end": n.line_end} for n in rows}


def _check_depth(max_depth: int) -> None:
    if not 1 <= max_depth <= MAX_DEPTH:
        raise InvalidInput(f"max_depth must be between 1 and {MAX_DEPTH}, not {max_depth}")


def call_tree(ctx: AppContext, fqn: str, direction: str = "callees",
              max_depth: int = 3, max_nodes: int = MAX_TREE_NODES,
              static_only: bool = False) -> dict[str, Any]:
    """The callees-of (or callers-of) tree of the node(s) named ``fqn``.

    Calls through dispatch are included (a child's ``via`` names the method its call
    site is bound to) unless ``static_only``. Each node is expanded once: a node met
    again is listed with ``"seen": true`` and no children (recursion and diamonds stay
    finite). ``truncated`` says the walk stopped at
    ``max_nodes`` before ``max_depth``."""
    if direction not in DIRECTIONS:
        raise InvalidInput(f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
    _check_depth(max_depth)
    with ctx.engine.connect() as conn:
        return _call_tree(conn, ctx.app_id, fqn, direction, max_depth, max_nodes,
                          static_only)


def _call_tree(conn: Connection, app_id: int, fqn: str, direction: str, max_depth: int,
               max_nodes: int, static_only: bool = False) -> dict[str, Any]:
    roots = _seed_ids(conn, app_id, fqn)
    trees: dict[int, dict[str, Any]] = {r["id"]: {**r, "children": []} for r in roots}
    expanded = set(trees)
    frontier = list(trees)
    truncated = False
    count = len(trees)
    for _ in range(max_depth):
        if not frontier:
            break
        edges, nodes = _level(conn, app_id, frontier, outgoing=direction == "callees",
                              static_only=static_only)
        next_frontier: list[int] = []
        for edge in edges:
            if count >= max_nodes:
                truncated = True
                break
            child = _reached(nodes[edge.far], edge, children=[])
            if edge.far in expanded:
                child["seen"] = True
            else:
                expanded.add(edge.far)
                trees[edge.far] = child
                next_frontier.append(edge.far)
            trees[edge.near]["children"].append(child)
            count += 1
        frontier = next_frontier
    return {"direction": direction, "max_depth": max_depth,
            "roots": [trees[r["id"]] for r in roots], "nodes": count, "truncated": truncated}


def _reached(row: dict[str, Any], edge: _Edge, **extra: Any) -> dict[str, Any]:
    """A node as a call reaches it: its row, the call's confidence and resolution,
    ``extra``, and ``via`` (the method the call site is bound to) for a dispatched call."""
    hop = {**row, "confidence": round(edge.confidence, 3), "resolution": edge.resolution,
           **extra}
    if edge.via is not None:
        hop["via"] = edge.via
    return hop


def call_paths(ctx: AppContext, from_fqn: str, to_fqn: str, max_depth: int = 5,
               max_paths: int = MAX_PATHS, static_only: bool = False) -> dict[str, Any]:
    """The shortest call paths from ``from_fqn`` to ``to_fqn`` (at most ``max_depth`` calls
    long, at most ``max_paths`` of them), each a list of hops with the confidence of the
    call that reached it (and ``via``, a hop reached through dispatch, unless
    ``static_only``)."""
    _check_depth(max_depth)
    with ctx.engine.connect() as conn:
        return _call_paths(conn, ctx.app_id, from_fqn, to_fqn, max_depth, max_paths,
                           static_only)


def _call_paths(conn: Connection, app_id: int, from_fqn: str, to_fqn: str, max_depth: int,
                max_paths: int, static_only: bool = False) -> dict[str, Any]:
    sources = _seed_ids(conn, app_id, from_fqn)
    targets = {r["id"] for r in _seed_ids(conn, app_id, to_fqn)}
    info: dict[int, dict[str, Any]] = {r["id"]: r for r in sources}
    # predecessors at the shortest distance: node -> [(previous node, edge)]
    preds: dict[int, list[_Edge]] = {r["id"]: [] for r in sources}
    frontier = list(preds)
    found: list[int] = [n for n in frontier if n in targets]
    depth = 0
    while frontier and not found and depth < max_depth:
        depth += 1
        edges, nodes = _level(conn, app_id, frontier, outgoing=True, static_only=static_only)
        info.update(nodes)
        level_new: dict[int, list[_Edge]] = {}
        for edge in edges:
            if edge.far in preds:
                continue
            level_new.setdefault(edge.far, []).append(edge)
        preds.update(level_new)
        frontier = list(level_new)
        found = [n for n in frontier if n in targets]
    paths: list[list[dict[str, Any]]] = []

    def walk(node: int, suffix: list[dict[str, Any]]) -> None:
        if len(paths) >= max_paths:
            return
        if not preds[node]:  # a source: the path is complete
            paths.append([info[node], *suffix])
            return
        for edge in preds[node]:
            walk(edge.near, [_reached(info[node], edge), *suffix])

    for target in found:
        walk(target, [])
    return {"from": from_fqn, "to": to_fqn, "max_depth": max_depth,
            "length": depth if found else None, "paths": paths,
            "truncated": len(paths) >= max_paths}


def find_endpoints(ctx: AppContext, route_or_method: str | None = None,
                   limit: int = 200) -> list[dict[str, Any]]:
    """ENDPOINT nodes (the handler is the node itself) with their HTTP method and route;
    ``route_or_method`` keeps those whose method equals it (``GET``) or whose route or
    handler fqn contains it (case-insensitive)."""
    pattern = None
    if route_or_method and route_or_method.strip():
        value = route_or_method.strip()
        pattern = (value, f"%{like_escape(value)}%")
    with ctx.engine.connect() as conn:
        rows = store.endpoints(conn, ctx.app_id, pattern, limit)
    return [{"http_method": r["http_method"], "route": r["route"], "handler": r["fqn"],
             "file_path": r["file_path"], "line_start": r["line_start"],
             "line_end": r["line_end"]} for r in rows]
