"""The ``documents`` rows and the stored originals under
``$GRAPHRAG_HOME/uploads/{app}/{document_id}{ext}``."""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, text

from graphrag.documents.extract import open_regular
from graphrag.errors import NotFound

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class DocumentRow:
    id: int
    filename: str
    source_path: str | None
    stored_path: str | None
    sha256: str
    status: str


def upload_path(home: Path, app: str, document_id: int, ext: str) -> Path:
    """Where the original of a document is kept (the app name made safe as a folder)."""
    return home / "uploads" / (_UNSAFE.sub("_", app) or "_") / f"{document_id}{ext.lower()}"


def store_original(src: Path, dest: Path, root: Path | None = None) -> None:
    """Copy the file given to the upload folder (regular files only, inside ``root`` when
    given, see :func:`graphrag.documents.extract.open_regular`). The copy replaces
    ``dest`` whole, once written: a job still reading the previous original (the same
    upload sent again) reads it to its end."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if src.resolve() == dest.resolve():
        return
    part = dest.with_name(f".{dest.name}.{os.getpid()}.{threading.get_ident()}.part")
    try:
        with open_regular(src, root) as fh, part.open("wb") as out:
            shutil.copyfileobj(fh, out, 1 << 20)
        os.replace(part, dest)
    finally:
        part.unlink(missing_ok=True)


def remove_original(stored_path: str | None) -> bool:
    """Delete a stored original; False when it was already gone."""
    if not stored_path:
        return False
    try:
        Path(stored_path).unlink()
        return True
    except FileNotFoundError:
        return False


_COLS = "id, filename, source_path, stored_path, sha256, status"


def find_by_sha(conn: Connection, app_id: int, sha: str) -> DocumentRow | None:
    """The application's document with these bytes (sha256 is unique per application)."""
    row = conn.execute(text(f"SELECT {_COLS} FROM documents WHERE application_id = :a"
                            " AND sha256 = :s"), {"a": app_id, "s": sha}).first()
    return DocumentRow(*row) if row else None


def find_by_source(conn: Connection, app_id: int, source_path: str) -> DocumentRow | None:
    """The document ingested from this repository path."""
    row = conn.execute(text(f"SELECT {_COLS} FROM documents WHERE application_id = :a"
                            " AND source_path = :p ORDER BY id LIMIT 1"),
                       {"a": app_id, "p": source_path}).first()
    return DocumentRow(*row) if row else None


def get_document(conn: Connection, app_id: int, document_id: int) -> DocumentRow:
    row = conn.execute(text(f"SELECT {_COLS} FROM documents WHERE application_id = :a"
                            " AND id = :d"), {"a": app_id, "d": document_id}).first()
    if row is None:
        raise NotFound(f"no document {document_id} in this application")
    return DocumentRow(*row)


# Serialises the claims of one application's documents (the two-key advisory lock space,
# apart from graph indexing's one-key locks and the BM25 folding's class).
_CLAIM_LOCK_CLASS = 4_026


def lock_claims(conn: Connection, app_id: int) -> None:
    """One document claim per application at a time, until the transaction ends: two
    runs that find no row for the same bytes would both insert one (a unique violation
    that failed the second run)."""
    conn.execute(text("SELECT pg_advisory_xact_lock(:cls, CAST(:app AS int))"),
                 {"cls": _CLAIM_LOCK_CLASS, "app": app_id})


def insert_document(conn: Connection, app_id: int, *, filename: str, source_path: str | None,
                    sha: str, mime: str, size: int, metadata: dict[str, Any],
                    category: str | None, tags: list[str]) -> int:
    """A new document row (status processing); returns its id."""
    return int(conn.execute(text(
        """
        INSERT INTO documents (application_id, filename, source_path, sha256, mime_type,
                               size_bytes, status, metadata, category, tags)
        VALUES (:a, :f, :p, :s, :m, :z, 'processing', CAST(:meta AS jsonb), :c, :t)
        RETURNING id
        """), {"a": app_id, "f": filename, "p": source_path, "s": sha, "m": mime, "z": size,
               "meta": json.dumps(metadata), "c": category, "t": tags}).scalar_one())


def update_document(conn: Connection, document_id: int, *, sha: str, size: int,
                    metadata: dict[str, Any], category: str | None, tags: list[str]) -> None:
    """New bytes and/or metadata for an existing document. Its name, source path and MIME
    type never change here: identical bytes under another name are an alias."""
    conn.execute(text(
        """
        UPDATE documents SET sha256 = :s, size_bytes = :z,
               metadata = metadata || CAST(:meta AS jsonb),
               category = COALESCE(:c, category),
               tags = CASE WHEN cardinality(CAST(:t AS text[])) > 0 THEN :t ELSE tags END,
               updated_at = now()
         WHERE id = :d
        """), {"s": sha, "z": size, "meta": json.dumps(metadata), "c": category, "t": tags,
               "d": document_id})


def add_alias(conn: Connection, document_id: int, name: str) -> None:
    """Record another name under which the document's bytes were given
    (``metadata.aliases``, each name once)."""
    conn.execute(text(
        """
        UPDATE documents
           SET metadata = jsonb_set(metadata, '{aliases}',
                   COALESCE(metadata->'aliases', '[]'::jsonb) || to_jsonb(CAST(:n AS text))),
               updated_at = now()
         WHERE id = :d
           AND NOT COALESCE(metadata->'aliases', '[]'::jsonb) @> to_jsonb(ARRAY[CAST(:n AS text)])
        """), {"d": document_id, "n": name})


def stored_paths(conn: Connection, app_id: int) -> list[str]:
    """The stored originals of every document of the application."""
    return [r[0] for r in conn.execute(text(
        "SELECT stored_path FROM documents WHERE application_id = :a"
        " AND stored_path IS NOT NULL"), {"a": app_id})]


def set_stored_path(conn: Connection, document_id: int, path: Path) -> None:
    conn.execute(text("UPDATE documents SET stored_path = :p WHERE id = :d"),
                 {"p": str(path), "d": document_id})


def mark(conn: Connection, document_id: int, status: str, error: str | None = None,
         **counts: int | None) -> None:
    """Set status and error message (and any of page/section/chunk/sentence counts)."""
    allowed = {"page_count", "section_count", "chunk_count", "sentence_count"}
    sets = [f"{k} = :{k}" for k in counts if k in allowed]
    sql = ("UPDATE documents SET status = :st, error_message = :err, updated_at = now(),"
           " processed_at = CASE WHEN CAST(:st AS text) IN ('processing', 'queued')"
           " THEN processed_at"
           " ELSE now() END"
           + "".join(", " + s for s in sets) + " WHERE id = :d")
    conn.execute(text(sql), {"st": status, "err": error, "d": document_id,
                             **{k: v for k, v in counts.items() if k in allowed}})


def list_documents(conn: Connection, app_id: int,
                   document_id: int | None = None) -> list[dict[str, Any]]:
    """The application's documents (or the one with ``document_id``) as dicts."""
    rows = conn.execute(text(
        """
        SELECT id, filename, source_path, stored_path, sha256, mime_type, size_bytes, status,
               error_message, metadata, category, tags, page_count, section_count,
               chunk_count, sentence_count, created_at, processed_at
          FROM documents WHERE application_id = :a
           AND (CAST(:d AS bigint) IS NULL OR id = :d) ORDER BY id
        """), {"a": app_id, "d": document_id}).mappings().all()
    return [{k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in r.items()}
            for r in rows]


def delete_row(conn: Connection, document_id: int) -> None:
    """Remove one document row (its nodes, chunks and sentences by cascade)."""
    conn.execute(text("DELETE FROM documents WHERE id = :d"), {"d": document_id})


def delete_nodes(conn: Connection, document_id: int) -> None:
    """Remove the graph nodes extracted from a document (its chunks by cascade)."""
    conn.execute(text("DELETE FROM nodes WHERE document_id = :d"), {"d": document_id})


_FINALIZE = """
WITH stats AS (
    SELECT d.id,
           count(c.id) AS chunks,
           count(c.id) FILTER (WHERE c.pending) AS pending,
           count(c.id) FILTER (WHERE jsonb_path_exists(c.stage_state,
                                     '$.* ? (@.status == "failed")')) AS failed,
           min(f.error) AS first_error,
           (SELECT count(*) FROM sentences s JOIN chunks c2 ON c2.id = s.chunk_id
             WHERE c2.document_id = d.id) AS sentences,
           -- the DOCUMENT node carries the sha256 its units were extracted from
           EXISTS (SELECT 1 FROM nodes r WHERE r.application_id = d.application_id
                      AND r.stable_key = 'doc:' || d.id AND r.content_hash = d.sha256
                  ) AS extracted
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
    status = CASE WHEN NOT s.extracted THEN 'failed'
                  WHEN s.pending > 0 THEN 'processing'
                  WHEN s.chunks > 0 AND s.failed = s.chunks THEN 'failed'
                  ELSE 'indexed' END,
    error_message = CASE WHEN NOT s.extracted THEN :interrupted
                         WHEN s.failed > 0
                         THEN s.failed || ' of ' || s.chunks || ' chunks failed: ' || s.first_error
                    END,
    processed_at = now(), updated_at = now()
  FROM stats s WHERE s.id = d.id
RETURNING d.id, d.status
"""


def settle_processing(conn: Connection, app_id: int, interrupted: str) -> dict[int, str]:
    """Status (and counts) of every ``processing`` document of the application from its
    chunks' stage states; a document whose text was never extracted for its current
    bytes fails with ``interrupted``. Returns the new status by document id."""
    return {r.id: r.status for r in conn.execute(
        text(_FINALIZE), {"a": app_id, "interrupted": interrupted})}


_DELETE_COUNTS = """
WITH dn AS (SELECT id FROM nodes WHERE application_id = :a AND document_id = :d)
SELECT (SELECT count(*) FROM chunks WHERE node_id IN (SELECT id FROM dn)) AS chunks,
       (SELECT count(*) FROM sentences s JOIN chunks c ON c.id = s.chunk_id
         WHERE c.node_id IN (SELECT id FROM dn)) AS sentences,
       (SELECT count(*) FROM dn) AS nodes,
       (SELECT count(*) FROM edges WHERE src_id IN (SELECT id FROM dn)
                                      OR dst_id IN (SELECT id FROM dn)) AS edges
"""


def delete_counted(conn: Connection, app_id: int, document_id: int) -> dict[str, int]:
    """Delete a document of the application (cascade: its nodes, edges, chunks and
    sentences); returns how many of each went with it."""
    counts = dict(conn.execute(text(_DELETE_COUNTS),
                               {"a": app_id, "d": document_id}).mappings().one())
    conn.execute(text("DELETE FROM documents WHERE id = :d AND application_id = :a"),
                 {"d": document_id, "a": app_id})
    return counts


def queued_uploads(conn: Connection) -> list[Any]:
    """Every application's uploads still ``queued`` (accepted, not yet processed), oldest
    first, with the application's name."""
    return list(conn.execute(text(
        "SELECT d.id, d.filename, d.source_path, d.stored_path, d.sha256, d.application_id,"
        " a.name AS app_name, d.updated_at > now() - interval '10 minutes' AS recent"
        " FROM documents d JOIN applications a ON a.id = d.application_id"
        " WHERE d.status = 'queued' ORDER BY d.id")))


def take_queued(conn: Connection, document_id: int) -> bool:
    """Move a ``queued`` document to ``processing``; False when it is no longer queued
    (another server process took it first, or it was deleted)."""
    return conn.execute(text(
        "UPDATE documents SET status = 'processing', updated_at = now()"
        " WHERE id = :d AND status = 'queued' RETURNING id"), {"d": document_id}
        ).first() is not None


def fail_queued(conn: Connection, document_id: int, reason: str) -> None:
    """Fail a document still ``queued`` (one another process took meanwhile is left)."""
    conn.execute(text(
        "UPDATE documents SET status = 'failed', error_message = :e, updated_at = now(),"
        " processed_at = now() WHERE id = :d AND status = 'queued'"),
        {"d": document_id, "e": reason})


def has_processing(conn: Connection, app_id: int) -> bool:
    """Whether the application has documents still ``processing`` (a run cut short)."""
    return bool(conn.execute(text(
        "SELECT 1 FROM documents WHERE application_id = :a AND status = 'processing'"
        " LIMIT 1"), {"a": app_id}).first())


def outcome_rows(conn: Connection, document_ids: list[int]) -> dict[int, Any]:
    """Status, error, counts and stored path of the given documents, by id."""
    return {r.id: r for r in conn.execute(text(
        "SELECT id, status, error_message, page_count, section_count, chunk_count,"
        " sentence_count, stored_path FROM documents WHERE id = ANY(:ids)"),
        {"ids": document_ids})}


def by_origin(conn: Connection, app_id: int, origin: str) -> list[tuple[int, str | None]]:
    """(id, source path) of the application's documents whose ``metadata.origin`` is
    ``origin`` (``repository``: those an index run took from the repository)."""
    return [(r.id, r.source_path) for r in conn.execute(text(
        "SELECT id, source_path FROM documents"
        " WHERE application_id = :a AND metadata->>'origin' = :o"),
        {"a": app_id, "o": origin})]
