"""`graphrag db ...`: status, upgrade, downgrade, stop."""

from __future__ import annotations

import click

from graphrag.cli.apps import call_share_line
from graphrag.cli.options import db_option, engine_for, json_option, print_json, settings_for
from graphrag.db import engine as dbengine
from graphrag.db.server import stop_embedded
from graphrag.db.status import db_status
from graphrag.graph.unresolved_store import add_call_shares


@click.group("db")
def db_group() -> None:
    """Database: status and migrations."""


@db_group.command("status")
@db_option
@json_option
def db_status_cmd(db_url: str | None, as_json: bool) -> None:
    """Show the server, pgvector and migration versions and per-application counts (with
    the share of call sites resolved per language)."""
    settings, engine = engine_for(db_url)
    url = dbengine.resolve_url(settings)
    status = db_status(engine, url, embedded=settings.database_url is None)
    add_call_shares(engine, status["applications"])
    if as_json:
        print_json(status)
        return
    mig = status["migration"]
    click.echo(f"database:   {status['url']}{' (embedded)' if status['embedded'] else ''}")
    click.echo(f"server:     PostgreSQL {status['server_version']}")
    click.echo(f"pgvector:   {status['pgvector_version']}")
    click.echo(f"migration:  {mig['current']} (head {mig['head']})")
    if not status["applications"]:
        click.echo("applications: none")
    for app in status["applications"]:
        counts = ", ".join(f"{k} {v}" for k, v in app["counts"].items())
        commit = f" (commit {app['indexed_commit'][:12]})" if app.get("indexed_commit") else ""
        click.echo(f"  {app['name']}{commit}: {counts}")
        line = call_share_line(app["calls"])
        if line:
            click.echo(f"    {line}")


@db_group.command("upgrade")
@click.option("--revision", default="head", show_default=True)
@db_option
@json_option
def db_upgrade(revision: str, db_url: str | None, as_json: bool) -> None:
    """Apply migrations (also done automatically on first use)."""
    _, engine = engine_for(db_url, migrate=False)
    dbengine.upgrade(engine, revision)
    current = dbengine.current_revision(engine)
    if as_json:
        print_json({"current": current, "head": dbengine.head_revision()})
    else:
        click.echo(f"database at revision {current}")


@db_group.command("downgrade")
@click.option("--revision", default="base", show_default=True)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@db_option
@json_option
def db_downgrade(revision: str, yes: bool, db_url: str | None, as_json: bool) -> None:
    """Revert migrations (to base drops every table)."""
    if not yes:
        click.confirm(f"Downgrade the database to {revision}? Data may be lost", abort=True)
    _, engine = engine_for(db_url, migrate=False)
    dbengine.downgrade(engine, revision)
    current = dbengine.current_revision(engine)
    if as_json:
        print_json({"current": current})
    else:
        click.echo(f"database at revision {current or 'base'}")


@db_group.command("stop")
@db_option
@json_option
def db_stop(db_url: str | None, as_json: bool) -> None:
    """Stop the embedded server (it restarts on the next command)."""
    settings = settings_for(db_url)
    if settings.database_url:
        raise click.UsageError("--db points at an external server; nothing to stop")
    stopped = stop_embedded(settings.pgdata)
    if as_json:
        print_json({"stopped": stopped})
    else:
        click.echo("stopped" if stopped else "not running")


def register(cli: click.Group) -> None:
    cli.add_command(db_group)
