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
from click.utils import make_default_short_help

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

# command name -> its one-line help, so that `graphrag --help` lists the commands without
# importing them (tests/test_foundation.py keeps it equal to each command's own help)
COMMAND_HELP: dict[str, str] = {
    "db": "Database: status and migrations.",
    "apps": "Applications (indexed repositories).",
    "index": "Index the repository at PATH into application NAME (incremental).",
    "graph": "The code graph: export it, inspect a node, list skipped files.",
    "chunk": "Plan chunks for the nodes of an application (one run record per call).",
    "runs": "List the chunk runs of an application, newest first.",
    "pipeline": ("Pipeline stages that fill chunks (extract-snippet, render-doc, "
                 "summarize, embed, link-edges)."),
    "reembed": ("Embed every chunk of an application again with the configured model and "
                "backend (GRAPHRAG_MODEL_PATH, GRAPHRAG_EMBED_BACKEND); the vector columns "
                "follow its dimension."),
    "search": "Search chunks of one or more applications for QUERY (or a --queries file).",
    "context": ("Context around FQN (or --query) ranked by personalized PageRank, within a "
                "budget."),
    "hit-test": "Recall@1/5/10 and MRR@10 of a query file, per mode, with the misses.",
    "ingest": "Ingest PDF, DOCX, Markdown and text FILES into application NAME.",
    "documents": "Ingested documents: list, delete, show segments.",
    "adjacent": "Add the chunks of neighbouring pages (same document) to the given chunks.",
    "cite": ("Map an answer's source ids ([SEG=...] ids) to documents, pages and snippets; "
             "fall back to text matching when the answer has no usable ids."),
    "serve": "Serve the HTTP API under /v1 (OpenAPI at /docs) and MCP at /mcp.",
    "mcp": "Run the MCP server on stdio for an agent (Claude Code, Cursor, Codex ...).",
    "keys": "API keys for `graphrag serve` (only their hash is stored).",
    "worker": ("Execute queued jobs until stopped (SIGTERM/Ctrl-C finish the running job "
               "first)."),
    "jobs": "Queued jobs, newest first: state, attempts, duration and error.",
    "repos": "Repositories indexed by the workers, now or on a schedule.",
    "groups": "Groups of applications whose services are linked to one another.",
}


def load_module_commands(module: str) -> dict[str, click.Command]:
    """The commands that ``graphrag.cli.<module>.register`` adds."""
    holder = click.Group()
    importlib.import_module(f"graphrag.cli.{module}").register(holder)
    return dict(holder.commands)


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMAND_MODULES)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list as click writes it, from :data:`COMMAND_HELP` (a command
        missing there is loaded for its help)."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            text = COMMAND_HELP.get(name)
            if text is None:
                cmd = self.get_command(ctx, name)
                if cmd is None or cmd.hidden:
                    continue
                text = cmd.get_short_help_str(limit=10_000)
            rows.append((name, make_default_short_help(text, limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

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
