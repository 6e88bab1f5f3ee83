"""The document retrieval store: the reads of sentences, of document chunks as segments
(their place in their document) and of cited chunks.

Each function runs one statement with bound parameters; the sentence search's ``where``
comes from :func:`graphrag.retrieval.search.store.filter_sql`, which binds every value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, text

# --- sentences -------------------------------------------------------------------------

def _sentence_sql(where: str, exact: bool) -> str:
    order = "(s.emb <=> CAST(:q AS vector)) + 0" if exact else "s.emb <=> CAST(:q AS vector)"
    return (
        "SELECT s.chunk_id, s.content, 1 - (s.emb <=> CAST(:q AS vector)) AS score"
        " FROM sentences s JOIN chunks c ON c.id = s.chunk_id JOIN nodes n ON n.id = c.node_id"
        f" WHERE s.application_id = ANY(:apps) AND {where} AND s.emb IS NOT NULL"
        f" ORDER BY {order} LIMIT :lim"
    )


def nearest_sentences(conn: Connection, where: str, params: dict[str, Any], exact: bool
                      ) -> list[Any]:
    """(chunk_id, content, score) of the sentences nearest ``:q`` passing ``where``:
    through the HNSW index, or (``exact``) by scanning the filtered rows."""
    return list(conn.execute(text(_sentence_sql(where, exact=exact)), params).all())


# --- segments --------------------------------------------------------------------------

# Unit position of a page chunk: page number for PDF pages, section ordinal for sections.
UNIT_POSITION = "(c.pipeline->'params'->>'unitIndex')::int"

SEGMENT_FROM = ("chunks c JOIN documents d ON d.id = c.document_id"
                " JOIN nodes n ON n.id = c.node_id")
SEGMENT_COLUMNS = f"""
    c.id, c.plan_id, c.document_id, d.filename, c.page_number, c.chunk_index, c.content,
    c.node_id, n.fqn, n.kind AS node_kind,
    {UNIT_POSITION} AS position,
    (row_number() OVER (PARTITION BY c.document_id
                        ORDER BY {UNIT_POSITION}, c.chunk_index, c.id) - 1) AS segment_index
"""


def segment_rows(conn: Connection, app_id: int, document_ids: Sequence[int] | None
                 ) -> list[Any]:
    """Segment rows of the given documents (None: every document of the application),
    by document and segment index."""
    doc_filter = "" if document_ids is None else "AND c.document_id = ANY(:docs)"
    return list(conn.execute(text(
        f"SELECT {SEGMENT_COLUMNS} FROM {SEGMENT_FROM}"
        f" WHERE c.application_id = :a AND c.source = 'doc' AND c.kind = 'page' {doc_filter}"
        " ORDER BY c.document_id, segment_index"),
        {"a": app_id, "docs": list(document_ids or [])}).all())


def segment_index_rows(conn: Connection, chunk_row_ids: Sequence[int]) -> list[Any]:
    """(id, document_id, segment_index) of the document chunks among the given rows."""
    return list(conn.execute(text(
        f"""
        SELECT s.id, s.document_id, s.segment_index FROM (
            SELECT {SEGMENT_COLUMNS} FROM {SEGMENT_FROM}
             WHERE c.kind = 'page' AND c.document_id IN (
                 SELECT document_id FROM chunks WHERE id = ANY(:ids)
                    AND document_id IS NOT NULL)) s
         WHERE s.id = ANY(:ids)
        """), {"ids": list(chunk_row_ids)}).all())


_RESOLVE = f"""
SELECT * FROM (
    SELECT {SEGMENT_COLUMNS} FROM {SEGMENT_FROM}
     WHERE c.application_id = :a AND c.kind = 'page' AND c.document_id IN (
         SELECT document_id FROM chunks WHERE application_id = :a AND plan_id = ANY(:plans)
         UNION SELECT unnest(CAST(:docs AS bigint[])))
) s
WHERE s.plan_id = ANY(:plans) OR (s.document_id || ':' || s.segment_index) = ANY(:segs)
"""

_NEIGHBOURS = f"""
SELECT * FROM (
    SELECT {SEGMENT_COLUMNS} FROM {SEGMENT_FROM}
     WHERE c.application_id = :a AND c.document_id = :d AND c.kind = 'page'
) s
WHERE s.position BETWEEN :lo AND :hi
ORDER BY s.segment_index
"""


def named_segment_rows(conn: Connection, app_id: int, plans: Sequence[str],
                       segs: Sequence[str], docs: Sequence[int]) -> list[Any]:
    """Segment rows of the application's document chunks named by plan id (``plans``)
    or segment id (``segs``, of the documents ``docs``)."""
    return list(conn.execute(text(_RESOLVE), {"a": app_id, "plans": list(plans),
                                              "segs": list(segs), "docs": list(docs)}).all())


def segment_rows_between(conn: Connection, app_id: int, document_id: int, lo: int, hi: int
                         ) -> list[Any]:
    """Segment rows of one document whose unit position is in ``[lo, hi]``, in order."""
    return list(conn.execute(text(_NEIGHBOURS), {
        "a": app_id, "d": document_id, "lo": lo, "hi": hi}).all())


# --- citations -------------------------------------------------------------------------

_CODE_CHUNKS = """
SELECT c.plan_id, c.content, n.fqn, n.file_path,
       COALESCE(lower(c.span_lines), n.line_start) AS line_start,
       COALESCE(upper(c.span_lines) - 1, n.line_end) AS line_end
  FROM chunks c JOIN nodes n ON n.id = c.node_id
 WHERE c.application_id = :a AND c.plan_id = ANY(:ids)
"""

_MEMBER_CHUNKS = """
SELECT DISTINCT ON (k.id) k.id AS plan_id, c.content, n.fqn, n.file_path,
       n.line_start, n.line_end
  FROM unnest(CAST(:ids AS text[])) AS k(id)
  JOIN chunks c ON c.application_id = :a AND c.source = 'code'
   AND c.node_id = CAST(split_part(k.id, ':', 1) AS bigint)
  JOIN nodes n ON n.id = c.node_id
 ORDER BY k.id, c.chunk_index
"""


def cited_chunk_rows(conn: Connection, app_id: int, plan_ids: Sequence[str]) -> list[Any]:
    """(plan_id, content, fqn, file_path, line_start, line_end) of the chunks with the
    given plan ids."""
    return list(conn.execute(text(_CODE_CHUNKS), {"a": app_id, "ids": list(plan_ids)}))


def cited_member_rows(conn: Connection, app_id: int, member_ids: Sequence[str]) -> list[Any]:
    """The same for split members named ``{node}:code:snippet``: the member's lines and
    its first part's text."""
    return list(conn.execute(text(_MEMBER_CHUNKS), {"a": app_id, "ids": list(member_ids)}))


def node_chunk_ids(conn: Connection, app_id: int, node_ids: Sequence[int]) -> list[str]:
    """The plan ids of the nodes' chunks, in chunk order."""
    return list(conn.execute(text(
        "SELECT plan_id FROM chunks WHERE application_id = :a AND node_id = ANY(:n)"
        " ORDER BY node_id, chunk_index, id"), {"a": app_id, "n": list(node_ids)}).scalars())
