"""The HTTP API: FastAPI under ``/v1`` (OpenAPI at ``/docs``), ``/healthz``, ``/readyz``,
the MCP server at ``/mcp`` (streamable HTTP, stateless, JSON answers) and the pages for
people at ``/`` (:mod:`graphrag.server.web`).

Every ``/v1`` and ``/mcp`` request needs ``Authorization: Bearer <key>`` (``graphrag keys
create``) unless the server runs with ``--no-auth`` (loopback only). Errors have one shape,
``{"error": {"code", "message"}}``, mapped from :mod:`graphrag.errors` by
:mod:`graphrag.server.errors`. Every value a request sends is bounded and
checked (:mod:`graphrag.server.limits`; an unknown field is a 422) and the edge middleware
(:mod:`graphrag.server.guards`) bounds bodies as they stream, keeps ``--no-auth`` to the
server's own pages and never drops a connection for an error. Handlers are plain
functions run on the thread pool; the engine's pool holds two connections per thread (a
search reads its full-text list on a second connection while the model encodes the
query)."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, File, Form, Request, Security, UploadFile
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Send
from starlette.types import Scope as AsgiScope

from graphrag.config import load_settings
from graphrag.db.engine import get_engine
from graphrag.db.keys import authenticate
from graphrag.errors import GraphragError, InvalidInput, UnknownSymbol, UsageError
from graphrag.retrieval.search.model import SIGNALS
from graphrag.server import operations as ops
from graphrag.server.background import Jobs
from graphrag.server.errors import error_body, status_of
from graphrag.server.guards import BodyLimit, Failsafe, LoopbackGuard
from graphrag.server.limits import (
    MAX_BODY_BYTES,
    MAX_ID,
    MAX_QUERIES,
    UPLOAD_ENVELOPE_BYTES,
    Glob,
    Name,
    Query,
    Text,
    TextOrObject,
)
from graphrag.server.links_routes import add_link_routes
from graphrag.server.mode_field import ModeName
from graphrag.server.operations import Scope
from graphrag.server.runtime import Runtime

log = logging.getLogger("graphrag.server")
CONFIG_ENV = "GRAPHRAG_SERVE_CONFIG"
LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass
class ServeConfig:
    """What ``graphrag serve`` was started with (passed to worker processes as JSON)."""

    host: str = "127.0.0.1"
    port: int = 8000
    no_auth: bool = False
    threads: int = 8
    index_roots: list[str] = field(default_factory=list)
    mcp: bool = True
    queue: bool = False  # index runs go to the job queue (graphrag worker runs them)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, raw: str) -> ServeConfig:
        return cls(**json.loads(raw))


# --- request bodies ----------------------------------------------------------------------

class Body(BaseModel):
    """A request body: a field it does not know is an error (422), not silently ignored
    (``{"app": "b"}`` on search, which takes ``apps``, would search every application)."""

    model_config = ConfigDict(extra="forbid")


class SearchBody(Body):
    query: Query | None = Field(None, description="One query (or give `queries`).")
    queries: list[Query] | None = Field(None, max_length=MAX_QUERIES,
                                        description="Several queries, one model call.")
    apps: list[Name] | None = Field(None, description="Applications (default: all of the"
                                    " key's).")
    mode: ModeName = Field("hybrid", description="A search mode: hybrid, vector, text or"
                           " one a plugin adds.")
    top_k: int = Field(10, ge=1, le=200)
    min_similarity: float | None = Field(None, ge=-1.0, le=1.0)
    kinds: list[Name] | None = Field(None, examples=[["METHOD", "ENDPOINT"]])
    http: Literal["endpoints", "callers", "any"] | None = Field(
        None, description="HTTP between services: ENDPOINTs, code that sends requests"
                          " (callers), or either.")
    lang: Name | None = None
    path: Glob | None = Field(None, description="Repo-relative path glob, ** crosses"
                              " folders.")
    source: Literal["code", "doc", "all"] | None = Field(
        None, description="code, doc, or all (default: code and documents, except"
                          " documents in hidden tool folders and vendored trees).")
    expand: list[Literal["calls"]] = []
    priors: bool = True
    per_file: int | None = Field(None, ge=0, le=200, description="Hits of one file shown"
                                 " before each further one is ranked down (0: no limit).")
    disabled_signals: list[Literal[SIGNALS]] = Field(  # type: ignore[valid-type]
        [], description="Ranking signals to switch off: " + ", ".join(SIGNALS) + ".")
    granularity: Literal["chunk", "sentence"] = "chunk"
    adjacent_pages: int = Field(0, ge=0, le=50)


class AdjacentBody(Body):
    app: Name
    chunks: list[Name] = Field(description="Chunk ids (plan ids or {document_id}:{segment}).")
    page_range: int = Field(2, ge=0, le=1000)


class ContextBody(Body):
    app: Name
    fqn: Name | None = None
    query: Query | None = None
    budget_tokens: int = Field(4000, ge=1, le=200_000)
    depth: int = Field(2, ge=0, le=6)
    format: Literal["markdown", "xml", "json"] = "markdown"


class CiteBody(Body):
    app: Name
    answer: TextOrObject = Field(
        description='{"sections": [{"text": ..., "source_ids": ["7:3"]}]} (object or string)')


class IndexBody(Body):
    path: Text | None = Field(None, description="Folder inside a --index-root (default:"
                              " the application's recorded root).")
    full: bool = False


class ErrorDetail(BaseModel):
    code: str = Field(examples=["bad_request"])
    message: str = Field(description="One line saying what was wrong.")
    candidates: list[str] | None = Field(None, description="409: the names an ambiguous"
                                         " name may mean.")


class ErrorBody(BaseModel):
    """The one shape of every error answer."""

    error: ErrorDetail


ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": what} for status, what in [
        (400, "Bad input (one line says what)."),
        (401, "Missing, unknown or revoked API key."),
        (403, "An application the key is not scoped to, a path outside --index-root, or"
              " (--no-auth) a request of another site or host."),
        (404, "Unknown application, node, document or job."),
        (409, "An ambiguous name: `candidates` lists what it may mean."),
        (413, "Request body or upload too large."),
        (422, "A malformed request: unknown field, wrong type, value out of bounds."),
        (503, "Database unreachable or model unavailable."),
    ]}


# --- authentication ----------------------------------------------------------------------

def _bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    kind, _, value = authorization.partition(" ")
    return value.strip() if kind.lower() == "bearer" and value.strip() else None


class Unauthorized(Exception):
    """Missing or unknown key: 401 (not a GraphragError: never an exit code)."""


def scope_for(runtime: Runtime, config: ServeConfig, authorization: str | None) -> Scope:
    """The caller's scope: every application under ``--no-auth``, else the key's."""
    if config.no_auth:
        return Scope(None)
    key = _bearer(authorization)
    if key is None:
        raise Unauthorized("missing API key: send Authorization: Bearer <key>")
    found = authenticate(runtime.engine, key)
    if found is None:
        raise Unauthorized("unknown or revoked API key")
    return Scope(found.apps)


class McpAuth:
    """ASGI wrapper of the MCP endpoint: authenticates like ``/v1`` and puts the scope in
    the request scope, where the tools read it (``graphrag.server.mcp``)."""

    def __init__(self, inner: ASGIApp, runtime: Runtime, config: ServeConfig) -> None:
        self.inner, self.runtime, self.config = inner, runtime, config

    async def __call__(self, scope: AsgiScope, receive: Receive, send: Send) -> None:
        from anyio import to_thread

        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        try:
            caller = await to_thread.run_sync(scope_for, self.runtime, self.config,
                                              headers.get("authorization"))
        except Unauthorized as exc:
            await _json(401, error_body("unauthorized", str(exc)))(scope, receive, send)
            return
        scope.setdefault("state", {})["graphrag_scope"] = caller
        await self.inner(scope, receive, send)


# declares the scheme in the OpenAPI document (the /docs page can then send a key); the
# header itself is read by scope_for, which answers 401 in the error shape
bearer = HTTPBearer(auto_error=False, scheme_name="api_key",
                    description="An API key of `graphrag keys create`.")


def caller(request: Request,
           _: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)]) -> Scope:
    """FastAPI dependency: the caller's scope (401 without a valid key)."""
    state = request.app.state
    return scope_for(state.runtime, state.config, request.headers.get("authorization"))


Caller = Annotated[Scope, Depends(caller)]
DocumentId = Annotated[int, PathParam(ge=1, le=MAX_ID)]


def _json(status: int, body: dict[str, Any]) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(body, status_code=status, headers=headers)


# --- the application ---------------------------------------------------------------------

def create_app(config: ServeConfig | None = None, runtime: Runtime | None = None) -> FastAPI:
    """The FastAPI application (uvicorn's factory; ``graphrag serve`` runs it): error
    handlers, middleware, then the routes of each resource (one builder each)."""
    config = config or ServeConfig.from_json(os.environ.get(CONFIG_ENV) or "{}")
    if config.no_auth and config.host not in LOOPBACK:
        raise UsageError(f"--no-auth is only allowed on a loopback host, not {config.host}")
    if runtime is None:
        settings = load_settings()
        runtime = Runtime(settings, get_engine(settings, pool_size=2 * config.threads + 2),
                          owns_process=True)
    jobs = Jobs()
    roots = [Path(r).expanduser().resolve() for r in config.index_roots]
    mcp_server = _mcp_server(runtime, config) if config.mcp else None
    app = FastAPI(title="graphrag", version="1",
                  lifespan=_lifespan(runtime, config, jobs, mcp_server),
                  description="Code knowledge graph search, context and documents.",
                  responses=ERRORS)
    _error_handlers(app)
    _middleware(app, runtime, config)
    _health_routes(app, runtime)
    _retrieval_routes(app, runtime)
    _application_routes(app, runtime, config, jobs, roots)
    _document_routes(app, runtime, jobs)
    add_link_routes(app, runtime, Caller)

    from graphrag.server.web import mount as mount_pages  # the pages for people, at /

    mount_pages(app, runtime, config.no_auth, lambda auth: scope_for(runtime, config, auth),
                Unauthorized)
    if mcp_server is not None:
        _mount_mcp(app, mcp_server, runtime, config)
    app.state.runtime, app.state.jobs, app.state.config = runtime, jobs, config
    return app


def _mcp_server(runtime: Runtime, config: ServeConfig) -> Any:
    """The MCP server mounted at ``/mcp`` (its session manager created)."""
    from graphrag.server.mcp import build_mcp

    mcp_server = build_mcp(runtime, None)
    # creates the session manager; stateless: any worker process can answer any call
    mcp_server.streamable_http_app(streamable_http_path="/mcp", stateless_http=True,
                                   json_response=True, host=config.host)
    return mcp_server


def _lifespan(runtime: Runtime, config: ServeConfig, jobs: Jobs, mcp_server: Any) -> Any:
    """Start-up (thread limit, model loading, the MCP session manager) and shutdown."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        from anyio import to_thread

        to_thread.current_default_thread_limiter().total_tokens = config.threads
        runtime.start_model()
        try:
            if failed := jobs.start(runtime.engine):
                log.warning("%d job(s) of a stopped server process marked failed", failed)
        except (GraphragError, SQLAlchemyError) as exc:  # the database is down: still serve
            log.warning("jobs kept in memory only: %s", str(exc).splitlines()[0])
        try:
            resumed = ops.resume_uploads(runtime, jobs)
        except (GraphragError, SQLAlchemyError) as exc:  # the database is down: still serve
            log.warning("queued uploads not resumed: %s", exc)
        else:
            if resumed:
                log.warning("resumed %d upload(s) a stopped server had queued", resumed)
        try:
            if mcp_server is not None:
                async with mcp_server.session_manager.run():
                    yield
            else:
                yield
        finally:
            jobs.shutdown(wait=False)
            # a running job (an upload, an index run) finishes before the process ends
            await to_thread.run_sync(lambda: runtime.close(abandon=not jobs.running()))

    return lifespan


def _error_handlers(app: FastAPI) -> None:
    """Every error answers the one JSON shape (:func:`graphrag.server.errors.error_body`)."""

    @app.exception_handler(GraphragError)
    async def on_graphrag_error(_: Request, exc: GraphragError) -> JSONResponse:
        status, code = status_of(exc)
        body = error_body(code, str(exc))
        if isinstance(exc, UnknownSymbol) and exc.ambiguous:
            body["error"]["candidates"] = exc.suggestions
        return _json(status, body)

    @app.exception_handler(Unauthorized)
    async def on_unauthorized(_: Request, exc: Unauthorized) -> JSONResponse:
        return _json(401, error_body("unauthorized", str(exc)))

    @app.exception_handler(RequestValidationError)
    async def on_invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        return _json(422, error_body("invalid_request",
                                     f"{where}: {first.get('msg', 'invalid request')}"))

    @app.exception_handler(StarletteHTTPException)
    async def on_http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}.get(
            exc.status_code, "http_error")
        return _json(exc.status_code, error_body(code, str(exc.detail)))


def _middleware(app: FastAPI, runtime: Runtime, config: ServeConfig) -> None:
    """Body limits, the failsafe and (without auth) the loopback guard."""
    upload_limit = runtime.settings.max_upload_bytes + UPLOAD_ENVELOPE_BYTES

    def body_limit(scope: AsgiScope) -> int:
        upload = scope["method"] == "POST" and scope["path"].endswith("/documents")
        return upload_limit if upload else MAX_BODY_BYTES

    # innermost first: Failsafe answers what no handler did without dropping the
    # connection; every body is counted as it streams (chunked or not); the loopback
    # guard runs before anything else
    app.add_middleware(Failsafe)
    app.add_middleware(BodyLimit, limit_of=body_limit)
    if config.no_auth:
        app.add_middleware(LoopbackGuard)


def _health_routes(app: FastAPI, runtime: Runtime) -> None:
    """``/healthz`` and ``/readyz``."""

    @app.get("/healthz", tags=["health"])
    def healthz() -> dict[str, Any]:
        """The process answers (the model may still be loading)."""
        return {"status": "ok"}

    @app.get("/readyz", tags=["health"])
    def readyz() -> JSONResponse:
        """Database reachable and model loaded: 200, else 503 with what is missing."""
        db, model = runtime.database_state(), runtime.model_state()
        ready = db["status"] == "ok" and model["status"] == "ready"
        return JSONResponse({"status": "ready" if ready else "not ready", "database": db,
                             "model": model}, status_code=200 if ready else 503)


def _retrieval_routes(app: FastAPI, runtime: Runtime) -> None:
    """Search, adjacent pages, context and citations."""

    @app.post("/v1/search", tags=["retrieval"])
    def search(body: SearchBody, scope: Caller) -> dict[str, Any]:
        """Hybrid (or vector, text) search; one `query` answers one envelope, `queries` a
        list of them under `results`."""
        if (body.query is None) == (body.queries is None):
            raise InvalidInput("give `query` or `queries` (not both)")
        queries = [body.query] if body.query is not None else list(body.queries or [])
        results = ops.search(runtime, scope, body.apps, queries, mode=body.mode,
                             top_k=body.top_k, min_similarity=body.min_similarity,
                             kinds=body.kinds, http=body.http, lang=body.lang,
                             path=body.path,
                             source=body.source, expand=body.expand, priors=body.priors,
                             granularity=body.granularity, adjacent_pages=body.adjacent_pages,
                             per_file=body.per_file, disabled=body.disabled_signals)
        results = [ops.with_sources(runtime, r) for r in results]
        return results[0] if body.query is not None else {"results": results}

    @app.post("/v1/adjacent", tags=["retrieval"])
    def adjacent(body: AdjacentBody, scope: Caller) -> dict[str, Any]:
        """The chunks plus those of pages within `page_range` of the same
        document, sorted by (filename, page, segment), with statistics."""
        result = ops.adjacent(runtime, scope, body.app, body.chunks, body.page_range)
        return {"success": True, **result}

    @app.post("/v1/context", tags=["retrieval"])
    def context(body: ContextBody, scope: Caller) -> dict[str, Any]:
        """Context around `fqn` (or the best hits of `query`) in a token budget; every
        block carries its stable [SEG=id]."""
        result = ops.context(runtime, scope, body.app, fqn=body.fqn, query=body.query,
                             budget_tokens=body.budget_tokens, depth=body.depth,
                             fmt=body.format)
        if body.format == "json":  # an object in the answer, not a JSON string in JSON
            result["context"] = json.loads(result["context"])
        return {**result, **ops.source(runtime, body.app)}

    @app.post("/v1/cite", tags=["retrieval"])
    def cite(body: CiteBody, scope: Caller) -> dict[str, Any]:
        """Map an answer's source ids to documents, pages and snippets."""
        return ops.cite(runtime, scope, body.app, body.answer)


def _application_routes(app: FastAPI, runtime: Runtime, config: ServeConfig, jobs: Jobs,
                        roots: list[Path]) -> None:
    """Applications, their graph's nodes, index runs and their jobs."""

    @app.get("/v1/apps", tags=["applications"])
    def apps(scope: Caller) -> list[dict[str, Any]]:
        """The applications this key may use, with row counts."""
        return ops.apps(runtime, scope)

    @app.get("/v1/apps/{app}/nodes/{fqn:path}", tags=["graph"])
    def node(app: Name, fqn: Name, scope: Caller, static_only: bool = False) -> dict[str, Any]:
        """The node(s) named `fqn`: signature, doc, location, parents, children, callers
        and callees with confidence; a caller through a base method or a callee through
        an interface method has `via` (that method). `static_only=true`: stored calls
        alone."""
        return {"nodes": ops.lookup_node(runtime, scope, app, fqn, static_only),
                **ops.source(runtime, app)}

    @app.post("/v1/apps/{app}/index", tags=["applications"], status_code=202)
    def index(app: Name, scope: Caller, body: IndexBody | None = None) -> dict[str, Any]:
        """Start an index run (202 + job id; poll `GET /v1/jobs/{id}`)."""
        body = body or IndexBody()
        return ops.start_index(runtime, scope, app, body.path, roots=roots, full=body.full,
                               jobs=jobs, queue=config.queue)

    @app.get("/v1/jobs/{job_id}", tags=["applications"])
    def job(job_id: str, scope: Caller) -> dict[str, Any]:
        """State of a background job: queued, running, succeeded or failed (with error)."""
        return ops.job(jobs, scope, job_id, runtime=runtime if config.queue else None)


def _document_routes(app: FastAPI, runtime: Runtime, jobs: Jobs) -> None:
    """Upload, list, show and delete documents."""

    @app.post("/v1/apps/{app}/documents", tags=["documents"], status_code=202)
    def upload(app: Name, scope: Caller, file: Annotated[UploadFile, File()],
               metadata: Annotated[Text | None, Form()] = None,
               category: Annotated[Name | None, Form()] = None,
               tags: Annotated[Text | None, Form()] = None) -> dict[str, Any]:
        """Upload a PDF, DOCX, Markdown or text file: validated (type, size,
        empty), answered 202 with the document id; processed in the background. The
        same bytes are the same document."""
        from graphrag.documents.service import parse_metadata

        scope.check(app)
        tag_list = [t.strip() for t in (tags or "").split(",") if t.strip()]
        return ops.receive_upload(runtime, scope, app, file.filename or "", file.file,
                                  metadata=parse_metadata(metadata), category=category,
                                  tags=tag_list, jobs=jobs)

    @app.get("/v1/apps/{app}/documents", tags=["documents"])
    def documents(app: Name, scope: Caller) -> list[dict[str, Any]]:
        """The application's documents with status and counts."""
        return ops.documents(runtime, scope, app)

    @app.get("/v1/apps/{app}/documents/{document_id}", tags=["documents"])
    def document(app: Name, document_id: DocumentId, scope: Caller) -> dict[str, Any]:
        """A document's status (processing, indexed, failed), error and counts."""
        return ops.document(runtime, scope, app, document_id)

    @app.delete("/v1/apps/{app}/documents/{document_id}", tags=["documents"])
    def delete(app: Name, document_id: DocumentId, scope: Caller) -> dict[str, Any]:
        """Delete a document with its chunks, sentences, nodes, edges and stored file."""
        return ops.remove_document(runtime, scope, app, document_id)


def _mount_mcp(app: FastAPI, mcp_server: Any, runtime: Runtime, config: ServeConfig) -> None:
    """The MCP server at ``/mcp``, behind the same keys as ``/v1``."""
    from mcp.server.streamable_http_manager import StreamableHTTPASGIApp

    endpoint = McpAuth(StreamableHTTPASGIApp(mcp_server.session_manager), runtime, config)
    app.router.routes.append(Route("/mcp", endpoint=endpoint,
                                   methods=["GET", "POST", "DELETE"]))
