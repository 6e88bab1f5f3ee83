"""`graphrag groups`: the groups of applications whose services are linked."""

from __future__ import annotations

from typing import Any

import click

from graphrag.cli.options import (
    db_option,
    engine_for,
    json_option,
    listing_command,
    listing_group,
    print_result,
    scope_for,
)
from graphrag.graph.service_links import add_to_group, drop_group, groups

groups_group = listing_group("groups", """Groups of applications whose services are linked
to one another.

The HTTP call sites of each application are linked to the endpoints of the applications
of its groups (without any group: of every application). Without a subcommand: list
them.""")


def _group_line(row: dict[str, Any]) -> str:
    return f"{row['name']}\t{' '.join(row['apps'])}"


groups_list = listing_command(
    groups_group, groups, "no groups (every application is linked with every other)",
    _group_line, "List the groups with their applications.")


@groups_group.command("add")
@click.argument("name")
@click.argument("apps", nargs=-1, required=True)
@db_option
@json_option
def groups_add(name: str, apps: tuple[str, ...], db_url: str | None, as_json: bool) -> None:
    """Add the applications APPS to group NAME (created when new) and link again."""
    print_result(add_to_group(scope_for(db_url, apps), name), as_json, _group_line)


@groups_group.command("remove")
@click.argument("name")
@db_option
@json_option
def groups_remove(name: str, db_url: str | None, as_json: bool) -> None:
    """Delete group NAME (its applications stay) and link again."""
    _, engine = engine_for(db_url)
    print_result(drop_group(engine, name), as_json, lambda _: f"deleted group {name}")


def register(cli: click.Group) -> None:
    cli.add_command(groups_group)
