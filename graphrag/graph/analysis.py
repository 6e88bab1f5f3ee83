"""Graph analysis with networkx: PageRank (stored per node) and export."""

from __future__ import annotations

import json
from io import BytesIO
from typing import Any

import networkx as nx
from sqlalchemy import Connection, text

RANK_EDGE_KINDS = ("CALLS", "IMPORTS")


def update_pagerank(conn: Connection, app_id: int) -> int:
    """PageRank over CALLS and IMPORTS edges (weighted by confidence), stored in
    ``nodes.rank`` scaled so that the average node has rank 1.0 (a neutral boost).
    Returns the number of nodes whose rank changed."""
    ids = [r[0] for r in conn.execute(
        text("SELECT id FROM nodes WHERE application_id = :a AND document_id IS NULL"),
        {"a": app_id})]
    if not ids:
        return 0
    g = nx.DiGraph()
    g.add_nodes_from(ids)
    for src, dst, conf in conn.execute(text(
            "SELECT src_id, dst_id, confidence FROM edges WHERE application_id = :a"
            " AND kind = ANY(:k)"), {"a": app_id, "k": list(RANK_EDGE_KINDS)}):
        if src in g and dst in g:
            g.add_edge(src, dst, weight=float(conf))
    pr = nx.pagerank(g, alpha=0.85, weight="weight", tol=1e-8, max_iter=200)
    scale = len(ids)
    node_ids = list(pr)
    ranks = [round(pr[i] * scale, 6) for i in node_ids]
    return conn.execute(text(
        """
        UPDATE nodes n SET rank = v.rank
          FROM unnest(CAST(:ids AS bigint[]), CAST(:ranks AS float8[])) AS v(id, rank)
         WHERE n.id = v.id AND n.rank IS DISTINCT FROM v.rank
        """), {"ids": node_ids, "ranks": ranks}).rowcount


_EXPORT_NODE_COLS = ("id", "kind", "name", "fqn", "package_name", "file_path", "lang",
                     "line_start", "line_end", "signature", "parent_id", "rank", "meta")


def export_graph(conn: Connection, app_id: int) -> dict[str, Any]:
    """The whole graph as ``{"nodes": [...], "edges": [...]}`` (lines 1-based inclusive)."""
    nodes = [dict(r) for r in conn.execute(text(
        f"SELECT {', '.join(_EXPORT_NODE_COLS)} FROM nodes WHERE application_id = :a"
        " ORDER BY id"), {"a": app_id}).mappings()]
    edges = [dict(r) for r in conn.execute(text(
        "SELECT src_id AS source, dst_id AS target, kind, confidence, resolution, lines"
        " FROM edges WHERE application_id = :a ORDER BY src_id, dst_id, kind"),
        {"a": app_id}).mappings()]
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
