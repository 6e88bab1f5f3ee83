"""`graphrag serve` (HTTP API + MCP at /mcp) and `graphrag mcp` (MCP over stdio)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from graphrag.cli.options import db_option, engine_for, json_option
from graphrag.errors import UsageError


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Server processes (each loads the model once).")
@click.option("--threads", type=click.IntRange(min=1), default=8, show_default=True,
              help="Concurrent requests per process (the database pool holds 2 per thread).")
@click.option("--no-auth", is_flag=True,
              help="No API keys: a development server, refused on a non-loopback host.")
@click.option("--index-root", "index_roots", multiple=True, metavar="DIR",
              type=click.Path(file_okay=False, path_type=Path),
              help="Folder whose subfolders POST /v1/apps/{app}/index may index (repeat).")
@click.option("--no-mcp", is_flag=True, help="Do not mount the MCP server at /mcp.")
@click.option("--queue", is_flag=True,
              help="Index runs go to the job queue (run `graphrag worker` anywhere).")
@db_option
@json_option
def serve_cmd(host: str, port: int, workers: int, threads: int, no_auth: bool,
              index_roots: tuple[Path, ...], no_mcp: bool, queue: bool, db_url: str | None,
              as_json: bool) -> None:
    """Serve the HTTP API under /v1 (OpenAPI at /docs) and MCP at /mcp.

    Every request needs `Authorization: Bearer KEY` (see `graphrag keys create`).
    With --json the address is printed as one JSON line on stdout before serving."""
    from graphrag.server.http import CONFIG_ENV, LOOPBACK, ServeConfig
    from graphrag.server.launch import serve_http

    if no_auth and host not in LOOPBACK:
        raise UsageError(f"--no-auth is only allowed on a loopback host, not {host}")
    if db_url:  # worker processes read the environment
        os.environ["GRAPHRAG_DATABASE_URL"] = db_url
    engine_for(db_url)  # database reachable and migrated before the first request
    config = ServeConfig(host=host, port=port, no_auth=no_auth, threads=threads,
                         index_roots=[str(p.resolve()) for p in index_roots], mcp=not no_mcp,
                         queue=queue)
    os.environ[CONFIG_ENV] = config.to_json()
    url = f"http://{host}:{port}"
    if as_json:
        click.echo(json.dumps({"url": url, "docs": f"{url}/docs",
                               "mcp": None if no_mcp else f"{url}/mcp", "auth": not no_auth}))
    click.echo(f"graphrag: serving on {url} (API docs at /docs"
               + (", MCP at /mcp" if not no_mcp else "")
               + (", NO AUTHENTICATION" if no_auth else "") + ")", err=True)
    serve_http(config, workers)


@click.command("mcp")
@click.option("--app", "app_names", required=True, multiple=True, metavar="NAME",
              help="Application the agent may use (repeat).")
@db_option
@json_option
def mcp_cmd(app_names: tuple[str, ...], db_url: str | None, as_json: bool) -> None:
    """Run the MCP server on stdio for an agent (Claude Code, Cursor, Codex ...).

    stdout carries the protocol (JSON-RPC) whatever --json says; notices go to stderr."""
    from graphrag.db.apps import list_apps
    from graphrag.server.mcp import build_mcp
    from graphrag.server.runtime import Runtime

    settings, engine = engine_for(db_url)
    known = {a["name"] for a in list_apps(engine)}
    for name in app_names:
        if name not in known:
            click.echo(f"graphrag mcp: warning: no application {name!r} yet", err=True)
    runtime = Runtime(settings, engine, owns_process=True)
    runtime.start_model()
    crashed = False
    try:
        build_mcp(runtime, list(app_names)).run("stdio")
    except Exception:
        crashed = True  # reported by the CLI, not hidden by an abandoned model load
        raise
    finally:
        runtime.close(abandon=not crashed)


def register(cli: click.Group) -> None:
    cli.add_command(serve_cmd)
    cli.add_command(mcp_cmd)
