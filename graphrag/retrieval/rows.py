"""Loading chunk rows (with their node) as :class:`Candidate` objects."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, text

from graphrag.retrieval.model import Candidate

CANDIDATE_COLUMNS = """
    c.id, c.plan_id, c.node_id, c.application_id, c.source, c.kind AS chunk_kind,
    c.content, c.explain_md, c.rank_boost,
    lower(c.span_lines) AS span_start, upper(c.span_lines) - 1 AS span_end,
    COALESCE(c.page_number, n.page_number) AS page_number,
    n.fqn, n.kind, n.file_path, n.line_start, n.line_end
"""

_DETAILS_SQL = f"""
    SELECT {CANDIDATE_COLUMNS}
      FROM chunks c JOIN nodes n ON n.id = c.node_id
     WHERE c.id = ANY(:ids) AND c.application_id = ANY(:apps)
"""


def load_candidates(conn: Connection, apps: dict[int, str],
                    ids: Sequence[int]) -> dict[int, Candidate]:
    """Chunk and node fields of the given chunk ids (only the given applications')."""
    if not ids:
        return {}
    rows = conn.execute(text(_DETAILS_SQL), {"ids": list(ids), "apps": list(apps)}).all()
    return {r.id: candidate_from_row(r, apps) for r in rows}


def candidate_from_row(r: Any, apps: dict[int, str]) -> Candidate:
    """A :class:`Candidate` from a row shaped like ``_DETAILS_SQL``'s."""
    has_span = r.span_start is not None
    chunk_start = r.span_start if has_span else r.line_start
    chunk_end = r.span_end if has_span else r.line_end
    # A hit names the node's lines (a long function split into parts is one answer); the
    # chunk's own lines stay available as chunk_line_start/end.
    has_node_lines = r.line_start is not None and r.line_end is not None
    return Candidate(
        id=r.id, plan_id=r.plan_id, node_id=r.node_id, app=apps[r.application_id],
        fqn=r.fqn, kind=r.kind, source=r.source, chunk_kind=r.chunk_kind,
        file_path=r.file_path,
        line_start=r.line_start if has_node_lines else chunk_start,
        line_end=r.line_end if has_node_lines else chunk_end,
        page_number=r.page_number, rank_boost=float(r.rank_boost or 1.0),
        content=r.content or "", explain_md=r.explain_md,
        chunk_line_start=chunk_start, chunk_line_end=chunk_end,
    )


