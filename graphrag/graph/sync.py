"""Write a resolved :class:`Graph` into PostgreSQL as a set-based diff.

Nodes are upserted by ``(application_id, stable_key)`` so ids survive re-indexing.
Ids of new nodes are drawn from the sequence up front, so parent links, edge ends and
PageRank are all known in Python and every table is written by one COPY plus one
set-based statement, with no follow-up UPDATE passes. Rows whose values did not change
are not touched. Nodes and edges that are no longer produced are deleted.
Document nodes (``document_id IS NOT NULL``) and their edges belong to the documents step
and are never touched here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import orjson
from sqlalchemy import Connection, text

from graphrag.graph.analysis import pagerank_scaled
from graphrag.graph.model import Graph

CODE_EDGE_KINDS = ("CONTAINS", "CALLS", "IMPORTS", "EXTENDS", "IMPLEMENTS", "OVERRIDES")
# Edges whose change alters what later steps write about *both* ends (callers/callees in
# summaries and uses/used-by lists, subclasses/implementors).
RELATION_KINDS = ("CALLS", "EXTENDS", "IMPLEMENTS")

_NODE_COLS = (
    "id", "parent_id", "stable_key", "kind", "name", "fqn", "package_name", "file_path",
    "lang", "line_start", "line_end", "char_start", "char_end", "signature", "doc_comment",
    "content_hash", "rank", "meta",
)
_CMP = ("file_id", "parent_id", "kind", "name", "fqn", "package_name", "file_path", "lang",
        "line_start", "line_end", "char_start", "char_end", "signature", "doc_comment",
        "content_hash", "rank", "meta")


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
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def _assign_ids(conn: Connection, app_id: int, graph: Graph) -> dict[str, int]:
    ids = dict(conn.execute(text(
        "SELECT stable_key, id FROM nodes WHERE application_id = :a AND document_id IS NULL"),
        {"a": app_id}).all())
    new = [n.key for n in graph.nodes if n.key not in ids]
    if new:
        fresh = conn.execute(text(
            "SELECT nextval('nodes_id_seq') FROM generate_series(1, :n)"), {"n": len(new)}
        ).scalars().all()
        ids.update(zip(new, fresh, strict=True))
    return ids


def sync_graph(conn: Connection, app_id: int, graph: Graph) -> SyncCounts:
    """Write nodes (with parents and PageRank) then edges, in the caller's transaction."""
    counts = SyncCounts()
    ids = _assign_ids(conn, app_id, graph)
    ranks = pagerank_scaled(graph)
    p = {"app": app_id, "kinds": list(CODE_EDGE_KINDS)}

    conn.execute(text(
        """
        CREATE TEMP TABLE tmp_nodes (
            id bigint, parent_id bigint, stable_key text, kind text, name text, fqn text,
            package_name text, file_path text, lang text, line_start int, line_end int,
            char_start bigint, char_end bigint, signature text, doc_comment text,
            content_hash text, rank float8, meta jsonb
        ) ON COMMIT DROP
        """))
    cur = conn.connection.driver_connection.cursor()
    with cur.copy(f"COPY tmp_nodes ({', '.join(_NODE_COLS)}) FROM STDIN") as copy:
        for n in graph.nodes:
            meta = dict(n.meta)
            content_hash = meta.pop("content_hash", None)
            copy.write_row((
                ids[n.key], ids.get(n.parent_key) if n.parent_key else None, n.key, n.kind,
                n.name, n.fqn, n.package_name, n.file_path, n.lang, n.line_start, n.line_end,
                n.char_start, n.char_end, n.signature, n.doc_comment, content_hash,
                ranks.get(n.key, 1.0), _dumps(meta),
            ))
    conn.execute(text("ALTER TABLE tmp_nodes ADD PRIMARY KEY (id)"))
    # Fresh statistics: without them the planner guesses a tiny table and may pick a
    # nested loop over it (measured: a one-file re-index spending 50 s in one DELETE).
    conn.execute(text("ANALYZE tmp_nodes"))
    counts.nodes_deleted = conn.execute(text(
        """
        DELETE FROM nodes n
         WHERE n.application_id = :app AND n.document_id IS NULL
           AND NOT EXISTS (SELECT 1 FROM tmp_nodes t WHERE t.id = n.id)
        """), p).rowcount
    distinct = " OR ".join(f"n.{c} IS DISTINCT FROM EXCLUDED.{c}" for c in _CMP)
    rows = conn.execute(text(
        f"""
        INSERT INTO nodes AS n (id, application_id, file_id, parent_id, stable_key, kind,
            name, fqn, package_name, file_path, lang, line_start, line_end, char_start,
            char_end, signature, doc_comment, content_hash, rank, meta)
        SELECT t.id, :app, f.id, t.parent_id, t.stable_key, t.kind, t.name, t.fqn,
               t.package_name, t.file_path, t.lang, t.line_start, t.line_end, t.char_start,
               t.char_end, t.signature, t.doc_comment, t.content_hash, t.rank, t.meta
          FROM tmp_nodes t
          LEFT JOIN files f ON f.application_id = :app AND f.path = t.file_path
        ON CONFLICT (application_id, stable_key) DO UPDATE SET
            {", ".join(f"{c} = EXCLUDED.{c}" for c in _CMP)}, updated_at = now()
        WHERE {distinct}
        RETURNING (xmax = 0) AS inserted
        """), p).all()
    counts.nodes_inserted = sum(1 for r in rows if r.inserted)
    counts.nodes_updated = len(rows) - counts.nodes_inserted

    conn.execute(text(
        """
        CREATE TEMP TABLE tmp_edges (
            src_id bigint, dst_id bigint, kind text, confidence real, resolution text,
            lines int[], meta jsonb, PRIMARY KEY (src_id, dst_id, kind)
        ) ON COMMIT DROP
        """))
    with cur.copy("COPY tmp_edges FROM STDIN") as copy:
        for e in graph.edges:
            copy.write_row((ids[e.src_key], ids[e.dst_key], e.kind, e.confidence,
                            e.resolution, sorted(set(e.lines)), _dumps(e.meta)))
    conn.execute(text("ANALYZE tmp_edges"))
    deleted = conn.execute(text(
        """
        DELETE FROM edges e
         WHERE e.application_id = :app AND e.kind = ANY(:kinds)
           AND EXISTS (SELECT 1 FROM nodes s WHERE s.id = e.src_id AND s.document_id IS NULL)
           AND NOT EXISTS (SELECT 1 FROM tmp_edges t
                            WHERE t.src_id = e.src_id AND t.dst_id = e.dst_id
                              AND t.kind = e.kind)
        RETURNING e.src_id, e.dst_id, e.kind
        """), p).all()
    counts.edges_deleted = len(deleted)
    rows = conn.execute(text(
        """
        INSERT INTO edges AS e (application_id, src_id, dst_id, kind, confidence, resolution,
                                lines, meta)
        SELECT :app, src_id, dst_id, kind, confidence, resolution, lines, meta FROM tmp_edges
        ON CONFLICT (src_id, dst_id, kind) DO UPDATE SET
            confidence = EXCLUDED.confidence, resolution = EXCLUDED.resolution,
            lines = EXCLUDED.lines, meta = EXCLUDED.meta
        WHERE (e.confidence, e.resolution, e.lines, e.meta) IS DISTINCT FROM
              (EXCLUDED.confidence, EXCLUDED.resolution, EXCLUDED.lines, EXCLUDED.meta)
        RETURNING (xmax = 0) AS inserted, e.src_id, e.dst_id, e.kind
        """), p).all()
    counts.edges_inserted = sum(1 for r in rows if r.inserted)
    for r in [*deleted, *rows]:
        if r.kind in RELATION_KINDS:
            counts.touched.update((r.src_id, r.dst_id))
    counts.edges_updated = len(rows) - counts.edges_inserted
    return counts
