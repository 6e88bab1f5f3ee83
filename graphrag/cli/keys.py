"""`graphrag keys create|list|revoke`: API keys of the HTTP server."""

from __future__ import annotations

from typing import Any

import click

from graphrag.cli.options import (
    db_option,
    engine_for,
    json_option,
    listing_command,
    print_json,
    print_result,
)
from graphrag.db.apps import get_app
from graphrag.db.keys import create_key, list_keys, revoke_key


@click.group("keys")
def keys_group() -> None:
    """API keys for `graphrag serve` (only their hash is stored)."""


@keys_group.command("create")
@click.option("--app", "app_names", required=True, multiple=True, metavar="NAME",
              help="Application the key may use (repeat).")
@click.option("--name", metavar="LABEL", help="A label to recognise the key by.")
@db_option
@json_option
def keys_create(app_names: tuple[str, ...], name: str | None, db_url: str | None,
                as_json: bool) -> None:
    """Create a key for the applications; it is printed once and never again. Each
    application must exist (a misspelt name would make a key that opens nothing)."""
    _, engine = engine_for(db_url)
    with engine.connect() as conn:
        for app in app_names:
            get_app(conn, app)  # UnknownApplication: exit 1, nothing created
    key = create_key(engine, app_names, name)
    if as_json:
        print_json(key)
        return
    click.echo(key["key"])
    click.echo(f"key {key['id']} for {', '.join(key['apps'])}: store it now, it is not"
               " shown again", err=True)


def _key_line(k: dict[str, Any]) -> str:
    state = f"revoked {k['revoked_at']}" if k["revoked_at"] else "active"
    return (f"{k['id']}\t{k['name'] or '-'}\t{k['prefix']}...\t{','.join(k['apps'])}"
            f"\tlast used {k['last_used_at'] or 'never'}\t{state}")


keys_list = listing_command(
    keys_group, list_keys, "no keys", _key_line,
    "List keys: id, label, first characters, applications, last use, revocation.")


@keys_group.command("revoke")
@click.argument("key_id", type=int)
@db_option
@json_option
def keys_revoke(key_id: int, db_url: str | None, as_json: bool) -> None:
    """Revoke key KEY_ID (see `keys list`); requests with it are refused at once."""
    _, engine = engine_for(db_url)
    print_result(revoke_key(engine, key_id), as_json,
                 lambda result: f"revoked key {result['id']}")


def register(cli: click.Group) -> None:
    cli.add_command(keys_group)
