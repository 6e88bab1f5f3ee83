"""Document services below chunking: prepare (validate, store, extract, graph nodes and
MENTIONS), finalize (status and counts once the pipeline ran), list and delete.

Preparing never raises for bad content: a corrupt or encrypted file ends as status
``failed`` with its ``error_message`` (seed 002), and the caller goes on with the next
file. Invalid requests (type, size, unreadable path) are user errors raised before any
row is written."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text

from graphrag.config import Settings
from graphrag.db.apps import ensure_app, get_app
from graphrag.documents import store
from graphrag.documents.extract import MIME_TYPES, extract, validate_file
from graphrag.documents.mentions import link_mentions
from graphrag.documents.model import DocumentError
from graphrag.documents.nodes import DocumentInfo, write_document_nodes


@dataclass
class Prepared:
    """What preparing one file did: ``status`` is unchanged, processing or failed."""

    document_id: int
    filename: str
    status: str
    error: str | None = None
    units: int = 0
    mentions: int = 0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class DocumentRequest:
    """One file to ingest and the metadata given with it (seed 002's upload form)."""

    path: Path
    source_path: str | None = None  # repo-relative path for repository documents
    metadata: dict[str, Any] = field(default_factory=dict)
    category: str | None = None
    tags: list[str] = field(default_factory=list)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def prepare_document(engine: Engine, settings: Settings, app_name: str,
                     request: DocumentRequest, *, force: bool = False) -> Prepared:
    """Validate, store and extract one file into its document row and graph nodes.

    The same bytes (sha256) or the same source path update one document, never two;
    an already indexed identical file is left alone unless ``force``."""
    path = request.path
    fmt, size = validate_file(path, settings.max_upload_bytes)
    sha = file_sha256(path)
    label = request.source_path or path.name
    with engine.begin() as conn:
        app = ensure_app(conn, app_name)
        existing = store.find_document(conn, app.id, sha, request.source_path)
        doc_id = store.upsert_document(
            conn, app.id, existing, filename=path.name, source_path=request.source_path,
            sha=sha, mime=MIME_TYPES[fmt], size=size, metadata=request.metadata,
            category=request.category, tags=request.tags)
        if existing and existing.sha256 == sha and existing.status == "indexed" and not force:
            return Prepared(doc_id, path.name, "unchanged")
        store.mark(conn, doc_id, "processing")
    dest = store.upload_path(settings.home, app_name, doc_id, path.suffix)
    store.store_original(path, dest)
    if existing and existing.stored_path and existing.stored_path != str(dest):
        store.remove_original(existing.stored_path)
    try:
        extracted = extract(dest, fmt, path.name)
    except DocumentError as exc:
        with engine.begin() as conn:
            store.set_stored_path(conn, doc_id, dest)
            conn.execute(text("DELETE FROM nodes WHERE document_id = :d"), {"d": doc_id})
            store.mark(conn, doc_id, "failed", str(exc), chunk_count=0, sentence_count=0)
        return Prepared(doc_id, path.name, "failed", str(exc))
    info = DocumentInfo(doc_id, label, sha, fmt)
    pages = sum(1 for u in extracted.units if u.kind == "PAGE")
    with engine.begin() as conn:
        store.set_stored_path(conn, doc_id, dest)
        write_document_nodes(conn, app.id, info, extracted)
        mentions = link_mentions(conn, app.id, [doc_id])
        store.mark(conn, doc_id, "processing", None, page_count=extracted.page_count,
                   section_count=len(extracted.units) - pages)
    return Prepared(doc_id, path.name, "processing", None, len(extracted.units), mentions)


_FINALIZE = """
WITH stats AS (
    SELECT d.id,
           count(c.id) AS chunks,
           count(c.id) FILTER (WHERE c.pending) AS pending,
           count(c.id) FILTER (WHERE jsonb_path_exists(c.stage_state,
                                     '$.* ? (@.status == "failed")')) AS failed,
           min(f.error) AS first_error,
           (SELECT count(*) FROM sentences s JOIN chunks c2 ON c2.id = s.chunk_id
             WHERE c2.document_id = d.id) AS sentences
      FROM documents d
      LEFT JOIN chunks c ON c.document_id = d.id
      LEFT JOIN LATERAL (
          SELECT v->>'error' AS error FROM jsonb_each(c.stage_state) AS e(k, v)
           WHERE v->>'status' = 'failed' LIMIT 1) f ON true
     WHERE d.application_id = :a AND d.status = 'processing'
     GROUP BY d.id
)
UPDATE documents d SET
    chunk_count = s.chunks, sentence_count = s.sentences,
    status = CASE WHEN s.pending > 0 THEN 'processing'
                  WHEN s.chunks > 0 AND s.failed = s.chunks THEN 'failed'
                  ELSE 'indexed' END,
    error_message = CASE WHEN s.failed > 0
                         THEN s.failed || ' of ' || s.chunks || ' chunks failed: ' || s.first_error
                    END,
    processed_at = now(), updated_at = now()
  FROM stats s WHERE s.id = d.id
RETURNING d.id, d.status
"""


def finalize_documents(engine: Engine, app_name: str) -> dict[int, str]:
    """Settle every ``processing`` document of the application from its chunks' stage
    states: indexed (with counts), failed (every chunk failed), or still processing."""
    with engine.begin() as conn:
        app = get_app(conn, app_name)
        return {r.id: r.status for r in conn.execute(text(_FINALIZE), {"a": app.id})}


def list_documents(engine: Engine, app_name: str) -> list[dict[str, Any]]:
    """The application's documents with status, counts and error message."""
    with engine.connect() as conn:
        return store.list_documents(conn, get_app(conn, app_name).id)


_DELETE_COUNTS = """
SELECT (SELECT count(*) FROM chunks WHERE node_id IN (SELECT id FROM dn)) AS chunks,
       (SELECT count(*) FROM sentences s JOIN chunks c ON c.id = s.chunk_id
         WHERE c.node_id IN (SELECT id FROM dn)) AS sentences,
       (SELECT count(*) FROM dn) AS nodes,
       (SELECT count(*) FROM edges WHERE src_id IN (SELECT id FROM dn)
                                      OR dst_id IN (SELECT id FROM dn)) AS edges
"""


def delete_document(engine: Engine, app_name: str, document_id: int) -> dict[str, Any]:
    """Remove a document, its nodes, edges, chunks and sentences (one transaction, by
    cascade) and its stored original; returns what was removed (seed 002)."""
    with engine.begin() as conn:
        app = get_app(conn, app_name)
        doc = store.get_document(conn, app.id, document_id)
        counts = conn.execute(text(
            "WITH dn AS (SELECT id FROM nodes WHERE application_id = :a AND document_id = :d)"
            + _DELETE_COUNTS), {"a": app.id, "d": document_id}).mappings().one()
        conn.execute(text("DELETE FROM documents WHERE id = :d AND application_id = :a"),
                     {"d": document_id, "a": app.id})
    removed = store.remove_original(doc.stored_path)
    return {"status": "deleted", "document_id": document_id, "filename": doc.filename,
            "chunks_deleted": counts["chunks"], "sentences_deleted": counts["sentences"],
            "nodes_deleted": counts["nodes"], "edges_deleted": counts["edges"],
            "file_removed": removed}
