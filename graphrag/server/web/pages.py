"""The page routes. Each handler asks :mod:`graphrag.server.operations` for what the
HTTP API answers and renders it; an error renders as a page carrying the API's status
and message. A request without a valid key (unless the server runs ``--no-auth``) is sent
to the login form."""

from __future__ import annotations

import inspect
import json
import logging
import re
import time
from collections.abc import Callable
from functools import wraps
from typing import Annotated, Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, FastAPI, Form, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from graphrag.db.engine import lost_database
from graphrag.db.keys import authenticate
from graphrag.errors import GraphragError, InvalidInput, NotAllowed
from graphrag.graph.neighbourhood import DEFAULT_KINDS, MAX_DEPTH, MAX_NODES
from graphrag.kinds import EDGE_KINDS, NODE_KINDS
from graphrag.retrieval.search.modes import mode_names
from graphrag.server import operations as ops
from graphrag.server.errors import error_body, status_of
from graphrag.server.operations import Scope
from graphrag.server.runtime import Runtime
from graphrag.server.web import session
from graphrag.server.web.render import STATIC, environment

log = logging.getLogger("graphrag.server")
# Scripts only from this server; no inline script runs, nothing is fetched from outside.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline';"
       " img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'")
TOP_K = 20
PAGE_PREFIXES = ("/apps", "/login", "/logout")  # /web/graph.json answers JSON
# a repeated (or comma-separated) query parameter: ?kinds=CALLS&kinds=EXTENDS
Kinds = Annotated[list[str] | None, Query()]


class _Login(Exception):
    """No valid key in the browser: go to the login form (with the reason)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)


def _to_document(app: str, where: dict[str, Any]) -> RedirectResponse:
    """To a document's page at a segment (``{document_id}:{index}``)."""
    index = str(where["segment_id"]).rsplit(":", 1)[-1]
    query = urlencode({"segment": index})
    return RedirectResponse(f"/apps/{quote(app, safe='')}/documents/{where['document_id']}"
                            f"?{query}#seg-{where['segment_id']}", status_code=303)


def _html(template: str, http_status: int = 200, **values: Any) -> HTMLResponse:
    body = environment().get_template(template).render(**values)
    return HTMLResponse(body, status_code=http_status, headers={
        "Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin", "Cache-Control": "no-store"})


def _error_page(status: int, code: str, message: str, **values: Any) -> HTMLResponse:
    return _html("error.html", status, status=status, code=code, message=message,
                 title=f"Error {status}", **values)


def _split(values: list[str] | None) -> list[str]:
    """Repeated or comma-separated query parameters as one list."""
    return [v.strip() for raw in values or [] for v in raw.split(",") if v.strip()]


_SEG = re.compile(r"\[SEG=([^\]\s]+)\]")


def answer_of(raw: str) -> str | dict[str, Any]:
    """The form's answer for ``operations.cite``: JSON as it is; text whose paragraphs
    carry ``[SEG=...]`` marks as sections with those ids (the marks taken out of the
    text); other text as it is (matched by text)."""
    try:
        json.loads(raw)
        return raw
    except ValueError:
        pass
    if not _SEG.search(raw):
        return raw
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", raw) if p.strip()]
    return {"sections": [{"text": " ".join(_SEG.sub(" ", p).split()),
                          "source_ids": _SEG.findall(p)} for p in paragraphs]}


def mount(app: FastAPI, runtime: Runtime, no_auth: bool,
          scope_for: Callable[[str | None], Scope], unauthorized: type[Exception]) -> None:
    """Add the pages, their static files and the login form to ``app``."""
    router = APIRouter(include_in_schema=False)

    def scope_of(request: Request) -> Scope:
        try:
            return session.page_scope(request, scope_for)
        except unauthorized as exc:
            raise _Login(str(exc)) from exc

    def page(handler: Callable[..., HTMLResponse]) -> Callable[..., Response]:
        """Run a page handler with the caller's scope; errors become pages."""

        @wraps(handler)
        def run(request: Request, *args: Any, **kwargs: Any) -> Response:
            try:
                scope = scope_of(request)
                return handler(request, scope, *args, **kwargs)
            except _Login as exc:
                if request.cookies.get(session.COOKIE):
                    # a key that stopped working: say why on the login form
                    return _login_page(request.url.path, str(exc), 401)
                target = request.url.path + (f"?{request.url.query}" if request.url.query
                                             else "")
                return RedirectResponse("/login?" + urlencode({"next": target}), 303)
            except GraphragError as exc:
                status, code = status_of(exc)
                return _error_page(status, code, str(exc), auth=not no_auth)
            except Exception as exc:
                lost = lost_database(exc)
                if lost is not None:
                    return _error_page(503, "database_unavailable", lost, auth=not no_auth)
                log.exception("unexpected error on %s", request.url.path)
                return _error_page(500, "internal", f"internal error: {type(exc).__name__}",
                                   auth=not no_auth)

        # FastAPI reads the handler's parameters: present them without the scope
        sig = inspect.signature(handler)
        params = [p for name, p in sig.parameters.items() if name != "scope"]
        run.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
        return run

    def _login_page(next_path: str, error: str | None = None, status: int = 200
                    ) -> HTMLResponse:
        return _html("login.html", status, title="Log in", next=session.safe_next(next_path),
                     error=error, auth=True, anonymous=True)

    # --- login ------------------------------------------------------------------------

    @router.get("/login")
    def login_form(request: Request, next: str = "/") -> Response:  # noqa: A002
        if no_auth:
            return RedirectResponse(session.safe_next(next), 303)
        return _login_page(next)

    @router.post("/login")
    def login(request: Request, key: str = Form(""), next: str = Form("/")  # noqa: A002
              ) -> Response:
        if no_auth:
            return RedirectResponse(session.safe_next(next), 303)
        if session.cross_site(request):
            return _error_page(403, "forbidden", "a form of another site cannot log in here",
                               anonymous=True)
        key = key.strip()
        if not key:
            return _login_page(next, "missing API key: enter a key (graphrag keys create)",
                               401)
        if authenticate(runtime.engine, key) is None:
            return _login_page(next, "unknown or revoked API key", 401)
        response = RedirectResponse(session.safe_next(next), 303)
        session.remember(response, key, secure=request.url.scheme == "https")
        return response

    @router.post("/logout")
    def logout(request: Request) -> Response:
        if session.cross_site(request):
            return _error_page(403, "forbidden", "a form of another site cannot log out here")
        response = RedirectResponse("/login", 303)
        session.forget(response)
        return response

    def common(scope: Scope) -> dict[str, Any]:
        return {"auth": not no_auth}

    # --- search -----------------------------------------------------------------------

    @router.get("/")
    @page
    def search_page(request: Request, scope: Scope, q: str = "", app: str = "",
                    kinds: Kinds = None, lang: str = "", path: str = "",
                    mode: str = "hybrid", top_k: int = TOP_K, source: str = "") -> HTMLResponse:
        base = {**common(scope), "app_names": ops.app_names(runtime, scope)}
        form = {"q": q, "app": app, "kinds": _split(kinds), "lang": lang, "path": path,
                "mode": mode, "top_k": top_k, "source": source}
        values = {**base, "form": form, "title": "Search", "modes": mode_names(),
                  "node_kinds": NODE_KINDS, "result": None, "server_ms": None}
        if q.strip():
            started = time.perf_counter()
            names = [app] if app else base["app_names"]
            if not names:
                raise InvalidInput("no application to search: index one first")
            result = ops.search(runtime, scope, names, [q], mode=mode or "hybrid",
                                top_k=max(1, min(top_k, 200)), kinds=form["kinds"] or None,
                                lang=lang or None, path=path or None, source=source or None)[0]
            values.update(result=result,
                          server_ms=round((time.perf_counter() - started) * 1000, 1))
        return _html("search.html", **values)

    # --- a symbol ---------------------------------------------------------------------

    @router.get("/apps/{app}/nodes/{fqn:path}")
    @page
    def symbol_page(request: Request, scope: Scope, app: str, fqn: str) -> HTMLResponse:
        nodes = ops.lookup_node(runtime, scope, app, fqn)
        for node in nodes:
            node["source_lines"] = ops.node_source(runtime, scope, app, node)
        mentions = ops.mentioned_by(runtime, scope, app, [n["id"] for n in nodes])
        context = ops.context(runtime, scope, app, fqn=fqn)
        return _html("symbol.html", **common(scope), title=fqn, app=app, fqn=fqn,
                     nodes=nodes, mentions=mentions, context=context)

    # --- the graph around a node ------------------------------------------------------

    def _graph_args(depth: int, kinds: list[str] | None) -> tuple[int, list[str]]:
        if not 1 <= depth <= MAX_DEPTH:
            raise InvalidInput(f"depth must be between 1 and {MAX_DEPTH}, not {depth}")
        return depth, _split(kinds) or list(DEFAULT_KINDS)

    @router.get("/apps/{app}/graph/{fqn:path}")
    @page
    def graph_page(request: Request, scope: Scope, app: str, fqn: str, depth: int = 1,
                   kinds: Kinds = None) -> HTMLResponse:
        depth, chosen = _graph_args(depth, kinds)
        graph = ops.neighbourhood(runtime, scope, app, fqn=fqn, depth=depth, kinds=chosen)
        return _html("graph.html", **common(scope), title=f"Graph: {fqn}", app=app, fqn=fqn,
                     graph=graph, depth=depth, kinds=chosen, edge_kinds=EDGE_KINDS,
                     max_depth=MAX_DEPTH, max_nodes=MAX_NODES)

    @router.get("/web/graph.json")
    def graph_json(request: Request, app: str, node: int, depth: int = 1,
                   kinds: Kinds = None) -> JSONResponse:
        """One node's neighbourhood for the graph view's expand-on-click (JSON errors)."""
        try:
            scope = scope_of(request)
            depth, chosen = _graph_args(depth, kinds)
            return JSONResponse(ops.neighbourhood(runtime, scope, app, node_id=node,
                                                  depth=depth, kinds=chosen))
        except _Login as exc:
            return JSONResponse(error_body("unauthorized", str(exc)), status_code=401)
        except GraphragError as exc:
            status, code = status_of(exc)
            return JSONResponse(error_body(code, str(exc)), status_code=status)

    # --- applications and documents ---------------------------------------------------

    @router.get("/apps")
    @page
    def apps_page(request: Request, scope: Scope) -> HTMLResponse:
        apps = [{**a, "status": ops.index_status(runtime, scope, a["name"]),
                 "summary": ops.index_summary(runtime, scope, a["name"])}
                for a in ops.apps(runtime, scope)]
        return _html("apps.html", **common(scope), title="Applications", apps=apps)

    @router.get("/apps/{app}/documents")
    @page
    def documents_page(request: Request, scope: Scope, app: str) -> HTMLResponse:
        docs = ops.documents(runtime, scope, app)
        return _html("documents.html", **common(scope), title=f"Documents of {app}", app=app,
                     documents=docs)

    @router.get("/apps/{app}/documents/{document_id}")
    @page
    def document_page(request: Request, scope: Scope, app: str, document_id: int,
                      segment: int = 0, page_range: int = 1) -> HTMLResponse:
        info = ops.document(runtime, scope, app, document_id)
        pages = ops.adjacent(runtime, scope, app, [f"{document_id}:{max(0, segment)}"],
                             max(0, min(page_range, 50)))
        return _html("document.html", **common(scope), title=info.get("filename", ""),
                     app=app, document=info, pages=pages, segment=max(0, segment),
                     page_range=page_range)

    @router.get("/apps/{app}/segments/{chunk_id:path}")
    @page
    def segment_page(request: Request, scope: Scope, app: str, chunk_id: str) -> Response:
        """A document hit or mention, shown in its document."""
        where = ops.document_segment(runtime, scope, app, chunk_id=chunk_id)
        return _to_document(app, where)

    @router.get("/apps/{app}/document-nodes/{node_id}")
    @page
    def document_node_page(request: Request, scope: Scope, app: str, node_id: int
                           ) -> Response:
        where = ops.document_segment(runtime, scope, app, node_id=node_id)
        return _to_document(app, where)

    @router.get("/apps/{app}/cite")
    @page
    def cite_form(request: Request, scope: Scope, app: str) -> HTMLResponse:
        scope.check(app)
        return _html("cite.html", **common(scope), title=f"Citations in {app}", app=app,
                     answer="", result=None)

    @router.post("/apps/{app}/cite")
    @page
    def cite_page(request: Request, scope: Scope, app: str, answer: str = Form("")
                  ) -> HTMLResponse:
        if session.cross_site(request):
            raise NotAllowed("a form of another site cannot post here")
        if not answer.strip():
            raise InvalidInput("empty answer: paste the text with its [SEG=...] ids")
        result = ops.cite(runtime, scope, app, answer_of(answer))
        return _html("cite.html", **common(scope), title=f"Citations in {app}", app=app,
                     answer=answer, result=result)

    # A malformed page request (?depth=two) is a page too; /v1 keeps the API's JSON.
    api_invalid = app.exception_handlers.get(RequestValidationError)

    async def on_invalid(request: Request, exc: Exception) -> Response:
        if request.url.path.startswith(PAGE_PREFIXES) or request.url.path == "/":
            first = exc.errors()[0] if isinstance(exc, RequestValidationError) and \
                exc.errors() else {}
            where = ".".join(str(p) for p in first.get("loc", ())
                             if p not in ("body", "query", "path"))
            return _error_page(422, "invalid_request",
                               f"{where}: {first.get('msg', 'invalid request')}",
                               auth=not no_auth)
        if api_invalid is None:
            raise exc
        return await api_invalid(request, exc)  # type: ignore[misc]

    app.add_exception_handler(RequestValidationError, on_invalid)
    app.include_router(router)
    app.mount("/web/static", StaticFiles(directory=STATIC), name="web-static")
