"""Entry point: the click group and the mapping of errors to exit codes."""

from __future__ import annotations

import os
import sys

import click

from graphrag.errors import GraphragError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show tracebacks of unexpected errors.")
@click.version_option(package_name="graphrag")
def cli(debug: bool) -> None:
    """graphrag: code knowledge graphs and chunks for retrieval-augmented generation."""
    if debug:
        os.environ["GRAPHRAG_DEBUG"] = "1"


def _register() -> None:
    from graphrag.cli import apps, db

    for module in (db, apps):
        module.register(cli)
    for name in ("index", "graph", "chunk", "pipeline", "search"):
        try:
            module = __import__(f"graphrag.cli.{name}", fromlist=["register"])
        except ModuleNotFoundError as exc:
            if exc.name != f"graphrag.cli.{name}":
                raise
            continue
        module.register(cli)


_register()


def main() -> None:
    """Console script: our own errors become one line on stderr and an exit code."""
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
    sys.exit(0)
