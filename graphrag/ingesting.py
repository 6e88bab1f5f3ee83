"""`graphrag ingest` and the documents step of `graphrag index`: documents through the same
path as code (prepare -> page chunks in the chunk orchestrator -> pipeline stages).

Like :mod:`graphrag.indexing` this module composes data-flow steps and sits above them;
the work itself is in ``documents``, ``chunking`` and ``pipeline``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from graphrag.chunking.orchestrator import plan_chunks
from graphrag.chunking.request import ChunkBuildRequest
from graphrag.config import Settings
from graphrag.db.apps import (
    content_version,
    record_skipped_documents,
    record_step,
    step_behind,
    validate_app_name,
)
from graphrag.db.context import AppContext, resolve_context
from graphrag.documents import store as documents_store
from graphrag.documents.extract import clean_text, validate_file
from graphrag.documents.mentions import link_mentions
from graphrag.documents.service import (
    Claim,
    DocumentRequest,
    Prepared,
    claim_document,
    delete_document,
    extract_claimed,
    finalize_documents,
    keep_upload,
    prepare_document,
    take_queued,
)
from graphrag.embedding import Embedder
from graphrag.errors import InvalidInput
from graphrag.graph.index_state import check_mass_delete
from graphrag.graph.request import IndexRequest
from graphrag.graph.scan import scan_documents
from graphrag.kinds import DOCUMENT_KINDS
from graphrag.pipeline.registry import stage_lists
from graphrag.pipeline.runner import StageRunner, run_pipeline
from graphrag.progress import Progress

REPOSITORY_ORIGIN = "repository"
MENTIONS_STEP = "link_mentions"  # its record in ``applications.meta.steps`` (db.apps)


def chunk_documents(ctx: AppContext) -> dict[str, Any]:
    """Plan the page chunks of the application's document nodes (unchanged plans skip)."""
    request = ChunkBuildRequest(application=ctx.app_name, strategy="page",
                                include_kinds=DOCUMENT_KINDS)
    return plan_chunks(ctx, request, stages=stage_lists()).to_dict()


def ingest_files(engine: Engine, settings: Settings, app_name: str, paths: Sequence[Path], *,
                 metadata: dict[str, Any] | None = None, category: str | None = None,
                 tags: Iterable[str] = (), force: bool = False,
                 progress: Progress | None = None,
                 embedder: Embedder | None = None,
                 stage_runner: StageRunner | None = None) -> dict[str, Any]:
    """Ingest files end to end; returns per-document outcomes, chunk and stage statistics.
    ``stage_runner(app_name)`` replaces the inline stage run (the job queue's workers).

    Every file is validated before any is processed (a wrong type or size is a user error
    for the whole command); a corrupt file fails alone."""
    validate_app_name(app_name)
    for path in paths:
        validate_file(path, settings.max_upload_bytes)
    requests = [DocumentRequest(Path(p), None, dict(metadata or {}), category, list(tags))
                for p in paths]
    # The application is created with its first document (resolved once for the run).
    ctx = resolve_context(engine, settings, app_name, create=bool(requests))
    prepared: list[Prepared] = []
    for n, req in enumerate(requests, start=1):
        prepared.append(prepare_document(ctx, req, force=force))
        if progress:
            progress("extract", n, len(requests))
    result: dict[str, Any] = {}
    # Also when every file was unchanged: a document a crashed run extracted but never
    # chunked must get its chunks now, not be settled as indexed without them.
    if any(p.status == "processing" for p in prepared) or _unsettled(ctx):
        result["chunks"] = chunk_documents(ctx)
    if stage_runner is not None:
        result["pipeline"] = stage_runner(app_name).to_dict()
    else:
        result["pipeline"] = _run_stages(ctx, progress, embedder)
    finalize_documents(ctx)
    result["documents"] = _outcomes(ctx, prepared)
    return result


def accept_upload(engine: Engine, settings: Settings, app_name: str, path: Path, *,
                  metadata: dict[str, Any] | None = None, category: str | None = None,
                  tags: Iterable[str] = ()) -> tuple[DocumentRequest, Claim]:
    """The quick half of an upload: validate the received file and give it its
    document row, status ``queued`` (or ``unchanged``: the same bytes are already indexed).
    :func:`process_upload` does the rest, in the background (``processing``, then
    ``indexed`` or ``failed``). A queued upload whose server stopped before processing
    it stays ``queued`` with its stored original, and the next server start processes it
    (:func:`graphrag.documents.service.queued_uploads`)."""
    validate_app_name(app_name)
    request = DocumentRequest(path, None, dict(metadata or {}), category, list(tags))
    validate_file(path, settings.max_upload_bytes)  # before the application is created
    ctx = resolve_context(engine, settings, app_name, create=True)
    claim = claim_document(ctx, request, status="queued")
    if claim.status == "queued":
        request = keep_upload(ctx, request, claim)
    return request, claim


def process_upload(ctx: AppContext, request: DocumentRequest, claim: Claim,
                   embedder: Embedder | None = None) -> dict[str, Any]:
    """Extract, chunk, run the stages and settle an accepted upload, as `graphrag ingest`
    does for one file; returns its outcome (``documents``), chunks and stages. An upload
    another server process already took is left to it (``{"skipped": ...}``)."""
    if not take_queued(ctx, claim):
        return {"skipped": "another server process is processing this upload"}
    prepared = extract_claimed(ctx, request, claim)
    result: dict[str, Any] = {}
    if prepared.status == "processing" or _unsettled(ctx):
        result["chunks"] = chunk_documents(ctx)
    result["pipeline"] = _run_stages(ctx, None, embedder)
    finalize_documents(ctx)
    result["documents"] = _outcomes(ctx, [prepared])
    return result


def _unsettled(ctx: AppContext) -> bool:
    """Whether the application has documents still ``processing`` (a run was cut short)."""
    with ctx.engine.connect() as conn:
        return documents_store.has_processing(conn, ctx.app_id)


def _run_stages(ctx: AppContext, progress: Progress | None, embedder: Embedder | None
                ) -> dict[str, Any]:
    def stage_progress(_phase: str, done: int, total: int) -> None:
        if progress:
            progress("stages", done, total)

    return run_pipeline(ctx, progress=stage_progress, embedder=embedder).to_dict()


def _outcomes(ctx: AppContext, prepared: list[Prepared]) -> list[dict[str, Any]]:
    with ctx.engine.connect() as conn:
        rows = documents_store.outcome_rows(conn, [p.document_id for p in prepared])
    out = []
    for p in prepared:
        r = rows[p.document_id]
        out.append({"document_id": p.document_id, "filename": p.filename, "status": r.status,
                    "changed": p.status != "unchanged", "error_message": r.error_message,
                    "page_count": r.page_count, "section_count": r.section_count,
                    "chunk_count": r.chunk_count, "sentence_count": r.sentence_count,
                    "mentions": p.mentions, "stored_path": r.stored_path,
                    "alias_of": p.alias_of})
    return out


@dataclass
class RepositoryDocuments:
    """The documents step of `graphrag index`."""

    scanned: int = 0
    prepared: int = 0
    unchanged: int = 0
    failed: int = 0
    skipped: int = 0
    deleted: int = 0
    errors: list[dict[str, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.prepared or self.failed or self.deleted)

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "changed": self.changed}


def index_repository_documents(ctx: AppContext, request: IndexRequest, *,
                               graph_changed: bool = False,
                               progress: Progress | None = None) -> RepositoryDocuments:
    """Prepare the README and docs (``*.md``, ``*.pdf``, ``*.docx``) of the request's
    repository, by the same scan rules as code; drop documents whose file is gone;
    refresh MENTIONS when the documents or the code changed. Chunks and stages follow in
    the caller.

    Like the code files, more than ``settings.max_delete_share`` of the repository's
    documents are not dropped without ``request.allow_mass_delete``
    (:class:`MassDeleteRefused`, raised before any document is touched)."""
    stats = RepositoryDocuments()
    with ctx.engine.connect() as conn:  # MENTIONS left behind by a killed run are redone
        version = content_version(conn, ctx.app_id)
        behind = step_behind(conn, ctx.app_id, MENTIONS_STEP)
    root = request.root
    files = list(scan_documents(root, include=request.include, exclude=request.exclude))
    stats.scanned = len(files)
    with ctx.engine.connect() as conn:
        known = documents_store.by_origin(conn, ctx.app_id, REPOSITORY_ORIGIN)
    present = {clean_text(f.rel_path) for f in files}
    gone = [doc_id for doc_id, source_path in known if source_path not in present]
    # A moved or renamed document vanishes under one path and appears under another: only
    # the net loss counts towards the mass-delete guard.
    known_paths = {source_path for _, source_path in known}
    appeared = sum(1 for path in present if path not in known_paths)
    check_mass_delete(ctx.app_name, max(len(gone) - appeared, 0), len(known),
                      ctx.settings.max_delete_share, request.allow_mass_delete,
                      what="repository documents")
    # Vanished first: a moved file whose bytes equal a document that is gone becomes a new
    # document under its new path (not an alias of a document about to be dropped).
    for doc_id in gone:
        delete_document(ctx, doc_id)
    stats.deleted = len(gone)
    for n, f in enumerate(files, start=1):
        if f.problem:  # a FIFO, a symlink loop, an unstorable name: never opened
            stats.skipped += 1
            stats.errors.append({"path": f.rel_path, "status": "skipped", "error": f.problem})
            continue
        req = DocumentRequest(f.abs_path, f.rel_path, {"origin": REPOSITORY_ORIGIN},
                              root=root)
        try:
            outcome = prepare_document(ctx, req)
        except InvalidInput as exc:  # too large, empty, unreadable, not a regular file
            stats.skipped += 1
            stats.errors.append({"path": f.rel_path, "status": "skipped", "error": str(exc)})
            continue
        if outcome.status == "failed":
            stats.failed += 1
            stats.errors.append({"path": f.rel_path, "status": "failed",
                                 "error": outcome.error or ""})
        elif outcome.status == "unchanged":
            stats.unchanged += 1
        else:
            stats.prepared += 1
        if progress:
            progress("documents", n, len(files))
    with ctx.engine.begin() as conn:
        record_skipped_documents(conn, ctx.app_id, [
            {"path": e["path"], "reason": e["error"]} for e in stats.errors
            if e["status"] == "skipped"])
        if graph_changed or stats.changed or behind:
            link_mentions(conn, ctx.app_id)
            record_step(conn, ctx.app_id, MENTIONS_STEP, version)
    return stats

