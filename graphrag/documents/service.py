"""Document services below chunking: prepare (validate, store, extract, graph nodes and
MENTIONS), finalize (status and counts once the pipeline ran), list and delete.

Preparing never raises for bad content: a corrupt or encrypted file ends as status
``failed`` with its ``error_message``, and the caller goes on with the next
file. Invalid requests (type, size, unreadable path) are user errors raised before any
row is written."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError, OperationalError

from graphrag.db.context import AppContext
from graphrag.documents import store
from graphrag.documents.extract import (
    MIME_TYPES,
    clean_text,
    document_format,
    extract,
    open_regular,
    validate_file,
)
from graphrag.documents.mentions import link_mentions
from graphrag.documents.model import DocumentError
from graphrag.documents.nodes import DocumentInfo, write_document_nodes
from graphrag.errors import EnvironmentProblem, InvalidInput, NotFound


@dataclass
class Prepared:
    """What preparing one file did: ``status`` is unchanged, processing or failed.

    ``alias_of`` names the document the file's bytes were already ingested as (the file
    is recorded as another name of it, see :func:`prepare_document`)."""

    document_id: int
    filename: str
    status: str
    error: str | None = None
    units: int = 0
    mentions: int = 0
    alias_of: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class DocumentRequest:
    """One file to ingest and the metadata given with it (category, tags, free metadata)."""

    path: Path
    source_path: str | None = None  # repo-relative path for repository documents
    metadata: dict[str, Any] = field(default_factory=dict)
    category: str | None = None
    tags: list[str] = field(default_factory=list)
    root: Path | None = None  # the repository a repository document must be read inside


def parse_metadata(meta: str | None, what: str = "metadata") -> dict[str, Any]:
    """A metadata JSON object as given with an upload (``--meta``, a form field), checked
    for what PostgreSQL's jsonb refuses; one-line user errors naming ``what``."""
    if not meta:
        return {}

    def no_constants(name: str) -> Any:  # NaN/Infinity are not JSON for PostgreSQL
        raise InvalidInput(f"{what} is not valid JSON: {name} is not allowed")

    try:
        value = json.loads(meta, parse_constant=no_constants)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{what} is not valid JSON: {exc.msg}") from exc
    except RecursionError as exc:
        raise InvalidInput(f"{what} is nested too deeply") from exc
    if _depth(value) > MAX_METADATA_DEPTH:
        raise InvalidInput(f"{what} is nested deeper than {MAX_METADATA_DEPTH} levels")
    if "\\u0000" in json.dumps(value):  # jsonb cannot store NUL characters
        raise InvalidInput(f"{what} must not contain NUL characters")
    try:  # nor half of a surrogate pair (json.loads joins whole pairs)
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(f"{what} must be valid Unicode (a lone surrogate is not)") from exc
    if not isinstance(value, dict):
        raise InvalidInput(f"{what} must be a JSON object")
    return value


MAX_METADATA_DEPTH = 32  # nesting of an upload's metadata (deeper is refused)


def _depth(value: Any) -> int:
    """Nesting depth of a parsed JSON value (iterative: no recursion limit to reach)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict)
                                                  else item))
    return deepest


def file_sha256(path: Path, root: Path | None = None) -> str:
    """sha256 of the regular file ``path`` (inside ``root`` when given)."""
    digest = hashlib.sha256()
    with open_regular(path, root) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _name(row: store.DocumentRow) -> str:
    return row.source_path or row.filename


@dataclass
class _Target:
    """The document row a file goes to, decided in the first transaction."""

    doc_id: int
    filename: str  # the document's own (first) file name: format and stored suffix
    label: str
    alias_of: str | None
    unchanged: bool
    replaced: store.DocumentRow | None = None  # a path's old document, now a duplicate
    old_stored: str | None = None


def _claim(conn: Connection, app_id: int, request: DocumentRequest, sha: str, size: int,
           fmt: str, force: bool) -> _Target:
    """Find or create the document row for the file and mark it ``processing``.

    Identity: the same bytes (sha256) are the same document whatever the name; a file
    whose bytes are already a document under another name becomes an *alias* of it
    (``metadata.aliases``) and the document keeps its first name, MIME type and label.
    A repository path whose content changed updates its document in place; if the new
    content duplicates another document, the path becomes an alias of that one and its
    old document is removed."""
    path = request.path
    # File names are stored as text: undecodable bytes (surrogate escapes) are replaced.
    filename = clean_text(path.name)
    source_path = clean_text(request.source_path) if request.source_path else None
    name = source_path or filename
    store.lock_claims(conn, app_id)
    by_sha = store.find_by_sha(conn, app_id, sha)
    own = store.find_by_source(conn, app_id, source_path) if source_path else None
    replaced = None
    if by_sha is not None:
        existing = by_sha
        if own is not None and own.id != by_sha.id:
            replaced = own
            store.delete_row(conn, own.id)
    else:
        existing = own
    if existing is None:
        doc_id = store.insert_document(
            conn, app_id, filename=filename, source_path=source_path, sha=sha,
            mime=MIME_TYPES[fmt], size=size, metadata=request.metadata,
            category=request.category, tags=request.tags)
        return _Target(doc_id, filename, name, None, False, replaced)
    alias_of = _name(existing) if _name(existing) != name else None
    if alias_of:
        store.add_alias(conn, existing.id, name)
    if not (alias_of and source_path):
        # Metadata, category and tags given with an upload apply to the document; a
        # repository copy only adds its path (its ``origin`` must not turn an uploaded
        # document into a repository one, which the vanished-file sweep would delete).
        store.update_document(conn, existing.id, sha=sha, size=size,
                              metadata=request.metadata, category=request.category,
                              tags=request.tags)
    unchanged = existing.sha256 == sha and existing.status == "indexed" and not force
    if not unchanged:
        store.mark(conn, existing.id, "processing")
    return _Target(existing.id, existing.filename, _name(existing), alias_of, unchanged,
                   replaced, existing.stored_path)


def _is_disconnect(exc: DBAPIError) -> bool:
    return bool(exc.connection_invalidated) or isinstance(exc, OperationalError)


@dataclass
class Claim:
    """A file validated and given its document row (status ``processing``, or
    ``unchanged`` when identical bytes are already indexed): the first, quick half of
    :func:`prepare_document`. The HTTP upload answers with it before extracting."""

    app_id: int
    target: _Target
    sha: str
    initial: str = "processing"

    @property
    def document_id(self) -> int:
        return self.target.doc_id

    @property
    def status(self) -> str:
        return "unchanged" if self.target.unchanged else self.initial


def claim_document(ctx: AppContext, request: DocumentRequest, *, force: bool = False,
                   status: str = "processing") -> Claim:
    """Validate the file (type, size, regular file) and find or create its document row
    (see :func:`_claim`); user errors before any row is written.

    ``status="queued"`` marks a row whose extraction runs later (an HTTP upload): a
    ``processing`` row without extracted text is taken for the leftover of a crashed
    run and failed by :func:`finalize_documents`, which a queued one must not be."""
    path = request.path
    fmt, size = validate_file(path, ctx.settings.max_upload_bytes)
    try:
        sha = file_sha256(path, request.root)
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read: {exc.strerror or exc}") from exc
    with ctx.engine.begin() as conn:
        target = _claim(conn, ctx.app_id, request, sha, size, fmt, force)
        if status != "processing" and not target.unchanged:
            store.mark(conn, target.doc_id, status)
    if target.replaced is not None:
        store.remove_original(target.replaced.stored_path)
    return Claim(ctx.app_id, target, sha, status)


def keep_upload(ctx: AppContext, request: DocumentRequest, claim: Claim) -> DocumentRequest:
    """Store a queued upload's original where the document keeps it, before it is
    processed, so the upload outlives the server process that accepted it (see
    :func:`queued_uploads`); the request returned reads that copy. A file that cannot be
    stored fails its document and raises :class:`EnvironmentProblem`."""
    dest = store.upload_path(ctx.settings.home, ctx.app_name, claim.document_id,
                             Path(claim.target.filename).suffix)
    try:
        store.store_original(request.path, dest, request.root)
    except (OSError, InvalidInput) as exc:
        _fail(ctx.engine, claim.document_id, clean_text(request.path.name), dest,
              f"cannot store the file: {exc}", claim.target.alias_of)
        raise EnvironmentProblem(f"{request.path.name}: cannot store the upload: {exc}"
                                 ) from exc
    with ctx.engine.begin() as conn:
        store.set_stored_path(conn, claim.document_id, dest)
    return replace(request, path=dest)


@dataclass(frozen=True)
class QueuedUpload:
    """An accepted upload not processed yet, ready for :func:`graphrag.ingesting.process_upload`."""

    app_name: str
    request: DocumentRequest
    claim: Claim


def queued_uploads(engine: Engine) -> list[QueuedUpload]:
    """Every application's uploads left ``queued`` (a server stopped before processing
    them). One whose stored original is gone is failed with a reason saying to upload it
    again (unless it was accepted in the last minutes and has no file yet: another
    process may be keeping it); the others are returned to be processed."""
    with engine.connect() as conn:
        rows = store.queued_uploads(conn)
    out = []
    for r in rows:
        path = Path(r.stored_path) if r.stored_path else None
        if path is None or not path.is_file():
            if r.recent and path is None:
                continue  # another process may be keeping its file right now
            with engine.begin() as conn:
                store.fail_queued(conn, r.id, LOST_UPLOAD)
            continue
        label = r.source_path or r.filename
        target = _Target(r.id, r.filename, label, None, False, old_stored=r.stored_path)
        out.append(QueuedUpload(r.app_name, DocumentRequest(path),
                                Claim(r.application_id, target, r.sha256, "queued")))
    return out


def take_queued(ctx: AppContext, claim: Claim) -> bool:
    """Start processing a queued upload: False when it is no longer queued (another
    server process took it, or it was deleted), and then nothing is to be done."""
    if claim.status != "queued":
        return True
    with ctx.engine.begin() as conn:
        return store.take_queued(conn, claim.document_id)


def prepare_document(ctx: AppContext, request: DocumentRequest, *, force: bool = False
                     ) -> Prepared:
    """Validate, store and extract one file into its document row and graph nodes.

    The same bytes (sha256) are one document whatever the file is called (another name
    is recorded as an alias, never a rename); the same repository path updates its
    document. An already indexed identical file is left alone unless ``force``.
    Anything wrong with the content ends as status ``failed`` with a one-line reason."""
    claim = claim_document(ctx, request, force=force)
    return extract_claimed(ctx, request, claim)


def extract_claimed(ctx: AppContext, request: DocumentRequest, claim: Claim) -> Prepared:
    """The second half of :func:`prepare_document`: store the original, extract the text
    and write the document's graph nodes (``failed`` with its reason on bad content)."""
    path, target, sha = request.path, claim.target, claim.sha
    doc_id = target.doc_id
    if target.unchanged:
        return Prepared(doc_id, clean_text(path.name), "unchanged", alias_of=target.alias_of)
    own = Path(target.filename)
    fmt = document_format(own)
    engine, settings = ctx.engine, ctx.settings
    dest = store.upload_path(settings.home, ctx.app_name, doc_id, own.suffix)
    try:
        store.store_original(path, dest, request.root)
    except (OSError, InvalidInput) as exc:  # InvalidInput: swapped since it was claimed
        return _fail(engine, doc_id, clean_text(path.name), dest,
                     f"cannot store the file: {exc}", target.alias_of)
    if target.old_stored and target.old_stored != str(dest):
        store.remove_original(target.old_stored)
    try:
        extracted = extract(dest, fmt, own.name, settings.max_unzipped_bytes)
        info = DocumentInfo(doc_id, target.label, sha, fmt)
        pages = sum(1 for u in extracted.units if u.kind == "PAGE")
        with engine.begin() as conn:
            store.set_stored_path(conn, doc_id, dest)
            write_document_nodes(conn, claim.app_id, info, extracted)
            mentions = link_mentions(conn, claim.app_id, [doc_id])
            store.mark(conn, doc_id, "processing", None, page_count=extracted.page_count,
                       section_count=len(extracted.units) - pages)
    except DocumentError as exc:
        return _fail(engine, doc_id, clean_text(path.name), dest, str(exc), target.alias_of)
    except DBAPIError as exc:
        if _is_disconnect(exc):
            raise
        # A constraint the content broke (not the connection): this document fails alone.
        reason = " ".join(str(exc.orig or exc).split())[:200]
        return _fail(engine, doc_id, clean_text(path.name), dest, f"cannot store: {reason}",
                     target.alias_of)
    return Prepared(doc_id, clean_text(path.name), "processing", None, len(extracted.units),
                    mentions, target.alias_of)


def _fail(engine: Engine, doc_id: int, filename: str, dest: Path, reason: str,
          alias_of: str | None) -> Prepared:
    with engine.begin() as conn:
        store.set_stored_path(conn, doc_id, dest)
        store.delete_nodes(conn, doc_id)
        store.mark(conn, doc_id, "failed", reason, chunk_count=0, sentence_count=0)
    return Prepared(doc_id, filename, "failed", reason, alias_of=alias_of)


INTERRUPTED = "interrupted before its text was extracted; ingest the file again"
LOST_UPLOAD = ("the server stopped before processing the upload and its file is gone;"
               " upload it again")

def finalize_documents(ctx: AppContext) -> dict[int, str]:
    """Settle every ``processing`` document of the application from its chunks' stage
    states: indexed (with counts), failed (every chunk failed), or still processing.

    A document whose text was never extracted for its current bytes (a run that crashed
    or was killed between claiming and extracting it) is ``failed`` with a reason, never
    ``indexed`` without content; ingesting the file again retries it."""
    with ctx.engine.begin() as conn:
        return store.settle_processing(conn, ctx.app_id, INTERRUPTED)


def list_documents(ctx: AppContext) -> list[dict[str, Any]]:
    """The application's documents with status, counts and error message."""
    with ctx.engine.connect() as conn:
        return store.list_documents(conn, ctx.app_id)


def document_info(ctx: AppContext, document_id: int) -> dict[str, Any]:
    """One document of the application with status, error and counts
    (:class:`NotFound` for an id of no document of this application)."""
    with ctx.engine.connect() as conn:
        found = store.list_documents(conn, ctx.app_id, document_id)
    if not found:
        raise NotFound(f"no document {document_id} in this application")
    return found[0]


def delete_document(ctx: AppContext, document_id: int) -> dict[str, Any]:
    """Remove a document, its nodes, edges, chunks and sentences (one transaction, by
    cascade) and its stored original; returns what was removed."""
    with ctx.engine.begin() as conn:
        doc = store.get_document(conn, ctx.app_id, document_id)
        counts = store.delete_counted(conn, ctx.app_id, document_id)
    removed = store.remove_original(doc.stored_path)
    return {"status": "deleted", "document_id": document_id, "filename": doc.filename,
            "chunks_deleted": counts["chunks"], "sentences_deleted": counts["sentences"],
            "nodes_deleted": counts["nodes"], "edges_deleted": counts["edges"],
            "file_removed": removed}
