"""`graphrag graph export|node|files|links`: look at the stored graph, its files and the
HTTP links between applications."""

from __future__ import annotations

import click

from graphrag.cli.options import (
    app_option,
    context_for,
    db_option,
    json_option,
    print_json,
    print_rows,
    scope_for,
)
from graphrag.db.apps import skipped_documents
from graphrag.graph.analysis import export_graph, to_graphml
from graphrag.graph.index_state import FILE_STATUSES, list_files
from graphrag.graph.queries import node_details
from graphrag.graph.service_links import links_report
from graphrag.kinds import CALLABLE_KINDS


@click.group("graph")
def graph_group() -> None:
    """The code graph: export it, inspect a node, list skipped files."""


@graph_group.command("export")
@app_option
@click.option("--format", "fmt", type=click.Choice(["json", "graphml"]), default="json",
              show_default=True)
@click.option("--output", "-o", type=click.File("w"), default="-", help="File (default stdout).")
@click.option("--static-only", is_flag=True,
              help="Only the stored calls: no CALLS edges through base or interface methods.")
@db_option
@json_option
def graph_export(app_name: str, fmt: str, output, static_only: bool, db_url: str | None,
                 as_json: bool) -> None:
    """Export the application's nodes and edges as JSON or GraphML."""
    data = export_graph(context_for(db_url, app_name), static_only)
    if fmt == "graphml" and not as_json:
        output.write(to_graphml(data))
    else:
        import json

        output.write(json.dumps(data, indent=1, default=str, ensure_ascii=False) + "\n")


@graph_group.command("node")
@click.argument("fqn")
@app_option
@click.option("--static-only", is_flag=True,
              help="Only calls bound statically: no callers through the methods this one"
                   " overrides, no implementations of the interface methods it calls.")
@click.option("--unresolved", is_flag=True,
              help="List the call sites of the node's name the resolver could not bind.")
@db_option
@json_option
def graph_node(fqn: str, app_name: str, static_only: bool, unresolved: bool,
               db_url: str | None, as_json: bool) -> None:
    """Show the node FQN with its callers, callees, parents and children."""
    nodes = node_details(context_for(db_url, app_name), fqn, static_only, unresolved)
    if as_json:
        print_json(nodes)
        return
    for n in nodes:
        click.echo(f"{n['kind']} {n['fqn']}  ({n['file_path']}:{n['line_start']}-{n['line_end']})")
        if n["signature"]:
            click.echo(f"  signature: {n['signature']}")
        for overload in (n["meta"] or {}).get("overloads") or []:
            click.echo(f"  overload: {' '.join(str(overload).split())}")
        if n["meta"].get("route"):
            click.echo(f"  route: {n['meta'].get('http_method')} {n['meta']['route']}")
        for label in ("parents", "children", "extends", "implements", "subtypes",
                      "overrides", "callers", "callees"):
            for r in n[label]:
                extra = f" [{r['resolution']} {r['confidence']:.2f}]" if label in (
                    "callers", "callees") else ""
                if r.get("via"):
                    extra += f" via {r['via']}"
                click.echo(f"  {label[:-1] if label.endswith('s') else label}: "
                           f"{r['kind']} {r['fqn']}{extra}")
        if n["kind"] in CALLABLE_KINDS:
            click.echo("  " + callers_note(n))
        for r in n.get("remote_callers") or []:
            click.echo(f"  remote caller: {r['caller_app']} {r['caller']}"
                       f" ({r['file_path']}:{r['line']}) {r['method'] or '?'} {r['url']}"
                       f" [{r['confidence']:.2f} {r['reason']}]")
        for r in n.get("requests") or []:
            target = f"{r['endpoint_app']} {r['endpoint']}" if r["endpoint"] \
                else "(no indexed endpoint)"
            click.echo(f"  request: {r['method'] or '?'} {r['url']} (line {r['line']})"
                       f" -> {target}")
        for site in n.get("unresolved_sites") or []:
            recv = f"{site['receiver']}." if site["receiver"] else ""
            click.echo(f"  unresolved: {site['caller']} ({site['file_path']}:{site['line']})"
                       f" calls {recv}{n['name']} [{site['reason']}]")


def callers_note(node: dict) -> str:
    """Whether the node's caller list is complete, in words."""
    count = len({r["id"] for r in node["callers"]})
    if node["callers_complete"]:
        return f"callers: {count}, complete (every call site of `{node['name']}` is resolved)"
    return (f"callers: {count}, maybe incomplete: {node['unresolved_callers']} unresolved"
            f" call site(s) of `{node['name']}` (--unresolved lists them)")


@graph_group.command("files")
@app_option
@click.option("--status", "statuses", multiple=True, type=click.Choice(FILE_STATUSES),
              help="Only files of this status (repeat; default: skipped, failed, partial).")
@db_option
@json_option
def graph_files(app_name: str, statuses: tuple[str, ...], db_url: str | None,
                as_json: bool) -> None:
    """The application's files that were skipped or not fully parsed, with the reason
    (as recorded by the last run that saw each one; documents the last run skipped, e.g.
    over the upload size limit, are listed as skipped too)."""
    ctx = context_for(db_url, app_name)
    wanted = statuses or ("skipped", "failed", "partial")
    with ctx.engine.connect() as conn:
        rows = list_files(conn, ctx.app_id, wanted)
        if "skipped" in wanted:  # documents the last run skipped have no row of their own
            rows += [{"path": d["path"], "language": "document", "status": "skipped",
                      "reason": d["reason"], "size_bytes": None, "indexed_at": None}
                     for d in skipped_documents(conn, ctx.app_id)]
            rows.sort(key=lambda r: r["path"])
    print_rows(rows, as_json, "no such files",
               lambda r: f"{r['status']}\t{r['path']}\t{r['reason'] or '-'}")


@graph_group.command("links")
@click.option("--group", default=None, metavar="NAME", help="Only links within this group.")
@click.option("--app", "app_name", default=None, metavar="NAME",
              help="Only links from or to this application.")
@db_option
@json_option
def graph_links(group: str | None, app_name: str | None, db_url: str | None,
                as_json: bool) -> None:
    """HTTP calls linked to the endpoints they reach, across applications, and the call
    sites that reach none of the indexed endpoints."""
    scope = scope_for(db_url, [app_name] if app_name else (), group=group, every=True)
    report = links_report(scope)
    if as_json:
        print_json(report)
        return
    if not report["links"] and not report["unmatched"]:
        click.echo("no HTTP call sites")
    for r in report["links"]:
        click.echo(f"{r['caller_app']} {r['caller']} ({r['file_path']}:{r['line']})"
                   f"  {r['method'] or '?'} {r['url']}  ->  {r['endpoint_app']}"
                   f" {r['endpoint']} [{r['endpoint_method']} {r['route']}]"
                   f"  {r['confidence']:.2f} {r['reason']}")
    for r in report["unmatched"]:
        click.echo(f"{r['caller_app']} {r['caller']} ({r['file_path']}:{r['line']})"
                   f"  {r['method'] or '?'} {r['url']}  ->  (no indexed endpoint)")


def register(cli: click.Group) -> None:
    cli.add_command(graph_group)
