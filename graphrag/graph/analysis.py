"""Graph analysis with networkx: PageRank (stored per node) and export."""

from __future__ import annotations

import json
from collections.abc import Iterable
from io import BytesIO
from typing import Any

import networkx as nx
import numpy as np
from scipy import sparse

from graphrag.db.context import AppContext
from graphrag.graph import store
from graphrag.graph.dispatch import dispatched_calls
from graphrag.graph.model import RANK_EDGE_KINDS, Graph


def pagerank_scaled(graph: Graph) -> dict[str, float]:
    """PageRank over CALLS and IMPORTS edges (weighted by confidence), scaled so that the
    average node has rank 1.0 (a neutral boost), rounded so re-runs compare equal.

    networkx's power iteration (``pagerank`` with scipy) on a sparse matrix built here
    directly: building a networkx graph of every node and edge first cost more than the
    iteration itself. Nodes in key order; a pair linked by both kinds weighs what the
    later kind (IMPORTS) says, as networkx's ``add_edge`` in (src, dst, kind) order did."""
    return pagerank_of([n.key for n in graph.nodes],
                       ((e.src_key, e.dst_key, e.kind, e.confidence) for e in graph.edges))


def pagerank_of(node_keys: Iterable[str],
                edges: Iterable[tuple[str, str, str, float]]) -> dict[str, float]:
    """:func:`pagerank_scaled` of the nodes ``node_keys`` and the edges ``(src key, dst
    key, kind, confidence)`` (kinds other than CALLS and IMPORTS are left out)."""
    keys = sorted(node_keys)
    index = {key: i for i, key in enumerate(keys)}
    ranks = pagerank_by_position(len(keys), (
        (index[src], index[dst], kind, confidence) for src, dst, kind, confidence in edges))
    return dict(zip(keys, ranks, strict=True))


def pagerank_by_position(n: int, edges: Iterable[tuple[int, int, str, float]]
                         ) -> list[float]:
    """:func:`pagerank_of` of ``n`` nodes in key order, each named by its position in
    that order (the edges' ends too): the ranks in the same order."""
    if not n:
        return []
    weights: dict[tuple[int, int], tuple[str, float]] = {}
    for src, dst, kind, confidence in edges:
        if kind in RANK_EDGE_KINDS:
            pair = (src, dst)
            old = weights.get(pair)
            if old is None or kind > old[0]:
                weights[pair] = (kind, float(confidence))
    pairs = sorted(weights)
    rows = np.fromiter((p[0] for p in pairs), dtype=np.int64, count=len(pairs))
    cols = np.fromiter((p[1] for p in pairs), dtype=np.int64, count=len(pairs))
    data = np.fromiter((weights[p][1] for p in pairs), dtype=float, count=len(pairs))
    matrix = sparse.coo_array((data, (rows, cols)), shape=(n, n), dtype=float).asformat("csr")
    ranks = _power_iteration(matrix, alpha=0.85, tol=1e-10, max_iter=500)
    return [round(v * n, 4) for v in ranks.tolist()]


def _power_iteration(matrix: Any, alpha: float, tol: float, max_iter: int) -> Any:
    """networkx's ``_pagerank_scipy`` without personalization, start vector or dangling
    weights (uniform)."""
    n = matrix.shape[0]
    out = matrix.sum(axis=1)
    out[out != 0] = 1.0 / out[out != 0]
    matrix = sparse.dia_array((out.T, 0), shape=matrix.shape).tocsr() @ matrix
    x = np.repeat(1.0 / n, n)
    p = np.repeat(1.0 / n, n)
    dangling = np.where(out == 0)[0]
    for _ in range(max_iter):
        last = x
        # the dangling nodes' share, summed in order (as ``sum`` does, not pairwise)
        lost = np.cumsum(x[dangling])[-1] if len(dangling) else 0
        x = alpha * (x @ matrix + lost * p) + (1 - alpha) * p
        if np.absolute(x - last).sum() < n * tol:
            return x
    raise nx.PowerIterationFailedConvergence(max_iter)


_EXPORT_NODE_COLS = ("id", "kind", "name", "fqn", "package_name", "file_path", "lang",
                     "line_start", "line_end", "signature", "parent_id", "rank", "meta")


def export_graph(ctx: AppContext, static_only: bool = False) -> dict[str, Any]:
    """The whole graph as ``{"nodes": [...], "edges": [...]}`` (lines 1-based inclusive).

    Unless ``static_only``, the calls dispatch adds (:mod:`graphrag.graph.dispatch`) are
    CALLS edges too, each with ``via``: the method its call site is bound to."""
    with ctx.engine.connect() as conn:
        nodes, edges = store.export_rows(conn, ctx.app_id, _EXPORT_NODE_COLS)
        extra = [] if static_only else dispatched_calls(conn, ctx.app_id)
    seen = {(e["source"], e["target"]) for e in edges if e["kind"] == "CALLS"}
    for n in extra:  # seen from the override: the caller is the source
        if (n.node_id, n.this_id) not in seen:
            seen.add((n.node_id, n.this_id))
            edges.append({"source": n.node_id, "target": n.this_id, "kind": "CALLS",
                          "confidence": n.confidence, "resolution": n.resolution,
                          "lines": list(n.lines), "via": n.via})
    edges.sort(key=lambda e: (e["source"], e["target"], e["kind"]))
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
