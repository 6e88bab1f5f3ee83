"""Loading chunk rows (with their node) as :class:`Candidate` objects."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection

from graphrag.retrieval.search import store
from graphrag.retrieval.search.model import Candidate


def load_candidates(conn: Connection, apps: dict[int, str],
                    ids: Sequence[int]) -> dict[int, Candidate]:
    """Chunk and node fields of the given chunk ids (only the given applications')."""
    if not ids:
        return {}
    rows = store.candidate_rows(conn, list(apps), ids)
    return {r.id: candidate_from_row(r, apps) for r in rows}


def candidate_from_row(r: Any, apps: dict[int, str]) -> Candidate:
    """A :class:`Candidate` from a row of ``store.CANDIDATE_COLUMNS``."""
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
        chunk_line_start=chunk_start, chunk_line_end=chunk_end, parent_id=r.parent_id,
    )


