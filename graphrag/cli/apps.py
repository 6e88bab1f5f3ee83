"""`graphrag apps`: list and delete applications."""

from __future__ import annotations

from typing import Any

import click

from graphrag.cli.options import db_option, engine_for, json_option, listing_group, print_json
from graphrag.db.apps import delete_app, list_apps
from graphrag.graph.unresolved_store import add_call_shares

apps_group = listing_group(
    "apps", "Applications (indexed repositories). Without a subcommand: list them.")


@apps_group.command("list")
@db_option
@json_option
def apps_list(db_url: str | None, as_json: bool) -> None:
    """List applications with their row counts and the share of call sites resolved per
    language."""
    _, engine = engine_for(db_url)
    apps = add_call_shares(engine, list_apps(engine))
    if as_json:
        print_json(apps)
        return
    if not apps:
        click.echo("no applications")
    for app in apps:
        c = app["counts"]
        click.echo(
            f"{app['name']}\t{app['root_path'] or '-'}\tfiles {c['files']}\tnodes {c['nodes']}"
            f"\tedges {c['edges']}\tchunks {c['chunks']}\tdocuments {c['documents']}"
            + (f"\tcommit {app['indexed_commit'][:12]}" if app.get("indexed_commit") else "")
        )
        line = call_share_line(app["calls"])
        if line:
            click.echo(f"  {line}")


def call_share_line(calls: dict[str, dict[str, Any]]) -> str | None:
    """``calls resolved: python 0.93 (1,234 of 1,325; 310 external)``, one part per
    language; None without code."""
    parts = []
    for lang, c in calls.items():
        external = c["unresolved"].get("external", 0)
        inside = sum(c["unresolved"].values()) - external
        share = "-" if c["share"] is None else f"{c['share']:.2f}"
        parts.append(f"{lang} {share} ({c['resolved']:,} of {c['resolved'] + inside:,};"
                     f" {external:,} external)")
    return "calls resolved: " + ", ".join(parts) if parts else None


@apps_group.command("delete")
@click.argument("name")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@db_option
@json_option
def apps_delete(name: str, yes: bool, db_url: str | None, as_json: bool) -> None:
    """Delete an application and everything indexed for it."""
    _, engine = engine_for(db_url)
    if not yes:
        click.confirm(f"Delete application {name!r} and all its data?", abort=True)
    removed = delete_app(engine, name)
    if as_json:
        print_json({"deleted": name, "removed": removed})
    else:
        click.echo(f"deleted {name}: " + ", ".join(f"{k} {v}" for k, v in removed.items()))


def register(cli: click.Group) -> None:
    cli.add_command(apps_group)
