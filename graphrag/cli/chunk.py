"""`graphrag chunk` (plan chunks for an application's nodes) and `graphrag runs`."""

from __future__ import annotations

import click

from graphrag.chunking import ChunkBuildRequest, build_chunks, list_runs
from graphrag.chunking.strategies import strategy_names
from graphrag.cli.options import (
    app_option,
    db_option,
    engine_for,
    json_option,
    print_json,
    progress_enabled,
)
from graphrag.cli.progress import progress_bars
from graphrag.pipeline.registry import stage_lists


def _kinds(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    return tuple(k for k in (p.strip() for p in value.split(",")) if k)


@click.command("chunk")
@app_option
@click.option("--strategy", default="per-node", show_default=True,
              help=f"Chunk strategy ({', '.join(strategy_names())}).")
@click.option("--dry-run", is_flag=True, help="Plan and count only; write nothing.")
@click.option("--limit-nodes", type=click.IntRange(min=0), default=None, metavar="N",
              help="Stop after N nodes.")
@click.option("--batch-size", type=click.IntRange(min=1), default=200, show_default=True,
              metavar="N",
              help="Nodes per page (at least 50 are read per page).")
@click.option("--include-kinds", default=None, metavar="KIND,...",
              help="Only nodes of these kinds, e.g. METHOD,CLASS (case-insensitive).")
@click.option("--no-edges", is_flag=True, help="Do not load CALLS edges as relations.")
@click.option("--max-tokens", type=click.IntRange(min=8), default=None, metavar="N",
              help="Token budget per code chunk (ast; default: the embedding model's).")
@db_option
@json_option
def chunk_cmd(app_name: str, strategy: str, dry_run: bool, limit_nodes: int | None,
              batch_size: int, include_kinds: str | None, no_edges: bool,
              max_tokens: int | None, db_url: str | None, as_json: bool) -> None:
    """Plan chunks for the nodes of an application (one run record per call)."""
    settings, engine = engine_for(db_url)
    request = ChunkBuildRequest(
        application=app_name, strategy=strategy, dry_run=dry_run, limit_nodes=limit_nodes,
        batch_size=batch_size, include_kinds=_kinds(include_kinds),
        with_edges_relations=not no_edges, token_budget=max_tokens,
    )
    with progress_bars(progress_enabled(as_json)) as update:
        stats = build_chunks(engine, request, progress=update, settings=settings,
                             stages=stage_lists())
    data = stats.to_dict()
    if as_json:
        print_json(data)
        return
    click.echo(
        ("dry run" if dry_run else f"run {data['run_id']}")
        + f" {data['status']}: {data['processed_nodes']} nodes processed, "
        f"{data['written_chunks']} chunks written, {data['skipped_chunks']} skipped, "
        f"{data['deleted_chunks']} deleted, {data['failed_nodes']} nodes failed, "
        f"{data['failed_batches']} batches failed, {data['pages']} pages, "
        f"duration {data['duration']:.2f}s, rate {data['rate']:.0f} nodes/s"
    )
    for err in data["errors"][:5]:
        click.echo(f"  error: {err}", err=True)


@click.command("runs")
@app_option
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True,
              help="Show at most this many runs.")
@db_option
@json_option
def runs_cmd(app_name: str, limit: int, db_url: str | None, as_json: bool) -> None:
    """List the chunk runs of an application, newest first."""
    _, engine = engine_for(db_url)
    runs = list_runs(engine, app_name, limit)
    if as_json:
        print_json(runs)
        return
    if not runs:
        click.echo("no runs")
    for r in runs:
        duration = f"{r['duration']:.2f}s" if r["duration"] is not None else "-"
        click.echo(
            f"{r['run_id']}\t{r['started_at']}\t{r['strategy']}\t{r['status']}\t"
            f"nodes {r['processed_nodes']}\twritten {r['written_chunks']}\t"
            f"skipped {r['skipped_chunks']}\tfailed {r['failed_nodes']}/{r['failed_batches']}"
            f"\t{duration}"
        )


def register(cli: click.Group) -> None:
    cli.add_command(chunk_cmd)
    cli.add_command(runs_cmd)
