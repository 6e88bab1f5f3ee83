"""The neighbourhood of a node for the graph view: the nodes within ``depth`` edges of
the chosen kinds, bounded by a node budget (a drawing of the whole graph freezes a
browser), plus the documents that mention a node. One query per level of the walk."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphrag.db.context import AppContext
from graphrag.errors import InvalidInput, NotFound
from graphrag.graph import store
from graphrag.graph.queries import find_nodes
from graphrag.kinds import EDGE_KINDS

MAX_DEPTH = 2
MAX_NODES = 300
# The structure a reader follows; CONTAINS, IMPORTS, NEXT and MENTIONS on request (a
# file or a document is a hub of hundreds of them).
DEFAULT_KINDS = ("CALLS", "EXTENDS", "IMPLEMENTS", "OVERRIDES")


def _brief(n: store.Neighbour) -> dict[str, Any]:
    return {"id": n.node_id, "kind": n.kind, "name": n.name, "fqn": n.fqn,
            "file_path": n.file_path, "line_start": n.line_start}


def edge_kinds(kinds: Sequence[str] | None) -> list[str]:
    """The edge kinds asked for, checked (None or empty: the default ones)."""
    if not kinds:
        return list(DEFAULT_KINDS)
    unknown = [k for k in kinds if k not in EDGE_KINDS]
    if unknown:
        raise InvalidInput(f"unknown edge kind {unknown[0]!r}; valid: {', '.join(EDGE_KINDS)}")
    return list(dict.fromkeys(kinds))


def neighbourhood(ctx: AppContext, *, fqn: str | None = None, node_id: int | None = None,
                  depth: int = 1, kinds: Sequence[str] | None = None,
                  max_nodes: int = MAX_NODES) -> dict[str, Any]:
    """The nodes within ``depth`` (1-2) edges of the node(s) named ``fqn`` (or of node
    ``node_id`` of this application), at most ``max_nodes`` of them, nearest first, with
    every edge of the chosen kinds between them. ``omitted`` counts the neighbours left
    out (``truncated``: the drawing is not the whole neighbourhood)."""
    if not 1 <= depth <= MAX_DEPTH:
        raise InvalidInput(f"depth must be between 1 and {MAX_DEPTH}, not {depth}")
    if (fqn is None) == (node_id is None):
        raise InvalidInput("give either fqn or node_id")
    chosen = edge_kinds(kinds)
    with ctx.engine.connect() as conn:
        if fqn is not None:
            seeds = [{k: r[k] for k in ("id", "kind", "name", "fqn", "file_path",
                                        "line_start")} for r in find_nodes(conn, ctx.app_id, fqn)]
        else:
            seeds = store.brief_nodes_in_app(conn, ctx.app_id, [node_id or 0])
            if not seeds:
                raise NotFound(f"no node {node_id} in application {ctx.app_name!r}")
        nodes: dict[int, dict[str, Any]] = {}
        for s in seeds:
            nodes[s["id"]] = {**s, "level": 0}
        edges: dict[int, dict[str, Any]] = {}
        frontier = list(nodes)
        omitted: set[int] = set()
        for level in range(1, depth + 1):
            near = store.neighbours(conn, frontier, kinds=chosen, app_ids=[ctx.app_id])
            frontier = []
            for n in near:
                if n.node_id not in nodes:
                    if len(nodes) >= max_nodes:
                        omitted.add(n.node_id)
                        continue
                    nodes[n.node_id] = {**_brief(n), "level": level}
                    frontier.append(n.node_id)
                edges[n.edge_id] = {"id": n.edge_id, "source": n.src_id, "target": n.dst_id,
                                    "kind": n.edge_kind, "confidence": round(n.confidence, 3)}
        # edges among the nodes drawn that the walk did not pass (two leaves calling
        # each other): one more read of the last level's own edges
        if frontier:
            for n in store.neighbours(conn, frontier, kinds=chosen, direction="out",
                                      app_ids=[ctx.app_id], far=False):
                if n.node_id in nodes:
                    edges[n.edge_id] = {"id": n.edge_id, "source": n.src_id,
                                        "target": n.dst_id, "kind": n.edge_kind,
                                        "confidence": round(n.confidence, 3)}
    return {"center": [s["id"] for s in seeds], "depth": depth, "kinds": chosen,
            "nodes": list(nodes.values()), "edges": list(edges.values()),
            "omitted": len(omitted), "truncated": bool(omitted)}


def mentioned_by(ctx: AppContext, node_ids: Sequence[int], limit: int = 100
                 ) -> list[dict[str, Any]]:
    """The document pages and sections whose text names the nodes (MENTIONS edges)."""
    with ctx.engine.connect() as conn:
        rows = store.neighbours(conn, node_ids, kinds=["MENTIONS"], direction="in",
                                app_ids=[ctx.app_id])
    seen: dict[int, dict[str, Any]] = {}
    for n in rows:
        seen.setdefault(n.node_id, {**_brief(n), "line_end": n.line_end})
    return list(seen.values())[:limit]
