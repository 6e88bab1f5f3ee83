"""`graphrag pipeline run|status`: fill chunks through their stages, and report progress."""

from __future__ import annotations

import click

from graphrag.cli.options import (
    app_option,
    context_for,
    db_option,
    json_option,
    print_json,
    progress_enabled,
)
from graphrag.cli.progress import progress_bars
from graphrag.pipeline.runner import DEFAULT_BATCH_SIZE, PipelineStats, checked_stages, run_pipeline
from graphrag.pipeline.status import pipeline_status


@click.group("pipeline")
def pipeline_group() -> None:
    """Pipeline stages that fill chunks (extract-snippet, render-doc, summarize, embed,
    link-edges)."""


def _split_stages(value: str | None) -> list[str] | None:
    if not value:
        return None
    return [s.strip() for s in value.split(",") if s.strip()]


def _print_stats(stats: PipelineStats) -> None:
    click.echo(f"{stats.app}: {stats.chunks} chunks in {stats.batches} batches, "
               f"{stats.duration_s:.1f}s ({stats.rate:.1f} chunks/s)")
    for name, c in stats.stages.items():
        click.echo(f"  {name:<16} done {c['done']:>6}  skipped {c['skipped']:>6}"
                   f"  failed {c['failed']:>6}")
    if stats.stale:
        click.echo(f"  {stats.stale} results dropped: those chunks changed during the run")
    if stats.failed:
        click.echo(f"  see `graphrag pipeline status --app {stats.app}` for the errors")


@pipeline_group.command("run")
@app_option
@click.option("--stages", "stages", metavar="A,B",
              help="Only these stages (comma-separated); each chunk still runs in plan order.")
@click.option("--limit", type=click.IntRange(min=1), help="Visit at most N chunks.")
@click.option("--retry-failed", is_flag=True, help="Run failed stages again.")
@click.option("--batch-size", type=click.IntRange(min=1), default=DEFAULT_BATCH_SIZE,
              show_default=True, help="Chunks per batch (one transaction each).")
@db_option
@json_option
def pipeline_run(app_name: str, stages: str | None, limit: int | None, retry_failed: bool,
                 batch_size: int, db_url: str | None, as_json: bool) -> None:
    """Run the pending stages of an application's chunks, highest priority first."""
    only = _split_stages(stages)
    checked_stages(only)  # an unknown stage is reported before an unknown application
    ctx = context_for(db_url, app_name)
    with progress_bars(progress_enabled(as_json)) as progress:  # a bar per stage, with ETA
        stats = run_pipeline(ctx, stages=only, limit=limit, retry_failed=retry_failed,
                             stage_progress=progress,
                             batch_size=batch_size)
    if as_json:
        print_json(stats.to_dict())
    else:
        _print_stats(stats)


@pipeline_group.command("status")
@app_option
@db_option
@json_option
def pipeline_status_cmd(app_name: str, db_url: str | None, as_json: bool) -> None:
    """Per-stage pending/done/failed counts and the most common errors."""
    status = pipeline_status(context_for(db_url, app_name))
    if as_json:
        print_json(status)
        return
    if not status["stages"]:
        click.echo(f"{app_name}: no chunks")
    for name, c in status["stages"].items():
        click.echo(f"{name:<16} pending {c['pending']:>6}  done {c['done']:>6}"
                   f"  failed {c['failed']:>6}")
    if status["errors"]:
        click.echo("most common errors:")
    for err in status["errors"]:
        click.echo(f"  {err['count']:>5}  {err['stage']}: {err['error']}")


@click.command("reembed")
@app_option
@click.option("--batch-size", type=click.IntRange(min=1), default=DEFAULT_BATCH_SIZE,
              show_default=True, help="Chunks per batch (one transaction each).")
@db_option
@json_option
def reembed_cmd(app_name: str, batch_size: int, db_url: str | None, as_json: bool) -> None:
    """Embed every chunk of an application again with the configured model and backend
    (GRAPHRAG_MODEL_PATH, GRAPHRAG_EMBED_BACKEND); the vector columns follow its dimension."""
    from graphrag.pipeline.reembed import reembed

    ctx = context_for(db_url, app_name)
    with progress_bars(progress_enabled(as_json)) as progress:
        result = reembed(ctx, progress=progress, batch_size=batch_size)
    if as_json:
        print_json(result.to_dict())
        return
    dims = (f"{result.previous_dim} -> {result.dim}" if result.previous_dim != result.dim
            else str(result.dim))
    click.echo(f"{app_name}: {result.queued} chunks re-embedded with {result.model}"
               f" ({dims}-d)")
    _print_stats(result.stats)
    if result.cleared_apps:
        click.echo(f"vector columns changed to {result.dim}-d: the vectors of "
                   f"{', '.join(result.cleared_apps)} were cleared; run `graphrag reembed "
                   f"--app NAME` for each", err=True)


def register(cli: click.Group) -> None:
    cli.add_command(pipeline_group)
    cli.add_command(reembed_cmd)
