"""The MCP server (official ``mcp`` SDK, ``MCPServer``): tools an agent calls to search
code, read context, walk the call graph, list endpoints, widen document hits and cite.

Output is compact text for agents: no fields they do not need, code cut to the chunk's
span (the hit's snippet), ``[SEG=id]`` on every block (the id ``cite`` and
``adjacent_pages`` take back). A bad argument, an unknown application or name is a tool
error with a one-line message; the server never stops for one.

The tools read the caller's scope from the transport: the ``--app`` list of
``graphrag mcp`` on stdio, the API key's applications when mounted by ``graphrag serve``
(:class:`graphrag.server.http.McpAuth` puts it in the request scope).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import ConfigDict, Field

from graphrag.db.engine import lost_database
from graphrag.errors import GraphragError
from graphrag.server import operations as ops
from graphrag.server.limits import Glob, Name, Query, Text
from graphrag.server.mcp_links import add_link_tools, remote_caller, request_line
from graphrag.server.mode_field import ModeName
from graphrag.server.operations import Scope
from graphrag.server.runtime import Runtime

T = TypeVar("T")
SNIPPET_LINES = 12
ADJACENT_CHARS = 1200

AppArg = Annotated[Name | None, Field(
    description="Application name; default: the only application this server serves.")]


def _compact(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)


def _where(path: str | None, start: int | None, end: int | None,
           page: int | None = None) -> str:
    if page is not None:
        return f"{path or ''} p.{page}"
    if start is None:
        return path or ""
    return f"{path}:{start}-{end}" if end and end != start else f"{path}:{start}"


# --- renderers (pure) --------------------------------------------------------------------

def render_source(states: dict[str, dict[str, Any]]) -> str:
    """``from APP commit 3f2c9e1a77b0 (current)``: what the answer is from, per app."""
    return "; ".join(
        f"from {app} commit {(s['indexed_commit'] or 'unknown')[:12]} ({s['freshness']})"
        for app, s in states.items())


def render_hits(envelope: dict[str, Any]) -> str:
    """One block per hit: ``[SEG=chunk id] KIND fqn path:lines score`` and its snippet."""
    hits = envelope["hits"]
    lines = [f"{len(hits)} hits ({envelope['mode']}) for {envelope['query']!r}"]
    for h in hits:
        start = h.get("chunk_line_start") or h["line_start"]
        end = h.get("chunk_line_end") or h["line_end"]
        head = (f"[SEG={h.get('segment_id') or h['chunk_id']}] {h['kind']} {h['fqn'] or ''}"
                f"  {_where(h['file_path'], start, end, h['page_number'])}"
                f"  score={h['score']:.4f}")
        if len(envelope.get("apps") or []) > 1:
            head += f"  app={h['app']}"
        if h.get("added_by"):
            head += f"  (+{h['added_by']['relation']} of {h['added_by']['fqn']})"
        body = "\n".join((h["snippet"] or "").splitlines()[:SNIPPET_LINES])
        lines.append(head + ("\n" + body if body else ""))
    return "\n\n".join(lines)


def _ref(r: dict[str, Any], with_confidence: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": r["kind"], "fqn": r["fqn"],
                           "at": _where(r["file_path"], r["line_start"], r["line_end"])}
    if with_confidence:
        out["confidence"] = round(float(r["confidence"]), 3)
        out["resolution"] = r["resolution"]
        if r.get("via"):
            out["via"] = r["via"]
    return out


def node_summary(n: dict[str, Any]) -> dict[str, Any]:
    """A node as an agent needs it: no ids, no empty fields."""
    meta = n.get("meta") or {}
    out: dict[str, Any] = {
        "kind": n["kind"], "fqn": n["fqn"],
        "at": _where(n["file_path"], n["line_start"], n["line_end"]),
        "signature": n.get("signature"), "doc": n.get("doc_comment"),
        "route": (f"{meta.get('http_method', '')} {meta['route']}".strip()
                  if meta.get("route") else None),
        "parents": [_ref(r) for r in n["parents"]],
        "children": [_ref(r) for r in n["children"]],
        "extends": [r["fqn"] for r in n["extends"]],
        "implements": [r["fqn"] for r in n["implements"]],
        "overrides": [r["fqn"] for r in n["overrides"]],
        "callers": [_ref(r, True) for r in n["callers"]],
        "callees": [_ref(r, True) for r in n["callees"]],
        # whether the callers are all there: unresolved call sites of the name may call it
        "callers_complete": n.get("callers_complete"),
        "unresolved_callers": n.get("unresolved_callers") or None,
        # across services: who calls this endpoint over HTTP, what this code requests
        "remote_callers": [remote_caller(r) for r in n.get("remote_callers") or []],
        "requests": [request_line(r) for r in n.get("requests") or []],
    }
    return {k: v for k, v in out.items() if v not in (None, "", [])}


def render_tree(result: dict[str, Any]) -> str:
    arrow = "->" if result["direction"] == "callees" else "<-"
    lines = [f"{result['direction']} (max depth {result['max_depth']}, {result['nodes']} nodes"
             + (", truncated" if result["truncated"] else "") + ")"]

    def walk(node: dict[str, Any], depth: int) -> None:
        pad = "  " * depth
        where = _where(node["file_path"], node["line_start"], node["line_end"])
        if depth == 0:
            lines.append(f"{node['kind']} {node['fqn']}  {where}")
        else:
            conf = f" {node['confidence']:.2f}"
            res = f" [{node['resolution']}]" if node.get("resolution") else ""
            if node.get("via"):
                res += f" via {node['via']}"
            seen = "  (see above)" if node.get("seen") else ""
            lines.append(f"{pad}{arrow} {node['fqn']}{conf}{res}  {where}{seen}")
        for r in node.get("requests") or []:  # the call goes on in another service
            lines.append(f"{pad}  ~> HTTP {request_line(r)}")
        for r in node.get("remote_callers") or []:
            lines.append(f"{pad}  <~ HTTP {remote_caller(r)}")
        for child in node["children"]:
            walk(child, depth + 1)

    for root in result["roots"]:
        walk(root, 0)
    return "\n".join(lines)


def render_paths(result: dict[str, Any]) -> str:
    if not result["paths"]:
        return (f"no call path from {result['from']} to {result['to']} within"
                f" {result['max_depth']} calls")
    lines = [f"{len(result['paths'])} shortest call path(s) of {result['length']} call(s)"
             + (" (more exist)" if result["truncated"] else "")]
    for path in result["paths"]:
        parts = [path[0]["fqn"]] + [
            f"{h['fqn']} ({h['confidence']:.2f}{', via ' + h['via'] if h.get('via') else ''})"
            for h in path[1:]]
        lines.append(" -> ".join(parts))
    return "\n".join(lines)


def render_endpoints(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "no endpoints"
    return "\n".join(f"{r['http_method'] or '*'} {r['route']}  {r['handler']}"
                     f"  {_where(r['file_path'], r['line_start'], r['line_end'])}"
                     for r in rows)


def render_adjacent(result: dict[str, Any]) -> str:
    s = result["statistics"]
    lines = [f"{s['original_count']} original + {s['added_count']} added chunks,"
             f" {s['pages_covered']} pages"]
    if s["unknown_ids"]:
        lines.append("unknown ids: " + ", ".join(s["unknown_ids"]))
    for c in result["expanded_chunks"]:
        text = " ".join(c["content"].split())
        if len(text) > ADJACENT_CHARS:
            text = text[:ADJACENT_CHARS] + "..."
        mark = "added" if c["added"] else "original"
        lines.append(f"[SEG={c['segment_id']}] {c['filename']} p.{c['page_number']}"
                     f" ({mark})\n{text}")
    return "\n\n".join(lines)


def render_cite(result: dict[str, Any]) -> str:
    keep = ("segment_id", "filename", "page_number", "fqn", "snippet_preview")
    sections = [{"text": " ".join(sec["text"].split())[:200],
                 "citations": [{k: c[k] for k in keep if c.get(k) is not None}
                               for c in sec["citations"]]} for sec in result["sections"]]
    return _compact({"method": result["method"], "sections": sections,
                     "dropped_ids": [d["source_id"] for d in result["dropped_ids"]]})


def render_apps(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "no applications"
    return "\n".join(f"{a['name']}  files {a['counts']['files']}  nodes {a['counts']['nodes']}"
                     f"  chunks {a['counts']['chunks']}  documents {a['counts']['documents']}"
                     f"  indexed {a['indexed_at'] or '-'}" for a in rows)


# --- the server --------------------------------------------------------------------------

def _scope_of(ctx: Context | None, fixed: Scope | None) -> Scope:
    if fixed is not None:
        return fixed
    request = ctx.request_context.request if ctx is not None else None
    state = getattr(request, "scope", {}).get("state", {}) if request is not None else {}
    found = state.get("graphrag_scope")
    if found is None:
        raise ToolError("not authenticated")
    return found


def _tool_call(fn: Callable[[], T]) -> T:
    """Our errors become one-line tool errors (the SDK answers ``isError``)."""
    try:
        return fn()
    except GraphragError as exc:
        raise ToolError(str(exc)) from exc
    except Exception as exc:
        lost = lost_database(exc)
        if lost is None:
            raise
        raise ToolError(lost) from exc


READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)


def build_mcp(runtime: Runtime, apps: Sequence[str] | None) -> MCPServer:
    """The MCP server over ``runtime``; ``apps`` fixes the scope (stdio), None reads it
    from each HTTP request. The tools of each resource come from one builder each."""
    server = MCPServer(
        "graphrag",
        instructions=(
            "Code knowledge graph of indexed repositories and documents. Start with"
            " search_code (or find_endpoints), then get_node / trace_calls on the fqns it"
            " returns, get_context for a budgeted bundle of the code around a symbol."
            " Every block carries [SEG=id]: pass those ids to adjacent_pages and cite."),
        log_level="WARNING")
    tools = _Tools(server, runtime, Scope(frozenset(apps)) if apps is not None else None)
    for add in (_search_tools, _context_tools, _graph_tools, _document_tools,
                _application_tools, _link_tools):
        add(tools)
    forbid_unknown_arguments(server)
    return server


@dataclass(frozen=True)
class _Tools:
    """What every tool builder needs: the server, the runtime and the fixed scope."""

    server: MCPServer
    runtime: Runtime
    fixed: Scope | None

    def tool(self, description: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Register a read-only tool answering text."""
        return self.server.tool(description=description, annotations=READ_ONLY,
                                structured_output=False)

    def sources(self, names: Sequence[str]) -> str:
        """What the answer is from, per application (:func:`render_source`)."""
        return render_source({n: _tool_call(lambda n=n: ops.source(self.runtime, n))
                              for n in names})

    def scope(self, ctx: Context | None) -> Scope:
        """The applications the caller may use."""
        return _scope_of(ctx, self.fixed)

    def on_scope(self, ctx: Context | None, op: Callable[..., T], *args: Any,
                 **kwargs: Any) -> T:
        """``op(runtime, scope, *args, **kwargs)`` in the caller's scope; our errors become
        tool errors."""
        scope = self.scope(ctx)
        return _tool_call(lambda: op(self.runtime, scope, *args, **kwargs))

    def on_app(self, ctx: Context | None, app: str | None, op: Callable[..., T],
               *args: Any, **kwargs: Any) -> tuple[T, str]:
        """``op(runtime, scope, application, *args, **kwargs)`` on the application ``app``
        names (default: the scope's only one), with that application's name."""
        scope = self.scope(ctx)
        name = _tool_call(lambda: scope.default_app(app))
        return _tool_call(lambda: op(self.runtime, scope, name, *args, **kwargs)), name


def _search_tools(tools: _Tools) -> None:
    """``search_code``."""

    @tools.tool("Search the indexed code and documents by meaning and keywords (hybrid vector +"
                " BM25). Returns the best hits, one block each: [SEG=chunk id] KIND fqn"
                " path:lines score, then the first lines of the matching code. Narrow with"
                " kinds (e.g. METHOD,ENDPOINT), lang (python, java, kotlin, typescript, go ...)"
                " and path (a glob, ** crosses folders). Use the fqns with get_node and"
                " trace_calls, the SEG ids with adjacent_pages and cite.")
    def search_code(
        query: Annotated[Query, Field(
            description="What you look for, in words or identifiers.")],
        ctx: Context,
        top_k: Annotated[int, Field(ge=1, le=50, description="Number of hits.")] = 10,
        kinds: Annotated[list[Name] | None, Field(
            description="Node kinds: FUNCTION, METHOD, CLASS, ENDPOINT, PAGE ...")] = None,
        lang: Annotated[Name | None, Field(description="Language, e.g. java or py.")] = None,
        path: Annotated[Glob | None, Field(
            description="Repo-relative path glob, e.g. 'src/**/*.py'.")] = None,
        mode: Annotated[ModeName, Field(
            description="hybrid (default), vector (meaning), text (BM25 keywords) or a"
                        " mode a plugin adds.")
        ] = "hybrid",
        apps: Annotated[list[Name] | None, Field(
            description="Applications to search; default: all this server serves.")] = None,
        per_file: Annotated[int | None, Field(
            ge=0, le=50, description="Hits of one file before further ones are ranked"
                                     " down (0: no limit; default: 1 for a symbol or a question, 5"
                                     " for a description of code).")] = None,
        source: Annotated[Literal["code", "doc", "all"] | None, Field(
            description="code, doc or all (default: code and documents, except documents"
                        " in hidden tool folders and vendored trees).")] = None,
        http: Annotated[Literal["endpoints", "callers", "any"] | None, Field(
            description="HTTP between services: endpoints, code that sends requests"
                        " (callers), or either.")] = None,
    ) -> str:
        results = tools.on_scope(ctx, ops.search, apps, [query], mode=mode, top_k=top_k,
                                 kinds=kinds, lang=lang, path=path, per_file=per_file,
                                 source=source, http=http)
        names = tools.scope(ctx).resolve(apps)
        return render_hits({**results[0], "apps": names}) + "\n\n" + tools.sources(names)


def _context_tools(tools: _Tools) -> None:
    """``get_context``."""

    @tools.tool("Context for answering a question or documenting a symbol: the node named fqn"
                " (or the best hits of query) and its graph neighbourhood ranked by personalized"
                " PageRank, with summaries, code and uses/used-by, packed into budget_tokens."
                " Each block starts with its stable [SEG=id]. Give fqn or query, not both.")
    def get_context(
        ctx: Context,
        fqn: Annotated[Name | None, Field(description="Fully qualified name.")] = None,
        query: Annotated[Query | None, Field(description="Words to seed the context.")] = None,
        budget_tokens: Annotated[int, Field(ge=100, le=50_000)] = 4000,
        format: Annotated[Literal["markdown", "xml", "json"], Field(
            description="Output format of the context.")] = "markdown",
        app: AppArg = None,
    ) -> str:
        result, name = tools.on_app(ctx, app, ops.context, fqn=fqn, query=query,
                                    budget_tokens=budget_tokens, fmt=format)
        return result["context"] + "\n\n" + tools.sources([name])


def _graph_tools(tools: _Tools) -> None:
    """``get_node``, ``trace_calls``, ``find_endpoints``: the call graph and its nodes."""

    @tools.tool("One symbol by fully qualified name: kind, location, signature, doc comment,"
                " route (endpoints), parents, children, extends/implements/overrides, and its"
                " callers and callees with the resolver's confidence (0..1) and how the call was"
                " resolved; a caller through a base method or a callee through an interface says"
                " `via` that method. The plain fqn of an overloaded method lists every overload.")
    def get_node(
        fqn: Annotated[Name, Field(
            description="Fully qualified name, e.g. a.b.Class.method.")],
        ctx: Context,
        app: AppArg = None,
        static_only: Annotated[bool, Field(
            description="Only calls bound statically (no callers through base methods,"
                        " no implementations of interface methods).")] = False,
    ) -> str:
        nodes, name = tools.on_app(ctx, app, ops.lookup_node, fqn, static_only)
        return _compact({"nodes": [node_summary(n) for n in nodes],
                         **_tool_call(lambda: ops.source(tools.runtime, name))})

    @tools.tool("Call paths in the call graph. With to_fqn: the shortest call paths from"
                " from_fqn to to_fqn. Without: the tree of what from_fqn calls"
                " (direction=callees) or what calls it (direction=callers), max_depth levels,"
                " each edge with its confidence; calls through a base or interface method are"
                " marked `via` it. Across services: `~> HTTP` lines give the endpoint (and its"
                " application) a node's HTTP request reaches, `<~ HTTP` lines the code of other"
                " services calling an endpoint. Bounded: at most 200 nodes, 10 paths.")
    def trace_calls(
        from_fqn: Annotated[Name, Field(
            description="Start symbol (fully qualified name).")],
        ctx: Context,
        to_fqn: Annotated[Name | None, Field(description="End symbol for paths.")] = None,
        direction: Annotated[Literal["callees", "callers"], Field(
            description="Tree direction when no to_fqn.")] = "callees",
        max_depth: Annotated[int, Field(ge=1, le=8)] = 3,
        app: AppArg = None,
        static_only: Annotated[bool, Field(
            description="Only calls bound statically (no dispatch through base or"
                        " interface methods).")] = False,
    ) -> str:
        result, name = tools.on_app(ctx, app, ops.trace, from_fqn, to_fqn, direction,
                                    max_depth, static_only)
        rendered = render_paths(result) if to_fqn else render_tree(result)
        return rendered + "\n\n" + tools.sources([name])

    @tools.tool("HTTP endpoints found in the code (Spring, JAX-RS, FastAPI, Flask, Express, Go"
                " net/http): METHOD route handler-fqn path:lines. The filter keeps an HTTP method"
                " (GET) or a route/handler fragment (/orders).")
    def find_endpoints(
        ctx: Context,
        route_or_method_filter: Annotated[Name | None, Field(
            description="GET, POST ... or part of a route or handler name.")] = None,
        app: AppArg = None,
    ) -> str:
        rows, name = tools.on_app(ctx, app, ops.endpoints, route_or_method_filter)
        return render_endpoints(rows) + "\n\n" + tools.sources([name])


def _document_tools(tools: _Tools) -> None:
    """``adjacent_pages``, ``cite``: document pages and citations."""

    @tools.tool("Widen document hits with the chunks of neighbouring pages of the same"
                " document (page_range pages before and after, default 2), sorted by file, page"
                " and segment. Give the [SEG=...] ids of document hits.")
    def adjacent_pages(
        chunk_ids: Annotated[list[Name], Field(description="SEG ids of document chunks.")],
        ctx: Context,
        page_range: Annotated[int, Field(ge=0, le=50)] = 2,
        app: AppArg = None,
    ) -> str:
        return render_adjacent(tools.on_app(ctx, app, ops.adjacent, chunk_ids, page_range)[0])

    @tools.tool("Citations for an answer: give the answer as JSON {\"sections\": [{\"text\":"
                " ..., \"source_ids\": [SEG ids you used]}]} (or plain text); returns per section"
                " the document, page (or code file) and snippet of each source, falling back"
                " to text matching when the answer has no usable ids.")
    def cite(
        answer: Annotated[Text, Field(description="The answer JSON (or text).")],
        ctx: Context,
        app: AppArg = None,
    ) -> str:
        return render_cite(tools.on_app(ctx, app, ops.cite, answer)[0])


def _application_tools(tools: _Tools) -> None:
    """``list_apps``, ``index_status``."""

    @tools.tool("The applications (indexed repositories, knowledge bases) this server serves,"
                " with their file, node, chunk and document counts.")
    def list_apps(ctx: Context) -> str:
        return render_apps(tools.on_scope(ctx, ops.apps))

    @tools.tool("Indexing state of one application: row counts, per-stage pipeline progress"
                " (pending/done/failed, with errors) and documents by status.")
    def index_status(ctx: Context, app: AppArg = None) -> str:
        return _compact(tools.on_app(ctx, app, ops.index_status)[0])


def _link_tools(tools: _Tools) -> None:
    """The tools of links between services (``graphrag.server.mcp_links``)."""
    add_link_tools(tools)


def forbid_unknown_arguments(server: MCPServer) -> None:
    """Make every tool refuse an argument it does not take (``app`` given to
    ``search_code``, which takes ``apps``, would otherwise be dropped and every application
    searched); the published input schemas say so (``additionalProperties: false``)."""
    for registered in server._tool_manager.list_tools():
        meta = registered.fn_metadata
        strict = type(meta.arg_model.__name__, (meta.arg_model,), {
            "model_config": ConfigDict(**{**meta.arg_model.model_config, "extra": "forbid"}),
            "__module__": meta.arg_model.__module__})
        meta.arg_model = strict
        registered.parameters = strict.model_json_schema(by_alias=True)
