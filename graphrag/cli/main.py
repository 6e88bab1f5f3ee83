"""Entry point: the click group and the mapping of errors to exit codes.

Commands are loaded lazily (click's documented lazy-group pattern): `graphrag db status`
must not pay for importing networkx, numpy or torch, which the indexing and search
commands need.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys

import click

from graphrag.errors import GraphragError

# command name -> module under graphrag.cli whose register(cli) adds it
COMMAND_MODULES: dict[str, str] = {
    "db": "db", "apps": "apps", "index": "index", "graph": "graph", "chunk": "chunk",
    "runs": "chunk", "pipeline": "pipeline", "reembed": "pipeline", "search": "search",
    "context": "search",
    "hit-test": "search", "ingest": "documents", "documents": "documents",
    "adjacent": "documents", "cite": "documents",
    "serve": "serve", "mcp": "serve", "keys": "keys",
    "worker": "jobs", "jobs": "jobs", "repos": "jobs", "groups": "groups",
}


def load_module_commands(module: str) -> dict[str, click.Command]:
    """The commands that ``graphrag.cli.<module>.register`` adds."""
    holder = click.Group()
    importlib.import_module(f"graphrag.cli.{module}").register(holder)
    return dict(holder.commands)


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMAND_MODULES)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMAND_MODULES.get(cmd_name)
        if module is None:
            return None
        return load_module_commands(module).get(cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show tracebacks of unexpected errors.")
@click.version_option(package_name="graphrag")
def cli(debug: bool) -> None:
    """graphrag: code knowledge graphs and chunks for retrieval-augmented generation."""
    if debug:
        os.environ["GRAPHRAG_DEBUG"] = "1"
        logging.basicConfig(level=logging.WARNING)  # library warnings on stderr too


def main() -> None:
    """Console script: our own errors become one line on stderr and an exit code."""
    # The driver logs e.g. "error ignored terminating <psycopg.Pipeline>" when the server
    # vanished; without a handler Python prints it beside our one-line error.
    logging.getLogger("psycopg").addHandler(logging.NullHandler())
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except GraphragError as exc:
        if os.environ.get("GRAPHRAG_DEBUG"):
            raise
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except BrokenPipeError:  # e.g. `graphrag search ... | head`
        sys.exit(0)
    except Exception as exc:
        lost = _lost_database(exc)
        if lost is None or os.environ.get("GRAPHRAG_DEBUG"):
            raise
        click.echo(f"error: {lost}", err=True)
        sys.exit(3)
    sys.exit(0)


def _lost_database(exc: BaseException) -> str | None:
    """The one-line message for a database that went away mid-command, else None (see
    :func:`graphrag.db.engine.lost_database`)."""
    from graphrag.db.engine import lost_database

    return lost_database(exc)
