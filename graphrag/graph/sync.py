"""Write a resolved :class:`Graph` into PostgreSQL as a diff computed in memory.

Nodes keep their ids by ``(application_id, stable_key)``; ids of new nodes are drawn from
the sequence up front, so parent links, edge ends and PageRank are all known in this process.
Each code node and edge row stores ``row_hash``, a digest of the values this module
writes: the stored keys and digests are read (one narrow query per table), and only what
differs is written -- new rows by COPY straight into the table (foreign keys checked
once per statement, :mod:`graphrag.db.bulk_copy`), changed rows by one
COPY into a staging table and one set-based UPDATE, vanished rows by one DELETE of their
ids. Unchanged rows are not touched, so a re-index after a small edit writes a few rows
instead of merging the whole graph. PageRank is recomputed only when its input (the set
of nodes, the CALLS/IMPORTS edges and their confidence) changed; otherwise the stored
ranks stand.
Document nodes (``document_id IS NOT NULL``) and their edges belong to the documents step
and are never touched here. The PageRank module (scipy, networkx: a fifth of a second to
import) is imported only by a run that ranks.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

import orjson
from sqlalchemy import Connection, text

from graphrag.db.bulk_copy import copy_checked
from graphrag.db.copy_text import copy_rows
from graphrag.graph.model import RANK_EDGE_KINDS, Graph, GraphEdge, GraphNode

CODE_EDGE_KINDS = ("CONTAINS", "CALLS", "IMPORTS", "EXTENDS", "IMPLEMENTS", "OVERRIDES")
# Edges whose change alters what later steps write about *both* ends (callers/callees in
# summaries and uses/used-by lists, subclasses/implementors).
RELATION_KINDS = ("CALLS", "EXTENDS", "IMPLEMENTS")

# Columns written per node, after ``id`` (the digest covers all of them).
_NODE_COLS = (
    "file_id", "parent_id", "stable_key", "kind", "name", "fqn", "package_name",
    "file_path", "lang", "line_start", "line_end", "char_start", "char_end", "signature",
    "doc_comment", "content_hash", "rank", "meta",
)
# COPY types of id, the columns above and row_hash (JSON goes as its text form).
_NODE_TYPES = ("int8", "int8", "int8", "text", "text", "text", "text", "text", "text",
               "text", "int4", "int4", "int8", "int8", "text", "text", "text", "float8",
               "text", "text")
_EDGE_COLS = ("src_id", "dst_id", "kind", "confidence", "resolution", "lines", "meta")
_EDGE_TYPES = ("int8", "int8", "text", "float4", "text", "int4[]", "text", "text")


@dataclass
class SyncCounts:
    nodes_inserted: int = 0
    nodes_updated: int = 0
    nodes_deleted: int = 0
    edges_inserted: int = 0
    edges_updated: int = 0
    edges_deleted: int = 0
    # ids of nodes at either end of an added, changed or removed relation edge
    touched: set[int] = field(default_factory=set, repr=False)

    def to_dict(self) -> dict[str, int]:
        return {k: v for k, v in vars(self).items() if k != "touched"} | {
            "relinked_nodes": len(self.touched)}


def _dumps(value: object) -> str:
    if not value:
        return "{}"
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def _row_hash(row: tuple[Any, ...]) -> str:
    return hashlib.blake2b(orjson.dumps(row), digest_size=12).hexdigest()


def _edge_row(e: GraphEdge, ident: tuple[int, int, str]) -> tuple[Any, ...]:
    """``(<_EDGE_COLS>, row_hash)`` of one edge (lines: sorted and unique already)."""
    row = (*ident, e.confidence, e.resolution, e.lines, _dumps(e.meta))
    return (*row, _row_hash(row))


def _rank_input_digest(graph: Graph) -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update(orjson.dumps(sorted(n.key for n in graph.nodes)))
    h.update(orjson.dumps(sorted((e.src_key, e.dst_key, e.kind, float(e.confidence))
                                 for e in graph.edges if e.kind in RANK_EDGE_KINDS)))
    return h.hexdigest()


def _ranks(conn: Connection, app_id: int, graph: Graph,
           stored: dict[str, tuple[int, str | None, float]]) -> dict[str, float]:
    """PageRank of every node key. It depends on the node keys and the CALLS/IMPORTS
    edges with their confidence only (not on lines): when those are what the stored ranks
    were computed from (a digest in ``applications.meta.rank_input``), they stand."""
    digest = _rank_input_digest(graph)
    previous = conn.execute(text(
        "SELECT meta->>'rank_input' FROM applications WHERE id = :a"), {"a": app_id}).scalar()
    if previous == digest and all(n.key in stored for n in graph.nodes):
        return {key: rank for key, (_id, _hash, rank) in stored.items()}
    conn.execute(text(
        "UPDATE applications SET meta = jsonb_set(meta, '{rank_input}',"
        " to_jsonb(CAST(:d AS text))) WHERE id = :a"), {"a": app_id, "d": digest})
    from graphrag.graph.analysis import pagerank_scaled  # scipy, networkx: only when ranking
    return pagerank_scaled(graph)


def _rank_input_moved(graph: Graph, ids: dict[str, int],
                      stored: dict[str, tuple[int, str | None, float]],
                      stored_edges: dict[tuple[int, int, str], tuple[int, str, float]]
                      ) -> bool:
    """Whether a part of the graph (and the stored rows of that part) differ in what
    PageRank reads: the node keys, the CALLS/IMPORTS edges and their confidence."""
    if {n.key for n in graph.nodes} != stored.keys():
        return True
    old = {(*ident, round(float(conf), 5)) for ident, (_id, _h, conf) in stored_edges.items()
           if ident[2] in RANK_EDGE_KINDS}
    new = {(ids[e.src_key], ids[e.dst_key], e.kind, round(float(e.confidence), 5))
           for e in graph.edges if e.kind in RANK_EDGE_KINDS}
    return old != new


def _without_outer_contains(graph: Graph) -> Graph:
    """A part of the graph (some files' rows with the repository and package rows)
    without the CONTAINS edges from the repository and package rows to nodes outside
    the part. Such an edge is made of its target's parent, which is part of that node's
    own row, and rows outside the part do not change (the premise of a part); left in,
    every run would read, look up and compare one edge per file of the repository."""
    outer = {n.key for n in graph.nodes if n.file_path is None}
    live = {n.key for n in graph.nodes}
    edges = [e for e in graph.edges
             if e.kind != "CONTAINS" or e.src_key not in outer or e.dst_key in live]
    return graph if len(edges) == len(graph.edges) else Graph(graph.nodes, edges)


def _rerank(conn: Connection, cur: Any, app_id: int) -> None:
    """PageRank of the whole stored code graph, from its rows (for a run that built only
    part of the graph); the rows whose rank changed get it, with their ``row_hash``
    cleared (it no longer describes them: the next diff that reads them rewrites them),
    and the stored input digest is dropped (the next whole-graph run recomputes)."""
    nodes = cur.execute("SELECT id, stable_key, rank FROM nodes WHERE application_id = %s"
                        " AND document_id IS NULL", (app_id,)).fetchall()
    nodes.sort(key=itemgetter(1))  # key order, as the whole-graph path ranks them
    position = {node_id: i for i, (node_id, _key, _rank) in enumerate(nodes)}
    edges = cur.execute(
        "SELECT src_id, dst_id, kind, confidence FROM edges WHERE application_id = %s"
        " AND kind = ANY(%s)", (app_id, list(RANK_EDGE_KINDS))).fetchall()
    # confidence is stored as real: round back to the value that was written (a few
    # distinct values)
    written = {conf: round(float(conf), 6) for conf in {e[3] for e in edges}}
    from graphrag.graph.analysis import pagerank_by_position  # scipy, networkx: if ranking
    ranks = pagerank_by_position(len(nodes), (
        (position[src], position[dst], kind, written[conf])
        for src, dst, kind, conf in edges if src in position and dst in position))
    moved = [(node_id, new) for (node_id, _key, old), new in zip(nodes, ranks, strict=True)
             if new != old]
    if moved:
        cur.execute("CREATE TEMP TABLE tmp_ranks (id bigint PRIMARY KEY, rank float8)"
                    " ON COMMIT DROP")
        copy_rows(cur, "COPY tmp_ranks (id, rank) FROM STDIN", moved)
        cur.execute("UPDATE nodes n SET rank = t.rank, row_hash = NULL, updated_at = now()"
                    " FROM tmp_ranks t WHERE n.id = t.id")
    conn.execute(text("UPDATE applications SET meta = meta - 'rank_input' WHERE id = :a"),
                 {"a": app_id})


@dataclass
class _Stored:
    """The stored rows a sync compares with (read by :func:`_read_stored`)."""

    nodes: dict[str, tuple[int, str | None, float]]  # key -> (id, row_hash, rank)
    ids: dict[str, int]  # key -> id of every node the rows name (new ones drawn)
    new_keys: list[str]  # keys of the graph's nodes not stored yet
    edges: dict[tuple[int, int, str], tuple[int, str, float]]  # (src, dst, kind) -> id, ...
    file_ids: dict[str, int]  # path -> files.id


@dataclass
class _Diff:
    """What differs between the graph and the stored rows (:func:`_diff`)."""

    inserted: list[GraphNode] = field(default_factory=list)
    updated: list[tuple[Any, ...]] = field(default_factory=list)
    gone_nodes: list[int] = field(default_factory=list)
    new_edges: list[tuple[GraphEdge, tuple[int, int, str]]] = field(default_factory=list)
    changed_edges: list[tuple[Any, ...]] = field(default_factory=list)
    gone_edges: list[tuple[int, tuple[int, int, str]]] = field(default_factory=list)


def sync_graph(conn: Connection, app_id: int, graph: Graph,
               paths: set[str] | None = None, rerank: bool = False,
               heads: set[str] | None = None) -> SyncCounts | None:
    """Write nodes (with parents and PageRank) then edges, in the caller's transaction:
    read the stored rows, diff them with the graph, write what differs.

    With ``paths``, ``graph`` holds only the rows of those files and of the repository
    and packages (:meth:`Resolver.finish` with ``only``): only those stored rows are read
    and diffed. PageRank needs the whole graph: when that part changed what it reads
    (node keys, CALLS/IMPORTS edges), or ``rerank`` says so (files were deleted), it is
    computed from the stored rows once they are written. None (nothing written) when
    the part holds a new node whose key is stored outside it.

    ``heads`` (with ``paths``) narrows the rows outside files to those keys
    (:meth:`Resolver.finish`)."""
    cur = conn.connection.driver_connection.cursor()
    scoped = paths is not None
    if scoped:
        graph = _without_outer_contains(graph)
    stored = _read_stored(conn, cur, app_id, graph, paths, heads)
    if stored is None:
        return None
    rerank = scoped and (rerank or _rank_input_moved(graph, stored.ids, stored.nodes,
                                                     stored.edges))
    ranks = ({key: rank for key, (_id, _hash, rank) in stored.nodes.items()} if scoped
             else _ranks(conn, app_id, graph, stored.nodes))
    counts = SyncCounts()
    diff = _diff(graph, stored, ranks, counts.touched)
    _write(conn, cur, app_id, diff, lambda n: _node_row(n, stored, ranks))
    if rerank:
        _rerank(conn, cur, app_id)
    counts.nodes_inserted, counts.nodes_updated = len(diff.inserted), len(diff.updated)
    counts.nodes_deleted = len(diff.gone_nodes)
    counts.edges_inserted, counts.edges_updated = len(diff.new_edges), len(diff.changed_edges)
    counts.edges_deleted = len(diff.gone_edges)
    _refresh_statistics(cur, app_id, len(graph.nodes) if not scoped else len(diff.inserted))
    return counts


def _read_stored(conn: Connection, cur: Any, app_id: int, graph: Graph,
                 paths: set[str] | None, heads: set[str] | None) -> _Stored | None:
    """The stored node and edge rows of the graph's scope (every code row, or those of
    ``paths``), the ids of the rows they name, fresh ids for new nodes; None when a new
    key is stored outside the scope (the scope was wrong: the caller syncs everything)."""
    scoped = paths is not None
    where, args = ("", ()) if not scoped else (
        " AND (file_path IS NULL OR file_path = ANY(%s))", (sorted(paths),))
    if scoped and heads is not None:
        where = " AND (file_path = ANY(%s) OR stable_key = ANY(%s))"
        args = (sorted(paths), sorted(heads))
    # Narrow reads through the driver's cursor: ~100k rows, SQLAlchemy rows cost more.
    outer_ids: list[int] = []  # of the stored rows outside files (repository, packages)
    stored = {}
    for key, node_id, row_hash, rank, outer in cur.execute(
            "SELECT stable_key, id, row_hash, rank, file_path IS NULL FROM nodes"
            " WHERE application_id = %s AND document_id IS NULL" + where,
            (app_id, *args)).fetchall():
        stored[key] = (node_id, row_hash, rank)
        if outer:
            outer_ids.append(node_id)
    ids = {key: v[0] for key, v in stored.items()}
    new_keys = [n.key for n in graph.nodes if n.key not in ids]
    if scoped:
        # ids of the nodes outside these files that rows here point to (parents, edge
        # ends); a new key stored elsewhere means the scope was wrong: the whole graph
        live_keys = {n.key for n in graph.nodes}
        wanted = {n.parent_key for n in graph.nodes if n.parent_key} - live_keys
        wanted |= {k for e in graph.edges for k in (e.src_key, e.dst_key)} - live_keys
        wanted = (wanted - ids.keys()) | set(new_keys)
        if wanted:
            found = dict(cur.execute(
                "SELECT stable_key, id FROM nodes WHERE application_id = %s"
                " AND stable_key = ANY(%s)", (app_id, sorted(wanted))).fetchall())
            if any(k in found for k in new_keys):
                return None
            ids.update(found)
    if new_keys:
        fresh = conn.execute(text(
            "SELECT nextval('nodes_id_seq') FROM generate_series(1, :n)"),
            {"n": len(new_keys)}).scalars().all()
        ids.update(zip(new_keys, fresh, strict=True))
    edge_rows = (_read_part_edges(cur, stored, outer_ids) if scoped
                 else _read_all_edges(cur, app_id))
    stored_edges = {(src, dst, kind): (edge_id, row_hash, confidence)
                    for edge_id, src, dst, kind, row_hash, confidence in edge_rows}
    file_ids = dict(cur.execute("SELECT path, id FROM files WHERE application_id = %s"
                                + where.replace("file_path", "path"),
                                (app_id, *args)).fetchall()) if heads is None else dict(
        cur.execute("SELECT path, id FROM files WHERE application_id = %s"
                    " AND path = ANY(%s)", (app_id, sorted(paths or ()))).fetchall())
    return _Stored(stored, ids, new_keys, stored_edges, file_ids)


def _read_part_edges(cur: Any, stored: dict[str, tuple[int, str | None, float]],
                     outer_ids: list[int]) -> list[tuple[Any, ...]]:
    """The edges from a part's nodes; from the repository and package rows, the CONTAINS
    edges to the part's nodes (:func:`_without_outer_contains`) and any other edge. A
    few files: every read starts from the part's stored ids (index scans, no pass over
    the edges)."""
    part_ids = sorted(v[0] for v in stored.values())
    outer = set(outer_ids)
    return cur.execute(
        """
        SELECT e.id, e.src_id, e.dst_id, e.kind, e.row_hash, e.confidence
          FROM edges e WHERE e.src_id = ANY(%(files)s) AND e.kind = ANY(%(k)s)
        UNION ALL
        SELECT e.id, e.src_id, e.dst_id, e.kind, e.row_hash, e.confidence
          FROM edges e WHERE e.dst_id = ANY(%(part)s) AND e.kind = 'CONTAINS'
           AND e.src_id = ANY(%(outer)s)
        UNION ALL
        SELECT e.id, e.src_id, e.dst_id, e.kind, e.row_hash, e.confidence
          FROM edges e WHERE e.src_id = ANY(%(outer)s) AND e.kind = ANY(%(other)s)
        """, {"files": [i for i in part_ids if i not in outer], "part": part_ids,
              "outer": sorted(outer), "k": list(CODE_EDGE_KINDS),
              "other": [k for k in CODE_EDGE_KINDS if k != "CONTAINS"]}).fetchall()


def _read_all_edges(cur: Any, app_id: int) -> list[tuple[Any, ...]]:
    """Every code edge of the application. The edges of document nodes are left out by
    the ids of those (few) nodes, not by a join with nodes: planned on the estimate of a
    table just emptied (0 rows), a join may loop over every edge of the application for
    every node."""
    return cur.execute(
        """
        SELECT e.id, e.src_id, e.dst_id, e.kind, e.row_hash, e.confidence
          FROM edges e
         WHERE e.application_id = %(a)s AND e.kind = ANY(%(k)s)
           AND NOT e.src_id = ANY(ARRAY(
               SELECT d.id FROM nodes d WHERE d.application_id = %(a)s
                  AND d.document_id IS NOT NULL))
        """, {"a": app_id, "k": list(CODE_EDGE_KINDS)}).fetchall()


def _node_row(n: GraphNode, stored: _Stored, ranks: dict[str, float]) -> tuple[Any, ...]:
    """``(id, <_NODE_COLS>, row_hash)`` of one node."""
    ids = stored.ids
    meta = dict(n.meta)
    content_hash = meta.pop("content_hash", None)
    row = (stored.file_ids.get(n.file_path) if n.file_path is not None else None,
           ids[n.parent_key] if n.parent_key else None, n.key, n.kind, n.name, n.fqn,
           n.package_name, n.file_path, n.lang, n.line_start, n.line_end, n.char_start,
           n.char_end, n.signature, n.doc_comment, content_hash,
           ranks.get(n.key, 1.0), _dumps(meta))
    return (ids[n.key], *row, _row_hash(row))


def _diff(graph: Graph, stored: _Stored, ranks: dict[str, float], touched: set[int]
          ) -> _Diff:
    """The rows to insert, update and delete; ``touched`` gets the ids at both ends of
    every relation edge added, changed or removed. New rows are only listed here: their
    values and digests are computed while they stream into COPY, so that this process
    works while the server checks and indexes the rows before them."""
    ids, diff = stored.ids, _Diff()
    seen: set[tuple[int, int, str]] = set()
    for e in graph.edges:
        ident = (ids[e.src_key], ids[e.dst_key], e.kind)
        seen.add(ident)
        old_edge = stored.edges.get(ident)
        if old_edge is None:
            diff.new_edges.append((e, ident))
        else:
            row = _edge_row(e, ident)
            if old_edge[1] == row[-1]:
                continue
            diff.changed_edges.append((old_edge[0], *row))
        if e.kind in RELATION_KINDS:
            touched.update(ident[:2])
    diff.gone_edges = [(edge_id, ident) for ident, (edge_id, _h, _c) in stored.edges.items()
                       if ident not in seen]
    for _edge_id, (src, dst, kind) in diff.gone_edges:
        if kind in RELATION_KINDS:
            touched.update((src, dst))
    live = {n.key for n in graph.nodes}
    diff.gone_nodes = [node_id for key, (node_id, _h, _r) in stored.nodes.items()
                       if key not in live]
    for n in graph.nodes:
        old = stored.nodes.get(n.key)
        if old is None:
            diff.inserted.append(n)
            continue
        full_row = _node_row(n, stored, ranks)
        if old[1] != full_row[-1]:
            diff.updated.append(full_row)
    return diff


def _write(conn: Connection, cur: Any, app_id: int, diff: _Diff,
           node_row: Callable[[GraphNode], tuple[Any, ...]]) -> None:
    """Delete the vanished rows, COPY the new ones, update the changed ones (set-based)."""
    if diff.gone_edges:
        conn.execute(text("DELETE FROM edges WHERE id = ANY(:ids)"),
                     {"ids": [edge_id for edge_id, _ident in diff.gone_edges]})
    if diff.gone_nodes:
        conn.execute(text("DELETE FROM nodes WHERE id = ANY(:ids)"), {"ids": diff.gone_nodes})
    if diff.inserted:
        copy_checked(cur, "nodes", ("id", *_NODE_COLS, "row_hash", "application_id"),
                     ((*node_row(n), app_id) for n in diff.inserted))
    if diff.updated:
        _stage(cur, "tmp_nodes", ("id", *_NODE_COLS, "row_hash"), _NODE_TYPES, diff.updated)
        conn.execute(text(
            f"""
            UPDATE nodes n SET {", ".join(f"{c} = t.{c}" for c in _NODE_COLS[:-1])},
                   meta = CAST(t.meta AS jsonb), row_hash = t.row_hash, updated_at = now()
              FROM tmp_nodes t WHERE n.id = t.id
            """))
    if diff.new_edges:
        copy_checked(cur, "edges", (*_EDGE_COLS, "row_hash", "application_id"),
                     ((*_edge_row(e, ident), app_id) for e, ident in diff.new_edges))
    if diff.changed_edges:
        _stage(cur, "tmp_edges", ("id", *_EDGE_COLS, "row_hash"), ("int8", *_EDGE_TYPES),
               diff.changed_edges)
        conn.execute(text(
            """
            UPDATE edges e SET confidence = t.confidence, resolution = t.resolution,
                   lines = t.lines, meta = CAST(t.meta AS jsonb), row_hash = t.row_hash
              FROM tmp_edges t WHERE e.id = t.id
            """))


# Below this many nodes a wrong estimate costs little: no statistics refresh.
_REFRESH_MIN_ROWS = 1000


def _refresh_statistics(cur: Any, app_id: int, rows: int) -> None:
    """ANALYZE the graph tables when the planner believes the application holds fewer
    than half of the ``rows`` nodes this run knows it has: a graph just written (a new
    application, or one rebuilt), which autovacuum analyses only a minute or so later.
    Until then the next run's reads of a few files' rows (planned as if the application
    had one row) scan every node of the application, several times per run. ANALYZE
    samples a bounded number of rows and counts this transaction's own as live; only the
    application column, the one whose estimate is wrong (every column costs ten times
    more: a tenth of a full build)."""
    if rows < _REFRESH_MIN_ROWS:
        return
    plan = cur.execute("EXPLAIN (FORMAT JSON) SELECT 1 FROM nodes WHERE application_id = %s",
                       (app_id,)).fetchone()[0]
    if plan[0]["Plan"]["Plan Rows"] * 2 >= rows:
        return
    for table in ("nodes", "edges", "files"):  # constants
        cur.execute(f"ANALYZE {table} (application_id)")


_SQL_TYPES = {"int8": "bigint", "int4": "int", "text": "text", "float8": "float8",
              "float4": "real", "int4[]": "int[]"}


def _stage(cur: Any, table: str, cols: tuple[str, ...], types: tuple[str, ...],
           rows: list[tuple[Any, ...]]) -> None:
    """COPY ``rows`` into a new temporary table ``table`` (a constant name) with fresh
    statistics (without them the planner may loop over it)."""
    cur.execute(f"CREATE TEMP TABLE {table} ("
                + ", ".join(f"{c} {_SQL_TYPES[t]}" for c, t in zip(cols, types, strict=True))
                + ", PRIMARY KEY (id)) ON COMMIT DROP")
    copy_rows(cur, f"COPY {table} ({', '.join(cols)}) FROM STDIN", rows)
    cur.execute(f"ANALYZE {table}")


def count_by_kind(conn: Connection, app_id: int) -> tuple[dict[str, int], dict[str, int]]:
    """Nodes and edges of the application by kind (the run's report)."""
    counts = []
    for table in ("nodes", "edges"):  # constants, never user input
        rows = conn.execute(text(
            f"SELECT kind, count(*) FROM {table} WHERE application_id = :a GROUP BY kind"
            " ORDER BY kind"), {"a": app_id})
        counts.append({k: n for k, n in rows})
    return counts[0], counts[1]
