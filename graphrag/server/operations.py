"""Each HTTP endpoint's and MCP tool's call into the services, behind the caller's scope.

A :class:`Scope` is the set of applications a caller may use (an API key's, or the
``--app`` list of ``graphrag mcp``); ``None`` means any (``serve --no-auth``). Every
operation checks the applications it is given against the scope *before* calling a
service, and every service filters its rows by application: an id of another
application is then simply not found. Nothing here computes anything of its own.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from graphrag.db.apps import list_apps
from graphrag.documents.service import (
    Claim,
    DocumentRequest,
    delete_document,
    document_info,
    list_documents,
    queued_uploads,
)
from graphrag.errors import (
    InvalidInput,
    NotAllowed,
    NotFound,
    TooLarge,
    UnknownApplication,
    UsageError,
    size_text,
)
from graphrag.graph.navigation import call_paths, call_tree, find_endpoints
from graphrag.graph.queries import node_details
from graphrag.server.background import Job, Jobs
from graphrag.server.limits import MAX_ID, check_filename
from graphrag.server.runtime import Runtime


@dataclass(frozen=True)
class Scope:
    """The applications a caller may use (``apps`` None: any)."""

    apps: frozenset[str] | None

    def check(self, app: str) -> str:
        if self.apps is not None and app not in self.apps:
            raise NotAllowed(f"application {app!r} is not one this caller may use")
        return app

    def resolve(self, apps: Sequence[str] | None) -> list[str]:
        """The applications asked for (each checked), else every one in scope."""
        if apps:
            return [self.check(a) for a in dict.fromkeys(apps)]
        if self.apps is None:
            raise InvalidInput("name the application(s): apps")
        return sorted(self.apps)

    def default_app(self, app: str | None) -> str:
        """``app`` checked, or the only application in scope."""
        if app:
            return self.check(app)
        if self.apps is not None and len(self.apps) == 1:
            return next(iter(self.apps))
        raise InvalidInput("name the application: app")

    def allows(self, app: str) -> bool:
        return self.apps is None or app in self.apps


# --- what an answer is from -----------------------------------------------------------

def source(runtime: Runtime, app: str) -> dict[str, Any]:
    """``indexed_commit`` and ``freshness`` (current, behind, unknown) of ``app``."""
    from graphrag.server.freshness import freshness

    return freshness(runtime.engine, app)


def with_sources(runtime: Runtime, envelope: dict[str, Any]) -> dict[str, Any]:
    """A search envelope with each searched application's ``freshness`` beside its
    ``indexed_commits``."""
    states = {app: source(runtime, app) for app in envelope.get("indexed_commits", {})}
    envelope["indexed_commits"] = {a: s["indexed_commit"] for a, s in states.items()}
    envelope["freshness"] = {a: s["freshness"] for a, s in states.items()}
    return envelope


# --- the graph -------------------------------------------------------------------------

def lookup_node(runtime: Runtime, scope: Scope, app: str, fqn: str,
                static_only: bool = False) -> list[dict[str, Any]]:
    """The node(s) named ``fqn`` with callers, callees, parents and children: the one
    place the server resolves a name (swap in a plain-name lookup here). Callers and
    callees through dispatch are included (``via``) unless ``static_only``."""
    return node_details(runtime.context(scope.check(app)), fqn, static_only,
                        visible=scope.apps)


def neighbourhood(runtime: Runtime, scope: Scope, app: str, *, fqn: str | None = None,
                  node_id: int | None = None, depth: int = 1,
                  kinds: Sequence[str] | None = None) -> dict[str, Any]:
    """The bounded neighbourhood of a node (the web page's graph view)."""
    from graphrag.graph.neighbourhood import neighbourhood as walk

    return walk(runtime.context(scope.check(app)), fqn=fqn, node_id=node_id, depth=depth,
                kinds=kinds)


def node_source(runtime: Runtime, scope: Scope, app: str, node: dict[str, Any]
                ) -> list[tuple[int | None, str]]:
    """A node's implementation as numbered lines (``node`` from :func:`lookup_node`)."""
    from graphrag.retrieval.context.source import node_source as lines

    return lines(runtime.context(scope.check(app)), node)


def mentioned_by(runtime: Runtime, scope: Scope, app: str, node_ids: Sequence[int]
                 ) -> list[dict[str, Any]]:
    """The document pages and sections that name the nodes."""
    from graphrag.graph.neighbourhood import mentioned_by as mentions

    return mentions(runtime.context(scope.check(app)), node_ids)


def trace(runtime: Runtime, scope: Scope, app: str, from_fqn: str, to_fqn: str | None,
          direction: str, max_depth: int, static_only: bool = False) -> dict[str, Any]:
    ctx = runtime.context(scope.check(app))
    if to_fqn:
        return call_paths(ctx, from_fqn, to_fqn, max_depth, static_only=static_only)
    return with_service_hops(runtime, scope, call_tree(ctx, from_fqn, direction, max_depth,
                                                       static_only=static_only))


def endpoints(runtime: Runtime, scope: Scope, app: str, route_or_method: str | None,
              ) -> list[dict[str, Any]]:
    return find_endpoints(runtime.context(scope.check(app)), route_or_method)


# --- retrieval -------------------------------------------------------------------------

def search(runtime: Runtime, scope: Scope, apps: Sequence[str] | None,
           queries: Sequence[str], *, mode: str = "hybrid", top_k: int = 10,
           min_similarity: float | None = None, kinds: str | Sequence[str] | None = None,
           lang: str | None = None, path: str | None = None, source: str | None = None,
           expand: Sequence[str] = (), priors: bool = True, granularity: str = "chunk",
           adjacent_pages: int = 0, per_file: int | None = None,
           disabled: Sequence[str] = (), http: str | None = None) -> list[dict[str, Any]]:
    """One envelope (query, mode, timing_ms, hits) per query: one query through the
    document-aware search (granularity, adjacent pages), several through one batch."""
    from graphrag.retrieval.documents.search import document_search
    from graphrag.retrieval.search.engine import search_many
    from graphrag.retrieval.search.filters import build_options
    from graphrag.retrieval.search.modes import get_mode

    names = scope.resolve(apps)
    if not queries:
        raise InvalidInput("give a query or a list of queries")
    if any(not q or not q.strip() for q in queries):
        raise InvalidInput("empty query: give the words to search for")
    options = build_options(mode, top_k, min_similarity, kinds, lang, path, source, expand,
                            priors, per_file, disabled, http)
    embedder = runtime.embedder() \
        if get_mode(options.mode).needs_vectors or granularity == "sentence" else None
    if len(queries) == 1:
        result = document_search(runtime.scope(names), queries[0], options, embedder,
                                 granularity, adjacent_pages)
        return [result.envelope()]
    if granularity != "chunk" or adjacent_pages:
        raise UsageError("granularity and adjacent_pages need a single query")
    return [r.envelope() for r in search_many(runtime.scope(names), list(queries), options,
                                              embedder)]


def context(runtime: Runtime, scope: Scope, app: str, *, fqn: str | None = None,
            query: str | None = None, budget_tokens: int = 4000, depth: int = 2,
            fmt: str = "markdown") -> dict[str, Any]:
    from graphrag.retrieval.context.builder import build_context

    scope.check(app)
    if (fqn is None) == (query is None):
        raise InvalidInput("give either fqn or query")
    if query is not None and not query.strip():
        raise InvalidInput("empty query: give the words to search for")
    ctx = build_context(runtime.context(app), fqn=fqn, query=query, budget=budget_tokens,
                        depth=depth, fmt=fmt, count_tokens=runtime.count_tokens,
                        embedder=runtime.embedder() if query is not None else None,
                        visible=scope.apps)
    return ctx.to_dict()


def adjacent(runtime: Runtime, scope: Scope, app: str, chunk_ids: Sequence[str],
             page_range: int) -> dict[str, Any]:
    from graphrag.retrieval.documents.adjacent import adjacent_chunks

    return adjacent_chunks(runtime.context(scope.check(app)), chunk_ids, page_range)


def document_segment(runtime: Runtime, scope: Scope, app: str, chunk_id: str | None = None,
                     node_id: int | None = None) -> dict[str, Any]:
    """Where a document chunk (a plan or segment id), or the first chunk of a page or
    section node, lies in its document: ``document_id``, ``segment_id``, ``page_number``;
    :class:`NotFound` when it is no document chunk of the application."""
    from graphrag.retrieval.documents.adjacent import adjacent_chunks
    from graphrag.retrieval.documents.store import node_chunk_ids

    ctx = runtime.context(scope.check(app))
    if chunk_id is None and node_id is not None:
        with runtime.engine.connect() as conn:
            ids = node_chunk_ids(conn, ctx.app_id, [node_id])
        chunk_id = ids[0] if ids else None
    found = adjacent_chunks(ctx, [chunk_id], 0)["expanded_chunks"] if chunk_id else []
    if not found:
        raise NotFound(f"no document chunk {chunk_id or node_id} in {app}")
    first = found[0]
    return {k: first[k] for k in ("document_id", "segment_id", "page_number")}


def cite(runtime: Runtime, scope: Scope, app: str, answer: str | dict[str, Any]
         ) -> dict[str, Any]:
    from graphrag.retrieval.documents.citations import cite_answer

    ctx = runtime.context(scope.check(app))
    raw = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
    return cite_answer(ctx, raw)


# --- applications and their state ------------------------------------------------------

def apps(runtime: Runtime, scope: Scope) -> list[dict[str, Any]]:
    """The applications in scope, with their row counts."""
    return [a for a in list_apps(runtime.engine) if scope.allows(a["name"])]


def app_names(runtime: Runtime, scope: Scope) -> list[str]:
    """The names of the applications in scope (without counts)."""
    from graphrag.db.apps import app_names as names

    return [n for n in names(runtime.engine) if scope.allows(n)]


def index_status(runtime: Runtime, scope: Scope, app: str) -> dict[str, Any]:
    """Row counts, per-stage pipeline state and documents by status of one application."""
    from graphrag.pipeline.status import pipeline_status

    scope.check(app)
    found = [a for a in list_apps(runtime.engine) if a["name"] == app]
    if not found:
        raise UnknownApplication(app)
    ctx = runtime.context(app)
    docs: dict[str, int] = {}
    for d in list_documents(ctx):
        docs[d["status"]] = docs.get(d["status"], 0) + 1
    return {**found[0], "pipeline": pipeline_status(ctx), "documents": docs}


def index_summary(runtime: Runtime, scope: Scope, app: str) -> dict[str, Any]:
    """Files by parse status with the failures, and the share of calls resolved."""
    from graphrag.graph.summary import index_summary as summary

    return summary(runtime.context(scope.check(app)))


# --- documents and jobs ----------------------------------------------------------------

CHUNK = 1 << 20


def receive_upload(runtime: Runtime, scope: Scope, app: str, filename: str,
                   stream: BinaryIO, *, metadata: dict[str, Any] | None = None,
                   category: str | None = None, tags: Sequence[str] = (),
                   jobs: Jobs) -> dict[str, Any]:
    """Copy an upload to a private folder (at most the upload limit, never more is
    read), give it its document row and queue its processing; the answer carries the
    document id, its status (``processing``) and the job id."""
    from graphrag.ingesting import accept_upload

    scope.check(app)
    name = Path(filename or "").name
    if not name or name in (".", ".."):
        raise InvalidInput("the upload has no file name")
    try:
        check_filename(name)
    except ValueError as exc:
        raise InvalidInput(f"upload file name: {exc}") from exc
    limit = runtime.settings.max_upload_bytes
    incoming = runtime.settings.home / "uploads" / ".incoming"
    incoming.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(dir=incoming))
    path = folder / name
    try:
        size = 0
        with open(path, "wb") as out:
            while block := stream.read(CHUNK):
                size += len(block)
                if size > limit:
                    raise TooLarge(f"{name}: file too large (more than"
                                   f" {size_text(limit)})")
                out.write(block)
        request, claim = accept_upload(runtime.engine, runtime.settings, app, path,
                                       metadata=metadata, category=category, tags=tags)
    finally:
        # an accepted upload is kept with its document (accept_upload); this copy is spent
        shutil.rmtree(folder, ignore_errors=True)
    answer = {"document_id": claim.document_id, "filename": name}
    if claim.status == "unchanged":
        return {**answer, "status": "indexed", "job_id": None,
                "message": "the same file is already indexed"}
    job = _submit_upload(runtime, jobs, app, request, claim)
    return {**answer, "status": claim.status, "job_id": job.id,
            "message": "upload accepted; processing runs in the background"}


def _submit_upload(runtime: Runtime, jobs: Jobs, app: str, request: DocumentRequest,
                   claim: Claim) -> Job:
    from graphrag.ingesting import process_upload

    def work() -> dict[str, Any]:
        return process_upload(runtime.context(app), request, claim, runtime.embedder())

    return jobs.submit("document", app, work, {"document_id": claim.document_id})


def resume_uploads(runtime: Runtime, jobs: Jobs) -> int:
    """Queue the processing of uploads a stopped server accepted but never processed
    (their originals are kept with their documents); returns how many. Several server
    processes may resume the same upload: the first to start it processes it."""
    pending = queued_uploads(runtime.engine)
    for upload in pending:
        _submit_upload(runtime, jobs, upload.app_name, upload.request, upload.claim)
    return len(pending)


def document(runtime: Runtime, scope: Scope, app: str, document_id: int) -> dict[str, Any]:
    info = document_info(runtime.context(scope.check(app)), document_id)
    info.pop("stored_path", None)  # a server path: nothing a client needs
    return info


def documents(runtime: Runtime, scope: Scope, app: str) -> list[dict[str, Any]]:
    out = list_documents(runtime.context(scope.check(app)))
    for d in out:
        d.pop("stored_path", None)
    return out


def remove_document(runtime: Runtime, scope: Scope, app: str, document_id: int
                    ) -> dict[str, Any]:
    return delete_document(runtime.context(scope.check(app)), document_id)


def start_index(runtime: Runtime, scope: Scope, app: str, path: str | None, *,
                roots: Sequence[Path], full: bool = False, jobs: Jobs,
                queue: bool = False) -> dict[str, Any]:
    """Start an index run of ``path`` (inside one of the server's ``roots``) or, without
    a path, of the application's registered repository (``graphrag repos add``; needs
    ``queue``) or recorded root; answers with the job id. With ``queue`` the run is a job
    of the job queue (any ``graphrag worker`` runs it), else in-process background work."""
    from graphrag.graph.request import IndexRequest
    from graphrag.indexing import run_index

    scope.check(app)
    if queue and path is None and _has_repository(runtime, app):
        from graphrag.jobs import enqueue_repository_run

        queued = enqueue_repository_run(runtime.settings, runtime.engine, app)
        return {"job_id": str(queued["job_id"]), "status": "queued", "app": app,
                "repository": True, "already_queued": queued["already_queued"]}
    if path is None:
        recorded = runtime.context(app).app.root_path
        if not recorded:
            raise InvalidInput(f"application {app!r} has no recorded root: give a path")
        target = Path(recorded)
    else:
        target = Path(path).expanduser().resolve()
        if not any(target == r or r in target.parents for r in roots):
            raise NotAllowed(f"{path} is not inside a folder the server may index"
                             " (serve --index-root)")
    if not target.is_dir():
        raise InvalidInput(f"{target}: not a folder")
    request = IndexRequest(target, app, full=full)

    if queue:
        from graphrag.jobs import enqueue_index

        job_id = enqueue_index(runtime.settings, request)
        return {"job_id": str(job_id), "status": "queued", "app": app, "path": str(target)}

    def work() -> dict[str, Any]:
        return run_index(runtime.engine, runtime.settings, request)

    job = jobs.submit("index", app, work, {"path": str(target)})
    return {"job_id": job.id, "status": job.status, "app": app, "path": str(target)}


def _has_repository(runtime: Runtime, app: str) -> bool:
    from graphrag.jobs.repos import get_repository

    with runtime.engine.connect() as conn:
        try:
            get_repository(conn, app)
        except UnknownApplication:
            return False
    return True


def job(jobs: Jobs, scope: Scope, job_id: str, runtime: Runtime | None = None
        ) -> dict[str, Any]:
    """A job's state; a job of an application outside the scope is not found. With
    ``runtime`` (a server started with ``--queue``) numeric ids are job-queue jobs."""
    if runtime is not None and job_id.isdigit() and int(job_id) <= MAX_ID:
        from graphrag.jobs import get_job

        try:
            found = get_job(runtime.engine, int(job_id))
        except NotFound:
            found = None
        if found is None or not scope.allows(found.get("app")):
            raise NotFound(f"no job {job_id}")
        return found
    found = jobs.get(job_id)
    if found is None or not scope.allows(found.app):
        raise NotFound(f"no job {job_id}")
    return found.to_dict()


# --- links between services -----------------------------------------------------------

def links(runtime: Runtime, scope: Scope, group: str | None, app: str | None
          ) -> dict[str, Any]:
    """The HTTP links (and the call sites that reach no indexed endpoint) among the
    applications the caller may use, of group ``group`` and/or application ``app``."""
    from graphrag.graph.service_links import links_report

    named = [scope.check(app)] if app else []
    return links_report(runtime.scope(named, group=group, every=True), visible=scope.apps)


def endpoint_callers(runtime: Runtime, scope: Scope, app: str, fqn: str
                     ) -> list[dict[str, Any]]:
    """The node(s) ``fqn`` names with their remote callers (an ENDPOINT) and the
    requests they send, among the applications the caller may use."""
    return node_details(runtime.context(scope.check(app)), fqn, visible=scope.apps)


def with_service_hops(runtime: Runtime, scope: Scope, tree: dict[str, Any]
                      ) -> dict[str, Any]:
    """A call tree whose nodes carry the HTTP requests they send (callees) or the
    remote callers of its endpoints (callers), across the applications in scope."""
    from graphrag.graph.service_links import add_service_hops

    with runtime.engine.connect() as conn:
        add_service_hops(conn, tree, scope.apps)
    return tree
