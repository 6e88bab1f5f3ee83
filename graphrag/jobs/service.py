"""The queue as services: enqueue work, see jobs, retry or cancel them. The CLI and the
HTTP server call these; workers (:mod:`graphrag.jobs.worker`) execute the jobs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from graphrag.config import Settings
from graphrag.db.apps import validate_app_name
from graphrag.errors import InvalidInput, NotFound, UnknownName
from graphrag.graph.request import IndexRequest
from graphrag.jobs import repos, store
from graphrag.jobs.queue import INDEX_QUEUE, queue_app
from graphrag.jobs.tasks import enqueue_repo_run

TASKS = ("index", "ingest", "repo", "finish", "stages", "schedule")


def enqueue_index(settings: Settings, request: IndexRequest) -> int:
    """Queue ``graphrag index PATH --app NAME``; returns the job id at once. The path must
    be readable by the workers (this machine's, or shared storage)."""
    request.validate()
    if not request.root_path.is_dir():
        raise InvalidInput(f"{request.root}: not a folder")
    with queue_app(settings).open() as app:
        return app.configure_task("graphrag.index", queue=INDEX_QUEUE,
                                  lock=f"app:{request.application}").defer(
            **request.resolved().to_job())


def enqueue_ingest(settings: Settings, app_name: str, paths: Sequence[Path], *,
                   metadata: dict[str, Any] | None = None, category: str | None = None,
                   tags: Iterable[str] = (), force: bool = False) -> int:
    """Queue the ingestion of documents (paths the workers can read); returns the job id."""
    validate_app_name(app_name)
    files = [Path(p).expanduser().resolve() for p in paths]
    for f in files:
        if not f.is_file():
            raise InvalidInput(f"{f}: not a file")
    with queue_app(settings).open() as app:
        return app.configure_task("graphrag.ingest", queue=INDEX_QUEUE,
                                  lock=f"app:{app_name}").defer(
            app=app_name, paths=[str(f) for f in files], metadata=metadata,
            category=category, tags=list(tags), force=force)


def enqueue_repository_run(settings: Settings, engine: Engine, app_name: str
                           ) -> dict[str, Any]:
    """Queue a run of the application's repository now (``repos run``)."""
    with engine.connect() as conn:
        repos.get_repository(conn, app_name)
    with queue_app(settings).open() as app:
        job_id = enqueue_repo_run(app, app_name, "manual")
    if job_id is None:  # one is waiting already: report it
        waiting = store_jobs(engine, app=app_name, statuses=["todo"], tasks=["repo"], limit=1)
        return {"app": app_name, "job_id": waiting[0]["id"] if waiting else None,
                "already_queued": True}
    return {"app": app_name, "job_id": job_id, "already_queued": False}


def store_jobs(engine: Engine, **filters: Any) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        return store.select_jobs(conn, **filters)


def list_jobs(engine: Engine, *, app: str | None = None,
              statuses: Sequence[str] | None = None, tasks: Sequence[str] | None = None,
              limit: int = 50) -> list[dict[str, Any]]:
    """Jobs newest first with state, attempts, duration of the last attempt and error."""
    for s in statuses or ():
        if s not in store.JOB_STATUSES:
            raise UnknownName("job status", s, store.JOB_STATUSES)
    for t in tasks or ():
        if t not in TASKS:
            raise UnknownName("job task", t, TASKS)
    return store_jobs(engine, app=app, statuses=list(statuses or []) or None,
                      tasks=list(tasks or []) or None, limit=limit)


def get_job(engine: Engine, job_id: int) -> dict[str, Any]:
    """One job; :class:`NotFound` when there is none with this id."""
    found = store_jobs(engine, job_id=job_id, limit=1)
    if not found:
        raise NotFound(f"no job {job_id}")
    return found[0]


def retry_job(settings: Settings, engine: Engine, job_id: int) -> dict[str, Any]:
    """Run a failed job again (its attempts go on counting)."""
    from procrastinate import utils

    job = get_job(engine, job_id)
    if job["status"] != "failed":
        raise InvalidInput(f"job {job_id} is {job['status']}: only a failed job can be"
                           " retried (queue the work again instead)")
    with queue_app(settings).open() as app:
        app.job_manager.retry_job_by_id(job_id, retry_at=utils.utcnow())
    return get_job(engine, job_id)


def cancel_job(settings: Settings, engine: Engine, job_id: int) -> dict[str, Any]:
    """Cancel a waiting job; a running one is asked to abort (it stops between batches
    when it checks, or finishes)."""
    job = get_job(engine, job_id)
    if job["status"] not in ("todo", "doing"):
        raise InvalidInput(f"job {job_id} is {job['status']}: only a waiting or running"
                           " job can be cancelled")
    with queue_app(settings).open() as app:
        done = app.job_manager.cancel_job_by_id(job_id, abort=job["status"] == "doing")
    if not done:
        raise InvalidInput(f"job {job_id} could not be cancelled (it just finished?)")
    return get_job(engine, job_id)
