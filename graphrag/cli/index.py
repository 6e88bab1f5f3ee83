"""`graphrag index PATH --app NAME`: build or update everything for a repository."""

from __future__ import annotations

from pathlib import Path

import click

from graphrag.cli.options import app_option, db_option, engine_for, json_option, print_json
from graphrag.cli.progress import progress_bars
from graphrag.errors import StagesFailed
from graphrag.graph.request import IndexRequest
from graphrag.graph.scan import parse_languages
from graphrag.indexing import run_index


@click.command("index")
@click.argument("path", type=click.Path(path_type=Path))
@app_option
@click.option("--include", multiple=True, metavar="GLOB", help="Only files matching (repeat).")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip files matching (repeat).")
@click.option("--languages", metavar="LIST", help="Comma list, e.g. py,java,kotlin,ts,js,go.")
@click.option("--full", is_flag=True, help="Re-parse every file, ignoring content hashes.")
@click.option("--graph-only", is_flag=True, help="Stop after the graph (no chunks, no stages).")
@click.option("--max-file-bytes", type=click.IntRange(min=1),
              help="Skip larger files (default 1 MiB).")
@click.option("--allow-mass-delete", "--yes", "allow_mass_delete", is_flag=True,
              help="Allow a run that removes more than GRAPHRAG_MAX_DELETE_SHARE of the"
                   " application's files.")
@click.option("--queue", "queued", is_flag=True,
              help="Queue the work for `graphrag worker`s and print the job id at once.")
@db_option
@json_option
def index_cmd(path: Path, app_name: str, include: tuple[str, ...], exclude: tuple[str, ...],
              languages: str | None, full: bool, graph_only: bool,
              max_file_bytes: int | None, allow_mass_delete: bool, queued: bool,
              db_url: str | None, as_json: bool) -> None:
    """Index the repository at PATH into application NAME (incremental)."""
    request = IndexRequest(path, app_name, include, exclude, parse_languages(languages),
                           full=full, graph_only=graph_only,
                           allow_mass_delete=allow_mass_delete, max_file_bytes=max_file_bytes)
    # Before anything is touched: a bad pattern is a usage error, not an empty selection.
    request.validate()
    if queued:
        from graphrag.cli.jobs import enqueue_index_cmd

        job_id = enqueue_index_cmd(db_url, request)
        if as_json:
            print_json({"job_id": job_id})
        else:
            click.echo(f"queued job {job_id}")
        return
    settings, engine = engine_for(db_url)
    with progress_bars(not as_json) as progress:
        result = run_index(engine, settings, request, progress=progress)
    if as_json:
        print_json(result)
    else:
        _print_summary(result)
    failures = stage_failures(result.get("pipeline"), app_name)
    if failures:
        raise StagesFailed(failures)


def stage_failures(pipe: dict | None, app_name: str) -> str | None:
    """One line naming the stages that failed in this run, or None."""
    failed = {name: c["failed"] for name, c in ((pipe or {}).get("stages") or {}).items()
              if c.get("failed")}
    if not failed:
        return None
    per_stage = ", ".join(f"{name} {n}" for name, n in failed.items())
    return (f"{sum(failed.values())} chunk stages failed ({per_stage}); see `graphrag"
            f" pipeline status --app {app_name}`, retry with `graphrag pipeline run --app"
            f" {app_name} --retry-failed`")


def _print_summary(result: dict) -> None:
    g = result["graph"]
    click.echo(
        f"{g['app']}: {g['files_scanned']} files scanned, {g['files_parsed']} parsed, "
        f"{g['files_unchanged']} unchanged, {g['files_skipped']} skipped, "
        f"{g['files_failed']} failed, {g['files_deleted']} deleted in {g['seconds']}s"
    )
    click.echo("nodes: " + ", ".join(f"{k} {v}" for k, v in g["nodes_by_kind"].items()))
    click.echo("edges: " + ", ".join(f"{k} {v}" for k, v in g["edges_by_kind"].items()))
    for err in g["errors"][:10]:
        click.echo(f"  {err['status']}: {err['path']}: {err['error']}", err=True)
    chunks = result.get("chunks")
    if chunks and chunks.get("skipped"):
        click.echo("chunks: unchanged")
    elif chunks:
        click.echo(f"chunks: {chunks['processed_nodes']} nodes planned, "
                   f"{chunks['written_chunks']} chunks written, {chunks['deleted_chunks']} removed"
                   f" ({chunks['status']}, {chunks['duration']}s)")
    pipe = result.get("pipeline")
    if pipe:
        stages = ", ".join(f"{name} {c['done']} done/{c['skipped']} skipped/{c['failed']} failed"
                           for name, c in pipe["stages"].items()) or "nothing to do"
        click.echo(f"stages: {pipe['chunks']} chunks in {pipe['duration_s']}s: {stages}")


def register(cli: click.Group) -> None:
    cli.add_command(index_cmd)
