"""The queue's SQL beside procrastinate's own: one row per attempt of a job
(``job_attempts``: who ran it, when, its error or result) and the job listing."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, Engine, text

# procrastinate's job states (its procrastinate_job_status enum)
JOB_STATUSES = ("todo", "doing", "succeeded", "failed", "cancelled", "aborting", "aborted")

LOST = "worker lost mid-job (killed or stopped responding); the job was handed to another"


def begin_attempt(engine: Engine, job_id: int, attempt: int, worker: str) -> None:
    """Record that ``worker`` started attempt ``attempt`` of the job; an earlier attempt
    still marked running belonged to a worker that died."""
    with engine.begin() as conn:
        conn.execute(text(
            "UPDATE job_attempts SET status = 'lost', error = COALESCE(error, :lost),"
            " finished_at = now() WHERE job_id = :j AND attempt < :a AND status = 'doing'"),
            {"j": job_id, "a": attempt, "lost": LOST})
        conn.execute(text(
            """
            INSERT INTO job_attempts (job_id, attempt, worker, status)
            VALUES (:j, :a, :w, 'doing')
            ON CONFLICT (job_id, attempt) DO UPDATE
               SET worker = EXCLUDED.worker, status = 'doing', error = NULL, result = NULL,
                   started_at = now(), finished_at = NULL
            """), {"j": job_id, "a": attempt, "w": worker})


def end_attempt(engine: Engine, job_id: int, attempt: int, status: str,
                error: str | None = None, result: dict[str, Any] | None = None) -> None:
    """Record how the attempt ended (``succeeded``, ``failed`` or ``lost``)."""
    with engine.begin() as conn:
        conn.execute(text(
            "UPDATE job_attempts SET status = :s, error = :e, result = CAST(:r AS jsonb),"
            " finished_at = now() WHERE job_id = :j AND attempt = :a"),
            {"j": job_id, "a": attempt, "s": status, "e": error,
             "r": json.dumps(result, default=str) if result is not None else None})


def mark_lost(engine: Engine, job_id: int, error: str = LOST) -> None:
    """The job's running attempt ended with its worker (SIGKILL, crash, lost network)."""
    with engine.begin() as conn:
        conn.execute(text(
            "UPDATE job_attempts SET status = 'lost', error = :e, finished_at = now()"
            " WHERE job_id = :j AND status = 'doing'"), {"j": job_id, "e": error})


_JOBS = """
SELECT j.id, j.task_name, j.queue_name, j.status::text AS status, j.args, j.attempts,
       j.scheduled_at, j.lock,
       (SELECT min(e.at) FROM procrastinate_events e
         WHERE e.job_id = j.id AND e.type = 'deferred') AS created_at,
       la.attempt, la.worker, la.started_at, la.finished_at, la.error, la.result,
       la.status AS attempt_status,
       (SELECT count(*) FROM job_attempts x WHERE x.job_id = j.id) AS runs
  FROM procrastinate_jobs j
  LEFT JOIN LATERAL (SELECT * FROM job_attempts a WHERE a.job_id = j.id
                      ORDER BY a.attempt DESC LIMIT 1) la ON true
 WHERE (CAST(:id AS bigint) IS NULL OR j.id = :id)
   AND (CAST(:app AS text) IS NULL OR j.args->>'app' = :app)
   AND (CAST(:statuses AS text[]) IS NULL OR j.status::text = ANY(CAST(:statuses AS text[])))
   AND (CAST(:tasks AS text[]) IS NULL OR j.task_name = ANY(CAST(:tasks AS text[])))
 ORDER BY j.id DESC
 LIMIT :limit
"""


def _job(r: Any) -> dict[str, Any]:
    duration = None
    if r["started_at"] is not None and r["finished_at"] is not None:
        duration = round((r["finished_at"] - r["started_at"]).total_seconds(), 3)
    task = r["task_name"].removeprefix("graphrag.")
    return {
        "id": r["id"], "task": task, "queue": r["queue_name"], "status": r["status"],
        "app": (r["args"] or {}).get("app"), "args": r["args"],
        "attempts": int(r["runs"]), "created_at": r["created_at"],
        "scheduled_at": r["scheduled_at"], "started_at": r["started_at"],
        "finished_at": r["finished_at"], "duration_s": duration, "worker": r["worker"],
        "error": r["error"], "result": r["result"],
    }


def select_jobs(conn: Connection, *, job_id: int | None = None, app: str | None = None,
                statuses: list[str] | None = None, tasks: list[str] | None = None,
                limit: int = 50) -> list[dict[str, Any]]:
    """Jobs, newest first, with their latest attempt (error, result, duration)."""
    rows = conn.execute(text(_JOBS), {
        "id": job_id, "app": app, "statuses": statuses or None,
        "tasks": [f"graphrag.{t}" for t in tasks] if tasks else None, "limit": limit,
    }).mappings().all()
    return [_job(r) for r in rows]
