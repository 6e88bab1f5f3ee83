"""`graphrag index`: the whole job for a repository, step after step.

This module composes the data-flow steps (graph -> chunking -> pipeline); it sits
above all of them, like the CLI, and holds no logic of its own beyond the order and
the decision to skip re-planning when nothing changed (nor was left behind by a run
killed after the graph's commit: each step's completion is recorded, ``db.apps``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine

from graphrag.chunking.orchestrator import plan_chunks
from graphrag.chunking.request import ChunkBuildRequest
from graphrag.chunking.run_store import last_full_run_ok
from graphrag.config import Settings
from graphrag.db.apps import content_version, record_step, set_indexed_commit, step_behind
from graphrag.documents.service import finalize_documents
from graphrag.graph.index import IndexStats, build_graph
from graphrag.graph.request import IndexRequest
from graphrag.graph.revision import head_commit
from graphrag.ingesting import index_repository_documents
from graphrag.pipeline.registry import edge_stages, stage_lists
from graphrag.pipeline.runner import StageRunner, run_pipeline
from graphrag.pipeline.store import invalidate_stages
from graphrag.progress import Progress

INDEX_STRATEGY = "ast"
PLAN_STEP = "plan_chunks"  # its record in ``applications.meta.steps`` (db.apps)


def _graph_changed(stats: IndexStats) -> bool:
    return stats.files_parsed > 0 or stats.files_deleted > 0 or any(stats.changes.values())


def index_repository(engine: Engine, settings: Settings, root: Path, app_name: str, *,
                     progress: Progress | None = None, stage_runner: StageRunner | None = None,
                     **options: Any) -> dict[str, Any]:
    """:func:`run_index` of ``IndexRequest.of(root, app_name, **options)`` (the library's
    entry point; options as :class:`~graphrag.graph.request.IndexRequest` names them)."""
    return run_index(engine, settings, IndexRequest.of(root, app_name, **options),
                     progress=progress, stage_runner=stage_runner)


def run_index(engine: Engine, settings: Settings, request: IndexRequest, *,
              progress: Progress | None = None,
              stage_runner: StageRunner | None = None) -> dict[str, Any]:
    """Graph and documents, then (unless ``request.graph_only``) chunks with strategy
    ``ast`` (page chunks for documents) and every stage.

    The request is validated and its application resolved once, before anything is
    scanned, and handed to every step. Idempotent and incremental: an unchanged
    repository parses nothing, re-plans nothing and runs no stage.
    ``stage_runner(app_name)`` replaces the inline stage run (the job queue spreads the
    stages over its workers, :mod:`graphrag.jobs`)."""
    ctx = request.context(engine, settings)  # before anything is scanned or written
    result: dict[str, Any] = {}
    relinked: list[int] = []

    def relink(conn: Connection, app_id: int, touched: set[int]) -> None:
        # Callers/callees changed around unchanged code: its summaries and links are
        # stale. Recorded in the graph's transaction, so a crash cannot lose it.
        relinked.append(invalidate_stages(conn, app_id, sorted(touched), edge_stages()))

    commit = head_commit(request.root)  # before the scan: the files read are this new
    graph = build_graph(ctx, request, progress=progress, on_synced=relink)
    if relinked:
        result["relinked_chunks"] = sum(relinked)
    result["graph"] = graph.to_dict()
    with engine.begin() as conn:  # what answers cite as their source (freshness)
        set_indexed_commit(conn, ctx.app_id, commit)
    # README, docs/*.md|pdf|docx: document nodes beside the code, MENTIONS into it.
    docs = index_repository_documents(ctx, request, graph_changed=_graph_changed(graph),
                                      progress=progress)
    result["documents"] = docs.to_dict()
    if request.graph_only:
        return result

    with engine.connect() as conn:
        # Read before planning: the plans of this run derive from at least this graph.
        version = content_version(conn, ctx.app_id)
        behind = step_behind(conn, ctx.app_id, PLAN_STEP)
    stages = stage_lists()
    if request.full or behind or _graph_changed(graph) or docs.changed or not last_full_run_ok(
            engine, ctx.app_id, INDEX_STRATEGY, stages):
        chunks = plan_chunks(ctx, ChunkBuildRequest(application=ctx.app_name,
                                                     strategy=INDEX_STRATEGY),
                             progress=progress, stages=stages)
        result["chunks"] = chunks.to_dict()
        if chunks.status == "succeeded":
            with engine.begin() as conn:
                record_step(conn, ctx.app_id, PLAN_STEP, version)
    else:
        result["chunks"] = {"skipped": True, "reason": "graph unchanged"}

    if stage_runner is not None:
        pipeline = stage_runner(ctx.app_name)
    else:
        pipeline = run_pipeline(ctx, stage_progress=progress)
    result["pipeline"] = pipeline.to_dict()
    finalize_documents(ctx)
    return result
