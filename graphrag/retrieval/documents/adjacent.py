"""Adjacent pages: widen retrieved document chunks with the chunks of the
neighbouring pages of the same document.

Empty input -> an empty, successful result. Otherwise the originals plus every chunk of
the same document whose page lies within ``page_range`` of an original's page, not on an
original's own page and not already present; sorted by (filename, page number, segment
index); with statistics. One query resolves the input ids and one query per document
loads the candidate pages (never one per chunk). For Markdown and DOCX documents the
"page" is the section's position in the document."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from graphrag.db.context import AppContext, AppScope
from graphrag.errors import InvalidInput
from graphrag.retrieval.documents import store
from graphrag.retrieval.documents.segments import Segment, parse_segment_id, segment_from_row

DEFAULT_PAGE_RANGE = 2

@dataclass
class _Entry:
    segment: Segment
    added: bool

    def to_dict(self) -> dict[str, Any]:
        s = self.segment
        return {"chunk_id": s.chunk_id, "segment_id": s.segment_id,
                "document_id": s.document_id, "filename": s.filename,
                "page_number": s.page_number if s.page_number is not None else s.position,
                "chunk_index": s.chunk_index, "content": s.content, "added": self.added,
                "node_id": s.node_id, "fqn": s.fqn, "kind": s.node_kind}


def resolve(conn: Connection, app_id: int, ids: Sequence[str]) -> tuple[list[Segment], list[str]]:
    """Document chunks named by plan id or segment id (``{doc}:{index}``); and the ids
    that name no document chunk of this application."""
    segs = [i for i in ids if parse_segment_id(i)]
    plans = [i for i in ids if not parse_segment_id(i)]
    docs = sorted({parse_segment_id(i)[0] for i in segs})  # type: ignore[index]
    rows = store.named_segment_rows(conn, app_id, plans, segs, docs)
    found = [segment_from_row(r) for r in rows]
    known = {s.chunk_id for s in found} | {s.segment_id for s in found}
    return found, [i for i in ids if i not in known]


def _expand(conn: Connection, app_id: int, originals: list[Segment], page_range: int,
            ) -> list[_Entry]:
    entries = [_Entry(s, False) for s in originals]
    seen = {s.id for s in originals}
    by_doc: dict[int, list[Segment]] = {}
    for s in originals:
        by_doc.setdefault(s.document_id, []).append(s)
    for doc_id, segs in by_doc.items():
        pages = {s.position for s in segs}
        rows = store.segment_rows_between(conn, app_id, doc_id, min(pages) - page_range,
                                          max(pages) + page_range)
        for r in rows:
            cand = segment_from_row(r)
            if cand.id in seen or cand.position in pages:
                continue
            if any(abs(cand.position - p) <= page_range for p in pages):
                entries.append(_Entry(cand, True))
                seen.add(cand.id)
    entries.sort(key=lambda e: (e.segment.filename, e.segment.position,
                                e.segment.segment_index))
    return entries


def _statistics(entries: list[_Entry], page_range: int, unknown: list[str]) -> dict[str, Any]:
    docs: dict[int, dict[str, Any]] = {}
    for e in entries:
        d = docs.setdefault(e.segment.document_id, {
            "document_id": e.segment.document_id, "filename": e.segment.filename,
            "original": 0, "added": 0, "pages": set()})
        d["added" if e.added else "original"] += 1
        d["pages"].add(e.segment.position)
    per_doc = [{**d, "pages": sorted(d["pages"])} for d in docs.values()]
    return {"original_count": sum(not e.added for e in entries),
            "added_count": sum(e.added for e in entries), "total_count": len(entries),
            "page_range": page_range, "documents": per_doc,
            "pages_covered": sum(len(d["pages"]) for d in per_doc), "unknown_ids": unknown}


def adjacent_chunks(ctx: AppContext, chunk_ids: Sequence[str],
                    page_range: int = DEFAULT_PAGE_RANGE) -> dict[str, Any]:
    """``{"expanded_chunks": [...], "statistics": {...}}`` (see the module docstring).
    Ids that are not document chunks of the application are listed in
    ``statistics.unknown_ids`` and otherwise ignored."""
    if page_range < 0:
        raise InvalidInput("--page-range must not be negative")
    ids = list(dict.fromkeys(i.strip() for i in chunk_ids if i and i.strip()))
    if not ids:
        return {"expanded_chunks": [], "statistics": _statistics([], page_range, [])}
    app_id = ctx.app_id
    with ctx.engine.connect() as conn:
        originals, unknown = resolve(conn, app_id, ids)
        entries = _expand(conn, app_id, originals, page_range)
    return {"expanded_chunks": [e.to_dict() for e in entries],
            "statistics": _statistics(entries, page_range, unknown)}


def with_adjacent_pages(scope: AppScope, hits: list[dict[str, Any]], page_range: int
                        ) -> list[dict[str, Any]]:
    """Search hits followed by the chunks of neighbouring pages of their document hits,
    shaped like hits, with ``added_by = {"relation": "adjacent-page", "fqn", "chunk_id"}``
    naming the nearest hit of the same document."""
    out = list(hits)
    for application in scope.apps:
        app = application.name
        mine = [h for h in hits if h.get("app", app) == app and h.get("source") == "doc"]
        if not mine:
            continue
        present = {h["chunk_id"] for h in mine}
        expanded = adjacent_chunks(scope.context(application), list(present),
                                   page_range)["expanded_chunks"]
        origins = [e for e in expanded if not e["added"]]
        for e in expanded:
            if not e["added"] or e["chunk_id"] in present:
                continue
            same_doc = [o for o in origins if o["document_id"] == e["document_id"]]
            near = min(same_doc, key=lambda o: abs(o["page_number"] - e["page_number"]))
            out.append(_adjacent_hit(app, e, near))
    return out


def _adjacent_hit(app: str, e: dict[str, Any], near: dict[str, Any]) -> dict[str, Any]:
    return {"chunk_id": e["chunk_id"], "node_id": e["node_id"], "fqn": e["fqn"],
            "kind": e["kind"], "file_path": e["filename"], "line_start": None, "line_end": None,
            "page_number": e["page_number"], "score": 0.0, "snippet": e["content"][:400],
            "source": "doc", "app": app, "segment_id": e["segment_id"],
            "added_by": {"relation": "adjacent-page", "fqn": near["fqn"],
                         "chunk_id": near["chunk_id"]}}
