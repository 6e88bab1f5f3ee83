"""Graph analysis with networkx: PageRank (stored per node) and export."""

from __future__ import annotations

import json
from io import BytesIO
from typing import Any

import networkx as nx

from graphrag.db.context import AppContext
from graphrag.graph import store
from graphrag.graph.model import Graph

RANK_EDGE_KINDS = ("CALLS", "IMPORTS")


def pagerank_scaled(graph: Graph) -> dict[str, float]:
    """PageRank over CALLS and IMPORTS edges (weighted by confidence), scaled so that the
    average node has rank 1.0 (a neutral boost), rounded so re-runs compare equal."""
    g = nx.DiGraph()
    g.add_nodes_from(sorted(n.key for n in graph.nodes))
    for e in sorted(graph.edges, key=lambda e: (e.src_key, e.dst_key, e.kind)):
        if e.kind in RANK_EDGE_KINDS:
            g.add_edge(e.src_key, e.dst_key, weight=float(e.confidence))
    if not g:
        return {}
    pr = nx.pagerank(g, alpha=0.85, weight="weight", tol=1e-10, max_iter=500)
    scale = g.number_of_nodes()
    return {k: round(v * scale, 4) for k, v in pr.items()}


_EXPORT_NODE_COLS = ("id", "kind", "name", "fqn", "package_name", "file_path", "lang",
                     "line_start", "line_end", "signature", "parent_id", "rank", "meta")


def export_graph(ctx: AppContext) -> dict[str, Any]:
    """The whole graph as ``{"nodes": [...], "edges": [...]}`` (lines 1-based inclusive)."""
    with ctx.engine.connect() as conn:
        nodes, edges = store.export_rows(conn, ctx.app_id, _EXPORT_NODE_COLS)
    return {"nodes": nodes, "edges": edges}


def to_graphml(data: dict[str, Any]) -> str:
    """GraphML text of an exported graph (nested values JSON-encoded)."""
    g = nx.MultiDiGraph()
    for n in data["nodes"]:
        attrs = {k: _scalar(v) for k, v in n.items() if k != "id" and v is not None}
        g.add_node(n["id"], **attrs)
    for e in data["edges"]:
        attrs = {k: _scalar(v) for k, v in e.items()
                 if k not in ("source", "target") and v is not None}
        g.add_edge(e["source"], e["target"], **attrs)
    buf = BytesIO()
    nx.write_graphml(g, buf)
    return buf.getvalue().decode("utf-8")


def _scalar(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    return value
