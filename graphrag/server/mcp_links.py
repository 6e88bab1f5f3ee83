"""MCP tools of the links between services: who calls an endpoint over HTTP (from any
application the caller may use), and the links of an application or group."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, Protocol

from mcp.server.mcpserver import Context
from pydantic import Field

from graphrag.server import operations as ops
from graphrag.server.limits import Name

AppArg = Annotated[Name | None, Field(
    description="Application name; default: the only application this server serves.")]


def render_links(report: dict[str, Any]) -> str:
    """One line per link, then the call sites that reach no indexed endpoint."""
    lines = [f"{r['caller_app']} {r['caller']} ({r['file_path']}:{r['line']})"
             f" {r['method'] or '?'} {r['url']} => {r['endpoint_app']} {r['endpoint']}"
             f" [{r['endpoint_method']} {r['route']}] {r['confidence']:.2f} {r['reason']}"
             for r in report["links"]]
    lines += [f"{r['caller_app']} {r['caller']} ({r['file_path']}:{r['line']})"
              f" {r['method'] or '?'} {r['url']} => no indexed endpoint"
              for r in report["unmatched"]]
    return "\n".join(lines) or "no HTTP call sites"


def remote_caller(r: dict[str, Any]) -> str:
    """``app fqn (path:line) GET url [0.90 path template]``."""
    return (f"{r['caller_app']} {r['caller']} ({r['file_path']}:{r['line']})"
            f" {r['method'] or '?'} {r['url']} [{r['confidence']:.2f} {r['reason']}]")


def request_line(r: dict[str, Any]) -> str:
    """``GET url => app endpoint-fqn`` (or ``=> no indexed endpoint``)."""
    target = f"{r['endpoint_app']} {r['endpoint']}" if r.get("endpoint") \
        else "no indexed endpoint"
    return f"{r['method'] or '?'} {r['url']} (line {r['line']}) => {target}"


def render_callers(nodes: list[dict[str, Any]]) -> str:
    out = []
    for n in nodes:
        route = (n.get("meta") or {}).get("route")
        head = f"{n['kind']} {n['fqn']}" + (
            f" [{n['meta'].get('http_method')} {route}]" if route else "")
        lines = [head]
        if n["kind"] == "ENDPOINT":
            callers = n.get("remote_callers") or []
            lines += [f"  <~ {remote_caller(r)}" for r in callers] or [
                "  no HTTP caller in the indexed applications"]
        lines += [f"  ~> {request_line(r)}" for r in n.get("requests") or []]
        out.append("\n".join(lines))
    return "\n\n".join(out)


class ToolKit(Protocol):
    """What the tools here need of the MCP server's tool builder (``server.mcp``)."""

    def tool(self, description: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        ...

    def sources(self, names: Sequence[str]) -> str:
        ...

    def on_scope(self, ctx: Context | None, op: Callable[..., Any], *args: Any) -> Any:
        ...

    def on_app(self, ctx: Context | None, app: str | None, op: Callable[..., Any],
               *args: Any) -> tuple[Any, str]:
        ...


def add_link_tools(tools: ToolKit) -> None:
    """Register the tools on the server of ``tools``."""

    @tools.tool("Who calls this endpoint over HTTP: the code in every indexed service (the"
                " applications you may use) whose request reaches the ENDPOINT fqn, each with"
                " file:line, method, URL as written, confidence and reason. For a function that"
                " sends requests: the endpoints they reach.")
    def endpoint_callers(
        fqn: Annotated[Name, Field(
            description="The ENDPOINT's (handler's) fully qualified name.")],
        ctx: Context,
        app: AppArg = None,
    ) -> str:
        nodes, name = tools.on_app(ctx, app, ops.endpoint_callers, fqn)
        return render_callers(nodes) + "\n\n" + tools.sources([name])

    @tools.tool("HTTP links between services: each call site (application, function,"
                " file:line, method, URL) and the ENDPOINT it reaches (application, handler,"
                " route) with confidence and reason, then the call sites that reach none of the"
                " indexed endpoints. Filter by application and/or group.")
    def service_links(
        ctx: Context,
        app: Annotated[Name | None, Field(
            description="Only links from or to this application.")] = None,
        group: Annotated[Name | None, Field(
            description="Only links within this group of applications.")] = None,
    ) -> str:
        return render_links(tools.on_scope(ctx, ops.links, group, app))
