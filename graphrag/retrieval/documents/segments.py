"""Segment ids of document chunks: ``{document_id}:{segment_index}``.

A document's segments are its page chunks in reading order -- unit (page or section)
position, then chunk index -- numbered from 0. The number is computed, not stored: the
same content always gives the same chunks in the same order, so an id stays valid across
re-indexing of unchanged content. Code chunks keep their plan id as segment id."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from graphrag.db.context import AppContext
from graphrag.documents.store import get_document
from graphrag.retrieval.documents import store

_SEGMENT_ID = re.compile(r"^\s*(\d+):(\d+)\s*$")

@dataclass(frozen=True)
class Segment:
    """One document chunk as a citable segment."""

    id: int  # chunks.id
    chunk_id: str  # plan id
    document_id: int
    filename: str
    page_number: int | None
    chunk_index: int
    content: str
    position: int
    segment_index: int
    node_id: int
    fqn: str | None
    node_kind: str = "PAGE"

    @property
    def segment_id(self) -> str:
        return make_segment_id(self.document_id, self.segment_index)

    @property
    def page_idx(self) -> int | None:
        """0-based page index (None for sections)."""
        return self.page_number - 1 if self.page_number is not None else None


def make_segment_id(document_id: int, segment_index: int) -> str:
    return f"{document_id}:{segment_index}"


_BIGINT_LIMIT = 2**63


def parse_segment_id(value: str) -> tuple[int, int] | None:
    """(document_id, segment_index) of a segment id; None for anything else (plan ids)."""
    match = _SEGMENT_ID.match(value or "")
    if not match:
        return None
    doc, index = int(match.group(1)), int(match.group(2))
    # ids beyond PostgreSQL's bigint cannot exist; treat them as unknown, not as an error
    return (doc, index) if doc < _BIGINT_LIMIT and index < _BIGINT_LIMIT else None


def segment_from_row(r: Any) -> Segment:
    return Segment(r.id, r.plan_id, r.document_id, r.filename, r.page_number, r.chunk_index,
                   r.content or "", int(r.position or 0), int(r.segment_index), r.node_id,
                   r.fqn, r.node_kind)


def load_segments(conn: Connection, app_id: int, document_ids: Sequence[int] | None = None,
                  ) -> list[Segment]:
    """Every segment of the given documents (None: of all the application's documents),
    ordered by document and segment index."""
    rows = store.segment_rows(conn, app_id, document_ids)
    return [segment_from_row(r) for r in rows]


def document_segments(ctx: AppContext, document_id: int) -> list[Segment]:
    """One document's segments in order (:class:`NotFound` for an id of no document of
    the context's application)."""
    with ctx.engine.connect() as conn:
        get_document(conn, ctx.app_id, document_id)
        return load_segments(conn, ctx.app_id, [document_id])


def segment_ids(conn: Connection, chunk_row_ids: Sequence[int]) -> dict[int, str]:
    """Segment id by ``chunks.id`` for the document chunks among the given rows (for
    context builders: ``[SEG={segment_ids.get(id, plan_id)}]``)."""
    if not chunk_row_ids:
        return {}
    rows = store.segment_index_rows(conn, chunk_row_ids)
    return {r.id: make_segment_id(r.document_id, r.segment_index) for r in rows}
