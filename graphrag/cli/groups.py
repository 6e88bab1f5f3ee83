"""`graphrag groups`: the groups of applications whose services are linked."""

from __future__ import annotations

import click

from graphrag.cli.options import (
    db_option,
    engine_for,
    json_option,
    print_json,
    print_rows,
    scope_for,
)
from graphrag.graph.service_links import add_to_group, drop_group, groups


@click.group("groups", invoke_without_command=True)
@db_option
@json_option
@click.pass_context
def groups_group(ctx: click.Context, db_url: str | None, as_json: bool) -> None:
    """Groups of applications whose services are linked to one another.

    The HTTP call sites of each application are linked to the endpoints of the
    applications of its groups (without any group: of every application). Without a
    subcommand: list them."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(groups_list, db_url=db_url, as_json=as_json)


@groups_group.command("list")
@db_option
@json_option
def groups_list(db_url: str | None, as_json: bool) -> None:
    """List the groups with their applications."""
    _, engine = engine_for(db_url)
    rows = groups(engine)
    print_rows(rows, as_json, "no groups (every application is linked with every other)",
               lambda row: f"{row['name']}\t{' '.join(row['apps'])}")


@groups_group.command("add")
@click.argument("name")
@click.argument("apps", nargs=-1, required=True)
@db_option
@json_option
def groups_add(name: str, apps: tuple[str, ...], db_url: str | None, as_json: bool) -> None:
    """Add the applications APPS to group NAME (created when new) and link again."""
    row = add_to_group(scope_for(db_url, apps), name)
    if as_json:
        print_json(row)
        return
    click.echo(f"{row['name']}\t{' '.join(row['apps'])}")


@groups_group.command("remove")
@click.argument("name")
@db_option
@json_option
def groups_remove(name: str, db_url: str | None, as_json: bool) -> None:
    """Delete group NAME (its applications stay) and link again."""
    _, engine = engine_for(db_url)
    row = drop_group(engine, name)
    if as_json:
        print_json(row)
        return
    click.echo(f"deleted group {name}")


def register(cli: click.Group) -> None:
    cli.add_command(groups_group)
