"""The context store: the nodes, chunks and members a context block shows.

Each function runs one statement with bound parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, text

# --- context blocks (assemble) ---------------------------------------------------------

_NODES_SQL = """
SELECT id, kind, name, fqn, file_path, lang, line_start, line_end, page_number, signature,
       doc_comment, meta, parent_id
  FROM nodes WHERE id = ANY(:ids)
"""

_CHUNKS_SQL = """
SELECT c.id, c.plan_id, c.node_id, c.source, c.chunk_index, c.content, c.content_raw,
       c.explain_md, c.explain_quality->>'method' AS summary_method,
       lower(c.span_lines) AS span_start, upper(c.span_lines) - 1 AS span_end,
       c.pipeline->'params'->'elide' AS elide, COALESCE(c.page_number, n.page_number)
       AS page_number
  FROM chunks c JOIN nodes n ON n.id = c.node_id
 WHERE c.application_id = :a AND c.node_id = ANY(:ids)
 ORDER BY c.node_id, c.source, c.chunk_index NULLS FIRST, lower(c.span_lines), c.plan_id
"""

# Code chunks of every node inside the given nodes' lines (same file): what re-joins a
# member whose chunks elide nested bodies (a class's constructor, a nested function).
_INNER_CHUNKS_SQL = """
SELECT p.id AS owner_id, lower(c.span_lines) AS span_start,
       upper(c.span_lines) - 1 AS span_end, c.content_raw,
       c.pipeline->'params'->'elide' AS elide
  FROM nodes p
  JOIN nodes n ON n.file_id = p.file_id
              AND n.line_start >= p.line_start AND n.line_end <= p.line_end
  JOIN chunks c ON c.node_id = n.id AND c.source = 'code'
 WHERE p.id = ANY(:ids) AND p.file_id IS NOT NULL AND c.content_raw IS NOT NULL
   AND c.span_lines IS NOT NULL
"""

_MEMBERS_SQL = """
SELECT parent_id, id, kind, name, fqn, signature, doc_comment, lang, line_start, line_end
  FROM nodes WHERE parent_id = ANY(:ids)
 ORDER BY parent_id, line_start NULLS LAST, id
"""


def block_node_rows(conn: Connection, ids: Sequence[int]) -> list[Any]:
    """The node fields a context block shows."""
    return list(conn.execute(text(_NODES_SQL), {"ids": list(ids)}))


def block_chunk_rows(conn: Connection, app_id: int, node_ids: Sequence[int]) -> list[Any]:
    """The chunks of the given nodes, by node, source and chunk index."""
    return list(conn.execute(text(_CHUNKS_SQL), {"a": app_id, "ids": list(node_ids)}))


def inner_chunk_rows(conn: Connection, node_ids: Sequence[int]) -> list[Any]:
    """Code chunks of every node inside the given nodes' lines (``owner_id``: which)."""
    return list(conn.execute(text(_INNER_CHUNKS_SQL), {"ids": list(node_ids)}))


def member_rows(conn: Connection, parent_ids: Sequence[int]) -> list[Any]:
    """Members of the given nodes, by parent, in source order."""
    return list(conn.execute(text(_MEMBERS_SQL), {"ids": list(parent_ids)}))


def ids_of_kinds(conn: Connection, ids: Sequence[int], kinds: Sequence[str]) -> list[int]:
    """Those of the given nodes whose kind is one of ``kinds``."""
    return [int(i) for i in conn.execute(text(
        "SELECT id FROM nodes WHERE id = ANY(:ids) AND kind = ANY(:k)"),
        {"ids": list(ids), "k": list(kinds)}).scalars()]
