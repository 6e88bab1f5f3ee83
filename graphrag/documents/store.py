"""The ``documents`` rows and the stored originals under
``$GRAPHRAG_HOME/uploads/{app}/{document_id}{ext}``."""

from __future__ import annotations

import json
import re
import shutil
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


def store_original(src: Path, dest: Path) -> None:
    """Copy the file given to the upload folder (regular files only, see
    :func:`graphrag.documents.extract.open_regular`)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if src.resolve() != dest.resolve():
        with open_regular(src) as fh, dest.open("wb") as out:
            shutil.copyfileobj(fh, out, 1 << 20)


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
