"""ChunkRunStore: one ``chunk_runs`` row per build, created at start and finished at the end."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Engine, text

from graphrag.db.apps import get_app

MAX_ERRORS = 20  # the first errors of a run are kept; the counters hold the totals


class ChunkRunStore:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def create(self, application_id: int, strategy: str, request: dict[str, Any]) -> int:
        with self.engine.begin() as conn:
            return conn.execute(
                text("INSERT INTO chunk_runs (application_id, kind, strategy, request)"
                     " VALUES (:a, 'chunk', :s, CAST(:r AS jsonb)) RETURNING id"),
                {"a": application_id, "s": strategy, "r": json.dumps(request)},
            ).scalar_one()

    def finish(self, run_id: int, stats: dict[str, Any], errors: list[dict[str, Any]]) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                text(
                    """
                    UPDATE chunk_runs SET status = :status, processed_nodes = :processed,
                        written_chunks = :written, skipped_chunks = :skipped,
                        failed_nodes = :failed_nodes, failed_batches = :failed_batches,
                        pages = :pages, duration_s = :duration, rate = :rate,
                        errors = CAST(:errors AS jsonb), finished_at = now()
                    WHERE id = :id
                    """
                ),
                {"id": run_id, "status": stats["status"],
                 "processed": stats["processed_nodes"], "written": stats["written_chunks"],
                 "skipped": stats["skipped_chunks"], "failed_nodes": stats["failed_nodes"],
                 "failed_batches": stats["failed_batches"], "pages": stats["pages"],
                 "duration": stats["duration"], "rate": stats["rate"],
                 "errors": json.dumps(errors[:MAX_ERRORS], default=str)},
            )


def list_runs(engine: Engine, application: str, limit: int = 20) -> list[dict[str, Any]]:
    """The application's chunk runs, newest first."""
    with engine.connect() as conn:
        app = get_app(conn, application)
        rows = conn.execute(
            text(
                """
                SELECT id, kind, strategy, request, status, processed_nodes, written_chunks,
                       skipped_chunks, failed_nodes, failed_batches, pages, duration_s, rate,
                       errors, started_at, finished_at
                FROM chunk_runs WHERE application_id = :a ORDER BY id DESC LIMIT :n
                """
            ),
            {"a": app.id, "n": limit},
        ).mappings().all()
    return [
        {
            "run_id": r["id"], "kind": r["kind"], "strategy": r["strategy"],
            "status": r["status"], "request": r["request"],
            "processed_nodes": r["processed_nodes"], "written_chunks": r["written_chunks"],
            "skipped_chunks": r["skipped_chunks"], "failed_nodes": r["failed_nodes"],
            "failed_batches": r["failed_batches"], "pages": r["pages"],
            "duration": r["duration_s"], "rate": r["rate"], "errors": r["errors"],
            "started_at": r["started_at"].isoformat() if r["started_at"] else None,
            "finished_at": r["finished_at"].isoformat() if r["finished_at"] else None,
        }
        for r in rows
    ]


def last_full_run_ok(engine: Engine, app_id: int, strategy: str,
                     stages: Mapping[str, Sequence[str]]) -> bool:
    """Whether the application's latest code chunk run (page runs aside) succeeded with
    ``strategy`` over every node (no ``limit_nodes``, no ``include_kinds``) and planned
    the stage lists ``stages`` (a stage registered since must be planned in)."""
    with engine.connect() as conn:
        row = conn.execute(text(
            """
            SELECT status, strategy, request FROM chunk_runs
             WHERE application_id = :a AND strategy IS DISTINCT FROM 'page'
             ORDER BY id DESC LIMIT 1
            """), {"a": app_id}).first()
    if row is None:
        return False
    partial = row.request.get("limit_nodes") is not None or row.request.get("include_kinds")
    planned = {target: list(names) for target, names in stages.items()}
    return (row.status == "succeeded" and row.strategy == strategy and not partial
            and row.request.get("stages") == planned)
