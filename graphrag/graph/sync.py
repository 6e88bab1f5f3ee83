"""Write a resolved :class:`Graph` into PostgreSQL as a set-based diff.

Nodes are upserted by ``(application_id, stable_key)`` so ids survive re-indexing;
rows whose values did not change are not touched (no churn for later steps that key on
``updated_at``). Nodes and edges that are no longer produced are deleted. Everything goes
through COPY into temporary tables, then a handful of set-based statements.
Document nodes (``document_id IS NOT NULL``) and their edges belong to the documents step
and are never touched here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import Connection, text

from graphrag.graph.model import Graph

CODE_EDGE_KINDS = ("CONTAINS", "CALLS", "IMPORTS", "EXTENDS", "IMPLEMENTS", "OVERRIDES")

_NODE_COLS = (
    "stable_key", "kind", "name", "fqn", "package_name", "file_path", "lang", "line_start",
    "line_end", "char_start", "char_end", "signature", "doc_comment", "content_hash", "meta",
    "parent_key",
)


@dataclass
class SyncCounts:
    nodes_inserted: int = 0
    nodes_updated: int = 0
    nodes_deleted: int = 0
    edges_inserted: int = 0
    edges_updated: int = 0
    edges_deleted: int = 0


def _dumps(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _copy_nodes(conn: Connection, graph: Graph) -> None:
    conn.execute(text(
        """
        CREATE TEMP TABLE tmp_nodes (
            stable_key text, kind text, name text, fqn text, package_name text,
            file_path text, lang text, line_start int, line_end int, char_start bigint,
            char_end bigint, signature text, doc_comment text, content_hash text, meta jsonb,
            parent_key text
        ) ON COMMIT DROP
        """
    ))
    cur = conn.connection.driver_connection.cursor()
    with cur.copy(f"COPY tmp_nodes ({', '.join(_NODE_COLS)}) FROM STDIN") as copy:
        for n in graph.nodes:
            meta = dict(n.meta)
            content_hash = meta.pop("content_hash", None)
            copy.write_row((
                n.key, n.kind, n.name, n.fqn, n.package_name, n.file_path, n.lang,
                n.line_start, n.line_end, n.char_start, n.char_end, n.signature,
                n.doc_comment, content_hash, _dumps(meta), n.parent_key,
            ))
    conn.execute(text("CREATE INDEX ON tmp_nodes (stable_key)"))
    conn.execute(text("ANALYZE tmp_nodes"))


def sync_nodes(conn: Connection, app_id: int, graph: Graph) -> SyncCounts:
    """Upsert the graph's nodes, delete vanished code nodes, then link parents."""
    counts = SyncCounts()
    _copy_nodes(conn, graph)
    p = {"app": app_id}
    counts.nodes_deleted = conn.execute(text(
        """
        DELETE FROM nodes n
         WHERE n.application_id = :app AND n.document_id IS NULL
           AND NOT EXISTS (SELECT 1 FROM tmp_nodes t WHERE t.stable_key = n.stable_key)
        """), p).rowcount
    rows = conn.execute(text(
        """
        INSERT INTO nodes AS n (application_id, file_id, stable_key, kind, name, fqn,
            package_name, file_path, lang, line_start, line_end, char_start, char_end,
            signature, doc_comment, content_hash, meta)
        SELECT :app, f.id, t.stable_key, t.kind, t.name, t.fqn, t.package_name, t.file_path,
               t.lang, t.line_start, t.line_end, t.char_start, t.char_end, t.signature,
               t.doc_comment, t.content_hash, t.meta
          FROM tmp_nodes t
          LEFT JOIN files f ON f.application_id = :app AND f.path = t.file_path
        ON CONFLICT (application_id, stable_key) DO UPDATE SET
            file_id = EXCLUDED.file_id, kind = EXCLUDED.kind, name = EXCLUDED.name,
            fqn = EXCLUDED.fqn, package_name = EXCLUDED.package_name,
            file_path = EXCLUDED.file_path, lang = EXCLUDED.lang,
            line_start = EXCLUDED.line_start, line_end = EXCLUDED.line_end,
            char_start = EXCLUDED.char_start, char_end = EXCLUDED.char_end,
            signature = EXCLUDED.signature, doc_comment = EXCLUDED.doc_comment,
            content_hash = EXCLUDED.content_hash, meta = EXCLUDED.meta, updated_at = now()
        WHERE (n.file_id, n.kind, n.name, n.fqn, n.package_name, n.file_path, n.lang,
               n.line_start, n.line_end, n.char_start, n.char_end, n.signature,
               n.doc_comment, n.content_hash, n.meta)
              IS DISTINCT FROM
              (EXCLUDED.file_id, EXCLUDED.kind, EXCLUDED.name, EXCLUDED.fqn,
               EXCLUDED.package_name, EXCLUDED.file_path, EXCLUDED.lang,
               EXCLUDED.line_start, EXCLUDED.line_end, EXCLUDED.char_start,
               EXCLUDED.char_end, EXCLUDED.signature, EXCLUDED.doc_comment,
               EXCLUDED.content_hash, EXCLUDED.meta)
        RETURNING (xmax = 0) AS inserted
        """), p).all()
    counts.nodes_inserted = sum(1 for r in rows if r.inserted)
    counts.nodes_updated = len(rows) - counts.nodes_inserted
    conn.execute(text(
        """
        UPDATE nodes n SET parent_id = sub.parent_id
          FROM (SELECT c.id, p.id AS parent_id
                  FROM tmp_nodes t
                  JOIN nodes c ON c.application_id = :app AND c.stable_key = t.stable_key
                  LEFT JOIN nodes p ON p.application_id = :app AND p.stable_key = t.parent_key
               ) sub
         WHERE n.id = sub.id AND n.parent_id IS DISTINCT FROM sub.parent_id
        """), p)
    return counts


def sync_edges(conn: Connection, app_id: int, graph: Graph, counts: SyncCounts) -> None:
    """Replace the application's code edges with the graph's, as a diff."""
    conn.execute(text(
        """
        CREATE TEMP TABLE tmp_edges (
            src_key text, dst_key text, kind text, confidence real, resolution text,
            lines int[], meta jsonb
        ) ON COMMIT DROP
        """
    ))
    cur = conn.connection.driver_connection.cursor()
    with cur.copy("COPY tmp_edges FROM STDIN") as copy:
        for e in graph.edges:
            copy.write_row((e.src_key, e.dst_key, e.kind, e.confidence, e.resolution,
                            sorted(set(e.lines)), _dumps(e.meta)))
    p = {"app": app_id, "kinds": list(CODE_EDGE_KINDS)}
    conn.execute(text(
        """
        CREATE TEMP TABLE tmp_edge_ids ON COMMIT DROP AS
        SELECT s.id AS src_id, d.id AS dst_id, t.kind, t.confidence, t.resolution, t.lines,
               t.meta
          FROM tmp_edges t
          JOIN nodes s ON s.application_id = :app AND s.stable_key = t.src_key
          JOIN nodes d ON d.application_id = :app AND d.stable_key = t.dst_key
        """), p)
    conn.execute(text("CREATE INDEX ON tmp_edge_ids (src_id, dst_id, kind)"))
    conn.execute(text("ANALYZE tmp_edge_ids"))
    counts.edges_deleted = conn.execute(text(
        """
        DELETE FROM edges e
         WHERE e.application_id = :app AND e.kind = ANY(:kinds)
           AND EXISTS (SELECT 1 FROM nodes s WHERE s.id = e.src_id AND s.document_id IS NULL)
           AND NOT EXISTS (SELECT 1 FROM tmp_edge_ids t
                            WHERE t.src_id = e.src_id AND t.dst_id = e.dst_id
                              AND t.kind = e.kind)
        """), p).rowcount
    rows = conn.execute(text(
        """
        INSERT INTO edges AS e (application_id, src_id, dst_id, kind, confidence, resolution,
                                lines, meta)
        SELECT :app, src_id, dst_id, kind, confidence, resolution, lines, meta
          FROM tmp_edge_ids
        ON CONFLICT (src_id, dst_id, kind) DO UPDATE SET
            confidence = EXCLUDED.confidence, resolution = EXCLUDED.resolution,
            lines = EXCLUDED.lines, meta = EXCLUDED.meta
        WHERE (e.confidence, e.resolution, e.lines, e.meta) IS DISTINCT FROM
              (EXCLUDED.confidence, EXCLUDED.resolution, EXCLUDED.lines, EXCLUDED.meta)
        RETURNING (xmax = 0) AS inserted
        """), p).all()
    counts.edges_inserted = sum(1 for r in rows if r.inserted)
    counts.edges_updated = len(rows) - counts.edges_inserted


def sync_graph(conn: Connection, app_id: int, graph: Graph) -> SyncCounts:
    """Nodes then edges, in the caller's transaction."""
    counts = sync_nodes(conn, app_id, graph)
    sync_edges(conn, app_id, graph, counts)
    return counts
