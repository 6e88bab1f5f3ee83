"""Options shared by every command, as decorators (accepted after the command name)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click
from sqlalchemy import Engine

from graphrag.config import Settings, load_settings
from graphrag.db.context import AppContext, AppScope, resolve_context, resolve_scope
from graphrag.db.engine import get_engine

F = TypeVar("F", bound=Callable[..., Any])


def db_option(fn: F) -> F:
    return click.option(
        "--db", "db_url", envvar="GRAPHRAG_DATABASE_URL", default=None, metavar="URL",
        help="PostgreSQL URL (default: the embedded server in $GRAPHRAG_HOME).",
    )(fn)


def _quiet_under_json(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if value:  # machine output: no notices (e.g. the one-time model export) on stderr
        from graphrag.embedding.notice import set_quiet

        set_quiet(True)
    return value


def json_option(fn: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.",
                        callback=_quiet_under_json)(fn)


def app_option(fn: F) -> F:
    return click.option("--app", "app_name", required=True, metavar="NAME",
                        help="Application (indexed repository or knowledge base).")(fn)


def settings_for(db_url: str | None) -> Settings:
    return load_settings().with_overrides(database_url=db_url)


def engine_for(db_url: str | None, *, migrate: bool = True) -> tuple[Settings, Engine]:
    settings = settings_for(db_url)
    return settings, get_engine(settings, migrate=migrate)


def context_for(db_url: str | None, app_name: str) -> AppContext:
    """The service context of a command: settings, engine and the application (resolved
    once here; an unknown name is a user error)."""
    settings, engine = engine_for(db_url)
    return resolve_context(engine, settings, app_name)


def scope_for(db_url: str | None, app_names: Sequence[str] = (), *,
              group: str | None = None, every: bool = False) -> AppScope:
    """The scope of a command reading several applications (named, a group's, or with
    ``every`` all of them), resolved once here; an unknown name is a user error before
    any work."""
    settings, engine = engine_for(db_url)
    return resolve_scope(engine, settings, app_names, group=group, every=every)


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, default=str, ensure_ascii=False))


def print_result(result: Any, as_json: bool, text: Callable[[Any], str]) -> None:
    """One command's result: JSON under ``--json``, else ``text(result)``."""
    if as_json:
        print_json(result)
    else:
        click.echo(text(result))


def print_rows(rows: list[Any], as_json: bool, empty: str, line: Callable[[Any], str]
               ) -> None:
    """A listing: JSON under ``--json``, else ``empty`` when there is nothing and one
    ``line(row)`` a row."""
    if as_json:
        print_json(rows)
        return
    if not rows:
        click.echo(empty)
    for row in rows:
        click.echo(line(row))


def progress_enabled(as_json: bool) -> bool:
    """Progress bars go to stderr, only for humans at a terminal."""
    return not as_json and sys.stderr.isatty()


def listing_command(group: click.Group, rows: Callable[[Engine], list[Any]], empty: str,
                    line: Callable[[Any], str], help: str, name: str = "list"
                    ) -> click.Command:
    """Add to ``group`` the command ``name`` printing ``rows(engine)``
    (:func:`print_rows`)."""

    @group.command(name, help=help)
    @db_option
    @json_option
    def command(db_url: str | None, as_json: bool) -> None:
        _, engine = engine_for(db_url)
        print_rows(rows(engine), as_json, empty, line)

    return command


def listing_group(name: str, help: str) -> click.Group:
    """A command group that, called without a subcommand, runs its ``list`` command (with
    the group's ``--db`` and ``--json``)."""

    @click.group(name, invoke_without_command=True, help=help)
    @db_option
    @json_option
    @click.pass_context
    def group(ctx: click.Context, db_url: str | None, as_json: bool) -> None:
        if ctx.invoked_subcommand is None:
            ctx.invoke(group.commands["list"], db_url=db_url, as_json=as_json)

    return group
